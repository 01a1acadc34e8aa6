/**
 * The alert-test file: what it may hold, checked with zod so that each mistake is reported on its field (and, by
 * source.ts, its line). docs/testing-alerts.md describes the format for users; the comments here say why each
 * rule is what it is.
 */
import { z } from "zod";
import { parseDurationMs } from "../../emulator/clock";
import { DateTimeSchema, NonEmptyStringSchema, projectMessage } from "../../provider/schemas/common";
import { DatasetNameSchema } from "../../provider/schemas/dataset";
import { INPUT_FORMATS } from "../input";
import { choosesSchema } from "./source";

/** Where the clock starts when the file names no `start`: a fixed time, so a run never depends on the day. */
export const DEFAULT_START = "2024-01-01T00:00:00Z";

const DURATION_RULE = 'must be a duration such as "90s", "10m", "1h30m" or "2d"';
const OFFSET_RULE = 'must be an offset from start such as "10m", "1h30m", "0m" or "-7d" (before start)';

/** A non-negative duration (`until`, `for`, `every`) in ms. YAML's `0` is read as zero. */
export const DurationSchema = z
  .union([z.string(), z.literal(0)], { error: DURATION_RULE })
  .transform((text, ctx) => {
    const ms = parseDurationMs(text);
    if (ms === undefined) {
      ctx.addIssue({ code: "custom", message: DURATION_RULE });
      return z.NEVER;
    }
    return ms;
  });

/** A time relative to `start`, in ms: a duration, negative with a leading `-` (history before the test starts). */
export const OffsetSchema = z
  .union([z.string(), z.literal(0)], { error: OFFSET_RULE })
  .transform((text, ctx) => {
    const negative = typeof text === "string" && text.trim().startsWith("-");
    const ms = parseDurationMs(negative ? (text as string).trim().slice(1) : text);
    if (ms === undefined) {
      ctx.addIssue({ code: "custom", message: OFFSET_RULE });
      return z.NEVER;
    }
    return negative ? -ms : ms;
  });

const RATE_UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const RATE_RULE = 'must be a rate such as "120/m", "2/s" or "500/h"';

/** Events per unit of time, as `{count, perMs}` so that spacing is exact in integers (`120/m`: 120 per 60,000 ms). */
export const RateSchema = z.string({ error: RATE_RULE }).transform((text, ctx) => {
  const m = /^\s*(\d+(?:\.\d+)?)\s*\/\s*(s|m|h|d)\s*$/.exec(text);
  const count = m ? Number(m[1]) : NaN;
  if (!m || !(count > 0)) {
    ctx.addIssue({ code: "custom", message: RATE_RULE });
    return z.NEVER;
  }
  return { count, perMs: RATE_UNITS[m[2]] };
});

const SHARE_RULE = 'must be a share such as "3%" or 0.03, more than 0 and at most 100%';

/** A share of events, 0 < share ≤ 1: `"3%"` or `0.03`. */
export const ShareSchema = z.union([z.string(), z.number()], { error: SHARE_RULE }).transform((v, ctx) => {
  const share = typeof v === "number" ? v : /^\s*\d+(?:\.\d+)?\s*%\s*$/.test(v) ? parseFloat(v) / 100 : NaN;
  if (!(share > 0 && share <= 1)) {
    ctx.addIssue({ code: "custom", message: SHARE_RULE });
    return z.NEVER;
  }
  return share;
});

/**
 * A generated field's value: a constant (any JSON value), one of a list (`{oneOf: [...]}`), or a number drawn
 * uniformly from a range (`{between: [lo, hi]}`, integers when both ends are). Draws come from the block's seeded
 * generator, so the same file gives the same events on every run.
 */
export type FieldSpec = { oneOf: unknown[] } | { between: [number, number] } | { value: unknown };

