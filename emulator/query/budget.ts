/**
 * A query's time and memory budgets, and the points where a running query lets the rest of the emulator run.
 *
 * Queries run on the main thread, in slices: after each slice of rows the executor awaits
 * {@link QueryBudget.checkpoint}, which yields to the event loop (other requests, SIGTERM), and stops the query
 * when its budget is spent or the emulator is shutting down. A worker thread was the alternative; it would need the
 * event store, which lives on the main thread and is appended by ingest, copied to it for every query (a
 * structured clone of a million events takes seconds) or moved off the main thread with ingest and persistence.
 * Slicing keeps the store where it is and costs one `setImmediate` per slice (measured in bench/emulator-query.ts).
 */
import { getHeapStatistics } from "node:v8";

/**
 * Work units (rows × compiled syntax-tree nodes) in one slice: a few milliseconds of evaluation. Smaller slices
 * cost the million-row benchmark measurable time in yields (bench/emulator-query.ts --baseline); this size does not.
 */
export const SLICE_WORK = 262_144;

/**
 * The longest a query runs between two yields to the event loop, in ms, whatever its rows cost. Slices are sized
 * in work units, which a row's cost can outgrow (a join's row with thousands of matches, a regex over long text,
 * the garbage collector catching up with a join's output): the time, read every {@link TIME_READ_WORK} units, ends
 * a slice early. 20 ms keeps other requests and monitors' runs answered within a few of them; a yield costs a
 * `setImmediate`, microseconds, so a query pays well under 1% for them.
 */
export const SLICE_MS = 20;
/** Work units between two readings of the time (a reading costs tens of ns; a unit a row, at least). */
const TIME_READ_WORK = 256;

/** How long one query may run, in ms, before it is answered 504; the CLI's `--query-timeout` changes it. */
export const DEFAULT_QUERY_TIMEOUT_MS = 30_000;

/**
 * How many bytes of rows and values one query may build (join's and mv-expand's output rows, make-series' arrays,
 * summarize's and distinct's groups, a union's rows), as {@link QueryBudget.charge} estimates them; the option
 * `memoryBytes` changes it. Ours: the service publishes no per-query memory limit. A gibibyte holds a join of a
 * million events of a dozen fields with a small table (bench/apl-engine.mts), and four such queries fit under
 * Node's default heap limit of about 4 GiB.
 */
export const DEFAULT_QUERY_MEMORY_BYTES = 1024 * 1024 * 1024;

/**
 * The estimated bytes of one row an operator builds: the row and its data object (about 112 bytes in V8) and about
 * 40 bytes for each of its `fields` (a property's slot and descriptor; the values themselves are shared with the
 * rows read, unless an operator made them). Measured on Node 20 with rows of 1 to 11 fields (from 115 + 45 a
 * field down to 115 + 41); wider rows take less per field, so this errs on the side of counting more.
 */
export const rowBytes = (fields: number): number => 112 + 40 * fields;

/**
 * The memory every query running in this process may hold at once, together: half of V8's heap limit, so that
 * queries running side by side (requests and monitor runs) stop with an answer naming the budget well before the
 * process would die of "JavaScript heap out of memory".
 */
export class MemoryPool {
  /** Bytes the queries running now have charged. */
  held = 0;
  constructor(readonly bytes: number) {}
}

/** The process's one pool: every emulator in a process shares its heap. */
export const PROCESS_QUERY_MEMORY = new MemoryPool(Math.floor(getHeapStatistics().heap_size_limit / 2));

/** Why a query stopped before its end: a budget ran out, or the emulator is shutting down. */
export class QueryInterrupted extends Error {
  override readonly name = "QueryInterrupted";
  constructor(
    /** `memory`: past its own memory budget; `busy`: past the memory all running queries share. */
    readonly reason: "timeout" | "shutdown" | "memory" | "busy",
    message: string,
  ) {
    super(message);
  }
}

const MIB = 1024 * 1024;
/** Bytes as the budget's messages give them: MiB, to one decimal below 10. */
const mib = (bytes: number): string => {
  const m = bytes / MIB;
  return `${m < 10 ? Math.round(m * 10) / 10 : Math.round(m)} MiB`;
};

