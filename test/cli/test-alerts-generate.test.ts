/** The alert-test event generator: exact counts, even spacing, exact shares, and the same events on every run. */
import {
  blockSize,
  generateBlock,
  seededRandom,
  takenByShare,
  testEvents,
} from "../../cli/alert-test/generate";
import { GenerateSchema, type EventEntry } from "../../cli/alert-test/schema";
import type { DocPath } from "../../cli/alert-test/source";

const START = Date.parse("2024-06-03T00:00:00Z");
const MINUTE = 60_000;

/** A block as the file's schema reads it (the rate and durations parsed). */
const block = (spec: Record<string, unknown>) => GenerateSchema.parse(spec);
const problemAt = (path: DocPath, message: string) => ({ file: "t.yaml", field: path.join("."), message });

describe("a generated block", () => {
  const spec = {
    dataset: "http-logs",
    rate: "120/m",
    for: "2h",
    fields: {
      service: "checkout",
      status: 200,
      route: { oneOf: ["/pay", "/cart", "/"] },
      ms: { between: [20, 40] },
    },
    mix: [{ share: "3%", fields: { status: 500 } }],
  };

  it("holds rate × duration events, evenly spaced from its start", () => {
    const events = generateBlock(block(spec), START, 0);
    expect(blockSize(block(spec))).toBe(14_400);
    expect(events).toHaveLength(14_400);
    expect(events[0].timeMs).toBe(START);
    expect(events[1].timeMs - events[0].timeMs).toBe(500);
    expect(events.at(-1)!.timeMs).toBe(START + 2 * 60 * MINUTE - 500);
    expect(events[0].data._time).toBe("2024-06-03T00:00:00.000Z");
    expect(new Set(events.map((e) => e.dataset))).toEqual(new Set(["http-logs"]));
  });

  it("gives a mix exactly its share, 3 or 4 of 120 in every minute (3%), never a cluster", () => {
    const events = generateBlock(block(spec), START, 0);
    const errors = events.filter((e) => e.data.status === 500);
    expect(errors).toHaveLength(432); // 3% of 14,400
    const perMinute = new Map<number, number>();
    for (const e of errors) {
      const minute = Math.floor((e.timeMs - START) / MINUTE);
      perMinute.set(minute, (perMinute.get(minute) ?? 0) + 1);
    }
    expect(perMinute.size).toBe(120);
    expect(new Set(perMinute.values())).toEqual(new Set([3, 4]));
    // The other fields stay as the block gives them.
    expect(errors.every((e) => e.data.service === "checkout")).toBe(true);
  });

  it("draws oneOf and between values within their bounds", () => {
    const events = generateBlock(block(spec), START, 0);
    expect(new Set(events.map((e) => e.data.route))).toEqual(new Set(["/pay", "/cart", "/"]));
    const ms = events.map((e) => e.data.ms as number);
    expect(ms.every((v) => Number.isInteger(v) && v >= 20 && v <= 40)).toBe(true);
    expect(Math.min(...ms)).toBe(20);
    expect(Math.max(...ms)).toBe(40);
    const floats = generateBlock(block({ ...spec, fields: { x: { between: [0.5, 1.5] } } }), START, 0);
    expect(floats.some((e) => !Number.isInteger(e.data.x))).toBe(true);
    expect(floats.every((e) => (e.data.x as number) >= 0.5 && (e.data.x as number) <= 1.5)).toBe(true);
  });

  it("is the same on every run, and another seed draws other values (but the same layout)", () => {
    const a = generateBlock(block(spec), START, 0);
    const b = generateBlock(block(spec), START, 0);
    expect(b).toEqual(a);
    const seeded = generateBlock(block({ ...spec, seed: 42 }), START, 0);
    expect(seeded.map((e) => e.timeMs)).toEqual(a.map((e) => e.timeMs));
    expect(seeded.map((e) => e.data.status)).toEqual(a.map((e) => e.data.status));
    expect(seeded.map((e) => e.data.route)).not.toEqual(a.map((e) => e.data.route));
    // An unseeded block's seed is its place in `events`.
    expect(generateBlock(block(spec), START, 42)).toEqual(seeded);
  });

  it("mulberry32's first draws for seed 1 are the reference's (a fixed sequence: the same events on any machine)", () => {
    // Tommy Ettinger's mulberry32, as commonly ported to JavaScript: 0.6270739405881613, 0.002735721180215478,
    // 0.5274470399599522 for seed 1.
    const random = seededRandom(1);
    expect([random(), random(), random()]).toEqual([
      0.6270739405881613, 0.002735721180215478, 0.5274470399599522,
    ]);
  });

  it("a mix window takes its share only inside it: a burst", () => {
    const burst = block({
      dataset: "http-logs",
      rate: "60/m",
      for: "1h",
      fields: { status: 200 },
      mix: [{ share: "50%", from: "20m", for: "10m", fields: { status: 503 } }],
    });
    const events = generateBlock(burst, START, 0);
    const errors = events.filter((e) => e.data.status === 503);
    expect(errors).toHaveLength(300); // half of 10 minutes at 60 a minute
    expect(Math.min(...errors.map((e) => e.timeMs))).toBeGreaterThanOrEqual(START + 20 * MINUTE);
    expect(Math.max(...errors.map((e) => e.timeMs))).toBeLessThan(START + 30 * MINUTE);
  });

  it("a block from an offset before start lays out history", () => {
    const history = generateBlock(block({ dataset: "d", rate: "1/h", for: "1d", from: "-7d" }), START, 0);
    expect(history).toHaveLength(24);
    expect(history[0].timeMs).toBe(START - 7 * 24 * 60 * MINUTE);
    expect(history[1].timeMs - history[0].timeMs).toBe(60 * MINUTE);
  });

  it("a fractional or sub-millisecond spacing stays exact in count", () => {
    expect(generateBlock(block({ dataset: "d", rate: "7/s", for: "1m" }), START, 0)).toHaveLength(420);
    expect(generateBlock(block({ dataset: "d", rate: "0.5/m", for: "1h" }), START, 0)).toHaveLength(30);
  });
});

