/** The time module's rules, one row per rule, and a check that every part of the package reads them alike. */
import fc from "fast-check";
import { z } from "zod";
import { timeNs } from "../../provider/client/query";
import { DateTimeSchema } from "../../provider/schemas";
import {
  canonicalTime,
  floorMs,
  formatNs,
  parseRfc3339Ns,
  ZERO_TIME,
  ZERO_TIME_NS,
  type TimeProfile,
} from "../../provider/time";
import { parseTimestampHeuristic } from "../../emulator/ingest/timestamp";

const NOON = 1709294400000000000n; // 2024-03-01T12:00:00Z

// [rule, text, under the `rfc3339` profile, under the `lenient` profile]; undefined means refused.
const EDGE_CASES: [string, string, bigint | undefined, bigint | undefined][] = [
  ["UTC", "2024-03-01T12:00:00Z", NOON, NOON],
  ["a positive offset", "2024-03-01T13:00:00+01:00", NOON, NOON],
  ["a negative half-hour offset", "2024-03-01T06:30:00-05:30", NOON, NOON],
  ["an offset of zero written out", "2024-03-01T12:00:00-00:00", NOON, NOON],
  ["an offset without its colon (ISO 8601 basic), lenient only", "2024-03-01T13:00:00+0100", undefined, NOON],
  ["offset hours out of range", "2024-03-01T12:00:00+24:00", undefined, undefined],
  ["offset minutes out of range", "2024-03-01T12:00:00+01:60", undefined, undefined],
  ["lower-case t and z, lenient only", "2024-03-01t12:00:00z", undefined, NOON],
  ["a space for T, lenient only", "2024-03-01 12:00:00Z", undefined, NOON],
  ["surrounding blanks, lenient only", " 2024-03-01T12:00:00Z ", undefined, NOON],
  ["no zone", "2024-03-01T12:00:00", undefined, undefined],
  ["no seconds", "2024-03-01T12:00Z", undefined, undefined],
  ["one fraction digit", "2024-03-01T12:00:00.5Z", NOON + 500_000_000n, NOON + 500_000_000n],
  ["nine fraction digits", "2024-03-01T12:00:00.123456789Z", NOON + 123_456_789n, NOON + 123_456_789n],
  ["a fraction with an offset", "2024-03-01T13:00:00.000000001+01:00", NOON + 1n, NOON + 1n],
  [
    "ten fraction digits: truncated like Go, refused lenient",
    "2024-03-01T12:00:00.1234567891Z",
    NOON + 123_456_789n,
    undefined,
  ],
  ["an empty fraction", "2024-03-01T12:00:00.Z", undefined, undefined],
  [
    "the leap second (second 60), refused like Go's time package",
    "2016-12-31T23:59:60Z",
    undefined,
    undefined,
  ],
  ["the leap second with an offset", "2016-12-31T20:59:60-03:00", undefined, undefined],
  [
    "the last nanosecond before midnight",
    "2016-12-31T23:59:59.999999999Z",
    1483228799999999999n,
    1483228799999999999n,
  ],
  ["second 61", "2024-03-01T12:00:61Z", undefined, undefined],
  ["minute 60", "2024-03-01T12:60:00Z", undefined, undefined],
  ["hour 24", "2024-03-01T24:00:00Z", undefined, undefined],
  ["month 13", "2024-13-01T00:00:00Z", undefined, undefined],
  ["month 0", "2024-00-01T00:00:00Z", undefined, undefined],
  ["day 0", "2024-03-00T00:00:00Z", undefined, undefined],
  ["31 April", "2024-04-31T00:00:00Z", undefined, undefined],
  ["30 February", "2024-02-30T00:00:00Z", undefined, undefined],
  ["29 February outside a leap year", "2023-02-29T00:00:00Z", undefined, undefined],
  ["29 February in a leap year", "2024-02-29T00:00:00Z", 1709164800000000000n, 1709164800000000000n],
  [
    "29 February of year 0 (proleptic Gregorian)",
    "0000-02-29T00:00:00Z",
    -62162121600000000000n,
    -62162121600000000000n,
  ],
  [
    "a year below 100, not read as 19xx",
    "0099-12-31T23:59:59Z",
    -59011459201000000000n,
    -59011459201000000000n,
  ],
  ["the zero time", ZERO_TIME, ZERO_TIME_NS, ZERO_TIME_NS],
  ["before the epoch, with a fraction", "1969-12-31T23:59:59.5Z", -500_000_000n, -500_000_000n],
  ["the last second of year 9999", "9999-12-31T23:59:59Z", 253402300799000000000n, 253402300799000000000n],
];

describe.each<TimeProfile>(["rfc3339", "lenient"])("parseRfc3339Ns, %s profile", (profile) => {
  it.each(EDGE_CASES)("%s: %s", (_rule, text, strict, lenient) => {
    expect(parseRfc3339Ns(text, profile)).toBe(profile === "rfc3339" ? strict : lenient);
  });
});

