/**
 * Datetime and mathematical functions (emulator/apl/functions/datetime.ts, math.ts) against the APL reference
 * (axiomhq/docs at fbd6133, apl/scalar-functions/datetime-functions, mathematical-functions, rounding-functions):
 * each page's examples where its output follows from its input, calendar facts in UTC otherwise. The clock is the
 * injected `ctx.now`, never the machine's.
 */
import { SCALAR_FUNCTIONS } from "../../emulator/apl/functions";
import { civil, civilFromDays, daysFromCivil, isoWeek } from "../../emulator/apl/functions/datetime";
import { DateTime, Timespan } from "../../emulator/apl/values";

/** 2025-01-16T12:00:00Z, the injected "now". */
const NOW = 1_737_028_800_000_000_000n;
const ctx = { now: NOW };

function call(name: string, ...args: unknown[]): unknown {
  const f = SCALAR_FUNCTIONS.get(name);
  if (f === undefined) throw new Error(`${name} is not registered`);
  expect(args.length).toBeGreaterThanOrEqual(f.minArgs);
  expect(args.length).toBeLessThanOrEqual(f.maxArgs);
  return f.call(args, ctx);
}

/** A datetime from RFC 3339 with up to nine fraction digits. */
function dt(iso: string): DateTime {
  const m = /^(.*?)(?:\.(\d+))?Z$/.exec(iso)!;
  const base = BigInt(Date.parse(`${m[1]}Z`)) * 1_000_000n;
  return new DateTime(base + BigInt((m[2] ?? "").padEnd(9, "0")));
}
const span = (ns: bigint) => new Timespan(ns);
const HOUR = 3_600_000_000_000n;
const MINUTE = 60_000_000_000n;

type Row = [label: string, name: string, args: unknown[], expected: unknown];

describe("datetime functions, the pages' examples", () => {
  it.each<Row>([
    [
      "datetime-add: datetime_add('hour', 1, 10:00)",
      "datetime_add",
      ["hour", 1, dt("2025-01-15T10:00:00Z")],
      dt("2025-01-15T11:00:00Z"),
    ],
    [
      "datetime-add: datetime_add('hour', 1, 10:12)",
      "datetime_add",
      ["hour", 1, dt("2025-01-15T10:12:00Z")],
      dt("2025-01-15T11:12:00Z"),
    ],
    [
      "datetime-add: datetime_add('day', -1, datetime(2025-01-15))",
      "datetime_add",
      ["day", -1, dt("2025-01-15T00:00:00Z")],
      dt("2025-01-14T00:00:00Z"),
    ],
    [
      "endofday: 2024-11-14T10:22:31Z",
      "endofday",
      [dt("2024-11-14T10:22:31Z")],
      dt("2024-11-14T23:59:59.9999999Z"),
    ],
    [
      "endofmonth: October 2024",
      "endofmonth",
      [dt("2024-10-17T08:00:00Z")],
      dt("2024-10-31T23:59:59.9999999Z"),
    ],
    [
      "endofweek: Saturday 2024-11-16",
      "endofweek",
      [dt("2024-11-13T08:00:00Z")],
      dt("2024-11-16T23:59:59.9999999Z"),
    ],
    ["endofyear: 2024", "endofyear", [dt("2024-06-01T00:00:00Z")], dt("2024-12-31T23:59:59.9999999Z")],
    [
      "startofweek: Sunday 2025-01-05",
      "startofweek",
      [dt("2025-01-08T15:00:00Z")],
      dt("2025-01-05T00:00:00Z"),
    ],
    ["startofday: 2025-01-13", "startofday", [dt("2025-01-13T21:30:00Z")], dt("2025-01-13T00:00:00Z")],
    ["startofmonth: 2024-11-01", "startofmonth", [dt("2024-11-20T10:00:00Z")], dt("2024-11-01T00:00:00Z")],
    ["startofyear: 2024-01-01", "startofyear", [dt("2024-07-04T10:00:00Z")], dt("2024-01-01T00:00:00Z")],
    [
      "unixtime-seconds-todatetime: 1747303762 → 2025-05-15T10:09:22Z",
      "unixtime_seconds_todatetime",
      [1747303762],
      dt("2025-05-15T10:09:22Z"),
    ],
    [
      "unixtime-milliseconds-todatetime",
      "unixtime_milliseconds_todatetime",
      [1747303762000],
      dt("2025-05-15T10:09:22Z"),
    ],
    [
      "unixtime-microseconds-todatetime",
      "unixtime_microseconds_todatetime",
      [1747303762000000],
      dt("2025-05-15T10:09:22Z"),
    ],
    [
      "unixtime-nanoseconds-todatetime",
      "unixtime_nanoseconds_todatetime",
      ["1747303762000000000"],
      dt("2025-05-15T10:09:22Z"),
    ],
    [
      "datetime-diff: hours since 08:00 on the 15th",
      "datetime_diff",
      ["hour", dt("2025-01-16T10:00:00Z"), dt("2025-01-15T08:00:00Z")],
      26,
    ],
    [
      "datetime-diff: minutes since 09:05",
      "datetime_diff",
      ["minute", dt("2025-01-16T11:00:00Z"), dt("2025-01-16T09:05:00Z")],
      115,
    ],
    [
      "unixtime-seconds-todatetime: datetime_diff('Second', _time, datetime(1970-01-01))",
      "datetime_diff",
      ["Second", dt("2025-05-15T10:09:22Z"), dt("1970-01-01T00:00:00Z")],
      1747303762,
    ],
  ])("%s", (_label, name, args, expected) => {
    expect(call(name, ...args)).toEqual(expected);
  });
});

