/**
 * The scalar functions of the APL reference (axiomhq/docs, apl/scalar-functions/**), one registry the compiler
 * looks names up in. Each family lives in its own module; this one merges them (a name defined twice is a bug
 * and fails at load) and lists the documented functions the emulator refuses, with the reason.
 *
 * Not here, because their arguments are not plain values: they belong to the compiler, which must handle them
 * before looking in this registry: column_ifexists and ensure_field (a column name), bag_pack_columns and
 * pack_all (the row), bin_auto (the query's time range), ingestion_time and cursor_current (the stored event's
 * metadata).
 */
import { ARRAY_FUNCTIONS } from "./array";
import { BAG_FUNCTIONS } from "./bag";
import type { FunctionContext, FunctionTable, ScalarFunction } from "./common";
import { CONDITIONAL_FUNCTIONS } from "./conditional";
import { CONVERSION_FUNCTIONS } from "./conversion";
import { DATETIME_FUNCTIONS } from "./datetime";
import { ENCODING_FUNCTIONS } from "./encoding";
import { GENAI_FUNCTIONS } from "./genai";
import { HASH_FUNCTIONS } from "./hash";
import { IP_FUNCTIONS } from "./ip";
import { MATH_FUNCTIONS } from "./math";
import { SERIES_FUNCTIONS } from "./series";
import { SQL_FUNCTIONS } from "./sql";
import { STRING_FUNCTIONS } from "./string";
import { TYPE_FUNCTIONS } from "./type";
import { URL_FUNCTIONS } from "./url";

export type { FunctionContext, ScalarFunction } from "./common";

/** Every family, merged; a duplicate name throws when the module loads. */
function merge(...tables: FunctionTable[]): ReadonlyMap<string, ScalarFunction> {
  const map = new Map<string, ScalarFunction>();
  for (const table of tables) {
    for (const [name, f] of Object.entries(table)) {
      if (map.has(name)) throw new Error(`scalar function ${name} is defined twice`);
      map.set(name, f);
    }
  }
  return map;
}

/** The scalar functions by name. */
export const SCALAR_FUNCTIONS: ReadonlyMap<string, ScalarFunction> = merge(
  STRING_FUNCTIONS,
  CONDITIONAL_FUNCTIONS,
  CONVERSION_FUNCTIONS,
  TYPE_FUNCTIONS,
  MATH_FUNCTIONS,
  DATETIME_FUNCTIONS,
  ARRAY_FUNCTIONS,
  BAG_FUNCTIONS,
  HASH_FUNCTIONS,
  IP_FUNCTIONS,
  URL_FUNCTIONS,
  ENCODING_FUNCTIONS,
  SERIES_FUNCTIONS,
  GENAI_FUNCTIONS,
  SQL_FUNCTIONS,
);

const NEEDS_PRICING = "needs the service's table of model prices";

/** Documented functions the emulator refuses, with the reason: "needs a GeoIP database". */
export const UNSUPPORTED_FUNCTIONS: ReadonlyMap<string, string> = new Map([
  ["geo_info_from_ip_address", "needs a GeoIP database"],
  ["genai_cost", NEEDS_PRICING],
  ["genai_input_cost", NEEDS_PRICING],
  ["genai_output_cost", NEEDS_PRICING],
  ["genai_get_pricing", NEEDS_PRICING],
]);

/** Calls `name` with evaluated arguments (for tests and tools; the compiler looks the function up once). */
export function callFunction(name: string, args: unknown[], ctx: FunctionContext): unknown {
  const f = SCALAR_FUNCTIONS.get(name);
  if (f === undefined) throw new Error(`no scalar function ${name}`);
  return f.call(args, ctx);
}
