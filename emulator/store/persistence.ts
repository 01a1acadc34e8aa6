/**
 * `--data FILE`: every change is on disk before the emulator answers the request that made it.
 *
 * Each request's changes become one transaction of the journal (./journal.ts), appended to its current segment
 * and synced (`fdatasync`) before the server sends the reply. Transactions that arrive while a sync is under way
 * share the next one (group commit), so concurrent writers pay for a sync together rather than each in turn.
 * Once the journal outgrows the snapshot (./snapshot.ts), it is compacted: later transactions go to a new segment
 * while the snapshot is written beside them, and the segments it holds are deleted.
 *
 * At start the snapshot is loaded and the segments replayed on top of it (transactions it already holds are
 * skipped by sequence number); a torn last line, a write the emulator was killed before acknowledging, is
 * skipped and counted. Then a fresh snapshot is written, so a restart never appends after a torn write.
 */
import { promises as fsp } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { dirname } from "node:path";
import type { State, StateChange } from "../state";
import type { EventStoreApi } from "./events";
import { encodeEntry, listSegments, readSegment, segmentPath } from "./journal";
import {
  captureSnapshot,
  loadSnapshot,
  removeStaleTemporaries,
  rowFromJson,
  rowToJson,
  syncDirectory,
  writeSnapshot,
  type CapturedSnapshot,
  type RowJson,
} from "./snapshot";

/** The journal is compacted once it holds this many bytes, or more than the snapshot's size if that is larger. */
export const DEFAULT_COMPACT_BYTES = 16 * 1024 * 1024;

/**
 * Syncs under way at once. A second sync can start while the first runs, so a batch that arrives meanwhile is
 * not held for a whole extra sync; more would only queue in the thread pool that the appends need too.
 */
const MAX_SYNCS = 2;

/** Options of {@link Persistence}. */
export interface PersistenceOptions {
  /** Journal bytes after which it is compacted (never before it outgrows the snapshot); default 16 MiB. */
  compactBytes?: number;
  /** Receives a line when a background compaction fails (the journal still holds everything). */
  logger?: (line: string) => void;
}

/** What a start found in the data file. */
export interface RecoveryReport {
  /** Whether a snapshot was loaded. */
  snapshot: boolean;
  /** Journal transactions replayed on top of it. */
  replayed: number;
  /** Torn entries skipped: writes the emulator was killed before acknowledging. */
  skipped: number;
}

/** A journal change that adds events to a dataset; every other change is a {@link StateChange}. */
interface EventsChange {
  events: string;
  rows: RowJson[];
}

/** A journal change that removes a dataset's events: all of them, or (a trim) those before `before` ns. */
interface RemoveEventsChange {
  dropEvents: string;
  before?: string;
}

interface Waiter {
  seq: number;
  resolve(): void;
  reject(err: Error): void;
}

/** The `--data` store of one emulator: snapshot plus journal. */
export class Persistence {
  /** Last transaction sealed (recorded in memory, maybe not yet on disk). */
  private seq = 0;
  /** Last transaction known to be on disk, in the journal or in a snapshot. */
  private syncedSeq = 0;
  /** Last transaction the snapshot on disk holds (0 without one: there is nothing to save until a change). */
  private snapshotSeq = 0;
  private snapshotBytes = 0;
  /** Changes of the transaction in progress. */
  private changes: (StateChange | EventsChange | RemoveEventsChange)[] = [];
  /** Sealed transactions not yet written, as journal lines. */
  private lines: string[] = [];
  private waiters: Waiter[] = [];
  private segment?: FileHandle;
  private gen = 0;
  private segmentBytes = 0;
  private loop?: Promise<void>;
  /** Syncs under way; each settles the waiters of the batches appended before it started. */
  private readonly syncs = new Set<Promise<void>>();
  private compacting?: Promise<void>;
  /** Set when a journal write failed: the segment may end in a partial line, so only a new snapshot will do. */
  private failure?: Error;
  private readonly compactBytes: number;

  constructor(
    readonly file: string,
    private readonly state: State,
    private readonly store: EventStoreApi,
    private readonly options: PersistenceOptions = {},
  ) {
    this.compactBytes = options.compactBytes ?? DEFAULT_COMPACT_BYTES;
  }

