/**
 * Compiles the syntax tree into closures once per query, so the per-row work is plain function calls, and lowers
 * the pipeline into plan operators the engine (emulator/query/engine.ts) runs. The legacy endpoint builds the same
 * plan operators.
 */
import type { AggregationCall, Expr, LiteralValue, NamedExpr, TabularExpr } from "./ast";
import {
  AGGREGATIONS,
  AggregationArgumentError,
  UNSUPPORTED_AGGREGATIONS,
  uniqueNames,
  type Accumulator,
  type GroupColumns,
} from "./aggregations";
import { AplError, positionOf, unsupported } from "./errors";
import { SCALAR_FUNCTIONS } from "./functions";
import { compileRegex } from "./regex";
import { parseRfc3339Ns } from "../time";
import { aplToString } from "./functions/text";
import { DateTime, Timespan, compareValues, equalValues } from "./values";
import type { QueryBudget } from "../query/budget";

/** A row flowing through a pipeline. Stored events are rows; project/extend/summarize make new ones. */
export interface Row {
  /** Source event's `_time`; kept through project/extend for paging, absent after summarize. */
  timeNs?: bigint;
  sysTimeNs?: bigint;
  rowId?: string;
  data: Record<string, unknown>;
}

/** Reads one value off a row. */
export type Getter = (row: Row) => unknown;
/** A compiled `where` condition. */
export type Predicate = (row: Row) => boolean;
/** An output column: its name and how to compute it. */
export interface Column {
  name: string;
  get: Getter;
  /**
   * Set when the column is `bin(_time, <constant>)` or `bin_auto(_time)`: the bin width, so summarize can group
   * events by their time's bin without making a datetime per row (the hot path of `summarize ... by bin(_time, 1m)`).
   */
  timeBinNs?: bigint;
}

/** Rows and, when an operator fixed them, their column names (undefined: every key the rows hold). */
export interface Table {
  rows: Row[];
  columns?: string[];
}

/** What a tabular operator may use while it runs: the budget, and the other tables a query names. */
export interface RunEnv {
  budget: QueryBudget;
  /** Runs a sub-plan whole (union's members, join's right side, a let-bound table), within the query's range. */
  run(plan: Plan): Promise<Table>;
  /** Names of every dataset, for union's wildcards. */
  datasetNames(): string[];
}

/** What a table operator answers: its rows, and what it tells the formats about them. */
export interface TableResult extends Table {
  /** "same": the input's columns carry over (undefined: every key the rows hold). */
  columns?: string[];
  keepColumns?: boolean;
  order?: { field: string; desc: boolean }[];
  summary?: { by: string[]; aggs: { name: string; fn: string; fields: string[]; args: unknown[] }[] };
}

/** A tabular operator that takes its input's rows whole (join, union, mv-expand, ...). */
export interface TableOp {
  op: "table";
  /** The operator's name, for errors. */
  name: string;
  run(input: Table, env: RunEnv): Promise<TableResult>;
  /**
   * Set when the operator works one row at a time (parse, extend-valid, redact, ...): the engine then runs it
   * inside the lazy scan, so `| parse ... | take 10` parses ten rows, not the dataset.
   */
  rowwise?: RowwiseOp;
}

/** One row in, one row (or none, when `drops`) out, and what the step does to the column list. */
export interface RowwiseOp {
  map(row: Row): Row | undefined;
  /** Whether `map` may drop a row (parse-where): a filter as well as a map. */
  drops: boolean;
  columns(input: string[] | undefined): string[] | undefined;
}

/** One lowered pipeline step. */
export type PlanOp =
  | { op: "where"; pred: Predicate }
  | { op: "sort"; keys: { name: string; get: Getter; desc: boolean; nullsFirst?: boolean }[] }
  | { op: "limit"; n: number }
  | { op: "project"; columns: Column[] }
  | { op: "extend"; columns: Column[] }
  | { op: "summarize"; aggs: PlanAggregation[]; by: Column[]; windowNs?: bigint }
  | TableOp;

/** One compiled aggregation, with what the tabular format reports of it (its `agg` object). */
export interface PlanAggregation {
  /** The first output column's name. */
  name: string;
  /** Every output column (percentiles and arg_max give several); `*` is spread into the row's columns. */
  outputs: string[];
  fn: string;
  /** Per-row arguments, in order (constants included as constant getters). */
  getters: Getter[];
  /** A fresh accumulator for one group. */
  create(windowNs?: bigint): Accumulator;
  /** Optional: every group's state at once, answering as create's accumulators would (see GroupColumns). */
  columns?(windowNs?: bigint): GroupColumns;
  /** The field it reads, when its argument is a field. */
  fields: string[];
  /** Its constant arguments (topk's k). */
  args: unknown[];
  /** An expression over hidden aggregations: computes the output from their results. */
  combine?: (values: unknown[]) => unknown;
  /** The hidden aggregations `combine` reads. */
  parts?: PlanAggregation[];
}

/** Where a plan's rows come from: a dataset's events, or a table another part of the query makes. */
export type PlanSource =
  { kind: "dataset"; name: string } | { kind: "table"; run(env: RunEnv): Promise<Table> };

/** A dataset and the steps to run over it. */
export interface Plan {
  /** The dataset the plan scans ("" when its source is a table). */
  dataset: string;
  ops: PlanOp[];
  /** Absent: the dataset named above. */
  source?: PlanSource;
  /** Every dataset the query reads. */
  datasets?: string[];
}

/** What a compiled expression may depend on besides the row. */
export interface CompileContext {
  /** `now()` and `ago()`, in nanoseconds. */
  now: bigint;
  /** The query's time range, for `bin_auto`; a day ending at `now` when it is not given whole. */
  startNs?: bigint;
  endNs?: bigint;
  /**
   * Counts the syntax-tree nodes compiled: each node is compiled exactly once, so this equals the tree's size,
   * which the parser bounds (MAX_TOKENS). Tests assert it to bound compile work without a wall clock.
   */
  stats?: { nodes: number };
  /** The query text, for the positions of errors found while compiling. */
  source?: string;
  /** Values of scalar `let` statements in scope. */
  scalars?: Map<string, unknown>;
  /** Plans of tabular `let` statements in scope. */
  tables?: Map<string, Plan>;
  /** Compiles a sub-query (union's members, join's right side); plan.ts sets it, the operators call it. */
  subquery?: (t: TabularExpr, ctx: CompileContext) => Plan;
}

