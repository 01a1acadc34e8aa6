/**
 * Event storage for the emulator's datasets. Ingest appends here; the query engine reads here.
 *
 * Times are kept as bigint nanoseconds so that the ±1 ns paging step of the service's API reference (axiom.co/docs/restapi) is exact.
 * Row ids sort lexicographically in (_time, arrival) order, which is what makes cursors work.
 */

/** One stored event. */
export interface StoredEvent {
  /** Event time, nanoseconds since the Unix epoch (`_time`). */
  timeNs: bigint;
  /** Ingest time, nanoseconds since the Unix epoch (`_sysTime`). */
  sysTimeNs: bigint;
  /** Opaque row id; sorts in (_time, arrival) order. Also the cursor. */
  rowId: string;
  /** The event's fields, without `_time`/`_sysTime` (reserved names already renamed). */
  data: Record<string, unknown>;
}

/** An event after ingest parsing, before it is stored. */
export interface IncomingEvent {
  timeNs: bigint;
  data: Record<string, unknown>;
}

/** Interface of the dataset store; implementation lives in this file (owned by the query engine work). */
export interface EventStoreApi {
  /** Appends events to a dataset (created on first use); assigns row ids and `_sysTime`. */
  append(dataset: string, events: IncomingEvent[], sysTimeNs: bigint): StoredEvent[];
  /** The dataset's events in ascending (time, arrival) order, or undefined when it does not exist. */
  events(dataset: string): readonly StoredEvent[] | undefined;
  /**
   * The dataset's events in whatever order the store holds them now, never sorted for the call: for readers that
   * need no order (the console's counts and samples), so that looking does not cost a sort of a late batch.
   */
  eventsAsStored?(dataset: string): readonly StoredEvent[] | undefined;
  /** Names of every dataset. */
  names(): string[];
  /** Plain JSON for `--data` persistence, and back. */
  toJSON(): unknown;
  load(json: unknown): void;
  /** Puts back rows exactly as {@link append} stored them (row ids included): the `--data` journal's replay. */
  restore(dataset: string, rows: StoredEvent[]): void;
  /** Receives the rows of every {@link append}, for the `--data` journal; unset without one. */
  onAppend?: (dataset: string, rows: StoredEvent[]) => void;
  /** Removes a dataset's events (its dataset was deleted). */
  drop(dataset: string): void;
  /** Removes a dataset's events older than `beforeNs` (a trim); returns how many went. */
  trim(dataset: string, beforeNs: bigint): number;
  /**
   * Receives every {@link drop} (`beforeNs` undefined) and every {@link trim} that removed rows, for the `--data`
   * journal; unset without one.
   */
  onRemove?: (dataset: string, beforeNs?: bigint) => void;
}

/** Shifts signed nanoseconds into the unsigned range so that fixed-width hex sorts like the number. */
const TIME_OFFSET = 1n << 63n;
const TIME_MAX = (1n << 64n) - 1n;
const TIME_WIDTH = 16;
const SEQ_WIDTH = 12;

/**
 * A row id: 16 hex digits of the offset time, then 12 hex digits of a store-wide arrival sequence.
 * Fixed width makes plain string comparison agree with (time, arrival) order.
 */
export function encodeRowId(timeNs: bigint, seq: number): string {
  let t = timeNs + TIME_OFFSET;
  // Times outside ±292 years cannot be encoded; clamping keeps ids valid and still sorted.
  if (t < 0n) t = 0n;
  else if (t > TIME_MAX) t = TIME_MAX;
  return t.toString(16).padStart(TIME_WIDTH, "0") + seq.toString(16).padStart(SEQ_WIDTH, "0");
}

/** The persisted form written by {@link EventStore.toJSON}: bigints as decimal strings. */
export interface EventStoreJson {
  /** Next arrival sequence number. */
  seq: number;
  /** Per dataset, rows as `[timeNs, sysTimeNs, rowId, data]`. */
  datasets: Record<string, [string, string, string, Record<string, unknown>][]>;
}

interface Dataset {
  rows: StoredEvent[];
  /** False after an out-of-order append; the next read sorts. */
  sorted: boolean;
}

