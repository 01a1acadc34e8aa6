/**
 * The test's events: the explicit ones at their offsets, and the generated blocks laid out exactly.
 *
 * A block of `rate` for `for` from `from` holds `floor(rate × for)` events, evenly spaced: event i is at
 * `from + floor(i × unit / count)` ms (120/m: every 500 ms). A `mix` entry of share s takes, among the block's events
 * inside its window, those at positions k where `floor((k + 1) × s)` passes a whole number: exactly
 * `floor(n × s)` of the n, spread evenly (3% of 120 a minute is 3 or 4 in every minute, never a cluster). Values drawn
 * from `oneOf` and `between` come from a seeded generator (mulberry32), one draw per such field per event in the
 * order the fields are written, so a file gives the same events on every machine and every run.
 */
import type { EventEntry, FieldSpec, GenerateBlock } from "./schema";
import type { DocPath, Problem } from "./source";

/** One event to ingest. */
export interface TestEvent {
  dataset: string;
  /** When it happened, ms since the epoch (its `_time`). */
  timeMs: number;
  data: Record<string, unknown>;
}

/** The most events one file may generate: a bound on memory (about 200 bytes an event), not on the emulator. */
export const MAX_EVENTS = 5_000_000;

/**
 * The most bytes one event may hold, as the JSON text it is ingested as. Ours: a bound on what one generated value
 * (a `oneOf` of long strings, a pasted payload) can cost each of millions of events, with room for any real log
 * line or trace span.
 */
export const MAX_EVENT_BYTES = 1 << 20;

/**
 * The most bytes a file's events may hold in all, as JSON text. Ours: the count alone did not bound memory (five
 * million events of 2 KB each reached 3.5 GB before the run was stopped), and the events are held by the test and
 * again by the emulator it ingests them into.
 */
export const MAX_TOTAL_EVENT_BYTES = 256 << 20;

/** A byte count as text: `1,048,576 bytes (1 MiB)`. */
export function formatBytes(n: number): string {
  const mib = n / (1 << 20);
  const whole = Number.isInteger(mib) ? String(mib) : mib.toFixed(1);
  return `${n.toLocaleString("en-US")} bytes${mib >= 0.1 ? ` (${whole} MiB)` : ""}`;
}

/** The bytes of `value` as JSON text in UTF-8, as the ingest sends it. */
export function jsonBytes(value: unknown): number {
  const text = JSON.stringify(value);
  return text === undefined ? 4 : Buffer.byteLength(text);
}

/** `"_time":"2024-06-03T00:00:00.000Z"` and its comma: every event carries one. */
const TIME_FIELD_BYTES = jsonBytes("_time") + 1 + jsonBytes(new Date(0).toISOString()) + 1;

/** The largest a drawn value of `spec` can be, as JSON (a number of a range: its longer end, or a float's 24). */
function specMaxBytes(spec: FieldSpec): number {
  if ("value" in spec) return jsonBytes(spec.value);
  if ("oneOf" in spec) return Math.max(...spec.oneOf.map(jsonBytes));
  const [low, high] = spec.between;
  return Number.isInteger(low) && Number.isInteger(high) ? Math.max(jsonBytes(low), jsonBytes(high)) : 24; // the longest a float64 prints: -1.2345678901234567e-300
}

/**
 * The largest event a block can make, as JSON: each field at its largest value among the block's and its mixes'.
 * With the field that weighs most, for the message.
 */
export function blockMaxEventBytes(block: GenerateBlock): { bytes: number; heaviest?: string } {
  const largest = new Map<string, number>();
  const consider = (fields: Record<string, FieldSpec>) => {
    for (const [name, spec] of Object.entries(fields))
      largest.set(name, Math.max(largest.get(name) ?? 0, jsonBytes(name) + 1 + specMaxBytes(spec) + 1));
  };
  consider(block.fields ?? {});
  for (const m of block.mix ?? []) consider(m.fields);
  let bytes = 1 + TIME_FIELD_BYTES; // `{`, `"_time":"…"` and `}`
  let heaviest: string | undefined;
  for (const [name, b] of largest) {
    bytes += b;
    if (heaviest === undefined || b > largest.get(heaviest)!) heaviest = name;
  }
  return { bytes, heaviest };
}

/** Tolerance for shares whose products should land on whole numbers (0.03 × 100 is 3.0000000000000004). */
const EPSILON = 1e-9;

/** mulberry32: a small, fast 32-bit generator; any fixed seed gives the same sequence everywhere. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function draw(spec: FieldSpec, random: () => number): unknown {
  if ("value" in spec) return spec.value;
  if ("oneOf" in spec) return spec.oneOf[Math.floor(random() * spec.oneOf.length)];
  const [low, high] = spec.between;
  const r = random();
  return Number.isInteger(low) && Number.isInteger(high)
    ? low + Math.floor(r * (high - low + 1))
    : low + r * (high - low);
}

/** Whether position k (0-based) of a run is taken by a share s: the even spread described above. */
export function takenByShare(k: number, share: number): boolean {
  return Math.floor((k + 1) * share + EPSILON) > Math.floor(k * share + EPSILON);
}