/** An AplError at `pos` of the compiled query. */
export function compileError(ctx: CompileContext, message: string, pos: number): AplError {
  const { line, column } = ctx.source ? positionOf(ctx.source, pos) : { line: 1, column: 1 };
  return new AplError(message, line, column, "semantic");
}

const SECOND = 1_000_000_000n;
/** Bin sizes `bin_auto` picks from: the smallest that splits the range into at most {@link AUTO_BINS} bins. */
const AUTO_STEPS = [
  1n,
  5n,
  10n,
  15n,
  30n,
  60n,
  300n,
  600n,
  900n,
  1800n,
  3600n,
  10_800n,
  21_600n,
  43_200n,
  86_400n,
  604_800n,
  2_592_000n,
].map((s) => s * SECOND);
const AUTO_BINS = 100n;

/** The bin size of `bin_auto` for the query's range (the service sizes it from the range; see docs/emulator-live-service.md). */
export function autoBinNs(ctx: CompileContext): bigint {
  const end = ctx.endNs ?? ctx.now;
  const start = ctx.startNs !== undefined && ctx.endNs !== undefined ? ctx.startNs : end - 86_400n * SECOND;
  const range = end - start;
  for (const step of AUTO_STEPS) if (range <= step * AUTO_BINS) return step;
  return AUTO_STEPS[AUTO_STEPS.length - 1];
}

const hasOwn = Object.prototype.hasOwnProperty;

/** A getter for a field: `_time`/`_sysTime` from the event, `a.b.c` as a flat key first, then as a path. */
export function fieldGetter(name: string, path: readonly string[] = [name]): Getter {
  if (name === "_time")
    return (r) =>
      r.timeNs !== undefined && !hasOwn.call(r.data, "_time") ? new DateTime(r.timeNs) : r.data._time;
  if (name === "_sysTime")
    return (r) =>
      r.sysTimeNs !== undefined && !hasOwn.call(r.data, "_sysTime")
        ? new DateTime(r.sysTimeNs)
        : r.data._sysTime;
  if (path.length <= 1 && name.includes(".")) {
    // ['a.b'] reads the flat key a.b, else the nested a.b: the service flattens nested objects into dotted names.
    const parts = name.split(".");
    return (r) => (hasOwn.call(r.data, name) ? r.data[name] : walkPath(r.data, parts, 0));
  }
  if (path.length <= 1) return (r) => (hasOwn.call(r.data, name) ? r.data[name] : undefined);
  return (r) => {
    if (hasOwn.call(r.data, name)) return r.data[name];
    return walkPath(r.data, path, 0);
  };
}

/** `v[path[from]][path[from+1]]...`, where a segment may itself be a dotted flat key (`a['b.c']`). */
function walkPath(v: unknown, path: readonly string[], from: number): unknown {
  for (let i = from; i < path.length; i++) {
    if (v === null || typeof v !== "object") return undefined;
    const seg = path[i];
    if (Array.isArray(v)) {
      const n = Number(seg);
      if (!Number.isInteger(n)) return undefined;
      v = v[n < 0 ? v.length + n : n];
      continue;
    }
    if (!hasOwn.call(v, seg)) {
      // A flat key holding dots (`{"a.b": 1}` read as `x.a.b`): join the remaining segments greedily.
      for (let j = path.length; j > i + 1; j--) {
        const joined = path.slice(i, j).join(".");
        if (hasOwn.call(v, joined)) return walkPath((v as Record<string, unknown>)[joined], path, j);
      }
      return undefined;
    }
    v = (v as Record<string, unknown>)[seg];
  }
  return v;
}

/** An element of a dynamic value: `arr[0]`, `arr[-1]` (from the end), `bag['k']`; null when absent. */
export function indexValue(v: unknown, index: unknown): unknown {
  if (v === null || v === undefined || index === null || index === undefined) return null;
  if (typeof v === "string" && (v.startsWith("[") || v.startsWith("{"))) {
    try {
      v = JSON.parse(v) as unknown;
    } catch {
      return null;
    }
  }
  if (Array.isArray(v)) {
    if (typeof index !== "number" || !Number.isInteger(index)) return null;
    const at = index < 0 ? v.length + index : index;
    return at >= 0 && at < v.length ? v[at] : null;
  }
  if (typeof v === "object" && !(v instanceof DateTime) && !(v instanceof Timespan)) {
    const key = aplToString(index);
    return hasOwn.call(v, key) ? (v as Record<string, unknown>)[key] : null;
  }
  return null;
}

function literal(v: LiteralValue): unknown {
  switch (v.type) {
    case "null":
      return null;
    case "datetime":
      return new DateTime(v.ns);
    case "timespan":
      return new Timespan(v.ns);
    case "bool":
    case "int":
    case "real":
    case "string":
    case "dynamic":
      return v.value;
  }
}

function isTimeField(e: Expr): boolean {
  return e.kind === "field" && (e.name === "_time" || e.name === "_sysTime");
}

/** A string literal compared with `_time` is parsed once here instead of once per row. */
function timeAware(e: Expr, other: Expr, ctx: CompileContext): Getter {
  if (e.kind === "literal" && e.value.type === "string" && isTimeField(other)) {
    const ns = parseRfc3339Ns(e.value.value);
    if (ns !== undefined) {
      if (ctx.stats) ctx.stats.nodes++;
      const dt = new DateTime(ns);
      return () => dt;
    }
  }
  return compileExpr(e, ctx);
}

/**
 * `+ - * / %` on numbers, datetimes and timespans, as apl/scalar-operators/numerical-operators.mdx shows them
 * (`ago(10m) + 10m`, `1s * 5`, `10m / 1s`): datetime - datetime is a timespan, timespan / timespan a real.
 * Anything else, nulls included, is null.
 */
