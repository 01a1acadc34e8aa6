/** Turns an execution result into the service's legacy and tabular response bodies. */
import { fieldGetter, type Row } from "../apl/compile";
import { DateTime, toOutput, typeOf } from "../apl/values";
import { ZERO_TIME } from "../../provider/schemas/common";
import type { LegacyResult, QueryStatus, TabularResult } from "../../provider/schemas/query";
import { formatNs } from "../time";
import type { ExecResult } from "./engine";

const TIME_FIELDS = new Set(["_time", "_sysTime"]);

/** The status object, with the page's smallest and largest row ids as min/maxCursor. */
export function buildStatus(res: ExecResult, sentCursor: string | undefined, elapsedUs: number): QueryStatus {
  let min: string | undefined;
  let max: string | undefined;
  // A table's rows are a summarize's groups, which have no row ids.
  for (const r of res.table === undefined ? res.rows : []) {
    if (r.rowId === undefined) continue;
    if (min === undefined || r.rowId < min) min = r.rowId;
    if (max === undefined || r.rowId > max) max = r.rowId;
  }
  // An empty page echoes the cursor sent, which is how a cursor walk recognizes its end.
  const fallback = sentCursor ?? "";
  return {
    elapsedTime: elapsedUs,
    minCursor: min ?? fallback,
    maxCursor: max ?? fallback,
    blocksExamined: 0,
    rowsExamined: res.rowsExamined,
    rowsMatched: res.rowsMatched,
    numGroups: res.summary ? (res.table?.length ?? res.rows.length) : 0,
    isPartial: false,
    cacheStatus: 0,
    minBlockTime: res.minTimeNs === undefined ? ZERO_TIME : formatNs(res.minTimeNs),
    maxBlockTime: res.maxTimeNs === undefined ? ZERO_TIME : formatNs(res.maxTimeNs),
  };
}

/** Output column names: the fixed ones, or `_time`, `_sysTime` and every data key seen, sorted. */
export function outputColumns(res: ExecResult): string[] {
  if (res.columns) return res.columns;
  const keys = new Set<string>();
  for (const r of res.rows) for (const k in r.data) if (!TIME_FIELDS.has(k)) keys.add(k);
  return ["_time", "_sysTime", ...[...keys].sort()];
}

function jsonData(res: ExecResult, row: Row, columns: string[] | undefined): Record<string, unknown> {
  // Stored events are already JSON; only derived rows may hold datetimes or timespans.
  if (!res.derived) return row.data;
  const out: Record<string, unknown> = {};
  for (const k of columns ?? Object.keys(row.data)) {
    if (TIME_FIELDS.has(k)) continue;
    out[k] = toOutput(row.data[k]);
  }
  return out;
}

/** The legacy body; summarize results go to `buckets.totals` as the service does. */
export function legacyBody(
  res: ExecResult,
  status: QueryStatus,
  extra?: { dataset: string; datasets?: readonly string[] },
): LegacyResult {
  const buckets: { series: unknown[]; totals: unknown[] } = { series: [], totals: [] };
  const body: LegacyResult = { status, matches: [], buckets };
  if (res.summary) {
    const { by, aggs } = res.summary;
    // Each group carries an `id`, unique in the answer: axiomhq/axiom-go axiom/querylegacy/result.go (EntryGroup)
    // and axiomhq/axiom-py src/axiom_py/query/result.py (EntryGroup, where it is required) read one.
    buckets.totals = res.rows.map((r, id) => ({
      id,
      group: Object.fromEntries(by.map((b) => [b, toOutput(r.data[b])])),
      aggregations: aggs.map((a) => ({ op: a.name, value: toOutput(r.data[a.name]) })),
    }));
  } else {
    body.matches = res.rows.map((r) => ({
      _time: formatNs(r.timeNs ?? 0n),
      _sysTime: formatNs(r.sysTimeNs ?? 0n),
      _rowId: r.rowId ?? "",
      data: jsonData(res, r, res.columns),
    }));
  }
  if (extra) {
    body.datasetNames = [...(extra.datasets ?? (extra.dataset === "" ? [] : [extra.dataset]))];
    body.fieldsMetaMap = {
      [extra.dataset]: fieldTypes(res).map((f) => ({ ...f, unit: "", hidden: false, description: "" })),
    };
  }
  return body;
}

/** Column name and inferred type: one type when every non-null value agrees, float for mixed numbers. */
function fieldTypes(res: ExecResult): { name: string; type: string }[] {
  return outputColumns(res).map((name) => ({ name, type: columnType(columnValues(res.rows, name)) }));
}

