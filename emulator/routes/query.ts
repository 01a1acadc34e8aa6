/** Queries: `POST /v1/datasets/_apl?format=legacy|tabular` and the legacy `POST /v1/datasets/{name}/query`.
 * The query engine (emulator/query) does the work; this file wires it to HTTP. */
import type { EmulatorContext } from "../context";
import { HttpError, Router, parseJson, queryParam, sendJson } from "../http";
import { runAplQuery, runLegacyQuery } from "../query";

/** Registers the query routes. */
export function registerQueries(router: Router, em: EmulatorContext): void {
  router.add("POST", "/v1/datasets/_apl", ({ res, query, body }) => {
    const result = runAplQuery(em.store, parseJson(body), queryParam(query, "format"));
    sendJson(res, result.status, result.body);
  });
  router.add("POST", "/v1/datasets/:name/query", ({ res, params, body }) => {
    if (params.name === "") throw new HttpError(400, "dataset name must not be empty");
    const result = runLegacyQuery(em.store, params.name, parseJson(body));
    sendJson(res, result.status, result.body);
  });
}
