/**
 * Shared building blocks for the resource schemas, and the one place that turns zod issues into
 * messages that name the field. Every rule message is phrased as the service's API reference phrases the rule.
 */
import { z } from "zod";
import { isRfc3339, ZERO_TIME } from "../time";

export { ZERO_TIME };

/** An RFC 3339 date-time with an offset or `Z`, as the API reference's `date-time` type (the time module's `rfc3339`). */
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

/** The zod wrappers that change nothing about the type's shape. */
export const WRAPPERS: ReadonlySet<string> = new Set([
  "optional",
  "nullable",
  "default",
  "prefault",
  "catch",
  "readonly",
  "nonoptional",
]);

/** `schema` without its wrappers and preprocessing: the type its values have. */
export function unwrap(schema: z.core.$ZodType): z.core.$ZodType {
  let s = schema;
  for (let i = 0; i < 32; i++) {
    const def = s._zod.def as {
      type: string;
      innerType?: z.core.$ZodType;
      in?: z.core.$ZodType;
      out?: z.core.$ZodType;
    };
    if (WRAPPERS.has(def.type) && def.innerType) s = def.innerType;
    // A preprocess is a pipe from a transform; a pipe into a transform keeps its input's type; any other pipe
    // (a discriminating object piped into a union) has its output's.
    else if (def.type === "pipe" && def.in && def.out)
      s = def.out._zod.def.type === "transform" ? def.in : def.out;
    else return s;
  }
  return s;
}

/** The field names of an object schema, in the order it declares them. */
export function fieldNames<S extends z.ZodObject>(schema: S): (keyof S["shape"] & string)[] {
  return Object.keys(schema.shape) as (keyof S["shape"] & string)[];
}

/**
 * The fields the service owns on every object (`id`, `createdAt`, `createdBy`, `updatedAt`, `updatedBy`), as a
 * body may echo them back (official clients send objects back whole): each is ignored, but must have the type the
 * OpenAPI document gives it (a string; the times RFC 3339 date-times), or be null.
 */
export const ServerOwnedFieldsSchema = z.object({
  id: z.string({ error: "must be a string" }).nullable().optional(),
  createdAt: DateTimeSchema.nullable().optional(),
  createdBy: z.string({ error: "must be a string" }).nullable().optional(),
  updatedAt: DateTimeSchema.nullable().optional(),
  updatedBy: z.string({ error: "must be a string" }).nullable().optional(),
});

/** A non-empty string; required names and ids use it. */
export const NonEmptyStringSchema = z.string({ error: "must be a string" }).min(1, "must not be empty");

/** A string-to-string map (headers, metadata). */
export const StringMapSchema = z.record(z.string(), z.string({ error: "must be a string" }));

/** The `{field, desc}` ordering entry used by starred queries and the legacy query. */
export const OrderEntrySchema = z.object({
  field: NonEmptyStringSchema,
  desc: z.boolean({ error: "must be a boolean" }),
});

