/**
 * Event storage for the emulator's datasets. Ingest appends here; the query engine reads here.
 *
 * Times are kept as bigint nanoseconds so that the spec's ±1 ns paging step is exact.
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
  /** Names of every dataset. */
  names(): string[];
  /** Plain JSON for `--data` persistence, and back. */
  toJSON(): unknown;
  load(json: unknown): void;
}
