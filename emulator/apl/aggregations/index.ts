/**
 * The aggregation functions of APL's `summarize` (the reference's "Aggregation functions" pages, axiomhq/docs
 * apl/aggregation-function/*.mdx at fbd61330c8357f2c24ea5d7b04b018e41392332d): a registry the core looks names up
 * in, each entry making one accumulator per group. Accumulators take the evaluated arguments of one row at a time
 * and give their output cells at the end. Every `…if` form is its own entry: the plain aggregation fed only the
 * rows whose predicate is `true` (null and false both leave the row out).
 *
 * Estimators (the reference calls dcount, percentile, histogram and topk estimates, "fast and light on resources
 * ... but it doesn't provide precise results"):
 * - percentile, percentiles_array (and `…if`): a merging t-digest, exact nearest-rank up to 1,000 values per group
 *   (./tdigest.ts);
 * - topk (and `…if`): exact up to 20,000 distinct values per group, then Space-Saving with a reported error;
 * - dcount, histogram (and `…if`): exact (a set, the values), so always within the service's error; their memory
 *   grows with the distinct values (dcount) or the rows (histogram) of a group, which the query's row bound limits.
 * spotlight and phrases are implemented after what their pages say; neither page documents the result's shape or the
 * service's method, so both are the emulator's own (see their definitions below).
 *
 * Types: sums and extremes keep their input's type (ints, reals, timespans, datetimes); avg, stdev and variance
 * of numbers are reals; avg, stdev and percentiles of timespans are timespans. Values that are not numbers
 * (strings, dynamic) are skipped by the numeric aggregations rather than failing the query, as APL yields null
 * for a bad value.
 */
import { DateTime, Timespan, sortCompare, toOutput } from "../values";
import { argNamePart, constantNamePart, singleColumn, splitNamedArg, uniqueNames } from "./naming";
import { TDigest } from "./tdigest";

export { argNamePart, uniqueNames } from "./naming";

/** One group's running state of one aggregation. */
export interface Accumulator {
  /** Takes one row's evaluated arguments (constants included, at their positions). */
  add(args: unknown[]): void;
  /**
   * One value per output column, in the order of {@link AggregationFunction.outputNames}. arg_max and arg_min give
   * no cells when no row had a value to compare (every column is then null).
   */
  result(): unknown[];
}

/** What an accumulator may need from the query besides its arguments. */
export interface AggregationContext {
  /**
   * The time window a group covers, in nanoseconds, for `rate`: the bin's width when the summarize groups by
   * `bin(_time, w)` or `bin_auto(_time)`, otherwise the query's range (the reference's rate.mdx: "over the entire
   * query window").
   */
  windowNs?: bigint;
  /** The arguments' source texts, as given to outputNames: spotlight names its fields after them. */
  argTexts?: readonly string[];
}

/** A documented aggregation: its arity, which arguments are constants, its output names and its accumulator. */
export interface AggregationFunction {
  minArgs: number;
  maxArgs: number;
  /** Argument positions that must be constants, evaluated once (percentile's 95, topk's k, make_list's max). */
  constantArgs?: readonly number[];
  /** Every position from this one on is a constant too (percentiles_array's list of percentiles). */
  constantArgsFrom?: number;
  /**
   * Output column names; `given` is `name =` if written; argTexts are the arguments' source texts (an argument
   * written `name = expr`, as arg_max allows, is passed with its `name =`). A `*` argument (arg_max's "every
   * column") gives the name `*`, and its cell is the row's columns as one object, which the core spreads.
   */
  outputNames(
    given: string | undefined,
    argTexts: readonly string[],
    constants: readonly unknown[],
  ): string[];
  /** A fresh accumulator; throws {@link AggregationArgumentError} when a constant argument is unusable. */
  create(constants: readonly unknown[], context?: AggregationContext): Accumulator;
}

/**
 * A constant argument an aggregation cannot use (topk's k of 0, a percentile of 150), or a context it lacks. It
 * carries no position: the core rethrows it as an AplError at the call.
 */
export class AggregationArgumentError extends Error {
  override readonly name = "AggregationArgumentError";
}

/** Null and missing values: the aggregations skip them (count(x) counts the others). */
export function isNullish(v: unknown): v is null | undefined {
  return v === null || v === undefined;
}

/**
 * A key that tells values apart by type and value, for distinct counting and sets of dynamic values: `1` and `"1"`
 * are different values, two datetimes at the same instant are one.
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

// ---------------------------------------------------------------------------------------------------------------
// Helpers shared by the definitions.

/** `fn_arg` from the first argument, or the given name. */
function namedAfterFirstArg(fn: string) {
  return (given: string | undefined, argTexts: readonly string[]): string[] => [
    given ?? `${fn}_${argNamePart(argTexts[0])}`,
  ];
}

