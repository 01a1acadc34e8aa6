/** Annotations: `/v2/annotations` (list with filters, create 201) and `/v2/annotations/{id}` (partial PUT). */
import { AnnotationCreateSchema, AnnotationUpdateSchema, ZERO_TIME } from "../../provider/schemas";
import { HttpError, json, queryParam, validateBody } from "../http";
import { parseRfc3339Ns } from "../time";
import { compact, type CollectionFamily } from "./common";

/** A list bound from the query string; absent, empty and the zero time mean "no bound". */
function bound(query: Record<string, string | string[]>, name: string): bigint | undefined {
  const text = queryParam(query, name);
  if (text === undefined || text === "" || text === ZERO_TIME) return undefined;
  const ns = parseRfc3339Ns(text);
  if (ns === undefined) throw new HttpError(400, `${name}: must be an RFC 3339 date-time`);
  return ns;
}

/** The annotation family. */
export const annotations: CollectionFamily = {
  name: "annotations",
  idPrefix: "ann_",
  path: "/v2/annotations",
  capability: "annotations",
  createdStatus: 201,
  routes: (col, em) => ({
    list: ({ query }) => {
      const raw = query.datasets;
      const wanted = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw])
        .flatMap((s) => s.split(","))
        .map((s) => s.trim())
        .filter(Boolean);
      const start = bound(query, "start");
      const end = bound(query, "end");
      return json(
        col.list().filter((a) => {
          const datasets = a.datasets as string[];
          if (wanted.length > 0 && !datasets.some((d) => wanted.includes(d))) return false;
          // An annotation spanning [time, endTime] is listed when that span overlaps [start, end].
          const time = parseRfc3339Ns(a.time as string) ?? 0n;
          const until = typeof a.endTime === "string" ? (parseRfc3339Ns(a.endTime) ?? time) : time;
          if (start !== undefined && until < start) return false;
          if (end !== undefined && time > end) return false;
          return true;
        }),
      );
    },
    create: (raw, id) => {
      const body = validateBody(AnnotationCreateSchema, raw);
      return compact({ id, ...body, time: body.time ?? new Date(em.clock.nowMs()).toISOString() });
    },
    // PUT is a partial update: the fields given replace those stored.
    update: (raw, current) => compact({ ...current, ...validateBody(AnnotationUpdateSchema, raw) }),
  }),
};
