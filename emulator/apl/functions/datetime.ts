/**
 * Datetime functions (apl/scalar-functions/datetime-functions), in UTC, on nanosecond instants. The calendar
 * arithmetic is done by hand on day numbers (the civil-from-days algorithm of Howard Hinnant's "chrono-Compatible
 * Low-Level Date Algorithms"), because a JavaScript Date stops at milliseconds and the service keeps nanoseconds.
 */
import { parseRfc3339Ns } from "../../time";
import { DateTime, Timespan } from "../values";
import { asInteger, asNumber, asString, fn, type FunctionContext, type FunctionTable } from "./common";

const NS_PER_US = 1_000n;
const NS_PER_MS = 1_000_000n;
const NS_PER_S = 1_000_000_000n;
const NS_PER_MIN = 60n * NS_PER_S;
const NS_PER_HOUR = 60n * NS_PER_MIN;
const NS_PER_DAY = 24n * NS_PER_HOUR;
const NS_PER_WEEK = 7n * NS_PER_DAY;
/** Kusto's datetime resolution is the 100 ns tick: "end of day" is 23:59:59.9999999 (the endofday page). */
const TICK_NS = 100n;

/** 0001-01-01T00:00:00Z, the first instant APL's datetime holds. */
const MIN_DATETIME_NS = -62_135_596_800n * NS_PER_S;
/** 9999-12-31T23:59:59.999999999Z, the last. */
const MAX_DATETIME_NS = 253_402_300_800n * NS_PER_S - 1n;

/** A datetime result, or null when it falls outside years 1 to 9999 (an offset or a count too large). */
function datetimeOrNull(ns: bigint): DateTime | null {
  return ns < MIN_DATETIME_NS || ns > MAX_DATETIME_NS ? null : new DateTime(ns);
}

/** Whether a count of calendar units is small enough to stay inside years 1 to 9999 from anywhere. */
const plausibleCount = (n: number, perYear: number): boolean => Math.abs(n) <= 10_000 * perYear;

/** Floor division of bigints (toward negative infinity). */
export function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (month 1-12). */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = (month + 9) % 12;
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** The proleptic Gregorian date of a day number. */
export function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

const isLeap = (y: number): boolean => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const daysInMonth = (y: number, m: number): number =>
  [31, isLeap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1];

/** The calendar fields of an instant, in UTC. */
export interface Civil {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** Nanoseconds within the second. */
  nanos: number;
  /** Days since the epoch. */
  days: number;
  /** 0 = Sunday. */
  weekday: number;
}

/** The calendar fields of `ns` in UTC. */
export function civil(ns: bigint): Civil {
  const dayIndex = floorDiv(ns, NS_PER_DAY);
  // Nanoseconds within a day stay below 2^53, so the rest is exact in plain numbers (and much faster).
  const within = Number(ns - dayIndex * NS_PER_DAY);
  const days = Number(dayIndex);
  const { year, month, day } = civilFromDays(days);
  const secondOfDay = Math.floor(within / 1e9);
  return {
    year,
    month,
    day,
    hour: Math.floor(secondOfDay / 3600),
    minute: Math.floor(secondOfDay / 60) % 60,
    second: secondOfDay % 60,
    nanos: within - secondOfDay * 1e9,
    days,
    // 1970-01-01 was a Thursday (4).
    weekday: (((days + 4) % 7) + 7) % 7,
  };
}

/** The instant of a date and time of day in UTC. */
export function instant(
  year: number,
  month: number,
  day: number,
  hour = 0,
  minute = 0,
  second = 0,
  nanos = 0n,
): bigint {
  return (
    BigInt(daysFromCivil(year, month, day)) * NS_PER_DAY +
    BigInt(hour * 3600 + minute * 60 + second) * NS_PER_S +
    nanos
  );
}

/** ISO 8601 week number (weeks start on Monday; week 1 holds the year's first Thursday). */
export function isoWeek(ns: bigint): number {
  const c = civil(ns);
  const isoWeekday = c.weekday === 0 ? 7 : c.weekday;
  // The Thursday of this week decides the week's year.
  const thursday = c.days - isoWeekday + 4;
  const thursdayYear = civilFromDays(thursday).year;
  return Math.floor((thursday - daysFromCivil(thursdayYear, 1, 1)) / 7) + 1;
}

