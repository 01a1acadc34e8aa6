/**
 * Typed columns of a dataset's sorted events, and the plan's closures turned into tables over them: what the
 * engine's columnar summarize (engine.ts `summarizeColumns`) reads instead of the event objects. A scan that touches
 * millions of events spends most of its time fetching each scattered object and its fields; a few typed arrays
 * read in order cost a fraction of that.
 *
 * The cache lives here, beside the engine that reads it, not in the store: the store only says when a rows array
 * changed (emulator/store/events.ts `rowsVersion`), and the columns are the engine's business. It is keyed by the
 * rows array itself (the one `EventStore.events` answers), so a query always reads columns of the very array it
 * scans. It is never stale: a column covers a prefix of the array and is used only while the array's version is
 * the one it was built at; an append in time order keeps the version and the column is extended by the new rows; any
 * other change (a late batch and its sort, a restore, a load, a trim, a drop) bumps the version and the column is
 * built again when next needed. Arrays the store never held (a test's own list) have no version and no columns.
 *
 * What is kept, per dataset:
 * - the time as a Float64Array of whole milliseconds, floored (exact: milliseconds since 1970 stay far below 2^53,
 *   nanoseconds do not). That is all a `bin(_time, w)` of whole milliseconds needs, since flooring twice is
 *   flooring once: floor(floor(ns / 10^6) / w) = floor(ns / (10^6 w)). The time range itself is found on the
 *   events' bigint times (a binary search), so the nanoseconds within a millisecond are not kept;
 * - per field a query reads, a dictionary column: each event's value as a 16-bit code into the field's distinct
 *   values (strings, numbers, booleans, null; code 0 is "absent"), so long as there are at most
 *   {@link DICTIONARY_MAX} of them. Past that, a field of numbers (and nulls) becomes a numbers column (a
 *   Float64Array and a tag per event: absent, null or number); a field that holds anything else (objects, arrays,
 *   or too many distinct strings) is opaque, and a query that reads it takes the row path.
 *
 * A closure of the plan (a `where`, an aggregation's argument, a group key) is used only as a table: it is called
 * once for every combination of the distinct values of the fields it reads, on a probe row that answers those
 * fields and notes every other thing the closure looks at (another field, `_time`, the row's keys). Since the
 * closure sees nothing else, its answer for an event is the table's entry for that event's values: the row path's
 * own semantics, whatever the expression, with no second implementation of comparisons to keep in step. A closure
 * that looks at anything else, calls `rand()`, throws or answers an object cannot be tabled, and its query takes
 * the row path. A numbers column has too many values to table; it serves only an aggregation whose argument is the
 * field itself (sum(ms), max(ms)), which is handed the value as the row path would read it.
 *
 * Memory: every column of every dataset together stays under {@link COLUMN_CACHE_BYTES}; past it, the columns used
 * least recently go first, and a query whose columns cannot fit takes the row path. Building a column also needs
 * room in the query's own memory budget and the pool of running queries (budget.ts `room`): a query is never
 * stopped for memory it could have done without. Once built, a column belongs to the cache, not to the query.
 */
import { getHeapStatistics } from "node:v8";
import type { Row } from "../apl/compile";
import { rowsVersion, watchAppendsInOrder, type StoredEvent } from "../store/events";
import { floorMs } from "../time";
import type { QueryBudget } from "./budget";

/** Distinct values a dictionary column holds at most: its codes are 16-bit, code 0 standing for "absent". */
export const DICTIONARY_MAX = 65_535;

/** The limit in force: {@link DICTIONARY_MAX}, lower in tests of the numbers column (setDictionaryLimit). */
let dictionaryLimit = DICTIONARY_MAX;

/**
 * Lowers (or restores) the number of distinct values a dictionary column holds, and empties the cache; answers the
 * limit before. For tests: a numbers column otherwise needs 65,536 distinct values.
 */
export function setDictionaryLimit(limit: number): number {
  const before = dictionaryLimit;
  dictionaryLimit = Math.min(DICTIONARY_MAX, limit);
  for (const d of live) {
    d.columns.clear();
    const rows = d.rows.deref();
    if (rows !== undefined) datasets.delete(rows);
  }
  live.clear();
  cachedBytes = 0;
  return before;
}

