/** Annotations: `/v2/annotations` (list with filters, create 201) and `/v2/annotations/{id}` (partial PUT). */
import { AnnotationCreateSchema, AnnotationUpdateSchema, ZERO_TIME } from "../../provider/schemas";
import type { EmulatorContext } from "../context";
import { HttpError, Router, queryParam, sendJson, sendNoContent, validateOr400 } from "../http";
import { parseRfc3339Ns } from "../time";
import { bodyWithoutReadOnly, compact, getOr404, ok } from "./common";

/** A list bound from the query string; absent, empty and the zero time mean "no bound". */
function bound(query: Record<string, string | string[]>, name: string): bigint | undefined {
  const text = queryParam(query, name);
  if (text === undefined || text === "" || text === ZERO_TIME) return undefined;
  const ns = parseRfc3339Ns(text);
  if (ns === undefined) throw new HttpError(400, `${name}: must be an RFC 3339 date-time`);
  return ns;
}

/** Registers the annotation routes. */
export function registerAnnotations(router: Router, em: EmulatorContext): void {
  const col = em.state.annotations;

  router.add("GET", "/v2/annotations", ({ query, res }) => {
    const raw = query.datasets;
    const wanted = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw])
      .flatMap((s) => s.split(","))
      .map((s) => s.trim())
      .filter(Boolean);
    const start = bound(query, "start");
    const end = bound(query, "end");
    const list = col.list().filter((a) => {
      const datasets = a.datasets as string[];
      if (wanted.length > 0 && !datasets.some((d) => wanted.includes(d))) return false;
      // An annotation spanning [time, endTime] is listed when that span overlaps [start, end].
      const time = parseRfc3339Ns(a.time as string) ?? 0n;
      const until = typeof a.endTime === "string" ? (parseRfc3339Ns(a.endTime) ?? time) : time;
      if (start !== undefined && until < start) return false;
      if (end !== undefined && time > end) return false;
      return true;
    });
    sendJson(res, 200, list);
  });

  router.add("POST", "/v2/annotations", (ctx) => {
    const body = validateOr400(AnnotationCreateSchema, bodyWithoutReadOnly(ctx));
    const created = col.set(
      compact({
        id: col.newId(),
        ...body,
        time: body.time ?? new Date().toISOString(),
      }),
    );
    em.changed();
    ok(ctx, created, 201);
  });

  router.add("GET", "/v2/annotations/:id", (ctx) => ok(ctx, getOr404(col, ctx.params.id)));

  router.add("PUT", "/v2/annotations/:id", (ctx) => {
    const current = getOr404(col, ctx.params.id);
    const patch = validateOr400(AnnotationUpdateSchema, bodyWithoutReadOnly(ctx));
    const updated = col.set(compact({ ...current, ...patch, id: current.id }));
    em.changed();
    ok(ctx, updated);
  });

  router.add("DELETE", "/v2/annotations/:id", (ctx) => {
    getOr404(col, ctx.params.id);
    col.delete(ctx.params.id);
    em.changed();
    sendNoContent(ctx.res);
  });
}