export function arithmetic(op: string, a: unknown, b: unknown): unknown {
  if (typeof a === "number" && typeof b === "number") {
    switch (op) {
      case "+":
        return a + b;
      case "-":
        return a - b;
      case "*":
        return a * b;
      case "/":
        if (b === 0) {
          if (Number.isInteger(a) && Number.isInteger(b)) return null;
          return a === 0 ? NaN : a > 0 ? Infinity : -Infinity;
        }
        // Kusto divides integers as integers.
        return Number.isInteger(a) && Number.isInteger(b) ? Math.trunc(a / b) : a / b;
      case "/.":
        // A division with a real operand (7.0 / 2), which a JS number cannot tell from an int once it is 7.
        return b === 0 ? (a === 0 ? NaN : a > 0 ? Infinity : -Infinity) : a / b;
      case "%":
        return b === 0 ? null : a % b;
    }
  }
  if (a instanceof DateTime && b instanceof Timespan) {
    if (op === "+") return new DateTime(a.ns + b.ns);
    if (op === "-") return new DateTime(a.ns - b.ns);
  }
  if (a instanceof Timespan && b instanceof DateTime && op === "+") return new DateTime(a.ns + b.ns);
  if (a instanceof DateTime && b instanceof DateTime && op === "-") return new Timespan(a.ns - b.ns);
  if (op === "/.") op = "/";
  if (a instanceof Timespan && b instanceof Timespan) {
    if (op === "+") return new Timespan(a.ns + b.ns);
    if (op === "-") return new Timespan(a.ns - b.ns);
    if (op === "/") return b.ns === 0n ? null : Number(a.ns) / Number(b.ns);
    if (op === "%") return b.ns === 0n ? null : new Timespan(a.ns % b.ns);
  }
  if (a instanceof Timespan && typeof b === "number" && Number.isFinite(b)) {
    if (op === "*") return new Timespan(BigInt(Math.round(Number(a.ns) * b)));
    if (op === "/") return b === 0 ? null : new Timespan(BigInt(Math.round(Number(a.ns) / b)));
  }
  if (typeof a === "number" && Number.isFinite(a) && b instanceof Timespan && op === "*") {
    return new Timespan(BigInt(Math.round(a * Number(b.ns))));
  }
  return null;
}

function isWordChar(code: number): boolean {
  // ASCII letters and digits, and every non-ASCII character (letters of other scripts): the term boundary of
  // `has` is any other character.
  return (
    (code >= 48 && code <= 57) ||
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    code === 95 ||
    code > 127
  );
}

/**
 * Where `needle` occurs in `hay` as a whole term (`has`), a term's start (`hasprefix`) or a term's end
 * (`hassuffix`): the occurrence bounded by non-alphanumeric characters or the string's ends. A plain scan, no regex.
 */
function hasTerm(hay: string, needle: string, mode: "has" | "hasprefix" | "hassuffix"): boolean {
  if (needle === "") return true;
  let from = 0;
  for (;;) {
    const at = hay.indexOf(needle, from);
    if (at < 0) return false;
    const before = at === 0 || !isWordChar(hay.charCodeAt(at - 1));
    const end = at + needle.length;
    const after = end >= hay.length || !isWordChar(hay.charCodeAt(end));
    if (
      (mode === "has" && before && after) ||
      (mode === "hasprefix" && before) ||
      (mode === "hassuffix" && after)
    ) {
      return true;
    }
    from = at + 1;
  }
}

/** The test of one string operator on two texts (already lowercased when case-insensitive). */
function stringTest(kind: string): (hay: string, needle: string) => boolean {
  switch (kind) {
    case "contains":
      return (h, n) => h.includes(n);
    case "startswith":
      return (h, n) => h.startsWith(n);
    case "endswith":
      return (h, n) => h.endsWith(n);
    case "hasprefix":
      return (h, n) => hasTerm(h, n, "hasprefix");
    case "hassuffix":
      return (h, n) => hasTerm(h, n, "hassuffix");
    default:
      return (h, n) => hasTerm(h, n, "has");
  }
}

/** `s` with RE2's special characters escaped, to match literally. */
export function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function isNullish(v: unknown): v is null | undefined {
  return v === null || v === undefined;
}

/** String operators of apl/scalar-operators/string-operators.mdx; a null side makes the positive form false. */
function stringOp(op: string, left: Getter, right: Getter, rightExpr: Expr): Getter {
  const negated = op.startsWith("!");
  const base = negated ? op.slice(1) : op;
  const cs = base.endsWith("_cs");
  const kind = cs ? base.slice(0, -3) : base;
  const test = stringTest(kind);
  if (rightExpr.kind === "literal" && rightExpr.value.type === "string") {
    const needle = cs ? rightExpr.value.value : rightExpr.value.value.toLowerCase();
    return (r) => {
      const a = left(r);
      if (isNullish(a)) return negated;
      const hay = typeof a === "string" ? a : aplToString(a);
      return test(cs ? hay : hay.toLowerCase(), needle) !== negated;
    };
  }
  return (r) => {
    const a = left(r);
    const b = right(r);
    if (isNullish(a) || isNullish(b)) return negated;
    const hit = cs
      ? test(aplToString(a), aplToString(b))
      : test(aplToString(a).toLowerCase(), aplToString(b).toLowerCase());
    return negated ? !hit : hit;
  };
}

/** `has_any`/`has_all` (and `_cs`): the left side holds any / every term of the list as a whole term. */
function hasListOp(op: string, left: Getter, items: Getter[]): Getter {
  const negated = op.startsWith("!");
  const base = negated ? op.slice(1) : op;
  const cs = base.endsWith("_cs");
  const all = base.startsWith("has_all");
  return (r) => {
    const a = left(r);
    if (isNullish(a)) return negated;
    const hay = cs ? aplToString(a) : aplToString(a).toLowerCase();
    const needles = flatten(items.map((g) => g(r)));
    let hit = all;
    for (const n of needles) {
      if (isNullish(n)) continue;
      const found = hasTerm(hay, cs ? aplToString(n) : aplToString(n).toLowerCase(), "has");
      if (all && !found) {
        hit = false;
        break;
      }
      if (!all && found) {
        hit = true;
        break;
      }
    }
    return hit !== negated;
  };
}

/** The values of an `in` list: dynamic arrays in it stand for their elements. */
function flatten(values: unknown[]): unknown[] {
  const out: unknown[] = [];
  for (const v of values) {
    // Element by element: a long array spread into push() would overflow the call stack.
    if (Array.isArray(v)) for (const x of v as unknown[]) out.push(x);
    else out.push(v);
  }
  return out;
}

