/**
 * The service-side path of a backtest: a monitor's query whose `summarize` can be rebuilt exactly from finer bins
 * is sent to the service once for the whole period (or in as few pieces as its result limit allows), rewritten to
 * bin at the finest grain on which every run's window edges and the query's own bins fall; each run's window is
 * then rebuilt from those bins, as the engine would have summarized it.
 *
 * Decomposable: one dataset, row-wise operators (`where`, `extend`, `project` and kin, `parse`), then a last
 * `summarize` of `count`, `countif`, `sum`, `sumif`, `min`, `max` and `avg` (as a sum and a count of its values)
 * by plain columns and at most one `bin(_time, …)`; no `now()` or `ago()` (a run reads them at its own time, one
 * request at another). Percentiles and `dcount` cannot be rebuilt from parts; anything else goes to the event path.
 *
 * Exact for integer values (counts always are): a sum of floats rebuilt from partial sums may differ from the
 * engine's running sum in its last bits. `avg` counts its field's non-null values, as the engine counts its
 * numbers: equal while the field holds numbers or nothing.
 */
import { compileQuery, parseApl, type AggregationCall, type NamedExpr, type Query } from "../../emulator/apl";
import { DateTime, sortCompare } from "../../emulator/apl/values";
import { groupValueText, resultShape, type GroupValues } from "../../emulator/alerting/evaluate";
import type { JudgeTable } from "../../emulator/alerting/judge";
import type { RunnableMonitor } from "../../emulator/alerting/monitor";

/** How one output column of the summarize is rebuilt from its partial columns. */
interface RebuiltAggregation {
  /** The column's name in the monitor's result. */
  name: string;
  kind: "sum" | "min" | "max" | "avg";
  /** The partial columns the rewritten query answers (avg: its sum, then its count). */
  partials: string[];
}

/** A `by` column of the monitor's summarize. */
interface ByColumn {
  name: string;
  /** The time bin's width in ns, for `bin(_time, w)`; undefined for a plain column. */
  binNs?: bigint;
}

/** A monitor query the service-side path can take. */
export interface Decomposition {
  /** The query up to its summarize, as written. */
  prefix: string;
  aggs: RebuiltAggregation[];
  by: ByColumn[];
  /** The rewritten summarize's aggregations (`__p0 = count()`, …), the row count `__n` last. */
  partialTexts: string[];
  /** The rewritten summarize's plain `by` columns (`host = host`). */
  byTexts: string[];
}

/** The column of the rewritten query holding each fine bin's start. */
export const BIN_COLUMN = "__bin";
/** The column counting the events of a fine bin: the run's "rows matched". */
export const COUNT_COLUMN = "__n";

const ROW_WISE = new Set([
  "where",
  "extend",
  "project",
  "project-away",
  "project-keep",
  "project-rename",
  "parse",
]);
const SUMMED = new Set(["count", "countif", "sum", "sumif"]);
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Whether an expression (or anything under it) calls `now` or `ago`. */
export function readsNow(node: unknown): boolean {
  if (node === null || typeof node !== "object") return false;
  const n = node as { kind?: string; name?: string };
  if (n.kind === "call" && (n.name === "now" || n.name === "ago")) return true;
  return Object.values(node).some(readsNow);
}

/**
 * The values avg takes, as an APL test of its argument: numbers and timespans, not NaN (`x == x` is false only
 * for it; in parentheses, as the argument may be a comparison itself). avg skips a string, a bool or a bag where
 * isnotnull counts it: a field holding "n/a" now and then, or true and 1, would divide the rebuilt sum by values
 * it never added. "int" is the service's name of a type the emulator calls "long".
 */
const averagedTest = (arg: string) =>
  `gettype(${arg}) in ("int", "long", "real", "timespan") and (${arg}) == (${arg})`;

/** Why a query that names its dataset by a pattern is refused, on either path: the datasets it reads are not
 * known until the service expands it, and a backtest must say which it read. */
export function patternReason(datasets: readonly string[]): string | undefined {
  const wildcard = datasets.find((d) => d.includes("*"));
  return wildcard === undefined
    ? undefined
    : `its query reads datasets by a pattern (${wildcard}); name each dataset it reads`;
}