/** Day of the year, 1 to 366. */
function dayOfYear(c: Civil): number {
  return c.days - daysFromCivil(c.year, 1, 1) + 1;
}

/** `ns` moved by whole months, the day clamped to the target month's length (Jan 31 + 1 month = Feb 28/29). */
function addMonths(ns: bigint, months: number): bigint {
  const c = civil(ns);
  const total = c.year * 12 + (c.month - 1) + months;
  const year = Math.floor(total / 12);
  const month = total - year * 12 + 1;
  const day = Math.min(c.day, daysInMonth(year, month));
  return instant(year, month, day, c.hour, c.minute, c.second, BigInt(c.nanos));
}

/** A datetime argument: datetimes as they are, strings parsed as todatetime() does; otherwise null. */
export function asDateTimeNs(v: unknown): bigint | null {
  if (v instanceof DateTime) return v.ns;
  if (typeof v === "string") return parseDateTimeText(v);
  return null;
}

/** A timespan argument: timespans as they are, strings parsed as totimespan() does; otherwise null. */
export function asTimespanNs(v: unknown): bigint | null {
  if (v instanceof Timespan) return v.ns;
  if (typeof v === "string") return parseTimespanText(v);
  return null;
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

/** Seconds east of UTC of a zone suffix (`Z`, `UTC`, `GMT`, `±hh[:mm]`, `±hhmm`), or undefined. */
function zoneOffsetSeconds(zone: string | undefined): number | undefined {
  if (zone === undefined || zone === "") return 0;
  const z = zone.trim();
  if (/^(z|utc|gmt)$/i.test(z)) return 0;
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(z);
  if (!m) return undefined;
  const hours = Number(m[2]);
  const minutes = Number(m[3] ?? "0");
  if (hours > 23 || minutes > 59) return undefined;
  return (m[1] === "-" ? -1 : 1) * (hours * 3600 + minutes * 60);
}

/** Whether the fields name a real date and time of day. */
function validFields(y: number, mo: number, d: number, h: number, mi: number, s: number): boolean {
  return mo >= 1 && mo <= 12 && d >= 1 && d <= daysInMonth(y, mo) && h <= 23 && mi <= 59 && s <= 59;
}

/** The nanoseconds of a fraction's digits (`.5` is 500,000,000). */
const fractionNs = (digits: string | undefined): bigint => BigInt((digits ?? "").slice(0, 9).padEnd(9, "0"));

/**
 * A datetime in text. The service parses with the dateparse package (the todatetime page), which takes many
 * layouts; the emulator takes the common ones: RFC 3339 and ISO 8601 with or without the zone (UTC when
 * absent), a date alone, `/` or `.` between date fields, a space for `T`, Go's time.String form
 * ("2006-01-02 15:04:05.999 +0000 UTC"), US mm/dd/yyyy, RFC 1123 and similar forms with month
 * names ("Mon, 02 Jan 2006 15:04:05 GMT", "Jan 2, 2006 15:04:05"), and Unix times as 10, 13, 16 or 19 digits
 * (seconds, milliseconds, microseconds, nanoseconds).
 */
export function parseDateTimeText(text: string): bigint | null {
  const t = text.trim();
  const fast = parseRfc3339Ns(t);
  if (fast !== undefined) return fast;
  let m =
    /^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:[Tt ](\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)? ?(Z|z|UTC|GMT|[+-]\d{2}:?\d{2}|[+-]\d{2})?(?: [A-Z]{2,5})?$/.exec(
      t,
    );
  if (m) {
    const [, y, mo, d, h = "0", mi = "0", s = "0", frac, zone] = m;
    if (!validFields(+y, +mo, +d, +h, +mi, +s)) return null;
    const offset = zoneOffsetSeconds(zone);
    if (offset === undefined) return null;
    return instant(+y, +mo, +d, +h, +mi, +s, fractionNs(frac)) - BigInt(offset) * NS_PER_S;
  }
  // US order, as dateparse reads it: mm/dd/yyyy[ hh:mm[:ss]].
  m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?$/.exec(t);
  if (m) {
    const [, mo, d, y, h = "0", mi = "0", s = "0", frac] = m;
    if (!validFields(+y, +mo, +d, +h, +mi, +s)) return null;
    return instant(+y, +mo, +d, +h, +mi, +s, fractionNs(frac));
  }
  m = /^\d{10}$|^\d{13}$|^\d{16}$|^\d{19}$/.exec(t);
  if (m) {
    const n = BigInt(t);
    const scale = { 10: NS_PER_S, 13: NS_PER_MS, 16: NS_PER_US, 19: 1n }[t.length as 10 | 13 | 16 | 19];
    return n * scale;
  }
  // Month names: "[Mon, ]02 Jan 2006[ 15:04[:05[.fff]]][ zone]" and "Jan 2[,] 2006[ 15:04[:05]][ zone]".
  m =
    /^(?:[A-Za-z]{3,9},?\s+)?(\d{1,2})[\s-]([A-Za-z]{3,9})[\s-](\d{4})(?:[\sT]+(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?\s*(Z|UTC|GMT|[+-]\d{2}:?\d{2})?$/.exec(
      t,
    );
  let fields: string[] | undefined;
  if (m) fields = [m[3], m[2], m[1], m[4], m[5], m[6], m[7], m[8]];
  else {
    m =
      /^(?:[A-Za-z]{3,9},?\s+)?([A-Za-z]{3,9})\s+(\d{1,2}),?\s+(\d{4})(?:[\sT]+(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?\s*(Z|UTC|GMT|[+-]\d{2}:?\d{2})?$/.exec(
        t,
      );
    if (m) fields = [m[3], m[1], m[2], m[4], m[5], m[6], m[7], m[8]];
  }
  if (fields) {
    const [y, monthName, d, h = "0", mi = "0", s = "0", frac, zone] = fields;
    const mo = MONTHS.indexOf(monthName.slice(0, 3).toLowerCase()) + 1;
    if (mo === 0 || !validFields(+y, mo, +d, +h, +mi, +s)) return null;
    const offset = zoneOffsetSeconds(zone);
    if (offset === undefined) return null;
    return instant(+y, mo, +d, +h, +mi, +s, fractionNs(frac)) - BigInt(offset) * NS_PER_S;
  }
  return null;
}

/** Units of Go duration strings (the totimespan page: "ns", "us"/"µs", "ms", "s", "m", "h"), plus days. */
const DURATION_UNITS: Record<string, bigint> = {
  ns: 1n,
  us: NS_PER_US,
  µs: NS_PER_US,
  μs: NS_PER_US,
  ms: NS_PER_MS,
  s: NS_PER_S,
  m: NS_PER_MIN,
  h: NS_PER_HOUR,
  d: NS_PER_DAY,
};

/** A decimal `whole.frac` times `unit` nanoseconds, exactly. */
function scaled(whole: string, frac: string, unit: bigint): bigint {
  const digits = frac.slice(0, 18);
  return BigInt(whole || "0") * unit + (BigInt(digits || "0") * unit) / 10n ** BigInt(digits.length);
}

/**
 * A timespan in text: a Go duration ("300ms", "-1.5h", "2h45m", the totimespan page), or Kusto's
 * `[-][d.]hh:mm[:ss[.fffffff]]`.
 */
export function parseTimespanText(text: string): bigint | null {
  const t = text.trim();
  let m = /^([+-])?(?:(\d+)\.)?(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?$/.exec(t);
  if (m) {
    const [, sign, d = "0", h, mi, s = "0", frac = ""] = m;
    if (+mi > 59 || +s > 59) return null;
    const ns =
      BigInt(d) * NS_PER_DAY +
      BigInt(h) * NS_PER_HOUR +
      BigInt(mi) * NS_PER_MIN +
      BigInt(s) * NS_PER_S +
      fractionNs(frac);
    return sign === "-" ? -ns : ns;
  }
  m = /^([+-])?((?:(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h|d))+)$/.exec(t);
  if (m) {
    let total = 0n;
    for (const part of m[2].matchAll(/(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h|d)/g)) {
      total += scaled(part[1], part[2] ?? "", DURATION_UNITS[part[3]]);
    }
    return m[1] === "-" ? -total : total;
  }
  if (t === "0") return 0n;
  return null;
}

/** Part names seen so far, normalized: the part is nearly always a constant, so each row skips the rewrite. */
const normalizedParts = new Map<string, string>();

/** A part name as the pages spell it, case and underscores ignored ('Second', 'week_of_year', 'dayOfYear'). */
function normalizePart(part: unknown): string | null {
  if (typeof part !== "string")
    return part === null || part === undefined ? null : normalizePart(asString(part));
  let normalized = normalizedParts.get(part);
  if (normalized === undefined) {
    normalized = part.toLowerCase().replace(/_/g, "");
    // Part names are few; a query that makes up thousands gets no more memory than that.
    if (normalizedParts.size < 1024) normalizedParts.set(part, normalized);
  }
  return normalized;
}

/** Fixed-length units of datetime_add and datetime_diff. */
const FIXED_UNITS: Record<string, bigint> = {
  week: NS_PER_WEEK,
  weeks: NS_PER_WEEK,
  day: NS_PER_DAY,
  days: NS_PER_DAY,
  hour: NS_PER_HOUR,
  hours: NS_PER_HOUR,
  minute: NS_PER_MIN,
  minutes: NS_PER_MIN,
  second: NS_PER_S,
  seconds: NS_PER_S,
  millisecond: NS_PER_MS,
  milliseconds: NS_PER_MS,
  microsecond: NS_PER_US,
  microseconds: NS_PER_US,
  nanosecond: 1n,
  nanoseconds: 1n,
};

/** Months per calendar unit of datetime_add and datetime_diff. */
const MONTH_UNITS: Record<string, number> = {
  year: 12,
  years: 12,
  quarter: 3,
  quarters: 3,
  month: 1,
  months: 1,
};

function datetimeAdd([part, amount, datetime]: unknown[]): unknown {
  const unit = normalizePart(part);
  const n = asInteger(amount);
  const ns = asDateTimeNs(datetime);
  if (unit === null || n === null || ns === null) return null;
  const months = MONTH_UNITS[unit];
  if (months !== undefined) {
    return plausibleCount(n * months, 12) ? datetimeOrNull(addMonths(ns, n * months)) : null;
  }
  const fixed = FIXED_UNITS[unit];
  return fixed === undefined ? null : datetimeOrNull(ns + BigInt(n) * fixed);
}

/**
 * datetime_diff: periods of `part` between the two instants, counted as boundaries crossed (Kusto's rule: from
 * 2024-12-31 to 2025-01-01 is one year), weeks starting on Sunday.
 */
function datetimeDiff([part, later, earlier]: unknown[]): unknown {
  const unit = normalizePart(part);
  const a = asDateTimeNs(later);
  const b = asDateTimeNs(earlier);
  if (unit === null || a === null || b === null) return null;
  const months = MONTH_UNITS[unit];
  if (months !== undefined) {
    const ca = civil(a);
    const cb = civil(b);
    const index = (c: Civil) => Math.floor((c.year * 12 + c.month - 1) / months);
    return index(ca) - index(cb);
  }
  if (unit === "week" || unit === "weeks") {
    // Days since the epoch's preceding Sunday (1970-01-04 is a Sunday, day 3).
    const week = (ns: bigint) => floorDiv(floorDiv(ns, NS_PER_DAY) - 3n, 7n);
    return Number(week(a) - week(b));
  }
  const fixed = FIXED_UNITS[unit];
  if (fixed === undefined) return null;
  return Number(floorDiv(a, fixed) - floorDiv(b, fixed));
}

function datetimePart([part, datetime]: unknown[]): unknown {
  const unit = normalizePart(part);
  const ns = asDateTimeNs(datetime);
  if (unit === null || ns === null) return null;
  const c = civil(ns);
  switch (unit) {
    case "year":
      return c.year;
    case "quarter":
      return Math.floor((c.month - 1) / 3) + 1;
    case "month":
      return c.month;
    case "weekofyear":
    case "week":
      return isoWeek(ns);
    case "day":
      return c.day;
    case "dayofyear":
      return dayOfYear(c);
    case "hour":
      return c.hour;
    case "minute":
      return c.minute;
    case "second":
      return c.second;
    case "millisecond":
      return Math.floor(c.nanos / 1e6);
    case "microsecond":
      return Math.floor(c.nanos / 1e3);
    case "nanosecond":
      return c.nanos;
    default:
      return null;
  }
}

/** A one-datetime function that answers null for anything not a datetime. */
function onDate(f: (ns: bigint) => unknown) {
  return fn(1, 1, ([v]) => {
    const ns = asDateTimeNs(v);
    return ns === null ? null : f(ns);
  });
}

/** startof…/endof… with their optional offset in whole periods. */
function periodFunction(start: (ns: bigint, offset: number) => bigint, end: boolean) {
  return fn(1, 2, ([v, offset]) => {
    const ns = asDateTimeNs(v);
    const k = offset === undefined ? 0 : asInteger(offset);
    if (ns === null || k === null) return null;
    // Past about 10,000 years of periods every result is out of range; the calendar math is not even tried.
    if (!plausibleCount(k, 366)) return null;
    return datetimeOrNull(end ? start(ns, k + 1) - TICK_NS : start(ns, k));
  });
}

const startOfDay = (ns: bigint, k: number) => (floorDiv(ns, NS_PER_DAY) + BigInt(k)) * NS_PER_DAY;
const startOfWeek = (ns: bigint, k: number) => {
  const days = floorDiv(ns, NS_PER_DAY);
  const sunday = days - BigInt(civil(ns).weekday);
  return (sunday + 7n * BigInt(k)) * NS_PER_DAY;
};
const startOfMonth = (ns: bigint, k: number) => {
  const c = civil(ns);
  const total = c.year * 12 + c.month - 1 + k;
  const year = Math.floor(total / 12);
  return instant(year, total - year * 12 + 1, 1);
};
const startOfYear = (ns: bigint, k: number) => instant(civil(ns).year + k, 1, 1);

/** unixtime_*_todatetime: a count of `unit` since the epoch; fractions are truncated (the pages). */
function fromUnix(unit: bigint) {
  return fn(1, 1, ([v]) => {
    if (typeof v === "string" && /^[+-]?\d+$/.test(v.trim())) return datetimeOrNull(BigInt(v.trim()) * unit);
    const n = asNumber(v);
    if (n === null || !Number.isFinite(n)) return null;
    return datetimeOrNull(BigInt(Math.trunc(n)) * unit);
  });
}

/** The datetime family (and now/ago). */
export const DATETIME_FUNCTIONS: FunctionTable = {
  now: fn(0, 1, ([offset], ctx: FunctionContext) => {
    if (offset === undefined) return new DateTime(ctx.now);
    const ns = asTimespanNs(offset);
    return ns === null ? null : datetimeOrNull(ctx.now + ns);
  }),
  ago: fn(1, 1, ([span], ctx: FunctionContext) => {
    const ns = asTimespanNs(span);
    return ns === null ? null : datetimeOrNull(ctx.now - ns);
  }),
  datetime_add: fn(3, 3, datetimeAdd),
  datetime_diff: fn(3, 3, datetimeDiff),
  datetime_part: fn(2, 2, datetimePart),
  dayofmonth: onDate((ns) => civil(ns).day),
  // apl/scalar-functions/datetime-functions/dayofweek: "An int ... days since the preceding Sunday".
  dayofweek: onDate((ns) => civil(ns).weekday),
  dayofyear: onDate((ns) => dayOfYear(civil(ns))),
  getmonth: onDate((ns) => civil(ns).month),
  monthofyear: onDate((ns) => civil(ns).month),
  getyear: onDate((ns) => civil(ns).year),
  hourofday: onDate((ns) => civil(ns).hour),
  week_of_year: onDate(isoWeek),
  startofday: periodFunction(startOfDay, false),
  endofday: periodFunction(startOfDay, true),
  startofweek: periodFunction(startOfWeek, false),
  endofweek: periodFunction(startOfWeek, true),
  startofmonth: periodFunction(startOfMonth, false),
  endofmonth: periodFunction(startOfMonth, true),
  startofyear: periodFunction(startOfYear, false),
  endofyear: periodFunction(startOfYear, true),
  unixtime_seconds_todatetime: fromUnix(NS_PER_S),
  unixtime_milliseconds_todatetime: fromUnix(NS_PER_MS),
  unixtime_microseconds_todatetime: fromUnix(NS_PER_US),
  unixtime_nanoseconds_todatetime: fromUnix(1n),
};
