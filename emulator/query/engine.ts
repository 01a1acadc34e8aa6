/**
 * Runs a plan over one dataset's time-sorted events. Rows stay a lazy index range over the stored array
 * for as long as the pipeline allows (where, sort by _time), so the common paging query is one pass from
 * one end that stops collecting at the limit; anything else materializes and falls back to real work.
 */
import type { GroupColumns } from "../apl/aggregations";
import type { Column, Plan, PlanAggregation, PlanOp, Predicate, Row, RunEnv, Table } from "../apl/compile";
import { DateTime, Timespan, sortCompare } from "../apl/values";
import type { StoredEvent } from "../store/events";
import { QueryBudget, rowBytes } from "./budget";
import { NULL, NUMBER, columnsFor, hasColumn, readsField, tabulate, type DictionaryColumn } from "./columns";

/** Time range, cursor and page limit of one query. Both time bounds are inclusive. */
export interface ExecOptions {
  startNs?: bigint;
  endNs?: bigint;
  /** Row id to page from; direction follows the query's first `sort by _time` (descending by default). */
  cursor?: string;
  includeCursor?: boolean;
  /** The effective page limit, already the lowest of the query's, the request's and the server's. */
  pageLimit: number;
  /** Time budget and slicing; an unbounded budget (default timeout, no shutdown signal) when not given. */
  budget?: QueryBudget;
  /** Events of the other datasets a query reads (union, join, lookup); none when not given. */
  datasetEvents?: (name: string) => readonly StoredEvent[] | undefined;
  /** Names of every dataset, for union's wildcards. */
  datasetNames?: () => string[];
}

/** A dataset a sub-query reads and the store does not hold. */
export class UnknownDatasetError extends Error {
  override readonly name = "UnknownDatasetError";
  constructor(readonly dataset: string) {
    super(`dataset "${dataset}" not found`);
  }
}

/** The aggregations of a summarize, kept for the legacy format's buckets. */
export interface Summary {
  by: string[];
  aggs: { name: string; fn: string; fields: string[]; args: unknown[] }[];
}

/**
 * Rows held as columns: `values[j][i]` is what `rows[i].data[names[j]]` would hold, each name once. A summarize's
 * groups are answered this way when nothing after it but a limit reads them: a backtest's query answers a million
 * groups, and a row object and a data object each would be made only to be read back into columns.
 */
export interface ColumnTable {
  names: readonly string[];
  values: readonly (readonly unknown[])[];
  length: number;
}

/** The rows of a {@link ColumnTable}: each a data object of its cells, with no time or row id. */
export function tableRows(table: ColumnTable): Row[] {
  const { names, values } = table;
  const rows = new Array<Row>(table.length);
  for (let i = 0; i < table.length; i++) {
    const data: Record<string, unknown> = {};
    for (let j = 0; j < names.length; j++) data[names[j]] = values[j][i];
    rows[i] = { data };
  }
  return rows;
}

/**
 * Gives `result` its table, and rows made from it when first read ({@link ExecResult.rows}). Rows set afterwards
 * replace the table: the two never disagree.
 */
function rowsFromTable(result: ExecResult, table: ColumnTable): void {
  let made: Row[] | undefined;
  result.table = table;
  Object.defineProperty(result, "rows", {
    configurable: true,
    enumerable: true,
    get: () => (made ??= tableRows(table)),
    set: (rows: Row[]) => {
      made = rows;
      delete result.table;
    },
  });
}

/** Whether a summarize answers a {@link ColumnTable} where it can: always, but in a test holding it to rows. */
let summarizeTables = true;

/** Turns {@link ColumnTable} answers on or off (for tests comparing them to rows); answers the setting before. */
export function setSummarizeTables(on: boolean): boolean {
  const before = summarizeTables;
  summarizeTables = on;
  return before;
}

/** The first `n` rows of a table. */
function tableHead(table: ColumnTable, n: number): ColumnTable {
  if (table.length <= n) return table;
  return { names: table.names, values: table.values.map((v) => v.slice(0, n)), length: n };
}

/** Rows of the page plus what the status object and the formatters need. */
export interface ExecResult {
  /**
   * The page's rows. With {@link table}, they are made from it when first read: a reader that can take columns
   * reads the table instead.
   */
  rows: Row[];
  /** The page's rows as columns, when a summarize made them and no later step but a limit read them. */
  table?: ColumnTable;
  /** Rows that matched the query before any limit (see README: counted at the first limit/summarize). */
  rowsMatched: number;
  rowsExamined: number;
  /** Output columns when project/summarize fixed them; undefined means every event field. */
  columns?: string[];
  /** True once rows are no longer the stored events themselves (values may need conversion). */
  derived: boolean;
  order: { field: string; desc: boolean }[];
  summary?: Summary;
  /** Time of the first and last event in the examined range. */
  minTimeNs?: bigint;
  maxTimeNs?: bigint;
}

/** First index of the sorted `events` whose key is >= `target` (or > `target` when `after`). */
function lowerBound<K extends bigint | string>(
  events: readonly StoredEvent[],
  key: (e: StoredEvent) => K,
  target: K,
  after: boolean,
): number {
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const v = key(events[mid]);
    if (v < target || (after && v === target)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const timeOf = (e: StoredEvent) => e.timeNs;
const rowIdOf = (e: StoredEvent) => e.rowId;

/** The direction the cursor pages in: that of the first `sort by _time`, else descending. */
export function cursorDescending(ops: readonly PlanOp[]): boolean {
  for (const o of ops) {
    if (o.op === "sort" && o.keys[0]?.name === "_time") return o.keys[0].desc;
    if (o.op === "summarize") break;
  }
  return true;
}

/**
 * One row-wise step of a lazy scan: a filter, or a map (project/extend, parse, ...) that keeps the row's time and
 * id; a map that `drops` may also drop the row (parse-where), so it filters too.
 */
type Stage =
  | { pred: Predicate; map?: undefined; drops?: undefined }
  | { pred?: undefined; map: (row: Row) => Row | undefined; drops?: boolean };

interface Scan {
  lo: number;
  hi: number;
  desc: boolean;
  /** Filters and maps in query order; maps keep `timeNs`, so the scan's time order survives them. */
  stages: Stage[];
}

function passes(preds: Predicate[], row: Row): boolean {
  for (let i = 0; i < preds.length; i++) if (!preds[i](row)) return false;
  return true;
}

/** The row after every stage, or undefined when a filter drops it. */
function through(stages: readonly Stage[], row: Row): Row | undefined {
  for (let i = 0; i < stages.length; i++) {
    const s = stages[i];
    if (s.map) {
      const out = s.map(row);
      if (out === undefined) return undefined;
      row = out;
    } else if (!s.pred(row)) return undefined;
  }
  return row;
}

/**
 * Walks the scan in its direction; collects up to `limit` rows, and keeps counting matches when asked. Maps
 * after the last filter cannot change what matches, so they run only on the rows collected.
 */
async function drain(
  events: readonly StoredEvent[],
  scan: Scan,
  limit: number,
  countAll: boolean,
  budget: QueryBudget,
) {
  const rows: Row[] = [];
  let matched = 0;
  let examined = 0;
  const { lo, hi, stages } = scan;
  let cut = stages.length;
  while (cut > 0 && stages[cut - 1].map && !stages[cut - 1].drops) cut--;
  const head = stages.slice(0, cut);
  const tail = stages.slice(cut);
  // Only filters before the cut: the stored event itself is what they test, on the fast path.
  const preds = head.every((s) => s.pred) ? head.map((s) => s.pred!) : undefined;
  const one = preds?.length === 1 ? preds[0] : undefined;
  const step = scan.desc ? -1 : 1;
  // A slice of rows at a time, with a checkpoint between slices (emulator/query/budget.ts). `left` rows remain.
  let i = scan.desc ? hi - 1 : lo;
  let left = hi - lo;
  while (left > 0) {
    const take = Math.min(left, budget.rowsPerSlice);
    left -= take;
    const end = i + take * step;
    for (; i !== end; i += step) {
      if (budget.overdue()) await budget.pause();
      const ev = events[i];
      let row: Row | undefined = ev;
      if (one) {
        if (!one(ev)) continue;
      } else if (preds) {
        if (!passes(preds, ev)) continue;
      } else if ((row = through(head, ev)) === undefined) continue;
      matched++;
      if (rows.length < limit) rows.push(tail.length === 0 ? row : through(tail, row)!);
      else if (!countAll) {
        i += step;
        left = 0;
        break;
      }
    }
    examined += Math.abs(i - (end - take * step));
    if (left > 0) await budget.checkpoint();
  }
  return { rows, matched, examined };
}

/** The largest `top` kept in a sorted buffer rather than by sorting every row. */
const TOP_BUFFER_MAX = 2048;

/**
 * Rows ordered by the keys (ties keep their input order). With `top`, only the first `top` of that order: one
 * pass keeps them in a small sorted buffer, so `sort by f | limit n` over many rows does not sort them all.
 */
async function sortRows(
  rows: Row[],
  keys: { get: Column["get"]; desc: boolean; nullsFirst?: boolean }[],
  budget: QueryBudget,
  top = Infinity,
): Promise<Row[]> {
  interface Decorated {
    row: Row;
    i: number;
    k: unknown[];
  }
  const compare = (a: Decorated, b: Decorated): number => {
    for (let j = 0; j < keys.length; j++) {
      const x = a.k[j];
      const y = b.k[j];
      const xn = x === null || x === undefined;
      const yn = y === null || y === undefined;
      // Kusto's defaults: nulls last when descending, first when ascending; `nulls first|last` overrides.
      if (xn || yn) {
        if (xn && yn) continue;
        const first = keys[j].nullsFirst ?? !keys[j].desc;
        return xn === first ? -1 : 1;
      }
      const c = sortCompare(x, y);
      if (c !== 0) return keys[j].desc ? -c : c;
    }
    return a.i - b.i;
  };
  const decorate = (row: Row, i: number): Decorated => ({ row, i, k: keys.map((key) => key.get(row)) });
  // The sorted buffer costs O(top) per insertion: past a few thousand rows kept, a full sort is cheaper.
  if (top >= rows.length || top > TOP_BUFFER_MAX) {
    const sorted = await budget.sort(await budget.map(rows, decorate), compare);
    return (top < sorted.length ? sorted.slice(0, top) : sorted).map((d) => d.row);
  }
  if (top <= 0) return [];
  const best: Decorated[] = [];
  await budget.each(rows, (row, i) => {
    const d = decorate(row, i);
    if (best.length === top && compare(d, best[top - 1]) >= 0) return;
    let lo = 0;
    let hi = best.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compare(best[mid], d) < 0) lo = mid + 1;
      else hi = mid;
    }
    best.splice(lo, 0, d);
    if (best.length > top) best.pop();
  });
  return best.map((d) => d.row);
}

