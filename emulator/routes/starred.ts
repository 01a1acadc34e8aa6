/**
 * Starred queries: `/v2/apl-starred-queries` and `/{id}`. The list takes `limit` (1-1000, default 100),
 * `offset`, `dataset`, `qs` (case-insensitive match on name or APL) and `who`: unset means the caller's own,
 * a user id that user's, `team` everyone else's, `all` everyone's.
 */
import { StarredQueryCreateSchema, StarredQueryListSchema, clampToSafe } from "../../provider/schemas";
import { json, queryParam, validateBody, validateQuery } from "../http";
import { LOCAL_USER, type StoredObject } from "../state";
import { datasetNeed, datasetsNamedBy } from "../auth";
import { compact, type CollectionFamily } from "./common";

/** The validated starred query as stored. */
function starred(raw: Record<string, unknown>, id: string): StoredObject {
  const body = validateBody(StarredQueryCreateSchema, raw);
  return compact({ id, ...body, query: compact({ ...body.query }) }) as StoredObject;
}

/** The starred-query family. */
export const starredQueries: CollectionFamily = {
  name: "starredQueries",
  idPrefix: "sq_",
  path: "/v2/apl-starred-queries",
  // `starredQueries` is a dataset capability: on the body's dataset when it names one, else on any dataset.
  capability: (action, ctx) => datasetNeed("starredQueries", action, datasetsNamedBy(ctx)),
  routes: (col) => ({
    list: ({ query }) => {
      const params = validateQuery(
        StarredQueryListSchema,
        Object.fromEntries(["limit", "offset", "dataset", "who", "qs"].map((k) => [k, queryParam(query, k)])),
      );
      const qs = params.qs?.toLowerCase();
      const found = col.list().filter((q) => {
        const who = q.who as string;
        if (params.who === undefined || params.who === "") {
          if (who !== LOCAL_USER) return false;
        } else if (params.who === "team") {
          if (who === LOCAL_USER) return false;
        } else if (params.who !== "all" && who !== params.who) return false;
        if (params.dataset !== undefined && params.dataset !== "" && q.dataset !== params.dataset)
          return false;
        if (qs) {
          const apl = String((q.query as Record<string, unknown>)?.apl ?? "");
          if (!String(q.name).toLowerCase().includes(qs) && !apl.toLowerCase().includes(qs)) return false;
        }
        return true;
      });
      const offset = clampToSafe(params.offset);
      return json(found.slice(offset, offset + clampToSafe(params.limit)));
    },
    create: starred,
    update: (raw, current) => starred(raw, current.id),
  }),
};
