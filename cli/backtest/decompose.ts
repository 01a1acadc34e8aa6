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

/** The monitor's query as a {@link Decomposition}, or the reason it is none. */
export function decompose(apl: string): Decomposition | { reason: string } {
  let q: Query;
  try {
    q = parseApl(apl);
  } catch (err) {
    return { reason: `its query does not parse: ${(err as Error).message}` };
  }
  if (q.lets.length > 0 || q.datasets.length !== 1 || q.dataset === "")
    return { reason: "its query reads more than one dataset or uses let" };
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
      partialTexts.push(`${p}s = sum(${args})`, `${p}c = countif(isnotnull(${args}))`);
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

/** One row of the rewritten query's answer: its fine bin's start and its values. */
export interface FineRow {
  binNs: bigint;
  row: Record<string, unknown>;
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
  /** Its `by` values as the result holds them (a time bin as RFC 3339 text). */
  outKeys: unknown[];
  /** Its `by` values as the engine orders groups (a time bin as a datetime). */
  sortKeys: unknown[];
  /** Its place among every group, in that order. */
  rank: number;
}

/**
 * Rebuilds the monitor's result over any window from the fine bins (sorted by `binNs`, as the service answered
 * them). Each fine row is read once here, into flat columns (its bin, its group's number, its partials), and each
 * run then only combines the rows of its window: a month of one-minute runs rebuilds 43,200 windows, and what a
 * run allocates is what its result holds.
 */
export class Rebuilder {
  private readonly bins: BigInt64Array;
  private readonly groupOf: Int32Array;
  private readonly matched: Float64Array;
  /** Every row's partials, `width` a row, in the aggregations' order. */
  private readonly parts: unknown[];
  private readonly width: number;
  /** Each partial's combining kind, in `parts`' order. */
  private readonly kinds: ("sum" | "min" | "max")[];
  private readonly groups: ResultGroup[] = [];
  /** Per group: the run that last touched it, and its combined partials. */
  private readonly seenIn: Int32Array;
  private readonly acc: unknown[];
  private run = 0;
  private readonly columns: JudgeTable["columns"];
  private readonly groupBy: string[];

  constructor(
    private readonly d: Decomposition,
    fine: readonly FineRow[],
  ) {
    const timeBin = d.by.find((b) => b.binNs !== undefined)?.binNs;
    const partials = d.aggs.flatMap((a) => a.partials);
    this.width = partials.length;
    this.kinds = d.aggs.flatMap((a) => a.partials.map(() => (a.kind === "avg" ? "sum" : a.kind)));
    this.bins = new BigInt64Array(fine.length);
    this.groupOf = new Int32Array(fine.length);
    this.matched = new Float64Array(fine.length);
    this.parts = new Array<unknown>(fine.length * this.width);
    const byKey = new Map<string, number>();
    fine.forEach(({ binNs, row }, i) => {
      let q = 0n;
      if (timeBin !== undefined) {
        q = binNs / timeBin;
        if (binNs < 0n && binNs % timeBin !== 0n) q -= 1n;
      }
      const plain = d.by.map((b) => (b.binNs === undefined ? (row[b.name] ?? null) : 0));
      const key = `${q}\u0000${JSON.stringify(plain)}`;
      let g = byKey.get(key);
      if (g === undefined) {
        byKey.set(key, (g = this.groups.length));
        this.groups.push({
          outKeys: d.by.map((b) =>
            b.binNs === undefined ? (row[b.name] ?? null) : new DateTime(q * b.binNs).toJSON(),
          ),
          sortKeys: d.by.map((b) =>
            b.binNs === undefined ? (row[b.name] ?? null) : new DateTime(q * b.binNs),
          ),
          rank: 0,
        });
      }
      this.bins[i] = binNs;
      this.groupOf[i] = g;
      this.matched[i] = Number(row[COUNT_COLUMN] ?? 0);
      for (let k = 0; k < this.width; k++) this.parts[i * this.width + k] = row[partials[k]];
    });
    // The engine answers a summarize's groups ordered by their keys, nulls first (emulator/query/engine.ts): each
    // group's place in that order is worked out once, and a run's groups are put in order by it.
    const order = this.groups.map((_, g) => g);
    order.sort((x, y) => {
      for (let k = 0; k < d.by.length; k++) {
        const u = this.groups[x].sortKeys[k];
        const v = this.groups[y].sortKeys[k];
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
    });
    order.forEach((g, rank) => (this.groups[g].rank = rank));
    this.seenIn = new Int32Array(this.groups.length).fill(-1);
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
  }

  /**
   * The monitor's result over `[startNs, endNs)`: groups ordered by their keys, as the engine's summarize answers
   * them; an ungrouped summarize over nothing answers its one row of zeros (and nulls for min, max and avg).
   */
  window(startNs: bigint, endNs: bigint): JudgeTable {
    const { d, bins, width, kinds, acc, parts, seenIn } = this;
    const run = this.run++;
    let lo = 0;
    let hi = bins.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (bins[mid] < startNs) lo = mid + 1;
      else hi = mid;
    }
    const present: number[] = [];
    let matched = 0;
    for (let i = lo; i < bins.length && bins[i] < endNs; i++) {
      const g = this.groupOf[i];
      const at = g * width;
      if (seenIn[g] !== run) {
        seenIn[g] = run;
        present.push(g);
        for (let k = 0; k < width; k++) acc[at + k] = undefined;
      }
      matched += this.matched[i];
      for (let k = 0; k < width; k++) acc[at + k] = combine(kinds[k], acc[at + k], parts[i * width + k]);
    }
    if (present.length > 1) present.sort((x, y) => this.groups[x].rank - this.groups[y].rank);
    const rows: Record<string, unknown>[] = present.map((g) => this.rowOf(g, acc, g * width));
    if (rows.length === 0 && d.by.length === 0) rows.push(this.rowOf(-1, [], 0));
    return { columns: this.columns, groupBy: this.groupBy, summarized: true, rows, matched };
  }

  /** One row of the result: group `g`'s keys (none for -1) and its aggregations from its partials at `values[at]`. */
  private rowOf(g: number, values: readonly unknown[], at: number): Record<string, unknown> {
    const row: Record<string, unknown> = {};
    if (g >= 0) this.d.by.forEach((b, k) => (row[b.name] = this.groups[g].outKeys[k]));
    for (const a of this.d.aggs) {
      const x = values[at];
      if (a.kind === "sum") row[a.name] = typeof x === "number" ? x : 0;
      else if (a.kind === "avg") {
        const n = values[at + 1];
        row[a.name] = typeof n === "number" && n > 0 ? (x as number) / n : null;
      } else row[a.name] = x ?? null;
      at += a.partials.length;
    }
    return row;
  }
}