it("rule (docs/testing-alerts.md): mix entries count positions each on their own, so two of one share over one window take the same events, the later's fields winning", () => {
  const events = generateBlock(
    block({
      dataset: "http-logs",
      rate: "60/m",
      for: "10m",
      fields: { route: "/", status: 200 },
      mix: [
        { share: "10%", fields: { route: "/checkout", status: 500 } },
        { share: "10%", fields: { route: "/search", status: 500 } },
      ],
    }),
    START,
    0,
  );
  const errors = events.filter((e) => e.data.status === 500);
  expect(errors).toHaveLength(60); // not 120: the second entry took the first one's events
  expect(new Set(errors.map((e) => e.data.route))).toEqual(new Set(["/search"]));
});

it("a share's even spread: floor(n × s) of n, for shares that do not divide evenly", () => {
  for (const [n, share] of [
    [1000, 0.03],
    [7, 0.5],
    [100, 1 / 3],
    [10, 1],
    [10, 0.1],
  ] as const) {
    const taken = Array.from({ length: n }, (_, k) => takenByShare(k, share)).filter(Boolean).length;
    expect(taken).toBe(Math.floor(n * share + 1e-9));
  }
});

describe("explicit events", () => {
  const entries: EventEntry[] = [
    { at: 10 * MINUTE, dataset: "app-logs", event: { level: "fatal" }, times: 3, every: MINUTE },
    { at: 5 * MINUTE, dataset: "app-logs", events: [{ n: 1 }, { n: 2 }] },
    { at: 0, dataset: "app-logs", event: { _time: "2024-06-02T23:00:00Z", old: true } },
  ];

  it("sit at start + at, repeated every, in time order; an event's own _time is kept", () => {
    const { events, problems } = testEvents(entries, START, problemAt);
    expect(problems).toEqual([]);
    expect(events.map((e) => [e.timeMs - START, e.data])).toEqual([
      [-60 * MINUTE, { _time: "2024-06-02T23:00:00Z", old: true }],
      [5 * MINUTE, { n: 1, _time: "2024-06-03T00:05:00.000Z" }],
      [5 * MINUTE, { n: 2, _time: "2024-06-03T00:05:00.000Z" }],
      [10 * MINUTE, { level: "fatal", _time: "2024-06-03T00:10:00.000Z" }],
      [11 * MINUTE, { level: "fatal", _time: "2024-06-03T00:11:00.000Z" }],
      [12 * MINUTE, { level: "fatal", _time: "2024-06-03T00:12:00.000Z" }],
    ]);
  });

  it("an event whose _time is not a time is a problem on that field", () => {
    const { problems } = testEvents(
      [{ at: 0, dataset: "d", events: [{}, { _time: "yesterday" }] }],
      START,
      problemAt,
    );
    expect(problems).toEqual([
      {
        file: "t.yaml",
        field: "events.0.events.1._time",
        message: "must be an RFC 3339 time (or left out: the event is then at start + at)",
      },
    ]);
  });

  it("a block of a million events loads (spread into push's arguments, one overflowed the stack)", () => {
    const { events, problems } = testEvents(
      [{ generate: block({ dataset: "d", rate: "1000/m", for: "1000m" }) }],
      START,
      problemAt,
    );
    expect(problems).toEqual([]);
    expect(events).toHaveLength(1_000_000);
  });

  it("a file may not generate more than five million events", () => {
    const { problems } = testEvents(
      [{ generate: block({ dataset: "d", rate: "1000/s", for: "2h" }) }],
      START,
      problemAt,
    );
    expect(problems).toEqual([
      expect.objectContaining({
        field: "events.0.generate.rate",
        message:
          "makes 7,200,000 events, past the 5,000,000 one file may hold; lower the rate or the duration",
      }),
    ]);
  });
});