/**
 * The bytes every cached column may take together: an eighth of V8's heap limit, at most 512 MiB. The columns are
 * typed arrays, outside V8's heap but inside the process's memory; an eighth leaves the pool of running queries
 * (half the heap limit, budget.ts) and the stored events themselves their room. At 2 bytes an event for a
 * dictionary column and 8 for the time, 5,000,000 events with three fields read take 70 MB. A dataset with
 * hundreds of fields builds only the fields its queries read, and the least recently used go first.
 */
export const COLUMN_CACHE_BYTES = Math.min(
  512 * 1024 * 1024,
  Math.floor(getHeapStatistics().heap_size_limit / 8),
);

/** The cap in force: {@link COLUMN_CACHE_BYTES}, lower in tests of eviction (setColumnCacheLimit). */
let cacheLimit = COLUMN_CACHE_BYTES;

/** Sets the cache's cap (for tests; it applies from the next build on) and answers the one before. */
export function setColumnCacheLimit(bytes: number): number {
  const before = cacheLimit;
  cacheLimit = bytes;
  return before;
}

/** A field's distinct values, each event's as a code; values[0] is undefined (absent, or an own undefined). */
export interface DictionaryColumn {
  kind: "dictionary";
  codes: Uint16Array;
  values: unknown[];
}

/** Tags of a numbers column. */
export const ABSENT = 0;
export const NULL = 1;
export const NUMBER = 2;

/** A field of many distinct numbers: the value when the tag says NUMBER. */
export interface NumbersColumn {
  kind: "numbers";
  nums: Float64Array;
  tags: Uint8Array;
}

export type FieldColumn = DictionaryColumn | NumbersColumn;

/** A column while it is built, and once it is: its events [0, built) are done. */
interface ColumnState {
  built: number;
  bytes: number;
  lastUsed: number;
  /** The time: floored milliseconds, and whether some event's data has its own `_time` (the row path's generic step). */
  ms?: Float64Array;
  timeShadowed?: boolean;
  field?: FieldColumn;
  /** A dictionary's index of its values (-0 apart, which a Map puts with 0). */
  index?: Map<unknown, number>;
  negativeZero?: number;
  opaque?: boolean;
}

interface DatasetColumns {
  rows: WeakRef<readonly StoredEvent[]>;
  version: number;
  /** By field name; "" is the time. */
  columns: Map<string, ColumnState>;
}

const TIME = "";
const hasOwn = Object.prototype.hasOwnProperty;

const datasets = new WeakMap<readonly StoredEvent[], DatasetColumns>();
/** Every dataset's columns, to count and evict across datasets (the WeakMap cannot be walked). */
const live = new Set<DatasetColumns>();
let cachedBytes = 0;
let tick = 0;

/** Drops the columns of arrays that changed or are gone: they can never be read again. */
function sweep(): void {
  for (const d of live) {
    const rows = d.rows.deref();
    if (rows === undefined || rowsVersion(rows) !== d.version) {
      for (const c of d.columns.values()) cachedBytes -= c.bytes;
      d.columns.clear();
      live.delete(d);
      if (rows !== undefined) datasets.delete(rows);
    }
  }
}

/** A new entry of the cache for `rows` at `version`, with no column yet. */
function datasetColumns(rows: readonly StoredEvent[], version: number): DatasetColumns {
  const d: DatasetColumns = { rows: new WeakRef(rows), version, columns: new Map() };
  datasets.set(rows, d);
  live.add(d);
  return d;
}

/** Frees the least recently used columns not in `keep` until `bytes` more fit; false when they cannot. */
function makeRoom(bytes: number, keep: ReadonlySet<ColumnState>): boolean {
  while (cachedBytes + bytes > cacheLimit) {
    let oldest: { d: DatasetColumns; name: string; c: ColumnState } | undefined;
    for (const d of live) {
      for (const [name, c] of d.columns) {
        if (!keep.has(c) && (oldest === undefined || c.lastUsed < oldest.c.lastUsed)) oldest = { d, name, c };
      }
    }
    if (oldest === undefined) return false;
    oldest.d.columns.delete(oldest.name);
    cachedBytes -= oldest.c.bytes;
  }
  return true;
}

/** The bytes a column of `n` events takes in the state it is in (the time's room for more too). */
function bytesOf(c: ColumnState, n: number): number {
  if (c.ms !== undefined) return 8 * c.ms.length;
  if (c.field?.kind === "numbers") return 9 * n;
  if (c.field?.kind === "dictionary") return 2 * n + 64 * c.field.values.length;
  return 64;
}

