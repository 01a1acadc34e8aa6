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

/** The events of one generated block; `startMs` is the test's start, `index` the block's place (its default seed). */
export function generateBlock(block: GenerateBlock, startMs: number, index: number): TestEvent[] {
  const n = blockSize(block);
  const from = startMs + (block.from ?? 0);
  const random = seededRandom(block.seed ?? index);
  const fields = Object.entries(block.fields ?? {});
  const mixes = (block.mix ?? []).map((m) => {
    const start = m.from === undefined ? from : startMs + m.from;
    return {
      share: m.share,
      fields: Object.entries(m.fields),
      start,
      end: m.for === undefined ? Infinity : start + m.for,
      seen: 0,
    };
  });
  const out: TestEvent[] = [];
  for (let i = 0; i < n; i++) {
    const timeMs = from + Math.floor((i * block.rate.perMs) / block.rate.count);
    const data: Record<string, unknown> = {};
    for (const [name, spec] of fields) data[name] = draw(spec, random);
    for (const mix of mixes) {
      if (timeMs < mix.start || timeMs >= mix.end) continue;
      const k = mix.seen++;
      if (takenByShare(k, mix.share)) for (const [name, spec] of mix.fields) data[name] = draw(spec, random);
    }
    data._time = new Date(timeMs).toISOString();
    out.push({ dataset: block.dataset, timeMs, data });
  }
  return out;
}

/**
 * Every event of the file, in time order (ties in the order written). An event that gives its own `_time` keeps
 * it; any other gets `start + at`. More than {@link MAX_EVENTS} in all is a problem at the entry that passes it.
 */
export function testEvents(
  entries: readonly EventEntry[],
  startMs: number,
  problemAt: (path: DocPath, message: string) => Problem,
): { events: TestEvent[]; problems: Problem[] } {
  const events: TestEvent[] = [];
  const problems: Problem[] = [];
  entries.forEach((entry, index) => {
    if (problems.length > 0) return;
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
      // One at a time: spreading a block of more than about 100,000 events into push's arguments overflows the stack.
      for (const event of generateBlock(entry.generate, startMs, index)) events.push(event);
      return;
    }
    const times = entry.times ?? 1;
    const batch = entry.events ?? [entry.event!];
    if (events.length + times * batch.length > MAX_EVENTS) {
      problems.push(problemAt(["events", index, "times"], `makes more than ${MAX_EVENTS} events`));
      return;
    }
    for (let t = 0; t < times; t++) {
      const timeMs = startMs + entry.at + t * (entry.every ?? 0);
      for (const [i, event] of batch.entries()) {
        const own = event._time;
        let at = timeMs;
        if (own !== undefined) {
          const parsed = typeof own === "string" ? Date.parse(own) : NaN;
          if (Number.isNaN(parsed)) {
            const path = entry.events
              ? ["events", index, "events", i, "_time"]
              : ["events", index, "event", "_time"];
            problems.push(
              problemAt(path, "must be an RFC 3339 time (or left out: the event is then at start + at)"),
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
  return { events, problems };
}
