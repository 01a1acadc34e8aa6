/**
 * The one door from the monitor scheduler to the query engine: a monitor's APL runs through the engine's typed
 * entry (emulator/query/table.ts), the execution `POST /v1/datasets/_apl` formats, with the same shutdown signal
 * (the context's `queries`) and the same catalog of datasets and virtual fields, so a run's query answers what the
 * endpoint would, with no HTTP body in between. Its budgets are a run's (see
 * {@link runBudget}). Only this file names the engine's entry point: a rewrite of the engine changes this file alone.
 */
import type { EmulatorContext } from "../context";
import { catalogOf } from "../catalog";
import {
  DEFAULT_QUERY_MEMORY_BYTES,
  DEFAULT_QUERY_TIMEOUT_MS,
  type QueryBudgetOptions,
} from "../query/budget";
import { queryTable } from "../query/table";

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
 * Runs `apl` over `[startNs, endNs)` at `nowNs` (what `now()` and `ago()` read). The window is half-open (the
 * typed entry asks the engine, whose bounds are inclusive, to stop a nanosecond before its end): an event stamped
 * exactly at a run's end belongs to the next window, not to both.
 */
export async function runMonitorQuery(
  em: EmulatorContext,
  apl: string,
  window: { startNs: bigint; endNs: bigint },
  nowNs: bigint,
  limits: QueryBudgetOptions = em.queries,
): Promise<MonitorQueryResult> {
  try {
    const result = await queryTable(
      em.store,
      { apl, startNs: window.startNs, endNs: window.endNs, nowNs, limit: RUN_ROW_LIMIT },
      catalogOf(em.state),
      limits,
    );
    return result.ok ? result : { ok: false, error: `${result.error.status}: ${result.error.message}` };
  } catch (err) {
    return { ok: false, error: `the query failed: ${(err as Error)?.message ?? String(err)}` };
  }
}
