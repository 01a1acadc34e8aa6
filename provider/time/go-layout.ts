/**
 * Go reference layouts (`2/Jan/2006:15:04:05 -0700`), as the service's ingest reads `timestamp-format`: the
 * layout is split into Go's standard chunks, then a value is read chunk by chunk.
 */
import { utcSeconds } from "./calendar";

/** One piece of a compiled layout: literal text, or a standard chunk such as `2006` or `Z07:00`. */
export type LayoutChunk =
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
export function compileGoLayout(layout: string): LayoutChunk[] {
  const chunks: LayoutChunk[] = [];
  let literal = "";
  const push = (c: LayoutChunk, length: number) => {
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

/** The date and clock fields a layout's chunks set (seconds, with their fraction, are handled apart). */
type Field = "year" | "month" | "day" | "yday" | "hour" | "minute";

/** Chunks that are a number: the field each sets, its fewest and most digits, and its name in errors. */
const NUMBERS: { [K in LayoutChunk["kind"]]?: [field: Field, min: number, max: number, what: string] } = {
  numMonth: ["month", 1, 2, "month"],
  zeroMonth: ["month", 2, 2, "month"],
  day: ["day", 1, 2, "day"],
  underDay: ["day", 1, 2, "day"],
  zeroDay: ["day", 2, 2, "day"],
  yearDay: ["yday", 3, 3, "day of year"],
  hour: ["hour", 1, 2, "hour"],
  hour12: ["hour", 1, 2, "hour"],
  zeroHour12: ["hour", 2, 2, "hour"],
  minute: ["minute", 1, 2, "minute"],
  zeroMinute: ["minute", 2, 2, "minute"],
  longYear: ["year", 4, 4, "year"],
};

/** Chunks that are a name: the names, whether abbreviated to 3 letters, the field set to its 1-based index
 * (none for weekdays, which Go reads and ignores), and its name in errors. */
const NAMES: {
  [K in LayoutChunk["kind"]]?: [names: string[], short: boolean, field: Field | undefined, what: string];
} = {
  longMonth: [MONTHS, false, "month", "month name"],
  month: [MONTHS, true, "month", "month abbreviation"],
  longWeekday: [WEEKDAYS, false, undefined, "weekday name"],
  weekday: [WEEKDAYS, true, undefined, "weekday abbreviation"],
};

/** Parses `value` with a Go reference layout; throws an Error saying what did not match. */
export function parseGoLayout(layout: string | LayoutChunk[], value: string): bigint {
  const chunks = typeof layout === "string" ? compileGoLayout(layout) : layout;
  let pos = 0;
  const f: Record<Field, number> = { year: 1970, month: 1, day: 1, yday: 0, hour: 0, minute: 0 };
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
    const number = NUMBERS[chunk.kind];
    if (number) {
      if (chunk.kind === "underDay" && value[pos] === " ") pos++;
      f[number[0]] = digits(number[1], number[2], number[3]);
      continue;
    }
    const named = NAMES[chunk.kind];
    if (named) {
      const index = name(named[0], named[1], named[3]);
      if (named[2]) f[named[2]] = index + 1;
      continue;
    }
    switch (chunk.kind) {
      case "literal":
        if (!value.startsWith(chunk.text, pos)) fail(`"${chunk.text}"`);
        pos += chunk.text.length;
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
      case "year": {
        const y = digits(2, 2, "year");
        f.year = y >= 69 ? 1900 + y : 2000 + y;
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
    if (f.hour < 1 || f.hour > 12) throw new Error(`hour ${f.hour} out of range for a 12-hour clock`);
    if (pm && f.hour < 12) f.hour += 12;
    if (!pm && f.hour === 12) f.hour = 0;
  }
  if (f.yday > 0) {
    const d = new Date(Date.UTC(f.year, 0, f.yday));
    if (d.getUTCFullYear() !== f.year) throw new Error(`day of year ${f.yday} out of range`);
    f.month = d.getUTCMonth() + 1;
    f.day = d.getUTCDate();
  }
  const seconds = utcSeconds(f.year, f.month, f.day, f.hour, f.minute, second);
  if (seconds === undefined) throw new Error(`a field is out of range`);
  return BigInt(seconds - offset) * 1_000_000_000n + fracNs;
}
