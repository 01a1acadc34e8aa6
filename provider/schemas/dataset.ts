/**
 * Dataset: the OpenAPI v2 document's (axiomhq/docs `content/docs/(api-reference)/restapi/versions/v2.json`) `Dataset`,
 * `CreateDataset`, `UpdateDataset`, `DatasetField`, `MapFields`, `MapField` and `TrimOptions`.
 * Endpoints: `/v2/datasets[/{id}]`, `/fields`, `/mapfields`, `/trim`, `/vacuum`. The id is the name.
 */
import { z } from "zod";
import { NonEmptyStringSchema, absentWhenUnset, serviceDefault, uniqueList } from "./common";

/** The kinds a dataset may be (OpenAPI `CreateDataset.kind`); `axiom:events:v1` is the service's default. */
export const DATASET_KINDS = [
  "axiom:events:v1",
  "otel:logs:v1",
  "otel:metrics:v1",
  "otel:traces:v1",
] as const;
export type DatasetKind = (typeof DATASET_KINDS)[number];
export const DEFAULT_DATASET_KIND: DatasetKind = "axiom:events:v1";

/** Longest dataset name (axiom-go `DatasetCreateRequest`, datasets.go:109-111). */
export const DATASET_NAME_MAX = 80;

/**
 * A dataset name (axiom-go datasets.go:109-111): "80 characters of [a-zA-Z0-9] and special characters "-", "_"
 * and ".". Special characters cannot be a prefix or suffix. The prefix cannot be "axiom-"." Each rule has its own
 * message, so an error says which one failed.
 */
export const DatasetNameSchema = z
  .string({ error: "must be a string" })
  .min(1, "must not be empty")
  .max(DATASET_NAME_MAX, `must be at most ${DATASET_NAME_MAX} characters long`)
  .regex(/^[a-zA-Z0-9._-]*$/, { error: "must contain only letters, digits, '.', '_' and '-'" })
  .refine((s) => !/^[._-]/.test(s), { error: "must not start with '.', '_' or '-'" })
  .refine((s) => !/[._-]$/.test(s), { error: "must not end with '.', '_' or '-'" })
  .refine((s) => !s.startsWith("axiom-"), { error: "must not start with 'axiom-' (reserved)" });

/**
 * The problem with a dataset name, in words, or undefined when it is valid: the name rule above for code that
 * checks a path segment rather than a body (ingest, the emulator's `--dataset`).
 */
export function datasetNameRuleProblem(name: string): string | undefined {
  const r = DatasetNameSchema.safeParse(name);
  return r.success ? undefined : r.error.issues[0].message;
}

/** A map field's name: terraform-provider-axiom's `^[a-zA-Z0-9]+([a-zA-Z0-9_.-]*[a-zA-Z0-9]+)?$`. */
export const MapFieldNameSchema = z
  .string({ error: "must be a string" })
  .regex(/^[a-zA-Z0-9]+([a-zA-Z0-9_.-]*[a-zA-Z0-9]+)?$/, {
    error: "must be letters and digits, with '.', '_' or '-' only between them",
  });

const RetentionDaysSchema = z
  .number({ error: "must be a number" })
  .int("must be an integer")
  .min(0, "must be at least 0");

/** What a user declares. */
export const DatasetInputSchema = z.strictObject({
  /** Required: unique in the organization; also the dataset's id. Changing it replaces the dataset. */
  name: DatasetNameSchema,
  /** Changing it replaces the dataset. */
  kind: serviceDefault(
    z.enum(DATASET_KINDS, { error: `must be one of ${DATASET_KINDS.join(", ")}` }).optional(),
    DEFAULT_DATASET_KIND,
  ),
  description: serviceDefault(z.string({ error: "must be a string" }).optional(), ""),
  /** Days of data kept when `useRetentionPeriod` is true. */
  retentionDays: serviceDefault(RetentionDaysSchema.optional(), 0),
  useRetentionPeriod: serviceDefault(z.boolean({ error: "must be a boolean" }).optional(), false),
  /** Map-field names: a set, managed through the mapfields endpoints. */
  mapFields: serviceDefault(uniqueList(MapFieldNameSchema).optional(), []),
  /** Edge deployment id; the license's default when undeclared. Changing it replaces the dataset. */
  edgeDeployment: NonEmptyStringSchema.optional(),
  /** Provider-only: allow deleting a dataset that holds data. Never sent. */
  forceDestroy: serviceDefault(z.boolean({ error: "must be a boolean" }).optional(), false),
});