/** Events a build step does between two looks at the budget. */
const BUILD_CHUNK = 4096;

/** Columns of one rows array, ready for one query: whatever `need` names, built or extended to the array's end. */
export interface Columns {
  length: number;
  ms: Float64Array;
  timeShadowed: boolean;
  field(name: string): FieldColumn | undefined;
}

/** Fills `c` from events [c.built, to) of the time column. */
function buildTime(c: ColumnState, rows: readonly StoredEvent[], to: number): void {
  const ms = c.ms!;
  let shadowed = c.timeShadowed ?? false;
  for (let i = c.built; i < to; i++) {
    const ev = rows[i];
    ms[i] = floorMs(ev.timeNs);
    if (!shadowed && hasOwn.call(ev.data, "_time")) shadowed = true;
  }
  c.timeShadowed = shadowed;
  c.built = to;
}

/** A dictionary column turned into a numbers column, when every value it holds is a number or null. */
function toNumbers(d: DictionaryColumn, built: number, capacity: number): NumbersColumn | undefined {
  const nums = new Float64Array(capacity);
  const tags = new Uint8Array(capacity);
  const { codes, values } = d;
  const tagOf = new Uint8Array(values.length);
  for (let k = 1; k < values.length; k++) {
    const v = values[k];
    if (v === null) tagOf[k] = NULL;
    else if (typeof v === "number") tagOf[k] = NUMBER;
    else return undefined;
  }
  for (let i = 0; i < built; i++) {
    const k = codes[i];
    tags[i] = tagOf[k];
    if (tagOf[k] === NUMBER) nums[i] = values[k] as number;
  }
  return { kind: "numbers", nums, tags };
}

/** Fills `c` from events [c.built, to) of field `name`; marks it opaque when a value cannot be kept. */
function buildField(
  c: ColumnState,
  name: string,
  rows: readonly StoredEvent[],
  to: number,
  capacity: number,
): void {
  let i = c.built;
  let f = c.field!;
  if (f.kind === "dictionary") {
    const { codes, values } = f;
    const index = c.index!;
    let last: unknown = undefined;
    let lastCode = 0;
    for (; i < to; i++) {
      const d = rows[i].data;
      const v = hasOwn.call(d, name) ? d[name] : undefined;
      if (v === undefined) {
        codes[i] = 0;
        continue;
      }
      // Consecutive events often share a value; -0 is told from 0 (a Map and === put them together).
      if (v === last && (v !== 0 || Object.is(v, last))) {
        codes[i] = lastCode;
        continue;
      }
      const t = typeof v;
      if (v !== null && t !== "string" && t !== "number" && t !== "boolean") {
        c.opaque = true;
        return;
      }
      let code: number | undefined;
      if (v === 0 && Object.is(v, -0)) {
        code = c.negativeZero;
        if (code === undefined) c.negativeZero = code = values.push(v) - 1;
      } else {
        code = index.get(v);
        if (code === undefined) {
          code = values.push(v) - 1;
          index.set(v, code);
        }
      }
      if (code > dictionaryLimit) {
        const numbers = toNumbers(f, i, capacity);
        if (numbers === undefined) {
          c.opaque = true;
          return;
        }
        f = c.field = numbers;
        c.index = undefined;
        break;
      }
      codes[i] = code;
      last = v;
      lastCode = code;
    }
  }
  if (f.kind === "numbers") {
    const { nums, tags } = f;
    for (; i < to; i++) {
      const d = rows[i].data;
      const v = hasOwn.call(d, name) ? d[name] : undefined;
      if (v === undefined) tags[i] = ABSENT;
      else if (v === null) tags[i] = NULL;
      else if (typeof v === "number") {
        tags[i] = NUMBER;
        nums[i] = v;
      } else {
        c.opaque = true;
        return;
      }
    }
  }
  c.built = to;
}

