/**
 * Compiles the syntax tree into closures once per query, so the per-row work is plain function calls,
 * and lowers the pipeline into plan operators that the legacy endpoint can build too.
 */
import type { Aggregation, Expr, LiteralValue, Query } from "./ast";
import { parseRfc3339Ns } from "../time";
import { DateTime, Timespan, compareValues, equalValues, toText } from "./values";

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
}

/** One lowered pipeline step. */
export type PlanOp =
  | { op: "where"; pred: Predicate }
  | { op: "sort"; keys: { name: string; get: Getter; desc: boolean }[] }
  | { op: "limit"; n: number }
  | { op: "project"; columns: Column[] }
  | { op: "extend"; columns: Column[] }
  | { op: "summarize"; aggs: PlanAggregation[]; by: Column[] };

/** One compiled aggregation, with what the tabular format reports of it (its `agg` object). */
export interface PlanAggregation {
  name: string;
  fn: Aggregation["fn"];
  get?: Getter;
  /** topk's k. */
  k?: number;
  /** The field it reads, when its argument is a field. */
  fields: string[];
  /** Its non-field arguments (topk's k). */
  args: unknown[];
}

/** A dataset and the steps to run over it. */
export interface Plan {
  dataset: string;
  ops: PlanOp[];
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
  if (name === "_time") return (r) => (r.timeNs !== undefined ? new DateTime(r.timeNs) : r.data._time);
  if (name === "_sysTime")
    return (r) => (r.sysTimeNs !== undefined ? new DateTime(r.sysTimeNs) : r.data._sysTime);
  if (path.length <= 1) return (r) => (hasOwn.call(r.data, name) ? r.data[name] : undefined);
  return (r) => {
    if (hasOwn.call(r.data, name)) return r.data[name];
    let v: unknown = r.data;
    for (const seg of path) {
      if (v === null || typeof v !== "object" || !hasOwn.call(v, seg)) return undefined;
      v = (v as Record<string, unknown>)[seg];
    }
    return v;
  };
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

function arithmetic(op: string, a: unknown, b: unknown): unknown {
  if (typeof a === "number" && typeof b === "number") {
    switch (op) {
      case "+":
        return a + b;
      case "-":
        return a - b;
      case "*":
        return a * b;
      case "/":
        if (b === 0) return null;
        // Kusto divides integers as integers.
        return Number.isInteger(a) && Number.isInteger(b) ? Math.trunc(a / b) : a / b;
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
  if (a instanceof Timespan && b instanceof Timespan) {
    if (op === "+") return new Timespan(a.ns + b.ns);
    if (op === "-") return new Timespan(a.ns - b.ns);
  }
  if (a instanceof Timespan && typeof b === "number" && Number.isInteger(b)) {
    if (op === "*") return new Timespan(a.ns * BigInt(b));
    if (op === "/" && b !== 0) return new Timespan(a.ns / BigInt(b));
  }
  return null;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function stringOp(op: string, left: Getter, right: Getter): Getter {
  const negated = op.startsWith("!");
  const base = negated ? op.slice(1) : op;
  const cs = base.endsWith("_cs");
  const kind = cs ? base.slice(0, -3) : base;
  const test = (hay: string, needle: string): boolean => {
    if (!cs) {
      hay = hay.toLowerCase();
      needle = needle.toLowerCase();
    }
    switch (kind) {
      case "contains":
        return hay.includes(needle);
      case "startswith":
        return hay.startsWith(needle);
      case "endswith":
        return hay.endsWith(needle);
      default:
        // `has` matches whole terms: the needle bounded by non-alphanumerics.
        return new RegExp(`(^|[^\\p{L}\\p{N}])${escapeRegExp(needle)}($|[^\\p{L}\\p{N}])`, "u").test(hay);
    }
  };
  return (r) => {
    const a = left(r);
    const b = right(r);
    if (a === null || a === undefined || b === null || b === undefined) return negated;
    const hit = test(toText(a), toText(b));
    return negated ? !hit : hit;
  };
}

function toNumber(v: unknown, integer: boolean): number | null {
  let n: number;
  if (typeof v === "number") n = v;
  else if (typeof v === "boolean") n = v ? 1 : 0;
  else if (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v))) n = Number(v);
  else if (v instanceof DateTime || v instanceof Timespan) n = Number(v.ns);
  else return null;
  return integer ? Math.trunc(n) : n;
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

function call(name: string, args: Getter[], ctx: CompileContext): Getter {
  const [a, b, c] = args;
  switch (name) {
    case "not":
      return (r) => {
        const v = a(r);
        return v === true ? false : v === false ? true : null;
      };
    case "isnull":
      return (r) => {
        const v = a(r);
        return v === null || v === undefined;
      };
    case "isnotnull":
      return (r) => {
        const v = a(r);
        return v !== null && v !== undefined;
      };
    case "isempty":
      return (r) => {
        const v = a(r);
        return v === null || v === undefined || v === "";
      };
    case "isnotempty":
      return (r) => {
        const v = a(r);
        return v !== null && v !== undefined && v !== "";
      };
    case "strcat":
      return (r) => args.map((g) => toText(g(r))).join("");
    case "strlen":
      return (r) => {
        const v = a(r);
        return v === null || v === undefined ? null : toText(v).length;
      };
    case "tolower":
    case "toupper":
      return (r) => {
        const v = a(r);
        if (v === null || v === undefined) return null;
        return name === "tolower" ? toText(v).toLowerCase() : toText(v).toUpperCase();
      };
    case "tostring":
      return (r) => toText(a(r));
    case "toint":
    case "tolong":
      return (r) => toNumber(a(r), true);
    case "todouble":
    case "toreal":
      return (r) => toNumber(a(r), false);
    case "abs":
      return (r) => {
        const v = a(r);
        if (typeof v === "number") return Math.abs(v);
        if (v instanceof Timespan) return new Timespan(v.ns < 0n ? -v.ns : v.ns);
        return null;
      };
    case "now": {
      const now = new DateTime(ctx.now);
      return () => now;
    }
    case "ago":
      return (r) => {
        const v = a(r);
        return v instanceof Timespan ? new DateTime(ctx.now - v.ns) : null;
      };
    case "bin":
    case "floor":
      return (r) => bin(a(r), b(r));
    case "bin_auto": {
      const size = new Timespan(autoBinNs(ctx));
      return (r) => bin(a(r), size);
    }
    case "iff":
      return (r) => (a(r) === true ? b(r) : c(r));
    default:
      // The parser admits only known functions; reaching here is a bug, not bad input.
      throw new Error(`no evaluator for function ${name}`);
  }
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
  const symbols = ops.map((o) => o.op);
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

/** A comparison or string operator: both sides compiled once, the fast path tried on the compiled left. */
function compileComparison(e: Binary, ctx: CompileContext): Getter {
  if (ctx.stats) ctx.stats.nodes++;
  const l = timeAware(e.left, e.right, ctx);
  if (e.right.kind === "literal") {
    const fast = constantComparison(e, l);
    if (fast) {
      if (ctx.stats) ctx.stats.nodes++;
      return fast;
    }
  }
  const r = timeAware(e.right, e.left, ctx);
  switch (e.op) {
    case "==":
      return (row) => equalValues(l(row), r(row));
    case "!=":
      return (row) => {
        const a = l(row);
        const b = r(row);
        const aNull = a === null || a === undefined;
        const bNull = b === null || b === undefined;
        if (aNull || bNull) return aNull !== bNull;
        const c = compareValues(a, b);
        return c !== undefined && c !== 0;
      };
    case "=~":
    case "!~": {
      const want = e.op === "=~";
      return (row) => {
        const a = l(row);
        const b = r(row);
        if (typeof a !== "string" || typeof b !== "string") return false;
        return (a.toLowerCase() === b.toLowerCase()) === want;
      };
    }
    case "<":
      return (row) => (compareValues(l(row), r(row)) ?? 0) < 0;
    case "<=": {
      return (row) => {
        const c = compareValues(l(row), r(row));
        return c !== undefined && c <= 0;
      };
    }
    case ">":
      return (row) => (compareValues(l(row), r(row)) ?? 0) > 0;
    case ">=":
      return (row) => {
        const c = compareValues(l(row), r(row));
        return c !== undefined && c >= 0;
      };
    default:
      return stringOp(e.op, l, r);
  }
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
    case "field":
      return fieldGetter(e.name, e.path);
    case "neg": {
      const g = compileExpr(e.operand, ctx);
      return (r) => {
        const v = g(r);
        if (typeof v === "number") return -v;
        if (v instanceof Timespan) return new Timespan(-v.ns);
        return null;
      };
    }
    case "in": {
      const g = compileExpr(e.operand, ctx);
      const list = e.list.map((x) => timeAware(x, e.operand, ctx));
      const negated = e.negated;
      return (r) => {
        const v = g(r);
        const hit = list.some((x) => equalValues(v, x(r)));
        return negated ? !hit : hit;
      };
    }
    case "call":
      return call(
        e.name,
        e.args.map((x) => compileExpr(x, ctx)),
        ctx,
      );
  }
}

/** Lowers a parsed query into plan operators with compiled closures. */
export function compileQuery(q: Query, ctx: CompileContext): Plan {
  const ops: PlanOp[] = q.ops.map((o): PlanOp => {
    switch (o.op) {
      case "where": {
        const g = compileExpr(o.expr, ctx);
        return { op: "where", pred: (r) => g(r) === true };
      }
      case "sort":
        return {
          op: "sort",
          keys: o.keys.map((k) => ({
            name: k.field.name,
            get: fieldGetter(k.field.name, k.field.path),
            desc: k.desc,
          })),
        };
      case "limit":
        return { op: "limit", n: o.n };
      case "project":
      case "extend":
        return { op: o.op, columns: o.columns.map((c) => ({ name: c.name, get: compileExpr(c.expr, ctx) })) };
      case "summarize":
        return {
          op: "summarize",
          aggs: o.aggs.map((a) => ({
            name: a.name,
            fn: a.fn,
            get: a.arg ? compileExpr(a.arg, ctx) : undefined,
            k: a.k,
            fields: a.arg?.kind === "field" ? [a.arg.name] : [],
            args: a.k !== undefined ? [a.k] : [],
          })),
          by: o.by.map((c) => ({ name: c.name, get: compileExpr(c.expr, ctx) })),
        };
    }
  });
  return { dataset: q.dataset, ops };
}
