/**
 * The tabular operators that take their input whole (apl/tabular-operators/*.mdx): project-away/-keep/-rename/
 * -reorder, extend-valid, distinct, parse, parse-kv, union, join, lookup, mv-expand, make-series, search, sample,
 * sample-distinct, getschema, redact, top; and the row sources print and datatable. Each runs in slices of the
 * query's budget (emulator/query/budget.ts), so a long one can be stopped, and none is quadratic in rows: join,
 * lookup and distinct hash their keys, top keeps a bounded buffer. Those that build more rows or values than they
 * read (join, lookup, mv-expand, make-series, union, distinct) count them against the query's memory budget as
 * they build them; operators that copy the rows they read replace them, so they hold no more than their input.
 */
import type { Operator, Source, TabularExpr } from "../ast";
import { valueKey } from "../aggregations";
import {
  compileAggregation,
  compileError,
  compileExpr,
  constantValue,
  escapeRegex,
  fieldGetter,
  type CompileContext,
  type Getter,
  type Plan,
  type PlanAggregation,
  type Row,
  type RowwiseOp,
  type RunEnv,
  type Table,
  type TableOp,
  type TableResult,
} from "../compile";
import { AplError } from "../errors";
import { parseDatetimeText } from "../parser";
import { compileRegex, type Regex } from "../regex";
import { aplToString } from "../functions/text";
import { DateTime, Timespan, typeOf } from "../values";
import { createHash } from "node:crypto";
import { rowBytes } from "../../query/budget";

const TIME_FIELDS = new Set(["_time", "_sysTime"]);
const hasOwn = Object.prototype.hasOwnProperty;

/**
 * The columns of a table: those an operator fixed, else `_time`/`_sysTime` (for events) and every key, sorted;
 * the rows' keys are read a slice at a time within the query's budget.
 */
async function columnsOf(t: Table, env: RunEnv): Promise<string[]> {
  if (t.columns) return t.columns;
  const keys = new Set<string>();
  let events = false;
  await env.budget.each(t.rows, (r) => {
    if (r.timeNs !== undefined) events = true;
    for (const k in r.data) if (!TIME_FIELDS.has(k)) keys.add(k);
  });
  return [...(events ? ["_time", "_sysTime"] : []), ...[...keys].sort()];
}

/** A value read off a row by column name, `_time` included. */
function cell(r: Row, name: string): unknown {
  if (hasOwn.call(r.data, name)) return r.data[name];
  if (name === "_time" && r.timeNs !== undefined) return new DateTime(r.timeNs);
  if (name === "_sysTime" && r.sysTimeNs !== undefined) return new DateTime(r.sysTimeNs);
  return undefined;
}

/** A glob with `*` wildcards as a test on names (columns, union's dataset patterns). */
export function globTest(pattern: string): (name: string) => boolean {
  if (!pattern.includes("*")) return (n) => n === pattern;
  const parts = pattern.split("*");
  return (n) => {
    if (!n.startsWith(parts[0])) return false;
    let at = parts[0].length;
    for (let i = 1; i < parts.length - 1; i++) {
      const found = n.indexOf(parts[i], at);
      if (found < 0) return false;
      at = found + parts[i].length;
    }
    const last = parts[parts.length - 1];
    return n.length - last.length >= at && n.endsWith(last);
  };
}

/** A value converted to a column type of datatable/parse/mv-expand's `to typeof()`; null when it does not convert. */
export function convertTo(type: string | undefined, v: unknown): unknown {
  if (type === undefined || v === null || v === undefined) return v ?? null;
  switch (type) {
    case "string":
      return aplToString(v);
    case "int":
    case "long": {
      const n =
        typeof v === "number"
          ? v
          : typeof v === "string" && /^\s*[-+]?\d+(\.\d+)?\s*$/.test(v)
            ? Number(v)
            : NaN;
      return Number.isFinite(n) ? Math.trunc(n) : null;
    }
    case "real":
    case "double":
    case "decimal": {
      const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : NaN;
      return Number.isNaN(n) ? null : n;
    }
    case "bool":
    case "boolean":
      if (typeof v === "boolean") return v;
      if (v === "true" || v === "1" || v === 1) return true;
      if (v === "false" || v === "0" || v === 0) return false;
      return null;
    case "datetime":
    case "date": {
      if (v instanceof DateTime) return v;
      const ns = typeof v === "string" ? parseDatetimeText(v) : undefined;
      return ns === undefined ? null : new DateTime(ns);
    }
    case "timespan":
    case "time":
      return v instanceof Timespan ? v : null;
    default:
      return v;
  }
}

/** An operator lowered to a table step. */
function table(name: string, run: TableOp["run"]): TableOp {
  return { op: "table", name, run };
}

