/**
 * `replay:` entries of an alert test: a file of recorded events (an outage exported with `observability query …
 * --format ndjson`, a JSON array, a CSV file) read as `observability ingest` reads it, each event's `_time` read as
 * the service reads it, and the whole file moved in time by `shift` so that it lands where the test wants it.
 */
import { resolve } from "node:path";
import { csvCell } from "../../emulator/ingest";
import { parseTimestampHeuristic } from "../../emulator/ingest/timestamp";
import { formatNs } from "../../provider/time";
import { CommandError, UsageError } from "../exit";
import { eventObjects, openInputs, type Input } from "../input";
import { formatBytes, jsonBytes, MAX_EVENT_BYTES, MAX_EVENTS, type TestEvent } from "./generate";
import type { ReplayBlock } from "./schema";

/**
 * The longest line (or CSV record) read, in characters. Ours: an event is at most MAX_EVENT_BYTES as JSON, and a
 * line four times as long leaves room for any spacing an exporter adds while bounding what one line holds in memory.
 */
export const MAX_REPLAY_LINE_CHARS = 4 * MAX_EVENT_BYTES;

/** A replay read: its events in file order with their bytes as ingested, or why it was refused. */
export type Replayed =
  { events: TestEvent[]; bytes: number } | { problem: { field: "file"; message: string } };

/**
 * Reads `block.file` (relative to `baseDir`) into events of `block.dataset`. Reading stops at the first problem: a
 * file that cannot be opened, a line that is not an event, an event without a readable `_time`, an event over
 * MAX_EVENT_BYTES, more than `maxEvents` events or more than `budget` bytes as JSON (the file's share of the
 * test's bounds, so a file over them is never held whole).
 */
export async function readReplay(
  block: ReplayBlock,
  baseDir: string,
  startMs: number,
  budget: number,
  maxEvents = MAX_EVENTS,
): Promise<Replayed> {
  const fail = (message: string): Replayed => ({ problem: { field: "file", message } });
  let input: Input;
  const path = resolve(baseDir, block.file);
  try {
    [input] = await openInputs([path]);
  } catch (err) {
    // Named as the test names it, and said where it is looked for.
    if (err instanceof UsageError)
      return fail(`${err.message.replace(path, block.file)} (a path relative to the test file's folder)`);
    throw err;
  }
  // Messages name the file as the test names it.
  const named: Input = { ...input, name: block.file };
  const read: { event: Record<string, unknown>; ns: bigint }[] = [];
  let bytes = 0;
  try {
    for await (const { event, where } of eventObjects(named, block.format, {
      maxLineChars: MAX_REPLAY_LINE_CHARS,
      csvCell,
    })) {
      const time = event._time;
      if (time === undefined || time === null || time === "")
        return fail(
          `${block.file}: ${where}: has no _time; a replayed event carries its own time (\`observability query --format ndjson\` writes it)`,
        );
      const ns = parseTimestampHeuristic(time);
      if (ns === undefined)
        return fail(
          `${block.file}: ${where}: _time ${JSON.stringify(time).slice(0, 80)} is not an RFC 3339 time or a Unix time number`,
        );
      const size = jsonBytes(event);
      if (size > MAX_EVENT_BYTES)
        return fail(
          `${block.file}: ${where}: is ${formatBytes(size)} as JSON, past the ${formatBytes(MAX_EVENT_BYTES)} one event may be`,
        );
      bytes += size;
      if (bytes > budget)
        return fail(
          `${block.file}: holds more than ${formatBytes(budget)} of events as JSON (passed at ${where}), past what one file's events may hold; replay a shorter period`,
        );
      if (read.length >= maxEvents)
        return fail(
          `${block.file}: holds more than ${maxEvents.toLocaleString("en-US")} events (passed at ${where}), past what one file's events may hold; replay a shorter period`,
        );
      read.push({ event, ns });
    }
  } catch (err) {
    if (err instanceof CommandError) return fail(err.message);
    throw err;
  } finally {
    await input.close();
  }
  if (read.length === 0) return fail(`${block.file}: holds no events, so there is nothing to replay`);

  if (block.shift === undefined) {
    // Each event as written: its `_time` is read by the emulator as ingest's service reads it.
    const events = read.map(({ event, ns }) => ({
      dataset: block.dataset,
      timeMs: Number(ns / 1_000_000n),
      data: event,
    }));
    return { events, bytes };
  }
  let first = read[0].ns;
  for (const { ns } of read) if (ns < first) first = ns;
  const delta = (BigInt(startMs) + BigInt(block.shift.firstEventAt)) * 1_000_000n - first;
  bytes = 0;
  const events: TestEvent[] = [];
  for (const { event, ns } of read) {
    const at = ns + delta;
    const data = { ...event, _time: formatNs(at) };
    // The moved `_time` is written in full (to the nanosecond), which may make an event a few bytes longer.
    const size = jsonBytes(data);
    if (size > MAX_EVENT_BYTES)
      return fail(
        `${block.file}: an event is ${formatBytes(size)} as JSON once its _time is moved, past the ${formatBytes(MAX_EVENT_BYTES)} one event may be`,
      );
    bytes += size;
    events.push({ dataset: block.dataset, timeMs: Number(at / 1_000_000n), data });
  }
  return { events, bytes };
}
