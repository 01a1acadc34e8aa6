import { formatNs, parseQueryTimeNs, parseRfc3339Ns } from "../../emulator/time";

describe("parseRfc3339Ns", () => {
  it.each([
    ["UTC with nanoseconds", "2024-03-01T12:00:00.123456789Z", 1709294400123456789n],
    ["an offset", "2024-03-01T13:00:00+01:00", 1709294400000000000n],
    ["milliseconds", "2024-03-01T12:00:00.5Z", 1709294400500000000n],
    ["a leap day", "2024-02-29T00:00:00Z", 1709164800000000000n],
  ])("parses %s", (_name, text, ns) => {
    expect(parseRfc3339Ns(text)).toBe(ns);
  });

  it.each([
    ["a day that does not exist", "2024-02-30T00:00:00Z"],
    ["29 Feb outside a leap year", "2023-02-29T00:00:00Z"],
    ["month 13", "2024-13-01T00:00:00Z"],
    ["hour 24", "2024-01-01T24:00:00Z"],
    ["no zone", "2024-01-01T00:00:00"],
    ["ten fractional digits", "2024-01-01T00:00:00.1234567891Z"],
  ])("refuses %s", (_name, text) => {
    expect(parseRfc3339Ns(text)).toBeUndefined();
  });
});

describe("formatNs", () => {
  it("round-trips nanoseconds and trims trailing zeros like Go's RFC3339Nano", () => {
    expect(formatNs(1709294400123456789n)).toBe("2024-03-01T12:00:00.123456789Z");
    expect(formatNs(1709294400500000000n)).toBe("2024-03-01T12:00:00.5Z");
    expect(formatNs(1709294400000000000n)).toBe("2024-03-01T12:00:00Z");
    expect(parseRfc3339Ns(formatNs(1709294400000000001n))).toBe(1709294400000000001n);
  });
});

describe("parseQueryTimeNs", () => {
  const now = 1_700_000_000_000_000_000n;
  it.each([
    ["now", now],
    ["now-1h", now - 3_600_000_000_000n],
    ["now+5m", now + 300_000_000_000n],
    ["now-30s", now - 30_000_000_000n],
    ["2023-11-14T22:13:20Z", now],
  ])("reads %s", (text, ns) => {
    expect(parseQueryTimeNs(text, now)).toBe(ns);
  });

  it("refuses anything else", () => {
    expect(parseQueryTimeNs("yesterday", now)).toBeUndefined();
    expect(parseQueryTimeNs("now-1y", now)).toBeUndefined();
  });
});
