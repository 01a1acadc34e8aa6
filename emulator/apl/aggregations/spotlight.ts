/** spotlight: the rows a predicate selects against the others, field by field (spotlight.mdx). */
import { DateTime, Timespan, sortCompare, toOutput } from "../values";
import type { AggregationFunction } from "./contract";
import { singleColumn } from "./naming";
import { NumericInput, distinctKey, isNullish } from "./shared";
import { TDigest } from "./tdigest";

/** How many distinct values a numeric field may take and still be compared as categories (spotlight). */
const SPOTLIGHT_CATEGORICAL_MAX = 10;
/** Distinct values of one field spotlight counts; past it, new values are counted together as "other". */
const SPOTLIGHT_VALUES_MAX = 10_000;
/** Values of a categorical field spotlight reports, the most different first. */
const SPOTLIGHT_VALUES_SHOWN = 10;

/** One field's two cohorts in spotlight. */
class SpotlightField {
  /** value key -> the value and its count in each cohort (selected, baseline) */
  readonly values = new Map<unknown, { value: unknown; counts: [number, number] }>();
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
    const key = distinctKey(v);
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
export function defineSpotlight(fn: string): AggregationFunction {
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