/** A row-at-a-time operator: run over whole tables, or inside the engine's lazy scan. */
function rowwise(name: string, step: RowwiseOp): TableOp {
  return {
    op: "table",
    name,
    rowwise: step,
    run: async (input, env) => {
      const rows: Row[] = [];
      await env.budget.each(input.rows, (r) => {
        const out = step.map(r);
        if (out) rows.push(out);
      });
      return { rows, columns: step.columns(input.columns) };
    },
  };
}

/** The input's columns followed by the new ones it lacks (undefined stays undefined: every key). */
function withColumns(input: string[] | undefined, added: readonly string[]): string[] | undefined {
  return input && [...input, ...added.filter((n) => !input.includes(n))];
}

/** A table operator for every operator the plan does not run row by row. */
export function lowerOperator(o: Operator, ctx: CompileContext, inputName = ""): TableOp {
  switch (o.op) {
    case "extend": {
      // extend-valid: a null result leaves the column's value as it was.
      const cols = o.columns.map((c) => ({ name: c.name, get: compileExpr(c.expr, ctx) }));
      const names = cols.map((c) => c.name);
      return rowwise("extend-valid", {
        drops: false,
        map: (r) => {
          const data = { ...r.data };
          for (const c of cols) {
            const v = c.get(r);
            if (v !== null && v !== undefined) data[c.name] = v;
            else if (!hasOwn.call(data, c.name)) data[c.name] = null;
          }
          return { ...r, data };
        },
        columns: (input) => withColumns(input, names),
      });
    }
    case "project-away":
    case "project-keep": {
      const tests = o.patterns.map(globTest);
      const keep = o.op === "project-keep";
      const matches = (c: string) => tests.some((t) => t(c));
      if (!keep && !matches("_time") && !matches("_sysTime")) {
        // project-away of data columns only: each row drops its matching keys, inside the lazy scan.
        const seen = new Map<string, boolean>();
        const away = (k: string) => {
          let m = seen.get(k);
          if (m === undefined) seen.set(k, (m = matches(k)));
          return m;
        };
        return rowwise("project-away", {
          drops: false,
          map: (r) => {
            const data: Record<string, unknown> = {};
            for (const k in r.data) if (!away(k)) data[k] = r.data[k];
            return { ...r, data };
          },
          columns: (input) => input?.filter((c) => !away(c)),
        });
      }
      return table(o.op, async (input, env) => {
        const all = await columnsOf(input, env);
        const columns = all.filter((c) => tests.some((t) => t(c)) === keep);
        const dropped = new Set(all.filter((c) => !columns.includes(c)));
        const rows = await env.budget.map(input.rows, (r) => {
          const data: Record<string, unknown> = {};
          for (const k in r.data) if (!dropped.has(k)) data[k] = r.data[k];
          return { ...r, data };
        });
        return { rows, columns };
      });
    }
    case "project-rename": {
      const renames = o.renames;
      return table("project-rename", async (input, env) => {
        const all = await columnsOf(input, env);
        for (const r of renames) {
          if (!all.includes(r.from))
            throw compileError(ctx, `project-rename: no column '${r.from}' to rename`, o.pos);
        }
        const to = new Map(renames.map((r) => [r.from, r.name]));
        const columns = all.map((c) => to.get(c) ?? c);
        const rows = await env.budget.map(input.rows, (r) => {
          const data: Record<string, unknown> = {};
          for (const k in r.data) if (!to.has(k)) data[k] = r.data[k];
          for (const [from, name] of to) data[name] = cell(r, from) ?? null;
          return { ...r, data };
        });
        return { rows, columns };
      });
    }
    case "project-reorder": {
      const keys = o.keys.map((k) => ({ test: globTest(k.pattern), order: k.order }));
      return table("project-reorder", async (input, env) => {
        const rest = [...(await columnsOf(input, env))];
        const front: string[] = [];
        for (const k of keys) {
          let hit = rest.filter((c) => k.test(c));
          if (k.order) hit = hit.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0) * (k.order === "desc" ? -1 : 1));
          for (const c of hit) {
            front.push(c);
            rest.splice(rest.indexOf(c), 1);
          }
        }
        return { rows: input.rows, columns: [...front, ...rest] };
      });
    }
    case "distinct": {
      const cols =
        o.columns === "*"
          ? undefined
          : o.columns.map((c) => ({ name: c.name, get: compileExpr(c.expr, ctx) }));
      return table("distinct", async (input, env) => {
        const names = cols ? cols.map((c) => c.name) : await columnsOf(input, env);
        const getters = cols ? cols.map((c) => c.get) : names.map((n) => (r: Row) => cell(r, n));
        const seen = new Set<string>();
        const rows: Row[] = [];
        await env.budget.each(input.rows, (r) => {
          const values = getters.map((g) => g(r) ?? null);
          const key = values.map(valueKey).join("\u0000");
          if (seen.has(key)) return;
          env.budget.charge(rowBytes(names.length) + 2 * key.length, "distinct's rows");
          seen.add(key);
          const data: Record<string, unknown> = {};
          names.forEach((n, i) => (data[n] = values[i]));
          rows.push({ data });
        });
        return { rows, columns: names };
      });
    }
    case "parse":
      return lowerParse(o, ctx);
    case "parse-kv":
      return lowerParseKv(o, ctx);
    case "union": {
      const members = o.sources.map((s) => ({ name: memberName(s.source), plan: subPlan(s, ctx) }));
      const { withSource, inner } = o;
      return table("union", async (input, env) => {
        const parts: { name: string; table: Table }[] = [{ name: inputName, table: input }];
        for (const m of members) parts.push(...(await runMember(m, env)));
        return unionTables(parts, withSource, inner, env);
      });
    }
    case "join":
    case "lookup": {
      const right = subPlan(o.right, ctx);
      const { kind } = o;
      const on = o.on.map((k) => ({
        left: compileExpr(k.left, ctx),
        right: compileExpr(k.right, ctx),
        // The same column on both sides (`on key`): lookup keeps it once, an outer join fills it from either side.
        same:
          k.left.kind === "field" && k.right.kind === "field" && k.left.name === k.right.name
            ? k.left.name
            : undefined,
      }));
      const lookup = o.op === "lookup";
      return table(o.op, async (input, env) => join(input, await env.run(right), kind, on, lookup, env));
    }
    case "mv-expand":
      return lowerMvExpand(o, ctx);
    case "make-series":
      return lowerMakeSeries(o, ctx);
    case "sample": {
      const { n, fraction } = o;
      return table("sample", async (input, env) => {
        if (fraction) {
          // Each row kept with probability n (sample 0.05).
          return {
            rows: await env.budget.filter(input.rows, () => Math.random() < n),
            columns: input.columns,
          };
        }
        // Reservoir sampling: n rows chosen uniformly in one pass, in their input order.
        const picked: { i: number; r: Row }[] = [];
        await env.budget.each(input.rows, (r, i) => {
          if (picked.length < n) picked.push({ i, r });
          else {
            const j = Math.floor(Math.random() * (i + 1));
            if (j < n) picked[j] = { i, r };
          }
        });
        return { rows: picked.sort((a, b) => a.i - b.i).map((p) => p.r), columns: input.columns };
      });
    }
    case "sample-distinct": {
      const g = compileExpr(o.column, ctx);
      const { n, name } = o;
      return table("sample-distinct", async (input, env) => {
        const seen = new Map<string, unknown>();
        await env.budget.each(input.rows, (r) => {
          if (seen.size >= n) return;
          const v = g(r);
          if (v === null || v === undefined) return;
          const k = valueKey(v);
          if (!seen.has(k)) seen.set(k, v);
        });
        return { rows: [...seen.values()].map((v) => ({ data: { [name]: v } })), columns: [name] };
      });
    }
    case "getschema":
      return table("getschema", async (input, env) => {
        const names = await columnsOf(input, env);
        // Each column's types, in one pass over the rows (a slice at a time): one type names it, several are dynamic.
        const types = names.map(() => new Set<string>());
        await env.budget.each(input.rows, (r) => {
          names.forEach((name, i) => {
            if (types[i].size > 1) return;
            const t = typeOf(cell(r, name));
            if (t !== "null") types[i].add(t);
          });
        });
        const rows = names.map((name, i) => {
          const seen = types[i];
          const t = seen.size === 1 ? schemaType([...seen][0]) : seen.size === 0 ? "string" : "dynamic";
          return { data: { ColumnName: name, ColumnOrdinal: i, DataType: t, ColumnType: t } };
        });
        return { rows, columns: ["ColumnName", "ColumnOrdinal", "DataType", "ColumnType"] };
      });
    case "redact":
      return lowerRedact(o, ctx);
    default:
      throw compileError(ctx, `unknown or unsupported operator '${o.op}'`, o.pos);
  }
}

