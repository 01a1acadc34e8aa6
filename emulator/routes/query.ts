/** Queries: `POST /v1/datasets/_apl?format=legacy|tabular` and the legacy `POST /v1/datasets/{name}/query`.
 * The query engine (emulator/query) does the work; this file wires it to HTTP. */
import type { EmulatorContext } from "../context";
import { HttpError, Router, parseJson, queryParam, sendJson } from "../http";
import type { EventStoreApi } from "../store/events";

type QueryResult = { status: number; body: unknown };
interface QueryEngine {
  runAplQuery(store: EventStoreApi, body: unknown, format: string): QueryResult;
  runLegacyQuery(store: EventStoreApi, dataset: string, body: unknown): QueryResult | Promise<QueryResult>;
}

function engine(): QueryEngine {
  return require("../query") as QueryEngine;
}

/** Registers the query routes. */
export function registerQueries(router: Router, em: EmulatorContext): void {
  router.add("POST", "/v1/datasets/_apl", async ({ res, query, body }) => {
    const format = queryParam(query, "format") ?? "legacy";
    const result = await engine().runAplQuery(em.store, parseJson(body), format);
    sendJson(res, result.status, result.body);
  });
  router.add("POST", "/v1/datasets/:name/query", async ({ res, params, body }) => {
    if (params.name === "") throw new HttpError(400, "dataset name must not be empty");
    const result = await engine().runLegacyQuery(em.store, params.name, parseJson(body));
    sendJson(res, result.status, result.body);
  });
}