function bin(v: unknown, size: unknown): unknown {
  if (typeof v === "number" && typeof size === "number" && size > 0) return Math.floor(v / size) * size;
  if (size instanceof Timespan && size.ns > 0n) {
    if (v instanceof DateTime || v instanceof Timespan) {
      let q = v.ns / size.ns;
      if (v.ns < 0n && v.ns % size.ns !== 0n) q -= 1n;
      return v instanceof DateTime ? new DateTime(q * size.ns) : new Timespan(q * size.ns);
    }
  }
  return null;
}

/** The row's columns as one property bag (`pack_all()`, `*` arguments), datetimes kept as values. */
export function rowBag(r: Row, ignoreNulls = false): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (r.timeNs !== undefined && !hasOwn.call(r.data, "_time")) out._time = new DateTime(r.timeNs);
  for (const k in r.data) {
    const v = r.data[k];
    if (ignoreNulls && (v === null || v === undefined || v === "")) continue;
    out[k] = v;
  }
  return out;
}

/** The core's own functions (see CORE_FUNCTIONS in catalog.ts). */
function coreCall(e: Extract<Expr, { kind: "call" }>, ctx: CompileContext): Getter | undefined {
  const args = (): Getter[] => e.args.map((x) => compileExpr(x, ctx));
  switch (e.name) {
    case "now": {
      const offset = e.args.length > 0 ? compileExpr(e.args[0], ctx)({ data: {} }) : undefined;
      const ns = offset instanceof Timespan ? ctx.now + offset.ns : ctx.now;
      const now = new DateTime(ns);
      return () => now;
    }
    case "ago": {
      const [a] = args();
      return (r) => {
        const v = a(r);
        return v instanceof Timespan ? new DateTime(ctx.now - v.ns) : null;
      };
    }
    case "bin_auto": {
      const [a] = args();
      const size = new Timespan(autoBinNs(ctx));
      return (r) => bin(a(r), size);
    }
    case "ingestion_time":
      return (r) => (r.sysTimeNs !== undefined ? new DateTime(r.sysTimeNs) : null);
    case "iff":
    case "iif": {
      const [a, b, c] = args();
      return (r) => (a(r) === true ? b(r) : c(r));
    }
    case "case": {
      const gs = args();
      return (r) => {
        let i = 0;
        for (; i + 1 < gs.length; i += 2) if (gs[i](r) === true) return gs[i + 1](r);
        return gs[gs.length - 1](r);
      };
    }
    case "coalesce": {
      const gs = args();
      return (r) => {
        for (const g of gs) {
          const v = g(r);
          if (v !== null && v !== undefined && v !== "") return v;
        }
        return null;
      };
    }
    case "pack_array": {
      const gs = args();
      return (r) => gs.map((g) => g(r) ?? null);
    }
    case "__search": {
      // search's bare term (apl/tabular-operators/search-operator.mdx): `x` has, `x*` hasprefix, `*x` hassuffix,
      // `*x*` contains, `a*b` a regex over terms; in any column, case-insensitively unless kind=case_sensitive.
      const lit = e.args[0];
      const csArg = e.args[1];
      const cs = csArg?.kind === "literal" && csArg.value.type === "bool" && csArg.value.value;
      const fold = (x: string) => (cs ? x : x.toLowerCase());
      const term = lit.kind === "literal" && lit.value.type === "string" ? fold(lit.value.value) : "";
      const core = term.replace(/^\*+|\*+$/g, "");
      const lead = term.startsWith("*");
      const trail = term.endsWith("*") && term.length > 1;
      let test: (text: string) => boolean;
      if (core.includes("*")) {
        const re = compileRegex(`\\b${core.split("*").map(escapeRegex).join(".*")}\\b`);
        test = (t) => re.test(t);
      } else if (lead && trail) test = (t) => t.includes(core);
      else if (trail) test = (t) => hasTerm(t, core, "hasprefix");
      else if (lead) test = (t) => hasTerm(t, core, "hassuffix");
      else test = (t) => hasTerm(t, core, "has");
      return (r) => {
        for (const k in r.data) {
          const v = r.data[k];
          if (v === null || v === undefined) continue;
          if (test(fold(aplToString(v)))) return true;
        }
        return false;
      };
    }
    case "ensure_field": {
      // ensure_field('name', typeof(T)): the column's value as T, or null when the column does not exist.
      const [nameExpr, typeExpr] = e.args;
      if (nameExpr.kind !== "literal" || nameExpr.value.type !== "string") {
        throw compileError(ctx, "ensure_field takes the field's name as a string", nameExpr.pos);
      }
      const name = nameExpr.value.value;
      const type = constantValue(typeExpr, ctx);
      const get = fieldGetter(name, name.split("."));
      return (r) => {
        const v = get(r);
        if (v === undefined || v === null) return null;
        if (type === "string") return aplToString(v);
        if (type === "int" || type === "long")
          return typeof v === "number"
            ? Math.trunc(v)
            : Number.isFinite(Number(v))
              ? Math.trunc(Number(v))
              : null;
        if (type === "real" || type === "double")
          return typeof v === "number" ? v : Number.isFinite(Number(v)) ? Number(v) : null;
        return v;
      };
    }
    case "cursor_current":
      return (r) => r.rowId ?? null;
    case "column_ifexists": {
      const nameExpr = e.args[0];
      if (nameExpr.kind !== "literal" || nameExpr.value.type !== "string") {
        throw compileError(ctx, "column_ifexists takes the column's name as a string", nameExpr.pos);
      }
      const name = nameExpr.value.value;
      const get = fieldGetter(name, name.split("."));
      const fallback = compileExpr(e.args[1], ctx);
      return (r) => {
        const v = get(r);
        return v === undefined ? fallback(r) : v;
      };
    }
    case "isnull":
    case "isnotnull": {
      // countif(isnotnull(x)) over every row: no argument list per row. An error of the argument is named after
      // this call, as the generic path names it.
      if (e.args.length !== 1 || e.args[0].kind === "star" || e.args[0].kind === "literal") return undefined;
      const [a] = args();
      const want = e.name === "isnotnull";
      return (r) => {
        let v: unknown;
        try {
          v = a(r);
        } catch (err) {
          if (err instanceof AplError) throw compileError(ctx, `${e.name}(): ${err.message}`, e.pos);
          throw err;
        }
        return (v !== null && v !== undefined) === want;
      };
    }
    case "pack_all": {
      const ignore = e.args.length > 0 ? compileExpr(e.args[0], ctx)({ data: {} }) === true : false;
      return (r) => rowBag(r, ignore);
    }
    case "bag_pack_columns": {
      const cols = e.args.map((x) => {
        if (x.kind !== "field") throw compileError(ctx, "bag_pack_columns takes column names", x.pos);
        return { name: x.name, get: compileExpr(x, ctx) };
      });
      return (r) => {
        const out: Record<string, unknown> = {};
        for (const c of cols) out[c.name] = c.get(r) ?? null;
        return out;
      };
    }
    default:
      return undefined;
  }
}

