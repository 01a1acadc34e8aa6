/** Monitor: the API reference's Monitor object (axiom.co/docs/restapi), plus its cross-field rules. Endpoints: `/v2/monitors`. */
import { z } from "zod";
import {
  DateTimeSchema,
  NonEmptyStringSchema,
  absentWhenUnset,
  refinedBy,
  serviceDefault,
  serviceDefaults,
  type CrossFieldIssue,
} from "./common";
import { float64, int64 } from "./int64";

export const MONITOR_TYPES = ["Threshold", "MatchEvent", "AnomalyDetection"] as const;
export const MONITOR_OPERATORS = ["Below", "BelowOrEqual", "Above", "AboveOrEqual", "AboveOrBelow"] as const;

/** The document types every integer of a Monitor `format: int64` (provider/schemas/int64.ts decides them). */
const int = (min: bigint, max?: bigint) => int64({ min, max });
const bool = () => z.boolean({ error: "must be a boolean" });

const monitorFields = {
  /** Required; human-readable. */
  name: NonEmptyStringSchema,
  /** Required; the APL query that defines the data analyzed. */
  aplQuery: NonEmptyStringSchema,
  /** Required; `Threshold`, `MatchEvent` or `AnomalyDetection`. */
  type: z.enum(MONITOR_TYPES, { error: `must be one of ${MONITOR_TYPES.join(", ")}` }),
  alertOnNoData: serviceDefault(bool().optional(), false),
  columnName: serviceDefault(z.string({ error: "must be a string" }).optional(), ""),
  /** At most 7; days compared for anomaly detection. */
  compareDays: serviceDefault(int(0n, 7n).optional(), 0),
  description: serviceDefault(z.string({ error: "must be a string" }).optional(), ""),
  disabled: serviceDefault(bool().optional(), false),
  /** RFC 3339, or null; the monitor stays disabled until then. */
  disabledUntil: serviceDefault(DateTimeSchema.nullable().optional(), null),
  /** At least 1; run frequency in minutes. */
  intervalMinutes: serviceDefault(int(1n).optional(), 1),
  notifierIds: serviceDefault(
    z.array(NonEmptyStringSchema, { error: "must be a list of notifier ids" }).optional(),
    [],
  ),
  notifyByGroup: serviceDefault(bool().optional(), false),
  notifyEveryRun: serviceDefault(bool().optional(), false),
  operator: z.enum(MONITOR_OPERATORS, { error: `must be one of ${MONITOR_OPERATORS.join(", ")}` }).optional(),
  /** At least 1; time window evaluated per check, in minutes. */
  rangeMinutes: serviceDefault(int(1n).optional(), 1),
  resolvable: serviceDefault(bool().optional(), false),
  /** At most 86400; seconds of delay before triggering. */
  secondDelay: serviceDefault(int(0n, 86400n).optional(), 0),
  skipResolved: serviceDefault(bool().optional(), false),
  threshold: float64(z.number({ error: "must be a number" })).optional(),
  /** At most 100; percent, for anomaly detection. */
  tolerance: serviceDefault(
    float64(
      z.number({ error: "must be a number" }).min(0, "must be at least 0").max(100, "must be at most 100"),
    ).optional(),
    0,
  ),
  triggerAfterNPositiveResults: serviceDefault(int(0n).optional(), 0),
  triggerFromNRuns: serviceDefault(int(0n).optional(), 1),
};

/** The fields the rules read; typed loosely, since `check` runs them on inputs that failed their own rules too. */
type MonitorShape = {
  type?: unknown;
  operator?: unknown;
  threshold?: unknown;
  compareDays?: unknown;
  tolerance?: unknown;
};

/** The cross-field rules (which fields each monitor type needs), each reported on the field that is missing or wrong. */
export function monitorCrossFieldIssues(m: MonitorShape): CrossFieldIssue[] {
  const issues: CrossFieldIssue[] = [];
  const need = (field: keyof MonitorShape, why: string) => {
    if (m[field] === undefined || m[field] === null)
      issues.push({ path: field, message: `is required ${why}` });
  };
  if (m.type === "Threshold") {
    need("operator", "when type is Threshold");
    need("threshold", "when type is Threshold");
  }
  if (m.type === "AnomalyDetection") {
    need("operator", "when type is AnomalyDetection");
    need("compareDays", "when type is AnomalyDetection");
    need("tolerance", "when type is AnomalyDetection");
  }
  if (m.operator === "AboveOrBelow" && m.type !== undefined && m.type !== "AnomalyDetection") {
    issues.push({ path: "operator", message: "AboveOrBelow is only allowed when type is AnomalyDetection" });
  }
  return issues;
}