/** A group key's text: cheap for the common scalar keys, JSON for dynamic ones. */
function keyText(v: unknown): string {
  if (v === null || v === undefined) return "n";
  switch (typeof v) {
    case "string":
      return `s${v}`;
    case "number":
      return `#${v}`;
    case "boolean":
      return v ? "b1" : "b0";
  }
  if (v instanceof DateTime) return `d${v.ns}`;
  if (v instanceof Timespan) return `t${v.ns}`;
  return `j${JSON.stringify(v, (_k, x: unknown) => (x instanceof DateTime ? `d${x.ns}` : x instanceof Timespan ? `t${x.ns}` : x))}`;
}

const NO_ARGS: unknown[] = [];

type Acc = ReturnType<PlanAggregation["create"]>;

/** One aggregation's per-row step: its arguments evaluated, handed to the group's accumulator. */
function feeder(agg: PlanAggregation): (acc: Acc, row: Row) => void {
  const g = agg.getters;
  switch (g.length) {
    case 0:
      return (acc) => acc.add(NO_ARGS);
    case 1: {
      const [a] = g;
      // add1/add2 when the accumulator has them: no argument list per row.
      return (acc, row) => (acc.add1 !== undefined ? acc.add1(a(row)) : acc.add([a(row)]));
    }
    case 2: {
      const [a, b] = g;
      return (acc, row) => (acc.add2 !== undefined ? acc.add2(a(row), b(row)) : acc.add([a(row), b(row)]));
    }
    default:
      return (acc, row) => acc.add(g.map((x) => x(row)));
  }
}

/** The accumulators of a group whose every aggregation keeps GroupColumns; never written to. */
const NO_ACCS: Acc[] = [];

/** One aggregation's per-row step when it keeps every group's state (GroupColumns): the group's number and its arguments. */
function columnFeeder(agg: PlanAggregation, cols: GroupColumns): (group: { at: number }, row: Row) => void {
  const g = agg.getters;
  switch (g.length) {
    case 0:
      return (group) => cols.add(group.at, NO_ARGS);
    case 1: {
      const [a] = g;
      return cols.add1 !== undefined
        ? (group, row) => cols.add1!(group.at, a(row))
        : (group, row) => cols.add(group.at, [a(row)]);
    }
    case 2: {
      const [a, b] = g;
      return cols.add2 !== undefined
        ? (group, row) => cols.add2!(group.at, a(row), b(row))
        : (group, row) => cols.add(group.at, [a(row), b(row)]);
    }
    default:
      return (group, row) =>
        cols.add(
          group.at,
          g.map((x) => x(row)),
        );
  }
}

/** A summarize's aggregations flattened: expressions over aggregations contribute their hidden parts. */
function leaves(aggs: PlanAggregation[]): PlanAggregation[] {
  return aggs.flatMap((a) => (a.parts ? a.parts : [a]));
}

const hasOwn = Object.prototype.hasOwnProperty;

/** The text of a group's keys: one text per distinct list of keys. */
function textOf(keys: readonly unknown[]): string {
  if (keys.length === 1) return keyText(keys[0]);
  let k = "";
  for (const v of keys) k += `${keyText(v)}\u0000`;
  return k;
}

/** A bin's number as a Map key: a number while it is exact (a Map hashes those faster than bigints). */
const binKey = (q: bigint): number | bigint => {
  const n = Number(q);
  return Number.isSafeInteger(n) ? n : q;
};

/** Whether a row's `_time` is its event's time (not one a project/extend put in its data). */
const eventTime = (row: Row): boolean => row.timeNs !== undefined && !hasOwn.call(row.data, "_time");

/** The number of the `width`-wide bin holding `ns` (floored, as bin() does for times before 1970). */
function binNumber(ns: bigint, width: bigint): bigint {
  let q = ns / width;
  if (ns < 0n && ns % width !== 0n) q -= 1n;
  return q;
}

/**
 * A summarize's groups under construction: rows are fed one at a time, from an array or straight from the scan.
 * With a `bin(_time, w)` key, the step remembers the last row's bin and its bounds: consecutive rows of a
 * time-sorted input mostly share a bin, and then cost a comparison of times, no division and no datetime.
 */
interface Summarizer {
  feed(row: Row): void;
  /**
   * The output rows, sorted by the keys; only the first `cap` of them when a limit follows. With `sortedBy` m > 0,
   * the limit follows a `sort by` the first m keys ascending: `cap` is kept to only when that sort would leave the
   * rows as they are (`sorted`), and then the sort need not run. With `asTable`, plain aggregations' rows come
   * as a {@link ColumnTable} (`rows` then empty).
   */
  finish(
    cap?: number,
    sortedBy?: number,
    asTable?: boolean,
  ): Promise<{ rows: Row[]; columns: string[]; sorted: boolean; table?: ColumnTable }>;
  /** The same groups and aggregations, fed from the columns (see {@link summarizeColumns}). */
  direct: DirectSummary;
}

/** A group as the columnar path sees it: its keys, the rows fed (count()'s value), its number. */
interface SummaryGroup {
  keys: unknown[];
  rows: number;
  at: number;
}

/**
 * What {@link summarizeColumns} feeds instead of rows: it makes the groups the row path would, in the same order
 * (a group is made at its first row, in the scan's order), and hands each aggregation the values its arguments
 * would have read, through the same add1/add2/add calls as {@link feeder} and {@link columnFeeder}.
 */
interface DirectSummary {
  /** The groups made so far (a summarize without keys has made its one group already). */
  groups: readonly SummaryGroup[];
  open(keys: unknown[]): SummaryGroup;
  /** The aggregations fed per row (count() is the group's `rows`), in order. */
  fed: readonly PlanAggregation[];
  /** For each of `fed`, a row's step given its argument values; undefined when one takes more than two. */
  steps: (((group: SummaryGroup, a: unknown, b: unknown) => void) | undefined)[];
  /** For each of `fed`, every group's state when it keeps one (its `add1` is what the step calls), else undefined. */
  columns: (GroupColumns | undefined)[];
}