/** Whether `value` is how some client spells "unset": null, or with `zeroIsAbsent` the zero time. */
function isUnset(value: unknown, zeroIsAbsent: boolean): boolean {
  return value === null || (zeroIsAbsent && value === ZERO_TIME);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Schemas built by {@link absentWhenUnset}: they read their own unset values, so an enclosing one skips them. */
const SELF_READING = new WeakSet<z.ZodType>();

type Strip = (value: unknown) => unknown;

/**
 * How to drop the unset values inside a value of `schema`, at every level the schema describes: a field of an
 * object that may be left out, a map entry whose value schema refuses null (a map of lists reads
 * `{apiTokens: null}` as no entry), and the same inside list items. Undefined when nothing in the schema can be
 * unset, so a row's `data: record(unknown)` (where null is a value) costs nothing and keeps its nulls.
 */
function unsetStripper(schema: z.core.$ZodType, zeroIsAbsent: boolean, depth = 0): Strip | undefined {
  if (depth > 32 || SELF_READING.has(schema as z.ZodType)) return undefined;
  const def = schema._zod.def as z.core.$ZodTypeDef & Record<string, unknown>;
  // The zero time is a top-level time field's "unset"; deeper down (a header, a channel's body) it is a value.
  const inner = (s: unknown) => unsetStripper(s as z.core.$ZodType, false, depth + 1);
  switch (def.type) {
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "catch":
    case "readonly":
    case "nonoptional":
      return inner(def.innerType);
    case "pipe": {
      // A preprocess is a pipe from a transform into the schema that reads the result.
      const input = def.in as z.core.$ZodType;
      return inner(input._zod.def.type === "transform" ? def.out : input);
    }
    case "array": {
      const item = inner(def.element);
      return item && ((v) => (Array.isArray(v) ? v.map(item) : v));
    }
    case "record": {
      const valueType = def.valueType as z.ZodType;
      const dropNull = !valueType.safeParse(null).success;
      const item = inner(valueType);
      if (!dropNull && !item) return undefined;
      return (v) => {
        if (!isPlainObject(v)) return v;
        const out: Record<string, unknown> = {};
        for (const [key, value] of Object.entries(v)) {
          if (dropNull && value === null) continue;
          out[key] = item && value !== null && typeof value === "object" ? item(value) : value;
        }
        return out;
      };
    }
    case "object": {
      const shape = def.shape as Record<string, z.ZodType>;
      const fields = Object.entries(shape).map(
        ([key, field]) => [key, field.safeParse(undefined).success, inner(field)] as const,
      );
      const used = fields.filter(([, optional, strip]) => optional || strip);
      if (used.length === 0) return undefined;
      return (v) => {
        if (!isPlainObject(v)) return v;
        const out: Record<string, unknown> = { ...v };
        for (const [key, optional, strip] of used) {
          const value = out[key];
          if (optional && isUnset(value, zeroIsAbsent)) delete out[key];
          else if (strip && value !== null && typeof value === "object") out[key] = strip(value);
        }
        return out;
      };
    }
    default:
      return undefined;
  }
}

/**
 * Reads a JSON object the way the service does: a `null` (or, with `zeroIsAbsent`, the zero time
 * `0001-01-01T00:00:00Z`) in a field the schema lets be absent counts as absent, at every level the schema
 * describes (a nested object's optional field, a map entry whose value cannot be null, list items). Go, Python
 * and Terraform clients serialize "unset" that way (`notifierIDs: null`, `endTime: None`, `time.Time{}`, a nil
 * map `Headers: null`), and the real service takes it. Required fields keep their null, so the 400 still names
 * them; other values are left to the schema's rules. Used for request bodies in the emulator and for response
 * bodies in the client: one reading of "unset".
 *
 * `keepMismatched` is for response schemas only: a top-level optional field whose value does not have the
 * expected type is kept as sent instead of failing the read. The client needs none of those fields (only what is
 * required, such as `id`), and the provider's diff then shows the odd value as drift, not as an error. Their
 * static types stay the declared ones; at run time such a field may hold whatever the service sent.
 */
export function absentWhenUnset<S extends z.ZodObject>(
  schema: S,
  options: { zeroIsAbsent?: boolean; keepMismatched?: boolean } = {},
) {
  const strip = unsetStripper(schema, options.zeroIsAbsent === true);
  let target: S = schema;
  if (options.keepMismatched === true) {
    const kept = Object.entries(schema.shape as Record<string, z.ZodType>)
      .filter(([, field]) => field.safeParse(undefined).success)
      .map(([key, field]) => [key, field.catch((ctx: { input: unknown }) => ctx.input as never)]);
    target = schema.extend(Object.fromEntries(kept)) as unknown as S;
  }
  const read = z.preprocess((body) => (strip && isPlainObject(body) ? strip(body) : body), target);
  SELF_READING.add(read);
  return read;
}

/** A list that must not repeat an entry: set-like inputs (emails, members, actions). */
export function uniqueList<T extends z.ZodType>(item: T) {
  return (
    z
      .array(item)
      .refine((xs) => new Set(xs.map((x) => JSON.stringify(x))).size === xs.length, {
        error: "must not contain duplicates",
      })
      // JSON Schema's name for the rule, which zod's JSON Schema output takes from the metadata.
      .meta({ uniqueItems: true })
  );
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
 * The reason for a value of the wrong type that was not really given: a field left out "is required", and a
 * field sent as `null` where null is not allowed "must not be null". The message says what the body holds: a
 * reader who sent `"name": null` looks for that key, and "is required" would send them looking for a missing
 * one. The value is the one the schema saw (after any renaming of aliases), reported by {@link validate}'s
 * `reportInput`; without it, the field's place in the raw `input` tells whether it was left out.
 */
function typeReason(issue: z.core.$ZodIssue, input: unknown): string | undefined {
  // A custom refinement keeps its own message: it may say why the field is needed.
  if (issue.code === "custom") return undefined;
  const seen =
    "input" in issue
      ? issue.input
      : input !== undefined && absentField(input, issue.path)
        ? undefined
        : issue;
  // Whatever rule a present value would break (a type, an enum, a literal, a union), a field left out is
  // simply missing, and a null is a null.
  if (seen === undefined) return "is required";
  if (seen === null) return "must not be null";
  return undefined;
}

/**
 * Every failure of a zod error, each naming its field. Unrecognized keys are reported one per key; a bad key of
 * a map names the map and the key. A field left out of an object "is required" and a null where none is allowed
 * "must not be null", whatever its schema says of a present value (wrong type, not one of an enum, not the
 * literal, no union member; see {@link typeReason}).
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
    failures.push({ property: base || "(body)", reason: typeReason(issue, input) ?? issue.message });
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
  const result = schema.safeParse(input, { error: projectMessage, reportInput: true });
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, failures: validationFailures(result.error, prefix, input) };
}

/** One failure of a cross-field rule, on the path of the field at fault. */
export interface CrossFieldIssue {
  path: string;
  message: string;
}

/** `schema` refined by a kind's cross-field rule: how the service's and the public schemas run it. */
export function refinedBy<S extends z.ZodType>(
  schema: S,
  rule: (value: z.output<S>) => CrossFieldIssue[],
): S {
  return schema.superRefine((value, ctx) => {
    for (const issue of rule(value))
      ctx.addIssue({ code: "custom", path: issue.path ? [issue.path] : [], message: issue.message });
  }) as S;
}