  /** Loads the snapshot, replays the journal, and starts journalling every later change. */
  async open(): Promise<RecoveryReport> {
    removeStaleTemporaries(this.file);
    const snapSeq = loadSnapshot(this.file, this.state, this.store);
    let last = snapSeq ?? 0;
    let replayed = 0;
    let skipped = 0;
    const segments = listSegments(this.file);
    for (const seg of segments) {
      try {
        const { entries, tornBytes } = readSegment(seg.path);
        if (tornBytes > 0) skipped++;
        for (const entry of entries) {
          // Already in the snapshot: it was compacted, and the emulator stopped before deleting this segment.
          if (entry.seq <= last) continue;
          for (const change of entry.changes) this.apply(change);
          last = entry.seq;
          replayed++;
        }
      } catch (err) {
        throw new Error(`emulator data file ${this.file} is corrupt: ${(err as Error).message}`);
      }
    }
    this.seq = this.syncedSeq = last;
    this.snapshotSeq = snapSeq ?? 0;
    this.gen = segments.at(-1)?.gen ?? 0;
    try {
      if (segments.length > 0) await this.compactFully(true);
      else await this.rotate();
    } catch (err) {
      throw new Error(`cannot write emulator data file ${this.file}: ${(err as Error).message}`);
    }
    this.state.observe((change) => this.changes.push(change));
    this.store.onAppend = (dataset, rows) =>
      this.changes.push({ events: dataset, rows: rows.map(rowToJson) });
    this.store.onRemove = (dataset, beforeNs) =>
      this.changes.push(
        beforeNs === undefined
          ? { dropEvents: dataset }
          : { dropEvents: dataset, before: beforeNs.toString() },
      );
    return { snapshot: snapSeq !== undefined, replayed, skipped };
  }

  /** Ends the current request's transaction: its changes become one journal line, replayed whole or not at all. */
  seal(): void {
    if (this.changes.length === 0) return;
    this.seq++;
    this.lines.push(encodeEntry({ seq: this.seq, changes: this.changes }));
    this.changes = [];
  }

  /**
   * Seals the transaction in progress, then: undefined when everything recorded so far is on disk, else a promise
   * that resolves once it is (or rejects when it cannot be written).
   */
  durable(): Promise<void> | undefined {
    this.seal();
    if (this.syncedSeq >= this.seq) return undefined;
    return new Promise<void>((resolve, reject) => {
      this.waiters.push({ seq: this.seq, resolve, reject });
      this.loop ??= this.run().finally(() => (this.loop = undefined));
    });
  }

  /** Writes what is left, compacts into the snapshot, and removes the journal: the file alone holds the state. */
  async close(): Promise<void> {
    this.seal();
    while (this.loop) await this.loop;
    await this.idle();
    await this.compacting;
    await this.compactFully(false);
  }

  /**
   * The write loop: appends every sealed transaction as one batch, then starts its sync and goes on to the next
   * batch without waiting, up to {@link MAX_SYNCS} syncs at a time. Appends stay in order, one at a time; a sync
   * started after a batch's append covers that batch and every one before it, whichever sync ends first.
   */
  private async run(): Promise<void> {
    while (this.lines.length > 0 || (this.failure && this.waiters.length > 0)) {
      if (this.failure) {
        try {
          await this.idle();
          await this.compactFully(true);
          this.failure = undefined;
        } catch (err) {
          this.settle(this.seq, err as Error);
          return;
        }
        continue;
      }
      const text = this.lines.join("");
      const upTo = this.seq;
      this.lines = [];
      const segment = this.segment!;
      try {
        await segment.appendFile(text);
      } catch (err) {
        // The segment may now end in part of a line: nothing more is appended to it (see `failure`).
        this.failure = err as Error;
        this.settle(upTo, this.failure);
        continue;
      }
      this.segmentBytes += Buffer.byteLength(text);
      const sync: Promise<void> = segment.datasync().then(
        () => this.settle(upTo),
        (err: Error) => {
          this.failure ??= err;
          this.settle(upTo, err);
        },
      );
      this.syncs.add(sync);
      void sync.finally(() => this.syncs.delete(sync));
      if (this.syncs.size >= MAX_SYNCS) await Promise.race(this.syncs);
      if (
        this.compacting === undefined &&
        this.segmentBytes > Math.max(this.compactBytes, this.snapshotBytes)
      ) {
        await this.idle();
        await this.startCompaction();
      }
    }
  }

