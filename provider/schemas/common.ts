/**
 * Shared building blocks for the resource schemas, and the one place that turns zod issues into
 * messages that name the field. Every rule message is phrased as the spec phrases the rule.
 */
import { z } from "zod";

/** The zero time some official clients send for "unset"; the service treats it as absent. */
export const ZERO_TIME = "0001-01-01T00:00:00Z";

/** An RFC 3339 date-time with an offset or `Z`, as the spec's `date-time` type. */
export const DateTimeSchema = z.iso.datetime({ offset: true, error: "must be an RFC 3339 date-time" });

/** A non-empty string; required names and ids use it. */
export const NonEmptyStringSchema = z.string({ error: "must be a string" }).min(1, "must not be empty");

/** A string-to-string map (headers, metadata). */
export const StringMapSchema = z.record(z.string(), z.string({ error: "must be a string" }));

/** The `{field, desc}` ordering entry used by starred queries and the legacy query. */
export const OrderEntrySchema = z.object({
  field: NonEmptyStringSchema,
  desc: z.boolean({ error: "must be a boolean" }),
});

/**
 * Reads a JSON object the way the service does: a `null` (or, with `zeroIsAbsent`, the zero time
 * `0001-01-01T00:00:00Z`) in a field the schema lets be absent counts as absent. Go, Python and Terraform clients
 * serialize "unset" that way (`notifierIDs: null`, `endTime: None`, `time.Time{}`), and the real service takes
 * it. Required fields keep their null, so the 400 still names them; other values are left to the schema's rules.
 * Used for request bodies in the emulator and for response bodies in the client: one reading of "unset".
 */
export function absentWhenUnset<S extends z.ZodObject>(schema: S, options: { zeroIsAbsent?: boolean } = {}) {
  const optional = new Set(
    Object.entries(schema.shape as Record<string, z.ZodType>)
      .filter(([, field]) => field.safeParse(undefined).success)
      .map(([key]) => key),
  );
  return z.preprocess((body) => {
    if (typeof body !== "object" || body === null || Array.isArray(body)) return body;
    const out: Record<string, unknown> = { ...(body as Record<string, unknown>) };
    for (const [key, value] of Object.entries(out)) {
      const unset = value === null || (options.zeroIsAbsent === true && value === ZERO_TIME);
      if (unset && optional.has(key)) delete out[key];
    }
    return out;
  }, schema);
}

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

const ARTICLE_TYPES: Record<string, string> = {
  object: "an object",
  record: "a map",
  map: "a map",
  array: "a list",
  string: "a string",
  number: "a number",
  int: "an integer",
  boolean: "a boolean",
  date: "a date",
};

/**
 * The project's wording for an issue whose schema gives no message of its own, in place of zod's defaults
 * ("Invalid input: expected object, received string"); undefined keeps zod's. Used as the per-parse error map,
 * which zod consults only where the schema sets no `error`.
 */
export function projectMessage(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case "invalid_type":
      return `must be ${ARTICLE_TYPES[issue.expected] ?? issue.expected}`;
    case "invalid_value":
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "invalid_union":
      return "does not match any of the allowed shapes";
    case "invalid_format":
      return `must be a valid ${issue.format}`;
    case "too_small":
    case "too_big": {
      const bound = issue.code === "too_small" ? "at least" : "at most";
      const n = issue.code === "too_small" ? issue.minimum : issue.maximum;
      if (issue.origin === "string") return `must be ${bound} ${n} characters long`;
      if (issue.origin === "array" || issue.origin === "set") return `must have ${bound} ${n} items`;
      return `must be ${bound} ${n}`;
    }
    default:
      return undefined;
  }
}

/** The value at `path` in `input` and whether its parent is an object that lacks it (a field left out). */
function absentField(input: unknown, path: readonly PropertyKey[]): boolean {
  let parent = input;
  for (const key of path.slice(0, -1)) {
    if (!parent || typeof parent !== "object") return false;
    parent = (parent as Record<PropertyKey, unknown>)[key];
  }
  if (!parent || typeof parent !== "object" || Array.isArray(parent) || path.length === 0) return false;
  return (parent as Record<PropertyKey, unknown>)[path[path.length - 1]] === undefined;
}

/**
 * Every failure of a zod error, each naming its field. Unrecognized keys are reported one per key; a bad key of
 * a map names the map and the key. With the parsed `input`, a field left out of an object "is required",
 * whatever its schema says of a present value (wrong type, not one of an enum, not the literal, no union
 * member).
 */
export function validationFailures(error: z.ZodError, prefix = "", input?: unknown): ValidationFailure[] {
  const failures: ValidationFailure[] = [];
  for (const issue of error.issues) {
    const base = issuePath([...(prefix ? [prefix] : []), ...issue.path]);
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        failures.push({ property: base ? `${base}.${key}` : key, reason: "is not a known field" });
      }
      continue;
    }
    if (issue.code === "invalid_key") {
      // zod puts the bad key on the path; the property is the map, and the reason names the key.
      const key = issue.path[issue.path.length - 1];
      const map = issuePath([...(prefix ? [prefix] : []), ...issue.path.slice(0, -1)]);
      const why = issue.issues.map((i) => i.message).join("; ");
      failures.push({ property: map || "(body)", reason: `key ${JSON.stringify(String(key))}: ${why}` });
      continue;
    }
    // Whatever rule a present value would break (a type, an enum, a literal, a union), a field left out is
    // simply missing. A custom refinement keeps its own message: it may say why the field is needed.
    const missing = input !== undefined && issue.code !== "custom" && absentField(input, issue.path);
    failures.push({ property: base || "(body)", reason: missing ? "is required" : issue.message });
  }
  return failures;
}

/** One line naming every failing field: `type: must match ^[a-z0-9-]+$; title: at most 256 characters`. */
export function formatFailures(failures: readonly ValidationFailure[]): string {
  return failures.map((f) => `${f.property}: ${f.reason}`).join("; ");
}

/** Outcome of {@link validate}: the parsed value, or every failure at once. */
export type Validated<T> = { ok: true; value: T } | { ok: false; failures: ValidationFailure[] };

/**
 * Parses `input` with `schema`, collecting every failure rather than stopping at the first; `prefix` starts
 * every property path (e.g. `response`).
 */
export function validate<T>(schema: z.ZodType<T>, input: unknown, prefix = ""): Validated<T> {
  const result = schema.safeParse(input, { error: projectMessage });
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, failures: validationFailures(result.error, prefix, input) };
}
