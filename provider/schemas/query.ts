/** Query requests and results: `/v1/datasets/_apl` and the legacy `/v1/datasets/{name}/query`. */
import { z } from "zod";
import { parseQueryTimeNs, RELATIVE_TIME } from "../time";
import { NonEmptyStringSchema, OrderEntrySchema } from "./common";

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
  maxDataPoints: z.number().int("must be an integer").optional(),
  maxSeries: z.number().int("must be an integer").optional(),
  priority: z.string().optional(),
  resolution: z.string().optional(),
});

/** Body of `POST /v1/datasets/_apl`. */
export const AplRequestSchema = z.object({
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
export type AplRequest = z.input<typeof AplRequestSchema>;

/** Body of `POST /v1/datasets/{name}/query` (legacy). `limit` is at most 50,000. */
export const LegacyQueryRequestSchema = z.object({
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
export type LegacyQueryRequest = z.input<typeof LegacyQueryRequestSchema>;

export const QueryFormatSchema = z.enum(["legacy", "tabular"], { error: "must be legacy or tabular" });
export type QueryFormat = z.infer<typeof QueryFormatSchema>;

/** The `status` object of a query result. */
export const QueryStatusSchema = z.looseObject({
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
});
export type QueryStatus = z.infer<typeof QueryStatusSchema>;

/** One matched row in the legacy format. */
export const MatchSchema = z.looseObject({
  _time: z.string(),
  _sysTime: z.string(),
  _rowId: z.string(),
  data: z.record(z.string(), z.unknown()),
});
export type Match = z.infer<typeof MatchSchema>;

/** Legacy-format result (the `_apl` variant adds `datasetNames` and `fieldsMetaMap`). */
export const LegacyResultSchema = z.looseObject({
  status: QueryStatusSchema,
  matches: z.array(MatchSchema),
  buckets: z.looseObject({ series: z.array(z.unknown()), totals: z.array(z.unknown()) }),
  datasetNames: z.array(z.string()).optional(),
  fieldsMetaMap: z.record(z.string(), z.unknown()).optional(),
});
export type LegacyResult = z.infer<typeof LegacyResultSchema>;

/** Tabular-format result; `columns` is column-major, aligned with `fields`. */
export const TabularResultSchema = z.looseObject({
  format: z.literal("tabular"),
  status: QueryStatusSchema,
  tables: z.array(
    z.looseObject({
      name: z.string(),
      sources: z.array(z.object({ name: z.string() })),
      fields: z.array(z.looseObject({ name: z.string(), type: z.string() })),
      order: z.array(z.object({ field: z.string(), desc: z.boolean() })),
      groups: z.array(z.unknown()),
      columns: z.array(z.array(z.unknown())),
    }),
  ),
  datasetNames: z.array(z.string()),
});
export type TabularResult = z.infer<typeof TabularResultSchema>;

/** Body of a successful ingest. */
export const IngestResultSchema = z.looseObject({
  ingested: z.number(),
  failed: z.number(),
  failures: z.array(z.object({ timestamp: z.string(), error: z.string() })),
  processedBytes: z.number(),
  blocksCreated: z.number(),
  walLength: z.number(),
});
export type IngestResult = z.infer<typeof IngestResultSchema>;
