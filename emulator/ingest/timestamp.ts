/**
 * Event timestamps at ingest: heuristic parsing (RFC 3339 / ISO 8601 strings, Unix numbers judged by
 * magnitude), and Go-style reference layouts for `timestamp-format` (`2/Jan/2006:15:04:05 -0700`).
 */
import { parseRfc3339Ns } from "../time";

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

let cachedPrefix = "";
let cachedPrefixMs = 0;

/**
 * Fast path for the commonest form, `YYYY-MM-DDTHH:MM:SS[.fraction]Z`: events of one batch share their
 * date, hour and minute, so that prefix is parsed once and cached. Undefined for any other form.
 */
export function fastUtcRfc3339Ns(text: string): bigint | undefined {
  const len = text.length;
  if (len < 20 || text.charCodeAt(len - 1) !== 90 /* Z */ || text.charCodeAt(16) !== 58 /* : */)
    return undefined;
  const prefix = text.slice(0, 16);
  if (prefix !== cachedPrefix) {
    const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(prefix);
    if (!m) return undefined;
    const [, y, mo, d, h, mi] = m;
    const ms = Date.UTC(+y, +mo - 1, +d, +h, +mi);
    const check = new Date(ms);
    if (check.getUTCMonth() !== +mo - 1 || check.getUTCDate() !== +d || +h > 23 || +mi > 59 || +y < 1000) {
      return undefined;
    }
    cachedPrefix = prefix;
    cachedPrefixMs = ms;
  }
  const s1 = text.charCodeAt(17) - 48;
  const s2 = text.charCodeAt(18) - 48;
  if (s1 < 0 || s1 > 6 || s2 < 0 || s2 > 9 || s1 * 10 + s2 > 60) return undefined;
  let frac = 0;
  let digits = 0;
  if (len > 20) {
    if (text.charCodeAt(19) !== 46 /* . */ || len > 30) return undefined;
    for (let i = 20; i < len - 1; i++) {
      const c = text.charCodeAt(i) - 48;
      if (c < 0 || c > 9) return undefined;
      frac = frac * 10 + c;
      digits++;
    }
    if (digits === 0) return undefined;
  }
  const seconds = cachedPrefixMs / 1000 + s1 * 10 + s2;
  return BigInt(seconds) * NS_PER_S + BigInt(frac * 10 ** (9 - digits));
}

/** Whether the `YYYY-MM-DD` a text starts with names a real day. */
function dayExists(text: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(text);
  if (!m) return true;
  const d = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
  return d.getUTCMonth() === +m[2] - 1 && d.getUTCDate() === +m[3];
}

const ISO_LOCAL = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?$/;

/** Heuristic parse of a timestamp value without a layout; undefined when it is not a time. */
export function parseTimestampHeuristic(value: unknown): bigint | undefined {
  if (typeof value === "number") return unixNumberToNs(value);
  if (typeof value !== "string") return undefined;
  const fast = fastUtcRfc3339Ns(value);
  if (fast !== undefined) return fast;
  const text = value.trim();
  const rfc = parseRfc3339Ns(text);
  // parseRfc3339Ns lets Date.UTC roll 30 Feb over into March; a day the month lacks is no time.
  if (rfc !== undefined) return dayExists(text) ? rfc : undefined;
  if (/^-?\d+(\.\d+)?$/.test(text)) return unixTextToNs(text);
  const m = ISO_LOCAL.exec(text);
  if (m) {
    // ISO 8601 without an offset: taken as UTC, as the service does.
    const [, y, mo, d, h = "0", mi = "0", s = "0", frac = ""] = m;
    return checkedUtcNs(+y, +mo, +d, +h, +mi, +s, BigInt(frac.padEnd(9, "0") || "0"), 0);
  }
  // Last resort for forms such as RFC 1123 (`Mon, 02 Jan 2006 15:04:05 GMT`); insist on a 4-digit year,
  // and leave ISO-looking text alone, since Date.parse would accept 24:00 and roll over bad days.
  if (/\d{4}/.test(text) && /[a-z]/i.test(text) && !/^\d{4}-/.test(text)) {
    const ms = Date.parse(text);
    if (!Number.isNaN(ms)) return BigInt(ms) * 1_000_000n;
  }
  return undefined;
}

