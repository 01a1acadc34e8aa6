/**
 * What a threshold or anomaly monitor's query result says, before any alert state: the values of each group, and
 * whether a value crosses the threshold.
 *
 * - A chart result (binned by `_time`) crosses when any point does; a table result when any numeric value does
 *   (DOCS threshold-monitors: axiomhq/docs monitor-data/threshold-monitors.mdx, and monitor-examples.mdx: with a
 *   10-minute range and per-minute bins, the monitor stays in alert until all ten bins are back under).
 * - `columnName` names the one column compared (OA: axiomhq/docs restapi/versions/v2.json, Monitor.columnName).
 *   Without it, every numeric column that is not a group key nor a time is compared (our inference).
 * - Groups are the values of the non-time `by` columns (GO: axiom-go axiom/monitors.go, NotifyByGroup).
 * - No data is no row, or no numeric value at all (an average of an absent field is undefined) (DOCS
 *   threshold-monitors, alertOnNoData).
 */
import type { ResultTable } from "./run-query";

/** The comparison operators of a threshold (OA's Monitor.operator; `AboveOrBelow` is anomaly-only). */
export type ThresholdOperator = "Below" | "BelowOrEqual" | "Above" | "AboveOrEqual";

/** Whether `value` crosses `threshold` under `operator`: `<`, `<=`, `>`, `>=` (OA; TF's validator). */
export function crosses(operator: ThresholdOperator, value: number, threshold: number): boolean {
  switch (operator) {
    case "Below":
      return value < threshold;
    case "BelowOrEqual":
      return value <= threshold;
    case "Above":
      return value > threshold;
    case "AboveOrEqual":
      return value >= threshold;
  }
}

/** Whether `operator` looks upwards (a larger value is the worse one). */
export const looksUp = (operator: string): boolean => operator === "Above" || operator === "AboveOrEqual";

/** The words of an operator in a notification's body, as the docs' sample writes them ("above or equal"). */
export function operatorWords(operator: string): string {
  switch (operator) {
    case "Below":
      return "below";
    case "BelowOrEqual":
      return "below or equal";
    case "Above":
      return "above";
    case "AboveOrEqual":
      return "above or equal";
    case "AboveOrBelow":
      return "above or below";
    default:
      return operator;
  }
}

/** One group of a result: its key values and every numeric value compared, in row order. */
export interface GroupValues {
  /** Stable identity of the group: its values as JSON (`[]` for an ungrouped result). */
  key: string;
  /** The group's `by` column names and values (as text, the notification's `GroupKeys`/`GroupValues`). */
  groupKeys: string[];
  groupValues: string[];
  /** The group's values by column, as the result holds them. */
  group: Record<string, unknown>;
  /** Every numeric value compared, in row order (one per bin of a chart result). */
  values: number[];
}

/** A result read for comparison: its groups, or why it cannot be compared. */
export type ReadResult =
  { ok: true; grouped: boolean; groups: GroupValues[]; noData: boolean } | { ok: false; error: string };

const isTimeColumn = (name: string, type: string) =>
  type === "datetime" || name === "_time" || name === "_sysTime";

/**
 * Reads a summarize result into groups of numeric values; `columnName` (when not empty) picks the column. No event
 * matching the query is no data (DOCS threshold-monitors: "no matching event"), though an ungrouped `summarize`
 * still answers one row of zeros for it.
 */
export function readResult(table: ResultTable & ReadAhead, columnName: string | undefined): ReadResult {
  // Read already by whoever made the table, for this column: a backtest reads its rebuilt windows as it makes
  // them (cli/backtest/decompose.ts), as this function would read their rows.
  if (table.read !== undefined && (table.read.columnName || undefined) === (columnName || undefined))
    return table.read.result;
  const shape = resultShape(table, columnName);
  if ("error" in shape) return { ok: false, error: shape.error };
  const { groupColumns, valueColumns } = shape;
  if (table.matched === 0) return { ok: true, grouped: groupColumns.length > 0, groups: [], noData: true };
  const groups = new Map<string, GroupValues>();
  let numeric = 0;
  for (const row of table.rows) {
    const groupValues = groupColumns.map((name) => groupValueText(row[name]));
    const key = groupColumns.length === 0 ? "[]" : JSON.stringify(groupValues);
    let g = groups.get(key);
    if (!g) {
      g = {
        key,
        groupKeys: groupColumns,
        groupValues,
        group: Object.fromEntries(groupColumns.map((name) => [name, row[name]])),
        values: [],
      };
      groups.set(key, g);
    }
    for (const name of valueColumns) {
      const v = row[name];
      if (typeof v === "number" && Number.isFinite(v)) {
        g.values.push(v);
        numeric++;
      }
    }
  }
  return { ok: true, grouped: groupColumns.length > 0, groups: [...groups.values()], noData: numeric === 0 };
}

/** A table read for the judge by whoever made it, for one `columnName`. */
export interface ReadAhead {
  read?: { columnName: string | undefined; result: ReadResult };
}

/** Which columns of a result group it and which are compared. */
export type Shape = { groupColumns: string[]; valueColumns: string[] } | { error: string };

/**
 * Shapes already worked out, by the columns they were worked out from: a backtest's windows share one columns
 * list, so a month of runs reads it once.
 */
const shapes = new WeakMap<ResultTable["columns"], Map<string, Shape>>();

export function resultShape(
  table: Pick<ResultTable, "columns" | "groupBy">,
  columnName: string | undefined,
): Shape {
  const byName = shapes.get(table.columns);
  const cacheKey = `${columnName ?? ""}\u0000${table.groupBy.join("\u0000")}`;
  const known = byName?.get(cacheKey);
  if (known) return known;
  const types = new Map(table.columns.map((c) => [c.name, c.type]));
  const groupColumns = table.groupBy.filter((name) => !isTimeColumn(name, types.get(name) ?? ""));
  const grouping = new Set(groupColumns);
  let shape: Shape;
  if (columnName && !types.has(columnName)) {
    const names = table.columns.map((c) => c.name).join(", ");
    shape = {
      error: `columnName: "${columnName}" is not a column of the query's result (its columns: ${names || "none"})`,
    };
  } else {
    const valueColumns = columnName
      ? [columnName]
      : table.columns
          .filter((c) => !grouping.has(c.name) && !isTimeColumn(c.name, c.type))
          .map((c) => c.name);
    shape = { groupColumns, valueColumns };
  }
  if (byName) byName.set(cacheKey, shape);
  else shapes.set(table.columns, new Map([[cacheKey, shape]]));
  return shape;
}

/** A group value as text, as the notification's `GroupValues` carries it. */
export function groupValueText(v: unknown): string {
  if (v === null || v === undefined) return "";
  return typeof v === "string" ? v : JSON.stringify(v);
}

/**
 * The value a group shows against a threshold: the worst one in the operator's direction (the largest for
 * Above, the smallest for Below), so it crosses exactly when any value does; null without values.
 */
export function worstValue(operator: string, values: readonly number[]): number | null {
  if (values.length === 0) return null;
  let worst = values[0];
  const up = looksUp(operator);
  for (const v of values) if (up ? v > worst : v < worst) worst = v;
  return worst;
}

/** A number as a notification's body writes it: integers plain, others as JavaScript prints them. */
export function formatValue(v: number | null): string {
  return v === null ? "null" : String(v);
}
