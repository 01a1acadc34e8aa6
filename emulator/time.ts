/**
 * Nanosecond time helpers shared by ingest and the query engine. The service's times are RFC 3339 with up to
 * nine fractional digits; JavaScript's Date stops at milliseconds, so times are bigint nanoseconds here.
 */
import { RELATIVE_TIME } from "../provider/schemas/query";

const NS_PER_MS = 1_000_000n;
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|z|[+-]\d{2}:?\d{2})$/;

/** Current time in nanoseconds. */
export function nowNs(): bigint {
  return BigInt(Date.now()) * NS_PER_MS;
}

/** Parses an RFC 3339 / ISO 8601 date-time, keeping nanoseconds; undefined when it is not one. */
export function parseRfc3339Ns(text: string): bigint | undefined {
  const m = RFC3339.exec(text.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac = "", zone] = m;
  const ms = Date.UTC(+y, +mo - 1, +d, +h, +mi, +s);
  // Date.UTC rolls 30 Feb into March; a date that does not exist is not a timestamp.
  const day = new Date(ms);
  if (
    Number.isNaN(ms) ||
    day.getUTCMonth() !== +mo - 1 ||
    day.getUTCDate() !== +d ||
    +h > 23 ||
    +mi > 59 ||
    +s > 59
  ) {
    return undefined;
  }
  let offsetMin = 0;
  if (zone !== "Z" && zone !== "z") {
    const sign = zone[0] === "-" ? -1 : 1;
    const digits = zone.slice(1).replace(":", "");
    offsetMin = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2)));
  }
  return (BigInt(ms) - BigInt(offsetMin) * 60_000n) * NS_PER_MS + BigInt(frac.padEnd(9, "0") || "0");
}

/** Formats nanoseconds as RFC 3339 in UTC, trailing fractional zeros trimmed (Go's RFC3339Nano). */
export function formatNs(ns: bigint): string {
  let sub = ns % 1_000_000_000n;
  if (sub < 0n) sub += 1_000_000_000n;
  const ms = (ns - sub) / NS_PER_MS;
  const base = new Date(Number(ms)).toISOString().slice(0, 19);
  const frac = sub === 0n ? "" : "." + sub.toString().padStart(9, "0").replace(/0+$/, "");
  return `${base}${frac}Z`;
}

/** A date as RFC 3339 in UTC with second precision, as the service writes server-set times like `createdAt`. */
export function isoSeconds(date: Date = new Date()): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

const UNIT_NS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n,
  ms: NS_PER_MS,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
  d: 86_400_000_000_000n,
  w: 604_800_000_000_000n,
};

/** A query's `startTime`/`endTime`: RFC 3339, or `now`, `now-1h`, `now+5m`. Undefined when neither. */
export function parseQueryTimeNs(text: string, now: bigint = nowNs()): bigint | undefined {
  const rel = RELATIVE_TIME.exec(text.trim());
  if (rel) {
    if (!rel[1]) return now;
    const amount = BigInt(rel[2]) * UNIT_NS[rel[3]];
    return rel[1] === "-" ? now - amount : now + amount;
  }
  return parseRfc3339Ns(text);
}