/**
 * The version of each rows array the store holds: bumped whenever the array changes other than by an append in time
 * order (a late batch, its sort, a restore, a trim, a drop, a load), so that what a reader derived from a prefix of
 * it (the query engine's column cache, emulator/query/columns.ts) can tell whether that prefix still holds. An
 * in-order append only adds rows at the end and keeps the version: the derived prefix is still right. Arrays the
 * store never held have no version.
 */
const rowsVersions = new WeakMap<readonly StoredEvent[], number>();
let lastRowsVersion = 0;

function rowsChanged(rows: readonly StoredEvent[]): void {
  rowsVersions.set(rows, ++lastRowsVersion);
}

/** The version of a rows array the store holds or held (see above); undefined for any other array. */
export function rowsVersion(rows: readonly StoredEvent[]): number | undefined {
  return rowsVersions.get(rows);
}

/** Told of every in-order append, as {@link appendedInOrder} says; set by the column cache. */
let appendWatcher: ((rows: readonly StoredEvent[], from: number) => void) | undefined;

/**
 * Has `watcher` told, after each append in time order to an array the store holds, where the new rows start: the
 * version is unchanged, so a reader that derives something from every row (the column cache's time) can extend it
 * while the rows are still fresh in memory, instead of fetching each one again from all over the heap at its next
 * query. A module-level hook, as the versions are: the cache is keyed by arrays, not by stores.
 */
export function watchAppendsInOrder(watcher: (rows: readonly StoredEvent[], from: number) => void): void {
  appendWatcher = watcher;
}

function byRowId(a: StoredEvent, b: StoredEvent): number {
  return a.rowId < b.rowId ? -1 : a.rowId > b.rowId ? 1 : 0;
}

/** In-memory datasets of events, kept in (time, arrival) order. */
export class EventStore implements EventStoreApi {
  private readonly datasets = new Map<string, Dataset>();
  private seq = 0;
  onAppend?: (dataset: string, rows: StoredEvent[]) => void;
  onRemove?: (dataset: string, beforeNs?: bigint) => void;

  /** Appends events to a dataset, creating it on first use; assigns row ids and `_sysTime`. */
  append(dataset: string, events: IncomingEvent[], sysTimeNs: bigint): StoredEvent[] {
    let ds = this.datasets.get(dataset);
    if (!ds) {
      ds = { rows: [], sorted: true };
      this.datasets.set(dataset, ds);
      rowsChanged(ds.rows);
    }
    const out: StoredEvent[] = new Array(events.length);
    const rows = ds.rows;
    let sorted = ds.sorted;
    let last = rows.length > 0 ? rows[rows.length - 1].timeNs : undefined;
    for (let i = 0; i < events.length; i++) {
      const e = events[i];
      const stored: StoredEvent = {
        timeNs: e.timeNs,
        sysTimeNs: sysTimeNs,
        rowId: encodeRowId(e.timeNs, this.seq++),
        data: e.data,
      };
      // Appends are nearly always in time order; an older event defers a sort to the next read.
      if (last !== undefined && e.timeNs < last) sorted = false;
      else last = e.timeNs;
      rows.push(stored);
      out[i] = stored;
    }
    if (!sorted) rowsChanged(rows);
    else if (ds.sorted && events.length > 0) appendWatcher?.(rows, rows.length - events.length);
    ds.sorted = sorted;
    this.onAppend?.(dataset, out);
    return out;
  }

  /** Puts back rows exactly as {@link append} stored them; later appends continue after their sequence. */
  restore(dataset: string, rows: StoredEvent[]): void {
    let ds = this.datasets.get(dataset);
    if (!ds) {
      ds = { rows: [], sorted: true };
      this.datasets.set(dataset, ds);
    }
    for (const row of rows) {
      const seq = parseInt(row.rowId.slice(TIME_WIDTH), 16);
      if (Number.isFinite(seq) && seq + 1 > this.seq) this.seq = seq + 1;
      ds.rows.push(row);
    }
    // Cheaper than checking: the next read sorts, adaptively, only if needed.
    if (rows.length > 0) ds.sorted = false;
    rowsChanged(ds.rows);
  }

