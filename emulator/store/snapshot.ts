/**
 * The `--data` snapshot: every management object and every stored event, written whole and atomically (a
 * temporary file in the same directory, synced, then renamed over the old one, then the directory synced).
 * The journal (./journal.ts) holds what changed since.
 *
 * The file is NDJSON: a header line `{format, version: 3, seq, state}`, then `{dataset, rows}` lines of at most
 * {@link ROWS_PER_LINE} rows. Written a line at a time, a large store neither blocks the server for one long
 * serialization nor hits the engine's maximum string length. `seq` is the last journal transaction the snapshot
 * holds. Older files still load: version 2 (the same lines, without `seq`) and version 1 (one JSON document
 * whose `datasets` holds every row); both read as `seq` 0.
 */
import { randomBytes } from "node:crypto";
import { promises as fsp, readdirSync, readFileSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { parseExactJson, stringifyExactJson } from "../http/exact-json";
import type { State, StateSnapshot } from "../state";
import type { EventStoreApi, StoredEvent } from "./events";

const FORMAT = "pulumi-observability-emulator";
/** Rows per line of the data file: no line, and so no string in memory, grows with the dataset. */
const ROWS_PER_LINE = 5000;

/** One stored row as the data files hold it: bigints as decimal strings. */
export type RowJson = [string, string, string, Record<string, unknown>];

/** A row as the data files hold it. */
export function rowToJson(e: StoredEvent): RowJson {
  return [e.timeNs.toString(), e.sysTimeNs.toString(), e.rowId, e.data];
}

/**
 * `value` with every bigint a float64 again. A journal line is read exactly (the management objects' int64s,
 * emulator/http/exact-json.ts), but an event's numbers are float64s as ingest read them.
 */
function plainNumbers(value: unknown): unknown {
  if (typeof value === "bigint") return Number(value);
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = plainNumbers(value[i]);
  } else {
    for (const [k, v] of Object.entries(value)) {
      if (typeof v === "bigint" || (typeof v === "object" && v !== null))
        (value as Record<string, unknown>)[k] = plainNumbers(v);
    }
  }
  return value;
}

/** A row read back from a data file; a malformed one is a plain Error. */
export function rowFromJson(row: unknown): StoredEvent {
  if (!Array.isArray(row) || row.length !== 4 || typeof row[2] !== "string") {
    throw new Error("a row must be [timeNs, sysTimeNs, rowId, data]");
  }
  const [t, s, rowId, data] = row as RowJson;
  return {
    timeNs: BigInt(t),
    sysTimeNs: BigInt(s),
    rowId,
    data: plainNumbers(data ?? {}) as Record<string, unknown>,
  };
}

/**
 * Loads the snapshot into `state` and `store` when the file exists; returns the journal sequence it holds, or
 * undefined when there is no file. A file that cannot be read or parsed is an error naming it.
 */
export function loadSnapshot(file: string, state: State, store: EventStoreApi): number | undefined {
  let buf: Buffer;
  try {
    buf = readFileSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new Error(`cannot read emulator data file ${file}: ${(err as Error).message}`);
  }
  try {
    // The header holds the management objects, their int64s exact; the dataset lines hold events, float64s.
    const lines = jsonLines(buf, parseExactJson);
    const header = lines.next().value as
      { format?: unknown; seq?: unknown; state?: StateSnapshot; datasets?: unknown } | undefined;
    if (typeof header !== "object" || header === null || header.format !== FORMAT) {
      throw new Error(`not an emulator data file (missing "format": "${FORMAT}")`);
    }
    let datasets: Record<string, RowJson[]> | undefined;
    for (const line of lines) {
      const chunk = line as { dataset?: unknown; rows?: unknown };
      if (typeof chunk?.dataset !== "string" || !Array.isArray(chunk.rows)) {
        throw new Error("a dataset line must be {dataset, rows}");
      }
      datasets ??= {};
      const rows = (datasets[chunk.dataset] ??= []);
      for (const row of chunk.rows as RowJson[]) rows.push(row);
    }
    if (header.state !== undefined) state.restore(header.state);
    if (header.datasets !== undefined) store.load(header.datasets);
    else if (datasets !== undefined) store.load({ datasets });
    const seq = header.seq ?? 0;
    if (!Number.isSafeInteger(seq) || (seq as number) < 0) throw new Error(`"seq" must be an integer ≥ 0`);
    return seq as number;
  } catch (err) {
    throw new Error(`emulator data file ${file} is corrupt: ${(err as Error).message}`);
  }
}

/** A snapshot taken at one instant, ready to be written while the emulator keeps serving. */
export interface CapturedSnapshot {
  header: string;
  datasets: (readonly [string, StoredEvent[]])[];
}

/**
 * Captures the state and every dataset as they are now, holding journal transactions up to `seq`. Synchronous:
 * no request runs between reading the state and copying the row lists, so the capture holds every transaction
 * whole or not at all; requests served while it is written change neither the header nor the rows.
 */
export function captureSnapshot(state: State, store: EventStoreApi, seq: number): CapturedSnapshot {
  return {
    header: stringifyExactJson({ format: FORMAT, version: 3, seq, state: state.snapshot() }),
    datasets: store.names().map((name) => [name, [...(store.events(name) ?? [])]] as const),
  };
}

/** Writes a captured snapshot to `file` atomically and durably; returns the bytes written. */
export async function writeSnapshot(file: string, snap: CapturedSnapshot): Promise<number> {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  let bytes = 0;
  try {
    const fh = await fsp.open(tmp, "w");
    try {
      const write = async (line: string) => {
        const text = `${line}\n`;
        bytes += Buffer.byteLength(text);
        await fh.write(text);
      };
      await write(snap.header);
      for (const [name, rows] of snap.datasets) {
        for (let i = 0; i < rows.length; i += ROWS_PER_LINE) {
          await write(
            JSON.stringify({ dataset: name, rows: rows.slice(i, i + ROWS_PER_LINE).map(rowToJson) }),
          );
        }
      }
      // On disk before the rename, so the name never points at a file whose blocks are still in the page cache.
      await fh.sync();
    } finally {
      await fh.close();
    }
    await fsp.rename(tmp, file);
  } catch (err) {
    await fsp.rm(tmp, { force: true }).catch(() => undefined);
    throw err;
  }
  await syncDirectory(dirname(file));
  return bytes;
}

/** Makes a rename or unlink in `dir` durable: the directory entry itself is synced. */
export async function syncDirectory(dir: string): Promise<void> {
  const fh = await fsp.open(dir, "r");
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Deletes temporary files that a killed emulator left half-written next to `file` (their process is gone). */
export function removeStaleTemporaries(file: string): void {
  const dir = dirname(file);
  const prefix = `${basename(file)}.`;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const m = /^(\d+)\.[0-9a-f]{8}\.tmp$/.exec(name.startsWith(prefix) ? name.slice(prefix.length) : "");
    if (m && !processAlive(Number(m[1]))) rmSync(join(dir, name), { force: true });
  }
}

/** Whether a process with this id exists (signal 0 only checks). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The JSON value of each non-blank line of a buffer, decoded one line at a time, the first by `parseFirst`. */
function* jsonLines(buf: Buffer, parseFirst: (text: string) => unknown): Generator<unknown> {
  let start = 0;
  let parse = parseFirst;
  while (start < buf.length) {
    let end = buf.indexOf(10, start);
    if (end === -1) end = buf.length;
    const text = buf.toString("utf8", start, end);
    start = end + 1;
    if (text.trim() === "") continue;
    const value = parse(text);
    parse = JSON.parse;
    yield value;
  }
}