function call(e: Extract<Expr, { kind: "call" }>, ctx: CompileContext): Getter {
  const core = coreCall(e, ctx);
  if (core) return core;
  const fn = SCALAR_FUNCTIONS.get(e.name);
  if (!fn) throw compileError(ctx, `unknown function '${e.name}'`, e.pos);
  const fctx = { now: ctx.now, startNs: ctx.startNs, endNs: ctx.endNs };
  const args = e.args.map((x) => (x.kind === "star" ? (r: Row) => rowBag(r) : compileExpr(x, ctx)));
  const n = args.length;
  const wrap = (f: () => unknown): unknown => {
    try {
      return f();
    } catch (err) {
      // A constant argument the function cannot use (a bad regex, an unknown format) is a 400 naming the call.
      if (err instanceof AplError) throw compileError(ctx, `${e.name}(): ${err.message}`, e.pos);
      throw err;
    }
  };
  // Constant arguments (all of them literals) are evaluated once: the call becomes a constant, unless the
  // function answers anew each call (rand).
  if (!fn.volatile && e.args.every((x) => x.kind === "literal")) {
    const v = wrap(() =>
      fn.call(
        args.map((g) => g({ data: {} })),
        fctx,
      ),
    );
    return () => v;
  }
  // One- and two-argument calls (isnotnull(x), a filter's or an aggregation's argument over millions of rows) catch
  // as wrap does, without a closure per row.
  const rethrow = (err: unknown): never => {
    if (err instanceof AplError) throw compileError(ctx, `${e.name}(): ${err.message}`, e.pos);
    throw err;
  };
  if (n === 1) {
    const [a] = args;
    return (r) => {
      try {
        return fn.call([a(r)], fctx);
      } catch (err) {
        return rethrow(err);
      }
    };
  }
  if (n === 2) {
    const [a, b] = args;
    return (r) => {
      try {
        return fn.call([a(r), b(r)], fctx);
      } catch (err) {
        return rethrow(err);
      }
    };
  }
  return (r) => {
    const vals = new Array<unknown>(n);
    for (let i = 0; i < n; i++) vals[i] = args[i](r);
    return wrap(() => fn.call(vals, fctx));
  };
}

/**
 * `field <op> number` and `field ==/!= string`: the shapes of nearly every filter, compiled without the
 * generic comparison so a million-row scan stays well inside its budget. Same results as the generic path.
 */
function constantComparison(e: Extract<Expr, { kind: "binary" }>, l: Getter): Getter | undefined {
  if (e.right.kind !== "literal" || isTimeField(e.left)) return undefined;
  const lit = e.right.value;
  if (lit.type === "int" || lit.type === "real") {
    const c = lit.value;
    switch (e.op) {
      case "==":
        return (r) => l(r) === c;
      case "!=":
        return (r) => {
          const v = l(r);
          return typeof v === "number" ? v !== c : v === null || v === undefined;
        };
      case "<":
        return (r) => {
          const v = l(r);
          return typeof v === "number" && v < c;
        };
      case "<=":
        return (r) => {
          const v = l(r);
          return typeof v === "number" && v <= c;
        };
      case ">":
        return (r) => {
          const v = l(r);
          return typeof v === "number" && v > c;
        };
      case ">=":
        return (r) => {
          const v = l(r);
          return typeof v === "number" && v >= c;
        };
    }
  }
  if (lit.type === "string" && (e.op === "==" || e.op === "!=")) {
    const c = lit.value;
    if (e.op === "==") return (r) => l(r) === c;
    return (r) => {
      const v = l(r);
      return typeof v === "string" ? v !== c : v === null || v === undefined;
    };
  }
  return undefined;
}

type Binary = Extract<Expr, { kind: "binary" }>;

/** Operators that chain left-associatively at one precedence level: `a + b - c`, `a * b / c`, `a and b and c`. */
const CHAIN_CLASS: Partial<Record<string, string>> = {
  "+": "additive",
  "-": "additive",
  "*": "multiplicative",
  "/": "multiplicative",
  "%": "multiplicative",
  and: "and",
  or: "or",
};

/**
 * A flat chain `t0 op1 t1 op2 t2 …` parses as a left-deep tree as deep as it is long. It is compiled by walking
 * that left spine in a loop, into one closure that loops over the terms: neither compiling nor evaluating it
 * recurses per term, so its length never meets the stack, and each node is compiled once.
 */
