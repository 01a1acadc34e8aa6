/**
 * Shared building blocks for the resource schemas, and the one place that turns zod issues into
 * messages that name the field. Every rule message is phrased as the spec phrases the rule.
 */
import { z } from "zod";
import { isRfc3339, ZERO_TIME } from "../time";

export { ZERO_TIME };

/** An RFC 3339 date-time with an offset or `Z`, as the spec's `date-time` type (the time module's `rfc3339`). */
export const DateTimeSchema = z
  .string({ error: "must be an RFC 3339 date-time" })
  .refine(isRfc3339, { error: "must be an RFC 3339 date-time" });

/**
 * `schema` marked with the value the service assumes when the field is absent, as JSON Schema's `default`.
 * It is metadata only: parsing does not fill it in, since the service does; the provider compares absent and
 * this value as equal.
 */
export function serviceDefault<T extends z.ZodType>(schema: T, value: unknown): T {
  return schema.meta({ default: value });
}

/** Every field's {@link serviceDefault} in an object schema, by field name. */
export function serviceDefaults(schema: z.ZodObject): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(schema.shape)) {
    const meta = z.globalRegistry.get(field);
    if (meta && "default" in meta) out[key] = meta.default;
  }
  return out;
}

/** The field names of an object schema, in the order it declares them. */
export function fieldNames<S extends z.ZodObject>(schema: S): (keyof S["shape"] & string)[] {
  return Object.keys(schema.shape) as (keyof S["shape"] & string)[];
}

/** A non-empty string; required names and ids use it. */
export const NonEmptyStringSchema = z.string({ error: "must be a string" }).min(1, "must not be empty");

/** A string-to-string map (headers, metadata). */
export const StringMapSchema = z.record(z.string(), z.string({ error: "must be a string" }));

/** The `{field, desc}` ordering entry used by starred queries and the legacy query. */
export const OrderEntrySchema = z.object({
  field: NonEmptyStringSchema,
  desc: z.boolean({ error: "must be a boolean" }),
});

/** A list that must not repeat an entry: set-like inputs (emails, members, actions). */
export function uniqueList<T extends z.ZodType>(item: T) {
  return z.array(item).refine((xs) => new Set(xs.map((x) => JSON.stringify(x))).size === xs.length, {
    error: "must not contain duplicates",
  });
}

/** One validation failure, in the shape Pulumi's check returns and the emulator's 400 message uses. */
export interface ValidationFailure {
  /** Dotted property path, e.g. `properties.slack.slackUrl` or `datasets[0]`. */
  property: string;
  /** The rule that failed, in words. */
  reason: string;
}

/** Dotted path of a zod issue: `a.b[0].c`. */
export function issuePath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out;
}

/** Every failure of a zod error, each naming its field. Unrecognized keys are reported one per key. */
export function validationFailures(error: z.ZodError, prefix = ""): ValidationFailure[] {
  const failures: ValidationFailure[] = [];
  for (const issue of error.issues) {
    const base = issuePath([...(prefix ? [prefix] : []), ...issue.path]);
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        failures.push({ property: base ? `${base}.${key}` : key, reason: "is not a known field" });
      }
      continue;
    }
    failures.push({ property: base || "(body)", reason: issue.message });
  }
  return failures;
}

/** One line naming every failing field: `type: must match ^[a-z0-9-]+$; title: at most 256 characters`. */
export function formatFailures(failures: readonly ValidationFailure[]): string {
  return failures.map((f) => `${f.property}: ${f.reason}`).join("; ");
}

/** Outcome of {@link validate}: the parsed value, or every failure at once. */
export type Validated<T> = { ok: true; value: T } | { ok: false; failures: ValidationFailure[] };

/** Parses `input` with `schema`, collecting every failure rather than stopping at the first. */
export function validate<T>(schema: z.ZodType<T>, input: unknown): Validated<T> {
  const result = schema.safeParse(input);
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, failures: validationFailures(result.error) };
}