/**
 * Accepts the spellings official clients send and the service answers with: `notifierIDs` (axiom-go's field
 * name, in its requests and in its tests' recorded responses), an empty `disabledUntil`, and `operator: ""`,
 * which is what Go and Terraform send for a MatchEvent monitor that has no operator.
 */
function tolerateClientSpellings(body: unknown): unknown {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return body;
  const out: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  // Prefer whichever spelling holds a value: `{notifierIds: null, notifierIDs: [...]}` keeps the list.
  if ((out.notifierIds === undefined || out.notifierIds === null) && out.notifierIDs != null)
    out.notifierIds = out.notifierIDs;
  delete out.notifierIDs;
  if (out.disabledUntil === "") delete out.disabledUntil;
  if (out.operator === "") delete out.operator;
  return out;
}

const MonitorObjectSchema = z.object(monitorFields);

/** Body of `POST /v2/monitors` and `PUT /v2/monitors/{id}` (PUT sends the whole monitor). Null and the zero time
 * mean absent; every rule of the API reference still applies to what is given. */
export const MonitorCreateSchema = z.preprocess(
  tolerateClientSpellings,
  absentWhenUnset(refinedBy(MonitorObjectSchema, monitorCrossFieldIssues), { zeroIsAbsent: true }),
);
export const MonitorUpdateSchema = MonitorCreateSchema;
/** The fields a user declares, each with its own rules: unknown fields are refused. The provider's `check` runs
 * this and then {@link monitorCrossFieldIssues}, once each. */
export const MonitorFieldsSchema = z.strictObject(monitorFields);
/** What a user declares, cross-field rules included. */
export const MonitorInputSchema = refinedBy(MonitorFieldsSchema, monitorCrossFieldIssues);

/**
 * A monitor as the service returns it: shape only. No enums, minimums or maximums (the service may add a
 * monitor type or answer `compareDays: 8`), only `id` required, null and the zero time read as absent, unknown
 * fields kept, a field of an unexpected type (`threshold: "1"`) kept as sent. The provider diffs what it reads
 * against what was declared, so odd values show as drift.
 */
export const MonitorSchema = z.preprocess(
  tolerateClientSpellings,
  absentWhenUnset(
    z
      .looseObject({
        name: z.string(),
        aplQuery: z.string(),
        type: z.string(),
        alertOnNoData: z.boolean(),
        columnName: z.string(),
        compareDays: z.number(),
        description: z.string(),
        disabled: z.boolean(),
        disabledUntil: z.string().nullable(),
        intervalMinutes: z.number(),
        notifierIds: z.array(z.string()),
        notifyByGroup: z.boolean(),
        notifyEveryRun: z.boolean(),
        operator: z.string(),
        rangeMinutes: z.number(),
        resolvable: z.boolean(),
        secondDelay: z.number(),
        skipResolved: z.boolean(),
        threshold: z.number(),
        tolerance: z.number(),
        triggerAfterNPositiveResults: z.number(),
        triggerFromNRuns: z.number(),
        createdAt: z.string(),
        createdBy: z.string(),
      })
      .partial()
      .extend({ id: z.string() }),
    { zeroIsAbsent: true, keepMismatched: true },
  ),
);

/** Defaults the service (and Terraform's provider) applies, as the fields declare them; used to normalize before
 * diffing and by the emulator. */
export const MONITOR_DEFAULTS = serviceDefaults(MonitorObjectSchema);

export type MonitorCreate = z.input<typeof MonitorObjectSchema>;
export type MonitorUpdate = MonitorCreate;
export type Monitor = z.infer<typeof MonitorSchema>;

/** One entry of `GET /v2/monitors/{id}/history`. */
export const MonitorHistoryEntrySchema = absentWhenUnset(
  z
    .looseObject({ checkId: z.string(), name: z.string(), state: z.string(), timestamp: z.string() })
    .partial(),
);
export type MonitorHistoryEntry = z.infer<typeof MonitorHistoryEntrySchema>;