/** Settings of a {@link QueryBudget}. */
export interface QueryBudgetOptions {
  /** How long the query may run, in ms; default {@link DEFAULT_QUERY_TIMEOUT_MS}. */
  timeoutMs?: number;
  /** Monotonic ms the budget reads; default `performance.now`. A test passes a counter to run out deterministically. */
  clock?: () => number;
  /** Aborted when the emulator shuts down: the query stops at its next checkpoint. */
  signal?: AbortSignal;
  /** Awaited at every checkpoint, after the yield (a test seam: it shows the query in progress, or holds it). */
  onSlice?: () => void | Promise<void>;
  /** Bytes of rows and values the query may build; default {@link DEFAULT_QUERY_MEMORY_BYTES}. */
  memoryBytes?: number;
  /** The memory shared with the other queries running; default {@link PROCESS_QUERY_MEMORY}. */
  pool?: MemoryPool;
  /**
   * Monotonic ms that end a slice on time ({@link SLICE_MS}); default `performance.now`. A test passes a counter to
   * make every reading late.
   */
  sliceClock?: () => number;
}

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** One query's budget: created when the query starts, consulted at each checkpoint. */
export class QueryBudget {
  readonly timeoutMs: number;
  readonly memoryBytes: number;
  /** Bytes charged so far (see {@link QueryBudget.charge}); given back to the pool by {@link QueryBudget.release}. */
  held = 0;
  /** Nested runs of the engine under way on this budget (sub-queries share it); the outermost releases it. */
  depth = 0;
  private readonly pool: MemoryPool;
  /** Slices ended on time ({@link QueryBudget.pause}), besides the checkpoints. */
  pauses = 0;
  private readonly sliceClock: () => number;
  /** When the slice under way began, and work done since the time was last read. */
  private sliceStartedAt: number;
  private unread = 0;
  private readonly clock: () => number;
  private readonly startedAt: number;
  /** Checkpoints passed so far (tests assert that long scans pass some). */
  checkpoints = 0;
  /** Rows per slice, set from the compiled plan's size by {@link QueryBudget.sizeSlices}. */
  rowsPerSlice = SLICE_WORK;

  constructor(private readonly options: QueryBudgetOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
    this.memoryBytes = options.memoryBytes ?? DEFAULT_QUERY_MEMORY_BYTES;
    this.pool = options.pool ?? PROCESS_QUERY_MEMORY;
    this.sliceClock = options.sliceClock ?? (() => performance.now());
    this.sliceStartedAt = this.sliceClock();
    this.clock = options.clock ?? (() => performance.now());
    this.startedAt = this.clock();
  }

  /** Sizes slices for a plan whose per-row work is about `nodes` compiled nodes. */
  sizeSlices(nodes: number): void {
    this.rowsPerSlice = Math.max(16, Math.floor(SLICE_WORK / Math.max(1, nodes)));
  }

  /** Throws {@link QueryInterrupted} when the emulator is shutting down or the budget is spent. */
  check(): void {
    if (this.options.signal?.aborted) {
      throw new QueryInterrupted("shutdown", "the emulator is shutting down; the query was stopped");
    }
    if (this.clock() - this.startedAt > this.timeoutMs) {
      throw new QueryInterrupted(
        "timeout",
        `query exceeded the emulator's time budget of ${this.timeoutMs} ms and was stopped; narrow its time range or filter`,
      );
    }
  }

  /**
   * Counts `bytes` an operator is about to build (`what` names it, for the message) against the query's memory
   * budget and the pool's. Checked at once, not at the next checkpoint: a join's output grows inside a slice.
   */
  charge(bytes: number, what: string): void {
    this.held += bytes;
    this.pool.held += bytes;
    if (this.held > this.memoryBytes) {
      throw new QueryInterrupted(
        "memory",
        `query exceeded the emulator's memory budget of ${mib(this.memoryBytes)} (${what} built more than that) ` +
          "and was stopped; narrow its time range, filter or summarize before the join, mv-expand or make-series",
      );
    }
    if (this.pool.held > this.pool.bytes) {
      throw new QueryInterrupted(
        "busy",
        `the queries running at once hold the emulator's shared query memory of ${mib(this.pool.bytes)} ` +
          `(this one ${mib(this.held)}, at ${what}); it was stopped, try again when fewer queries run`,
      );
    }
  }