/** A state for events [0, capacity), copying what `from` built (an extension), or a new one. */
function grown(from: ColumnState | undefined, time: boolean, capacity: number): ColumnState {
  if (time) {
    // A time kept as events arrive has room past its end: it is shared, as only rows past `built` are written.
    if (from?.ms !== undefined && from.ms.length >= capacity) {
      return {
        built: from.built,
        bytes: 0,
        lastUsed: 0,
        ms: from.ms,
        timeShadowed: from.timeShadowed ?? false,
      };
    }
    const ms = new Float64Array(capacity);
    if (from?.ms) ms.set(from.ms.subarray(0, from.built));
    return { built: from?.built ?? 0, bytes: 0, lastUsed: 0, ms, timeShadowed: from?.timeShadowed ?? false };
  }
  const f = from?.field;
  if (f === undefined) {
    return {
      built: 0,
      bytes: 0,
      lastUsed: 0,
      field: { kind: "dictionary", codes: new Uint16Array(capacity), values: [undefined] },
      index: new Map(),
    };
  }
  const built = from!.built;
  if (f.kind === "dictionary") {
    const codes = new Uint16Array(capacity);
    codes.set(f.codes.subarray(0, built));
    // The values and their index are shared with the older state: codes it holds keep their meaning.
    return {
      built,
      bytes: 0,
      lastUsed: 0,
      field: { kind: "dictionary", codes, values: f.values },
      index: from!.index,
      negativeZero: from!.negativeZero,
    };
  }
  const nums = new Float64Array(capacity);
  const tags = new Uint8Array(capacity);
  nums.set(f.nums.subarray(0, built));
  tags.set(f.tags.subarray(0, built));
  return { built, bytes: 0, lastUsed: 0, field: { kind: "numbers", nums, tags } };
}

/**
 * A dataset of at least this many events keeps its time column as events arrive in time order: every columnar
 * query reads the time, and an event's time is a bigint object of its own, which reading again later, from all
 * over the heap, costs far more (a month of 5,000,000 events: about half a second) than reading it now, as it is
 * stored. Smaller datasets are read by rows (engine.ts COLUMNAR_MIN_ROWS) and keep no column until a query asks.
 */
export const TIME_ON_APPEND_MIN_ROWS = 8192;

/**
 * Rows of time an append builds at most besides its own: a column dropped (evicted, or never built after a load)
 * with millions of rows behind it is left to the next query, whose build pauses for other requests, where an
 * append would hold the server.
 */
const TIME_ON_APPEND_BACKLOG = 1 << 17;

/** Extends (or starts) the time column of `rows` by the rows appended from `from` on (watchAppendsInOrder). */
function timeOnAppend(rows: readonly StoredEvent[], from: number): void {
  const n = rows.length;
  const version = rowsVersion(rows);
  if (n < TIME_ON_APPEND_MIN_ROWS || version === undefined) return;
  sweep();
  let d = datasets.get(rows);
  const c = d?.columns.get(TIME);
  const built = c?.built ?? 0;
  if (from - built > TIME_ON_APPEND_BACKLOG) return;
  d ??= datasetColumns(rows, version);
  let next = c;
  if (c?.ms === undefined || c.ms.length < n) {
    // Room for half as many again: appends of a few thousand rows each copy the column a few dozen times in all,
    // not once each.
    const capacity = Math.max(n, Math.ceil(1.5 * (c?.ms?.length ?? 0)), 2 * TIME_ON_APPEND_MIN_ROWS);
    const bytes = 8 * capacity;
    if (!makeRoom(bytes - (c?.bytes ?? 0), new Set(c === undefined ? [] : [c]))) return;
    next = { ...grown(c, true, capacity), bytes, lastUsed: c?.lastUsed ?? tick };
    cachedBytes += bytes - (c?.bytes ?? 0);
    d.columns.set(TIME, next);
  }
  buildTime(next!, rows, n);
}

watchAppendsInOrder(timeOnAppend);

/**
 * The columns `need` names ("" for the time) over all of `rows`, built or extended as needed, a chunk of events at
 * a time with the budget's pauses and checkpoints (building is work of the query); undefined when they cannot be:
 * an array the store does not hold, a field that is opaque, no room in the cache or the query's budget, or the
 * array changed while they were built (the row path then reads it as it is now).
 */
