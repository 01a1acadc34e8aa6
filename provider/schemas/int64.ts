/**
 * Every `format: int64` field of the service's OpenAPI document (axiomhq/docs
 * `content/docs/(api-reference)/restapi/versions/v2.json`: the `Limit` and `Offset` parameters, a dashboard's
 * `version`, a monitor's minutes and counts, `QueryOptions.maxDataPoints`/`maxSeries`, `defaultLimit`), decided here
 * and nowhere else: an integer from -2^63 to 2^63-1, exactly.
 *
 * One schema, two readers, and the split between them is the value's representation:
 * - The emulator reads JSON with emulator/http/exact-json.ts, which gives an integer literal beyond 2^53 as a
 *   `bigint`, so `9007199254740993` arrives exact and is judged against the int64 range (and answered back exact).
 * - The provider's inputs are Pulumi numbers, float64s, which hold integers exactly only up to 2^53: a `number`
 *   must be a safe integer, since a larger one is no longer the integer the program wrote. So the provider's rule is
 *   the safe-integer range, stated in its message, and the emulator's is int64 (test/provider/int64.test.ts).
 */
import { z } from "zod";

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

/** An int64 value: a safe integer as a number, or a bigint (an integer a JSON literal held beyond 2^53). */
export type Int64 = number | bigint;

/** The bounds of one int64 field; the int64 range where not given. */
export interface Int64Bounds {
  min?: bigint;
  max?: bigint;
}

/** The int64 schemas and their bounds, for the OpenAPI generator (`type: integer, format: int64`). */
export const INT64_SCHEMAS = new WeakMap<z.core.$ZodType, Required<Int64Bounds>>();

const NOT_EXACT =
  "must be an integer from -9007199254740991 to 9007199254740991 when given as a number: a larger one is not " +
  "exact in a float64 (a Pulumi number)";

/** Why `value` is not an int64 within `min`..`max`, or undefined when it is one. */
export function int64Problem(value: unknown, min = INT64_MIN, max = INT64_MAX): string | undefined {
  let exact: bigint;
  if (typeof value === "bigint") exact = value;
  else if (typeof value === "number") {
    if (!Number.isInteger(value)) return "must be an integer";
    if (!Number.isSafeInteger(value)) return NOT_EXACT;
    exact = BigInt(value);
  } else return "must be an integer";
  if (exact < min) return `must be at least ${min}`;
  if (exact > max) return `must be at most ${max}`;
  return undefined;
}

/**
 * A JSON body's `format: int64` field: a safe integer number, or a bigint within the bounds (see the module's
 * comment for who sends which). Answers keep it as given, so a bigint goes back as the same digits.
 */
export function int64(bounds: Int64Bounds = {}) {
  const min = bounds.min ?? INT64_MIN;
  const max = bounds.max ?? INT64_MAX;
  const schema = z
    .union([z.number(), z.bigint()], { error: "must be an integer" })
    .superRefine((value, ctx) => {
      const problem = int64Problem(value, min, max);
      if (problem) ctx.addIssue({ code: "custom", message: problem, input: value });
    })
    .meta({ format: "int64" });
  INT64_SCHEMAS.set(schema, { min, max });
  return schema;
}

/** The exact int64 a string of decimal digits (an optional `-`) names, or undefined for any other text. */
export function parseInt64Text(text: string): Int64 | undefined {
  if (!/^-?[0-9]+$/.test(text)) return undefined;
  const exact = BigInt(text);
  const n = Number(exact);
  return Number.isSafeInteger(n) ? n : exact;
}

/**
 * A query-string `format: int64` parameter (`limit`, `offset`): decimal digits, read exactly and judged by
 * {@link int64}'s rule; absent, `fallback`.
 */
export function int64Param(bounds: Int64Bounds & { fallback: number }) {
  const read = (v: unknown) => (typeof v === "string" ? (parseInt64Text(v.trim()) ?? v) : v);
  return z.preprocess(read, int64(bounds)).default(bounds.fallback);
}

/** A number for indexing (`slice`): an int64 beyond what any list holds reads as the largest safe integer. */
export function clampToSafe(value: Int64): number {
  if (typeof value === "number") return value;
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) return Number.MAX_SAFE_INTEGER;
  if (value < BigInt(Number.MIN_SAFE_INTEGER)) return Number.MIN_SAFE_INTEGER;
  return Number(value);
}

/**
 * A JSON body's `type: number` (float64) field, `schema` its rule: an integer literal beyond 2^53, which the
 * emulator reads as a bigint, is the nearest float64, as any JSON reader of the service's Go would take it.
 */
export function float64<T extends z.ZodType>(schema: T) {
  return z.preprocess((v) => (typeof v === "bigint" ? Number(v) : v), schema);
}