/** How many events a block holds. */
export function blockSize(block: GenerateBlock): number {
  return Math.floor((block.rate.count * block.for) / block.rate.perMs + EPSILON);
}

/** A field of a block, ready to draw: its value and that value's bytes as JSON. */
interface SizedField {
  name: string;
  /** `"name":` and the comma after the value. */
  keyBytes: number;
  draw: (random: () => number) => { value: unknown; bytes: number };
}

function sized(name: string, spec: FieldSpec): SizedField {
  const keyBytes = jsonBytes(name) + 2;
  if ("value" in spec) {
    const bytes = jsonBytes(spec.value);
    return { name, keyBytes, draw: () => ({ value: spec.value, bytes }) };
  }
  if ("oneOf" in spec) {
    const sizes = spec.oneOf.map(jsonBytes);
    return {
      name,
      keyBytes,
      draw: (random) => {
        const i = Math.floor(random() * spec.oneOf.length);
        return { value: spec.oneOf[i], bytes: sizes[i] };
      },
    };
  }
  return {
    name,
    keyBytes,
    draw: (random) => {
      const value = draw(spec, random) as number;
      return { value, bytes: String(value).length };
    },
  };
}

/** The events of one generated block; `startMs` is the test's start, `index` the block's place (its default seed). */
export function generateBlock(block: GenerateBlock, startMs: number, index: number): TestEvent[] {
  return generateWithin(block, startMs, index, Infinity).events;
}

/**
 * As {@link generateBlock}, counting the events' bytes as JSON and stopping at the first event that would pass
 * `budget`: a block over the file's bound is refused without being held whole.
 */
function generateWithin(
  block: GenerateBlock,
  startMs: number,
  index: number,
  budget: number,
): { events: TestEvent[]; bytes: number; over: boolean } {
  const n = blockSize(block);
  const from = startMs + (block.from ?? 0);
  const random = seededRandom(block.seed ?? index);
  const fields = Object.entries(block.fields ?? {}).map(([name, spec]) => sized(name, spec));
  const mixes = (block.mix ?? []).map((m) => {
    const start = m.from === undefined ? from : startMs + m.from;
    return {
      share: m.share,
      fields: Object.entries(m.fields).map(([name, spec]) => sized(name, spec)),
      start,
      end: m.for === undefined ? Infinity : start + m.for,
      seen: 0,
    };
  });
  const out: TestEvent[] = [];
  let total = 0;
  for (let i = 0; i < n; i++) {
    const timeMs = from + Math.floor((i * block.rate.perMs) / block.rate.count);
    const data: Record<string, unknown> = {};
    /** Each field's `"name":value,` bytes: a mix's value replaces the block's, and its size with it. */
    const sizes = new Map<string, number>();
    const put = (f: SizedField) => {
      const { value, bytes } = f.draw(random);
      data[f.name] = value;
      sizes.set(f.name, f.keyBytes + bytes);
    };
    for (const f of fields) put(f);
    for (const mix of mixes) {
      if (timeMs < mix.start || timeMs >= mix.end) continue;
      const k = mix.seen++;
      if (takenByShare(k, mix.share)) for (const f of mix.fields) put(f);
    }
    data._time = new Date(timeMs).toISOString();
    let bytes = 1 + TIME_FIELD_BYTES;
    for (const b of sizes.values()) bytes += b;
    if (total + bytes > budget) return { events: out, bytes: total + bytes, over: true };
    total += bytes;
    out.push({ dataset: block.dataset, timeMs, data });
  }
  return { events: out, bytes: total, over: false };
}

/**
 * Every event of the file, in time order (ties in the order written). An event that gives its own `_time` keeps
 * it; any other gets `start + at`. An entry left out (`undefined`: refused by the file's schema) keeps its place, so
 * the blocks after it keep their default seeds.
 *
 * Bounded before anything runs, each bound a problem at the entry that passes it: at most {@link MAX_EVENTS}
 * events, {@link MAX_EVENT_BYTES} an event and {@link MAX_TOTAL_EVENT_BYTES} in all, as the JSON text ingested.
 */