export async function columnsFor(
  rows: readonly StoredEvent[],
  need: readonly string[],
  budget: QueryBudget,
): Promise<Columns | undefined> {
  const version = rowsVersion(rows);
  if (version === undefined) return undefined;
  sweep();
  const d = datasets.get(rows) ?? datasetColumns(rows, version);
  const n = rows.length;
  const now = ++tick;
  const ready = new Map<string, ColumnState>();
  const building: { name: string; before: ColumnState | undefined; next?: ColumnState }[] = [];
  let bytes = 0;
  for (const name of need) {
    const c = d.columns.get(name);
    if (c?.opaque) return undefined;
    if (c !== undefined && c.built >= n) {
      c.lastUsed = now;
      ready.set(name, c);
      continue;
    }
    // Room for the whole column as it will be at worst: a field's dictionary may turn into a numbers column.
    bytes += name === TIME ? 8 * n : 9 * n + 64 * DICTIONARY_MAX;
    building.push({ name, before: c });
  }
  if (building.length === 0) return columnsOf(n, ready);
  if (bytes > budget.room() || !makeRoom(bytes, new Set(ready.values()))) return undefined;
  let from = n;
  for (const b of building) {
    b.next = grown(b.before, b.name === TIME, n);
    from = Math.min(from, b.next.built);
  }
  // One pass over the events for all the columns built: each chunk's events are read by every column while they
  // are still in the processor's cache.
  const chunk = Math.max(16, Math.min(BUILD_CHUNK, budget.rowsPerSlice));
  let sliceWork = 0;
  let opaque = false;
  while (from < n && !opaque) {
    const to = Math.min(n, from + chunk);
    for (const b of building) {
      const next = b.next!;
      if (next.built >= to || next.opaque) continue;
      if (b.name === TIME) buildTime(next, rows, to);
      else buildField(next, b.name, rows, to, n);
      if (next.opaque) opaque = true;
    }
    const work = (to - from) * building.length;
    from = to;
    sliceWork += work;
    if (budget.overdue(work)) await budget.pause();
    if (sliceWork >= budget.rowsPerSlice && from < n) {
      sliceWork = 0;
      await budget.checkpoint();
    }
    // Appends in time order while it yielded only add rows past `n`; anything else and the work is void.
    if (rowsVersion(rows) !== version) return undefined;
  }
  for (const { name, before, next } of building) {
    // Kept unless another query put a newer state there meanwhile; an opaque one too, so it is not built again.
    if (!next!.opaque && next!.built < n) continue;
    if (d.columns.get(name) === before || !d.columns.has(name)) {
      const old = d.columns.get(name);
      if (old !== undefined) cachedBytes -= old.bytes;
      next!.bytes = bytesOf(next!, n);
      cachedBytes += next!.bytes;
      d.columns.set(name, next!);
      if (!live.has(d)) live.add(d);
    }
    next!.lastUsed = now;
    ready.set(name, next!);
  }
  if (opaque) return undefined;
  return columnsOf(n, ready);
}

/** What a query reads of the columns made ready for it. */
function columnsOf(n: number, ready: ReadonlyMap<string, ColumnState>): Columns {
  const time = ready.get(TIME);
  return {
    length: n,
    ms: time?.ms ?? new Float64Array(0),
    timeShadowed: time?.timeShadowed ?? false,
    field: (name) => ready.get(name)?.field,
  };
}

/** Bytes the cache holds now (for tests). */
export function columnCacheBytes(): number {
  sweep();
  return cachedBytes;
}

/** Whether `rows` has a column of `name` ("" for the time) cached now, built to its end (for tests). */
export function hasColumn(rows: readonly StoredEvent[], name: string): boolean {
  sweep();
  const c = datasets.get(rows)?.columns.get(name);
  return (
    c !== undefined &&
    !c.opaque &&
    c.built === rows.length &&
    rowsVersion(rows) === datasets.get(rows)?.version
  );
}

/** Why a closure could not be tabled, or the fields it reads that are not columns yet. */
/**
 * A closure tabled: the fields it reads, each one's number of values when it was tabled (`sizes`: the table's
 * layout, which a column extended afterwards, by an append and another query, must not change), and its answers.
 */
export type Tabling =
  { ok: true; fields: string[]; sizes: number[]; out: unknown[] } | { ok: false; need?: string[] };

/**
 * A row for tabling: its data answers the fields named with the values set, notes any other field read in `extra`,
 * and anything else it is asked (its keys, its prototype, the row's time or id, a write) makes it `opaque`.
 */
