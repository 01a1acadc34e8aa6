/**
 * Starred queries: `/v2/apl-starred-queries` and `/{id}`. The list takes `limit` (1-1000, default 100),
 * `offset`, `dataset`, `qs` (case-insensitive match on name or APL) and `who`: unset means the caller's own,
 * a user id that user's, `team` everyone else's, `all` everyone's.
 */
import { StarredQueryCreateSchema, StarredQueryListSchema } from "../../provider/schemas";
import type { EmulatorContext } from "../context";
import { Router, queryParam, sendJson, sendNoContent, validateOr400 } from "../http";
import { LOCAL_USER, type StoredObject } from "../state";
import { bodyWithoutReadOnly, compact, getOr404, ok } from "./common";

/** Registers the starred-query routes. */
export function registerStarredQueries(router: Router, em: EmulatorContext): void {
  const col = em.state.starredQueries;

  router.add("GET", "/v2/apl-starred-queries", ({ query, res }) => {
    const params = validateOr400(
      StarredQueryListSchema,
      Object.fromEntries(["limit", "offset", "dataset", "who", "qs"].map((k) => [k, queryParam(query, k)])),
    );
    const qs = params.qs?.toLowerCase();
    const list = col.list().filter((q) => {
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
    sendJson(res, 200, list.slice(params.offset, params.offset + params.limit));
  });

  router.add("POST", "/v2/apl-starred-queries", (ctx) => {
    const body = validateOr400(StarredQueryCreateSchema, bodyWithoutReadOnly(ctx));
    const created = col.set(
      compact({ id: col.newId(), ...body, query: compact({ ...body.query }) }) as StoredObject,
    );
    em.changed();
    ok(ctx, created);
  });

  router.add("GET", "/v2/apl-starred-queries/:id", (ctx) => ok(ctx, getOr404(col, ctx.params.id)));

  router.add("PUT", "/v2/apl-starred-queries/:id", (ctx) => {
    const current = getOr404(col, ctx.params.id);
    const body = validateOr400(StarredQueryCreateSchema, bodyWithoutReadOnly(ctx));
    const updated = col.set(
      compact({ id: current.id, ...body, query: compact({ ...body.query }) }) as StoredObject,
    );
    em.changed();
    ok(ctx, updated);
  });

  router.add("DELETE", "/v2/apl-starred-queries/:id", (ctx) => {
    getOr404(col, ctx.params.id);
    col.delete(ctx.params.id);
    em.changed();
    sendNoContent(ctx.res);
  });
}