  /** The dataset's events in ascending (time, arrival) order, or undefined when it does not exist. */
  events(dataset: string): readonly StoredEvent[] | undefined {
    const ds = this.datasets.get(dataset);
    if (!ds) return undefined;
    if (!ds.sorted) {
      // TimSort is adaptive: a mostly-ordered array with a few late batches sorts in near-linear time.
      ds.rows.sort(byRowId);
      ds.sorted = true;
      rowsChanged(ds.rows);
    }
    return ds.rows;
  }

  eventsAsStored(dataset: string): readonly StoredEvent[] | undefined {
    return this.datasets.get(dataset)?.rows;
  }

  /** Names of every dataset, sorted. */
  names(): string[] {
    return [...this.datasets.keys()].sort();
  }

  /** Number of events in a dataset (0 when it does not exist). */
  count(dataset: string): number {
    return this.datasets.get(dataset)?.rows.length ?? 0;
  }

  /** Removes a dataset and its events; true when it existed. */
  delete(dataset: string): boolean {
    const ds = this.datasets.get(dataset);
    if (ds) rowsChanged(ds.rows);
    return this.datasets.delete(dataset);
  }

  /** Removes a dataset's events, journalled through {@link onRemove}. */
  drop(dataset: string): void {
    const ds = this.datasets.get(dataset);
    if (ds) rowsChanged(ds.rows);
    if (this.datasets.delete(dataset)) this.onRemove?.(dataset);
  }

  /** Removes the events with `_time` before `beforeNs`, journalled through {@link onRemove} when any went. */
  trim(dataset: string, beforeNs: bigint): number {
    const ds = this.datasets.get(dataset);
    if (!ds) return 0;
    const kept = ds.rows.filter((r) => r.timeNs >= beforeNs);
    const removed = ds.rows.length - kept.length;
    if (removed === 0) return 0;
    rowsChanged(ds.rows);
    rowsChanged(kept);
    ds.rows = kept;
    if (kept.length === 0) this.datasets.delete(dataset);
    this.onRemove?.(dataset, beforeNs);
    return removed;
  }

  /** Plain JSON for `--data` persistence. */
  toJSON(): EventStoreJson {
    const datasets: EventStoreJson["datasets"] = {};
    for (const name of this.names()) {
      datasets[name] = (this.events(name) ?? []).map((e) => [
        e.timeNs.toString(),
        e.sysTimeNs.toString(),
        e.rowId,
        e.data,
      ]);
    }
    return { seq: this.seq, datasets };
  }

  /** Replaces the contents with what {@link toJSON} wrote; throws a plain Error on a malformed document. */
  load(json: unknown): void {
    if (typeof json !== "object" || json === null) throw new Error("event store: expected an object");
    const doc = json as Partial<EventStoreJson>;
    const datasets = doc.datasets ?? {};
    if (typeof datasets !== "object" || datasets === null) throw new Error("event store: bad datasets");
    const loaded = new Map<string, Dataset>();
    let maxSeq = typeof doc.seq === "number" && Number.isInteger(doc.seq) ? doc.seq : 0;
    for (const [name, rows] of Object.entries(datasets)) {
      if (!Array.isArray(rows)) throw new Error(`event store: dataset ${name} is not a list`);
      const parsed: StoredEvent[] = rows.map((row, i) => {
        if (!Array.isArray(row) || row.length !== 4 || typeof row[2] !== "string") {
          throw new Error(`event store: dataset ${name} row ${i} is malformed`);
        }
        const [t, s, rowId, data] = row;
        const seq = parseInt(rowId.slice(TIME_WIDTH), 16);
        if (Number.isFinite(seq) && seq + 1 > maxSeq) maxSeq = seq + 1;
        return {
          timeNs: BigInt(t),
          sysTimeNs: BigInt(s),
          rowId,
          data: (data ?? {}) as Record<string, unknown>,
        };
      });
      loaded.set(name, { rows: parsed, sorted: false });
      rowsChanged(parsed);
    }
    for (const ds of this.datasets.values()) rowsChanged(ds.rows);
    this.datasets.clear();
    for (const [k, v] of loaded) this.datasets.set(k, v);
    this.seq = maxSeq;
  }
}
