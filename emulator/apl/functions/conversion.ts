/**
 * Conversion functions (apl/scalar-functions/conversion-functions) and parse_json: each page's "Conversion
 * behavior" list, type by type. The service is written in Go, and the pages describe Go's conversions (Go's
 * FormatFloat, duration strings such as "1m20s", RFC3339Nano), which these follow.
 */
import { DateTime, Timespan } from "../values";
import { asInteger, fn, type FunctionTable, isBag, isNull, unary } from "./common";
import { parseDateTimeText, parseTimespanText } from "./datetime";
import { aplToString, canonicalJson, parseJsonText } from "./text";

/** toint/tolong: integers as they are, reals truncated, booleans 0/1, datetimes and timespans as nanoseconds,
 * strings only in the strict form `[+-]digits` (the toint page: "Hex values and other formats aren't supported"). */
function toInteger(v: unknown): number | null {
  if (typeof v === "number") return Number.isFinite(v) ? Math.trunc(v) : null;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (v instanceof DateTime || v instanceof Timespan) return Number(v.ns);
  if (typeof v === "string") return /^[+-]?\d+$/.test(v) ? Number(v) : null;
  return null;
}

/**
 * Go's floating-point literal syntax as strconv.ParseFloat takes it: decimals, exponents, Inf, NaN. Written so
 * each character has one place to match: linear time on any text.
 */
const GO_FLOAT = /^[+-]?(?:(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][+-]?\d+)?|inf|infinity|nan)$/i;

/** todouble/toreal (apl/scalar-functions/conversion-functions/todouble). */
function toReal(v: unknown): number | null {
  if (typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (v instanceof DateTime || v instanceof Timespan) return Number(v.ns);
  if (typeof v === "string") {
    const t = v.trim();
    if (!GO_FLOAT.test(t)) {
      const hex = /^([+-])?0[xX]([0-9a-fA-F]+)$/.exec(t);
      return hex ? (hex[1] === "-" ? -1 : 1) * parseInt(hex[2], 16) : null;
    }
    const lower = t.toLowerCase().replace(/_/g, "");
    if (lower.endsWith("nan")) return NaN;
    if (lower.includes("inf")) return lower.startsWith("-") ? -Infinity : Infinity;
    return Number(lower);
  }
  return null;
}

/** tobool (apl/scalar-functions/conversion-functions/tobool). */
function toBool(v: unknown): boolean | null {
  if (typeof v === "boolean") return v;
  if (typeof v === "number") return v !== 0;
  if (v instanceof DateTime || v instanceof Timespan) return v.ns !== 0n;
  if (typeof v === "string") {
    if (["1", "t", "T", "TRUE", "true", "True"].includes(v)) return true;
    if (["0", "f", "F", "FALSE", "false", "False"].includes(v)) return false;
    return null;
  }
  return null;
}

/** todatetime: datetimes as they are, numbers as nanoseconds since the epoch, strings parsed. */
function toDateTime(v: unknown): DateTime | null {
  if (v instanceof DateTime) return v;
  if (typeof v === "number") return Number.isFinite(v) ? new DateTime(BigInt(Math.trunc(v))) : null;
  if (typeof v === "string") {
    const ns = parseDateTimeText(v);
    return ns === null ? null : new DateTime(ns);
  }
  return null;
}

/** totimespan: timespans as they are, numbers as nanoseconds, strings as Go durations or `d.hh:mm:ss`. */
function toTimespan(v: unknown): Timespan | null {
  if (v instanceof Timespan) return v;
  if (typeof v === "number") return Number.isFinite(v) ? new Timespan(BigInt(Math.trunc(v))) : null;
  if (typeof v === "string") {
    const ns = parseTimespanText(v);
    return ns === null ? null : new Timespan(ns);
  }
  return null;
}

/** tohex: a 64-bit integer in lower-case hex (negative numbers in two's complement), padded to minLength. */
function toHex([value, minLength]: unknown[]): string | null {
  const n = asInteger(value);
  if (n === null || typeof value === "string") return null;
  const width = minLength === undefined ? 0 : asInteger(minLength);
  if (width === null) return null;
  const hex = BigInt.asUintN(64, BigInt(n)).toString(16);
  return hex.padStart(Math.min(Math.max(0, width), 64), "0");
}

/** The conversion family (with parse_json, its string-family sibling). */
export const CONVERSION_FUNCTIONS: FunctionTable = {
  tostring: fn(1, 1, ([v]) => aplToString(v)),
  toint: unary(toInteger),
  tolong: unary(toInteger),
  todouble: unary(toReal),
  toreal: unary(toReal),
  tobool: unary(toBool),
  todatetime: unary(toDateTime),
  totimespan: unary(toTimespan),
  tohex: fn(1, 2, (args) => (isNull(args[0]) ? null : toHex(args))),
  // apl/scalar-functions/conversion-functions/todynamic: "If the input isn't a valid JSON string, the function
  // returns null."
  todynamic: unary((v) => {
    if (typeof v !== "string") return v;
    const parsed = parseJsonText(v);
    return parsed === undefined ? null : parsed;
  }),
  // apl/scalar-functions/string-functions/parse-json: "If the JSON is invalid, returns the original string."
  parse_json: unary((v) => {
    if (typeof v !== "string") return v;
    const parsed = parseJsonText(v);
    return parsed === undefined ? v : parsed;
  }),
  dynamic_to_json: unary((v) => (Array.isArray(v) || isBag(v) ? canonicalJson(v) : aplToString(v))),
  // apl/scalar-functions/conversion-functions/toarray: arrays as they are, a bag's values, a JSON array in
  // text parsed, another scalar as a one-element array (the page's example: toarray('123') gives ["123"]).
  toarray: fn(1, 1, ([v]) => {
    if (isNull(v)) return [];
    if (Array.isArray(v)) return v;
    if (isBag(v)) return Object.values(v);
    if (typeof v === "string") {
      const parsed = v.trimStart().startsWith("[") ? parseJsonText(v) : undefined;
      if (Array.isArray(parsed)) return parsed;
    }
    return [v];
  }),
};