/** The monitor's query as a {@link Decomposition}, or the reason it is none. */
export function decompose(apl: string): Decomposition | { reason: string } {
  let q: Query;
  try {
    q = parseApl(apl);
  } catch (err) {
    return { reason: `its query does not parse: ${(err as Error).message}` };
  }
  const pattern = patternReason(q.datasets);
  if (pattern !== undefined) return { reason: pattern };
  if (q.lets.length > 0) return { reason: "its query uses let" };
  if (q.datasets.every((d) => d === "")) return { reason: "its query reads no dataset" };
  if (q.datasets.length !== 1 || q.dataset === "") return { reason: "its query reads more than one dataset" };
  const ops = q.ops;
  const last = ops[ops.length - 1];
  if (last?.op !== "summarize") return { reason: "its query does not end in summarize" };
  const bad = ops.slice(0, -1).find((o) => !ROW_WISE.has(o.op));
  if (bad) return { reason: `its query has ${bad.op} before its summarize` };
  if (readsNow(q)) return { reason: "its query reads now() or ago(), which a run reads at its own time" };
  let names: { by: string[]; aggs: string[] };
  try {
    const plan = compileQuery(q, { now: 0n });
    const s = plan.ops[plan.ops.length - 1];
    if (s?.op !== "summarize") return { reason: "its query does not end in summarize" };
    names = { by: s.by.map((c) => c.name), aggs: s.aggs.map((a) => a.name) };
  } catch (err) {
    return { reason: `its query does not compile: ${(err as Error).message}` };
  }
  const aggs: RebuiltAggregation[] = [];
  const partialTexts: string[] = [];
  for (const [i, a] of (last.aggs as AggregationCall[]).entries()) {
    const name = names.aggs[i];
    const args = a.argTexts.join(", ");
    const p = `__p${i}`;
    if (a.fn === "" || a.expr !== undefined) return { reason: `its aggregation ${name} is an expression` };
    if (SUMMED.has(a.fn)) {
      aggs.push({ name, kind: "sum", partials: [p] });
      partialTexts.push(`${p} = ${a.fn}(${args})`);
    } else if (a.fn === "min" || a.fn === "max") {
      aggs.push({ name, kind: a.fn, partials: [p] });
      partialTexts.push(`${p} = ${a.fn}(${args})`);
    } else if (a.fn === "avg" && a.argTexts.length === 1) {
      aggs.push({ name, kind: "avg", partials: [`${p}s`, `${p}c`] });
      partialTexts.push(`${p}s = sum(${args})`, `${p}c = countif(${averagedTest(args)})`);
    } else {
      return { reason: `${a.fn}() cannot be rebuilt from finer bins` };
    }
  }
  partialTexts.push(`${COUNT_COLUMN} = count()`);
  const by: ByColumn[] = [];
  const byTexts: string[] = [];
  for (const [i, b] of (last.by as NamedExpr[]).entries()) {
    const name = names.by[i];
    const e = b.expr;
    if (e.kind === "field" && e.path.length === 1 && IDENTIFIER.test(e.name) && IDENTIFIER.test(name)) {
      by.push({ name });
      byTexts.push(`${name} = ${e.name}`);
      continue;
    }
    const [field, width] = e.kind === "call" ? e.args : [];
    if (
      e.kind === "call" &&
      (e.name === "bin" || e.name === "floor") &&
      e.args.length === 2 &&
      field.kind === "field" &&
      field.name === "_time" &&
      width.kind === "literal" &&
      width.value.type === "timespan" &&
      width.value.ns > 0n &&
      !by.some((c) => c.binNs !== undefined)
    ) {
      by.push({ name, binNs: width.value.ns });
      continue;
    }
    return {
      reason: `its summarize groups by ${name}, which is neither a column nor bin(_time, a constant)`,
    };
  }
  const pipe = apl.lastIndexOf("|", last.pos);
  return { prefix: apl.slice(0, pipe).trimEnd(), aggs, by, partialTexts, byTexts };
}

const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? a : gcd(b, a % b));
const MS = 1_000_000n;

/**
 * The finest grain the rewrite bins at, in ns: the greatest common divisor of the interval (every run time is a
 * multiple of it), the range and the delay (a window's edges are a run time less them) and the query's own bin
 * (each fine bin then lies in one of its bins).
 */
