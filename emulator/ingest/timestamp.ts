/**
 * Event timestamps at ingest: heuristic parsing (RFC 3339 / ISO 8601 strings, Unix numbers judged by
 * magnitude). The parsers themselves, Go reference layouts for `timestamp-format` included, are the time
 * module's; this file is the ingest's policy for trying them.
 */
import { parseDateTextMs, parseRfc3339Ns, utcSeconds } from "../../provider/time";

export { compileGoLayout, parseGoLayout } from "../../provider/time";

const NS_PER_S = 1_000_000_000n;

/** A Unix time number in s, ms, µs or ns (judged by magnitude) as nanoseconds. */
export function unixNumberToNs(n: number): bigint | undefined {
  if (!Number.isFinite(n)) return undefined;
  const abs = Math.abs(n);
  // Seconds up to ~year 5138, then ms, µs, and ns beyond.
  const scale = abs < 1e11 ? 1e9 : abs < 1e14 ? 1e6 : abs < 1e17 ? 1e3 : 1;
  const whole = Math.trunc(n);
  const frac = n - whole;
  return BigInt(whole) * BigInt(scale) + BigInt(Math.round(frac * scale));
}

/**
 * A Unix time written as decimal text (`"1700000000123456789"`, `"1700000000.5"`) as nanoseconds, exactly:
 * a 19-digit nanosecond count does not survive a trip through a double, so the digits are scaled as integers.
 * The unit is judged by the magnitude of the integer part, as for numbers.
 */
export function unixTextToNs(text: string): bigint | undefined {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (!m) return undefined;
  const [, sign, whole, frac = ""] = m;
  const int = BigInt(whole);
  const digits =
    int < 100_000_000_000n ? 9 : int < 100_000_000_000_000n ? 6 : int < 100_000_000_000_000_000n ? 3 : 0;
  // Fraction digits below a nanosecond are dropped, as a time has no finer unit.
  const scaled = int * 10n ** BigInt(digits) + BigInt(frac.slice(0, digits).padEnd(digits, "0") || "0");
  return sign === "-" ? -scaled : scaled;
}

const ISO_LOCAL = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?$/;

/** Heuristic parse of a timestamp value without a layout; undefined when it is not a time. */
export function parseTimestampHeuristic(value: unknown): bigint | undefined {
  if (typeof value === "number") return unixNumberToNs(value);
  if (typeof value !== "string") return undefined;
  const rfc = parseRfc3339Ns(value);
  if (rfc !== undefined) return rfc;
  const text = value.trim();
  if (/^-?\d+(\.\d+)?$/.test(text)) return unixTextToNs(text);
  const m = ISO_LOCAL.exec(text);
  if (m) {
    // ISO 8601 without an offset: taken as UTC, as the service does.
    const [, y, mo, d, h = "0", mi = "0", s = "0", frac = ""] = m;
    const seconds = utcSeconds(+y, +mo, +d, +h, +mi, +s);
    return seconds === undefined ? undefined : BigInt(seconds) * NS_PER_S + BigInt(frac.padEnd(9, "0"));
  }
  // Last resort for forms such as RFC 1123 (`Mon, 02 Jan 2006 15:04:05 GMT`); insist on a 4-digit year,
  // and leave ISO-looking text alone, since Date.parse would accept 24:00 and roll over bad days.
  if (/\d{4}/.test(text) && /[a-z]/i.test(text) && !/^\d{4}-/.test(text)) {
    const ms = parseDateTextMs(text);
    if (ms !== undefined) return BigInt(ms) * 1_000_000n;
  }
  return undefined;
}