describe("now and ago read the injected clock", () => {
  it("now(), now(offset), ago(span) (the now and ago pages)", () => {
    expect(call("now")).toEqual(new DateTime(NOW));
    expect(call("now", span(-5n * MINUTE))).toEqual(new DateTime(NOW - 5n * MINUTE));
    expect(call("ago", span(HOUR))).toEqual(new DateTime(NOW - HOUR));
    expect(call("ago", "1h")).toEqual(new DateTime(NOW - HOUR));
    expect(call("ago", 5)).toBeNull();
  });
});

describe("calendar", () => {
  it("day numbers round-trip across eras, leap days and the epoch", () => {
    for (const [y, m, d] of [
      [1970, 1, 1],
      [2000, 2, 29],
      [1900, 3, 1],
      [1600, 12, 31],
      [2024, 12, 31],
      [1969, 12, 31],
      [9999, 12, 31],
    ]) {
      expect(civilFromDays(daysFromCivil(y, m, d))).toEqual({ year: y, month: m, day: d });
    }
    expect(daysFromCivil(1970, 1, 1)).toBe(0);
    expect(daysFromCivil(2000, 3, 1) - daysFromCivil(2000, 2, 28)).toBe(2);
  });

  it("fields before the epoch and with nanoseconds", () => {
    const c = civil(dt("1969-12-31T23:59:59.999999999Z").ns);
    expect(c).toMatchObject({
      year: 1969,
      month: 12,
      day: 31,
      hour: 23,
      minute: 59,
      second: 59,
      nanos: 999_999_999,
    });
    expect(c.weekday).toBe(3);
  });

  it.each([
    ["2021-01-03T00:00:00Z", 53],
    ["2021-01-04T00:00:00Z", 1],
    ["2020-12-31T00:00:00Z", 53],
    ["2024-12-30T00:00:00Z", 1],
    ["2025-06-15T00:00:00Z", 24],
    ["2026-01-01T00:00:00Z", 1],
  ])("week_of_year is ISO 8601: %s is week %d (week-of-year page)", (iso, week) => {
    expect(isoWeek(dt(iso).ns)).toBe(week);
    expect(call("week_of_year", dt(iso))).toBe(week);
  });
});