/** Nanoseconds of a UTC wall time minus an offset, or undefined when a field is out of range. */
function checkedUtcNs(
  y: number,
  mo: number,
  d: number,
  h: number,
  mi: number,
  s: number,
  fracNs: bigint,
  offsetSec: number,
): bigint | undefined {
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 60) return undefined;
  const date = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  date.setUTCFullYear(y);
  if (date.getUTCDate() !== d || date.getUTCMonth() !== mo - 1) return undefined;
  return (BigInt(date.getTime()) / 1000n - BigInt(offsetSec)) * NS_PER_S + fracNs;
}

type Chunk =
  | { kind: "literal"; text: string }
  | {
      kind:
        | "longMonth"
        | "month"
        | "numMonth"
        | "zeroMonth"
        | "longWeekday"
        | "weekday"
        | "day"
        | "underDay"
        | "zeroDay"
        | "yearDay"
        | "hour"
        | "hour12"
        | "zeroHour12"
        | "minute"
        | "zeroMinute"
        | "second"
        | "zeroSecond"
        | "longYear"
        | "year"
        | "PM"
        | "pm"
        | "tzAbbrev";
    }
  | { kind: "tz"; iso: boolean; colon: boolean; minutes: boolean; seconds: boolean }
  | { kind: "frac"; digits: number; optional: boolean };

const MONTHS = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
];
const WEEKDAYS = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];
const TZ_ABBREVIATIONS: Record<string, number> = {
  UTC: 0,
  GMT: 0,
  Z: 0,
  EST: -5,
  EDT: -4,
  CST: -6,
  CDT: -5,
  MST: -7,
  MDT: -6,
  PST: -8,
  PDT: -7,
  CET: 1,
  CEST: 2,
  BST: 1,
  IST: 5.5,
  JST: 9,
};

/** Splits a Go reference layout into its standard chunks and literals, as Go's time package does. */
export function compileGoLayout(layout: string): Chunk[] {
  const chunks: Chunk[] = [];
  let literal = "";
  const push = (c: Chunk, length: number) => {
    if (literal) chunks.push({ kind: "literal", text: literal });
    literal = "";
    chunks.push(c);
    return length;
  };
  let i = 0;
  while (i < layout.length) {
    const rest = layout.slice(i);
    const at = (s: string) => rest.startsWith(s);
    let n = 0;
    if (at("January")) n = push({ kind: "longMonth" }, 7);
    else if (at("Jan")) n = push({ kind: "month" }, 3);
    else if (at("Monday")) n = push({ kind: "longWeekday" }, 6);
    else if (at("Mon")) n = push({ kind: "weekday" }, 3);
    else if (at("MST")) n = push({ kind: "tzAbbrev" }, 3);
    else if (at("2006")) n = push({ kind: "longYear" }, 4);
    else if (at("002")) n = push({ kind: "yearDay" }, 3);
    else if (at("01")) n = push({ kind: "zeroMonth" }, 2);
    else if (at("02")) n = push({ kind: "zeroDay" }, 2);
    else if (at("03")) n = push({ kind: "zeroHour12" }, 2);
    else if (at("04")) n = push({ kind: "zeroMinute" }, 2);
    else if (at("05")) n = push({ kind: "zeroSecond" }, 2);
    else if (at("06")) n = push({ kind: "year" }, 2);
    else if (at("15")) n = push({ kind: "hour" }, 2);
    else if (at("1")) n = push({ kind: "numMonth" }, 1);
    else if (at("_2") && !at("_2006")) n = push({ kind: "underDay" }, 2);
    else if (at("2")) n = push({ kind: "day" }, 1);
    else if (at("3")) n = push({ kind: "hour12" }, 1);
    else if (at("4")) n = push({ kind: "minute" }, 1);
    else if (at("5")) n = push({ kind: "second" }, 1);
    else if (at("PM")) n = push({ kind: "PM" }, 2);
    else if (at("pm")) n = push({ kind: "pm" }, 2);
    else if (/^(Z|-)07/.test(rest)) {
      const iso = rest[0] === "Z";
      const tail = rest.slice(1);
      const variants: [string, boolean, boolean, boolean][] = [
        ["07:00:00", true, true, true],
        ["070000", false, true, true],
        ["07:00", true, true, false],
        ["0700", false, true, false],
        ["07", false, false, false],
      ];
      const v = variants.find(([s]) => tail.startsWith(s))!;
      n = push({ kind: "tz", iso, colon: v[1], minutes: v[2], seconds: v[3] }, 1 + v[0].length);
    } else if ((rest[0] === "." || rest[0] === ",") && /^[.,](0+|9+)(?!\d)/.test(rest)) {
      const digits = /^[.,](0+|9+)/.exec(rest)![1];
      n = push({ kind: "frac", digits: digits.length, optional: digits[0] === "9" }, 1 + digits.length);
    } else {
      literal += layout[i];
      n = 1;
    }
    i += n;
  }
  if (literal) chunks.push({ kind: "literal", text: literal });
  return chunks;
}

