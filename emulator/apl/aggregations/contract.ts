/** The contract between the aggregation registry and the query core: accumulators, their context, their errors. */

/** One group's running state of one aggregation. */
export interface Accumulator {
  /** Takes one row's evaluated arguments (constants included, at their positions). */
  add(args: unknown[]): void;
  /**
   * Optional: the same as `add([a])`, for one-argument calls; the core prefers it, so that a scan of millions of
   * rows does not allocate an argument list per row and aggregation.
   */
  add1?(a: unknown): void;
  /** Optional: the same as `add([a, b])` (sumif's value and predicate). */
  add2?(a: unknown, b: unknown): void;
  /**
   * One value per output column, in the order of {@link AggregationFunction.outputNames}. arg_max and arg_min give
   * no cells when no row had a value to compare (every column is then null).
   */
  result(): unknown[];
}

/**
 * Every group's state of one aggregation at once, indexed by the group's number (0, 1, ... in the order the groups
 * are opened): what {@link Accumulator} is for one group, with no object per group. A summary by minute and key
 * over a month makes hundreds of thousands of groups, and their accumulators were most of its garbage.
 */
export interface GroupColumns {
  /** Adds the next group, numbered after the last one opened. */
  open(): void;
  add(group: number, args: unknown[]): void;
  add1?(group: number, a: unknown): void;
  /**
   * `add1(groups[s], values[codes[rows[s]]])` for each s in [0, count), in that order: a columnar scan's chunk of
   * events, each argument read from a table by its event's code. One call a chunk, where add1 would be one call an
   * event at a call site every kind of columns shares.
   */
  addTabled?(
    groups: Int32Array,
    rows: Int32Array,
    count: number,
    codes: Uint16Array,
    values: readonly unknown[],
  ): void;
  add2?(group: number, a: unknown, b: unknown): void;
  /** The group's cells, as its accumulator's result() would give them. */
  result(group: number): unknown[];
  /**
   * The group's only cell, `result(group)[0]`, for an aggregation of one output: a summarize answered as columns
   * reads one per group, and an array each would be garbage.
   */
  cell?(group: number): unknown;
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
  /**
   * Optional: the state of every group of one summarize, answering as {@link create}'s accumulators would. Only for
   * aggregations whose create never throws (it is made before the first group).
   */
  columns?(constants: readonly unknown[], context?: AggregationContext): GroupColumns;
}

/**
 * A constant argument an aggregation cannot use (topk's k of 0, a percentile of 150), or a context it lacks. It
 * carries no position: the core rethrows it as an AplError at the call.
 */
export class AggregationArgumentError extends Error {
  override readonly name = "AggregationArgumentError";
}