  /**
   * The bytes this query could still charge before either its own budget or the shared pool ran out: for memory a
   * query may use but need not (the engine's column cache), taken only when it fits, so the answer never changes.
   */
  room(): number {
    return Math.max(0, Math.min(this.memoryBytes - this.held, this.pool.bytes - this.pool.held));
  }

  /** {@link QueryBudget.charge} for `rows` rows of `fields` fields each (see {@link rowBytes}). */
  chargeRows(rows: number, fields: number, what: string): void {
    if (rows > 0) this.charge(rows * rowBytes(fields), what);
  }

  /** Gives what the query charged back to the pool: its rows are the caller's now, or garbage. Idempotent. */
  release(): void {
    this.pool.held -= this.held;
    this.held = 0;
  }

  /**
   * Whether the slice under way has run {@link SLICE_MS}: `work` units are added (a row, or a row and the rows it
   * made), and the time is read once they pass {@link TIME_READ_WORK}. A loop that hears yes awaits
   * {@link QueryBudget.pause}.
   */
  overdue(work = 1): boolean {
    this.unread += work;
    if (this.unread < TIME_READ_WORK) return false;
    this.unread = 0;
    return this.sliceClock() - this.sliceStartedAt > SLICE_MS;
  }

  /**
   * Ends a slice early, on time alone: lets the event loop run, without counting a checkpoint nor checking the
   * budget (the next checkpoint does), so that a query's checkpoints and its answer stay the same on a busy
   * machine as on an idle one.
   */
  async pause(): Promise<void> {
    this.pauses++;
    await yieldToLoop();
    this.sliceStartedAt = this.sliceClock();
  }

  /** Between slices: lets the event loop run, then stops the query if it must stop. */
  async checkpoint(): Promise<void> {
    this.checkpoints++;
    await yieldToLoop();
    this.sliceStartedAt = this.sliceClock();
    await this.options.onSlice?.();
    this.check();
  }

  /** `fn` on each of `items`, a slice at a time. */
  async each<T>(items: readonly T[], fn: (item: T, index: number) => void): Promise<void> {
    for (let at = 0; at < items.length; at += this.rowsPerSlice) {
      const end = Math.min(items.length, at + this.rowsPerSlice);
      for (let i = at; i < end; i++) {
        fn(items[i], i);
        if (this.overdue()) await this.pause();
      }
      if (end < items.length) await this.checkpoint();
    }
  }

  /** `items.filter(pred)`, a slice at a time. */
  async filter<T>(items: readonly T[], pred: (item: T) => boolean): Promise<T[]> {
    const out: T[] = [];
    await this.each(items, (item) => {
      if (pred(item)) out.push(item);
    });
    return out;
  }

  /** `items.map(fn)`, a slice at a time. */
  async map<T, U>(items: readonly T[], fn: (item: T, index: number) => U): Promise<U[]> {
    const out = new Array<U>(items.length);
    await this.each(items, (item, i) => (out[i] = fn(item, i)));
    return out;
  }

  /**
   * A stable sort, a slice at a time: runs of one slice are sorted natively, then merged pairwise with a
   * checkpoint every slice of comparisons, so sorting a million rows never holds the event loop for long.
   */
  async sort<T>(items: readonly T[], compare: (a: T, b: T) => number): Promise<T[]> {
    const run = Math.max(1024, this.rowsPerSlice);
    let src: T[] = [];
    for (let at = 0; at < items.length; at += run) {
      for (const item of items.slice(at, at + run).sort(compare)) src.push(item);
      if (at + run < items.length) await this.checkpoint();
    }
    let dst = new Array<T>(src.length);
    let work = 0;
    for (let width = run; width < src.length; width *= 2) {
      for (let lo = 0; lo < src.length; lo += 2 * width) {
        const mid = Math.min(lo + width, src.length);
        const hi = Math.min(lo + 2 * width, src.length);
        let i = lo;
        let j = mid;
        let k = lo;
        while (i < mid && j < hi) {
          dst[k++] = compare(src[j], src[i]) < 0 ? src[j++] : src[i++];
          if (++work >= this.rowsPerSlice) {
            work = 0;
            await this.checkpoint();
          } else if (this.overdue()) await this.pause();
        }
        while (i < mid) dst[k++] = src[i++];
        while (j < hi) dst[k++] = src[j++];
      }
      [src, dst] = [dst, src];
    }
    return src;
  }
}