/** The getschema type name of a value type. */
function schemaType(t: string): string {
  return t === "integer" ? "long" : t === "float" ? "real" : t === "boolean" ? "bool" : t;
}

/** A sub-query's plan (union member, join's right side), with let-bound tables resolved. */
function subPlan(t: TabularExpr, ctx: CompileContext): Plan {
  if (!ctx.subquery) throw new Error("operators: compile sub-queries through plan.ts compileTabular");
  return ctx.subquery(t, ctx);
}

function memberName(s: Source): string {
  return s.kind === "dataset" ? s.name : s.kind === "let" ? s.name : "";
}

/** One union member's tables: a wildcard dataset name stands for every dataset it matches. */
async function runMember(
  m: { name: string; plan: Plan },
  env: RunEnv,
): Promise<{ name: string; table: Table }[]> {
  const src = m.plan.source;
  if (src?.kind === "dataset" && src.name.includes("*")) {
    const test = globTest(src.name);
    const out: { name: string; table: Table }[] = [];
    for (const name of env.datasetNames().filter(test).sort()) {
      out.push({
        name,
        table: await env.run({ ...m.plan, dataset: name, source: { kind: "dataset", name } }),
      });
    }
    return out;
  }
  return [{ name: m.name, table: await env.run(m.plan) }];
}