/** Two group keys in the output's order: ascending, nulls first (as sortRows orders summarize's rows). */
function compareKeys(x: unknown, y: unknown): number {
  if (x instanceof DateTime && y instanceof DateTime) return x.ns < y.ns ? -1 : x.ns > y.ns ? 1 : 0;
  if (typeof x === "string" && typeof y === "string") return x < y ? -1 : x > y ? 1 : 0;
  const xn = x === null || x === undefined;
  const yn = y === null || y === undefined;
  if (xn || yn) return xn && yn ? 0 : xn ? -1 : 1;
  return sortCompare(x, y);
}

/**
 * Groups in the order of their keys, ties in the order they were made: what a stable sort gives. A scan by time
 * makes bins' groups bin after bin, in order or in reverse order (a scan from the end): when the groups come in
 * runs of one first key, and the runs' first keys strictly rise or strictly fall, only each run is sorted (by
 * the other keys, a handful of groups each), and the runs are put in order. Otherwise, one sort of them all.
 */
async function sortGroups<G extends { keys: unknown[] }>(groups: G[], budget: QueryBudget): Promise<G[]> {
  const n = groups.length === 0 ? 0 : groups[0].keys.length;
  const compare = (a: G, b: G): number => {
    for (let j = 0; j < n; j++) {
      const c = compareKeys(a.keys[j], b.keys[j]);
      if (c !== 0) return c;
    }
    return 0;
  };
  /** Where each run of one first key starts, then groups.length. */
  const starts = [0];
  let ascending = true;
  let descending = true;
  for (let i = 1; i < groups.length && (ascending || descending); i++) {
    const c = compareKeys(groups[i - 1].keys[0], groups[i].keys[0]);
    if (c === 0) continue;
    starts.push(i);
    if (c > 0) ascending = false;
    else descending = false;
  }
  if (!ascending && !descending) return budget.sort(groups, compare);
  starts.push(groups.length);
  const runs = starts.length - 1;
  const out: G[] = new Array<G>(groups.length);
  let at = 0;
  for (let r = 0; r < runs; r++) {
    const k = ascending ? r : runs - 1 - r;
    const from = starts[k];
    const to = starts[k + 1];
    if (to - from === 1) out[at++] = groups[from];
    else {
      // Both sorts are stable: ties keep the order they were made in. A long run is sorted a slice at a time.
      const run = groups.slice(from, to);
      const sorted = run.length > budget.rowsPerSlice ? await budget.sort(run, compare) : run.sort(compare);
      for (const g of sorted) out[at++] = g;
    }
    if (budget.overdue(to - from)) await budget.pause();
  }
  return out;
}

/**
 * Whether groups in this order are also in the order `sort by` their first `m` keys ascending (nulls first) would
 * give them, so that stable sort would leave them as they are. Only when each of those keys holds one kind of value
 * (datetimes, strings, numbers other than NaN or booleans, and nulls): there the sort's comparison is a total
 * order, and groups each no less than the one before are sorted.
 */
async function sortedByFirstKeys<G extends { keys: unknown[] }>(
  groups: readonly G[],
  m: number,
  budget: QueryBudget,
): Promise<boolean> {
  const kinds: (string | undefined)[] = new Array<string | undefined>(m).fill(undefined);
  for (let i = 0; i < groups.length; i++) {
    const keys = groups[i].keys;
    for (let j = 0; j < m; j++) {
      const v = keys[j];
      if (v === null || v === undefined) continue;
      const kind =
        v instanceof DateTime
          ? "datetime"
          : typeof v === "number"
            ? v === v
              ? "number"
              : undefined
            : typeof v === "string" || typeof v === "boolean"
              ? typeof v
              : undefined;
      if (kind === undefined || (kinds[j] !== undefined && kinds[j] !== kind)) return false;
      kinds[j] = kind;
    }
    if (i > 0) {
      const before = groups[i - 1].keys;
      for (let j = 0; j < m; j++) {
        const c = compareKeys(before[j], keys[j]);
        if (c > 0) return false;
        if (c < 0) break;
      }
    }
    if (budget.overdue()) await budget.pause();
  }
  return true;
}

