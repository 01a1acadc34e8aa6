/**
 * Which names a query may call, and with how many arguments: the core's own functions (those that need the row,
 * a column's name or the query's range), the scalar functions (emulator/apl/functions) and the aggregations
 * (emulator/apl/aggregations). The parser checks every call here, so a bad call is a 400 pointing at it.
 */
import { AGGREGATIONS, UNSUPPORTED_AGGREGATIONS } from "./aggregations";
import { SCALAR_FUNCTIONS, UNSUPPORTED_FUNCTIONS } from "./functions";

/**
 * Functions the core evaluates itself, with their argument counts: they read the row (`pack_all`,
 * `column_ifexists`, `ingestion_time`), take column names rather than values (`bag_pack_columns`), or need the
 * query's time range (`bin_auto`).
 */
export const CORE_FUNCTIONS: ReadonlyMap<string, { minArgs: number; maxArgs: number }> = new Map([
  ["column_ifexists", { minArgs: 2, maxArgs: 2 }],
  ["pack_all", { minArgs: 0, maxArgs: 1 }],
  ["bag_pack_columns", { minArgs: 1, maxArgs: Infinity }],
  ["bin_auto", { minArgs: 1, maxArgs: 1 }],
  ["ingestion_time", { minArgs: 0, maxArgs: 0 }],
  ["now", { minArgs: 0, maxArgs: 1 }],
  ["ago", { minArgs: 1, maxArgs: 1 }],
  ["iff", { minArgs: 3, maxArgs: 3 }],
  ["iif", { minArgs: 3, maxArgs: 3 }],
  ["case", { minArgs: 3, maxArgs: Infinity }],
  ["coalesce", { minArgs: 1, maxArgs: Infinity }],
  ["pack_array", { minArgs: 0, maxArgs: Infinity }],
  ["cursor_current", { minArgs: 0, maxArgs: 0 }],
  ["ensure_field", { minArgs: 2, maxArgs: 2 }],
]);

/** What a call's name is: a function of the core or of the registry, an aggregation, refused, or unknown. */
export type CallKind =
  | { kind: "core" | "scalar"; minArgs: number; maxArgs: number }
  | { kind: "aggregation" }
  | { kind: "unsupported"; why: string }
  | { kind: "unknown" };

/** Looks a called name up. */
export function lookupCall(name: string): CallKind {
  const core = CORE_FUNCTIONS.get(name);
  if (core) return { kind: "core", ...core };
  const scalar = SCALAR_FUNCTIONS.get(name);
  if (scalar) return { kind: "scalar", minArgs: scalar.minArgs, maxArgs: scalar.maxArgs };
  const why = UNSUPPORTED_FUNCTIONS.get(name);
  if (why !== undefined) return { kind: "unsupported", why };
  if (AGGREGATIONS.has(name) || UNSUPPORTED_AGGREGATIONS.has(name)) return { kind: "aggregation" };
  return { kind: "unknown" };
}

/** "takes 2 arguments", "takes 1 to 3 arguments", "takes at least 1 argument". */
export function arityText(min: number, max: number): string {
  const plural = (n: number) => (n === 1 ? "" : "s");
  if (min === max) return `takes ${min} argument${plural(min)}`;
  if (max === Infinity) return `takes at least ${min} argument${plural(min)}`;
  return `takes ${min} to ${max} arguments`;
}
