/**
 * Every time the package reads or writes, in one module used by the schemas, the client, the lifecycle engine,
 * the emulator and the CLI: RFC 3339 with nanoseconds, relative query times (`now-1h`), the zero time, and Go
 * reference layouts (in `./go-layout`). An instant is a bigint count of nanoseconds since the Unix epoch,
 * since the service keeps nanoseconds and JavaScript's Date stops at milliseconds.
 *
 * Two profiles, because what users declare and what arrives on the wire are judged differently:
 * - `rfc3339`: RFC 3339 §5.6 as the service reads it with Go's `time.RFC3339Nano` (and as zod's
 *   `iso.datetime({offset: true})` reads it): upper-case `T` and `Z`, offsets `±hh:mm`, any number of fraction
 *   digits (kept to the nanosecond). Used for what users declare and for comparing it in diffs.
 * - `lenient`: what the emulator and the client read from others (ingested events, query bodies, result rows):
 *   also `t`, `z`, a space for `T` (RFC 3339's own note allows it), `±hhmm`, and surrounding blanks; at most nine
 *   fraction digits, since a tenth could only be dropped without a word.
 *
 * Both refuse the 60th second. RFC 3339 allows `:60` only for a leap second, but the service parses with Go's
 * time package, which refuses second 60 in every layout ("second out of range"), and Unix time, which every
 * instant here counts in, has no place for one; rolling it into the next minute, as the ingest fast path used
 * to, would store a time the service never would.
 */

import { utcSeconds } from "./calendar";

const NS_PER_MS = 1_000_000n;
const NS_PER_S = 1_000_000_000n;

/** The zero time some official clients send for "unset"; the service treats it as absent. */
export const ZERO_TIME = "0001-01-01T00:00:00Z";
/** {@link ZERO_TIME} in nanoseconds since the Unix epoch. */
export const ZERO_TIME_NS = -62_135_596_800n * NS_PER_S;

/** Which grammar a text is read with; see the module's opening comment. */
export type TimeProfile = "rfc3339" | "lenient";

const GRAMMAR: Record<TimeProfile, RegExp> = {
  rfc3339: /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})$/,
  lenient: /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|z|[+-]\d{2}:?\d{2})$/,
};

/** Current time in nanoseconds. */
export function nowNs(): bigint {
  return BigInt(Date.now()) * NS_PER_MS;
}

/** Seconds east of UTC of `Z` or `±hh[:]mm`; undefined when the hours or minutes are out of range. */
function offsetSeconds(zone: string): number | undefined {
  if (zone === "Z" || zone === "z") return 0;
  const hours = Number(zone.slice(1, 3));
  const minutes = Number(zone.slice(-2));
  if (hours > 23 || minutes > 59) return undefined;
  return (zone[0] === "-" ? -1 : 1) * (hours * 3600 + minutes * 60);
}

let cachedHour = "";
let cachedHourS = 0;

/**
 * Fast path for the commonest form, `YYYY-MM-DDTHH:MM:SS[.fraction]Z` with at most nine fraction digits, in
 * both profiles: events of one ingest batch, and a query's time bins one after another, share their date and
 * hour, so that prefix is checked once and cached; the minutes are read as digits. Undefined for any other form,
 * which then goes through the grammar.
 */
function fastUtcNs(text: string): bigint | undefined {
  const len = text.length;
  if (len < 20 || len > 30 || text.charCodeAt(len - 1) !== 90 /* Z */ || text.charCodeAt(16) !== 58 /* : */)
    return undefined;
  if (text.charCodeAt(13) !== 58 /* : */) return undefined;
  const hour = text.slice(0, 13);
  if (hour !== cachedHour) {
    const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2})$/.exec(hour);
    const s = m ? utcSeconds(+m[1], +m[2], +m[3], +m[4], 0) : undefined;
    if (s === undefined) return undefined;
    cachedHour = hour;
    cachedHourS = s;
  }
  const m1 = text.charCodeAt(14) - 48;
  const m2 = text.charCodeAt(15) - 48;
  if (m1 < 0 || m1 > 5 || m2 < 0 || m2 > 9) return undefined;
  const s1 = text.charCodeAt(17) - 48;
  const s2 = text.charCodeAt(18) - 48;
  if (s1 < 0 || s1 > 5 || s2 < 0 || s2 > 9) return undefined;
  let frac = 0;
  let digits = 0;
  if (len > 20) {
    if (text.charCodeAt(19) !== 46 /* . */) return undefined;
    for (let i = 20; i < len - 1; i++) {
      const c = text.charCodeAt(i) - 48;
      if (c < 0 || c > 9) return undefined;
      frac = frac * 10 + c;
      digits++;
    }
    if (digits === 0) return undefined;
  }
  return (
    BigInt(cachedHourS + (m1 * 10 + m2) * 60 + s1 * 10 + s2) * NS_PER_S + BigInt(frac * 10 ** (9 - digits))
  );
}

/** Parses an RFC 3339 date-time, keeping nanoseconds; undefined when it is not one under `profile`. */
export function parseRfc3339Ns(text: string, profile: TimeProfile = "lenient"): bigint | undefined {
  const fast = fastUtcNs(text);
  if (fast !== undefined) return fast;
  const m = GRAMMAR[profile].exec(profile === "lenient" ? text.trim() : text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac = "", zone] = m;
  const seconds = utcSeconds(+y, +mo, +d, +h, +mi, +s);
  const offset = offsetSeconds(zone);
  if (seconds === undefined || offset === undefined) return undefined;
  return BigInt(seconds - offset) * NS_PER_S + BigInt(frac.slice(0, 9).padEnd(9, "0"));
}