function summarizer(op: Extract<PlanOp, { op: "summarize" }>, budget: QueryBudget): Summarizer {
  interface Group {
    keys: unknown[];
    /** The accumulators of the aggregations other than count() that keep no GroupColumns. */
    accs: Acc[];
    /** The group's number: its place in the GroupColumns. */
    at: number;
    /** The rows fed: every count()'s value. */
    rows: number;
    /** The bin of a group a bin(_time, w) step made (see below); undefined otherwise. */
    bin: number | bigint | undefined;
  }
  const flat = leaves(op.aggs);
  // count() is the number of rows a group was fed: counted on the group, with no accumulator and no call per row
  // (a backtest's queries carry one each). Each other aggregation's place among the accumulators, or -1.
  const slots: number[] = [];
  const fed: PlanAggregation[] = [];
  for (const a of flat) {
    if (a.fn === "count" && a.getters.length === 0) slots.push(-1);
    else slots.push(fed.push(a) - 1);
  }
  const window = op.windowNs;
  // count, sum, min, max and their …if forms keep every group's state in arrays by group number (GroupColumns):
  // no accumulator object per group. Each other aggregation has an accumulator per group, at its place in `accs`.
  const columns = fed.map((a) => a.columns?.(window));
  const own: PlanAggregation[] = [];
  const ownAt = fed.map((a, j) => (columns[j] === undefined ? own.push(a) - 1 : -1));
  const feeds = fed.map((a, j) => {
    const cols = columns[j];
    if (cols !== undefined) return columnFeeder(a, cols);
    const f = feeder(a);
    const at = ownAt[j];
    return (group: Group, row: Row) => f(group.accs[at], row);
  });
  const nAggs = flat.length;
  const nFed = fed.length;
  /** A leaf's cells. */
  const cellsOf = (group: Group, leaf: number): unknown[] => {
    const j = slots[leaf];
    if (j < 0) return [group.rows];
    const cols = columns[j];
    return cols !== undefined ? cols.result(group.at) : group.accs[ownAt[j]].result();
  };
  /** One output cell of a leaf whose aggregation is plain (no parts, no `*`). */
  const cellOf = (group: Group, leaf: number, output: number): unknown => {
    const j = slots[leaf];
    if (j < 0) return group.rows;
    const cols = columns[j];
    if (cols === undefined) return group.accs[ownAt[j]].result()[output];
    return output === 0 && cols.cell !== undefined ? cols.cell(group.at) : cols.result(group.at)[output];
  };
  /**
   * The groups' cells as columns, each cell as the row's data would hold it (`?? null`); undefined when two outputs
   * share a name (a row's data keeps only the last). Only for plain aggregations: one leaf each.
   */
  const tableOf = async (kept: readonly Group[]): Promise<ColumnTable | undefined> => {
    const names = [...op.by.map((b) => b.name), ...op.aggs.flatMap((a) => a.outputs)];
    if (new Set(names).size !== names.length) return undefined;
    const n = kept.length;
    const values: unknown[][] = [];
    let work = 0;
    // Checkpointed as often as the rows' loop below: a cell is less work than a row.
    const filled = async (cell: (group: Group) => unknown): Promise<void> => {
      const column = new Array<unknown>(n);
      for (let from = 0; from < n; from += budget.rowsPerSlice) {
        const to = Math.min(n, from + budget.rowsPerSlice);
        for (let i = from; i < to; i++) column[i] = cell(kept[i]) ?? null;
        work += to - from;
        if (work >= budget.rowsPerSlice) {
          work = 0;
          await budget.checkpoint();
        }
      }
      values.push(column);
    };
    for (let j = 0; j < op.by.length; j++) await filled((g) => g.keys[j]);
    for (let leaf = 0; leaf < op.aggs.length; leaf++) {
      for (let o = 0; o < op.aggs[leaf].outputs.length; o++) await filled((g) => cellOf(g, leaf, o));
    }
    return { names, values, length: n };
  };
  // A group's estimated bytes: its output row, and an accumulator per aggregation (what they collect, such as
  // make_list's values, is not counted).
  const groupBytes = rowBytes(op.by.length + nAggs) + 64 * nAggs;
  /** Every group, in the order they were made (the order of the output before its sort). */
  const groups: Group[] = [];
  const newGroup = (keys: unknown[]): Group => {
    budget.charge(groupBytes, "summarize's groups");
    for (const cols of columns) cols?.open();
    const accs = own.length === 0 ? NO_ACCS : own.map((a) => a.create(window));
    const group: Group = { keys, accs, rows: 0, bin: undefined, at: groups.length };
    groups.push(group);
    return group;
  };
  /**
   * The groups by their keys' text ({@link textOf}). The bin(_time, w) steps find their groups without it, by
   * bin number, so it is made only once a row needs it (a row whose _time a project or extend replaced); from
   * then on every group made is entered.
   */
  let byText: Map<string, Group> | undefined;
  const by = op.by.map((b) => b.get);
  const add =
    nFed === 0
      ? (group: Group) => {
          group.rows++;
        }
      : nFed === 1
        ? (group: Group, row: Row) => {
            group.rows++;
            feeds[0](group, row);
          }
        : nFed === 2
          ? (group: Group, row: Row) => {
              group.rows++;
              feeds[0](group, row);
              feeds[1](group, row);
            }
          : (group: Group, row: Row) => {
              group.rows++;
              for (let j = 0; j < nFed; j++) feeds[j](group, row);
            };
  /** The group of these keys, made on first sight. */
  const groupOf = (keys: unknown[]): Group => {
    if (byText === undefined) {
      byText = new Map();
      for (const g of groups) byText.set(textOf(g.keys), g);
    }
    const k = textOf(keys);
    let group = byText.get(k);
    if (!group) byText.set(k, (group = newGroup(keys)));
    return group;
  };
  /** A group a bin's step had not seen: the text index's, when there is one, else a new one. */
  const binGroupOf = (keys: unknown[]): Group => (byText === undefined ? newGroup(keys) : groupOf(keys));
  /** The generic step: every key evaluated, the group found by the keys' text. */
  const feedAny = (row: Row) => {
    const keys = by.map((g) => g(row));
    add(groupOf(keys), row);
  };
  let feed: (row: Row) => void;
  const timeAt = op.by.findIndex((b) => b.timeBinNs !== undefined);
  if (by.length === 0) {
    const group = newGroup([]);
    feed = (row) => add(group, row);
  } else if (by.length === 1 && timeAt === 0) {
    // by bin(_time, w): events grouped by their bin's number, a bigint Map key (compared by value); the bin's
    // datetime is made once per group, not once per row. Rows whose _time was replaced take the generic path.
    const width = op.by[0].timeBinNs!;
    const [get] = by;
    const bins = new Map<number | bigint, Group>();
    const binGroup = (q: bigint): Group => {
      const at = binKey(q);
      let group = bins.get(at);
      if (!group) {
        group = binGroupOf([new DateTime(q * width)]);
        bins.set(at, group);
      }
      return group;
    };
    let lastLo = 0n;
    let lastHi = -1n;
    let lastGroup: Group | undefined;
    feed = (row) => {
      const ns = row.timeNs;
      if (ns === undefined || row.data._time !== undefined) {
        add(groupOf([get(row)]), row);
        return;
      }
      if (ns < lastLo || ns >= lastHi || lastGroup === undefined) {
        const q = binNumber(ns, width);
        lastLo = q * width;
        lastHi = lastLo + width;
        lastGroup = binGroup(q);
      }
      add(lastGroup, row);
    };
  } else if (by.length === 1) {
    // One group key: no key array per row, only the key's text.
    const [get] = by;
    feed = (row) => add(groupOf([get(row)]), row);
  } else if (timeAt >= 0) {
    // bin(_time, w) and other keys. Rows come bin by bin from a time-ordered input, so each value of the other
    // keys needs only its group in the current bin: the last group made for it, when that group is of this bin.
    // A lone other key that is a string, number or boolean is its own map key (a Map tells "1" from 1 as keyText
    // does, and puts 0 with -0 and NaN with NaN as keyText's text does); other keys go by their text. A bin the
    // input comes back to after leaving it (an input not sorted by time) takes the generic step.
    const width = op.by[timeAt].timeBinNs!;
    const rest = by.filter((_g, i) => i !== timeAt);
    const single = rest.length === 1 ? rest[0] : undefined;
    const lastOf = new Map<unknown, Group>();
    const left = new Set<number | bigint>();
    let bin: number | bigint | undefined;
    let binLo = 0n;
    let binHi = 0n;
    let start = new DateTime(0n);
    let revisit = false;
    // The current bin's first few keys and groups, searched in a row before the map: a handful of services per
    // bin compare faster than they hash. `===` is the map's equality here, but for NaN, which is never entered.
    const BIN_KEYS = 16;
    const binKeys: unknown[] = [];
    const binGroups: Group[] = [];
    feed = (row) => {
      if (!eventTime(row)) return feedAny(row);
      const ns = row.timeNs!;
      if (bin === undefined || ns < binLo || ns >= binHi) {
        const q = binNumber(ns, width);
        if (bin !== undefined) left.add(bin);
        bin = binKey(q);
        binLo = q * width;
        binHi = binLo + width;
        start = new DateTime(binLo);
        revisit = left.has(bin);
        binKeys.length = 0;
        binGroups.length = 0;
      }
      if (revisit) return feedAny(row);
      let k: unknown;
      let values: unknown[] | undefined;
      if (single) {
        k = single(row);
        const t = typeof k;
        if (t !== "string" && t !== "number" && t !== "boolean") return feedAny(row);
      } else {
        values = rest.map((g) => g(row));
        k = textOf(values);
      }
      let group: Group | undefined;
      for (let i = 0; i < binKeys.length; i++) {
        if (binKeys[i] === k) {
          group = binGroups[i];
          break;
        }
      }
      if (group !== undefined) return add(group, row);
      group = lastOf.get(k);
      if (group === undefined || group.bin !== bin) {
        // Sized once: a group's keys live as long as the query, and a pushed-to array keeps spare room.
        const keys = new Array<unknown>(by.length);
        for (let i = 0, j = 0; i < keys.length; i++) {
          keys[i] = i === timeAt ? start : values === undefined ? k : values[j++];
        }
        group = binGroupOf(keys);
        group.bin = bin;
        lastOf.set(k, group);
      }
      if (binKeys.length < BIN_KEYS && k === k) {
        binKeys.push(k);
        binGroups.push(group);
      }
      add(group, row);
    };
  } else {
    feed = feedAny;
  }
  const finish = async (
    cap = Infinity,
    sortedBy = 0,
    asTable = false,
  ): Promise<{ rows: Row[]; columns: string[]; sorted: boolean; table?: ColumnTable }> => {
    // Groups come out ordered by their keys so that pages are deterministic: the groups are sorted before their
    // rows are made, so a limit after the summarize makes only the rows it keeps. Only when every cell is the plain
    // result of an accumulator: an expression over aggregations, or arg_max(*)'s columns (each group adds to the
    // columns), is computed for every group as before.
    const ordered = op.by.length === 0 ? groups : await sortGroups(groups, budget);
    const sorted = sortedBy > 0 && (await sortedByFirstKeys(ordered, sortedBy, budget));
    if (sortedBy > 0 && !sorted) cap = Infinity;
    const plain = op.aggs.every((a) => !a.parts && !a.outputs.includes("*"));
    const kept = plain && cap < ordered.length ? ordered.slice(0, cap) : ordered;
    if (asTable && plain) {
      const table = await tableOf(kept);
      if (table !== undefined) return { rows: [], columns: [...table.names], sorted, table };
    }
    const out: Row[] = [];
    const spread = new Set<string>();
    const taken = new Set([
      ...op.by.map((b) => b.name),
      ...op.aggs.flatMap((a) => a.outputs.filter((n) => n !== "*")),
    ]);
    for (const group of kept) {
      const data: Record<string, unknown> = {};
      for (let j = 0; j < op.by.length; j++) data[op.by[j].name] = group.keys[j] ?? null;
      let leaf = 0;
      for (const agg of op.aggs) {
        if (agg.parts) {
          const values = agg.parts.map(() => cellsOf(group, leaf++)[0]);
          data[agg.name] = agg.combine!(values) ?? null;
          continue;
        }
        const cells = cellsOf(group, leaf++);
        for (let i = 0; i < agg.outputs.length; i++) {
          const name = agg.outputs[i];
          const v = cells[i];
          if (name === "*") {
            // arg_max(x, *): the row's columns, spread into the output row.
            if (v && typeof v === "object" && !Array.isArray(v)) {
              for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
                if (taken.has(k)) continue;
                data[k] = x ?? null;
                spread.add(k);
              }
            }
          } else data[name] = v ?? null;
        }
      }
      out.push({ data });
      if (out.length % budget.rowsPerSlice === 0) await budget.checkpoint();
    }
    const columns = [
      ...op.by.map((b) => b.name),
      ...op.aggs.flatMap((a) => a.outputs.flatMap((n) => (n === "*" ? [...spread] : [n]))),
    ];
    return { rows: out, columns, sorted };
  };
  const steps = fed.map((a, j): ((group: SummaryGroup, x: unknown, y: unknown) => void) | undefined => {
    const n = a.getters.length;
    const cols = columns[j];
    if (cols !== undefined) {
      if (n === 0) return (group) => cols.add(group.at, NO_ARGS);
      if (n === 1)
        return cols.add1 !== undefined
          ? (group, x) => cols.add1!(group.at, x)
          : (group, x) => cols.add(group.at, [x]);
      if (n === 2)
        return cols.add2 !== undefined
          ? (group, x, y) => cols.add2!(group.at, x, y)
          : (group, x, y) => cols.add(group.at, [x, y]);
      return undefined;
    }
    const at = ownAt[j];
    const accOf = (group: SummaryGroup) => (group as Group).accs[at];
    if (n === 0) return (group) => accOf(group).add(NO_ARGS);
    if (n === 1)
      return (group, x) => {
        const acc = accOf(group);
        if (acc.add1 !== undefined) acc.add1(x);
        else acc.add([x]);
      };
    if (n === 2)
      return (group, x, y) => {
        const acc = accOf(group);
        if (acc.add2 !== undefined) acc.add2(x, y);
        else acc.add([x, y]);
      };
    return undefined;
  });
  return { feed, finish, direct: { groups, open: newGroup, fed, steps, columns } };
}

