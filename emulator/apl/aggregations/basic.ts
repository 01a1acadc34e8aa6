/** count, sum, avg, min, max, stdev, variance, rate, arg_max and arg_min. */
import { Timespan, sortCompare } from "../values";
import {
  AggregationArgumentError,
  type Accumulator,
  type AggregationFunction,
  type GroupColumns,
} from "./contract";
import { argNamePart, singleColumn, splitNamedArg, uniqueNames } from "./naming";
import { NumericInput, isNullish, namedAfterFirstArg } from "./shared";

// count, sum, min and max are the aggregations of summaries with many groups (one per bin and key): their
// accumulators are classes, one small object per group, where closures would make a function object per method.

class CountAccumulator implements Accumulator {
  private n = 0;
  add(args: unknown[]): void {
    if (args.length === 0 || !isNullish(args[0])) this.n++;
  }
  add1(v: unknown): void {
    if (!isNullish(v)) this.n++;
  }
  result(): unknown[] {
    return [this.n];
  }
}

/** Its own numeric input (one object per group, not two). */
class SumAccumulator extends NumericInput implements Accumulator {
  private total = 0;
  /** Timespans add exactly, in bigint nanoseconds. */
  private timespanTotal = 0n;
  add(args: unknown[]): void {
    this.add1(args[0]);
  }
  add1(v: unknown): void {
    if (v instanceof Timespan) {
      this.read(v);
      this.timespanTotal += v.ns;
      return;
    }
    const x = this.read(v);
    if (x !== undefined) this.total += x;
  }
  /** The state after numbers that summed to `total` (NaN too, which add1 would skip: Infinity and -Infinity's sum). */
  startAt(total: number): void {
    this.numbers++;
    this.total = total;
  }
  result(): unknown[] {
    if (this.timespans > 0 && this.numbers === 0) return [new Timespan(this.timespanTotal)];
    return [this.total + Number(this.timespanTotal)];
  }
}

class ExtremeAccumulator implements Accumulator {
  private best: unknown = undefined;
  /** 1 keeps the largest value, -1 the smallest. */
  constructor(private readonly sign: number) {}
  add(args: unknown[]): void {
    this.add1(args[0]);
  }
  add1(v: unknown): void {
    const best = this.best;
    if (typeof v === "number" && typeof best === "number") {
      // Two numbers (neither NaN: those are never kept) compare as sortCompare would, without its calls.
      if (this.sign > 0 ? v > best : v < best) this.best = v;
      return;
    }
    if (isNullish(v) || (typeof v === "number" && Number.isNaN(v))) return;
    if (best === undefined || Math.sign(sortCompare(v, best)) === this.sign) this.best = v;
  }
  result(): unknown[] {
    return [this.best ?? null];
  }
}

/** Every group's {@link CountAccumulator}. */
class CountColumns implements GroupColumns {
  private readonly n: number[] = [];
  open(): void {
    this.n.push(0);
  }
  add(group: number, args: unknown[]): void {
    if (args.length === 0 || !isNullish(args[0])) this.n[group]++;
  }
  add1(group: number, v: unknown): void {
    if (!isNullish(v)) this.n[group]++;
  }
  addTabled(
    groups: Int32Array,
    rows: Int32Array,
    count: number,
    codes: Uint16Array,
    values: readonly unknown[],
  ) {
    const n = this.n;
    for (let s = 0; s < count; s++) if (!isNullish(values[codes[rows[s]]])) n[groups[s]]++;
  }
  result(group: number): unknown[] {
    return [this.n[group]];
  }
  cell(group: number): unknown {
    return this.n[group];
  }
}

/**
 * Every group's {@link SumAccumulator}: a group's total while it has seen only numbers (and nulls); at its first
 * other value (a timespan, a bigint, ...) the group gets an accumulator of its own, started at the state it would
 * have had: the same total, and some numbers seen.
 */
class SumColumns implements GroupColumns {
  private readonly totals: number[] = [];
  /** 0 before a group's first number, 1 after it, -1 once the group has its own accumulator. */
  private readonly state: number[] = [];
  private readonly own = new Map<number, SumAccumulator>();
  open(): void {
    this.totals.push(0);
    this.state.push(0);
  }
  add(group: number, args: unknown[]): void {
    this.add1(group, args[0]);
  }
  add1(group: number, v: unknown): void {
    if (typeof v === "number" && this.state[group] >= 0) {
      if (v === v) {
        this.totals[group] += v;
        this.state[group] = 1;
      }
      return;
    }
    if (isNullish(v)) return;
    this.accumulator(group).add1(v);
  }
  addTabled(
    groups: Int32Array,
    rows: Int32Array,
    count: number,
    codes: Uint16Array,
    values: readonly unknown[],
  ) {
    // This class's own loop: its add1 call has one receiver's shape, so it is inlined.
    for (let s = 0; s < count; s++) this.add1(groups[s], values[codes[rows[s]]]);
  }
  result(group: number): unknown[] {
    return [this.cell(group)];
  }
  cell(group: number): unknown {
    if (this.state[group] < 0) return this.own.get(group)!.result()[0];
    return this.totals[group] + 0;
  }
  private accumulator(group: number): SumAccumulator {
    let acc = this.own.get(group);
    if (acc === undefined) {
      acc = new SumAccumulator();
      if (this.state[group] > 0) acc.startAt(this.totals[group]);
      this.own.set(group, acc);
      this.state[group] = -1;
    }
    return acc;
  }
}

