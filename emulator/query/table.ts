/**
 * The APL engine's typed entry for callers in process (monitor runs, backtests): APL, a half-open window and now,
 * in nanoseconds, in; a table of values or a query error out. Nothing is written as an HTTP body and read back:
 * the `_apl` endpoint formats the same execution (./index.ts executeApl) as JSON, this reads it as rows.
 */
import { toOutput } from "../apl/values";
import type { EventStoreApi } from "../store/events";
import type { QueryBudgetOptions } from "./budget";
import { columnType, outputColumns, resultColumn } from "./format";
import { executeApl, type AplCatalog, type QueryError } from "./index";

/** One column of a query's result, as the tabular format describes it. */
export interface TableColumn {
  name: string;
  /** The engine's type name: `integer`, `float`, `string`, `datetime`, `boolean`, `dynamic`, … */
  type: string;
  /** Whether the column is an aggregation of a `summarize`. */
  aggregated: boolean;
}

/** A query's result as rows of named values, with what the tabular format says of its columns and groups. */
export interface QueryTable {
  columns: TableColumn[];
  /** The `by` columns of a `summarize` (a binned `_time` among them); empty without a summarize. */
  groupBy: string[];
  /** Whether the query ended in a `summarize` (it has aggregated columns or `by` columns). */
  summarized: boolean;
  /** Each row's values as the JSON body would hold them (a datetime as RFC 3339 text, a timespan as its text). */
  rows: Record<string, unknown>[];
  /** Each row's event time when the row is an event's (undefined after a summarize), aligned with `rows`. */
  times: (bigint | undefined)[];
  /**
   * How many events matched the query's filters (the status's `rowsMatched`). A `summarize` without `by` answers
   * one row even when none did (`count()` is 0, as in APL's model, Kusto), so this is how a run tells "no data".
   */
  matched: number;
}

/** A query's table, or why there is none (the status and message the endpoint would answer). */
export type TableResult = { ok: true; table: QueryTable } | { ok: false; error: QueryError };

/** What {@link queryTable} runs. */
export interface TableQuery {
  apl: string;
  /** The window, `[startNs, endNs)`: an event stamped at its end belongs to the next window. */
  startNs: bigint;
  endNs: bigint;
  /** What `now()` and `ago()` read. */
  nowNs: bigint;
  /** The most rows answered (the endpoint's page cap applies as well). */
  limit?: number;
}

/**
 * Runs `query` over `store`. The engine's bounds are inclusive at both ends, so the end it is given is one
 * nanosecond before the window's: that is what makes the window half-open.
 */
export async function queryTable(
  store: EventStoreApi,
  query: TableQuery,
  catalog: AplCatalog,
  limits: QueryBudgetOptions = {},
): Promise<TableResult> {
  const ran = await executeApl(
    store,
    {
      apl: query.apl,
      startNs: query.startNs,
      endNs: query.endNs - 1n,
      nowNs: query.nowNs,
      limit: query.limit,
    },
    catalog,
    limits,
  );
  if (!ran.ok) return ran;
  const { res } = ran;
  const aggregated = new Set(res.summary?.aggs.map((a) => a.name));
  const names = outputColumns(res);
  const columns: TableColumn[] = [];
  const values: (readonly unknown[])[] = [];
  for (const name of names) {
    const column = resultColumn(res, name);
    values.push(column);
    columns.push({ name, type: columnType(column), aggregated: aggregated.has(name) });
  }
  // A summarize's table has no row objects to walk: its rows are as many as its columns' cells, and untimed.
  const count = res.table?.length ?? res.rows.length;
  const rows = Array.from({ length: count }, (_, i) => {
    const row: Record<string, unknown> = {};
    names.forEach((name, j) => (row[name] = toOutput(values[j][i])));
    return row;
  });
  const groupBy = res.summary?.by ?? [];
  return {
    ok: true,
    table: {
      columns,
      groupBy: [...groupBy],
      summarized: groupBy.length > 0 || aggregated.size > 0,
      rows,
      times:
        res.table !== undefined ? new Array<undefined>(count).fill(undefined) : res.rows.map((r) => r.timeNs),
      matched: res.rowsMatched,
    },
  };
}