class Probe {
  readonly names: string[] = [];
  readonly values: unknown[] = [];
  readonly extra = new Set<string>();
  opaque = false;
  readonly row: Row;
  constructor() {
    const lookup = (key: string | symbol): number => {
      if (typeof key !== "string") {
        this.opaque = true;
        return -1;
      }
      const at = this.names.indexOf(key);
      if (at < 0) this.extra.add(key);
      return at;
    };
    const refuse = (): never => {
      this.opaque = true;
      throw new TypeError("probe");
    };
    const data = new Proxy<Record<string, unknown>>(
      {},
      {
        get: (_t, key) => {
          const at = lookup(key);
          return at < 0 ? undefined : this.values[at];
        },
        has: (_t, key) => {
          const at = lookup(key);
          return at >= 0 && this.values[at] !== undefined;
        },
        getOwnPropertyDescriptor: (_t, key) => {
          const at = lookup(key);
          if (at < 0 || this.values[at] === undefined) return undefined;
          return { value: this.values[at], writable: true, enumerable: true, configurable: true };
        },
        ownKeys: refuse,
        getPrototypeOf: () => {
          this.opaque = true;
          return Object.prototype;
        },
        set: refuse,
        defineProperty: refuse,
        deleteProperty: refuse,
        setPrototypeOf: refuse,
        preventExtensions: refuse,
      },
    );
    this.row = new Proxy<Row>({ data: {} } as Row, {
      get: (_t, key) => {
        if (key === "data") return data;
        this.opaque = true;
        return undefined;
      },
      has: () => {
        this.opaque = true;
        return false;
      },
      ownKeys: refuse,
      getOwnPropertyDescriptor: refuse,
      getPrototypeOf: () => {
        this.opaque = true;
        return Object.prototype;
      },
      set: refuse,
      defineProperty: refuse,
      deleteProperty: refuse,
    });
  }
}

/** Whether a closure's answer can be shared between the events that gave it (no object another row could see). */
const shareable = (v: unknown): boolean => v === null || typeof v !== "object";

/**
 * `fn` as a table over the dictionaries of the fields it reads: `out[Σ code_f × stride_f]`, the fields in the
 * order answered, each stride the product of the later fields' dictionary sizes. At most `maxCells` entries.
 */
export function tabulate(
  fn: (row: Row) => unknown,
  column: (name: string) => FieldColumn | undefined,
  maxCells: number,
): Tabling {
  const probe = new Probe();
  const random = Math.random;
  let randomCalled = false;
  Math.random = () => {
    randomCalled = true;
    return random();
  };
  try {
    for (;;) {
      const dicts: DictionaryColumn[] = [];
      const missing: string[] = [];
      for (const name of probe.names) {
        const c = column(name);
        if (c === undefined) missing.push(name);
        else if (c.kind !== "dictionary") return { ok: false };
        else dicts.push(c);
      }
      if (missing.length > 0) return { ok: false, need: missing };
      let cells = 1;
      for (const c of dicts) cells *= c.values.length;
      if (cells > maxCells) return { ok: false };
      const sizes = dicts.map((c) => c.values.length);
      const out = new Array<unknown>(cells);
      let grew = false;
      for (let cell = 0; cell < cells; cell++) {
        for (let f = dicts.length - 1, rest = cell; f >= 0; f--) {
          probe.values[f] = dicts[f].values[rest % sizes[f]];
          rest = Math.floor(rest / sizes[f]);
        }
        let v: unknown;
        try {
          v = fn(probe.row);
        } catch {
          return { ok: false };
        }
        if (probe.opaque || randomCalled || !shareable(v)) return { ok: false };
        if (probe.extra.size > 0) {
          // A field it had not read before: table it too, from the start.
          for (const name of probe.extra) {
            probe.names.push(name);
            probe.values.push(undefined);
          }
          probe.extra.clear();
          grew = true;
          break;
        }
        out[cell] = v;
      }
      if (!grew) return { ok: true, fields: [...probe.names], sizes, out };
    }
  } finally {
    Math.random = random;
  }
}

/**
 * Whether `fn` reads field `name` and answers it as it is, as a field's getter does: checked on a value no other
 * closure could make (an object of its own), on absence, null and a few numbers. Only for an aggregation whose
 * argument the syntax tree says is that field (PlanAggregation.fields): what rules out a constant or a `let`.
 */
export function readsField(fn: (row: Row) => unknown, name: string): boolean {
  const probe = new Probe();
  probe.names.push(name);
  probe.values.push(undefined);
  const own = {};
  for (const v of [own, undefined, null, 0, -0, 1.5, NaN, -7e300]) {
    probe.values[0] = v;
    let got: unknown;
    try {
      got = fn(probe.row);
    } catch {
      return false;
    }
    if (probe.opaque || probe.extra.size > 0 || !Object.is(got, v)) return false;
  }
  return true;
}