/**
 * Every group's {@link ExtremeAccumulator}: a group's best number while it has seen only numbers (and nulls); at
 * its first other value the group gets an accumulator of its own, given its best number so far.
 */
class ExtremeColumns implements GroupColumns {
  private readonly best: number[] = [];
  /** 0 before a group's first number, 1 after it, -1 once the group has its own accumulator. */
  private readonly state: number[] = [];
  private readonly own = new Map<number, ExtremeAccumulator>();
  /** 1 keeps the largest value, -1 the smallest. */
  constructor(private readonly sign: number) {}
  open(): void {
    this.best.push(0);
    this.state.push(0);
  }
  add(group: number, args: unknown[]): void {
    this.add1(group, args[0]);
  }
  add1(group: number, v: unknown): void {
    const state = this.state[group];
    if (typeof v === "number" && state >= 0) {
      // NaN is never kept, as the accumulator skips it.
      if (v !== v) return;
      if (state === 0 || (this.sign > 0 ? v > this.best[group] : v < this.best[group])) this.best[group] = v;
      this.state[group] = 1;
      return;
    }
    if (isNullish(v)) return;
    this.accumulator(group).add1(v);
  }
  addTabled(
    groups: Int32Array,
    rows: Int32Array,
    count: number,
    codes: Uint16Array,
    values: readonly unknown[],
  ) {
    // This class's own loop: its add1 call has one receiver's shape, so it is inlined.
    for (let s = 0; s < count; s++) this.add1(groups[s], values[codes[rows[s]]]);
  }
  result(group: number): unknown[] {
    return [this.cell(group)];
  }
  cell(group: number): unknown {
    const state = this.state[group];
    if (state < 0) return this.own.get(group)!.result()[0];
    return state === 0 ? null : this.best[group];
  }
  private accumulator(group: number): ExtremeAccumulator {
    let acc = this.own.get(group);
    if (acc === undefined) {
      acc = new ExtremeAccumulator(this.sign);
      if (this.state[group] > 0) acc.add1(this.best[group]);
      this.own.set(group, acc);
      this.state[group] = -1;
    }
    return acc;
  }
}

/** count(): rows. count(x) (Kusto's form): rows where x is not null. */
export function defineCount(fn: string): AggregationFunction {
  return {
    minArgs: 0,
    maxArgs: 1,
    outputNames: (given, argTexts) => [given ?? `${fn}_${argTexts.length ? argNamePart(argTexts[0]) : ""}`],
    create: () => new CountAccumulator(),
    columns: () => new CountColumns(),
  };
}

/** sum(x): the sum of the numeric values; 0 when there are none (sumif.mdx: "If no records meet the condition, the result is 0"). */
export function defineSum(fn: string): AggregationFunction {
  return {
    minArgs: 1,
    maxArgs: 1,
    outputNames: namedAfterFirstArg(fn),
    create: () => new SumAccumulator(),
    columns: () => new SumColumns(),
  };
}

/** avg(x): the mean of the numeric values, null when there are none (avgif.mdx). */
export function defineAvg(fn: string): AggregationFunction {
  return {
    minArgs: 1,
    maxArgs: 1,
    outputNames: namedAfterFirstArg(fn),
    create() {
      const input = new NumericInput();
      let total = 0;
      let n = 0;
      const add1 = (v: unknown) => {
        const x = input.read(v);
        if (x === undefined) return;
        total += x;
        n++;
      };
      return {
        add: ([v]) => add1(v),
        add1,
        result: () => [n === 0 ? null : input.out(total / n)],
      };
    },
  };
}

/** min(x) / max(x): the extreme non-null value in APL's order, of the input's type; null when there is none. */
export function defineExtreme(fn: string, kind: "min" | "max"): AggregationFunction {
  const sign = kind === "min" ? -1 : 1;
  return {
    minArgs: 1,
    maxArgs: 1,
    outputNames: namedAfterFirstArg(fn),
    create: () => new ExtremeAccumulator(sign),
    columns: () => new ExtremeColumns(sign),
  };
}

/**
 * variance(x) / stdev(x): the sample variance and standard deviation (n − 1), as the reference's
 * query-data/visualizations.mdx says ("returns the sample variance"); Welford's update, stable in one pass.
 * Null when there are no values (varianceif.mdx), 0 for one value. stdev of timespans is a timespan; variance
 * of timespans is a number of ns².
 */
export function defineSpread(fn: string, kind: "variance" | "stdev"): AggregationFunction {
  return {
    minArgs: 1,
    maxArgs: 1,
    outputNames: namedAfterFirstArg(fn),
    create() {
      const input = new NumericInput();
      let n = 0;
      let mean = 0;
      let m2 = 0;
      const add1 = (v: unknown) => {
        const x = input.read(v);
        if (x === undefined) return;
        n++;
        const delta = x - mean;
        mean += delta / n;
        m2 += delta * (x - mean);
      };
      return {
        add: ([v]) => add1(v),
        add1,
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
 * rate(x): the sum of x per second over the group's time window (rate.mdx: `rate(field) by bin(_time, 1h)` is
 * the rate over each hour, without a bin it is over the query's window). The core gives the window in the
 * {@link AggregationContext}; without one (a compile-time check of the constants) the cell is null.
 */
export function defineRate(fn: string): AggregationFunction {
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
      const add1 = (v: unknown) => {
        const x = input.read(v);
        if (x !== undefined) total += x;
      };
      return {
        add: ([v]) => add1(v),
        add1,
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
export function defineArgExtreme(fn: string, kind: "max" | "min"): AggregationFunction {
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