  /** Waits for every sync under way: a segment is closed (rotated) only once nothing uses it. */
  private async idle(): Promise<void> {
    while (this.syncs.size > 0) await Promise.allSettled([...this.syncs]);
  }

  /** Resolves (or, given an error, rejects) every waiter for a transaction up to `seq`. */
  private settle(seq: number, err?: Error): void {
    if (!err && seq > this.syncedSeq) this.syncedSeq = seq;
    const done = this.waiters.filter((w) => w.seq <= seq);
    this.waiters = this.waiters.filter((w) => w.seq > seq);
    for (const w of done) {
      if (err) w.reject(err);
      else w.resolve();
    }
  }

  /**
   * Starts a compaction from the write loop, between two appends: captures the state, moves later transactions
   * to a new segment, and leaves the snapshot to be written in the background.
   */
  private async startCompaction(): Promise<void> {
    const upTo = this.seq;
    const captured = captureSnapshot(this.state, this.store, upTo);
    const oldGen = this.gen;
    try {
      await this.rotate();
    } catch (err) {
      // Journalling goes on in the current segment; the next append past the threshold tries again.
      this.options.logger?.(
        `could not start a new journal segment for ${this.file}: ${(err as Error).message}`,
      );
      return;
    }
    this.compacting = this.finishCompaction(captured, upTo, oldGen)
      .catch((err: Error) => {
        this.options.logger?.(
          `could not compact ${this.file} (its journal keeps every change): ${err.message}`,
        );
      })
      .finally(() => (this.compacting = undefined));
  }

  /**
   * Writes a snapshot of everything recorded so far and deletes every segment it makes redundant; with `reopen`,
   * journalling continues in a new segment. Runs only while nothing else writes (start, the write loop, close).
   */
  private async compactFully(reopen: boolean): Promise<void> {
    await this.compacting;
    this.seal();
    const upTo = this.seq;
    if (upTo === this.snapshotSeq && !this.failure) {
      // The snapshot is current: only the (empty or redundant) segments go.
      const oldGen = this.gen;
      if (reopen) await this.rotate();
      else await this.closeSegment();
      await this.dropSegments(oldGen);
      return;
    }
    const captured = captureSnapshot(this.state, this.store, upTo);
    // The snapshot holds them: journalling them as well would only cost a write.
    this.lines = [];
    const oldGen = this.gen;
    if (reopen) await this.rotate();
    else await this.closeSegment();
    await this.finishCompaction(captured, upTo, oldGen);
    this.settle(upTo);
  }

  /** Writes the captured snapshot, then deletes the segments up to `oldGen` that it holds. */
  private async finishCompaction(captured: CapturedSnapshot, upTo: number, oldGen: number): Promise<void> {
    this.snapshotBytes = await writeSnapshot(this.file, captured);
    this.snapshotSeq = upTo;
    await this.dropSegments(oldGen);
  }

  private async dropSegments(upToGen: number): Promise<void> {
    for (const seg of listSegments(this.file)) {
      if (seg.gen <= upToGen) await fsp.rm(seg.path, { force: true });
    }
  }

  /** Continues the journal in a new, empty segment. */
  private async rotate(): Promise<void> {
    const gen = this.gen + 1;
    const fh = await fsp.open(segmentPath(this.file, gen), "a");
    try {
      // The new file's directory entry must survive a crash as surely as what is appended to it.
      await syncDirectory(dirname(this.file));
    } catch (err) {
      await fh.close();
      throw err;
    }
    await this.closeSegment();
    this.segment = fh;
    this.gen = gen;
    this.segmentBytes = 0;
  }

  private async closeSegment(): Promise<void> {
    const fh = this.segment;
    this.segment = undefined;
    await fh?.close().catch(() => undefined);
  }

  /** Applies one journalled change at start-up. */
  private apply(change: unknown): void {
    const c = change as (Partial<EventsChange> & Partial<RemoveEventsChange>) | null;
    if (typeof c === "object" && c !== null && typeof c.dropEvents === "string") {
      if (c.before === undefined) this.store.drop(c.dropEvents);
      else this.store.trim(c.dropEvents, BigInt(c.before));
    } else if (typeof c === "object" && c !== null && typeof c.events === "string") {
      if (!Array.isArray(c.rows)) throw new Error(`an events change for ${c.events} has no rows`);
      this.store.restore(c.events, c.rows.map(rowFromJson));
    } else {
      this.state.apply(change as StateChange);
    }
  }
}