describe("every part reads the table alike", () => {
  it.each(EDGE_CASES)("%s: %s", (_rule, text, strict, lenient) => {
    // What users declare (the schema) and what diffs compare (canonicalTime) follow the rfc3339 profile.
    expect(DateTimeSchema.safeParse(text).success).toBe(strict !== undefined);
    if (strict !== undefined && strict !== ZERO_TIME_NS) {
      expect(canonicalTime(text)).toBe(
        new Date(
          Number((strict - (((strict % 1_000_000n) + 1_000_000n) % 1_000_000n)) / 1_000_000n),
        ).toISOString(),
      );
    }
    // What arrives on the wire (ingest, result rows) follows the lenient profile.
    // The ingest also reads a time without a zone as UTC (its own rule, not RFC 3339's): only rows with one bind it.
    if (/(?:Z|z|[+-]\d{2}:?\d{2})$/.test(text.trim())) expect(parseTimestampHeuristic(text)).toBe(lenient);
    if (lenient === undefined) expect(() => timeNs(text)).toThrow(TypeError);
    else expect(timeNs(text)).toBe(lenient);
  });

  it("canonicalTime takes the zero time as absent", () => {
    expect(canonicalTime(ZERO_TIME)).toBeUndefined();
    expect(canonicalTime("0001-01-01T01:00:00+01:00")).toBeUndefined();
  });

  it("formats what it parses back to the same instant", () => {
    for (const [, , strict] of EDGE_CASES) {
      if (strict !== undefined) expect(parseRfc3339Ns(formatNs(strict), "rfc3339")).toBe(strict);
    }
  });
});

describe("the schema's date-time", () => {
  // DateTimeSchema used zod's iso.datetime; the time module's rfc3339 profile must accept exactly the same texts.
  const zodDateTime = z.iso.datetime({ offset: true });
  const two = (max: number) => fc.integer({ min: 0, max }).map((n) => String(n).padStart(2, "0"));
  const text = fc
    .tuple(
      fc.integer({ min: 0, max: 9999 }).map((n) => String(n).padStart(4, "0")),
      two(13),
      two(32),
      fc.constantFrom("T", "t", " "),
      two(24),
      two(60),
      two(61),
      fc.constantFrom("", ".", ".5", ".123456789", ".1234567891"),
      fc.constantFrom("Z", "z", "", "+01:00", "-05:30", "+0100", "+24:00", "+23:59", "-00:60", "+1:00"),
    )
    .map(([y, mo, d, t, h, mi, s, frac, zone]) => `${y}-${mo}-${d}${t}${h}:${mi}:${s}${frac}${zone}`);

  it("accepts exactly what zod's iso.datetime({offset: true}) accepts", () => {
    fc.assert(
      fc.property(text, (t) => DateTimeSchema.safeParse(t).success === zodDateTime.safeParse(t).success),
      { numRuns: 20_000 },
    );
  });

  it("formats each instant as Date writes it, whatever instant came before it (the kept hour)", () => {
    const seconds = fc.integer({ min: -62_167_219_200 - 86_400, max: 253_402_300_799 + 86_400 });
    const sub = fc.constantFrom(0, 1, 500_000_000, 123_456_789, 999_999_999);
    fc.assert(
      fc.property(fc.array(fc.tuple(seconds, sub), { minLength: 1, maxLength: 5 }), (times) => {
        for (const [s, n] of times) {
          const ns = BigInt(s) * 1_000_000_000n + BigInt(n);
          const frac = n === 0 ? "" : "." + String(n).padStart(9, "0").replace(/0+$/, "");
          expect(formatNs(ns)).toBe(`${new Date(s * 1000).toISOString().slice(0, 19)}${frac}Z`);
        }
      }),
      { numRuns: 3_000 },
    );
  });

  it("reads each UTC text to the instant Date reads, whatever text came before it (the fast path's cache)", () => {
    const utc = fc
      .tuple(
        fc.integer({ min: 1970, max: 2100 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 28 }),
        fc.integer({ min: 0, max: 23 }),
        fc.integer({ min: 0, max: 59 }),
        fc.integer({ min: 0, max: 59 }),
        fc.constantFrom("", ".5", ".123", ".123456789", ".000000001"),
      )
      .map(([y, mo, d, h, mi, s, frac]) => {
        const p = (n: number) => String(n).padStart(2, "0");
        return {
          text: `${y}-${p(mo)}-${p(d)}T${p(h)}:${p(mi)}:${p(s)}${frac}Z`,
          at: Date.UTC(y, mo - 1, d, h, mi, s),
          frac,
        };
      });
    fc.assert(
      fc.property(fc.array(utc, { minLength: 1, maxLength: 5 }), (texts) => {
        for (const { text, at, frac } of texts) {
          const sub = frac === "" ? 0n : BigInt(frac.slice(1).padEnd(9, "0"));
          // As text: a failure's message then shows both instants (jest's workers cannot send a bigint).
          expect(`${text} ${parseRfc3339Ns(text)}`).toBe(`${text} ${BigInt(at) * 1_000_000n + sub}`);
        }
      }),
      { numRuns: 2_000 },
    );
  });
});

describe("floorMs", () => {
  it("is the bigint division's floor, over every time of 64 bits and past (the column cache floors each event's time with it)", () => {
    const exact = (ns: bigint): number => {
      let q = ns / 1_000_000n;
      if (q * 1_000_000n > ns) q -= 1n;
      return Number(q);
    };
    const near = fc
      .tuple(fc.bigInt({ min: -(2n ** 53n), max: 2n ** 53n }), fc.integer({ min: -3, max: 3 }))
      .map(([ms, d]) => ms * 1_000_000n + BigInt(d));
    fc.assert(
      fc.property(
        fc.oneof(
          fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
          near,
          fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }),
        ),
        (ns) => floorMs(ns) === exact(ns),
      ),
      { numRuns: 20_000 },
    );
    for (const ns of [
      0n,
      -1n,
      1n,
      999_999n,
      1_000_000n,
      -1_000_000n,
      -1_000_001n,
      2n ** 63n - 1n,
      -(2n ** 63n),
      2n ** 63n,
    ]) {
      expect(String(floorMs(ns))).toBe(String(exact(ns)));
    }
  });
});
