/**
 * The one door from the monitor scheduler to the query engine: a monitor's APL runs through `runAplQuery`, the
 * entry point `POST /v1/datasets/_apl` uses, with the same shutdown signal (the context's `queries`) and the same
 * dataset check, so a run's query answers what the endpoint would. Its budgets are a run's (see
 * {@link runBudget}). Only this file names the engine's entry point: a rewrite of the engine changes this file alone.
 */
import type { EmulatorContext } from "../context";
import { runAplQuery } from "../query";
import {
  DEFAULT_QUERY_MEMORY_BYTES,
  DEFAULT_QUERY_TIMEOUT_MS,
  type QueryBudgetOptions,
} from "../query/budget";
import { datasetExists } from "../routes/datasets";
import { virtualFieldsOf } from "../routes/virtual-fields";
import { formatNs } from "../time";

/** One column of a query's result, as the tabular format describes it. */
export interface ResultColumn {
  name: string;
  /** The engine's type name: `integer`, `float`, `string`, `datetime`, `boolean`, `dynamic`, … */
  type: string;
  /** Whether the column is an aggregation of a `summarize`. */
  aggregated: boolean;
}

/** A query's result as rows of named values, with what the tabular format says of its columns and groups. */
export interface ResultTable {
  columns: ResultColumn[];
  /** The `by` columns of a `summarize` (a binned `_time` among them); empty without a summarize. */
  groupBy: string[];
  /** Whether the query ended in a `summarize` (it has aggregated columns or `by` columns). */
  summarized: boolean;
  rows: Record<string, unknown>[];
  /**
   * How many events matched the query's filters (the status's `rowsMatched`). A `summarize` without `by` answers
   * one row even when none did (`count()` is 0, as in APL's model, Kusto), so this is how a run tells "no data".
   */
  matched: number;
}

/** The result of a monitor's query: a table, or why there is none (the engine's own message). */
export type MonitorQueryResult = { ok: true; table: ResultTable } | { ok: false; error: string };

/**
 * The most rows a run reads: the server's own page cap (emulator/query SERVER_PAGE_LIMIT). A monitor's result is
 * a summary (a few groups times a few bins) or, for a match monitor, the events of one interval.
 */
const RUN_ROW_LIMIT = 50_000;

/**
 * The most bytes of rows and values one run's query may build (emulator/query/budget.ts counts them): a quarter of
 * an endpoint query's. Ours: monitors run unattended, side by side and again every interval, and their results are
 * summaries or one interval's matches, so a run that builds more is a query that would not finish well anyway.
 */
export const RUN_MEMORY_BYTES = 256 * 1024 * 1024;

/**
 * A run's query budgets: the emulator's query timeout, but no longer than the monitor's interval (a run that
 * outlasts it would only make the next one skip; stopped at the interval, its share of the machine goes back to the
 * others), and {@link RUN_MEMORY_BYTES} (or the emulator's own per-query budget, when set lower).
 */
export function runBudget(em: EmulatorContext, intervalMs: number): QueryBudgetOptions {
  return {
    ...em.queries,
    timeoutMs: Math.min(em.queries.timeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS, intervalMs),
    memoryBytes: Math.min(em.queries.memoryBytes ?? DEFAULT_QUERY_MEMORY_BYTES, RUN_MEMORY_BYTES),
  };
}

/**
 * Runs `apl` over `[startNs, endNs)` at `nowNs` (what `now()` and `ago()` read). The engine's bounds are
 * inclusive at both ends, so the end sent is one nanosecond before `endNs`: an event stamped exactly at a run's
 * end belongs to the next window, not to both.
 */
export async function runMonitorQuery(
  em: EmulatorContext,
  apl: string,
  window: { startNs: bigint; endNs: bigint },
  nowNs: bigint,
  limits: QueryBudgetOptions = em.queries,
): Promise<MonitorQueryResult> {
  let reply;
  try {
    reply = await runAplQuery(
      em.store,
      {
        apl,
        startTime: formatNs(window.startNs),
        endTime: formatNs(window.endNs - 1n),
        limit: RUN_ROW_LIMIT,
      },
      "tabular",
      nowNs,
      (name) => datasetExists(em, name),
      limits,
      // The dataset's virtual fields, as the endpoint computes them (the flagship's anomaly monitor reads one).
      (dataset) => virtualFieldsOf(em, dataset),
    );
  } catch (err) {
    return { ok: false, error: `the query failed: ${(err as Error)?.message ?? String(err)}` };
  }
  if (reply.status !== 200) {
    const message = (reply.body as { message?: unknown } | undefined)?.message;
    return { ok: false, error: `${reply.status}: ${typeof message === "string" ? message : "query failed"}` };
  }
  return { ok: true, table: tableOf(reply.body) };
}

/** The status's `rowsMatched`, or the rows when a body has none. */
function matchedOf(body: unknown, rows: number): number {
  const matched = (body as { status?: { rowsMatched?: unknown } }).status?.rowsMatched;
  return typeof matched === "number" ? matched : rows;
}

/** The first table of a tabular body, as rows. */
function tableOf(body: unknown): ResultTable {
  const table = (
    body as {
      tables: {
        fields: { name: string; type: string; agg?: unknown }[];
        groups: { name: string }[];
        columns: unknown[][];
      }[];
    }
  ).tables[0];
  const columns = table.fields.map((f) => ({ name: f.name, type: f.type, aggregated: f.agg !== undefined }));
  const length = table.columns[0]?.length ?? 0;
  const rows: Record<string, unknown>[] = [];
  for (let i = 0; i < length; i++) {
    const row: Record<string, unknown> = {};
    columns.forEach((c, j) => (row[c.name] = table.columns[j][i]));
    rows.push(row);
  }
  const groupBy = table.groups.map((g) => g.name);
  return {
    columns,
    groupBy,
    summarized: groupBy.length > 0 || columns.some((c) => c.aggregated),
    rows,
    matched: matchedOf(body, rows.length),
  };
}
