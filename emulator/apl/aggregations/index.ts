/**
 * The aggregation functions of APL's `summarize` (the reference's "Aggregation functions" pages, axiomhq/docs
 * apl/aggregation-function/*.mdx): a registry the core looks names up in, each entry making one accumulator per
 * group. Accumulators take the evaluated arguments of one row at a time and give their output cells at the end.
 */
import { DateTime, Timespan, sortCompare, toOutput } from "../values";

/** One group's running state of one aggregation. */
export interface Accumulator {
  /** Takes one row's evaluated arguments (constants included, at their positions). */
  add(args: unknown[]): void;
  /** One value per output column, in the order of {@link AggregationFunction.outputNames}. */
  result(): unknown[];
}

/** A documented aggregation: its arity, which arguments are constants, its output names and its accumulator. */
export interface AggregationFunction {
  minArgs: number;
  maxArgs: number;
  /** Argument positions that must be constants, evaluated once (percentile's 95, topk's k, make_list's max). */
  constantArgs?: readonly number[];
  /** Output column names; `given` is `name =` if written; argTexts are the arguments' source texts. */
  outputNames(
    given: string | undefined,
    argTexts: readonly string[],
    constants: readonly unknown[],
  ): string[];
  /** A fresh accumulator; throws {@link AggregationArgumentError} when a constant argument is unusable. */
  create(constants: readonly unknown[]): Accumulator;
}

/**
 * A constant argument an aggregation cannot use (topk's k of 0, a percentile of 150). It carries no position:
 * the core rethrows it as an AplError at the call.
 */
export class AggregationArgumentError extends Error {
  override readonly name = "AggregationArgumentError";
}

/** Null and missing values: most aggregations skip them (the reference's pages say "null values are ignored"). */
export function isNullish(v: unknown): v is null | undefined {
  return v === null || v === undefined;
}

/**
 * A key that tells values apart by type and value, for distinct counting and grouping of dynamic values:
 * `1` and `"1"` are different values, two datetimes at the same instant are one.
 */
export function valueKey(v: unknown): string {
  if (isNullish(v)) return "n";
  if (v instanceof DateTime) return `d${v.ns}`;
  if (v instanceof Timespan) return `t${v.ns}`;
  switch (typeof v) {
    case "number":
      return `#${v}`;
    case "string":
      return `s${v}`;
    case "boolean":
      return v ? "b1" : "b0";
    case "bigint":
      return `#${v}`;
    default:
      return `j${JSON.stringify(v, (_k, x: unknown) => (x instanceof DateTime || x instanceof Timespan ? toOutput(x) : x))}`;
  }
}

/**
 * The column-name part the service derives from an argument: a field path with dots (and brackets) turned into
 * underscores (`avg(req.duration)` -> `avg_req_duration`), and nothing for other expressions, as today's
 * emulator names them (`count()` -> `count_`).
 */
export function argNamePart(argText: string | undefined): string {
  if (argText === undefined) return "";
  const text = argText.trim();
  if (/^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/.test(text)) return text.replace(/\./g, "_");
  const quoted = /^\[\s*(['"])(.*)\1\s*\]$/.exec(text);
  if (quoted) return quoted[2].replace(/[^\w$]/g, "_");
  return "";
}

/** `fn_arg`, or the given name. */
function defaultName(fn: string) {
  return (given: string | undefined, argTexts: readonly string[]): string[] => [
    given ?? `${fn}_${argNamePart(argTexts[0])}`,
  ];
}

/** A number from an aggregated value; anything else (strings, booleans, dynamic) is skipped as undefined. */
function numeric(v: unknown): number | undefined {
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  return undefined;
}

function positiveInt(constants: readonly unknown[], at: number, fn: string, what: string): number {
  const v = constants[at];
  if (typeof v !== "number" || !Number.isInteger(v) || v < 1)
    throw new AggregationArgumentError(
      `${fn}() takes ${what}, a positive integer, got ${JSON.stringify(toOutput(v))}`,
    );
  return v;
}

const count: AggregationFunction = {
  minArgs: 0,
  maxArgs: 1,
  outputNames: (given) => [given ?? "count_"],
  create() {
    let n = 0;
    return {
      add(args) {
        // count() counts rows; count(expr) counts the rows where expr is not null.
        if (args.length === 0 || !isNullish(args[0])) n++;
      },
      result: () => [n],
    };
  },
};

const sum: AggregationFunction = {
  minArgs: 1,
  maxArgs: 1,
  outputNames: defaultName("sum"),
  create() {
    let total = 0;
    let timespan: bigint | undefined;
    return {
      add([v]) {
        if (v instanceof Timespan) timespan = (timespan ?? 0n) + v.ns;
        else {
          const x = numeric(v);
          if (x !== undefined) total += x;
        }
      },
      result: () => [timespan !== undefined ? new Timespan(timespan) : total],
    };
  },
};

const avg: AggregationFunction = {
  minArgs: 1,
  maxArgs: 1,
  outputNames: defaultName("avg"),
  create() {
    let total = 0;
    let n = 0;
    return {
      add([v]) {
        const x = numeric(v);
        if (x === undefined) return;
        total += x;
        n++;
      },
      result: () => [n === 0 ? null : total / n],
    };
  },
};

function extreme(fn: "min" | "max"): AggregationFunction {
  const sign = fn === "min" ? -1 : 1;
  return {
    minArgs: 1,
    maxArgs: 1,
    outputNames: defaultName(fn),
    create() {
      let best: unknown = undefined;
      return {
        add([v]) {
          if (isNullish(v)) return;
          if (best === undefined || Math.sign(sortCompare(v, best)) === sign) best = v;
        },
        result: () => [best ?? null],
      };
    },
  };
}

const dcount: AggregationFunction = {
  minArgs: 1,
  maxArgs: 2,
  constantArgs: [1],
  outputNames: defaultName("dcount"),
  create() {
    const seen = new Set<string>();
    return {
      add([v]) {
        if (!isNullish(v)) seen.add(valueKey(v));
      },
      result: () => [seen.size],
    };
  },
};

const topk: AggregationFunction = {
  minArgs: 2,
  maxArgs: 2,
  constantArgs: [1],
  outputNames: defaultName("topk"),
  create(constants) {
    const k = positiveInt(constants, 1, "topk", "k");
    const counts = new Map<string, { key: unknown; count: number }>();
    return {
      add([v]) {
        if (isNullish(v)) return;
        const key = valueKey(v);
        const entry = counts.get(key);
        if (entry) entry.count++;
        else counts.set(key, { key: v, count: 1 });
      },
      result() {
        const sorted = [...counts.values()].sort((a, b) => b.count - a.count || sortCompare(a.key, b.key));
        return [sorted.slice(0, k).map((e) => ({ key: toOutput(e.key), count: e.count, error: 0 }))];
      },
    };
  },
};

/** Every aggregation by name, each …if form listed explicitly. */
export const AGGREGATIONS: ReadonlyMap<string, AggregationFunction> = new Map<string, AggregationFunction>([
  ["count", count],
  ["sum", sum],
  ["avg", avg],
  ["min", extreme("min")],
  ["max", extreme("max")],
  ["dcount", dcount],
  ["topk", topk],
]);