async function summarize(
  rows: Row[],
  op: Extract<PlanOp, { op: "summarize" }>,
  budget: QueryBudget,
  cap = Infinity,
  sortedBy = 0,
  asTable = false,
): Promise<{ rows: Row[]; columns: string[]; sorted: boolean; table?: ColumnTable }> {
  const s = summarizer(op, budget);
  const { feed } = s;
  await budget.each(rows, (row) => feed(row));
  return s.finish(cap, sortedBy, asTable);
}

/**
 * How many of a summarize's first keys a `sort` right after it sorts by, ascending with nulls first, each key the
 * summarize's output column itself; 0 when it sorts otherwise. A key is that column when its name is and it reads
 * that column of a row: given a row whose every column holds its own token, it answers the column's token.
 */
function sortByFirstKeys(
  summarize: Extract<PlanOp, { op: "summarize" }>,
  sort: Extract<PlanOp, { op: "sort" }>,
): number {
  const m = sort.keys.length;
  if (m === 0 || m > summarize.by.length) return 0;
  const data: Record<string, unknown> = {};
  for (const a of summarize.aggs) for (const name of a.outputs) data[name] = { token: name };
  for (const b of summarize.by) data[b.name] = { token: b.name };
  const probe: Row = { data };
  for (let j = 0; j < m; j++) {
    const key = sort.keys[j];
    if (key.desc || key.nullsFirst === false || key.name !== summarize.by[j].name) return 0;
    try {
      if (key.get(probe) !== data[key.name]) return 0;
    } catch {
      return 0;
    }
  }
  return m;
}

/** Rows a scan reads between two looks at the budget's clock and slices, at most. */
const SCAN_CHUNK = 128;

/** The rows a scan reads between two looks at `budget`: SCAN_CHUNK, fewer when a slice is smaller. */
const scanChunk = (budget: QueryBudget): number => Math.max(1, Math.min(SCAN_CHUNK, budget.rowsPerSlice));

/**
 * Runs the scan's rows straight into a summarize, in the order {@link drain} would give them, without collecting
 * them first. Each row read is a unit of work and each row fed another (what the scan and the summarize would
 * count apart), so slices, checkpoints and pauses come about as often as when the two ran one after the other.
 */
async function summarizeScan(
  events: readonly StoredEvent[],
  scan: Scan,
  feed: (row: Row) => void,
  budget: QueryBudget,
): Promise<{ matched: number; examined: number }> {
  const { lo, hi, stages, desc } = scan;
  const preds = stages.every((st) => st.pred) ? stages.map((st) => st.pred!) : undefined;
  const one = preds?.length === 1 ? preds[0] : undefined;
  const step = desc ? -1 : 1;
  /** Feeds rows [from, to) (in the scan's direction) that pass the stages; answers how many. */
  const run = (from: number, to: number): number => {
    let fed = 0;
    for (let i = from; i !== to; i += step) {
      const ev = events[i];
      let row: Row | undefined = ev;
      if (one !== undefined) {
        if (!one(ev)) continue;
      } else if (preds !== undefined) {
        if (!passes(preds, ev)) continue;
      } else if ((row = through(stages, ev)) === undefined) continue;
      feed(row);
      fed++;
    }
    return fed;
  };
  return { matched: await scanInChunks(lo, hi, desc, run, budget), examined: hi - lo };
}

/**
 * Calls `run(from, to)` over rows [lo, hi) a chunk at a time, in the scan's direction, and answers the sum of what
 * it answered (the rows it fed). Each row read is a unit of work and each row fed another, so the budget's pauses
 * and checkpoints come as often whichever way the rows are read (the event objects, or the typed columns).
 */
async function scanInChunks(
  lo: number,
  hi: number,
  desc: boolean,
  run: (from: number, to: number) => number,
  budget: QueryBudget,
): Promise<number> {
  const chunk = scanChunk(budget);
  const stop = desc ? lo - 1 : hi;
  let matched = 0;
  let sliceWork = 0;
  let i = desc ? hi - 1 : lo;
  while (i !== stop) {
    const to = desc ? Math.max(i - chunk, stop) : Math.min(i + chunk, stop);
    const fed = run(i, to);
    const work = Math.abs(to - i) + fed;
    i = to;
    matched += fed;
    sliceWork += work;
    if (budget.overdue(work)) await budget.pause();
    if (sliceWork >= budget.rowsPerSlice && i !== stop) {
      sliceWork = 0;
      await budget.checkpoint();
    }
  }
  return matched;
}

/** Which path a scan's summarize takes: the columns when it can (auto), never, or even for a few rows (tests). */
type ColumnarMode = "auto" | "rows" | "always";
let columnarMode: ColumnarMode = "auto";

/**
 * Sets which path a scan's summarize takes, and answers the one set before: for tests and benches that compare the
 * columnar path with the row path. Internal; the emulator itself always runs "auto".
 */
export function setColumnarMode(mode: ColumnarMode): ColumnarMode {
  const before = columnarMode;
  columnarMode = mode;
  return before;
}

/** Summaries the columnar path answered since the process started (tests check which path ran). */
let columnarAnswers = 0;
export function columnarAnswerCount(): number {
  return columnarAnswers;
}

/**
 * Below this many events in the range a summarize reads the rows: tabling its closures and setting up cost about
 * what reading a few thousand events does.
 */
const COLUMNAR_MIN_ROWS = 8192;
/**
 * Table entries one closure may have (the product of its fields' distinct values): a call on a probe row costs
 * about 0.7 µs, so a table of the most takes about a slice's time (budget.ts SLICE_MS) and is a pause of its own.
 */
const COLUMNAR_MAX_CELLS = 1 << 14;
/** Combinations of the keys other than the bin that the columnar path numbers with an array. */
const COLUMNAR_MAX_CLASSES = 1 << 20;

/** A closure as the columnar path reads it: per event, the entry of its table, or the field's own value. */
type ColumnRead =
  | { kind: "table"; codes: Uint16Array[]; strides: number[]; out: unknown[] }
  | { kind: "numbers"; nums: Float64Array; tags: Uint8Array };

/** The entry of event `i` in a table over these fields' codes. */
function cellAt(codes: readonly Uint16Array[], strides: readonly number[], i: number): number {
  let cell = 0;
  for (let f = 0; f < codes.length; f++) cell += codes[f][i] * strides[f];
  return cell;
}