export function grainNs(monitor: RunnableMonitor, d: Decomposition): bigint {
  let g = BigInt(Math.max(1, monitor.intervalMinutes)) * 60_000n * MS;
  g = gcd(g, BigInt(monitor.rangeMinutes) * 60_000n * MS);
  if (monitor.secondDelay > 0) g = gcd(g, BigInt(monitor.secondDelay) * 1000n * MS);
  for (const b of d.by) if (b.binNs !== undefined) g = gcd(g, b.binNs);
  return g;
}

/** The query the service runs: the monitor's up to its summarize, then its partials by fine bin and columns, the
 * earliest bins first. */
export function rewrite(d: Decomposition, grain: bigint, limit: number): string {
  const span = grain % MS === 0n ? `${grain / MS}ms` : `${grain}ns`;
  const by = [`${BIN_COLUMN} = bin(_time, ${span})`, ...d.byTexts].join(", ");
  // Sorted by bin before the limit: an answer cut at the limit then holds every bin before its last one whole.
  return `${d.prefix}\n| summarize ${d.partialTexts.join(", ")} by ${by}\n| sort by ${BIN_COLUMN} asc\n| limit ${limit}`;
}

/** One answer's columns, as the service sent them. */
interface FinePart {
  /** The first row of {@link FineRows.grains} it holds. */
  start: number;
  columns: ReadonlyMap<string, readonly unknown[]>;
  /** Where each of its rows is in `columns`, in bin order; in order when absent. */
  rows?: readonly number[];
}

/**
 * The rewritten query's answers over a plan's span, column by column as the service sent them (no object per row,
 * and no copy): each row's fine bin as its number of grains since `baseNs`, and each answer's columns by name.
 */
export class FineRows {
  /** Each row's bin: `(bin − baseNs) / grain`, a whole number, in bin order. */
  readonly grains: number[] = [];
  readonly parts: FinePart[] = [];
  constructor(
    readonly baseNs: bigint,
    readonly grain: bigint,
  ) {}
  get length(): number {
    return this.grains.length;
  }
  /** Adds one answer's rows: their grains in bin order, its columns, and where each row is in them. */
  add(
    grains: readonly number[],
    columns: ReadonlyMap<string, readonly unknown[]>,
    rows?: readonly number[],
  ): void {
    this.parts.push({ start: this.grains.length, columns, rows });
    for (const k of grains) this.grains.push(k);
  }
  /** One column over every row (a column an answer lacks reads as null there). */
  column(name: string): unknown[] {
    const out: unknown[] = [];
    this.parts.forEach((part, p) => {
      const end = this.parts[p + 1]?.start ?? this.grains.length;
      const values = part.columns.get(name);
      for (let i = part.start; i < end; i++) {
        const r = part.rows?.[i - part.start] ?? i - part.start;
        out.push(values?.[r] ?? null);
      }
    });
    return out;
  }
}

/** Combines two partials of one kind. */
function combine(kind: "sum" | "min" | "max", a: unknown, b: unknown): unknown {
  if (kind === "sum") return (typeof a === "number" ? a : 0) + (typeof b === "number" ? b : 0);
  if (a === null || a === undefined) return b ?? null;
  if (b === null || b === undefined) return a;
  const c = sortCompare(b, a);
  return (kind === "min" ? c < 0 : c > 0) ? b : a;
}

/** A group of the monitor's result that some fine row falls in. */
interface ResultGroup {
  /** Its plain `by` values as the result holds them (the time bin's place holds 0). */
  plain: unknown[];
  /** Its time bin's number (`bin(_time, w)`'s start over w), 0 without one. */
  q: bigint;
  /** Its place among every group, in the engine's order. */
  rank: number;
  /** The group the judge reads it in (its `by` values but the time bin's): its index in `judgeGroups`. */
  judgeGroup: number;
}

/** A group as the judge reads it ({@link readResult}), without its values: one object for every run. */
type JudgeGroup = Omit<GroupValues, "values">;

/** What an empty window reads as: no data. Frozen, as every run without data shares it. */
const NO_GROUPS: GroupValues[] = Object.freeze([]) as unknown as GroupValues[];
/** The values of a group with no number in a window: one frozen list, never pushed to (read's first value
 * replaces it). */
const NO_VALUES: number[] = Object.freeze([]) as unknown as number[];