/** Body of `POST /v2/datasets` (OpenAPI `CreateDataset`). */
const DatasetCreateObject = z.object({
  name: DatasetNameSchema,
  description: z.string({ error: "must be a string" }).optional(),
  kind: z.enum(DATASET_KINDS, { error: `must be one of ${DATASET_KINDS.join(", ")}` }).optional(),
  retentionDays: RetentionDaysSchema.optional(),
  useRetentionPeriod: z.boolean({ error: "must be a boolean" }).optional(),
  edgeDeployment: NonEmptyStringSchema.optional(),
});
export const DatasetCreateSchema = absentWhenUnset(DatasetCreateObject);
export type DatasetCreate = z.input<typeof DatasetCreateObject>;

/** Body of `PUT /v2/datasets/{id}` (OpenAPI `UpdateDataset`): name, kind and edge deployment never change. */
const DatasetUpdateObject = z.object({
  description: z.string({ error: "must be a string" }).optional(),
  retentionDays: RetentionDaysSchema.optional(),
  useRetentionPeriod: z.boolean({ error: "must be a boolean" }).optional(),
});
export const DatasetUpdateSchema = absentWhenUnset(DatasetUpdateObject);
export type DatasetUpdate = z.input<typeof DatasetUpdateObject>;

/** A dataset as the service returns it; unknown fields (`integrationConfigs`, `region`, …) survive. */
export const DatasetSchema = absentWhenUnset(
  z
    .looseObject({
      name: z.string(),
      kind: z.string(),
      description: z.string(),
      retentionDays: z.number(),
      useRetentionPeriod: z.boolean(),
      mapFields: z.array(z.string()),
      edgeDeployment: z.string(),
      edgeDeploymentUrl: z.string(),
      canWrite: z.boolean(),
      sharedByOrg: z.string(),
      created: z.string(),
      updatedAt: z.string(),
      who: z.string(),
    })
    .partial()
    .extend({ id: z.string() }),
  { keepMismatched: true },
);
export type Dataset = z.infer<typeof DatasetSchema>;

/** Body of `PUT /v2/datasets/{id}/fields/{field}` (OpenAPI `DatasetField`: name and type required). */
const DatasetFieldObject = z.object({
  name: NonEmptyStringSchema,
  type: NonEmptyStringSchema,
  description: z.string({ error: "must be a string" }).optional(),
  unit: z.string({ error: "must be a string" }).optional(),
  hidden: z.boolean({ error: "must be a boolean" }).optional(),
});
export const DatasetFieldUpdateSchema = absentWhenUnset(DatasetFieldObject);
export type DatasetFieldUpdate = z.input<typeof DatasetFieldObject>;

/** A field as the service returns it (what ingest has seen, with its description, unit and hidden flag). */
export const DatasetFieldSchema = absentWhenUnset(
  z
    .looseObject({
      type: z.string(),
      description: z.string(),
      unit: z.string(),
      hidden: z.boolean(),
    })
    .partial()
    .extend({ name: z.string() }),
  { keepMismatched: true },
);
export type DatasetField = z.infer<typeof DatasetFieldSchema>;

/** Body of `PUT /v2/datasets/{id}/mapfields` (OpenAPI `MapFields`): the whole list, no duplicates. */
export const MapFieldsSchema = uniqueList(MapFieldNameSchema);
/** Body of `POST /v2/datasets/{id}/mapfields` (OpenAPI `MapField`). */
export const MapFieldSchema = z.object({ name: MapFieldNameSchema });
export type MapField = z.input<typeof MapFieldSchema>;

const GO_DURATION_UNITS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * Milliseconds in a Go duration string (`1h30m`, `24h`, `1.5s`), as axiom-go sends `maxDuration`
 * (datasets.go:285-301, `time.Duration.String()`); undefined when it is not one. A sign is refused.
 */
export function parseGoDurationMs(text: string): number | undefined {
  if (text === "0") return 0;
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let at = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    total += Number(m[1]) * GO_DURATION_UNITS[m[2]];
    at = re.lastIndex;
  }
  return at === text.length && text.length > 0 ? total : undefined;
}

/** Body of `POST /v2/datasets/{id}/trim` (OpenAPI `TrimOptions`): drop data older than `maxDuration`. */
export const TrimSchema = z.object({
  maxDuration: z.string({ error: "must be a string" }).refine((s) => parseGoDurationMs(s) !== undefined, {
    error: "must be a Go duration such as 1h, 30m or 24h",
  }),
});
export type TrimOptions = z.input<typeof TrimSchema>;

/** An edge deployment as the organization's license lists it (the service's `GET /v2/orgs`). */
export const EdgeDeploymentSchema = z
  .looseObject({
    id: z.string(),
    instanceName: z.string(),
    deploymentType: z.string(),
    cloud: z.string(),
    domain: z.string(),
    description: z.string(),
    environmentDefault: z.boolean(),
  })
  .partial();
export type EdgeDeployment = z.infer<typeof EdgeDeploymentSchema>;