async function unionTables(
  parts: { name: string; table: Table }[],
  withSource: string | undefined,
  inner: boolean | undefined,
  env: RunEnv,
): Promise<TableResult> {
  if (inner) return innerUnion(parts, withSource, env);
  const rows: Row[] = [];
  let columns: string[] | undefined = [];
  for (const p of parts) {
    if (p.table.columns && columns) {
      for (const c of p.table.columns) if (!columns.includes(c)) columns.push(c);
    } else if (p.table.rows.length > 0 || !p.table.columns) columns = undefined;
    if (withSource === undefined) {
      // The members' rows themselves: a slot each.
      env.budget.charge(8 * p.table.rows.length, "union's rows");
      for (const r of p.table.rows) rows.push(r);
      await env.budget.checkpoint();
      continue;
    }
    const name = p.name;
    // One row at a time: spreading a million rows into push() would overflow the call stack.
    await env.budget.each(p.table.rows, (r) => {
      env.budget.chargeRows(1, fieldCount(r.data) + 1, "union's rows");
      rows.push({ ...r, data: { [withSource]: name, ...r.data } });
    });
  }
  if (columns && withSource !== undefined) columns = [withSource, ...columns.filter((c) => c !== withSource)];
  return { rows, columns };
}

/** union kind=inner: only the columns every table has, each row cut down to them. */
async function innerUnion(
  parts: { name: string; table: Table }[],
  withSource: string | undefined,
  env: RunEnv,
): Promise<TableResult> {
  let common: string[] | undefined;
  for (const p of parts) {
    const cols = await columnsOf(p.table, env);
    common = common ? common.filter((c) => cols.includes(c)) : cols;
  }
  const columns = common ?? [];
  const rows: Row[] = [];
  for (const p of parts) {
    env.budget.chargeRows(p.table.rows.length, columns.length + 1, "union's rows");
    await env.budget.each(p.table.rows, (r) => {
      const data: Record<string, unknown> = withSource === undefined ? {} : { [withSource]: p.name };
      for (const c of columns) if (!TIME_FIELDS.has(c)) data[c] = cell(r, c) ?? null;
      rows.push({ timeNs: r.timeNs, sysTimeNs: r.sysTimeNs, data });
    });
  }
  return { rows, columns: withSource === undefined ? columns : [withSource, ...columns] };
}

/** The rows of a `source` (print, datatable, union at the start). */
export function lowerSource(src: Source, ctx: CompileContext): (env: RunEnv) => Promise<TableResult> {
  switch (src.kind) {
    case "print": {
      const cols = src.columns.map((c) => ({ name: c.name, get: compileExpr(c.expr, ctx) }));
      return () => {
        const data: Record<string, unknown> = {};
        for (const c of cols) data[c.name] = c.get({ data: {} }) ?? null;
        return Promise.resolve({ rows: [{ data }], columns: cols.map((c) => c.name) });
      };
    }
    case "datatable": {
      const names = src.columns.map((c) => c.name);
      const rows = src.rows.map((values) => {
        const data: Record<string, unknown> = {};
        values.forEach((e, i) => {
          const v = constantValue(e, ctx);
          const type = src.columns[i].type;
          data[names[i]] = type === "dynamic" || type === "string" ? (v ?? null) : convertTo(type, v);
        });
        return { data };
      });
      return () => Promise.resolve({ rows: rows.map((r) => ({ data: { ...r.data } })), columns: names });
    }
    case "union": {
      const members = src.sources.map((s) => ({ name: memberName(s.source), plan: subPlan(s, ctx) }));
      return async (env) => {
        const parts: { name: string; table: Table }[] = [];
        for (const m of members) parts.push(...(await runMember(m, env)));
        return unionTables(parts, src.withSource, src.inner, env);
      };
    }
    default:
      throw compileError(ctx, "unsupported source", src.pos);
  }
}

/** How many fields a row's data holds (an output row copying it holds as many). */
function fieldCount(data: Record<string, unknown>): number {
  return Object.keys(data).length;
}

/** Hashable key of one join key value (strings and numbers apart, as valueKey keeps them). */
function joinKey1(v: unknown): string | undefined {
  if (v === null || v === undefined) return undefined;
  if (typeof v === "string") return `s${v}`;
  return valueKey(v);
}

/** Hashable key of a join's key values. */
function joinKey(values: unknown[]): string | undefined {
  let key = "";
  for (const v of values) {
    if (v === null || v === undefined) return undefined;
    key += `${valueKey(v)}\u0000`;
  }
  return key;
}

/**
 * join and lookup (apl/tabular-operators/join-operator.mdx, lookup-operator.mdx) by hashing the right side's keys
 * once: time linear in the rows plus the output. Right columns whose names the left already has are suffixed `1`
 * (join; lookup keeps the key once and adds the rest).
 */