/**
 * Rebuilds the monitor's result over any window from the fine bins (in bin order, as the service answered them).
 * Each fine row is read once here, into flat columns (its bin, its group's number, its partials), and each run
 * then only combines the rows of its window. A month of one-minute runs rebuilds 43,200 windows, so a window is
 * also read for the judge here, as {@link readResult} would read its rows: the groups it compares are made once,
 * and a run allocates its values alone.
 */
export class Rebuilder {
  private readonly grains: Float64Array;
  private readonly groupOf: Int32Array;
  private readonly matched: Float64Array;
  /** Every row's partials, `width` a row, in the aggregations' order. */
  private readonly parts: unknown[];
  private readonly width: number;
  /** Each aggregation's first partial's place in a row's partials. */
  private readonly aggAt: number[];
  /** Each partial's combining kind, in `parts`' order. */
  private readonly kinds: ("sum" | "min" | "max")[];
  private readonly groups: ResultGroup[] = [];
  /** Per group: the run that last touched it, and its combined partials. */
  private readonly seenIn: Int32Array;
  private readonly acc: unknown[];
  /** A window's groups while it is gathered: at most every group once. */
  private readonly presentScratch: Int32Array;
  private run = 0;
  /** The fine rows' base and grain: a window's edges are counted in grains from the base as the rows are. */
  private readonly fineBase: bigint;
  private readonly fineGrain: bigint;
  readonly columns: JudgeTable["columns"];
  readonly groupBy: string[];
  /** How the judge reads a window, for the monitor's `columnName`; undefined when a window must be read from its
   * rows (the shape is an error, or two groups' values read as the same text). */
  private readonly reading?: {
    columnName: string | undefined;
    grouped: boolean;
    judgeGroups: JudgeGroup[];
    /** Per value column compared: an aggregation's index in `d.aggs`, or -1 − a `by` column's index. */
    values: number[];
    /** Per judge group: the run that last touched it, and its place in that run's groups. */
    seenIn: Int32Array;
    at: Int32Array;
  };

