/** Go reference layouts and heuristic timestamp parsing, as pure functions. */
import {
  compileGoLayout,
  parseGoLayout,
  parseTimestampHeuristic,
  unixNumberToNs,
} from "../../emulator/ingest/timestamp";
import { formatNs } from "../../emulator/time";

describe("Go layouts", () => {
  it.each([
    ["2006-01-02T15:04:05Z07:00", "2024-03-01T12:00:00Z", "2024-03-01T12:00:00Z"],
    ["2006-01-02T15:04:05Z07:00", "2024-03-01T14:00:00+02:00", "2024-03-01T12:00:00Z"],
    [
      "2006-01-02T15:04:05.999999999Z07:00",
      "2024-03-01T12:00:00.123456789Z",
      "2024-03-01T12:00:00.123456789Z",
    ],
    ["2/Jan/2006:15:04:05 -0700", "10/Oct/2000:13:55:36 -0700", "2000-10-10T20:55:36Z"],
    ["02 Jan 06 15:04 MST", "05 Mar 21 09:30 UTC", "2021-03-05T09:30:00Z"],
    ["02 Jan 06 15:04 MST", "05 Mar 21 09:30 PST", "2021-03-05T17:30:00Z"],
    ["Mon, 02 Jan 2006 15:04:05 -0700", "Fri, 05 Mar 2021 09:30:00 +0100", "2021-03-05T08:30:00Z"],
    ["Monday, 02-Jan-06 15:04:05 MST", "Friday, 05-Mar-21 09:30:00 GMT", "2021-03-05T09:30:00Z"],
    ["January 2, 2006 3:04 PM", "March 5, 2021 9:07 PM", "2021-03-05T21:07:00Z"],
    ["January 2, 2006 03:04 pm", "March 5, 2021 12:07 am", "2021-03-05T00:07:00Z"],
    ["Jan _2 15:04:05 2006", "Mar  5 09:30:00 2021", "2021-03-05T09:30:00Z"],
    ["Jan _2 15:04:05.000 2006", "Mar 15 09:30:00.250 2021", "2021-03-15T09:30:00.25Z"],
    ["2006-01-02 15:04:05.000000", "2021-03-05 09:30:00.000001", "2021-03-05T09:30:00.000001Z"],
    ["2006-01-02 15:04:05", "2021-03-05 09:30:00.5", "2021-03-05T09:30:00.5Z"],
    ["2006-01-02T15:04:05-07:00", "2021-03-05T09:30:00-05:30", "2021-03-05T15:00:00Z"],
    ["20060102150405", "20210305093000", "2021-03-05T09:30:00Z"],
    ["1/2/2006 3:4:5", "3/5/2021 9:7:8", "2021-03-05T09:07:08Z"],
    ["2006.002", "2021.064", "2021-03-05T00:00:00Z"],
  ])("%s parses %s", (layout, value, expected) => {
    expect(formatNs(parseGoLayout(layout, value))).toBe(expected);
  });

  it.each([
    ["2/Jan/2006:15:04:05 -0700", "10/Foo/2000:13:55:36 -0700", /month abbreviation/],
    ["2006-01-02", "2021-13-01", /out of range/],
    ["2006-01-02", "2021-02-30", /out of range/],
    ["2006-01-02", "2021-02-03 extra", /extra text/],
    ["2006-01-02 15:04:05.000", "2021-02-03 01:02:03.12", /3 fractional digits/],
    ["3:04 PM", "13:04 PM", /12-hour/],
    ["-0700", "0100", /time zone offset/],
  ])("%s rejects %s", (layout, value, message) => {
    expect(() => parseGoLayout(layout, value)).toThrow(message);
  });

  it("compiles literals and standard chunks", () => {
    expect(compileGoLayout("2006-01-02").map((c) => c.kind)).toEqual([
      "longYear",
      "literal",
      "zeroMonth",
      "literal",
      "zeroDay",
    ]);
  });
});

describe("heuristics", () => {
  it.each([
    [1e10 - 1, "seconds"],
    [1e12, "milliseconds"],
    [1e15, "microseconds"],
    [1e18, "nanoseconds"],
  ])("%d is read as %s", (n, unit) => {
    const ns = unixNumberToNs(n)!;
    const scale = { seconds: 1e9, milliseconds: 1e6, microseconds: 1e3, nanoseconds: 1 }[unit]!;
    expect(Number(ns)).toBeCloseTo(n * scale, -3);
  });

  it.each([
    ["yesterday"],
    [""],
    [{}],
    [true],
    ["2021-02-30T00:00:00"],
    ["2021-02-30T00:00:00Z"],
    ["2021-02-03T00:00:61Z"],
    ["2021-02-03T24:00:00Z"],
    ["2021-02-03T00:00:00.Z"],
    [NaN],
  ])("%p is not a time", (v) => {
    expect(parseTimestampHeuristic(v)).toBeUndefined();
  });

  it.each([
    ["1700000000", "seconds", "2023-11-14T22:13:20Z"],
    ["1700000000.123456789", "fractional seconds", "2023-11-14T22:13:20.123456789Z"],
    ["1700000000123", "milliseconds", "2023-11-14T22:13:20.123Z"],
    ["1700000000123.456", "fractional milliseconds", "2023-11-14T22:13:20.123456Z"],
    ["1700000000123456", "microseconds", "2023-11-14T22:13:20.123456Z"],
    [
      "1700000000123456789",
      "nanoseconds, exactly (past a double's 53 bits)",
      "2023-11-14T22:13:20.123456789Z",
    ],
    ["-1", "seconds before the epoch", "1969-12-31T23:59:59Z"],
  ])("the text %s is read as %s", (text, _unit, expected) => {
    expect(formatNs(parseTimestampHeuristic(text)!)).toBe(expected);
    expect(formatNs(parseTimestampHeuristic(` ${text} `)!)).toBe(expected);
  });

  it("accepts RFC 1123", () => {
    expect(formatNs(parseTimestampHeuristic("Fri, 05 Mar 2021 09:30:00 GMT")!)).toBe("2021-03-05T09:30:00Z");
  });
});