async function join(
  left: Table,
  right: Table,
  kind: string,
  on: { left: Getter; right: Getter; same?: string }[],
  lookup: boolean,
  env: RunEnv,
): Promise<TableResult> {
  // The left side's columns are listed only when known or needed: listing them reads every key of every row,
  // which for a million events costs more than the join. A right column's clash is checked on its own.
  const outer = kind === "rightouter" || kind === "fullouter";
  const leftCols = left.columns ?? (outer ? await columnsOf(left, env) : undefined);
  const rightCols = await columnsOf(right, env);
  let leftEvents: boolean | undefined;
  const leftHas = async (c: string): Promise<boolean> => {
    if (leftCols) return leftCols.includes(c);
    if (TIME_FIELDS.has(c)) return (leftEvents ??= left.rows.some((r) => r.timeNs !== undefined));
    let found = false;
    await env.budget.each(left.rows, (r) => {
      if (!found && hasOwn.call(r.data, c)) found = true;
    });
    return found;
  };
  // A key column a side lacks reads as null, which matches nothing (as a missing field does elsewhere).
  const single = on.length === 1 ? on[0] : undefined;
  const leftKey = single
    ? (r: Row) => joinKey1(single.left(r))
    : (r: Row) => joinKey(on.map((k) => k.left(r)));
  const rightKey = single
    ? (r: Row) => joinKey1(single.right(r))
    : (r: Row) => joinKey(on.map((k) => k.right(r)));
  // Right columns in the output, and their names there: a clash with a left column takes the suffix 1 (2, ...).
  const sameKey = new Set(on.flatMap((k) => (k.same !== undefined ? [k.same] : [])));
  const rightOut: { from: string; to: string }[] = [];
  const taken = new Set<string>();
  const clashes = async (name: string) => taken.has(name) || (await leftHas(name));
  for (const c of rightCols) {
    if (TIME_FIELDS.has(c) && lookup) continue;
    if (lookup && sameKey.has(c)) continue;
    let to = c;
    if (await clashes(to)) {
      let n = 1;
      while (await clashes(`${c}${n}`)) n++;
      to = `${c}${n}`;
    }
    taken.add(to);
    rightOut.push({ from: c, to });
  }
  const nullLeft: Record<string, unknown> = {};
  for (const c of leftCols ?? []) if (!TIME_FIELDS.has(c)) nullLeft[c] = null;
  const merge = (l: Row | undefined, r: Row | undefined): Row => {
    // The left row's columns as they are (one copy), then the right side's under their output names.
    const data: Record<string, unknown> = { ...(l ? l.data : nullLeft) };
    for (const m of rightOut) data[m.to] = r ? (cell(r, m.from) ?? null) : null;
    // Keys of a right-only row are its own: fullouter and rightouter fill them in from the right.
    if (!l && r) for (const k of on) if (k.same !== undefined) data[k.same] = cell(r, k.same) ?? null;
    return { timeNs: l?.timeNs ?? r?.timeNs, sysTimeNs: l?.sysTimeNs ?? r?.sysTimeNs, data };
  };
  const index = new Map<string, Row[]>();
  await env.budget.each(right.rows, (r) => {
    const k = rightKey(r);
    if (k === undefined) return;
    const list = index.get(k);
    // The index's estimated bytes: a slot per row, and a map entry, a list and the key's text per key.
    env.budget.charge(list ? 8 : 96 + 2 * k.length, "join's index of its right side");
    if (list) list.push(r);
    else index.set(k, [r]);
  });
  // Each output row is counted against the query's memory budget before it is built, so that a join whose output
  // explodes (a self-join on a key with few values) stops at the budget, not at the process's heap limit.
  const outputRows = (l: Row, n: number) =>
    env.budget.chargeRows(n, fieldCount(l.data) + rightOut.length, "join's output rows");
  const out: Row[] = [];
  const matchedRight = new Set<Row>();
  const leftColumns = { columns: left.columns };
  const both = leftCols && [...leftCols, ...rightOut.map((m) => m.to)];
  // Work since the last checkpoint: left rows and output rows. Only a full slice awaits.
  let work = 0;
  const slice = env.budget.rowsPerSlice;
  for (const l of left.rows) {
    if (++work >= slice) {
      work = 0;
      await env.budget.checkpoint();
    }
    const k = leftKey(l);
    const matches = k === undefined ? undefined : index.get(k);
    switch (kind) {
      case "inner":
        if (matches) {
          outputRows(l, matches.length);
          for (const r of matches) out.push(merge(l, r));
          work += matches.length;
        }
        break;
      case "innerunique":
        // join-operator.mdx: for each left row, only the first matching right row.
        if (matches) {
          outputRows(l, 1);
          out.push(merge(l, matches[0]));
        }
        break;
      case "leftouter":
      case "fullouter":
        if (matches) {
          outputRows(l, lookup ? 1 : matches.length);
          for (const r of lookup ? matches.slice(0, 1) : matches) {
            out.push(merge(l, r));
            matchedRight.add(r);
          }
          work += matches.length;
        } else {
          outputRows(l, 1);
          out.push(merge(l, undefined));
        }
        break;
      case "rightouter":
        if (matches) {
          outputRows(l, matches.length);
          for (const r of matches) {
            out.push(merge(l, r));
            matchedRight.add(r);
          }
          work += matches.length;
        }
        break;
      // The left rows themselves: a slot each.
      case "leftanti":
        if (!matches) {
          env.budget.charge(8, "join's output rows");
          out.push(l);
        }
        break;
      case "leftsemi":
        if (matches) {
          env.budget.charge(8, "join's output rows");
          out.push(l);
        }
        break;
      case "rightanti":
      case "rightsemi":
        if (matches) for (const r of matches) matchedRight.add(r);
        break;
    }
    // A left row's matches may be thousands of rows: the slice ends on time too.
    if (env.budget.overdue(1 + (matches?.length ?? 0))) await env.budget.pause();
  }
  if (kind === "leftanti" || kind === "leftsemi") return { rows: out, ...leftColumns };
  if (kind === "rightanti" || kind === "rightsemi") {
    const want = kind === "rightsemi";
    const rows = await env.budget.filter(right.rows, (r) => matchedRight.has(r) === want);
    return { rows, columns: right.columns };
  }
  if (kind === "rightouter" || kind === "fullouter") {
    const rightOnly = rowBytes(Object.keys(nullLeft).length + rightOut.length);
    await env.budget.each(right.rows, (r) => {
      if (matchedRight.has(r)) return;
      env.budget.charge(rightOnly, "join's output rows");
      out.push(merge(undefined, r));
    });
  }
  return { rows: out, columns: both };
}

