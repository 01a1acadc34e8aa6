/**
 * Properties of the aggregation registry (emulator/apl/aggregations), over random rows:
 * - every `…if(x, …, pred)` equals its plain aggregation over the rows where pred is exactly true;
 * - the aggregations whose result is a function of the group's values, not of their order, give the same answer
 *   for any order of the rows (sums of integers, extremes, distinct counts, top-k with its tie order, percentiles
 *   while they are exact, histograms, sample statistics up to rounding).
 */
import fc from "fast-check";
import { AGGREGATIONS, type AggregationContext } from "../../emulator/apl/aggregations";
import { defineTopk } from "../../emulator/apl/aggregations/collections";
import { Timespan } from "../../emulator/apl/values";

// One seed for every run, so CI and a laptop draw the same cases and a failure reproduces; FC_SEED explores others
// (FC_SEED=$RANDOM npx jest <this file>), as a property test should be run now and then.
fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 20261128) });

function run(fn: string, rows: unknown[][], constants: unknown[], context?: AggregationContext): unknown[] {
  const acc = AGGREGATIONS.get(fn)!.create(constants, context);
  for (const r of rows) acc.add(r);
  return acc.result();
}

/** A cell of an event: mostly small integers (so sums are exact), some reals (never -0, which ties with 0), strings and nulls. */
const cell = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: -1000, max: 1000 }) },
  { weight: 1, arbitrary: fc.double({ min: -1e6, max: 1e6, noNaN: true }).map((x) => (x === 0 ? 0 : x)) },
  { weight: 1, arbitrary: fc.constantFrom("a", "b", "GET", "") },
  { weight: 1, arbitrary: fc.constantFrom(null, undefined) },
);
const numericCell = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: -1000, max: 1000 }) },
  { weight: 1, arbitrary: fc.constant(null) },
);
const timespanCell = fc.bigInt({ min: 0n, max: 10n ** 12n }).map((ns) => new Timespan(ns));
const predicate = fc.constantFrom(true, false, null, undefined);
const WINDOW: AggregationContext = { windowNs: 60_000_000_000n };

/**
 * Each `…if` form, its plain aggregation, where its predicate sits, and its constants (positions in the `…if`
 * form's own arguments).
 */
const IF_FORMS: { fn: string; plain: string; predicateAt: number; constants: unknown[]; arity: number }[] = [
  { fn: "avgif", plain: "avg", predicateAt: 1, constants: [], arity: 2 },
  { fn: "countif", plain: "count", predicateAt: 0, constants: [], arity: 1 },
  { fn: "dcountif", plain: "dcount", predicateAt: 1, constants: [], arity: 2 },
  { fn: "histogramif", plain: "histogram", predicateAt: 2, constants: [undefined, 5], arity: 3 },
  { fn: "make_list_if", plain: "make_list", predicateAt: 1, constants: [undefined, undefined, 7], arity: 3 },
  { fn: "make_set_if", plain: "make_set", predicateAt: 1, constants: [], arity: 2 },
  { fn: "maxif", plain: "max", predicateAt: 1, constants: [], arity: 2 },
  { fn: "minif", plain: "min", predicateAt: 1, constants: [], arity: 2 },
  { fn: "percentileif", plain: "percentile", predicateAt: 2, constants: [undefined, 90], arity: 3 },
  {
    fn: "percentiles_arrayif",
    plain: "percentiles_array",
    predicateAt: 2,
    constants: [undefined, [10, 50, 99]],
    arity: 3,
  },
  { fn: "stdevif", plain: "stdev", predicateAt: 1, constants: [], arity: 2 },
  { fn: "sumif", plain: "sum", predicateAt: 1, constants: [], arity: 2 },
  { fn: "topkif", plain: "topk", predicateAt: 2, constants: [undefined, 3], arity: 3 },
  { fn: "varianceif", plain: "variance", predicateAt: 1, constants: [], arity: 2 },
];