/** Parses `value` with a Go reference layout; throws an Error saying what did not match. */
export function parseGoLayout(layout: string | Chunk[], value: string): bigint {
  const chunks = typeof layout === "string" ? compileGoLayout(layout) : layout;
  let pos = 0;
  let year = 1970;
  let month = 1;
  let day = 1;
  let yday = 0;
  let hour = 0;
  let minute = 0;
  let second = 0;
  let fracNs = 0n;
  let pm: boolean | undefined;
  let offset = 0;
  const fail = (what: string): never => {
    throw new Error(`cannot parse "${value.slice(pos, pos + 20)}" as ${what}`);
  };
  const digits = (min: number, max: number, what: string): number => {
    let end = pos;
    while (
      end < value.length &&
      end - pos < max &&
      value.charCodeAt(end) >= 48 &&
      value.charCodeAt(end) <= 57
    )
      end++;
    if (end - pos < min) fail(what);
    const n = Number(value.slice(pos, end));
    pos = end;
    return n;
  };
  const name = (list: string[], short: boolean, what: string): number => {
    const lower = value.slice(pos).toLowerCase();
    for (let k = 0; k < list.length; k++) {
      const candidate = short ? list[k].slice(0, 3) : list[k];
      if (lower.startsWith(candidate)) {
        pos += candidate.length;
        return k;
      }
    }
    return fail(what);
  };
  const fraction = (): bigint => {
    const start = pos;
    while (pos < value.length && value.charCodeAt(pos) >= 48 && value.charCodeAt(pos) <= 57) pos++;
    return BigInt(value.slice(start, Math.min(pos, start + 9)).padEnd(9, "0"));
  };
  for (let c = 0; c < chunks.length; c++) {
    const chunk = chunks[c];
    switch (chunk.kind) {
      case "literal":
        if (!value.startsWith(chunk.text, pos)) fail(`"${chunk.text}"`);
        pos += chunk.text.length;
        break;
      case "longMonth":
        month = name(MONTHS, false, "month name") + 1;
        break;
      case "month":
        month = name(MONTHS, true, "month abbreviation") + 1;
        break;
      case "numMonth":
        month = digits(1, 2, "month");
        break;
      case "zeroMonth":
        month = digits(2, 2, "month");
        break;
      case "longWeekday":
        name(WEEKDAYS, false, "weekday name");
        break;
      case "weekday":
        name(WEEKDAYS, true, "weekday abbreviation");
        break;
      case "day":
        day = digits(1, 2, "day");
        break;
      case "underDay":
        if (value[pos] === " ") pos++;
        day = digits(1, 2, "day");
        break;
      case "zeroDay":
        day = digits(2, 2, "day");
        break;
      case "yearDay":
        yday = digits(3, 3, "day of year");
        break;
      case "hour":
        hour = digits(1, 2, "hour");
        break;
      case "hour12":
        hour = digits(1, 2, "hour");
        break;
      case "zeroHour12":
        hour = digits(2, 2, "hour");
        break;
      case "minute":
        minute = digits(1, 2, "minute");
        break;
      case "zeroMinute":
        minute = digits(2, 2, "minute");
        break;
      case "second":
      case "zeroSecond": {
        second = chunk.kind === "second" ? digits(1, 2, "second") : digits(2, 2, "second");
        // Like Go: a fraction after the seconds is accepted even when the layout has none.
        const next = chunks[c + 1];
        if (
          next?.kind !== "frac" &&
          (value[pos] === "." || value[pos] === ",") &&
          /\d/.test(value[pos + 1] ?? "")
        ) {
          pos++;
          fracNs = fraction();
        }
        break;
      }
      case "longYear":
        year = digits(4, 4, "year");
        break;
      case "year": {
        const y = digits(2, 2, "year");
        year = y >= 69 ? 1900 + y : 2000 + y;
        break;
      }
      case "PM":
      case "pm": {
        const ampm = value.slice(pos, pos + 2).toUpperCase();
        if (ampm !== "AM" && ampm !== "PM") fail("AM/PM");
        pm = ampm === "PM";
        pos += 2;
        break;
      }
      case "tzAbbrev": {
        const m = /^[A-Z]{1,5}/.exec(value.slice(pos));
        if (!m) fail("time zone abbreviation");
        // Go also gives an unknown abbreviation a zero offset.
        offset = Math.round((TZ_ABBREVIATIONS[m![0]] ?? 0) * 3600);
        pos += m![0].length;
        break;
      }
      case "tz": {
        if (chunk.iso && value[pos] === "Z") {
          pos++;
          offset = 0;
          break;
        }
        const sign = value[pos];
        if (sign !== "+" && sign !== "-") fail("time zone offset");
        pos++;
        const hh = digits(2, 2, "time zone offset");
        let mm = 0;
        let ss = 0;
        if (chunk.minutes) {
          if (chunk.colon && value[pos++] !== ":") fail("time zone offset");
          mm = digits(2, 2, "time zone offset");
        }
        if (chunk.seconds) {
          if (chunk.colon && value[pos++] !== ":") fail("time zone offset");
          ss = digits(2, 2, "time zone offset");
        }
        offset = (sign === "-" ? -1 : 1) * (hh * 3600 + mm * 60 + ss);
        break;
      }
      case "frac": {
        const sep = value[pos];
        if (sep !== "." && sep !== ",") {
          if (chunk.optional) break;
          fail("fractional seconds");
        }
        pos++;
        const start = pos;
        fracNs = fraction();
        if (!chunk.optional && pos - start !== chunk.digits) {
          pos = start;
          fail(`${chunk.digits} fractional digits`);
        }
        break;
      }
    }
  }
  if (pos !== value.length) throw new Error(`extra text "${value.slice(pos, pos + 20)}" after the layout`);
  if (pm !== undefined) {
    if (hour < 1 || hour > 12) throw new Error(`hour ${hour} out of range for a 12-hour clock`);
    if (pm && hour < 12) hour += 12;
    if (!pm && hour === 12) hour = 0;
  }
  if (yday > 0) {
    const d = new Date(Date.UTC(year, 0, yday));
    if (d.getUTCFullYear() !== year) throw new Error(`day of year ${yday} out of range`);
    month = d.getUTCMonth() + 1;
    day = d.getUTCDate();
  }
  const ns = checkedUtcNs(year, month, day, hour, minute, second, fracNs, offset);
  if (ns === undefined) throw new Error(`a field is out of range`);
  return ns;
}