/**
 * parse and parse-where (apl/tabular-operators/parse-operator.mdx, parse-where.mdx): the pattern becomes one RE2
 * regex, anchored at the start, each column a lazy group (the last greedy), `*` a lazy skip. kind=regex takes the
 * string constants as regex text. A row that does not match gets nulls (parse) or is dropped (parse-where).
 */
function lowerParse(o: Extract<Operator, { op: "parse" }>, ctx: CompileContext): TableOp {
  const columns = o.parts.filter((p) => p.kind === "column");
  const lastColumn = o.parts.findLastIndex((p) => p.kind === "column");
  let pattern = o.kind === "regex" ? "" : "^";
  o.parts.forEach((p, i) => {
    if (p.kind === "text") pattern += o.kind === "regex" ? p.value : escapeRegex(p.value);
    else if (p.kind === "skip") pattern += ".*?";
    else {
      const atEnd = i === lastColumn && o.parts.slice(i + 1).every((q) => q.kind === "skip");
      if (p.type === "int" || p.type === "long") pattern += atEnd ? "(-?\\d+).*" : "(-?\\d+)";
      else if (p.type === "real" || p.type === "double" || p.type === "decimal")
        pattern += "(-?\\d+(?:\\.\\d+)?(?:[eE][-+]?\\d+)?)";
      else pattern += atEnd && o.kind !== "regex" ? "(.*)" : "(.*?)";
    }
  });
  if (o.kind === "regex" && o.parts[o.parts.length - 1]?.kind === "column")
    pattern = pattern.replace(/\(\.\*\?\)$/, "(.*)");
  const flags = o.flags;
  let re: Regex;
  try {
    re = compileRegex(pattern, {
      caseInsensitive: flags.includes("i"),
      dotAll: flags.includes("s"),
      multiline: flags.includes("m"),
    });
  } catch (err) {
    if (err instanceof AplError) throw compileError(ctx, `parse: ${err.message}`, o.pos);
    throw err;
  }
  const source = compileExpr(o.source, ctx);
  const relaxed = o.kind === "relaxed";
  const { where } = o;
  const names = columns.map((c) => c.name);
  return rowwise(o.where ? "parse-where" : "parse", {
    drops: where,
    map: (r) => {
      const v = source(r);
      const m = v === null || v === undefined ? null : re.exec(aplToString(v));
      if (!m && where) return undefined;
      const data = { ...r.data };
      let ok = true;
      columns.forEach((c, i) => {
        const raw = m ? m[i + 1] : undefined;
        const value = raw === undefined ? null : convertTo(c.type, raw);
        if (raw !== undefined && value === null && c.type !== undefined) ok = false;
        data[c.name] = value;
      });
      if (!ok && where && !relaxed) return undefined;
      return { ...r, data };
    },
    columns: (input) => withColumns(input, names),
  });
}