describe("…if(x, pred) is the plain aggregation over the rows where pred is true", () => {
  it("lists every …if form of the registry", () => {
    const ifForms = [...AGGREGATIONS.keys()].filter((name) => name.endsWith("if")).sort();
    expect(IF_FORMS.map((f) => f.fn).sort()).toEqual(ifForms);
  });

  it.each(IF_FORMS.map((f) => [f.fn, f] as const))("%s", (_fn, form) => {
    // Row values: the non-constant, non-predicate arguments (one, or none for countif).
    const valueCount = form.fn === "countif" ? 0 : 1;
    fc.assert(
      fc.property(fc.array(fc.tuple(cell, predicate), { maxLength: 60 }), (rows) => {
        const ifRows = rows.map(([v, p]) => {
          const args: unknown[] = Array.from({ length: form.arity }, (_x, i) => form.constants[i]);
          if (valueCount) args[0] = v;
          args[form.predicateAt] = p;
          return args;
        });
        const plainConstants = form.constants.filter((_x, i) => i !== form.predicateAt);
        const plainRows = ifRows
          .filter((r) => r[form.predicateAt] === true)
          .map((r) => r.filter((_x, i) => i !== form.predicateAt));
        expect(run(form.fn, ifRows, form.constants, WINDOW)).toStrictEqual(
          run(form.plain, plainRows, plainConstants, WINDOW),
        );
      }),
    );
  });
});

/** A seeded shuffle, so a failing order is reproducible from fast-check's seed. */
function shuffled<T>(items: T[], seed: number): T[] {
  const out = items.slice();
  let s = seed >>> 0 || 1;
  for (let i = out.length - 1; i > 0; i--) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

const ORDER_FREE: {
  fn: string;
  constants: unknown[];
  values: fc.Arbitrary<unknown>;
  approximate?: boolean;
}[] = [
  { fn: "count", constants: [], values: cell },
  { fn: "sum", constants: [], values: numericCell },
  { fn: "sum", constants: [], values: timespanCell },
  { fn: "min", constants: [], values: cell },
  { fn: "max", constants: [], values: cell },
  { fn: "dcount", constants: [], values: cell },
  { fn: "topk", constants: [undefined, 3], values: cell },
  { fn: "percentile", constants: [undefined, 95], values: numericCell },
  { fn: "percentiles_array", constants: [undefined, 0, 50, 100], values: timespanCell },
  { fn: "histogram", constants: [undefined, 4], values: numericCell },
  { fn: "rate", constants: [], values: numericCell },
  { fn: "avg", constants: [], values: cell, approximate: true },
  { fn: "stdev", constants: [], values: numericCell, approximate: true },
  { fn: "variance", constants: [], values: numericCell, approximate: true },
];

describe("results that do not depend on the order of the rows", () => {
  it.each(ORDER_FREE.map((c) => [c.fn, c] as const))("%s", (_fn, c) => {
    fc.assert(
      fc.property(fc.array(c.values, { maxLength: 80 }), fc.integer(), (values, seed) => {
        const rows = values.map((v) => [v, ...c.constants.slice(1)]);
        const a = run(c.fn, rows, c.constants, WINDOW);
        const b = run(c.fn, shuffled(rows, seed), c.constants, WINDOW);
        if (!c.approximate) {
          expect(b).toStrictEqual(a);
          return;
        }
        expect(b.length).toBe(a.length);
        a.forEach((x, i) => {
          if (typeof x === "number") expect(b[i]).toBeCloseTo(x, 6);
          else expect(b[i]).toStrictEqual(x);
        });
      }),
    );
  });

  it("arg_max picks the same extreme value in any order (the row it returns may differ on ties)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(numericCell, fc.string()), { maxLength: 60 }),
        fc.integer(),
        (rows, seed) => {
          const a = run("arg_max", rows, []);
          const b = run("arg_max", shuffled(rows, seed), []);
          expect(b[0]).toStrictEqual(a[0]);
        },
      ),
    );
  });

  it("phrases counts the same phrases in any order", () => {
    const text = fc
      .array(fc.constantFrom("disk", "full", "on", "node", "error", "the", ",", "timeout", "."), {
        maxLength: 12,
      })
      .map((words) => words.join(" "));
    fc.assert(
      fc.property(fc.array(text, { maxLength: 40 }), fc.integer(), (texts, seed) => {
        const rows = texts.map((t) => [t, 5]);
        expect(run("phrases", shuffled(rows, seed), [undefined, 5])).toStrictEqual(
          run("phrases", rows, [undefined, 5]),
        );
      }),
    );
  });

  it("spotlight compares the same cohorts in any order", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(predicate, cell, numericCell), { maxLength: 60 }),
        fc.integer(),
        (rows, seed) => {
          const a = run("spotlight", rows, []) as [{ score: number }[]];
          const b = run("spotlight", shuffled(rows, seed), []) as [{ score: number }[]];
          expect(b).toStrictEqual(a);
        },
      ),
    );
  });

  it("make_set holds the same values in any order", () => {
    fc.assert(
      fc.property(fc.array(cell, { maxLength: 60 }), fc.integer(), (values, seed) => {
        const sortKey = (xs: unknown) => (xs as unknown[]).map((x) => JSON.stringify(x)).sort();
        const a = run(
          "make_set",
          values.map((v) => [v]),
          [],
        );
        const b = run(
          "make_set",
          shuffled(values, seed).map((v) => [v]),
          [],
        );
        expect(sortKey(b[0])).toEqual(sortKey(a[0]));
      }),
    );
  });
});

