/**
 * What every family of scalar functions shares: the registry's entry shape, and the coercions from runtime values
 * (emulator/apl/values.ts) to the argument types the APL reference documents. APL mostly answers a value of the
 * wrong type, or a null, with null rather than an error; these helpers return null for "not convertible", and
 * each function decides what that means for it (per its page under apl/scalar-functions).
 */
import { aplToString, isBag, parseJsonText } from "./text";

export { isBag };

/** What a function may read besides its arguments: the query's clock and time range, in nanoseconds. */
export interface FunctionContext {
  /** `now()`: the same instant for the whole query. */
  now: bigint;
  startNs?: bigint;
  endNs?: bigint;
}

/** A scalar function the compiler calls with evaluated arguments. */
export interface ScalarFunction {
  /** Fewest arguments the function takes. */
  minArgs: number;
  /** Most arguments it takes; Infinity for variadic ones. */
  maxArgs: number;
  /** True when a call may answer differently for the same arguments (rand): never fold it into a constant. */
  volatile?: boolean;
  call(args: unknown[], ctx: FunctionContext): unknown;
}

/** A family's functions by name. */
export type FunctionTable = Record<string, ScalarFunction>;

/** An entry of a function table. */
export function fn(
  minArgs: number,
  maxArgs: number,
  call: (args: unknown[], ctx: FunctionContext) => unknown,
): ScalarFunction {
  return { minArgs, maxArgs, call };
}

/** A one-argument function that answers null for a null argument. */
export function unary(f: (v: unknown) => unknown): ScalarFunction {
  return fn(1, 1, ([v]) => (isNull(v) ? null : f(v)));
}

/** null and undefined (a missing field) are both APL's null. */
export function isNull(v: unknown): v is null | undefined {
  return v === null || v === undefined;
}

/** A string argument: strings as they are, other scalars as tostring() writes them; null stays null. */
export function asString(v: unknown): string | null {
  if (isNull(v)) return null;
  return typeof v === "string" ? v : aplToString(v);
}

/**
 * A decimal number in text. Each digit has one place it can match, so a long run of digits that does not end
 * well fails in linear time (`\d+\.?\d*` would try every split of the run: quadratic).
 */
const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * A numeric argument: numbers, booleans as 0/1, and strings that are wholly a decimal number (event fields often
 * carry numbers as text); anything else is null. Timespans and datetimes are not numbers here.
 */
export function asNumber(v: unknown): number | null {
  if (typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (typeof v === "string") {
    const t = v.trim();
    if (t === "" || !DECIMAL.test(t)) return null;
    return Number(t);
  }
  return null;
}

/** An integer argument (a number truncated toward zero), or null. */
export function asInteger(v: unknown): number | null {
  const n = asNumber(v);
  return n === null || !Number.isFinite(n) ? null : Math.trunc(n);
}

/** A real result: NaN is APL's null in results (apl/scalar-functions/mathematical-functions/sqrt). */
export function real(n: number): number | null {
  return Number.isNaN(n) ? null : n;
}

/** An array argument: arrays as they are, a JSON array in a string parsed; otherwise null. */
export function asArray(v: unknown): unknown[] | null {
  if (Array.isArray(v)) return v;
  if (typeof v === "string" && v.trimStart().startsWith("[")) {
    const parsed = parseJsonText(v);
    return Array.isArray(parsed) ? parsed : null;
  }
  return null;
}

/** A property-bag argument: bags as they are, a JSON object in a string parsed; otherwise null. */
export function asBag(v: unknown): Record<string, unknown> | null {
  if (isBag(v)) return v;
  if (typeof v === "string" && v.trimStart().startsWith("{")) {
    const parsed = parseJsonText(v);
    return isBag(parsed) ? parsed : null;
  }
  return null;
}

/** A function whose every call may differ (rand): the compiler must call it per row, never once per query. */
export function volatileFn(
  minArgs: number,
  maxArgs: number,
  call: (args: unknown[], ctx: FunctionContext) => unknown,
): ScalarFunction {
  return { minArgs, maxArgs, volatile: true, call };
}
