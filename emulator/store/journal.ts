/**
 * The `--data` journal's file format: an append-only log of transactions, one JSON line each,
 * `{"seq":N,"changes":[...]}`, kept in numbered segment files beside the snapshot (`state.json.journal.1`, `.2`,
 * …). A transaction is every change one request made, so replay applies a request whole or not at all.
 *
 * A line counts only once its newline is on disk: the bytes after the last newline of a segment are a write that
 * a killed emulator left torn, which it never acknowledged, and replay skips them. A complete line that does not
 * parse is damage of another kind; replay refuses it rather than silently drop acknowledged data.
 */
import { readdirSync, readFileSync } from "node:fs";
import { parseExactJson, stringifyExactJson } from "../http/exact-json";
import { basename, dirname, join } from "node:path";

/** One journalled transaction: its sequence number and the changes, in the order they were made. */
export interface JournalEntry {
  seq: number;
  changes: unknown[];
}

/** One segment file of the journal. */
export interface Segment {
  /** Generation: segments replay in increasing order. */
  gen: number;
  path: string;
}

/** The path of segment `gen` of the journal that belongs to the snapshot `file`. */
export function segmentPath(file: string, gen: number): string {
  return `${file}.journal.${gen}`;
}

/** The journal segments beside the snapshot `file`, oldest first. */
export function listSegments(file: string): Segment[] {
  const prefix = `${basename(file)}.journal.`;
  let names: string[];
  try {
    names = readdirSync(dirname(file));
  } catch {
    return [];
  }
  return names
    .filter((n) => n.startsWith(prefix) && /^\d+$/.test(n.slice(prefix.length)))
    .map((n) => ({ gen: Number(n.slice(prefix.length)), path: join(dirname(file), n) }))
    .sort((a, b) => a.gen - b.gen);
}

/** One transaction as a journal line, newline included. */
export function encodeEntry(entry: JournalEntry): string {
  return `${stringifyExactJson(entry)}\n`;
}

/** What {@link readSegment} found. */
export interface SegmentContents {
  entries: JournalEntry[];
  /** Bytes after the last newline: a torn write, skipped (0 when the segment ends cleanly). */
  tornBytes: number;
}

/** Reads a segment; a complete line that is not a transaction is an Error naming the file and line. */
export function readSegment(path: string): SegmentContents {
  const buf = readFileSync(path);
  const end = buf.lastIndexOf(10) + 1;
  const entries: JournalEntry[] = [];
  let start = 0;
  let line = 0;
  while (start < end) {
    const stop = buf.indexOf(10, start);
    line++;
    const text = buf.toString("utf8", start, stop);
    start = stop + 1;
    if (text.trim() === "") continue;
    let entry: Partial<JournalEntry> | undefined;
    try {
      entry = parseExactJson(text) as Partial<JournalEntry>;
    } catch {
      entry = undefined;
    }
    if (
      typeof entry !== "object" ||
      entry === null ||
      !Number.isSafeInteger(entry.seq) ||
      !Array.isArray(entry.changes)
    ) {
      throw new Error(`journal ${path} line ${line} is not a transaction {seq, changes}`);
    }
    entries.push(entry as JournalEntry);
  }
  return { entries, tornBytes: buf.length - end };
}