function compileChain(e: Binary, cls: string, ctx: CompileContext): Getter {
  const ops: Binary[] = [];
  let base: Expr = e;
  while (base.kind === "binary" && CHAIN_CLASS[base.op] === cls) {
    ops.push(base);
    base = base.left;
  }
  ops.reverse();
  if (ctx.stats) ctx.stats.nodes += ops.length;
  // Only the first step's left side is the base itself; every later left side is a chain node, never `_time`.
  const first = timeAware(base, ops[0].right, ctx);
  const rights = ops.map((o, i) => (i === 0 ? timeAware(o.right, base, ctx) : compileExpr(o.right, ctx)));
  const n = rights.length;
  if (cls === "and" && n === 1) {
    const [r] = rights;
    return (row) => first(row) === true && r(row) === true;
  }
  if (cls === "or" && n === 1) {
    const [r] = rights;
    return (row) => first(row) === true || r(row) === true;
  }
  if (cls === "and") {
    const terms = [first, ...rights];
    return (row) => {
      for (let i = 0; i <= n; i++) if (terms[i](row) !== true) return false;
      return true;
    };
  }
  if (cls === "or") {
    const terms = [first, ...rights];
    return (row) => {
      for (let i = 0; i <= n; i++) if (terms[i](row) === true) return true;
      return false;
    };
  }
  // A real anywhere before a division makes it a real division (apl: real / int is real).
  let real = isRealExpr(base);
  const symbols = ops.map((o) => {
    real ||= isRealExpr(o.right);
    return o.op === "/" && real ? "/." : o.op;
  });
  if (n === 1) {
    const [op] = symbols;
    const [r] = rights;
    return (row) => arithmetic(op, first(row), r(row));
  }
  return (row) => {
    let v = first(row);
    for (let i = 0; i < n; i++) v = arithmetic(symbols[i], v, rights[i](row));
    return v;
  };
}

/** Functions whose result is a real whatever their arguments (the reference's conversion and math pages). */
const REAL_FUNCTIONS = new Set([
  "todouble",
  "toreal",
  "todecimal",
  "sqrt",
  "exp",
  "exp2",
  "exp10",
  "log",
  "log10",
  "log2",
  "pow",
  "rand",
  "pi",
]);

/** Whether an expression is typed real statically: a real literal, a real-valued function, or arithmetic on one. */
function isRealExpr(e: Expr): boolean {
  switch (e.kind) {
    case "literal":
      return e.value.type === "real";
    case "call":
      return REAL_FUNCTIONS.has(e.name);
    case "neg":
      return isRealExpr(e.operand);
    case "binary":
      return (
        CHAIN_CLASS[e.op] !== undefined &&
        CHAIN_CLASS[e.op] !== "and" &&
        CHAIN_CLASS[e.op] !== "or" &&
        (isRealExpr(e.left) || isRealExpr(e.right))
      );
    default:
      return false;
  }
}

/** Compares with `==` semantics, a string and a datetime comparing as times. */
function loosely(a: unknown, b: unknown): number | undefined {
  return compareValues(a, b);
}

/** A comparison or string operator: both sides compiled once, the fast path tried on the compiled left. */
function compileComparison(e: Binary, ctx: CompileContext): Getter {
  if (e.left.kind === "star") {
    // `* has "x"`: true when the operator holds for any column of the row.
    const column: Expr = { kind: "field", name: "__column", path: ["__column"], pos: e.pos };
    const test = compileComparison({ ...e, left: column }, ctx);
    return (r) => {
      for (const k in r.data) {
        const v = r.data[k];
        if (v === null || v === undefined) continue;
        if (test({ data: { __column: v } }) === true) return true;
      }
      return false;
    };
  }
  if (ctx.stats) ctx.stats.nodes++;
  const l = timeAware(e.left, e.right, ctx);
  if (e.right.kind === "literal") {
    const fast = constantComparison(e, l);
    if (fast) {
      if (ctx.stats) ctx.stats.nodes++;
      return fast;
    }
  }
  if (
    e.op === "has_any" ||
    e.op === "has_all" ||
    e.op === "has_any_cs" ||
    e.op === "has_all_cs" ||
    e.op.startsWith("!has_a")
  ) {
    const items =
      e.right.kind === "call" && e.right.name === "pack_array"
        ? e.right.args.map((x) => compileExpr(x, ctx))
        : [compileExpr(e.right, ctx)];
    return hasListOp(e.op, l, items);
  }
  if (e.op === "matches regex" || e.op === "!matches regex") {
    const negated = e.op.startsWith("!");
    if (e.right.kind === "literal" && e.right.value.type === "string") {
      let re;
      try {
        re = compileRegex(e.right.value.value);
      } catch (err) {
        if (err instanceof AplError) throw compileError(ctx, `matches regex: ${err.message}`, e.right.pos);
        throw err;
      }
      return (row) => {
        const a = l(row);
        if (isNullish(a)) return negated;
        return re.test(aplToString(a)) !== negated;
      };
    }
    const rg = compileExpr(e.right, ctx);
    return (row) => {
      const a = l(row);
      const p = rg(row);
      if (isNullish(a) || typeof p !== "string") return negated;
      try {
        return compileRegex(p).test(aplToString(a)) !== negated;
      } catch {
        return false;
      }
    };
  }
  const r = timeAware(e.right, e.left, ctx);
  switch (e.op) {
    // apl/data-types/null-values.mdx: null == null and null != null are null; null against a value is false
    // for == and true for !=.
    case "==":
      return (row) => {
        const a = l(row);
        const b = r(row);
        if (isNullish(a) && isNullish(b)) return null;
        return equalValues(a, b);
      };
    case "!=":
      return (row) => {
        const a = l(row);
        const b = r(row);
        const aNull = a === null || a === undefined;
        const bNull = b === null || b === undefined;
        if (aNull && bNull) return null;
        if (aNull || bNull) return true;
        const c = loosely(a, b);
        return c !== 0;
      };
    case "=~":
    case "!~": {
      const want = e.op === "=~";
      return (row) => {
        const a = l(row);
        const b = r(row);
        if (isNullish(a) || isNullish(b)) return !want && isNullish(a) !== isNullish(b);
        return (aplToString(a).toLowerCase() === aplToString(b).toLowerCase()) === want;
      };
    }
    case "<":
      return (row) => (loosely(l(row), r(row)) ?? 0) < 0;
    case "<=": {
      return (row) => {
        const c = loosely(l(row), r(row));
        return c !== undefined && c <= 0;
      };
    }
    case ">":
      return (row) => (loosely(l(row), r(row)) ?? 0) > 0;
    case ">=":
      return (row) => {
        const c = loosely(l(row), r(row));
        return c !== undefined && c >= 0;
      };
    default:
      return stringOp(e.op, l, r, e.right);
  }
}

/** A hashable form of a scalar for `in`'s constant lists (strings apart from numbers). */
function inKey(v: unknown, ci: boolean): string | undefined {
  if (typeof v === "string") return `s${ci ? v.toLowerCase() : v}`;
  if (typeof v === "number") return `n${v}`;
  if (typeof v === "boolean") return `b${v}`;
  if (v instanceof DateTime) return `d${v.ns}`;
  if (v instanceof Timespan) return `t${v.ns}`;
  return undefined;
}

