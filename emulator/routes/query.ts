/** Queries: `POST /v1/datasets/_apl?format=legacy|tabular` and the legacy `POST /v1/datasets/{name}/query`.
 * The query engine (emulator/query) does the work; this file wires it to HTTP and the query quota. */
import type { EmulatorContext } from "../context";
import { HttpError, Router, jsonBody, queryParam, sendJson, type RequestContext } from "../http";
import { runAplQuery, runLegacyQuery, type QueryResponse } from "../query";
import { QUOTA_EXCEEDED_STATUS, setQuotaHeaders } from "../quota";

/** Registers the query routes. */
export function registerQueries(router: Router, em: EmulatorContext): void {
  /** Refuses with 430 when the quota is spent; charges one query for each answered 200. */
  const metered = (ctx: RequestContext, run: () => QueryResponse) => {
    const quota = em.quotas.query;
    if (!quota.fits(1)) throw new HttpError(QUOTA_EXCEEDED_STATUS, quota.exceededMessage("query", 1));
    const result = run();
    if (result.status === 200) quota.charge(1);
    setQuotaHeaders(ctx.res, "query", quota);
    sendJson(ctx.res, result.status, result.body);
  };
  router.add("POST", "/v1/datasets/_apl", (ctx) =>
    metered(ctx, () => runAplQuery(em.store, jsonBody(ctx), queryParam(ctx.query, "format"))),
  );
  router.add("POST", "/v1/datasets/:name/query", (ctx) => {
    if (ctx.params.name === "") throw new HttpError(400, "dataset name must not be empty");
    metered(ctx, () => runLegacyQuery(em.store, ctx.params.name, jsonBody(ctx)));
  });
}
