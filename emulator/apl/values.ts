/**
 * Runtime values of the evaluator: JSON values from events, plus datetimes and timespans in nanoseconds. Every
 * module of emulator/apl reads and makes these; `dynamic` values are arrays and plain objects, which may hold
 * datetimes and timespans too (toOutput formats them at any depth).
 */
import { formatNs, parseRfc3339Ns } from "../time";

/** A point in time (`_time`, `datetime(...)`, `now()`). */
export class DateTime {
  constructor(readonly ns: bigint) {}
  toJSON(): string {
    return formatNs(this.ns);
  }
}

/** A duration (`1h`, the difference of two datetimes). */
export class Timespan {
  constructor(readonly ns: bigint) {}
  /** Kusto's `d.hh:mm:ss.fffffff` is overkill here; nanoseconds as a number are what clients can use. */
  toJSON(): number {
    return Number(this.ns);
  }
}

/** The tabular format's type name of a value. */
export function typeOf(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (v instanceof DateTime) return "datetime";
  if (v instanceof Timespan) return "timespan";
  switch (typeof v) {
    case "number":
      return Number.isInteger(v) ? "integer" : "float";
    case "string":
      return "string";
    case "boolean":
      return "boolean";
    default:
      return "dynamic";
  }
}

/**
 * Orders two values of compatible types; undefined when the types do not compare (which makes every
 * comparison false rather than an error, as the brief and APL's lenient typing want).
 */
export function compareValues(a: unknown, b: unknown): number | undefined {
  if (typeof a === "number" && typeof b === "number") return a < b ? -1 : a > b ? 1 : a === b ? 0 : undefined;
  if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0;
  if (a instanceof DateTime) {
    const other = b instanceof DateTime ? b.ns : typeof b === "string" ? parseRfc3339Ns(b) : undefined;
    if (other === undefined) return undefined;
    return a.ns < other ? -1 : a.ns > other ? 1 : 0;
  }
  if (b instanceof DateTime) {
    const r = compareValues(b, a);
    return r === undefined ? undefined : -r;
  }
  if (a instanceof Timespan && b instanceof Timespan) return a.ns < b.ns ? -1 : a.ns > b.ns ? 1 : 0;
  if (typeof a === "boolean" && typeof b === "boolean") return a === b ? 0 : a ? 1 : -1;
  return undefined;
}

/** Equality: nulls equal each other; everything else needs comparable types. */
export function equalValues(a: unknown, b: unknown): boolean {
  if (a === null || a === undefined) return b === null || b === undefined;
  if (b === null || b === undefined) return false;
  return compareValues(a, b) === 0;
}

const TYPE_RANK: Record<string, number> = {
  boolean: 0,
  integer: 1,
  float: 1,
  string: 2,
  datetime: 3,
  timespan: 4,
};

/** Total order for sorting: comparable values by value, otherwise by type; nulls compare greatest. */
export function sortCompare(a: unknown, b: unknown): number {
  const an = a === null || a === undefined;
  const bn = b === null || b === undefined;
  if (an || bn) return an && bn ? 0 : an ? 1 : -1;
  const c = compareValues(a, b);
  if (c !== undefined) return c;
  const ra = TYPE_RANK[typeOf(a)] ?? 5;
  const rb = TYPE_RANK[typeOf(b)] ?? 5;
  if (ra !== rb) return ra - rb;
  const sa = JSON.stringify(a) ?? "";
  const sb = JSON.stringify(b) ?? "";
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

/** A value as text, for string operators and strcat(). */
export function toText(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "string") return v;
  if (v instanceof DateTime) return formatNs(v.ns);
  if (v instanceof Timespan) return `${v.ns}ns`;
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

/**
 * A value made JSON-safe for a response: datetimes as RFC 3339, timespans as nanoseconds, also inside dynamic
 * arrays and bags (make-series's time axis, make_list of datetimes); non-finite reals as null, as JSON has none.
 */
export function toOutput(v: unknown): unknown {
  if (v === undefined) return null;
  if (v === null || typeof v !== "object") {
    return typeof v === "number" && !Number.isFinite(v) ? null : typeof v === "bigint" ? Number(v) : v;
  }
  if (v instanceof DateTime || v instanceof Timespan) return v.toJSON();
  if (Array.isArray(v)) return needsOutput(v) ? v.map(toOutput) : v;
  if (!needsOutput(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = toOutput(x);
  return out;
}

/** Whether a dynamic value holds anything toOutput must change (checked before copying it). */
function needsOutput(v: unknown): boolean {
  if (v === undefined || v instanceof DateTime || v instanceof Timespan || typeof v === "bigint") return true;
  if (typeof v === "number") return !Number.isFinite(v);
  if (v === null || typeof v !== "object") return false;
  if (Array.isArray(v)) return v.some(needsOutput);
  for (const k in v) if (needsOutput((v as Record<string, unknown>)[k])) return true;
  return false;
}
