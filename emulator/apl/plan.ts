/**
 * Lowers a whole query (its let statements and its tabular expression, subqueries included) into a plan of
 * compiled closures that the engine (emulator/query/engine.ts) runs.
 */
import type { LetStatement, NamedExpr, Query, TabularExpr } from "./ast";
import {
  compileAggregation,
  compileError,
  compileExpr,
  compileSummarize,
  constantValue,
  type Column,
  type CompileContext,
  type Plan,
  type PlanOp,
} from "./compile";
import { lowerOperator, lowerSource } from "./operators";

/** Lowers one tabular expression (a pipeline and its source) into a plan. */
export function compileTabular(t: TabularExpr, context: CompileContext): Plan {
  const ctx = context.subquery ? context : { ...context, subquery: compileTabular };
  const ops: PlanOp[] = [];
  for (const o of t.ops) {
    switch (o.op) {
      case "where": {
        const g = compileExpr(o.expr, ctx);
        ops.push({ op: "where", pred: (r) => g(r) === true });
        break;
      }
      case "sort":
        ops.push({
          op: "sort",
          keys: o.keys.map((k) => ({
            name: k.name,
            get: compileExpr(k.expr, ctx),
            desc: k.desc,
            nullsFirst: k.nullsFirst,
          })),
        });
        break;
      case "limit":
        ops.push({ op: "limit", n: o.n });
        break;
      case "project":
        ops.push({ op: "project", columns: expandColumns(o.columns, ctx) });
        break;
      case "extend":
        if (o.valid) ops.push(lowerOperator(o, ctx));
        else ops.push({ op: "extend", columns: expandColumns(o.columns, ctx) });
        break;
      case "summarize":
        ops.push(compileSummarize(o.aggs, o.by, ctx));
        break;
      case "count":
        ops.push({
          op: "summarize",
          aggs: [
            compileAggregation({ given: "Count", fn: "count", args: [], argTexts: [], pos: o.pos }, ctx),
          ],
          by: [],
        });
        break;
      case "search": {
        // A filter: it joins the lazy scan like where (a page of matches stops the scan early).
        const g = compileExpr(o.expr, ctx);
        ops.push({ op: "where", pred: (r) => g(r) === true });
        break;
      }
      case "top": {
        // top n by keys: a sort whose limit keeps a bounded buffer of n rows (engine.ts sortRows).
        const n = constantValue(o.n, ctx);
        if (typeof n !== "number" || !Number.isInteger(n) || n < 0) {
          throw compileError(ctx, "top takes a non-negative integer count", o.pos);
        }
        ops.push({
          op: "sort",
          keys: o.keys.map((k) => ({
            name: k.name,
            get: compileExpr(k.expr, ctx),
            desc: k.desc,
            nullsFirst: k.nullsFirst,
          })),
        });
        ops.push({ op: "limit", n });
        break;
      }
      default:
        ops.push(
          lowerOperator(o, ctx, t.source.kind === "dataset" || t.source.kind === "let" ? t.source.name : ""),
        );
    }
  }
  const src = t.source;
  switch (src.kind) {
    case "dataset":
      return { dataset: src.name, ops, source: { kind: "dataset", name: src.name } };
    case "let": {
      const plan = ctx.tables?.get(src.name);
      if (!plan) throw compileError(ctx, `unknown table '${src.name}'`, src.pos);
      return { dataset: "", ops, source: { kind: "table", run: (env) => env.run(plan) } };
    }
    case "paren": {
      const inner = compileTabular(src.body, ctx);
      return { dataset: "", ops, source: { kind: "table", run: (env) => env.run(inner) } };
    }
    default: {
      const run = lowerSource(src, ctx);
      return { dataset: "", ops, source: { kind: "table", run } };
    }
  }
}

/** `(a, b) = f(x)`: one column per name, taking the array's elements (or the bag's values) in order. */
function expandColumns(cols: NamedExpr[], ctx: CompileContext): Column[] {
  const out: Column[] = [];
  for (const c of cols) {
    const get = compileExpr(c.expr, ctx);
    if (!c.names) {
      out.push({ name: c.name, get });
      continue;
    }
    c.names.forEach((name, i) =>
      out.push({
        name,
        get: (r) => {
          const v = get(r);
          if (Array.isArray(v)) return v[i] ?? null;
          if (v && typeof v === "object") return Object.values(v)[i] ?? null;
          return i === 0 ? v : null;
        },
      }),
    );
  }
  return out;
}

/** Binds the let statements in order: scalars to their values, tables to their plans. */
function bindLets(lets: LetStatement[], ctx: CompileContext): void {
  const scalars = (ctx.scalars ??= new Map());
  const tables = (ctx.tables ??= new Map());
  for (const l of lets) {
    if (l.kind === "scalar") scalars.set(l.name, constantValue(l.expr, ctx));
    else tables.set(l.name, compileTabular(l.body, ctx));
  }
}

/** Lowers a parsed query into plan operators with compiled closures. */
export function compileQuery(q: Query, ctx: CompileContext): Plan {
  if (ctx.source === undefined && q.source !== undefined) ctx = { ...ctx, source: q.source };
  bindLets(q.lets ?? [], ctx);
  const body = q.body ?? { source: { kind: "dataset", name: q.dataset, pos: q.datasetPos }, ops: q.ops };
  const plan = compileTabular(body, ctx);
  return { ...plan, datasets: q.datasets ?? [q.dataset] };
}