describe("datetime functions, stated behaviour", () => {
  const t = dt("2024-02-29T13:45:30.1234567Z");

  it("the get functions", () => {
    expect(call("dayofmonth", t)).toBe(29);
    expect(call("dayofyear", t)).toBe(60);
    expect(call("getmonth", t)).toBe(2);
    expect(call("monthofyear", t)).toBe(2);
    expect(call("getyear", t)).toBe(2024);
    expect(call("hourofday", t)).toBe(13);
  });

  it("dayofweek is an int, 0 for Sunday (the dayofweek page)", () => {
    expect(call("dayofweek", dt("2025-01-05T10:00:00Z"))).toBe(0);
    expect(call("dayofweek", dt("2025-01-06T10:00:00Z"))).toBe(1);
    expect(call("dayofweek", dt("2025-01-11T10:00:00Z"))).toBe(6);
  });

  it.each([
    ["year", 2024],
    ["quarter", 1],
    ["month", 2],
    ["week_of_year", 9],
    ["day", 29],
    ["dayOfYear", 60],
    ["hour", 13],
    ["minute", 45],
    ["second", 30],
    ["millisecond", 123],
    ["microsecond", 123456],
    ["nanosecond", 123456700],
  ])("datetime_part('%s') (the datetime-part page's parts)", (part, value) => {
    expect(call("datetime_part", part, t)).toBe(value);
  });

  it("datetime_part: an unknown part is null", () => {
    expect(call("datetime_part", "fortnight", t)).toBeNull();
  });

  it("datetime_add: months clamp to the month's length; every documented unit", () => {
    expect(call("datetime_add", "month", 1, dt("2024-01-31T00:00:00Z"))).toEqual(dt("2024-02-29T00:00:00Z"));
    expect(call("datetime_add", "year", 1, t)).toEqual(dt("2025-02-28T13:45:30.1234567Z"));
    expect(call("datetime_add", "quarter", -1, dt("2024-05-31T00:00:00Z"))).toEqual(
      dt("2024-02-29T00:00:00Z"),
    );
    expect(call("datetime_add", "week", 2, dt("2024-01-01T00:00:00Z"))).toEqual(dt("2024-01-15T00:00:00Z"));
    expect(call("datetime_add", "minute", 90, dt("2024-01-01T00:00:00Z"))).toEqual(
      dt("2024-01-01T01:30:00Z"),
    );
    expect(call("datetime_add", "second", 1, dt("2024-01-01T00:00:00Z"))).toEqual(dt("2024-01-01T00:00:01Z"));
    expect(call("datetime_add", "millisecond", 5, dt("2024-01-01T00:00:00Z"))).toEqual(
      dt("2024-01-01T00:00:00.005Z"),
    );
    expect(call("datetime_add", "microsecond", 5, dt("2024-01-01T00:00:00Z"))).toEqual(
      dt("2024-01-01T00:00:00.000005Z"),
    );
    expect(call("datetime_add", "eon", 1, t)).toBeNull();
  });

  it("datetime_diff counts the boundaries crossed between the two", () => {
    const later = dt("2025-01-01T00:00:00Z");
    const earlier = dt("2024-12-31T23:59:59Z");
    expect(call("datetime_diff", "year", later, earlier)).toBe(1);
    expect(call("datetime_diff", "quarter", later, earlier)).toBe(1);
    expect(call("datetime_diff", "month", later, earlier)).toBe(1);
    expect(call("datetime_diff", "day", later, earlier)).toBe(1);
    expect(call("datetime_diff", "second", later, earlier)).toBe(1);
    expect(call("datetime_diff", "millisecond", later, earlier)).toBe(1000);
    expect(call("datetime_diff", "nanosecond", later, earlier)).toBe(1e9);
    // Weeks start on Sunday: Saturday 2025-01-04 to Sunday 2025-01-05 crosses one.
    expect(call("datetime_diff", "week", dt("2025-01-05T00:00:00Z"), dt("2025-01-04T23:00:00Z"))).toBe(1);
    expect(call("datetime_diff", "week", dt("2025-01-11T00:00:00Z"), dt("2025-01-05T00:00:00Z"))).toBe(0);
    expect(call("datetime_diff", "year", earlier, later)).toBe(-1);
    expect(call("datetime_diff", "hour", "2025-01-01T02:00:00Z", "2025-01-01T00:30:00Z")).toBe(2);
  });

  // The same function in Kusto, whose APL counterpart the page follows: its reference examples
  // (learn.microsoft.com, datetime_diff()) pin the boundary counting at every unit.
  it.each<[string, string, string, number]>([
    ["year", "2017-01-01T00:00:00Z", "2000-12-31T00:00:00Z", 17],
    ["quarter", "2017-07-01T00:00:00Z", "2017-03-30T00:00:00Z", 2],
    ["month", "2017-01-01T00:00:00Z", "2015-12-30T00:00:00Z", 13],
    ["week", "2017-10-29T00:00:00Z", "2017-09-30T23:59:00Z", 5],
    ["day", "2017-10-29T00:00:00Z", "2017-09-30T23:59:00Z", 29],
    ["hour", "2017-10-31T01:00:00Z", "2017-10-30T23:59:00Z", 2],
    ["minute", "2017-10-30T23:05:01Z", "2017-10-30T23:00:59Z", 5],
    ["second", "2017-10-30T23:00:10.100Z", "2017-10-30T23:00:00.900Z", 10],
    ["millisecond", "2017-10-30T23:00:00.2001Z", "2017-10-30T23:00:00.1009Z", 100],
    ["microsecond", "2017-10-30T23:00:00.1009001Z", "2017-10-30T23:00:00.1008009Z", 100],
    ["nanosecond", "2017-10-30T23:00:00.0000000Z", "2017-10-30T23:00:00.0000007Z", -700],
  ])("datetime_diff('%s', %s, %s) is %d", (part, later, earlier, expected) => {
    expect(call("datetime_diff", part, dt(later), dt(earlier))).toBe(expected);
  });

  it("start/end of periods take an offset in whole periods", () => {
    expect(call("startofday", t, 1)).toEqual(dt("2024-03-01T00:00:00Z"));
    expect(call("endofday", t, -1)).toEqual(dt("2024-02-28T23:59:59.9999999Z"));
    expect(call("startofweek", t, 1)).toEqual(dt("2024-03-03T00:00:00Z"));
    expect(call("startofmonth", t, -2)).toEqual(dt("2023-12-01T00:00:00Z"));
    expect(call("endofmonth", t, 10)).toEqual(dt("2024-12-31T23:59:59.9999999Z"));
    expect(call("startofyear", t, -1)).toEqual(dt("2023-01-01T00:00:00Z"));
    expect(call("endofyear", t, 1)).toEqual(dt("2025-12-31T23:59:59.9999999Z"));
  });

  it("results outside years 1 to 9999 are null, however large the offset or count", () => {
    expect(call("startofyear", t, -5.9e306)).toBeNull();
    expect(call("endofmonth", t, 1e300)).toBeNull();
    expect(call("startofday", t, 4_000_000)).toBeNull();
    expect(call("datetime_add", "year", 1e300, t)).toBeNull();
    expect(call("datetime_add", "year", 8000, t)).toBeNull();
    expect(call("datetime_add", "day", -800_000, t)).toBeNull();
    expect(call("unixtime_seconds_todatetime", 1e15)).toBeNull();
    expect(call("startofyear", dt("0001-06-01T00:00:00Z"))).toEqual(dt("0001-01-01T00:00:00Z"));
    expect(call("endofyear", dt("9999-06-01T00:00:00Z"))).toEqual(dt("9999-12-31T23:59:59.9999999Z"));
  });

  it("before the epoch too", () => {
    const old = dt("1969-07-20T20:17:40Z");
    expect(call("startofday", old)).toEqual(dt("1969-07-20T00:00:00Z"));
    expect(call("startofweek", old)).toEqual(dt("1969-07-20T00:00:00Z"));
    expect(call("startofmonth", old)).toEqual(dt("1969-07-01T00:00:00Z"));
    expect(call("dayofweek", old)).toBe(0);
  });

  it("a string that is a datetime is read as one; anything else is null", () => {
    expect(call("getyear", "2023-05-01T00:00:00Z")).toBe(2023);
    expect(call("getyear", "not a date")).toBeNull();
    expect(call("getyear", null)).toBeNull();
    expect(call("startofday", 42)).toBeNull();
  });
});