const FieldSpecSchema: z.ZodType<FieldSpec, unknown> = z.unknown().transform((v, ctx): FieldSpec => {
  if (v !== null && typeof v === "object" && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o);
    if (keys.length === 1 && keys[0] === "oneOf") {
      if (!Array.isArray(o.oneOf) || o.oneOf.length === 0) {
        ctx.addIssue({ code: "custom", path: ["oneOf"], message: "must be a non-empty list of values" });
        return z.NEVER;
      }
      return { oneOf: o.oneOf };
    }
    if (keys.length === 1 && keys[0] === "between") {
      const b = o.between;
      if (
        !Array.isArray(b) ||
        b.length !== 2 ||
        !b.every((n) => typeof n === "number" && Number.isFinite(n)) ||
        b[0] > b[1]
      ) {
        ctx.addIssue({
          code: "custom",
          path: ["between"],
          message: "must be two numbers [low, high], low at most high",
        });
        return z.NEVER;
      }
      return { between: [b[0], b[1]] };
    }
    if (keys.includes("oneOf") || keys.includes("between")) {
      ctx.addIssue({
        code: "custom",
        message: "a generated value is {oneOf: [...]} or {between: [low, high]} alone, with no other key",
      });
      return z.NEVER;
    }
  }
  return { value: v };
});

const FieldsSchema = z.record(z.string(), FieldSpecSchema, {
  error: "must be a map of field names to values",
});

/** One share of a generated block that takes other field values, within an optional window of the block. */
const MixSchema = z.strictObject({
  share: ShareSchema,
  fields: FieldsSchema,
  /** Offset from start where this share begins (default: the block's start). */
  from: OffsetSchema.optional(),
  /** How long it lasts (default: to the block's end). */
  for: DurationSchema.optional(),
});

/** `generate:` a block of evenly spaced events at a rate; see generate.ts for the exact layout. */
export const GenerateSchema = z.strictObject({
  dataset: DatasetNameSchema,
  rate: RateSchema,
  for: DurationSchema,
  from: OffsetSchema.optional(),
  /** Seed of the value draws; defaults to the block's position in `events`, so reordering blocks is the only way
   * to change what an unseeded file generates. */
  seed: z.number({ error: "must be an integer" }).int("must be an integer").optional(),
  fields: FieldsSchema.optional(),
  mix: z.array(MixSchema, { error: "must be a list of {share, fields}" }).optional(),
});
export type GenerateBlock = z.output<typeof GenerateSchema>;

const EventObjectSchema = z.record(z.string(), z.unknown(), {
  error: "must be a map of field names to values",
});

/** An explicit event (or several) at an offset, optionally repeated. */
export const ExplicitEventSchema = z
  .strictObject({
    at: OffsetSchema,
    dataset: DatasetNameSchema,
    event: EventObjectSchema.optional(),
    events: z.array(EventObjectSchema, { error: "must be a list of events" }).optional(),
    /** Send the event(s) this many times in all, `every` apart (default once). */
    times: z
      .number({ error: "must be an integer" })
      .int("must be an integer")
      .min(1)
      .max(1_000_000)
      .optional(),
    every: DurationSchema.optional(),
  })
  .superRefine((e, ctx) => {
    if ((e.event === undefined) === (e.events === undefined))
      ctx.addIssue({ code: "custom", message: "give exactly one of event: {...} or events: [...]" });
    if (e.times !== undefined && e.times > 1 && (e.every === undefined || e.every <= 0))
      ctx.addIssue({
        code: "custom",
        path: ["every"],
        message: "is required (and above 0) when times is more than 1",
      });
  });
export type ExplicitEvent = z.output<typeof ExplicitEventSchema>;

/**
 * `replay:` a file of recorded events (NDJSON, a JSON array or CSV, read as `observability ingest` reads it), into
 * one dataset. Without `shift`, each event keeps its own `_time`. `shift: {firstEventAt: 10m}` moves every event by
 * one amount, so that the file's earliest `_time` lands at start + 10m and the gaps between events are kept.
 */
