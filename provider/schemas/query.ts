/** Query requests and results: `/v1/datasets/_apl` and the legacy `/v1/datasets/{name}/query`. */
import { z } from "zod";
import { parseQueryTimeNs, RELATIVE_TIME } from "../time";
import { NonEmptyStringSchema, OrderEntrySchema, absentWhenUnset } from "./common";
import { int64 } from "./int64";

export { RELATIVE_TIME };

/** `startTime`/`endTime`: RFC 3339, or a relative form such as `now`, `now-1h`, `now-30m`. */
export const QueryTimeSchema = z
  .string({ error: "must be a string" })
  .refine((s) => parseQueryTimeNs(s, 0n) !== undefined, {
    error: "must be an RFC 3339 time or a relative time such as now-1h",
  });

export const QueryOptionsSchema = z.object({
  disableCache: z.boolean().optional(),
  disableStats: z.boolean().optional(),
  disableTrace: z.boolean().optional(),
  noAggregation: z.boolean().optional(),
  noFill: z.boolean().optional(),
  noInterpolation: z.boolean().optional(),
  maxDataPoints: int64().optional(),
  maxSeries: int64().optional(),
  priority: z.string().optional(),
  resolution: z.string().optional(),
});

/** Body of `POST /v1/datasets/_apl`; null means absent. */
const AplRequestObjectSchema = z.object({
  apl: NonEmptyStringSchema,
  startTime: QueryTimeSchema.optional(),
  endTime: QueryTimeSchema.optional(),
  /** The request's page limit; the page is the lowest of this, the APL's `limit`/`take` and the server's. */
  limit: z
    .number({ error: "must be a number" })
    .int("must be an integer")
    .min(1, "must be at least 1")
    .optional(),
  cursor: z.string({ error: "must be a string" }).optional(),
  includeCursor: z.boolean({ error: "must be a boolean" }).optional(),
  variables: z.record(z.string(), z.unknown()).optional(),
  queryOptions: QueryOptionsSchema.optional(),
});
export const AplRequestSchema = absentWhenUnset(AplRequestObjectSchema);
export type AplRequest = z.input<typeof AplRequestObjectSchema>;

/** Body of `POST /v1/datasets/{name}/query` (legacy). `limit` is at most 50,000. */
const LegacyQueryRequestObjectSchema = z.object({
  startTime: QueryTimeSchema,
  endTime: QueryTimeSchema,
  limit: z
    .number({ error: "must be a number" })
    .int("must be an integer")
    .min(1, "must be at least 1")
    .max(50000, "must be at most 50000")
    .optional(),
  order: z.array(OrderEntrySchema).optional(),
  cursor: z.string({ error: "must be a string" }).optional(),
  includeCursor: z.boolean({ error: "must be a boolean" }).optional(),
  filter: z.unknown().optional(),
  project: z.array(z.unknown()).optional(),
});
/**
 * The legacy body as the service reads it: null means absent (axiom-py sends `order`, `project`, `cursor`,
 * `filter`, … as null), and axiom-go's zero values mean unset: `limit: 0` is the default page. (Go's zero
 * `filter` is the emulator's business: see `isZeroFilter` in emulator/query/legacy.ts.)
 */
export const LegacyQueryRequestSchema = z.preprocess(
  (body) =>
    typeof body === "object" && body !== null && (body as { limit?: unknown }).limit === 0
      ? { ...body, limit: undefined }
      : body,
  absentWhenUnset(LegacyQueryRequestObjectSchema),
);
export type LegacyQueryRequest = z.input<typeof LegacyQueryRequestObjectSchema>;

export const QueryFormatSchema = z.enum(["legacy", "tabular"], { error: "must be legacy or tabular" });
export type QueryFormat = z.infer<typeof QueryFormatSchema>;