/** Event `i`'s value of a closure, as the row path's call of it would answer. */
function valueReader(read: ColumnRead): (i: number) => unknown {
  if (read.kind === "numbers") {
    const { nums, tags } = read;
    return (i) => {
      const t = tags[i];
      return t === NUMBER ? nums[i] : t === NULL ? null : undefined;
    };
  }
  const { codes, strides, out } = read;
  if (codes.length === 0) {
    const v = out[0];
    return () => v;
  }
  if (codes.length === 1) {
    const [c] = codes;
    return (i) => out[c[i]];
  }
  return (i) => out[cellAt(codes, strides, i)];
}

/** A `where` over a chunk: keeps, in order, the events of `sel[0..m)` whose entry is true; answers how many. */
function chunkFilter(read: Extract<ColumnRead, { kind: "table" }>): (sel: Int32Array, m: number) => number {
  const { codes, strides, out } = read;
  const pass = new Uint8Array(out.length);
  for (let k = 0; k < out.length; k++) pass[k] = out[k] === true ? 1 : 0;
  if (codes.length === 0) return pass[0] === 1 ? (_sel, m) => m : () => 0;
  if (codes.length === 1) {
    const [c] = codes;
    return (sel, m) => {
      let kept = 0;
      for (let s = 0; s < m; s++) {
        const i = sel[s];
        if (pass[c[i]] === 1) sel[kept++] = i;
      }
      return kept;
    };
  }
  return (sel, m) => {
    let kept = 0;
    for (let s = 0; s < m; s++) {
      const i = sel[s];
      if (pass[cellAt(codes, strides, i)] === 1) sel[kept++] = i;
    }
    return kept;
  };
}

/**
 * One aggregation's step over a chunk: the events `sel[0..m)`, of groups numbered `ats[0..m)`, each handed its
 * argument values as the row path's step would. The common case (one argument, a table of one field, a state kept
 * for every group with add1) is one tight loop; the rest go through the step.
 */
function aggregationFeed(
  reads: readonly ColumnRead[],
  step: (group: SummaryGroup, a: unknown, b: unknown) => void,
  cols: GroupColumns | undefined,
  groups: readonly SummaryGroup[],
): (sel: Int32Array, ats: Int32Array, m: number) => void {
  const [x, y] = reads;
  if (reads.length === 1 && x.kind === "table" && x.codes.length === 1 && cols?.addTabled !== undefined) {
    const [c] = x.codes;
    const out = x.out;
    // Each kind of columns' own loop over the chunk, where its add1 has one receiver and is inlined.
    return (sel, ats, m) => cols.addTabled!(ats, sel, m, c, out);
  }
  if (reads.length === 1 && x.kind === "table" && x.codes.length === 1 && cols?.add1 !== undefined) {
    const [c] = x.codes;
    const out = x.out;
    // Called as a method: the call site sees the few kinds of GroupColumns, not a new bound function per query.
    return (sel, ats, m) => {
      for (let s = 0; s < m; s++) cols.add1!(ats[s], out[c[sel[s]]]);
    };
  }
  const a = x === undefined ? undefined : valueReader(x);
  const b = y === undefined ? undefined : valueReader(y);
  return (sel, ats, m) => {
    for (let s = 0; s < m; s++) {
      const i = sel[s];
      step(groups[ats[s]], a === undefined ? undefined : a(i), b === undefined ? undefined : b(i));
    }
  };
}

/**
 * The columnar form of {@link summarizeScan}: the same groups, made in the same order, fed the same values in the
 * same order, read from the dataset's typed columns (emulator/query/columns.ts) instead of its event objects.
 * Answers undefined, having fed nothing, when the plan or the data is outside what it reproduces exactly: a map
 * among the scan's stages, a closure that cannot be tabled (it reads `_time`, a field of objects or of too many
 * distinct values, calls rand(), ...), a bin that is not whole milliseconds, an aggregation of more than two
 * arguments, a key that is not a plain value, an event whose data has its own `_time`, no room for the columns.
 * The row path then runs as before. The scan is chunked, paused and checkpointed as summarizeScan's is.
 */