export const ReplaySchema = z.strictObject({
  /** Relative to the test file. */
  file: NonEmptyStringSchema.refine((f) => f.trim() !== "-", {
    message: "must name a file (a test does not read standard input)",
  }),
  dataset: DatasetNameSchema,
  /** As `ingest --format`; default from the extension, else the first character. */
  format: z.enum(INPUT_FORMATS, { error: `must be ${INPUT_FORMATS.join(", ")}` }).optional(),
  shift: z
    .strictObject(
      { firstEventAt: OffsetSchema },
      {
        error:
          "must be {firstEventAt: OFFSET}: where the file's earliest event lands, e.g. {firstEventAt: 10m}",
      },
    )
    .optional(),
});
export type ReplayBlock = z.output<typeof ReplaySchema>;
const ReplayEntrySchema = z.strictObject({ replay: ReplaySchema });

/** The schema of an entry of `events:`: a `generate` or a `replay` key chooses, else an explicit event. */
function entrySchema(v: unknown) {
  const has = (key: string) => v !== null && typeof v === "object" && !Array.isArray(v) && key in v;
  return has("generate") ? GenerateEntrySchema : has("replay") ? ReplayEntrySchema : ExplicitEventSchema;
}

/** An entry of `events:`, told apart by its `generate` or `replay` key. */
export const EventEntrySchema = z.unknown().transform((v, ctx) => {
  // The same error map and input reports as the outer parse, so the nested messages read the same.
  const options = { error: projectMessage, reportInput: true };
  const parsed = (entrySchema(v) as z.ZodType<EventEntry>).safeParse(v, options);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) ctx.addIssue({ ...issue } as z.core.$ZodRawIssue);
    return z.NEVER;
  }
  return parsed.data;
});
export type EventEntry = ExplicitEvent | { generate: GenerateBlock } | { replay: ReplayBlock };
const GenerateEntrySchema = z.strictObject({ generate: GenerateSchema });
choosesSchema(EventEntrySchema, entrySchema);

const ACTIONS = ["Open", "Closed"] as const;

/** One expected notification (or its absence). */
export const ExpectationSchema = z
  .strictObject({
    /** The monitor's `name`, or its resource name in the stack or under `monitors:`. */
    monitor: NonEmptyStringSchema,
    action: z.enum(ACTIONS, { error: "must be Open or Closed" }).optional(),
    /** A notifier's `name` or resource name: the notification it received. Without it, the alert itself. */
    notifier: NonEmptyStringSchema.optional(),
    /** The group's values, by column (`{route: /pay}`) or in the order of the query's `by` columns. */
    group: z
      .union([z.record(z.string(), z.unknown()), z.array(z.unknown())], {
        error: "must be a map of column to value, or a list of values",
      })
      .optional(),
    at: OffsetSchema.optional(),
    after: OffsetSchema.optional(),
    by: OffsetSchema.optional(),
    count: z.number({ error: "must be an integer" }).int("must be an integer").min(0).optional(),
    atLeast: z.number({ error: "must be an integer" }).int("must be an integer").min(1).optional(),
    never: z.literal(true, { error: "must be true (leave it out otherwise)" }).optional(),
    /** What became of the send: delivered to the receiver, held (a host outside the allowed ones), failed, or
     * recorded (an email, never sent). */
    outcome: z
      .enum(["delivered", "held", "failed", "recorded"], {
        error: "must be delivered, held, failed or recorded",
      })
      .optional(),
  })
  .superRefine((e, ctx) => {
    if (e.at !== undefined && (e.after !== undefined || e.by !== undefined))
      ctx.addIssue({
        code: "custom",
        path: ["at"],
        message: "is exact: give at, or after and/or by, not both",
      });
    if (e.after !== undefined && e.by !== undefined && e.after > e.by)
      ctx.addIssue({ code: "custom", path: ["by"], message: "must not be before after" });
    const counted = [e.count !== undefined, e.atLeast !== undefined, e.never !== undefined].filter(Boolean);
    if (counted.length > 1)
      ctx.addIssue({ code: "custom", message: "give at most one of count, atLeast and never" });
  });
