/** Queries: `POST /v1/datasets/_apl?format=legacy|tabular` and the legacy `POST /v1/datasets/{name}/query`.
 * The query engine (emulator/query) does the work; this file wires it to HTTP and the query quota. */
import { APL_QUERY_ACCESS, LEGACY_QUERY_ACCESS, type AccessRouter } from "../auth";
import type { EmulatorContext } from "../context";
import { HttpError, jsonObjectBody, queryParam, type Reply } from "../http";
import { runAplQuery, runLegacyQuery } from "../query";
import { QUOTA_EXCEEDED_STATUS, quotaHeaders } from "../quota";
import { catalogOf } from "../catalog";

/** Registers the query routes. */
export function registerQueries(router: AccessRouter, em: EmulatorContext): void {
  // A dataset never created answers 404 naming it, even where no event was ever ingested; one created and still
  // empty answers an empty result. Our decision: no official client's test or doc queries a missing dataset.
  const exists = (name: string) => catalogOf(em.state).exists(name);
  /** Refuses with 430 when the quota is spent; charges one query for each answered 200. */
  const metered = async (run: () => Promise<Reply>): Promise<Reply> => {
    const quota = em.quotas.query;
    if (!quota.fits(1)) throw new HttpError(QUOTA_EXCEEDED_STATUS, quota.exceededMessage("query", 1));
    const result = await run();
    if (result.status === 200) quota.charge(1);
    return { ...result, headers: { ...result.headers, ...quotaHeaders("query", quota) } };
  };
  router.add(
    "POST",
    "/v1/datasets/_apl",
    (ctx) =>
      metered(() =>
        runAplQuery(
          em.store,
          jsonObjectBody(ctx),
          queryParam(ctx.query, "format"),
          em.clock.nowNs(),
          exists,
          em.queries,
          (dataset) => catalogOf(em.state).virtualFields(dataset),
        ),
      ),
    APL_QUERY_ACCESS,
  );
  router.add(
    "POST",
    "/v1/datasets/:name/query",
    (ctx) => {
      if (ctx.params.name === "") throw new HttpError(400, "dataset name must not be empty");
      return metered(() =>
        runLegacyQuery(em.store, ctx.params.name, jsonObjectBody(ctx), em.clock.nowNs(), exists, em.queries),
      );
    },
    LEGACY_QUERY_ACCESS,
  );
}