async function summarizeColumns(
  events: readonly StoredEvent[],
  scan: Scan,
  op: Extract<PlanOp, { op: "summarize" }>,
  direct: DirectSummary,
  budget: QueryBudget,
): Promise<{ matched: number; examined: number } | undefined> {
  const { lo, hi, desc, stages } = scan;
  const rows = hi - lo;
  if (columnarMode === "rows" || (columnarMode === "auto" && rows < COLUMNAR_MIN_ROWS)) return undefined;
  if (!stages.every((st) => st.pred !== undefined)) return undefined;
  const steps = direct.steps;
  if (steps.some((st) => st === undefined)) return undefined;
  const timeAt = op.by.findIndex((b) => b.timeBinNs !== undefined);
  const widthNs = timeAt >= 0 ? op.by[timeAt].timeBinNs! : 0n;
  if (timeAt >= 0 && widthNs % 1_000_000n !== 0n) return undefined;
  // Tabling costs a call on a probe row per entry: kept well under the rows it saves reading.
  const maxCells = columnarMode === "always" ? COLUMNAR_MAX_CELLS : Math.min(COLUMNAR_MAX_CELLS, rows >> 2);
  // A range over a small part of a dataset whose columns are not built yet reads its rows: building them reads all.
  const building = (names: readonly string[]) =>
    columnarMode === "auto" && rows * 4 < events.length && names.some((name) => !hasColumn(events, name));

  // The fields the closures read are found by tabling them: a closure that reads a field not built yet names it.
  // Every closure is tabled with the columns there are, the fields they all lack are built together, in one pass
  // over the events (emulator/query/columns.ts), and the closures are tabled again, until none lacks one.
  const need: string[] = [];
  let cols = await columnsFor(events, need, budget);
  if (cols === undefined) return undefined;
  const closures: ((row: Row) => unknown)[] = [
    ...stages.map((st) => st.pred!),
    ...op.by.filter((_b, j) => j !== timeAt).map((b) => b.get),
    ...direct.fed.flatMap((a) => a.getters),
  ];
  const tabled = new Map<(row: Row) => unknown, ReturnType<typeof tabulate>>();
  // The time is built with the first fields.
  let missing = new Set<string>(timeAt >= 0 ? [""] : []);
  for (;;) {
    for (const fn of closures) {
      const t = tabulate(fn, cols.field, maxCells);
      if (t.ok && budget.overdue(t.out.length)) await budget.pause();
      tabled.set(fn, t);
      if (!t.ok) for (const name of t.need ?? []) missing.add(name);
    }
    if (missing.size === 0) break;
    need.push(...missing);
    missing = new Set();
    if (building(need)) return undefined;
    cols = await columnsFor(events, need, budget);
    if (cols === undefined) return undefined;
  }
  const table = async (fn: (row: Row) => unknown, field?: string): Promise<ColumnRead | undefined> => {
    for (;;) {
      const t = tabled.get(fn) ?? tabulate(fn, cols!.field, maxCells);
      tabled.delete(fn);
      if (t.ok) {
        const dicts = t.fields.map((name) => cols!.field(name) as DictionaryColumn);
        // The layout the table was made in: a dictionary may have grown since (an append, and another query
        // that extended the column while this one waited), but no event this scan reads has a code past it.
        const strides = dicts.map(() => 1);
        for (let f = dicts.length - 2; f >= 0; f--) strides[f] = strides[f + 1] * t.sizes[f + 1];
        return { kind: "table", codes: dicts.map((d) => d.codes), strides, out: t.out };
      }
      if (t.need === undefined) {
        // Too many values to table: an aggregation of the field itself reads the numbers column as it is.
        const c = field === undefined ? undefined : cols!.field(field);
        if (c?.kind === "numbers" && readsField(fn, field!))
          return { kind: "numbers", nums: c.nums, tags: c.tags };
        return undefined;
      }
      need.push(...t.need);
      if (building(need)) return undefined;
      cols = await columnsFor(events, need, budget);
      if (cols === undefined) return undefined;
    }
  };

  const filters: ((sel: Int32Array, m: number) => number)[] = [];
  // The first filter of one field is applied as the chunk's events are listed (the filters are tables, so their
  // order does not matter): one pass over the chunk fewer.
  let leadCodes: Uint16Array | undefined;
  let leadPass: Uint8Array | undefined;
  for (const st of stages) {
    const read = await table(st.pred!);
    if (read?.kind !== "table") return undefined;
    if (leadCodes === undefined && read.codes.length === 1) {
      leadCodes = read.codes[0];
      leadPass = new Uint8Array(read.out.length);
      for (let k = 0; k < read.out.length; k++) leadPass[k] = read.out[k] === true ? 1 : 0;
    } else filters.push(chunkFilter(read));
  }
  // Each other key's values numbered by the text that tells groups apart (keyText: null with a missing value, 0
  // with -0, "1" apart from 1), and the numbers of all of them combined into one class per event (a mixed radix).
  const keyReads: {
    codes: Uint16Array[];
    strides: number[];
    out: unknown[];
    classOf: Int32Array;
    scale: number;
  }[] = [];
  let classes = 1;
  for (let j = 0; j < op.by.length; j++) {
    if (j === timeAt) continue;
    const read = await table(op.by[j].get);
    if (read?.kind !== "table") return undefined;
    const ids = new Map<string, number>();
    const classOf = new Int32Array(read.out.length);
    for (let k = 0; k < read.out.length; k++) {
      const v = read.out[k];
      const t = typeof v;
      if (v !== null && v !== undefined && t !== "string" && t !== "number" && t !== "boolean")
        return undefined;
      const text = keyText(v);
      let id = ids.get(text);
      if (id === undefined) ids.set(text, (id = ids.size));
      classOf[k] = id;
    }
    keyReads.push({ ...read, classOf, scale: 0 });
    classes *= Math.max(1, ids.size);
    if (classes > COLUMNAR_MAX_CLASSES) return undefined;
  }
  for (let k = keyReads.length - 1, scale = 1; k >= 0; k--) {
    keyReads[k].scale = scale;
    scale *= Math.max(1, new Set(keyReads[k].classOf).size);
  }
  const feeds: ((sel: Int32Array, ats: Int32Array, m: number) => void)[] = [];
  for (let j = 0; j < direct.fed.length; j++) {
    const agg = direct.fed[j];
    // An aggregation whose one argument is a field (sum(ms)) may read it from a numbers column.
    const field = agg.getters.length === 1 && agg.fields.length === 1 ? agg.fields[0] : undefined;
    const reads: ColumnRead[] = [];
    for (const g of agg.getters) {
      const read = await table(g, field);
      if (read === undefined) return undefined;
      reads.push(read);
    }
    feeds.push(aggregationFeed(reads, steps[j]!, direct.columns[j], direct.groups));
  }
  // The row path groups an event whose data holds its own _time by that value, not by the event's time.
  if (timeAt >= 0 && cols.timeShadowed) return undefined;
  if (cols.length < hi) return undefined;

  // From here on the answer is the columns': nothing above made a group or fed one.
  const { ms } = cols;
  const widthMs = Number(widthNs / 1_000_000n);
  const keyCount = op.by.length;
  const oneKey = keyReads.length === 1 && keyReads[0].codes.length === 1 ? keyReads[0] : undefined;
  // The class of event i's other keys: none, one key of one field (the common case, read inline), or the general.
  const oneCodes = oneKey?.codes[0];
  const oneClassOf = oneKey?.classOf;
  const manyKeys = keyReads.length > 0 && oneKey === undefined;
  const classAt = (i: number): number => {
    let id = 0;
    for (const k of keyReads) id += k.classOf[cellAt(k.codes, k.strides, i)] * k.scale;
    return id;
  };
  /** A new group's keys, in the summarize's order: the bin's start, and each other key's value at event `i`. */
  const keysOf = (i: number, start: DateTime | undefined): unknown[] => {
    const keys = new Array<unknown>(keyCount);
    for (let j = 0, r = 0; j < keyCount; j++) {
      if (j === timeAt) keys[j] = start;
      else {
        const k = keyReads[r++];
        keys[j] = k.out[cellAt(k.codes, k.strides, i)];
      }
    }
    return keys;
  };
  // The group of each class: in the bin being read when there is a bin (a time-sorted scan never comes back to a
  // bin it left, so a class's group in an earlier bin is never wanted again), else over the whole scan.
  const slot = new Array<SummaryGroup | undefined>(keyReads.length === 0 ? 1 : classes);
  const stamp = new Int32Array(slot.length).fill(-1);
  const only = keyCount === 0 ? direct.groups[0] : undefined;
  let binLo = Infinity;
  let binHi = -Infinity;
  let serial = timeAt >= 0 ? -1 : 0;
  let start: DateTime | undefined;

  /** Makes the bin of time `t` (ms) the current one. */
  const enterBin = (t: number): void => {
    // Division and floor are exact here (|t| < 2^53); the two checks only make that plain.
    let q = Math.floor(t / widthMs);
    if (q * widthMs > t) q--;
    else if ((q + 1) * widthMs <= t) q++;
    binLo = q * widthMs;
    binHi = binLo + widthMs;
    start = new DateTime(BigInt(q) * widthNs);
    serial++;
  };
  const binOnly = timeAt >= 0 && keyReads.length === 0;
  const chunk = scanChunk(budget);
  // A chunk's events that pass the filters, in the scan's order, and each one's group number.
  const sel = new Int32Array(chunk);
  const ats = new Int32Array(chunk);
  const step = desc ? -1 : 1;
  /**
   * Events [from, to) in the scan's direction: answers how many passed the filters. A plain function, not the
   * async loop's body, so that it is optimized as one.
   */
  const run = (from: number, to: number): number => {
    let m = 0;
    if (leadCodes !== undefined) {
      const codes = leadCodes;
      const pass = leadPass!;
      for (let r = from; r !== to; r += step) if (pass[codes[r]] === 1) sel[m++] = r;
    } else for (let r = from; r !== to; r += step) sel[m++] = r;
    for (let f = 0; f < filters.length && m > 0; f++) m = filters[f](sel, m);
    // Groups are made at their first event, in the scan's order, as the row path makes them; then each
    // aggregation takes the chunk's events in that order (aggregations keep apart states, so taking them one
    // aggregation at a time leaves each the same sequence of values).
    if (only !== undefined) {
      only.rows += m;
      ats.fill(only.at, 0, m);
    } else if (binOnly) {
      // Only a bin: the chunk's events come in runs of one bin (the scan is in time order), each run one group.
      for (let s = 0; s < m;) {
        if (!(ms[sel[s]] >= binLo && ms[sel[s]] < binHi)) {
          enterBin(ms[sel[s]]);
          slot[0] = direct.open(keysOf(sel[s], start));
        }
        let e = s + 1;
        while (e < m && ms[sel[e]] >= binLo && ms[sel[e]] < binHi) e++;
        const group = slot[0]!;
        group.rows += e - s;
        ats.fill(group.at, s, e);
        s = e;
      }
    } else {
      for (let s = 0; s < m; s++) {
        const r = sel[s];
        let group: SummaryGroup;
        if (timeAt >= 0) {
          const t = ms[r];
          if (!(t >= binLo && t < binHi)) enterBin(t);
        }
        const id = oneCodes !== undefined ? oneClassOf![oneCodes[r]] : manyKeys ? classAt(r) : 0;
        if (stamp[id] === serial) group = slot[id]!;
        else {
          stamp[id] = serial;
          group = slot[id] = direct.open(keysOf(r, start));
        }
        group.rows++;
        ats[s] = group.at;
      }
    }
    for (let j = 0; j < feeds.length && m > 0; j++) feeds[j](sel, ats, m);
    return m;
  };
  const matched = await scanInChunks(lo, hi, desc, run, budget);
  columnarAnswers++;
  return { matched, examined: rows };
}

/**
 * Runs `plan` over `events` (ascending by time and arrival) with the request's range, cursor and limit. When the
 * outermost run ends (sub-queries run through here too, on the same budget), the memory it charged goes back to
 * the pool shared by running queries: its rows are the caller's now, and the pool bounds what runs at once.
 */
export async function execute(
  events: readonly StoredEvent[],
  plan: Plan,
  opts: ExecOptions,
): Promise<ExecResult> {
  const budget = opts.budget ?? new QueryBudget();
  budget.depth++;
  try {
    return await executeOn(events, plan, { ...opts, budget });
  } finally {
    if (--budget.depth === 0) budget.release();
  }
}

