/** dcount, topk, make_list and make_set: aggregations over the values themselves rather than their magnitudes. */
import { sortCompare, toOutput } from "../values";
import { AggregationArgumentError, type AggregationFunction } from "./contract";
import { describe, distinctKey, isNullish, namedAfterFirstArg, positiveInt } from "./shared";

/**
 * dcount(x [, accuracy]): the number of distinct non-null values, counted exactly with a set. The reference
 * (dcount.mdx) calls the service's an estimate and documents no sketch, so the exact count is within its error.
 * Kusto's optional accuracy level (0 to 4) is accepted and changes nothing.
 */
export function defineDcount(fn: string): AggregationFunction {
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
      const seen = new Set<unknown>();
      return {
        add([v]) {
          if (!isNullish(v)) seen.add(distinctKey(v));
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
 * twice {@link TOPK_EXACT_VALUES} distinct values (or 2k, if more; `exactValues` lets a test make it small); then it
 * keeps only the most frequent half, as
 * Space-Saving (Metwally et al., 2005) does in batches: a value first seen after that starts at the largest count
 * dropped so far, which is its `error`: its true count lies between count − error and count. Memory stays bounded,
 * and below the threshold the answer does not depend on row order.
 */
export function defineTopk(fn: string, exactValues = TOPK_EXACT_VALUES): AggregationFunction {
  return {
    minArgs: 2,
    maxArgs: 2,
    constantArgs: [1],
    outputNames: namedAfterFirstArg(fn),
    create(constants) {
      const k = positiveInt(constants[1], fn, "k");
      const capacity = Math.max(exactValues, k);
      const counts = new Map<unknown, { key: unknown; count: number; error: number }>();
      /** The largest count dropped so far: a newcomer may have been seen that often before. */
      let floor = 0;
      const byFrequency = (a: { key: unknown; count: number }, b: { key: unknown; count: number }) =>
        b.count - a.count || sortCompare(a.key, b.key);
      return {
        add([v]) {
          if (isNullish(v)) return;
          const key = distinctKey(v);
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

/** The cap of make_list, make_list_if and make_set_if when none is given (make-set-if.mdx: 1048576). */
export const DEFAULT_MAKE_LIST_CAP = 1_048_576;
/** make_set's cap when none is given: make-set.mdx says "Defaults to 128 if not specified". */
export const DEFAULT_MAKE_SET_CAP = 128;

/**
 * make_list(x [, max]): the non-null values in arrival order, at most max of them. make_set(x [, max]): the
 * distinct non-null values in order of first arrival, at most max. Both give a dynamic array; once full they stop
 * growing (O(1) per row).
 */
export function defineCollect(fn: string, kind: "list" | "set", defaultCap: number): AggregationFunction {
  return {
    minArgs: 1,
    maxArgs: 2,
    constantArgs: [1],
    outputNames: namedAfterFirstArg(fn),
    create(constants) {
      const cap = constants[1] === undefined ? defaultCap : positiveInt(constants[1], fn, "a maximum size");
      const items: unknown[] = [];
      const seen = kind === "set" ? new Set<unknown>() : undefined;
      return {
        add([v]) {
          if (isNullish(v) || items.length >= cap) return;
          if (seen) {
            const key = distinctKey(v);
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