describe("agreement with direct computations", () => {
  const ints = fc.array(fc.integer({ min: -10_000, max: 10_000 }), { minLength: 1, maxLength: 1000 });

  it("percentile is the nearest rank of the sorted values while a group has at most 1,000 of them", () => {
    fc.assert(
      fc.property(ints, fc.double({ min: 0, max: 100, noNaN: true }), (xs, p) => {
        const sorted = xs.slice().sort((a, b) => a - b);
        const rank = Math.max(1, Math.ceil((p * xs.length) / 100 - 1e-9));
        expect(
          run(
            "percentile",
            xs.map((x) => [x]),
            [undefined, p],
          ),
        ).toStrictEqual([sorted[rank - 1]]);
      }),
    );
  });

  it("histogram's counts add up to the numeric values, its bins ascend, and each value lands in its bin", () => {
    fc.assert(
      fc.property(ints, fc.integer({ min: 1, max: 30 }), (xs, bins) => {
        const [cells] = run(
          "histogram",
          xs.map((x) => [x]),
          [undefined, bins],
        ) as [{ bin: number; count: number }[]];
        expect(cells.reduce((n, c) => n + c.count, 0)).toBe(xs.length);
        for (let i = 1; i < cells.length; i++) expect(cells[i].bin).toBeGreaterThan(cells[i - 1].bin);
        expect(cells[0].bin).toBe(Math.min(...xs));
        expect(cells.length).toBeLessThanOrEqual(bins);
      }),
    );
  });

  it("avg·count is sum, stdev² is variance, and dcount is the number of distinct values", () => {
    fc.assert(
      fc.property(ints, (xs) => {
        const rows = xs.map((x) => [x]);
        const [avg] = run("avg", rows, []) as [number];
        const [sum] = run("sum", rows, []) as [number];
        expect(avg * xs.length).toBeCloseTo(sum, 6);
        const [stdev] = run("stdev", rows, []) as [number];
        const [variance] = run("variance", rows, []) as [number];
        expect(stdev * stdev).toBeCloseTo(variance, 3);
        expect(run("dcount", rows, [])).toEqual([new Set(xs).size]);
      }),
    );
  });
});

describe("topk past its exact range (batched Space-Saving, here with room for 8 values)", () => {
  it("reports counts whose true value lies between count − error and count, most frequent first", () => {
    const small = defineTopk("topk", 8);
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 200 })), {
          maxLength: 400,
        }),
        fc.integer({ min: 1, max: 8 }),
        (values, k) => {
          const acc = small.create([undefined, k]);
          for (const v of values) acc.add([v, k]);
          const [top] = acc.result() as [{ key: number; count: number; error: number }[]];
          const truth = new Map<number, number>();
          for (const v of values) truth.set(v, (truth.get(v) ?? 0) + 1);
          expect(top.length).toBeLessThanOrEqual(k);
          // Up to twice the room (16 distinct values) nothing is dropped: exact counts, every value a candidate.
          if (truth.size <= 16) {
            expect(top.length).toBe(Math.min(k, truth.size));
            expect(top.every((e) => e.error === 0 && e.count === truth.get(e.key))).toBe(true);
          }
          for (const entry of top) {
            const real = truth.get(entry.key) ?? 0;
            expect(real).toBeLessThanOrEqual(entry.count);
            expect(real).toBeGreaterThanOrEqual(entry.count - entry.error);
          }
          for (let i = 1; i < top.length; i++) expect(top[i].count).toBeLessThanOrEqual(top[i - 1].count);
        },
      ),
    );
  });
});