  constructor(
    private readonly d: Decomposition,
    fine: FineRows,
    columnName?: string,
  ) {
    const timeBin = d.by.find((b) => b.binNs !== undefined)?.binNs;
    const partials = d.aggs.flatMap((a) => a.partials);
    this.width = partials.length;
    let offset = 0;
    this.aggAt = d.aggs.map((a) => (offset += a.partials.length) - a.partials.length);
    this.fineBase = fine.baseNs;
    this.fineGrain = fine.grain;
    this.kinds = d.aggs.flatMap((a) => a.partials.map(() => (a.kind === "avg" ? "sum" : a.kind)));
    const n = fine.length;
    this.grains = Float64Array.from(fine.grains);
    this.groupOf = new Int32Array(n);
    this.matched = new Float64Array(n);
    this.parts = new Array<unknown>(n * this.width);
    // A group is a time bin and plain values. Rows come bin by bin, so each bin's groups are looked up among that
    // bin's alone: by the value itself for one plain column holding a JSON scalar (a Map tells 1 from "1" as the
    // values' JSON does, and an answer holds no NaN), else by the values' JSON.
    const plainAt = d.by.flatMap((b, k) => (b.binNs === undefined ? [k] : []));
    let byValue = new Map<unknown, number>();
    let byText = new Map<string, number>();
    let binGroup = -1;
    const newGroup = (q: bigint, plain: unknown[]) => {
      this.groups.push({ plain, q, rank: 0, judgeGroup: -1 });
      return this.groups.length - 1;
    };
    let lastGrain = NaN;
    let q = 0n;
    fine.parts.forEach((part, p) => {
      const column = (name: string): readonly unknown[] => part.columns.get(name) ?? [];
      const plainColumns = d.by.map((b) => (b.binNs === undefined ? column(b.name) : undefined));
      const plainOf = (r: number) => plainColumns.map((c) => (c === undefined ? 0 : (c[r] ?? null)));
      const single = plainAt.length === 1 ? plainColumns[plainAt[0]] : undefined;
      const partColumns = partials.map(column);
      const counts = column(COUNT_COLUMN);
      const end = fine.parts[p + 1]?.start ?? n;
      for (let i = part.start; i < end; i++) {
        const r = part.rows === undefined ? i - part.start : part.rows[i - part.start];
        const k = fine.grains[i];
        if (timeBin !== undefined && k !== lastGrain) {
          lastGrain = k;
          const binNs = fine.baseNs + BigInt(k) * fine.grain;
          let binQ = binNs / timeBin;
          if (binNs < 0n && binNs % timeBin !== 0n) binQ -= 1n;
          if (binQ !== q || i === 0) {
            q = binQ;
            byValue = new Map();
            byText = new Map();
            binGroup = -1;
          }
        }
        let g: number | undefined;
        const v = single === undefined ? undefined : (single[r] ?? null);
        if (plainAt.length === 0) g = binGroup < 0 ? (binGroup = newGroup(q, plainOf(r))) : binGroup;
        else if (single !== undefined && (v === null || typeof v !== "object")) {
          g = byValue.get(v);
          if (g === undefined) byValue.set(v, (g = newGroup(q, plainOf(r))));
        } else {
          const plain = plainOf(r);
          const text = JSON.stringify(plain);
          g = byText.get(text);
          if (g === undefined) byText.set(text, (g = newGroup(q, plain)));
        }
        this.groupOf[i] = g;
        this.matched[i] = Number(counts[r] ?? 0);
        for (let c = 0; c < this.width; c++) this.parts[i * this.width + c] = partColumns[c][r];
      }
    });
    // The engine answers a summarize's groups ordered by their keys in the `by` order, nulls first
    // (emulator/query/engine.ts): each group's place in that order is worked out once, and a run's groups are put
    // in order by it. A time bin compares by its number. Groups are made in bin order, so when the bin is the first
    // key (or there is none) only each bin's own groups need sorting, by the other keys; otherwise all are sorted.
    const byKeys = (x: number, y: number) => {
      for (let k = 0; k < d.by.length; k++) {
        if (d.by[k].binNs !== undefined) {
          const qx = this.groups[x].q;
          const qy = this.groups[y].q;
          if (qx !== qy) return qx < qy ? -1 : 1;
          continue;
        }
        const u = this.groups[x].plain[k];
        const v = this.groups[y].plain[k];
        const un = u === null || u === undefined;
        const vn = v === null || v === undefined;
        if (un || vn) {
          if (un && vn) continue;
          return un ? -1 : 1;
        }
        const c = sortCompare(u, v);
        if (c !== 0) return c;
      }
      return 0;
    };
    const binFirst = timeBin === undefined || d.by[0].binNs !== undefined;
    let rank = 0;
    for (let from = 0; from < this.groups.length;) {
      let to = from + 1;
      if (binFirst) while (to < this.groups.length && this.groups[to].q === this.groups[from].q) to++;
      else to = this.groups.length;
      const run = Array.from({ length: to - from }, (_, i) => from + i);
      if (run.length > 1 && plainAt.length > 0) run.sort(byKeys);
      for (const g of run) this.groups[g].rank = rank++;
      from = to;
    }
    this.seenIn = new Int32Array(this.groups.length).fill(-1);
    this.presentScratch = new Int32Array(this.groups.length);
    this.acc = new Array<unknown>(this.groups.length * this.width);
    this.columns = [
      ...d.by.map((b) => ({
        name: b.name,
        type: b.binNs !== undefined ? "datetime" : "string",
        aggregated: false,
      })),
      ...d.aggs.map((a) => ({ name: a.name, type: "float", aggregated: true })),
    ];
    this.groupBy = d.by.map((b) => b.name);
    this.reading = this.readingFor(columnName);
  }