export function testEvents(
  entries: readonly (EventEntry | undefined)[],
  startMs: number,
  problemAt: (path: DocPath, message: string) => Problem,
  /** Each `replay:` entry's events by its index, read already (replay.ts); a replay that was refused is absent. */
  replayed: ReadonlyMap<number, { events: readonly TestEvent[]; bytes: number }> = new Map(),
): { events: TestEvent[]; problems: Problem[]; bytes: number } {
  const events: TestEvent[] = [];
  const problems: Problem[] = [];
  let bytes = 0;
  const pastTotal = (more: number) =>
    `makes the file's events ${formatBytes(bytes + more)} as JSON, past the ${formatBytes(MAX_TOTAL_EVENT_BYTES)} one file may hold; lower the rate, the duration or the events' size`;
  entries.forEach((entry, index) => {
    if (problems.length > 0 || entry === undefined) return;
    if ("generate" in entry) {
      const n = blockSize(entry.generate);
      if (events.length + n > MAX_EVENTS) {
        problems.push(
          problemAt(
            ["events", index, "generate", "rate"],
            `makes ${n.toLocaleString("en-US")} events, past the ${MAX_EVENTS.toLocaleString("en-US")} one file may hold; lower the rate or the duration`,
          ),
        );
        return;
      }
      const largest = blockMaxEventBytes(entry.generate);
      if (largest.bytes > MAX_EVENT_BYTES) {
        problems.push(
          problemAt(
            ["events", index, "generate", ...(largest.heaviest !== undefined ? ["fields"] : [])],
            `can make an event of ${formatBytes(largest.bytes)} as JSON` +
              (largest.heaviest !== undefined ? ` (its field ${largest.heaviest} the largest)` : "") +
              `, past the ${formatBytes(MAX_EVENT_BYTES)} one event may be`,
          ),
        );
        return;
      }
      const block = generateWithin(entry.generate, startMs, index, MAX_TOTAL_EVENT_BYTES - bytes);
      if (block.over) {
        problems.push(problemAt(["events", index, "generate"], pastTotal(block.bytes)));
        return;
      }
      bytes += block.bytes;
      // One at a time: spreading a block of more than about 100,000 events into push's arguments overflows the stack.
      for (const event of block.events) events.push(event);
      return;
    }
    if ("replay" in entry) {
      const replay = replayed.get(index);
      if (replay === undefined) return; // its own problem is said
      if (events.length + replay.events.length > MAX_EVENTS) {
        problems.push(
          problemAt(
            ["events", index, "replay", "file"],
            `makes the file's events ${(events.length + replay.events.length).toLocaleString("en-US")}, past the ${MAX_EVENTS.toLocaleString("en-US")} one file may hold; replay a shorter period`,
          ),
        );
        return;
      }
      if (bytes + replay.bytes > MAX_TOTAL_EVENT_BYTES) {
        problems.push(problemAt(["events", index, "replay", "file"], pastTotal(replay.bytes)));
        return;
      }
      bytes += replay.bytes;
      for (const event of replay.events) events.push(event);
      return;
    }
    const times = entry.times ?? 1;
    const batch = entry.events ?? [entry.event!];
    const pathOf = (i: number) =>
      entry.events ? ["events", index, "events", i] : ["events", index, "event"];
    if (events.length + times * batch.length > MAX_EVENTS) {
      problems.push(problemAt(["events", index, "times"], `makes more than ${MAX_EVENTS} events`));
      return;
    }
    // Each event's bytes as ingested: with its `_time`, which is the same length whatever the time.
    const sizes = batch.map((event) =>
      jsonBytes(event._time === undefined ? { ...event, _time: new Date(startMs).toISOString() } : event),
    );
    for (const [i, size] of sizes.entries()) {
      if (size > MAX_EVENT_BYTES) {
        problems.push(
          problemAt(
            pathOf(i),
            `is ${formatBytes(size)} as JSON, past the ${formatBytes(MAX_EVENT_BYTES)} one event may be`,
          ),
        );
        return;
      }
    }
    const entryBytes = times * sizes.reduce((a, b) => a + b, 0);
    if (bytes + entryBytes > MAX_TOTAL_EVENT_BYTES) {
      problems.push(problemAt(["events", index, ...(times > 1 ? ["times"] : [])], pastTotal(entryBytes)));
      return;
    }
    bytes += entryBytes;
    for (let t = 0; t < times; t++) {
      const timeMs = startMs + entry.at + t * (entry.every ?? 0);
      for (const [i, event] of batch.entries()) {
        const own = event._time;
        let at = timeMs;
        if (own !== undefined) {
          const parsed = typeof own === "string" ? Date.parse(own) : NaN;
          if (Number.isNaN(parsed)) {
            problems.push(
              problemAt(
                [...pathOf(i), "_time"],
                "must be an RFC 3339 time (or left out: the event is then at start + at)",
              ),
            );
            return;
          }
          at = parsed;
        }
        events.push({
          dataset: entry.dataset,
          timeMs: at,
          data: own === undefined ? { ...event, _time: new Date(timeMs).toISOString() } : { ...event },
        });
      }
    }
  });
  // A stable sort: ties keep the order written.
  events.sort((a, b) => a.timeMs - b.timeMs);
  return { events, problems, bytes };
}