/** Whether `text` is an RFC 3339 date-time as users may declare one (the `rfc3339` profile). */
export function isRfc3339(text: string): boolean {
  return parseRfc3339Ns(text, "rfc3339") !== undefined;
}

// A time's 64 bits, read as two 32-bit halves: storing a bigint in a BigInt64Array makes no bigint, where the
// division of one makes two (the query engine's column cache floors millions of times at a time).
const timeWord = new BigInt64Array(1);
const timeHalves = new Int32Array(timeWord.buffer);
// Which half is which follows the machine's byte order.
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const LOW = LITTLE_ENDIAN ? 0 : 1;
const HIGH = 1 - LOW;
/** 2^32 = 4294 × 10^6 + 967,296. */
const MS_PER_HIGH = 4294;
const REST_PER_HIGH = 967_296;

/**
 * Nanoseconds rounded down to whole milliseconds, before as well as after the epoch. ns = high × 2^32 + low (low
 * unsigned) is high × 4294 × 10^6 + (high × 967,296 + low). The second part, `rest`, is an integer below 2^53 in
 * size for every time a bigint of 64 bits holds, so it is exact in a double, and so is its floored quotient by 10^6:
 * that quotient is below 2.1 × 10^9 in size, where doubles are 2^-22 apart, finer than the 10^-6 by which a quotient
 * of an integer by 10^6 can fall short of the next integer, so the division's rounding never crosses one. Times
 * past 64 bits take the bigint division.
 */
export function floorMs(ns: bigint): number {
  if (ns < -0x8000000000000000n || ns > 0x7fffffffffffffffn) {
    const ms = ns / NS_PER_MS;
    return Number(ns < 0n && ms * NS_PER_MS !== ns ? ms - 1n : ms);
  }
  timeWord[0] = ns;
  const high = timeHalves[HIGH];
  const rest = high * REST_PER_HIGH + (timeHalves[LOW] >>> 0);
  return high * MS_PER_HIGH + Math.floor(rest / 1_000_000);
}

/** The first and last second whose ISO text has a four-digit year (0000-01-01 to 9999-12-31). */
const FOUR_DIGIT_YEARS = { first: -62_167_219_200, last: 253_402_300_799 };
/** `00` to `59`, a minute's or a second's two digits. */
const TWO_DIGITS = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, "0"));
let formattedHour = NaN;
let formattedHourText = "";

/**
 * Formats nanoseconds as RFC 3339 in UTC, trailing fractional zeros trimmed (Go's RFC3339Nano). A query's answer
 * formats every bin of a month: times one after another share their hour, whose text (`YYYY-MM-DDTHH:`) is made
 * once and kept, and the minutes and seconds are two digits each.
 */
export function formatNs(ns: bigint): string {
  let sub = ns % NS_PER_S;
  if (sub < 0n) sub += NS_PER_S;
  const seconds = Number((ns - sub) / NS_PER_S);
  const frac = sub === 0n ? "" : "." + sub.toString().padStart(9, "0").replace(/0+$/, "");
  if (seconds < FOUR_DIGIT_YEARS.first || seconds > FOUR_DIGIT_YEARS.last) {
    return `${new Date(seconds * 1000).toISOString().slice(0, 19)}${frac}Z`;
  }
  const hour = Math.floor(seconds / 3600);
  if (hour !== formattedHour) {
    formattedHour = hour;
    formattedHourText = new Date(hour * 3_600_000).toISOString().slice(0, 14);
  }
  const inHour = seconds - hour * 3600;
  return `${formattedHourText}${TWO_DIGITS[Math.floor(inHour / 60)]}:${TWO_DIGITS[inHour % 60]}${frac}Z`;
}

/** A date as RFC 3339 in UTC with second precision, as the service writes server-set times like `createdAt`. */
export function isoSeconds(date: Date = new Date()): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/**
 * An RFC 3339 time as the instant it names, in the form diffs compare (ISO, UTC, milliseconds, since the
 * service may echo `+02:00` as `Z` or drop digits); the zero time as absent; anything else as is.
 */
export function canonicalTime(v: unknown): unknown {
  if (typeof v !== "string") return v;
  const ns = parseRfc3339Ns(v, "rfc3339");
  if (ns === undefined) return v;
  return ns === ZERO_TIME_NS ? undefined : new Date(floorMs(ns)).toISOString();
}

/**
 * A date written as words, as HTTP's `Retry-After` and RFC 1123 write it (`Mon, 02 Jan 2006 15:04:05 GMT`), in
 * Unix ms; undefined when unreadable. Date.parse reads these forms; callers decide which texts to offer it,
 * since it also rolls over days a month lacks.
 */
export function parseDateTextMs(text: string): number | undefined {
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}

/** `now`, or `now` plus or minus an amount of ns, us, ms, s, m, h, d or w. */
export const RELATIVE_TIME = /^now(?:\s*([+-])\s*(\d+)\s*(ns|us|µs|ms|s|m|h|d|w))?$/;

const UNIT_NS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n,
  ms: NS_PER_MS,
  s: NS_PER_S,
  m: 60n * NS_PER_S,
  h: 3_600n * NS_PER_S,
  d: 86_400n * NS_PER_S,
  w: 604_800n * NS_PER_S,
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

export { utcSeconds };
export { compileGoLayout, parseGoLayout, type LayoutChunk } from "./go-layout";
