/**
 * Values as text, shared by every family: tostring's rules (apl/scalar-functions/conversion-functions/tostring:
 * reals in their shortest form, durations as Go writes them, datetimes as RFC3339Nano, dynamic values as JSON),
 * which every function that takes a string applies to a non-string argument, as strcat's page says ("Non-string
 * values are converted to strings"); and text as JSON, read with a bound on its nesting.
 */
import { MAX_NESTING } from "../../ingest";
import { formatNs } from "../../time";
import { DateTime, Timespan } from "../values";

const NS_PER_US = 1_000n;
const NS_PER_MS = 1_000_000n;
const NS_PER_S = 1_000_000_000n;
const NS_PER_MIN = 60n * NS_PER_S;
const NS_PER_HOUR = 60n * NS_PER_MIN;

/** A property bag (`dynamic` object): a plain object, not an array, datetime or timespan. */
export function isBag(v: unknown): v is Record<string, unknown> {
  return (
    typeof v === "object" &&
    v !== null &&
    !Array.isArray(v) &&
    !(v instanceof DateTime) &&
    !(v instanceof Timespan)
  );
}

/** Go's time.Duration.String(): "1h0m0s", "1m20s", "1.5s", "2ms", "1.5µs", "0s" (the tostring page). */
export function formatGoDuration(ns: bigint): string {
  if (ns === 0n) return "0s";
  const negative = ns < 0n;
  let u = negative ? -ns : ns;
  const sign = negative ? "-" : "";
  const fraction = (value: bigint, unit: bigint): string => {
    const whole = value / unit;
    const rest = value % unit;
    if (rest === 0n) return whole.toString();
    const digits = rest
      .toString()
      .padStart(unit.toString().length - 1, "0")
      .replace(/0+$/, "");
    return `${whole}.${digits}`;
  };
  if (u < NS_PER_S) {
    if (u < NS_PER_US) return `${sign}${u}ns`;
    if (u < NS_PER_MS) return `${sign}${fraction(u, NS_PER_US)}µs`;
    return `${sign}${fraction(u, NS_PER_MS)}ms`;
  }
  let out = "";
  const hours = u / NS_PER_HOUR;
  u -= hours * NS_PER_HOUR;
  const minutes = u / NS_PER_MIN;
  u -= minutes * NS_PER_MIN;
  if (hours > 0n) out += `${hours}h`;
  if (hours > 0n || minutes > 0n) out += `${minutes}m`;
  return `${sign}${out}${fraction(u, NS_PER_S)}s`;
}

/** tostring's text of a value (apl/scalar-functions/conversion-functions/tostring); null is the empty string. */
export function aplToString(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "string") return v;
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "number") return formatNumber(v);
  if (v instanceof DateTime) return formatNs(v.ns);
  if (v instanceof Timespan) return formatGoDuration(v.ns);
  return JSON.stringify(toJsonValue(v));
}

/** A number as text: integers in base 10, reals in their shortest round-trip form (Go's FormatFloat(-1)). */
function formatNumber(n: number): string {
  if (Number.isNaN(n)) return "NaN";
  if (n === Infinity) return "+Inf";
  if (n === -Infinity) return "-Inf";
  return String(n);
}

/** A dynamic value with datetimes and timespans replaced by what tostring() writes for them. */
export function toJsonValue(v: unknown): unknown {
  if (v instanceof DateTime) return formatNs(v.ns);
  if (v instanceof Timespan) return formatGoDuration(v.ns);
  if (Array.isArray(v)) return v.map(toJsonValue);
  if (isBag(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = toJsonValue(x);
    return out;
  }
  return v === undefined ? null : v;
}

/**
 * dynamic_to_json's canonical JSON: property bags with their names sorted, arrays in order, scalars (at the top
 * level) as tostring() writes them (apl/scalar-functions/conversion-functions/dynamic-to-json).
 */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(",")}]`;
  if (isBag(v)) {
    const keys = Object.keys(v).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(v[k])}`).join(",")}}`;
  }
  return JSON.stringify(toJsonValue(v));
}

/** Whether JSON text nests objects and arrays deeper than `limit` (strings skipped; one pass, no parse). */
function nestsDeeper(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \\ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > limit) return true;
    } else if (c === 93 /* ] */ || c === 125 /* } */) depth--;
  }
  return false;
}

/**
 * JSON text parsed, or undefined when it is not JSON, or nests deeper than an ingested event may
 * (MAX_NESTING): the emulator's dynamic values stay as deep as the events it stores, so writing one back as
 * text (tostring, dynamic_to_json, hash) cannot run out of stack.
 */
export function parseJsonText(text: string): unknown {
  if (nestsDeeper(text, MAX_NESTING)) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