  /** How the judge reads this monitor's windows (see `reading`): the shape readResult finds, and the groups it
   * would make, each once. */
  private readingFor(columnName: string | undefined): Rebuilder["reading"] {
    const shape = resultShape({ columns: this.columns, groupBy: this.groupBy }, columnName);
    if ("error" in shape) return undefined;
    const { groupColumns, valueColumns } = shape;
    const byAt = (name: string) => this.d.by.findIndex((b) => b.name === name);
    const judgeGroups: JudgeGroup[] = [];
    const byText = new Map<string, { group: number; raw: string }>();
    // A monitor's result has a group per bin and key (a month of them): with no key, or one key of text, the
    // judge's group is found by the key itself, and only a new key's text is made.
    const lone = groupColumns.length === 1 && this.d.by[byAt(groupColumns[0])].binNs === undefined;
    const loneAt = lone ? byAt(groupColumns[0]) : -1;
    const byLoneText = new Map<string, number>();
    for (const g of this.groups) {
      if (groupColumns.length === 0 && judgeGroups.length > 0) {
        g.judgeGroup = 0;
        continue;
      }
      const text = lone ? g.plain[loneAt] : undefined;
      const byItsText = typeof text === "string" ? byLoneText.get(text) : undefined;
      if (byItsText !== undefined) {
        g.judgeGroup = byItsText;
        continue;
      }
      const raw = groupColumns.map((name) => this.outKey(g, byAt(name)));
      const groupValues = raw.map(groupValueText);
      const key = groupColumns.length === 0 ? "[]" : JSON.stringify(groupValues);
      const known = byText.get(key);
      // readResult keeps the values of the first row of a text: which one that is depends on the run.
      if (known !== undefined && known.raw !== JSON.stringify(raw)) return undefined;
      if (known !== undefined) g.judgeGroup = known.group;
      else {
        g.judgeGroup = judgeGroups.length;
        byText.set(key, { group: g.judgeGroup, raw: JSON.stringify(raw) });
        judgeGroups.push(
          Object.freeze({
            key,
            groupKeys: groupColumns,
            groupValues,
            group: Object.freeze(Object.fromEntries(groupColumns.map((name, j) => [name, raw[j]]))),
          }),
        );
      }
      if (typeof text === "string") byLoneText.set(text, g.judgeGroup);
    }
    return {
      columnName,
      grouped: groupColumns.length > 0,
      judgeGroups,
      values: valueColumns.map((name) => {
        const agg = this.d.aggs.findIndex((a) => a.name === name);
        return agg >= 0 ? agg : -1 - byAt(name);
      }),
      seenIn: new Int32Array(judgeGroups.length).fill(-1),
      at: new Int32Array(judgeGroups.length),
    };
  }

