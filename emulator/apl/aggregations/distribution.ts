/** percentile, percentiles, percentiles_array and histogram: the shape of a group's numeric values. */
import { toOutput } from "../values";
import { AggregationArgumentError, type AggregationFunction } from "./contract";
import { argNamePart, constantNamePart, uniqueNames } from "./naming";
import { NumericInput, namedAfterFirstArg, percentileValue, positiveInt } from "./shared";
import { TDigest } from "./tdigest";

/**
 * percentile(x, p): the p-th percentile of the numeric values (timespans give a timespan), null when there are
 * none. Named `percentile_x_95` (Kusto's naming, which keeps two percentiles of one column apart).
 */
export function definePercentile(fn: string): AggregationFunction {
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
export function definePercentilesArray(fn: string): AggregationFunction {
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
export function definePercentiles(fn: string): AggregationFunction {
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

/**
 * histogram(x, bins): the numeric values' distribution as `bins` equal-width bins between the group's smallest
 * and largest value, one `{bin, count}` per non-empty bin where `bin` is the bin's lower bound (histogram.mdx's
 * output table: a `…_bin` column and a count). The service estimates; the emulator keeps the values and counts
 * exactly.
 */
export function defineHistogram(fn: string): AggregationFunction {
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
