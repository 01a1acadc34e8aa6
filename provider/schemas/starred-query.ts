/** Starred (saved APL) query: the API reference's object (axiom.co/docs/restapi) and the OpenAPI v2 document's required fields. Endpoints: `/v2/apl-starred-queries`. */
import { z } from "zod";
import { NonEmptyStringSchema, OrderEntrySchema, StringMapSchema, absentWhenUnset } from "./common";
import { int64, int64Param } from "./int64";
import { QueryOptionsSchema, QueryTimeSchema } from "./query";

const queryFields = {
  /** Required; the APL text. */
  apl: NonEmptyStringSchema,
  cursor: z.string({ error: "must be a string" }).optional(),
  /** At least 1. */
  defaultLimit: int64({ min: 1n }).optional(),
  defaultOrder: z.array(OrderEntrySchema).optional(),
  startTime: QueryTimeSchema.optional(),
  endTime: QueryTimeSchema.optional(),
  includeCursor: z.boolean({ error: "must be a boolean" }).optional(),
  includeCursorField: z.boolean({ error: "must be a boolean" }).optional(),
  libraries: z.array(z.string({ error: "must be a string" })).optional(),
  variables: z.record(z.string(), z.unknown()).optional(),
  queryOptions: QueryOptionsSchema.optional(),
};

const starredFields = (strict: boolean) => ({
  /** Required; always `apl`. */
  kind: z.literal("apl", { error: "must be apl" }),
  /** Required. */
  name: NonEmptyStringSchema,
  /** Required; the owner: a user id, or `team` for a shared query. */
  who: NonEmptyStringSchema,
  /** Required; the APL request that is saved. */
  query: strict ? z.strictObject(queryFields) : absentWhenUnset(z.object(queryFields)),
  /** Required; a string-to-string map. */
  metadata: StringMapSchema,
  dataset: z.string({ error: "must be a string" }).optional(),
});

/** Body of `POST /v2/apl-starred-queries` and `PUT /v2/apl-starred-queries/{id}`. */
export const StarredQueryCreateSchema = absentWhenUnset(z.object(starredFields(false)));
export const StarredQueryUpdateSchema = StarredQueryCreateSchema;
/** What a user declares. */
export const StarredQueryInputSchema = z.strictObject(starredFields(true));

export type StarredQueryCreate = z.input<typeof StarredQueryInputSchema>;
export type StarredQueryUpdate = StarredQueryCreate;

/** The saved request as the service returns it: its fields typed as declared, each may be absent, a value of an
 * unexpected type is kept as sent (drift for the provider, not an error), and unknown fields are kept, in the
 * options and order entries too. */
const StarredQueryRequestSchema = absentWhenUnset(
  z
    .looseObject(queryFields)
    .partial()
    .extend({
      defaultOrder: z.array(z.looseObject(OrderEntrySchema.shape)).optional(),
      queryOptions: z.looseObject(QueryOptionsSchema.shape).optional(),
    }),
  { keepMismatched: true },
);

/** A starred query as the service returns it; unknown fields survive. */
export const StarredQuerySchema = absentWhenUnset(
  z
    .looseObject({
      kind: z.string(),
      name: z.string(),
      who: z.string(),
      dataset: z.string(),
      metadata: z.record(z.string(), z.unknown()),
      query: StarredQueryRequestSchema,
    })
    .partial()
    .extend({ id: z.string() }),
  { keepMismatched: true },
);
export type StarredQuery = z.output<typeof StarredQuerySchema>;

/** Query string of `GET /v2/apl-starred-queries`. */
export const StarredQueryListSchema = z.object({
  limit: int64Param({ min: 1n, max: 1000n, fallback: 100 }),
  offset: int64Param({ min: 0n, fallback: 0 }),
  dataset: z.string().optional(),
  who: z.string().optional(),
  qs: z.string().optional(),
});
export type StarredQueryListParams = z.input<typeof StarredQueryListSchema>;