describe("mathematical functions, the pages' examples", () => {
  it.each<[string, string, unknown[], number]>([
    ["acos: acos(0.5)", "acos", [0.5], 1.0472],
    ["asin: asin(0.5)", "asin", [0.5], 0.5236],
    ["atan: atan(1)", "atan", [1], 0.7854],
    ["atan2: atan2(1, 1)", "atan2", [1, 1], 0.7854],
    ["cos: cos(pi())", "cos", [Math.PI], -1],
    ["cot: cot(pi() / 4)", "cot", [Math.PI / 4], 1],
    ["degrees: degrees(pi())", "degrees", [Math.PI], 180],
    ["radians: radians(180)", "radians", [180], 3.1416],
    ["sin: sin(pi() / 2)", "sin", [Math.PI / 2], 1],
    ["tan: tan(pi() / 4)", "tan", [Math.PI / 4], 1],
    ["log: log(1.0)", "log", [1], 0],
    ["log: log(100.0)", "log", [100], 4.6052],
    ["log: log(10000.0)", "log", [10000], 9.2103],
    ["gamma: gamma(1.0)", "gamma", [1], 1],
    ["gamma: gamma(2.0)", "gamma", [2], 1],
    ["gamma: gamma(3.0)", "gamma", [3], 2],
    ["loggamma: loggamma(1.0)", "loggamma", [1], 0],
    ["loggamma: loggamma(2.0)", "loggamma", [2], 0],
    ["loggamma: loggamma(10.0)", "loggamma", [10], 12.8018],
    ["pow: pow(1000.0, 2)", "pow", [1000, 2], 1000000],
    ["pow: pow(-120.0, 2)", "pow", [-120, 2], 14400],
    ["round: round(123.4567, 2)", "round", [123.4567, 2], 123.46],
    ["round: round(98.1234, 2)", "round", [98.1234, 2], 98.12],
    ["round: round(200.0001, 2)", "round", [200.0001, 2], 200],
    ["abs: abs(80 - 200)", "abs", [-120], 120],
    ["sign: sign(250.0)", "sign", [250], 1],
    ["sign: sign(-120.0)", "sign", [-120], -1],
    ["sign: sign(0.0)", "sign", [0], 0],
    ["pi: pi()", "pi", [], 3.14159265358979],
  ])("%s", (_label, name, args, expected) => {
    expect(call(name, ...args)).toBeCloseTo(expected, 4);
  });

  it("range: the page's numeric and time examples", () => {
    expect(call("range", 100, 500, 100)).toEqual([100, 200, 300, 400, 500]);
    expect(call("range", 1, 10, 1)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(call("range", dt("2025-07-29T12:00:00Z"), dt("2025-07-29T13:00:00Z"), span(15n * MINUTE))).toEqual(
      [
        dt("2025-07-29T12:00:00Z"),
        dt("2025-07-29T12:15:00Z"),
        dt("2025-07-29T12:30:00Z"),
        dt("2025-07-29T12:45:00Z"),
        dt("2025-07-29T13:00:00Z"),
      ],
    );
    expect((call("range", dt("2025-07-29T00:00:00Z"), dt("2025-07-29T05:00:00Z")) as unknown[]).length).toBe(
      6,
    );
  });

  it("set functions: the pages' examples", () => {
    expect(call("set_has_element", [1, 2, 3], 2)).toBe(true);
    expect(call("set_intersect", [1, 2, 3], [2, 3, 4, 5])).toEqual([2, 3]);
    expect(call("set_union", [1, 2, 3], [2, 3, 4, 5])).toEqual([1, 2, 3, 4, 5]);
    // The set-difference page's text ("values from Array1 that aren't present in Array2"); its example output
    // shows [5, 1, 4], which the text contradicts.
    expect(call("set_difference", [1, 2, 3], [2, 3, 4, 5])).toEqual([1]);
  });

  it("isint: the page's print example", () => {
    expect([call("isint", 42), call("isint", 4.2)]).toEqual([true, false]);
  });
});

describe("mathematical functions, stated behaviour", () => {
  it("null where the pages say so, NaN as null", () => {
    expect(call("acos", 2)).toBeNull();
    expect(call("log", 0)).toBeNull();
    expect(call("log10", -1)).toBeNull();
    expect(call("log2", 8)).toBe(3);
    expect(call("sqrt", -4)).toBeNull();
    expect(call("sqrt", 16)).toBe(4);
    expect(call("gamma", 0)).toBeNull();
    expect(call("gamma", -2)).toBeNull();
    expect(call("gamma", 0.5)).toBeCloseTo(Math.sqrt(Math.PI), 10);
    expect(call("loggamma", 171.5)).toBeCloseTo(709.0, 0);
    expect(call("exp", "x")).toBeNull();
  });

  it("exp, exp2, exp10", () => {
    expect(call("exp", 1)).toBeCloseTo(Math.E, 12);
    expect(call("exp2", 10)).toBe(1024);
    expect(call("exp10", 3)).toBe(1000);
  });

  it("isfinite, isinf, isnan", () => {
    expect(call("isfinite", 1)).toBe(true);
    expect(call("isfinite", Infinity)).toBe(false);
    expect(call("isinf", -Infinity)).toBe(true);
    expect(call("isinf", NaN)).toBe(false);
    expect(call("isnan", NaN)).toBe(true);
    expect(call("isnan", 1)).toBe(false);
  });

  it("round: halves away from zero, decimal-exact, negative precision", () => {
    expect(call("round", 2.5)).toBe(3);
    expect(call("round", -2.5)).toBe(-3);
    expect(call("round", 1.005, 2)).toBe(1.01);
    expect(call("round", 1234, -2)).toBe(1200);
    expect(call("round", null)).toBeNull();
  });

  it("abs keeps a timespan a timespan", () => {
    expect(call("abs", span(-5n))).toEqual(span(5n));
  });

  it("max_of and min_of skip nulls and compare like types", () => {
    expect(call("max_of", 39, 2805)).toBe(2805);
    expect(call("min_of", 3, null, 1, 2)).toBe(1);
    expect(call("max_of", dt("2024-01-01T00:00:00Z"), dt("2025-01-01T00:00:00Z"))).toEqual(
      dt("2025-01-01T00:00:00Z"),
    );
    expect(call("max_of", null, null)).toBeNull();
    expect(call("max_of", 1, "a")).toBeNull();
  });

  it("not", () => {
    expect(call("not", true)).toBe(false);
    expect(call("not", false)).toBe(true);
    expect(call("not", null)).toBeNull();
  });

  it("rand: [0, 1), or an integer below its range (the rand page)", () => {
    for (let i = 0; i < 200; i++) {
      const r = call("rand") as number;
      expect(r >= 0 && r < 1).toBe(true);
      const k = call("rand", 10) as number;
      expect(Number.isInteger(k) && k >= 0 && k < 10).toBe(true);
    }
    expect(call("rand", 0)).toBeNull();
  });

  it("range: negative steps, a zero step refused, the 1,048,576 element limit", () => {
    expect(call("range", 5, 1, -2)).toEqual([5, 3, 1]);
    expect(call("range", 0, 1, 0.25)).toEqual([0, 0.25, 0.5, 0.75, 1]);
    expect(call("range", 1, 5, 0)).toBeNull();
    expect((call("range", 0, 5_000_000) as unknown[]).length).toBe(1_048_576);
  });

  it("rounding: ceiling, floor, and bin for numbers, datetimes and timespans (rounding-functions)", () => {
    expect(call("ceiling", 1.2)).toBe(2);
    expect(call("ceiling", -1.2)).toBe(-1);
    expect(call("floor", 1.8)).toBe(1);
    expect(call("floor", 17, 5)).toBe(15);
    expect(call("bin", 4.5, 1)).toBe(4);
    expect(call("bin", dt("2024-01-01T10:47:13Z"), span(HOUR))).toEqual(dt("2024-01-01T10:00:00Z"));
    expect(call("bin", dt("1969-12-31T23:30:00Z"), span(HOUR))).toEqual(dt("1969-12-31T23:00:00Z"));
    expect(call("bin", span(95n * MINUTE), span(HOUR))).toEqual(span(HOUR));
    expect(call("bin", 5, 0)).toBeNull();
  });
});