/* Results are read by shape: only what the client uses is required (a page's `status` object and its rows),
 * every other field is optional, null reads as absent at every level (axiom-py's result types are Optional), and
 * unknown fields are kept, so a service that adds or drops a status field does not break a query. `queryLegacy`,
 * `query` and `paginate` accept the same bodies: paginate reads `status` with {@link QueryStatusSchema} and its
 * rows with {@link rowsOrEmpty} too. */

/** A required list of rows that may come as `null`: Go encodes an empty (nil) slice so, and it means no rows. */
export function rowsOrEmpty<T extends z.ZodType>(list: T) {
  return z.preprocess((v) => (v === null ? [] : v), list);
}

/** The `status` object of a query result. */
export const QueryStatusSchema = absentWhenUnset(
  z
    .looseObject({
      elapsedTime: z.number(),
      minCursor: z.string(),
      maxCursor: z.string(),
      blocksExamined: z.number(),
      rowsExamined: z.number(),
      rowsMatched: z.number(),
      numGroups: z.number(),
      isPartial: z.boolean(),
      cacheStatus: z.number(),
      minBlockTime: z.string(),
      maxBlockTime: z.string(),
    })
    .partial(),
);
export type QueryStatus = z.infer<typeof QueryStatusSchema>;

/** One matched row in the legacy format. */
export const MatchSchema = absentWhenUnset(
  z
    .looseObject({
      _time: z.string(),
      _sysTime: z.string(),
      _rowId: z.string(),
      data: z.record(z.string(), z.unknown()),
    })
    .partial(),
);
export type Match = z.infer<typeof MatchSchema>;

/** Legacy-format result (the `_apl` variant adds `datasetNames` and `fieldsMetaMap`). */
export const LegacyResultSchema = absentWhenUnset(
  z
    .looseObject({
      buckets: z.looseObject({ series: z.array(z.unknown()), totals: z.array(z.unknown()) }).partial(),
      datasetNames: z.array(z.string()),
      fieldsMetaMap: z.record(z.string(), z.unknown()),
    })
    .partial()
    .extend({ status: QueryStatusSchema, matches: rowsOrEmpty(z.array(MatchSchema)) }),
);
export type LegacyResult = z.infer<typeof LegacyResultSchema>;

/** Tabular-format result; `columns` is column-major, aligned with `fields`. */
export const TabularResultSchema = absentWhenUnset(
  z
    .looseObject({
      format: z.string(),
      datasetNames: z.array(z.string()),
    })
    .partial()
    .extend({
      status: QueryStatusSchema,
      tables: rowsOrEmpty(
        z.array(
          z
            .looseObject({
              name: z.string(),
              sources: z.array(z.looseObject({ name: z.string() })),
              fields: z.array(z.looseObject({ name: z.string(), type: z.string() }).partial()),
              order: z.array(z.looseObject({ field: z.string(), desc: z.boolean() }).partial()),
              groups: z.array(z.unknown()),
              // Each column is checked to be an array, and kept as it came: a summarize over a month of bins
              // answers millions of cells, which an element-wise z.unknown() walked and copied one by one.
              columns: z.array(
                z.custom<unknown[]>((v) => Array.isArray(v), { message: "expected an array" }),
              ),
            })
            .partial(),
        ),
      ),
    }),
);
export type TabularResult = z.infer<typeof TabularResultSchema>;

/** Body of a successful ingest: shape only. Every field may be missing (axiom-js's mocks leave out `failures`)
 * or null (axiom-go sends its nil `failures` slice as null); the client counts a missing number as 0. Unknown
 * fields are kept. The counts keep their type: the client sums them, so a non-number is an error, not drift. */
export const IngestResultSchema = absentWhenUnset(
  z
    .looseObject({
      ingested: z.number(),
      failed: z.number(),
      failures: z.array(z.looseObject({ timestamp: z.string(), error: z.string() }).partial()),
      processedBytes: z.number(),
      blocksCreated: z.number(),
      walLength: z.number(),
    })
    .partial(),
);
export type IngestResult = z.infer<typeof IngestResultSchema>;