function lowerParseKv(o: Extract<Operator, { op: "parse-kv" }>, ctx: CompileContext): TableOp {
  const source = compileExpr(o.source, ctx);
  const { keys, pairDelimiter, kvDelimiter, quote } = o;
  const unquote = (s: string): string => {
    const t = s.trim();
    if (quote && t.length >= 2 && quote.includes(t[0]) && t[t.length - 1] === t[0]) return t.slice(1, -1);
    return t;
  };
  const names = keys.map((k) => k.name);
  return rowwise("parse-kv", {
    drops: false,
    map: (r) => {
      const v = source(r);
      const found = new Map<string, string>();
      if (v !== null && v !== undefined) {
        for (const pair of aplToString(v).split(pairDelimiter)) {
          const at = pair.indexOf(kvDelimiter);
          if (at < 0) continue;
          found.set(unquote(pair.slice(0, at)), unquote(pair.slice(at + kvDelimiter.length)));
        }
      }
      const data = { ...r.data };
      for (const k of keys) data[k.name] = found.has(k.name) ? convertTo(k.type, found.get(k.name)) : null;
      return { ...r, data };
    },
    columns: (input) => withColumns(input, names),
  });
}

/**
 * mv-expand (apl/tabular-operators/mv-expand.mdx): one row per element of a dynamic array (a property bag gives one
 * `{key: value}` per entry); several columns expand side by side. An empty array or a null keeps the row with null.
 */
function lowerMvExpand(o: Extract<Operator, { op: "mv-expand" }>, ctx: CompileContext): TableOp {
  const cols = o.columns.map((c) => ({ name: c.name, get: compileExpr(c.expr, ctx), to: c.to }));
  const limit = o.limit ?? Infinity;
  const itemIndex = o.itemIndex;
  const elements = (v: unknown, budget: RunEnv["budget"]): unknown[] => {
    if (typeof v === "string" && (v.startsWith("[") || v.startsWith("{"))) {
      // The values parsed from the text are new: about as many bytes as the text's UTF-16.
      budget.charge(2 * v.length, "mv-expand's parsed arrays");
      try {
        v = JSON.parse(v) as unknown;
      } catch {
        return [v];
      }
    }
    if (Array.isArray(v)) return v;
    if (v !== null && typeof v === "object" && !(v instanceof DateTime) && !(v instanceof Timespan)) {
      return Object.entries(v).map(([k, x]) => ({ [k]: x }));
    }
    return [v];
  };
  const added = cols.length + (itemIndex ? 1 : 0);
  return table("mv-expand", async (input, env) => {
    const out: Row[] = [];
    let work = 0;
    for (const r of input.rows) {
      const lists = cols.map((c) => elements(c.get(r), env.budget));
      const n = Math.min(limit, Math.max(1, ...lists.map((l) => l.length)));
      // Counted before they are built: an array of a million elements stops at the budget, not at the heap limit.
      env.budget.chargeRows(n, fieldCount(r.data) + added, "mv-expand's rows");
      for (let i = 0; i < n; i++) {
        const data = { ...r.data };
        cols.forEach((c, j) => (data[c.name] = convertTo(c.to, lists[j][i] ?? null)));
        if (itemIndex) data[itemIndex] = i;
        out.push({ ...r, data });
      }
      work += n;
      if (work >= env.budget.rowsPerSlice) {
        work = 0;
        await env.budget.checkpoint();
      } else if (env.budget.overdue(n)) await env.budget.pause();
    }
    const extra = [...cols.map((c) => c.name), ...(itemIndex ? [itemIndex] : [])];
    return {
      rows: out,
      columns: input.columns && [...input.columns, ...extra.filter((n) => !input.columns!.includes(n))],
    };
  });
}

/**
 * make-series (apl/tabular-operators/make-series.mdx): per group, one array per aggregation over the bins of
 * `on` from `from` to `to` by `step` (the data's own range when not given), empty bins holding the default.
 */