/** A positive integer constant (topk's k, histogram's bins, make_list's max size). */
function positiveInt(v: unknown, fn: string, what: string): number {
  if (typeof v !== "number" || !Number.isInteger(v) || v < 1) {
    throw new AggregationArgumentError(
      `${fn}() takes ${what} as a positive integer constant, got ${describe(v)}`,
    );
  }
  return v;
}

/** A percentile constant, 0 to 100. */
function percentileValue(v: unknown, fn: string): number {
  if (typeof v !== "number" || !Number.isFinite(v) || v < 0 || v > 100) {
    throw new AggregationArgumentError(`${fn}() takes percentiles between 0 and 100, got ${describe(v)}`);
  }
  return v;
}

function describe(v: unknown): string {
  if (v === undefined) return "nothing";
  return JSON.stringify(toOutput(v)) ?? String(v);
}

/**
 * Running numeric input: numbers, or timespans (kept as nanoseconds and given back as timespans when every value
 * was one). Mixed numbers and timespans add up as numbers of nanoseconds. Where datetimes make sense (percentiles,
 * histograms: `ordered`), datetimes are read as nanoseconds after the first one seen, so they keep their precision
 * in a double, and are given back as datetimes; a group mixing datetimes with numbers keeps the kind it saw first.
 */
class NumericInput {
  numbers = 0;
  timespans = 0;
  datetimes = 0;
  private origin = 0n;

  constructor(private readonly ordered = false) {}

  /** The value as a number (timespans in ns), or undefined for a value numeric aggregations skip. */
  read(v: unknown): number | undefined {
    if (typeof v === "number") {
      if (Number.isNaN(v) || this.datetimes > 0) return undefined;
      this.numbers++;
      return v;
    }
    if (v instanceof Timespan) {
      if (this.datetimes > 0) return undefined;
      this.timespans++;
      return Number(v.ns);
    }
    if (v instanceof DateTime) {
      if (!this.ordered || this.numbers > 0 || this.timespans > 0) return undefined;
      if (this.datetimes++ === 0) this.origin = v.ns;
      return Number(v.ns - this.origin);
    }
    if (typeof v === "bigint") {
      if (this.datetimes > 0) return undefined;
      this.numbers++;
      return Number(v);
    }
    return undefined;
  }