export type Expectation = z.output<typeof ExpectationSchema>;

/** `stack:` where the monitors and notifiers come from: a saved preview, or the command that prints one. */
export const StackSchema = z
  .strictObject({
    /** A file holding `pulumi preview --json`'s output, relative to the test file. */
    preview: NonEmptyStringSchema.optional(),
    /** A command printing it, run by the shell in `cwd`, e.g. `pulumi preview --json --show-sames --stack dev`. */
    command: NonEmptyStringSchema.optional(),
    /** Where the command runs, relative to the test file (default: the test file's folder). */
    cwd: NonEmptyStringSchema.optional(),
  })
  .superRefine((s, ctx) => {
    if ((s.preview === undefined) === (s.command === undefined))
      ctx.addIssue({ code: "custom", message: "give exactly one of preview: FILE or command: COMMAND" });
    if (s.cwd !== undefined && s.command === undefined)
      ctx.addIssue({ code: "custom", path: ["cwd"], message: "is only for command" });
  });
export type StackSource = z.output<typeof StackSchema>;

const ResourceMapSchema = z.record(z.string(), z.unknown(), {
  error: "must be a map of resource names to their inputs",
});

/**
 * The longest a test may run. Ours: a month holds the longest window a monitor's alert test needs (an SLO's 30-day
 * budget), and every minute of it is a run of each 1-minute monitor (see MAX_RUNS in load.ts).
 */
export const MAX_UNTIL_MS = 31 * 86_400_000;

const UntilSchema = DurationSchema.refine((ms) => ms <= MAX_UNTIL_MS, {
  message: "is past the 31d a test may run (a month: the longest window an alert test needs); shorten it",
});

/** What a file's `allow:` may let pass. */
export const ALLOWANCES = ["failed-queries", "failed-notifications"] as const;
export type Allowance = (typeof ALLOWANCES)[number];

/** The whole file. Monitors and notifiers are only shaped here; their inputs are checked by the resources' own
 * schemas (model.ts), so a test refuses exactly what `pulumi up` would. */
export const AlertTestFileSchema = z.strictObject({
  start: DateTimeSchema.optional(),
  until: UntilSchema,
  stack: StackSchema.optional(),
  /** `receiver` (default): every notifier's URL points at the run's local receiver. `declared`: as written. */
  deliver: z.enum(["receiver", "declared"], { error: "must be receiver or declared" }).optional(),
  /**
   * What the file lets pass that fails a test by default, each still printed as a warning: `failed-queries` (a
   * monitor run whose query failed), `failed-notifications` (a notification that failed to render or deliver and
   * that no expectation asks for with `outcome: failed`).
   */
  allow: z
    .array(z.enum(ALLOWANCES, { error: `must be ${ALLOWANCES.join(" or ")}` }), {
      error: `must be a list of ${ALLOWANCES.join(", ")}`,
    })
    .optional(),
  /** `fail` (default): a notification no expectation describes fails the test. `ignore`: it is only listed. */
  unexpected: z.enum(["fail", "ignore"], { error: "must be fail or ignore" }).optional(),
  datasets: z.array(DatasetNameSchema, { error: "must be a list of dataset names" }).optional(),
  virtualFields: ResourceMapSchema.optional(),
  notifiers: ResourceMapSchema.optional(),
  monitors: ResourceMapSchema.optional(),
  events: z
    .array(EventEntrySchema, { error: "must be a list of events, generate blocks and replays" })
    .optional(),
  expect: z.array(ExpectationSchema, { error: "must be a list of expected notifications" }),
});
export type AlertTestFile = z.output<typeof AlertTestFileSchema>;