function lowerMakeSeries(o: Extract<Operator, { op: "make-series" }>, ctx: CompileContext): TableOp {
  const aggs: PlanAggregation[] = o.aggs.map((a) => compileAggregation(a, ctx));
  const on = compileExpr(o.on, ctx);
  const from = o.from && constantValue(o.from, ctx);
  const to = o.to && constantValue(o.to, ctx);
  const step = constantValue(o.step, ctx);
  const by = o.by.map((b) => ({ name: b.name, get: compileExpr(b.expr, ctx) }));
  const onName = o.onName;
  const defaults = o.defaults.map((d) => (d === undefined ? 0 : d));
  const num = (v: unknown): number | undefined =>
    v instanceof DateTime || v instanceof Timespan ? Number(v.ns) : typeof v === "number" ? v : undefined;
  const stepN = num(step);
  if (stepN === undefined || stepN <= 0)
    throw compileError(ctx, "make-series: step must be a positive timespan or number", o.pos);
  return table("make-series", async (input, env) => {
    let lo = num(from);
    let hi = num(to);
    if (lo === undefined || hi === undefined) {
      let min = Infinity;
      let max = -Infinity;
      for (const r of input.rows) {
        const x = num(on(r));
        if (x === undefined) continue;
        if (x < min) min = x;
        if (x > max) max = x;
      }
      lo ??= Math.floor(min / stepN) * stepN;
      hi ??= max + stepN;
    }
    const bins = Number.isFinite(lo) && Number.isFinite(hi) ? Math.max(0, Math.ceil((hi - lo) / stepN)) : 0;
    if (bins > 100_000)
      throw compileError(ctx, `make-series: ${bins} bins is more than the emulator's 100000`, o.pos);
    const groups = new Map<
      string,
      { keys: unknown[]; accs: (ReturnType<PlanAggregation["create"]> | undefined)[][] }
    >();
    let onIsTime = from instanceof DateTime || to instanceof DateTime;
    await env.budget.each(input.rows, (r) => {
      const v = on(r);
      if (v instanceof DateTime) onIsTime = true;
      const x = num(v);
      if (x === undefined || x < lo || x >= hi) return;
      const b = Math.floor((x - lo) / stepN);
      const keys = by.map((g) => g.get(r) ?? null);
      const gk = keys.map(valueKey).join("\u0000");
      let g = groups.get(gk);
      if (!g) {
        // A group's row, and per aggregation its bins' slots and its output array (8 bytes a bin each).
        env.budget.charge(
          rowBytes(by.length + aggs.length + 1) + 16 * bins * aggs.length,
          "make-series' arrays",
        );
        g = { keys, accs: aggs.map(() => new Array(bins)) };
        groups.set(gk, g);
      }
      aggs.forEach((a, j) => {
        let acc = g.accs[j][b];
        if (!acc) {
          env.budget.charge(64, "make-series' arrays");
          acc = g.accs[j][b] = a.create(BigInt(Math.round(stepN)));
        }
        acc.add(a.getters.map((get) => get(r)));
      });
    });
    const timeValues = Array.from({ length: bins }, (_, i) =>
      onIsTime ? new DateTime(BigInt(Math.round(lo + i * stepN))) : lo + i * stepN,
    );
    const rows: Row[] = [];
    for (const g of groups.values()) {
      const data: Record<string, unknown> = {};
      by.forEach((b, i) => (data[b.name] = g.keys[i]));
      aggs.forEach((a, j) => {
        data[a.name] = Array.from({ length: bins }, (_, i) => {
          const acc = g.accs[j][i];
          return acc ? (acc.result()[0] ?? defaults[j]) : defaults[j];
        });
      });
      data[onName] = timeValues;
      rows.push({ data });
    }
    return { rows, columns: [...by.map((b) => b.name), ...aggs.map((a) => a.name), onName] };
  });
}

/**
 * redact (apl/tabular-operators/redact-operator.mdx): each match in the string columns (or those named) replaced by
 * the token (a one-character token once per character), by a hash of the match, or only within capture groups.
 */
function lowerRedact(o: Extract<Operator, { op: "redact" }>, ctx: CompileContext): TableOp {
  let regexes: Regex[];
  try {
    regexes = o.patterns.map((p) => compileRegex(p));
  } catch (err) {
    if (err instanceof AplError) throw compileError(ctx, `redact: ${err.message}`, o.pos);
    throw err;
  }
  const { token, hash, groups } = o;
  const fields = o.fields;
  const replacement = (text: string): string => {
    if (hash) return createHash("sha256").update(text).digest("base64url").slice(0, 8);
    return token.length === 1 ? token.repeat([...text].length) : token;
  };
  const redactText = (s: string): string => {
    for (const re of regexes) {
      const matches = re.execAll(s);
      if (matches.length === 0) continue;
      let out = "";
      let at = 0;
      for (const m of matches) {
        const whole = m[0] ?? "";
        const start = s.indexOf(whole, at);
        if (start < 0) continue;
        if (groups && m.length > 1) {
          let piece = whole;
          for (let g = m.length - 1; g >= 1; g--) {
            const part = m[g];
            if (!part) continue;
            const idx = piece.lastIndexOf(part);
            if (idx >= 0) piece = piece.slice(0, idx) + replacement(part) + piece.slice(idx + part.length);
          }
          out += s.slice(at, start) + piece;
        } else out += s.slice(at, start) + (whole === "" ? "" : replacement(whole));
        at = start + whole.length;
        if (whole === "") break;
      }
      s = out + s.slice(at);
    }
    return s;
  };
  const getters = fields?.map((f) => ({ name: f, get: fieldGetter(f, f.split(".")) }));
  return rowwise("redact", {
    drops: false,
    map: (r) => {
      const data = { ...r.data };
      if (getters) {
        for (const g of getters) {
          const v = g.get(r);
          if (typeof v === "string") data[g.name] = redactText(v);
        }
      } else for (const k in data) if (typeof data[k] === "string") data[k] = redactText(data[k]);
      return { ...r, data };
    },
    columns: (input) => input,
  });
}