  /** A number in the input's unit: a timespan or datetime when the inputs were all of that kind. */
  out(x: number): number | Timespan | DateTime {
    if (this.datetimes > 0) return new DateTime(this.origin + BigInt(Math.round(x)));
    return this.timespans > 0 && this.numbers === 0 ? new Timespan(BigInt(Math.round(x))) : x;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The plain aggregations. Each factory takes the name it is registered under, for its default output names.

/** count(): rows. count(x) (Kusto's form): rows where x is not null. */
function defineCount(fn: string): AggregationFunction {
  return {
    minArgs: 0,
    maxArgs: 1,
    outputNames: (given, argTexts) => [given ?? `${fn}_${argTexts.length ? argNamePart(argTexts[0]) : ""}`],
    create() {
      let n = 0;
      return {
        add(args) {
          if (args.length === 0 || !isNullish(args[0])) n++;
        },
        result: () => [n],
      };
    },
  };
}

/** sum(x): the sum of the numeric values; 0 when there are none (sumif.mdx: "If no records meet the condition, the result is 0"). */
function defineSum(fn: string): AggregationFunction {
  return {
    minArgs: 1,
    maxArgs: 1,
    outputNames: namedAfterFirstArg(fn),
    create() {
      const input = new NumericInput();
      let total = 0;
      // Timespans add exactly, in bigint nanoseconds.
      let timespanTotal = 0n;
      return {
        add([v]) {
          if (v instanceof Timespan) {
            input.read(v);
            timespanTotal += v.ns;
            return;
          }
          const x = input.read(v);
          if (x !== undefined) total += x;
        },
        result() {
          if (input.timespans > 0 && input.numbers === 0) return [new Timespan(timespanTotal)];
          return [total + Number(timespanTotal)];
        },
      };
    },
  };
}

/** avg(x): the mean of the numeric values, null when there are none (avgif.mdx). */
function defineAvg(fn: string): AggregationFunction {
  return {
    minArgs: 1,
    maxArgs: 1,
    outputNames: namedAfterFirstArg(fn),
    create() {
      const input = new NumericInput();
      let total = 0;
      let n = 0;
      return {
        add([v]) {
          const x = input.read(v);
          if (x === undefined) return;
          total += x;
          n++;
        },
        result: () => [n === 0 ? null : input.out(total / n)],
      };
    },
  };
}

/** min(x) / max(x): the extreme non-null value in APL's order, of the input's type; null when there is none. */
function defineExtreme(fn: string, kind: "min" | "max"): AggregationFunction {
  const sign = kind === "min" ? -1 : 1;
  return {
    minArgs: 1,
    maxArgs: 1,
    outputNames: namedAfterFirstArg(fn),
    create() {
      let best: unknown = undefined;
      return {
        add([v]) {
          if (isNullish(v) || (typeof v === "number" && Number.isNaN(v))) return;
          if (best === undefined || Math.sign(sortCompare(v, best)) === sign) best = v;
        },
        result: () => [best ?? null],
      };
    },
  };
}

/**
 * variance(x) / stdev(x): the sample variance and standard deviation (n − 1), as the reference's
 * query-data/visualizations.mdx says ("returns the sample variance"); Welford's update, stable in one pass.
 * Null when there are no values (varianceif.mdx), 0 for one value. stdev of timespans is a timespan; variance
 * of timespans is a number of ns².
 */
function defineSpread(fn: string, kind: "variance" | "stdev"): AggregationFunction {
  return {
    minArgs: 1,
    maxArgs: 1,
    outputNames: namedAfterFirstArg(fn),
    create() {
      const input = new NumericInput();
      let n = 0;
      let mean = 0;
      let m2 = 0;
      return {
        add([v]) {
          const x = input.read(v);
          if (x === undefined) return;
          n++;
          const delta = x - mean;
          mean += delta / n;
          m2 += delta * (x - mean);
        },
        result() {
          if (n === 0) return [null];
          const variance = n === 1 ? 0 : m2 / (n - 1);
          return [kind === "variance" ? variance : input.out(Math.sqrt(variance))];
        },
      };
    },
  };
}

/**
 * dcount(x [, accuracy]): the number of distinct non-null values, counted exactly with a set. The reference
 * (dcount.mdx) calls the service's an estimate and documents no sketch, so the exact count is within its error.
 * Kusto's optional accuracy level (0 to 4) is accepted and changes nothing.
 */
function defineDcount(fn: string): AggregationFunction {
  return {
    minArgs: 1,
    maxArgs: 2,
    constantArgs: [1],
    outputNames: namedAfterFirstArg(fn),
    create(constants) {
      const accuracy = constants[1];
      if (
        accuracy !== undefined &&
        !(typeof accuracy === "number" && Number.isInteger(accuracy) && accuracy >= 0 && accuracy <= 4)
      ) {
        throw new AggregationArgumentError(
          `${fn}() takes an accuracy level 0 to 4, got ${describe(accuracy)}`,
        );
      }
      const seen = new Set<string>();
      return {
        add([v]) {
          if (!isNullish(v)) seen.add(valueKey(v));
        },
        result: () => [seen.size],
      };
    },
  };
}

/** Distinct values topk counts exactly; past twice this it keeps the most frequent this many (Space-Saving). */
export const TOPK_EXACT_VALUES = 10_000;

/**
 * topk(x, k): the k most frequent non-null values as `{key, count, error}`, most frequent first, ties by value. The
 * shape is what axiomhq/axiom-go's datasets_integration_test.go reads from the service for `topk(remote_ip, 1)`.
 * The reference calls topk an estimate (topk.mdx). The emulator counts exactly, `error` 0, until a group has seen
 * twice {@link TOPK_EXACT_VALUES} distinct values (or 2k, if more); then it keeps only the most frequent half, as
 * Space-Saving (Metwally et al., 2005) does in batches: a value first seen after that starts at the largest count
 * dropped so far, which is its `error`, the most its count can be over. Memory stays bounded, any value more frequent
 * than rows/capacity is kept, and below the threshold the answer does not depend on row order.
 */
function defineTopk(fn: string): AggregationFunction {
  return {
    minArgs: 2,
    maxArgs: 2,
    constantArgs: [1],
    outputNames: namedAfterFirstArg(fn),
    create(constants) {
      const k = positiveInt(constants[1], fn, "k");
      const capacity = Math.max(TOPK_EXACT_VALUES, k);
      const counts = new Map<string, { key: unknown; count: number; error: number }>();
      /** The largest count dropped so far: a newcomer may have been seen that often before. */
      let floor = 0;
      const byFrequency = (a: { key: unknown; count: number }, b: { key: unknown; count: number }) =>
        b.count - a.count || sortCompare(a.key, b.key);
      return {
        add([v]) {
          if (isNullish(v)) return;
          const key = valueKey(v);
          const entry = counts.get(key);
          if (entry) {
            entry.count++;
            return;
          }
          counts.set(key, { key: v, count: floor + 1, error: floor });
          if (counts.size > 2 * capacity) {
            const ranked = [...counts].sort(([, a], [, b]) => byFrequency(a, b));
            for (const [dropped, e] of ranked.slice(capacity)) {
              floor = Math.max(floor, e.count);
              counts.delete(dropped);
            }
          }
        },
        result() {
          const sorted = [...counts.values()].sort(byFrequency);
          return [sorted.slice(0, k).map((e) => ({ key: toOutput(e.key), count: e.count, error: e.error }))];
        },
      };
    },
  };
}

/**
 * percentile(x, p): the p-th percentile of the numeric values (timespans give a timespan), null when there are
 * none. Named `percentile_x_95` (Kusto's naming, which keeps two percentiles of one column apart).
 */
function definePercentile(fn: string): AggregationFunction {
  return {
    minArgs: 2,
    maxArgs: 2,
    constantArgs: [1],
    outputNames: (given, argTexts, constants) => [
      given ?? `${fn}_${argNamePart(argTexts[0])}_${constantNamePart(constants[1])}`,
    ],
    create(constants) {
      const p = percentileValue(constants[1], fn);
      const input = new NumericInput(true);
      const digest = new TDigest();
      return {
        add([v]) {
          const x = input.read(v);
          if (x !== undefined) digest.add(x);
        },
        result() {
          const r = digest.percentile(p);
          return [r === undefined ? null : input.out(r)];
        },
      };
    },
  };
}

/** The percentile list of percentiles_array: constants, each a number or a dynamic array of numbers. */
function percentileList(constants: readonly unknown[], from: number, fn: string): number[] {
  const list: number[] = [];
  for (let i = from; i < constants.length; i++) {
    const c = constants[i];
    if (Array.isArray(c)) for (const x of c) list.push(percentileValue(x, fn));
    else list.push(percentileValue(c, fn));
  }
  if (list.length === 0) throw new AggregationArgumentError(`${fn}() takes at least one percentile`);
  return list;
}

/**
 * percentiles_array(x, p1, p2, ...) or percentiles_array(x, dynamic([p1, ...])): one array cell with the value at
 * each percentile, in the order asked (percentiles-array.mdx, percentiles-arrayif.mdx). Named `percentiles_x`, as
 * the reference's percentiles-arrayif.mdx output shows.
 */
function definePercentilesArray(fn: string): AggregationFunction {
  return {
    minArgs: 2,
    maxArgs: Infinity,
    constantArgsFrom: 1,
    outputNames: (given, argTexts) => [given ?? `percentiles_${argNamePart(argTexts[0])}`],
    create(constants) {
      const ps = percentileList(constants, 1, fn);
      const input = new NumericInput(true);
      const digest = new TDigest();
      return {
        add([v]) {
          const x = input.read(v);
          if (x !== undefined) digest.add(x);
        },
        result() {
          if (digest.count === 0) return [ps.map(() => null)];
          return [ps.map((p) => input.out(digest.percentile(p)!))];
        },
      };
    },
  };
}

/**
 * percentiles(x, p1, p2, ...): one column per percentile, `percentiles_x_50`, `percentiles_x_95` (the reference's
 * query-data/visualizations.mdx documents `percentiles(request_size, 95, 99, 99.9)`).
 */
function definePercentiles(fn: string): AggregationFunction {
  return {
    minArgs: 2,
    maxArgs: Infinity,
    constantArgsFrom: 1,
    outputNames: (given, argTexts, constants) => {
      const ps = percentileList(constants, 1, fn);
      const base = given ?? `${fn}_${argNamePart(argTexts[0])}`;
      return uniqueNames(ps.map((p) => `${base}_${constantNamePart(p)}`));
    },
    create(constants) {
      const ps = percentileList(constants, 1, fn);
      const input = new NumericInput(true);
      const digest = new TDigest();
      return {
        add([v]) {
          const x = input.read(v);
          if (x !== undefined) digest.add(x);
        },
        result: () =>
          ps.map((p) => {
            const r = digest.percentile(p);
            return r === undefined ? null : input.out(r);
          }),
      };
    },
  };
}

/** The cap of make_list, make_list_if and make_set_if when none is given (make-set-if.mdx: 1048576). */
export const DEFAULT_MAKE_LIST_CAP = 1_048_576;
/** make_set's cap when none is given: make-set.mdx says "Defaults to 128 if not specified". */
export const DEFAULT_MAKE_SET_CAP = 128;

/**
 * make_list(x [, max]): the non-null values in arrival order, at most max of them. make_set(x [, max]): the
 * distinct non-null values in order of first arrival, at most max. Both give a dynamic array; once full they stop
 * growing (O(1) per row).
 */
function defineCollect(fn: string, kind: "list" | "set", defaultCap: number): AggregationFunction {
  return {
    minArgs: 1,
    maxArgs: 2,
    constantArgs: [1],
    outputNames: namedAfterFirstArg(fn),
    create(constants) {
      const cap = constants[1] === undefined ? defaultCap : positiveInt(constants[1], fn, "a maximum size");
      const items: unknown[] = [];
      const seen = kind === "set" ? new Set<string>() : undefined;
      return {
        add([v]) {
          if (isNullish(v) || items.length >= cap) return;
          if (seen) {
            const key = valueKey(v);
            if (seen.has(key)) return;
            seen.add(key);
          }
          items.push(v);
        },
        result: () => [items.slice()],
      };
    },
  };
}

/**
 * histogram(x, bins): the numeric values' distribution as `bins` equal-width bins between the group's smallest
 * and largest value, one `{bin, count}` per non-empty bin where `bin` is the bin's lower bound (histogram.mdx's
 * output table: a `…_bin` column and a count). The service estimates; the emulator keeps the values and counts
 * exactly.
 */
function defineHistogram(fn: string): AggregationFunction {
  return {
    minArgs: 2,
    maxArgs: 2,
    constantArgs: [1],
    outputNames: namedAfterFirstArg(fn),
    create(constants) {
      const bins = positiveInt(constants[1], fn, "the number of bins");
      const input = new NumericInput(true);
      let values = new Float64Array(64);
      let n = 0;
      return {
        add([v]) {
          const x = input.read(v);
          if (x === undefined || !Number.isFinite(x)) return;
          if (n === values.length) {
            const grown = new Float64Array(values.length * 2);
            grown.set(values);
            values = grown;
          }
          values[n++] = x;
        },
        result() {
          if (n === 0) return [[]];
          let lo = Infinity;
          let hi = -Infinity;
          for (let i = 0; i < n; i++) {
            if (values[i] < lo) lo = values[i];
            if (values[i] > hi) hi = values[i];
          }
          const width = hi > lo ? (hi - lo) / bins : 1;
          const last = hi > lo ? bins - 1 : 0;
          // Only the bins that hold a value are kept, so a huge bin count costs nothing.
          const counts = new Map<number, number>();
          for (let i = 0; i < n; i++) {
            const bin = Math.min(last, Math.floor((values[i] - lo) / width));
            counts.set(bin, (counts.get(bin) ?? 0) + 1);
          }
          const out = [...counts]
            .sort(([a], [b]) => a - b)
            .map(([bin, count]) => ({ bin: toOutput(input.out(lo + bin * width)), count }));
          return [out];
        },
      };
    },
  };
}

/**
 * rate(x): the sum of x per second over the group's time window (rate.mdx: `rate(field) by bin(_time, 1h)` is
 * the rate over each hour, without a bin it is over the query's window). The core gives the window in the
 * {@link AggregationContext}; without one (a compile-time check of the constants) the cell is null.
 */
function defineRate(fn: string): AggregationFunction {
  return {
    minArgs: 1,
    maxArgs: 1,
    outputNames: namedAfterFirstArg(fn),
    create(_constants, context) {
      const window = context?.windowNs;
      if (window !== undefined && window <= 0n) {
        throw new AggregationArgumentError(`${fn}() needs a time window longer than 0, got ${window} ns`);
      }
      const input = new NumericInput();
      let total = 0;
      return {
        add([v]) {
          const x = input.read(v);
          if (x !== undefined) total += x;
        },
        result: () => [window === undefined ? null : total / (Number(window) / 1e9)],
      };
    },
  };
}

/**
 * arg_max(expr, col1, ...) / arg_min: the row where expr is largest (smallest), giving expr and the other
 * arguments' values from that row; the first such row wins a tie. Rows where expr is null are skipped. Columns
 * are named after the arguments (`arg_max(name=expr, ...)` names them, arg-max.mdx "Name fields"); `*` stands for
 * every column of the row, given to the core as one object under the name `*`.
 */
function defineArgExtreme(fn: string, kind: "max" | "min"): AggregationFunction {
  const sign = kind === "max" ? 1 : -1;
  return {
    minArgs: 1,
    maxArgs: Infinity,
    outputNames(given, argTexts) {
      const names = argTexts.map((text, i) => {
        const trimmed = text.trim();
        if (trimmed === "*") return "*";
        const { name, expr } = splitNamedArg(trimmed);
        if (name) return name;
        const column = singleColumn(expr);
        if (column !== undefined) return column;
        return i === 0 ? `${kind}_` : `${fn}_arg${i}`;
      });
      if (given !== undefined) names[0] = given;
      return uniqueNames(names);
    },
    create() {
      let best: unknown[] | undefined;
      return {
        add(args) {
          const v = args[0];
          if (isNullish(v) || (typeof v === "number" && Number.isNaN(v))) return;
          if (best === undefined || Math.sign(sortCompare(v, best[0])) === sign) best = args.slice();
        },
        result: () => best ?? [],
      };
    },
  };
}

/** How many distinct values a numeric field may take and still be compared as categories (spotlight). */
const SPOTLIGHT_CATEGORICAL_MAX = 10;
/** Distinct values of one field spotlight counts; past it, new values are counted together as "other". */
const SPOTLIGHT_VALUES_MAX = 10_000;
/** Values of a categorical field spotlight reports, the most different first. */
const SPOTLIGHT_VALUES_SHOWN = 10;

/** One field's two cohorts in spotlight. */
class SpotlightField {
  /** value key -> the value and its count in each cohort (selected, baseline) */
  readonly values = new Map<string, { value: unknown; counts: [number, number] }>();
  other: [number, number] = [0, 0];
  present: [number, number] = [0, 0];
  readonly input = new NumericInput(true);
  readonly digests: [TDigest, TDigest] = [new TDigest(), new TDigest()];
  /** Whether every present value was a number, timespan or datetime (a boxplot candidate). */
  numeric = true;

  add(v: unknown, cohort: 0 | 1): void {
    if (isNullish(v)) return;
    this.present[cohort]++;
    const x =
      typeof v === "number" || v instanceof Timespan || v instanceof DateTime
        ? this.input.read(v)
        : undefined;
    if (x === undefined) this.numeric = false;
    else this.digests[cohort].add(x);
    const key = valueKey(v);
    const entry = this.values.get(key);
    if (entry) entry.counts[cohort]++;
    else if (this.values.size < SPOTLIGHT_VALUES_MAX) {
      const counts: [number, number] = [0, 0];
      counts[cohort]++;
      this.values.set(key, { value: v, counts });
    } else this.other[cohort]++;
  }

  /** The field's entry: a boxplot comparison for many-valued numbers, proportions per value otherwise. */
  result(field: string, totals: [number, number]): Record<string, unknown> & { score: number } {
    const [selected, baseline] = this.present;
    const presence = {
      selected_present: selected,
      baseline_present: baseline,
      selected_present_proportion: totals[0] ? selected / totals[0] : 0,
      baseline_present_proportion: totals[1] ? baseline / totals[1] : 0,
    };
    if (this.numeric && this.values.size > SPOTLIGHT_CATEGORICAL_MAX) {
      const [sel, base] = this.digests;
      const box = (d: TDigest) =>
        d.count === 0
          ? null
          : Object.fromEntries(
              (
                [
                  ["min", 0],
                  ["p25", 25],
                  ["p50", 50],
                  ["p75", 75],
                  ["max", 100],
                ] as const
              ).map(([name, p]) => [name, toOutput(this.input.out(d.percentile(p)!))]),
            );
      // Kolmogorov–Smirnov distance between the cohorts, read at each cohort's deciles (0 and 100 included).
      let score = 0;
      if (sel.count > 0 && base.count > 0) {
        for (const d of [sel, base]) {
          for (let p = 0; p <= 100; p += 10) {
            const x = d.percentile(p)!;
            score = Math.max(score, Math.abs(sel.cdf(x)! - base.cdf(x)!));
          }
        }
      }
      return { field, kind: "numeric", score, ...presence, selected: box(sel), baseline: box(base) };
    }
    const rows = [...this.values.values()].map(({ value, counts: [s, b] }) => {
      const sp = selected ? s / selected : 0;
      const bp = baseline ? b / baseline : 0;
      return {
        value: toOutput(value),
        selected_count: s,
        baseline_count: b,
        selected_proportion: sp,
        baseline_proportion: bp,
        lift: bp > 0 ? sp / bp : null,
        difference: sp - bp,
      };
    });
    // Total variation distance, ½·Σ|s/S − b/B| = ½·Σ|s·B − b·S| / (S·B), "other" included: summed in integers,
    // so it is exact and does not depend on the order the values arrived in.
    let cross = Math.abs(this.other[0] * baseline - this.other[1] * selected);
    for (const { counts } of this.values.values())
      cross += Math.abs(counts[0] * baseline - counts[1] * selected);
    let score = selected && baseline ? cross / (2 * selected * baseline) : 0;
    // A cohort without the field has no proportions to compare: the field's presence is the difference.
    if (selected === 0 || baseline === 0) {
      score = Math.abs(presence.selected_present_proportion - presence.baseline_present_proportion);
    }
    rows.sort((a, b) => Math.abs(b.difference) - Math.abs(a.difference) || sortCompare(a.value, b.value));
    return { field, kind: "categorical", score, ...presence, values: rows.slice(0, SPOTLIGHT_VALUES_SHOWN) };
  }
}

/**
 * spotlight(selection, field1, ...) (spotlight.mdx, console/intelligence/spotlight.mdx): compares the rows where
 * the selection predicate is true against the others (the baseline; a null predicate counts as not selected), field
 * by field, and gives one dynamic cell: an entry per field, the most different first. Categorical fields (strings,
 * booleans, and numbers with at most 10 distinct values) compare the proportion of each value in the two cohorts
 * (with its lift), scored by total variation distance; many-valued numeric fields (numbers, timespans, datetimes)
 * compare boxplots (min, p25, p50, p75, max), scored by the Kolmogorov–Smirnov distance read at both cohorts' deciles, minimum and maximum. Both
 * scores run from 0 (alike) to 1 (disjoint). Each entry also gives the share of each cohort where the field is
 * present, as the console does. The reference does not document the cell's shape: this is the emulator's.
 * `*` compares every top-level column of the row (the core passes the row as one object).
 */
function defineSpotlight(fn: string): AggregationFunction {
  return {
    minArgs: 2,
    maxArgs: Infinity,
    outputNames: (given) => [given ?? `${fn}_`],
    create(_constants, context) {
      // Field names come from the arguments' texts (`['geo.city']` is the field geo.city); `*` is the whole row.
      const texts = context?.argTexts ?? [];
      const names = texts.map((t) => singleColumn(t.trim()) ?? t.trim());
      const star = texts.map((t) => t.trim() === "*");
      const fields = new Map<string, SpotlightField>();
      const totals: [number, number] = [0, 0];
      const field = (name: string) => {
        let f = fields.get(name);
        if (!f) fields.set(name, (f = new SpotlightField()));
        return f;
      };
      return {
        add(args) {
          const cohort = args[0] === true ? 0 : 1;
          totals[cohort]++;
          for (let i = 1; i < args.length; i++) {
            const v = args[i];
            if (star[i] && v !== null && typeof v === "object") {
              for (const [name, x] of Object.entries(v)) {
                // Nested objects and arrays are not one category each: they are left out of the comparison.
                const nested =
                  x !== null && typeof x === "object" && !(x instanceof DateTime) && !(x instanceof Timespan);
                if (!nested) field(name).add(x, cohort);
              }
            } else field(names[i] || `arg${i}`).add(v, cohort);
          }
        },
        result() {
          const entries = [...fields.entries()].map(([name, f]) => f.result(name, totals));
          entries.sort((a, b) => b.score - a.score || String(a.field).localeCompare(String(b.field)));
          return [entries];
        },
      };
    },
  };
}

/** Phrases are runs of 2 to 4 words (phrases.mdx: "common phrases or word sequences"). */
const PHRASE_WORDS_MIN = 2;
const PHRASE_WORDS_MAX = 4;
/** Distinct phrases one group tracks; past it, phrases seen in only one row so far are dropped (lossy counting). */
const PHRASES_TRACKED_MAX = 100_000;
/** Words that do not start or end a phrase: "the error" is the phrase "error"'s context, not a phrase. */
const PHRASE_EDGE_WORDS = new Set(
  "a an and are as at be but by for from has have i in is it of on or so that the this to was were will with you your".split(
    " ",
  ),
);

/** The distinct 2-to-4-word phrases of one text: lower-cased words, never across punctuation. */
function phrasesOf(text: string): Set<string> {
  const found = new Set<string>();
  for (const segment of text.toLowerCase().split(/[^\p{L}\p{N}'\s-]+|\s-\s/u)) {
    const words = segment.match(/[\p{L}\p{N}][\p{L}\p{N}'-]*/gu) ?? [];
    for (let i = 0; i < words.length; i++) {
      if (PHRASE_EDGE_WORDS.has(words[i])) continue;
      for (let n = PHRASE_WORDS_MIN; n <= PHRASE_WORDS_MAX && i + n <= words.length; n++) {
        if (!PHRASE_EDGE_WORDS.has(words[i + n - 1])) found.add(words.slice(i, i + n).join(" "));
      }
    }
  }
  return found;
}

/**
 * phrases(text, max_phrases) (phrases.mdx): the most common phrases of a text column as `{phrase, count}`, most
 * common first, at most max_phrases. The reference does not document how the service finds phrases; the
 * emulator's rule: a phrase is a run of 2 to 4 words within a stretch of text without punctuation, neither first
 * nor last word a common English function word; its count is the number of rows it appears in; a phrase needs
 * at least 2 rows, and a phrase inside a longer one with the same count is left out for the longer one. Ties go to
 * the longer phrase, then alphabetical order.
 */
function definePhrases(fn: string): AggregationFunction {
  return {
    minArgs: 2,
    maxArgs: 2,
    constantArgs: [1],
    outputNames: namedAfterFirstArg(fn),
    create(constants) {
      const max = positiveInt(constants[1], fn, "max_phrases");
      const counts = new Map<string, number>();
      return {
        add([v]) {
          if (typeof v !== "string" || v === "") return;
          for (const phrase of phrasesOf(v)) counts.set(phrase, (counts.get(phrase) ?? 0) + 1);
          if (counts.size > PHRASES_TRACKED_MAX) {
            for (const [phrase, count] of counts) if (count < 2) counts.delete(phrase);
          }
        },
        result() {
          const common = [...counts].filter(([, count]) => count >= 2);
          const kept = new Map(common);
          for (const [phrase, count] of common) {
            const words = phrase.split(" ");
            // Every shorter phrase inside this one with the same count is this one's part.
            for (let n = PHRASE_WORDS_MIN; n < words.length; n++) {
              for (let i = 0; i + n <= words.length; i++) {
                const part = words.slice(i, i + n).join(" ");
                if (kept.get(part) === count) kept.delete(part);
              }
            }
          }
          const ranked = [...kept].sort(
            ([a, ca], [b, cb]) =>
              cb - ca || b.split(" ").length - a.split(" ").length || (a < b ? -1 : a > b ? 1 : 0),
          );
          return [ranked.slice(0, max).map(([phrase, count]) => ({ phrase, count }))];
        },
      };
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The `…if` forms.

/**
 * The `…if` form of `base`: the predicate sits at `predicateAt` among the arguments (last for most, second for
 * make_list_if and make_set_if, whose max size follows it); a row counts only when it is exactly `true`. Output
 * names are the base's, with this name (`sumif_req_duration_ms`, varianceif.mdx's `varianceif_req_duration_ms`).
 */
function withPredicate(
  define: (fn: string) => AggregationFunction,
  fn: string,
  predicateAt: number | "last",
): AggregationFunction {
  const base = define(fn);
  const at = predicateAt === "last" ? base.maxArgs : predicateAt;
  const fromBase = (q: number) => (q >= at ? q + 1 : q);
  const without = <T>(list: readonly T[]) => list.filter((_x, i) => i !== at);
  return {
    minArgs: base.minArgs + 1,
    maxArgs: base.maxArgs + 1,
    constantArgs: base.constantArgs?.map(fromBase),
    constantArgsFrom: base.constantArgsFrom === undefined ? undefined : fromBase(base.constantArgsFrom),
    outputNames: (given, argTexts, constants) =>
      base.outputNames(given, without(argTexts), without(constants)),
    create(constants, context) {
      const inner = base.create(without(constants), context);
      return {
        add(args) {
          if (args[at] !== true) return;
          inner.add(without(args));
        },
        result: () => inner.result(),
      };
    },
  };
}

/** Every aggregation by name, each …if form listed explicitly. */
export const AGGREGATIONS: ReadonlyMap<string, AggregationFunction> = new Map<string, AggregationFunction>([
  ["arg_max", defineArgExtreme("arg_max", "max")],
  ["arg_min", defineArgExtreme("arg_min", "min")],
  ["avg", defineAvg("avg")],
  ["avgif", withPredicate(defineAvg, "avgif", "last")],
  ["count", defineCount("count")],
  ["countif", withPredicate((fn) => ({ ...defineCount(fn), maxArgs: 0 }), "countif", 0)],
  ["dcount", defineDcount("dcount")],
  ["dcountif", withPredicate(defineDcount, "dcountif", 1)],
  ["histogram", defineHistogram("histogram")],
  ["histogramif", withPredicate(defineHistogram, "histogramif", "last")],
  ["make_list", defineCollect("make_list", "list", DEFAULT_MAKE_LIST_CAP)],
  [
    "make_list_if",
    withPredicate((fn) => defineCollect(fn, "list", DEFAULT_MAKE_LIST_CAP), "make_list_if", 1),
  ],
  ["make_set", defineCollect("make_set", "set", DEFAULT_MAKE_SET_CAP)],
  ["make_set_if", withPredicate((fn) => defineCollect(fn, "set", DEFAULT_MAKE_LIST_CAP), "make_set_if", 1)],
  ["max", defineExtreme("max", "max")],
  ["maxif", withPredicate((fn) => defineExtreme(fn, "max"), "maxif", "last")],
  ["min", defineExtreme("min", "min")],
  ["minif", withPredicate((fn) => defineExtreme(fn, "min"), "minif", "last")],
  ["percentile", definePercentile("percentile")],
  ["percentileif", withPredicate(definePercentile, "percentileif", "last")],
  ["percentiles", definePercentiles("percentiles")],
  ["percentiles_array", definePercentilesArray("percentiles_array")],
  [
    "percentiles_arrayif",
    // percentiles_arrayif(Field, Array, Condition): the percentiles come as one dynamic array, then the predicate.
    withPredicate(
      (fn) => ({ ...definePercentilesArray(fn), maxArgs: 2, constantArgs: [1], constantArgsFrom: undefined }),
      "percentiles_arrayif",
      2,
    ),
  ],
  ["phrases", definePhrases("phrases")],
  ["rate", defineRate("rate")],
  ["spotlight", defineSpotlight("spotlight")],
  ["stdev", defineSpread("stdev", "stdev")],
  ["stdevif", withPredicate((fn) => defineSpread(fn, "stdev"), "stdevif", "last")],
  ["sum", defineSum("sum")],
  ["sumif", withPredicate(defineSum, "sumif", "last")],
  ["topk", defineTopk("topk")],
  ["topkif", withPredicate(defineTopk, "topkif", "last")],
  ["variance", defineSpread("variance", "variance")],
  ["varianceif", withPredicate((fn) => defineSpread(fn, "variance"), "varianceif", "last")],
]);

/**
 * Documented aggregations the emulator refuses, with the reason the core puts in its error
 * (`not supported by the emulator: name (reason)`). Empty: every aggregation of the reference is implemented;
 * the map stays so that the core's lookup does not change when one has to be refused.
 */
export const UNSUPPORTED_AGGREGATIONS: ReadonlyMap<string, string> = new Map<string, string>();
