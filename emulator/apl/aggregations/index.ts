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
 * service's method, so both are the emulator's own (./spotlight.ts, ./phrases.ts).
 *
 * Layout: ./contract.ts the interfaces the core calls, ./shared.ts what the definitions share, ./basic.ts,
 * ./collections.ts, ./distribution.ts, ./spotlight.ts and ./phrases.ts the definitions, ./naming.ts the default
 * output names, ./tdigest.ts the percentile estimator; this file the `…if` forms and the registry.
 *
 * Types: sums and extremes keep their input's type (ints, reals, timespans, datetimes); avg, stdev and variance
 * of numbers are reals; avg, stdev and percentiles of timespans are timespans. Values that are not numbers
 * (strings, dynamic) are skipped by the numeric aggregations rather than failing the query, as APL yields null
 * for a bad value.
 */
import {
  defineArgExtreme,
  defineAvg,
  defineCount,
  defineExtreme,
  defineRate,
  defineSpread,
  defineSum,
} from "./basic";
import {
  DEFAULT_MAKE_LIST_CAP,
  DEFAULT_MAKE_SET_CAP,
  defineCollect,
  defineDcount,
  defineTopk,
} from "./collections";
import type { Accumulator, AggregationFunction, GroupColumns } from "./contract";
import { defineHistogram, definePercentile, definePercentiles, definePercentilesArray } from "./distribution";
import { definePhrases } from "./phrases";
import { defineSpotlight } from "./spotlight";

export {
  AggregationArgumentError,
  type Accumulator,
  type AggregationContext,
  type AggregationFunction,
  type GroupColumns,
} from "./contract";
export { DEFAULT_MAKE_LIST_CAP, DEFAULT_MAKE_SET_CAP, TOPK_EXACT_VALUES } from "./collections";
export { argNamePart, uniqueNames } from "./naming";
export { isNullish, valueKey } from "./shared";

// ---------------------------------------------------------------------------------------------------------------
// The `…if` forms.

/** The arguments left of a one-argument call once its predicate is taken out; never written to. */
const NO_ARGS: unknown[] = [];

/**
 * An `…if` form's accumulator: `inner` takes the rows whose argument at `at` is `true`, without that argument.
 * A class, one object per group (summaries by bin and key have many). The one- and two-argument calls
 * (countif(p), sumif(x, p)) skip the argument lists add() builds.
 */
class PredicateAccumulator implements Accumulator {
  constructor(
    private readonly inner: Accumulator,
    private readonly at: number,
  ) {}
  add(args: unknown[]): void {
    if (args[this.at] !== true) return;
    this.inner.add(args.filter((_x, i) => i !== this.at));
  }
  add1(a: unknown): void {
    if (this.at === 0 && a === true) this.inner.add(NO_ARGS);
  }
  add2(a: unknown, b: unknown): void {
    if (this.at === 0) {
      if (a === true) this.rest(b);
    } else if (this.at === 1 && b === true) this.rest(a);
  }
  result(): unknown[] {
    return this.inner.result();
  }
  private rest(v: unknown): void {
    if (this.inner.add1 !== undefined) this.inner.add1(v);
    else this.inner.add([v]);
  }
}

/** Every group's {@link PredicateAccumulator}: `inner` takes the rows whose argument at `at` is `true`. */
class PredicateColumns implements GroupColumns {
  constructor(
    private readonly inner: GroupColumns,
    private readonly at: number,
  ) {}
  open(): void {
    this.inner.open();
  }
  add(group: number, args: unknown[]): void {
    if (args[this.at] !== true) return;
    this.inner.add(
      group,
      args.filter((_x, i) => i !== this.at),
    );
  }
  add1(group: number, a: unknown): void {
    if (this.at === 0 && a === true) this.inner.add(group, NO_ARGS);
  }
  addTabled(
    groups: Int32Array,
    rows: Int32Array,
    count: number,
    codes: Uint16Array,
    values: readonly unknown[],
  ) {
    if (this.at !== 0) return;
    const inner = this.inner;
    for (let s = 0; s < count; s++) if (values[codes[rows[s]]] === true) inner.add(groups[s], NO_ARGS);
  }
  add2(group: number, a: unknown, b: unknown): void {
    if (this.at === 0) {
      if (a === true) this.rest(group, b);
    } else if (this.at === 1 && b === true) this.rest(group, a);
  }
  result(group: number): unknown[] {
    return this.inner.result(group);
  }
  cell(group: number): unknown {
    return this.inner.cell !== undefined ? this.inner.cell(group) : this.inner.result(group)[0];
  }
  private rest(group: number, v: unknown): void {
    if (this.inner.add1 !== undefined) this.inner.add1(group, v);
    else this.inner.add(group, [v]);
  }
}

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
  let lastConstants: readonly unknown[] | undefined;
  let lastWithout: unknown[] = [];
  return {
    minArgs: base.minArgs + 1,
    maxArgs: base.maxArgs + 1,
    constantArgs: base.constantArgs?.map(fromBase),
    constantArgsFrom: base.constantArgsFrom === undefined ? undefined : fromBase(base.constantArgsFrom),
    outputNames: (given, argTexts, constants) =>
      base.outputNames(given, without(argTexts), without(constants)),
    create(constants, context) {
      // The same constants for every group of a summarize: their list without the predicate is made once.
      if (constants !== lastConstants) {
        lastConstants = constants;
        lastWithout = without(constants);
      }
      return new PredicateAccumulator(base.create(lastWithout, context), at);
    },
    columns:
      base.columns === undefined
        ? undefined
        : (constants, context) => new PredicateColumns(base.columns!(without(constants), context), at),
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