function compileIn(e: Extract<Expr, { kind: "in" }>, ctx: CompileContext): Getter {
  const g = compileExpr(e.operand, ctx);
  const list = e.list.map((x) => timeAware(x, e.operand, ctx));
  const { negated, caseInsensitive: ci } = e;
  // A constant list is hashed once: one lookup per row, however long the list.
  if (e.list.every((x) => x.kind === "literal" || (x.kind === "field" && ctx.scalars?.has(x.name)))) {
    const values = flatten(list.map((x) => x({ data: {} })));
    const keys = new Set<string>();
    let hashable = true;
    for (const v of values) {
      if (isNullish(v)) continue;
      const k = inKey(v, ci);
      if (k === undefined) hashable = false;
      else keys.add(k);
    }
    if (hashable) {
      return (r) => {
        const v = g(r);
        if (isNullish(v)) return negated;
        const k = inKey(v instanceof DateTime || typeof v !== "object" ? v : null, ci);
        const hit = k !== undefined && keys.has(k);
        return negated ? !hit : hit;
      };
    }
  }
  return (r) => {
    const v = g(r);
    if (isNullish(v)) return negated;
    const items = flatten(list.map((x) => x(r)));
    const hit = items.some((x) =>
      ci && typeof v === "string" && typeof x === "string"
        ? v.toLowerCase() === x.toLowerCase()
        : equalValues(v, x),
    );
    return negated ? !hit : hit;
  };
}

function compileBetween(e: Extract<Expr, { kind: "between" }>, ctx: CompileContext): Getter {
  const g = compileExpr(e.operand, ctx);
  const lo = timeAware(e.low, e.operand, ctx);
  const hi = timeAware(e.high, e.operand, ctx);
  const negated = e.negated;
  return (r) => {
    const v = g(r);
    if (isNullish(v)) return false;
    const a = lo(r);
    let b = hi(r);
    // `datetime(...) .. 1d`: a timespan upper bound counts from the lower one.
    if (a instanceof DateTime && b instanceof Timespan) b = new DateTime(a.ns + b.ns);
    const c1 = compareValues(v, a);
    const c2 = compareValues(v, b);
    if (c1 === undefined || c2 === undefined) return false;
    const inside = c1 >= 0 && c2 <= 0;
    return negated ? !inside : inside;
  };
}

/** Compiles an expression into a closure over a row; every node of `e` is compiled exactly once. */
export function compileExpr(e: Expr, ctx: CompileContext): Getter {
  if (e.kind === "binary") {
    const cls = CHAIN_CLASS[e.op];
    return cls ? compileChain(e, cls, ctx) : compileComparison(e, ctx);
  }
  if (ctx.stats) ctx.stats.nodes++;
  switch (e.kind) {
    case "literal": {
      const v = literal(e.value);
      return () => v;
    }
    case "field": {
      const scalars = ctx.scalars;
      if (scalars?.has(e.path[0]) && (scalars.has(e.name) || e.path.length > 1)) {
        const v = scalars.has(e.name) ? scalars.get(e.name) : walkPath(scalars.get(e.path[0]), e.path, 1);
        return () => v;
      }
      return fieldGetter(e.name, e.path);
    }
    case "index": {
      const t = compileExpr(e.target, ctx);
      const i = compileExpr(e.index, ctx);
      return (r) => indexValue(t(r), i(r));
    }
    case "neg": {
      const g = compileExpr(e.operand, ctx);
      return (r) => {
        const v = g(r);
        if (typeof v === "number") return -v;
        if (v instanceof Timespan) return new Timespan(-v.ns);
        return null;
      };
    }
    case "in":
      return compileIn(e, ctx);
    case "between":
      return compileBetween(e, ctx);
    case "star":
      return (r) => rowBag(r);
    case "call":
      return call(e, ctx);
  }
}

/** Evaluates a row-independent expression once (a let's value, a constant argument). */
export function constantValue(e: Expr, ctx: CompileContext): unknown {
  return compileExpr(e, ctx)({ data: {} });
}

/** The name `summarize` gives an aggregation: `name =`, else the registry's default from the arguments. */
function aggregationNames(a: AggregationCall, constants: unknown[]): string[] {
  const def = AGGREGATIONS.get(a.fn)!;
  return def.outputNames(a.given, a.argTexts, constants);
}

/** Compiles one aggregation call of summarize/make-series into a plan aggregation. */
export function compileAggregation(
  a: AggregationCall,
  ctx: CompileContext,
  hiddenName?: string,
): PlanAggregation {
  if (a.expr) return compileAggregationExpr(a, ctx);
  const def = AGGREGATIONS.get(a.fn);
  const refused = UNSUPPORTED_AGGREGATIONS.get(a.fn);
  if (!def && refused !== undefined) throw compileError(ctx, unsupported(a.fn, refused), a.pos);
  if (!def) throw compileError(ctx, `unknown aggregation function '${a.fn}'`, a.pos);
  if (a.args.length < def.minArgs || a.args.length > def.maxArgs) {
    const want =
      def.minArgs === def.maxArgs
        ? `${def.minArgs}`
        : def.maxArgs === Infinity
          ? `at least ${def.minArgs}`
          : `${def.minArgs} to ${def.maxArgs}`;
    throw compileError(
      ctx,
      `${a.fn}() takes ${want} argument${want === "1" ? "" : "s"}, got ${a.args.length}`,
      a.pos,
    );
  }
  const constantAt = new Set(def.constantArgs ?? []);
  if (def.constantArgsFrom !== undefined)
    for (let i = def.constantArgsFrom; i < a.args.length; i++) constantAt.add(i);
  // Dense, with undefined at the per-row positions: the …if forms drop the predicate's position by index.
  const constants: unknown[] = a.args.map(() => undefined);
  const getters: Getter[] = a.args.map((x, i) => {
    if (x.kind === "star") return (r: Row) => rowBag(r);
    if (constantAt.has(i)) {
      const g = compileExpr(x, ctx);
      const v = g({ data: {} });
      constants[i] = v;
      return () => v;
    }
    return compileExpr(x, ctx);
  });
  let names: string[];
  try {
    names = aggregationNames(a, constants);
    def.create(constants);
  } catch (err) {
    if (err instanceof AggregationArgumentError || err instanceof AplError) {
      // The registry's messages name the function already ("topk() takes k as ..."); others get its name.
      const message = err.message.startsWith(`${a.fn}(`) ? err.message : `${a.fn}(): ${err.message}`;
      throw compileError(ctx, message, a.pos);
    }
    throw err;
  }
  const fields = a.args.flatMap((x) => (x.kind === "field" ? [x.name] : []));
  let context: { windowNs?: bigint; argTexts: readonly string[] } | undefined;
  return {
    name: hiddenName ?? names[0],
    outputs: hiddenName ? [hiddenName] : names,
    fn: a.fn,
    getters,
    create: (windowNs) => {
      // One context for every group of a summarize (a summary by bin and key makes hundreds of thousands).
      if (context === undefined || context.windowNs !== windowNs)
        context = { windowNs, argTexts: a.argTexts };
      return def.create(constants, context);
    },
    columns:
      def.columns === undefined
        ? undefined
        : (windowNs) => def.columns!(constants, { windowNs, argTexts: a.argTexts }),
    fields,
    args: constants.filter((v) => v !== undefined),
  };
}