/** A column's values over the rows, as the engine holds them. */
export function columnValues(rows: Row[], name: string): unknown[] {
  const get = fieldGetter(name);
  return rows.map((r) => get(r));
}

/** A column of the result's rows, as {@link columnValues} reads it, taken from its table when it has one. */
export function resultColumn(res: ExecResult, name: string): readonly unknown[] {
  return tableColumn(res, name) ?? columnValues(res.rows, name);
}

/** The result's table's column `name`, when it has a table ({@link ExecResult.table}). */
function tableColumn(res: ExecResult, name: string): readonly unknown[] | undefined {
  const at = res.table?.names.indexOf(name) ?? -1;
  return at >= 0 ? res.table!.values[at] : undefined;
}

/** The type a column of these values is given (see {@link fieldTypes}). */
export function columnType(values: readonly unknown[]): string {
  const types = new Set<string>();
  for (const v of values) {
    const t = typeOf(v);
    if (t !== "null") types.add(t);
  }
  if (types.size === 0) return "string";
  if (types.size === 1) return [...types][0];
  if (types.size === 2 && types.has("integer") && types.has("float")) return "float";
  return "dynamic";
}

/**
 * A column of the tabular body in one pass over the rows: its type, as {@link columnType} gives it, and its values
 * as JSON values. A summarize by bin(_time, w) and another key gives each bin's rows one datetime object, next to
 * each other: its text is made once for the run, not once per cell.
 */
export function outputColumn(rows: readonly Row[], name: string): { type: string; values: unknown[] } {
  const get = fieldGetter(name);
  return outputValues(rows.length, (i) => get(rows[i]));
}

/** {@link outputColumn} of the `n` values `at` answers, in order. */
function outputValues(n: number, at: (i: number) => unknown): { type: string; values: unknown[] } {
  const values = new Array<unknown>(n);
  let last: unknown = undefined;
  let lastOut: unknown = undefined;
  // The distinct types seen but null: the first two, and whether there were more.
  let first: string | undefined;
  let second: string | undefined;
  let more = false;
  for (let i = 0; i < n; i++) {
    const v = at(i);
    const t = typeOf(v);
    if (t !== "null" && t !== first && t !== second) {
      if (first === undefined) first = t;
      else if (second === undefined) second = t;
      else more = true;
    }
    if (v instanceof DateTime) {
      if (v !== last) {
        last = v;
        lastOut = toOutput(v);
      }
      values[i] = lastOut;
    } else values[i] = toOutput(v);
  }
  const numbers = !more && second !== undefined && [first, second].sort().join() === "float,integer";
  const type = first === undefined ? "string" : second === undefined ? first : numbers ? "float" : "dynamic";
  return { type, values };
}

/** A summarize column's `agg`: the operation's name, the fields it reads and its other arguments, as
 * axiomhq/axiom-go axiom/query/result.go (Aggregation) and axiomhq/axiom-js packages/js/src/client.ts
 * (TabularAggregation) read it: `topk(remote_ip, 1)` is `{name: "topk", fields: ["remote_ip"], args: [1]}`. */
interface TabularAggregation {
  name: string;
  fields: string[];
  args: unknown[];
}

/** APL functions whose operation goes by another name (axiom-go axiom/query/aggregation.go: OpDistinct). */
const AGG_OP: Record<string, string> = { dcount: "distinct" };

/**
 * The tabular body: one table, column-major, aligned with `fields`. `datasets` are every dataset the query read
 * (a union's or a join's too), the table's `sources`; `print` and `datatable` read none.
 */
export function tabularBody(
  res: ExecResult,
  status: QueryStatus,
  dataset: string,
  datasets: readonly string[] = dataset === "" ? [] : [dataset],
): TabularResult {
  const names = outputColumns(res);
  const fields: { name: string; type: string; agg?: TabularAggregation }[] = [];
  const columns: unknown[][] = [];
  const aggs = new Map(res.summary?.aggs.map((a) => [a.name, a]));
  for (const name of names) {
    const cells = tableColumn(res, name);
    const { type, values } =
      cells === undefined ? outputColumn(res.rows, name) : outputValues(cells.length, (i) => cells[i]);
    const agg = aggs.get(name);
    fields.push(
      agg
        ? { name, type, agg: { name: AGG_OP[agg.fn] ?? agg.fn, fields: agg.fields, args: agg.args } }
        : { name, type },
    );
    columns.push(values);
  }
  return {
    format: "tabular",
    status,
    tables: [
      {
        name: "0",
        sources: datasets.map((name) => ({ name })),
        fields,
        order: res.order,
        groups: res.summary ? res.summary.by.map((name) => ({ name })) : [],
        columns,
      },
    ],
    datasetNames: [...datasets],
  };
}
