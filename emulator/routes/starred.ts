/**
 * Starred queries: `/v2/apl-starred-queries` and `/{id}`. The list takes `limit` (1-1000, default 100),
 * `offset`, `dataset`, `qs` (case-insensitive match on name or APL) and `who`: unset means the caller's own,
 * a user id that user's, `team` everyone else's, `all` everyone's.
 */
import { StarredQueryCreateSchema, StarredQueryListSchema } from "../../provider/schemas";
import type { EmulatorContext } from "../context";
import { Router, queryParam, sendJson, validateOr400, type Handler } from "../http";
import { LOCAL_USER, type StoredObject } from "../state";
import { compact, registerCollection } from "./common";

/** Registers the starred-query routes. */
export function registerStarredQueries(router: Router, em: EmulatorContext): void {
  const col = em.state.starredQueries;

  const list: Handler = ({ query, res }) => {
    const params = validateOr400(
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
      if (params.dataset !== undefined && params.dataset !== "" && q.dataset !== params.dataset) return false;
      if (qs) {
        const apl = String((q.query as Record<string, unknown>)?.apl ?? "");
        if (!String(q.name).toLowerCase().includes(qs) && !apl.toLowerCase().includes(qs)) return false;
      }
      return true;
    });
    sendJson(res, 200, found.slice(params.offset, params.offset + params.limit));
  };

  /** The validated starred query as stored. */
  const starred = (raw: Record<string, unknown>, id: string): StoredObject => {
    const body = validateOr400(StarredQueryCreateSchema, raw);
    return compact({ id, ...body, query: compact({ ...body.query }) }) as StoredObject;
  };

  registerCollection(router, em, {
    path: "/v2/apl-starred-queries",
    collection: col,
    list,
    create: starred,
    update: (raw, current) => starred(raw, current.id),
  });
}