async function executeOn(
  events: readonly StoredEvent[],
  plan: Plan,
  opts: ExecOptions & { budget: QueryBudget },
): Promise<ExecResult> {
  const { budget } = opts;
  // Rows the sub-queries (union's members, join's right side) examined, counted into the status too.
  let subExamined = 0;
  const env: RunEnv = {
    budget,
    datasetNames: () => opts.datasetNames?.() ?? [],
    run: async (sub: Plan): Promise<Table> => {
      // A sub-query runs whole over its dataset within the query's range: no cursor, no page limit.
      let subEvents: readonly StoredEvent[] = [];
      if (sub.source === undefined || sub.source.kind === "dataset") {
        const name = sub.source?.name ?? sub.dataset;
        const found = opts.datasetEvents?.(name);
        if (found === undefined) throw new UnknownDatasetError(name);
        subEvents = found;
      }
      const res = await execute(subEvents, sub, {
        ...opts,
        cursor: undefined,
        includeCursor: undefined,
        pageLimit: Infinity,
        budget,
      });
      subExamined += res.rowsExamined;
      return { rows: res.rows, columns: res.columns };
    },
  };
  const fromTable = plan.source?.kind === "table";
  let lo = opts.startNs === undefined || fromTable ? 0 : lowerBound(events, timeOf, opts.startNs, false);
  let hi = fromTable
    ? 0
    : opts.endNs === undefined
      ? events.length
      : lowerBound(events, timeOf, opts.endNs, true);
  const desc = cursorDescending(plan.ops);
  if (!fromTable && opts.cursor !== undefined && opts.cursor !== "") {
    if (desc) hi = Math.min(hi, lowerBound(events, rowIdOf, opts.cursor, !!opts.includeCursor));
    else lo = Math.max(lo, lowerBound(events, rowIdOf, opts.cursor, !opts.includeCursor));
  }
  if (hi < lo) hi = lo;
  const result: ExecResult = {
    rows: [],
    rowsMatched: 0,
    rowsExamined: 0,
    derived: false,
    order: [],
    minTimeNs: hi > lo ? events[lo].timeNs : undefined,
    maxTimeNs: hi > lo ? events[hi - 1].timeNs : undefined,
  };
  let scan: Scan | undefined = { lo, hi, desc: true, stages: [] };
  let rows: Row[] = [];
  // A summarize's rows as columns, while no step after it but a limit has read them (ColumnTable).
  let table: ColumnTable | undefined;
  let matched: number | undefined;
  let order: { field: string; desc: boolean }[] | undefined;
  if (plan.source?.kind === "table") {
    const t = await plan.source.run(env);
    scan = undefined;
    rows = t.rows;
    result.columns = t.columns;
    result.derived = true;
    result.rowsExamined = rows.length;
    order = [];
  }

  const materialize = async (limit = Infinity): Promise<Row[]> => {
    if (!scan) return rows;
    const countAll = matched === undefined;
    const out = await drain(events, scan, limit, countAll, budget);
    result.rowsExamined += out.examined;
    // Only a limit fixes the count; rows taken whole may still be filtered by a later where.
    if (countAll && limit !== Infinity) matched = out.matched;
    order ??= [{ field: "_time", desc: scan.desc }];
    scan = undefined;
    return out.rows;
  };

  for (let at = 0; at < plan.ops.length; at++) {
    const op = plan.ops[at];
    if (table !== undefined) {
      if (op.op === "limit") {
        matched ??= table.length;
        table = tableHead(table, op.n);
        continue;
      }
      rows = tableRows(table);
      table = undefined;
    }
    switch (op.op) {
      case "where":
        if (scan) scan.stages.push({ pred: op.pred });
        else rows = await budget.filter(rows, op.pred);
        break;
      case "sort":
        order = op.keys.map((k) => ({ field: k.name, desc: k.desc }));
        if (
          scan &&
          op.keys.length === 1 &&
          op.keys[0].name === "_time" &&
          op.keys[0].nullsFirst === undefined
        ) {
          scan.desc = op.keys[0].desc;
        } else {
          const all = await materialize();
          const next = plan.ops[at + 1];
          // A limit right after only needs the first n; the count is what the sort saw, as the limit would say.
          if (next?.op === "limit") matched ??= all.length;
          rows = await sortRows(all, op.keys, budget, next?.op === "limit" ? next.n : Infinity);
        }
        break;
      case "limit":
        if (scan) rows = await materialize(op.n);
        else {
          matched ??= rows.length;
          rows = rows.slice(0, op.n);
        }
        break;
      case "project":
      case "extend": {
        const cols = op.columns;
        const base = op.op === "extend";
        const map = (r: Row): Row => {
          const data: Record<string, unknown> = base ? { ...r.data } : {};
          for (const c of cols) data[c.name] = c.get(r);
          return { timeNs: r.timeNs, sysTimeNs: r.sysTimeNs, rowId: r.rowId, data };
        };
        // Row-wise: while the scan is lazy, only the rows a later limit keeps are ever mapped.
        if (scan) scan.stages.push({ map });
        else rows = await budget.map(rows, map);
        if (!base) result.columns = cols.map((c) => c.name);
        else if (result.columns) {
          result.columns = [...result.columns];
          for (const c of cols) if (!result.columns.includes(c.name)) result.columns.push(c.name);
        }
        result.derived = true;
        break;
      }
      case "summarize": {
        let out: { rows: Row[]; columns: string[]; sorted: boolean; table?: ColumnTable };
        // A limit right after keeps only the first rows: the others need not be made. So does a limit after a sort
        // by the first keys (a backtest's `sort by __bin asc | limit n`), when the rows are in that sort's order.
        const next = plan.ops[at + 1];
        const sortedBy = next?.op === "sort" ? sortByFirstKeys(op, next) : 0;
        const after = sortedBy > 0 ? plan.ops[at + 2] : next;
        const cap = after?.op === "limit" ? after.n : Infinity;
        if (scan) {
          // Straight from the scan: the matching rows are never collected.
          const s = summarizer(op, budget);
          const read =
            (await summarizeColumns(events, scan, op, s.direct, budget)) ??
            (await summarizeScan(events, scan, s.feed, budget));
          result.rowsExamined += read.examined;
          scan = undefined;
          matched ??= read.matched;
          out = await s.finish(cap, sortedBy, summarizeTables);
        } else {
          rows = await materialize();
          matched ??= rows.length;
          out = await summarize(rows, op, budget, cap, sortedBy, summarizeTables);
        }
        rows = out.rows;
        table = out.table;
        result.columns = out.columns;
        result.summary = {
          by: op.by.map((b) => b.name),
          aggs: op.aggs.map((a) => ({ name: a.name, fn: a.fn, fields: a.fields, args: a.args })),
        };
        order = op.by.map((b) => ({ field: b.name, desc: false }));
        result.derived = true;
        if (out.sorted && next?.op === "sort") {
          // The sort would leave the rows as they are: only its order is said.
          order = next.keys.map((k) => ({ field: k.name, desc: k.desc }));
          at++;
        }
        break;
      }
      case "table": {
        if (scan && op.rowwise) {
          // A row-at-a-time operator joins the lazy scan: only the rows a later limit keeps are ever mapped.
          scan.stages.push({ map: op.rowwise.map, drops: op.rowwise.drops });
          result.columns = op.rowwise.columns(result.columns);
          result.summary = undefined;
          result.derived = true;
          break;
        }
        const input = await materialize();
        const out = await op.run({ rows: input, columns: result.columns }, env);
        rows = out.rows;
        if (!out.keepColumns || out.columns) result.columns = out.columns;
        if (out.order) order = out.order;
        // Rows a table operator made are no longer summarize's groups.
        result.summary = out.summary;
        result.derived = true;
        break;
      }
    }
  }
  if (scan) rows = await materialize(opts.pageLimit);
  else if (table !== undefined) {
    matched ??= table.length;
    table = tableHead(table, opts.pageLimit);
  } else {
    matched ??= rows.length;
    if (rows.length > opts.pageLimit) rows = rows.slice(0, opts.pageLimit);
  }
  if (table !== undefined) rowsFromTable(result, table);
  else result.rows = rows;
  result.rowsExamined += subExamined;
  result.rowsMatched = matched ?? result.table?.length ?? result.rows.length;
  result.order = order ?? [];
  return result;
}