/** `round(100.0 * countif(x) / count(), 2)`: hidden aggregations, then the expression over their results. */
function compileAggregationExpr(a: AggregationCall, ctx: CompileContext): PlanAggregation {
  const parts: PlanAggregation[] = [];
  const rewrite = (e: Expr): Expr => {
    if (e.kind === "call" && AGGREGATIONS.has(e.name)) {
      const name = `__agg${parts.length}`;
      const argTexts = e.args.map((x) => (x.kind === "field" ? x.name : ""));
      parts.push(compileAggregation({ fn: e.name, args: e.args, argTexts, pos: e.pos }, ctx, name));
      return { kind: "field", name, path: [name], pos: e.pos };
    }
    switch (e.kind) {
      case "call":
        return { ...e, args: e.args.map(rewrite) };
      case "binary":
        return { ...e, left: rewrite(e.left), right: rewrite(e.right) };
      case "neg":
        return { ...e, operand: rewrite(e.operand) };
      case "index":
        return { ...e, target: rewrite(e.target), index: rewrite(e.index) };
      case "in":
        return { ...e, operand: rewrite(e.operand), list: e.list.map(rewrite) };
      case "between":
        return { ...e, operand: rewrite(e.operand), low: rewrite(e.low), high: rewrite(e.high) };
      default:
        return e;
    }
  };
  const rewritten = rewrite(a.expr!);
  if (parts.length === 0) {
    // An expression with no aggregation (array-concat.mdx's example): the group's first row's value.
    const get = compileExpr(a.expr!, ctx);
    const name = a.given ?? "Column1";
    return {
      name,
      outputs: [name],
      fn: "expression",
      getters: [get],
      create: () => {
        let seen = false;
        let value: unknown = null;
        return {
          add(args) {
            if (seen) return;
            seen = true;
            value = args[0];
          },
          result: () => [value],
        };
      },
      fields: [],
      args: [],
    };
  }
  const outer = compileExpr(rewritten, ctx);
  const name = a.given ?? "Column1";
  return {
    name,
    outputs: [name],
    fn: "expression",
    getters: [],
    create: () => ({ add() {}, result: () => [] }),
    fields: [],
    args: [],
    parts,
    combine: (values) => {
      const data: Record<string, unknown> = {};
      parts.forEach((p, i) => (data[p.name] = values[i]));
      return outer({ data });
    },
  };
}

/** The width of `bin(_time, w)`/`bin_auto(_time)` with a constant positive `w`, else undefined. */
function timeBin(e: Expr, ctx: CompileContext): bigint | undefined {
  if (e.kind !== "call" || e.args[0]?.kind !== "field" || e.args[0].name !== "_time") return undefined;
  if (e.name === "bin_auto" && e.args.length === 1) return autoBinNs(ctx);
  const w = e.args[1];
  if (
    (e.name === "bin" || e.name === "floor") &&
    w?.kind === "literal" &&
    w.value.type === "timespan" &&
    w.value.ns > 0n
  ) {
    return w.value.ns;
  }
  return undefined;
}

/** The bin width of a `by bin(_time, w)`/`bin_auto(_time)` group, for `rate`'s window. */
function binWidth(by: NamedExpr[], ctx: CompileContext): bigint | undefined {
  for (const b of by) {
    const e = b.expr;
    if (e.kind !== "call" || e.args[0]?.kind !== "field" || !isTimeField(e.args[0])) continue;
    if (e.name === "bin_auto") return autoBinNs(ctx);
    if (
      (e.name === "bin" || e.name === "floor") &&
      e.args[1]?.kind === "literal" &&
      e.args[1].value.type === "timespan"
    ) {
      return e.args[1].value.ns;
    }
  }
  return undefined;
}

/** Lowers a summarize's aggregations and groups. */
export function compileSummarize(
  aggs: AggregationCall[],
  by: NamedExpr[],
  ctx: CompileContext,
): Extract<PlanOp, { op: "summarize" }> {
  const window =
    binWidth(by, ctx) ??
    (ctx.startNs !== undefined && ctx.endNs !== undefined ? ctx.endNs - ctx.startNs : undefined);
  const compiled = aggs.map((a) => compileAggregation(a, ctx));
  // Repeated output names are made unique as the service does (x, x1, x2): arg_max(x, a), arg_min(x, *).
  const names = uniqueNames([
    ...by.map((c) => c.name),
    ...compiled.flatMap((a) => a.outputs.filter((n) => n !== "*")),
  ]);
  let at = by.length;
  const renamed = compiled.map((a) => {
    const outputs = a.outputs.map((n) => (n === "*" ? n : names[at++]));
    return { ...a, outputs, name: outputs.find((n) => n !== "*") ?? a.name };
  });
  return {
    op: "summarize",
    aggs: renamed,
    by: by.map((c, i) => ({
      name: names[i],
      get: compileExpr(c.expr, ctx),
      timeBinNs: timeBin(c.expr, ctx),
    })),
    windowNs: window,
  };
}