  /**
   * The monitor's result over `[startNs, endNs)`: groups ordered by their keys, as the engine's summarize answers
   * them. The window comes read for the judge when it can be; its rows are made only when asked for.
   */
  window(startNs: bigint, endNs: bigint): JudgeTable {
    const { grains, width, kinds, acc, parts, seenIn, groupOf } = this;
    const run = this.run++;
    const from = this.grainAt(startNs);
    const to = this.grainAt(endNs);
    let lo = 0;
    let hi = grains.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (grains[mid] < from) lo = mid + 1;
      else hi = mid;
    }
    // The window's groups, gathered in a scratch list and kept at their number: a run's list is kept with it.
    const scratch = this.presentScratch;
    let count = 0;
    let matched = 0;
    for (let i = lo; i < grains.length && grains[i] < to; i++) {
      const g = groupOf[i];
      const at = g * width;
      if (seenIn[g] !== run) {
        seenIn[g] = run;
        scratch[count++] = g;
        for (let k = 0; k < width; k++) acc[at + k] = undefined;
      }
      matched += this.matched[i];
      for (let k = 0; k < width; k++) acc[at + k] = combine(kinds[k], acc[at + k], parts[i * width + k]);
    }
    const present = new Array<number>(count);
    for (let p = 0; p < count; p++) present[p] = scratch[p];
    // Groups come in bin order, and a bin's in the order the service sorted them: mostly in order already.
    const { groups } = this;
    for (let p = 1; p < present.length; p++) {
      if (groups[present[p - 1]].rank > groups[present[p]].rank) {
        present.sort((x, y) => groups[x].rank - groups[y].rank);
        break;
      }
    }
    // The combined partials of this run's groups, kept for its rows: `acc` is the next run's.
    const combined = new Array<unknown>(present.length * width);
    for (let p = 0; p < present.length; p++) {
      const at = present[p] * width;
      for (let k = 0; k < width; k++) combined[p * width + k] = acc[at + k];
    }
    const read =
      this.reading === undefined
        ? undefined
        : { columnName: this.reading.columnName, result: this.read(present, combined, matched, run) };
    return new RebuiltWindow(this, present, combined, matched, read);
  }

  /** A window's rows, from its groups and their combined partials: an ungrouped summarize over nothing answers
   * its one row of zeros (and nulls for min, max and avg). */
  rowsOf(present: readonly number[], combined: readonly unknown[]): Record<string, unknown>[] {
    const rows = present.map((g, p) => this.rowOf(g, combined, p * this.width));
    if (rows.length === 0 && this.d.by.length === 0) rows.push(this.rowOf(-1, [], 0));
    return rows;
  }

  /** The number of grains from the fine rows' base to a window's edge (a whole number: edges lie on the grain). */
  private grainAt(edgeNs: bigint): number {
    // The first grain at or after the edge: rows at grains before it start before the edge.
    const from = edgeNs - this.fineBase;
    const k = from / this.fineGrain;
    return Number(from > k * this.fineGrain ? k + 1n : k);
  }

  /** A window's groups as {@link readResult} reads its rows. */
  private read(present: readonly number[], combined: readonly unknown[], matched: number, run: number) {
    const r = this.reading!;
    if (matched === 0) return { ok: true as const, grouped: r.grouped, groups: NO_GROUPS, noData: true };
    // At most one a present group, and no more than the monitor has: sized once, cut to what came.
    const groups = new Array<GroupValues>(Math.min(present.length, r.judgeGroups.length));
    let made = 0;
    let numeric = 0;
    for (let p = 0; p < present.length; p++) {
      const group = this.groups[present[p]];
      const j = group.judgeGroup;
      let out: GroupValues;
      if (r.seenIn[j] !== run) {
        r.seenIn[j] = run;
        r.at[j] = made;
        const { key, groupKeys, groupValues, group: byColumn } = r.judgeGroups[j];
        groups[made++] = out = { key, groupKeys, groupValues, group: byColumn, values: NO_VALUES };
      } else out = groups[r.at[j]];
      for (const column of r.values) {
        const v =
          column >= 0 ? this.aggValue(column, combined, p * this.width) : this.outKey(group, -1 - column);
        if (typeof v === "number" && Number.isFinite(v)) {
          // A group's first value is a list of one (most groups have one a window), grown by push after.
          if (out.values === NO_VALUES) out.values = [v];
          else out.values.push(v);
          numeric++;
        }
      }
    }
    groups.length = made;
    return { ok: true as const, grouped: r.grouped, groups, noData: numeric === 0 };
  }

  /** One row of the result: group `g`'s keys (none for -1) and its aggregations from its partials at `values[at]`. */
  private rowOf(g: number, values: readonly unknown[], at: number): Record<string, unknown> {
    const row: Record<string, unknown> = {};
    if (g >= 0) this.d.by.forEach((b, k) => (row[b.name] = this.outKey(this.groups[g], k)));
    this.d.aggs.forEach((a, k) => (row[a.name] = this.aggValue(k, values, at)));
    return row;
  }

  /** A group's `by` value `k` as the result holds it: a time bin as RFC 3339 text, made only when asked for. */
  private outKey(g: ResultGroup, k: number): unknown {
    const w = this.d.by[k].binNs;
    return w === undefined ? g.plain[k] : new DateTime(g.q * w).toJSON();
  }

  /** Aggregation `k`'s value from a group's partials at `values[at]`: a sum is 0 over nothing, an average null. */
  private aggValue(k: number, values: readonly unknown[], at: number): unknown {
    const a = this.d.aggs[k];
    const x = values[at + this.aggAt[k]];
    if (a.kind === "sum") return typeof x === "number" ? x : 0;
    if (a.kind === "avg") {
      const n = values[at + this.aggAt[k] + 1];
      return typeof n === "number" && n > 0 ? (x as number) / n : null;
    }
    return x ?? null;
  }
}

/** One rebuilt window: a result table whose rows are made from its groups' partials when first read. */
class RebuiltWindow implements JudgeTable {
  readonly summarized = true;
  #rows: Record<string, unknown>[] | undefined;
  constructor(
    private readonly rebuilder: Rebuilder,
    private readonly present: readonly number[],
    private readonly combined: readonly unknown[],
    readonly matched: number,
    readonly read: JudgeTable["read"],
  ) {}
  get columns() {
    return this.rebuilder.columns;
  }
  get groupBy() {
    return this.rebuilder.groupBy;
  }
  get rows(): Record<string, unknown>[] {
    return (this.#rows ??= this.rebuilder.rowsOf(this.present, this.combined));
  }
}
