/**
 * The aggregations that keep every group's state in arrays (GroupColumns: count, sum, min, max and their …if
 * forms) answer as one accumulator per group would, whatever the values: numbers of every sort, nulls, and the
 * values that give a group its own accumulator part-way (timespans, datetimes, bigints, strings, bags).
 */
import { AGGREGATIONS } from "../../emulator/apl/aggregations";
import { DateTime, Timespan, typeOf } from "../../emulator/apl/values";

const VALUES: unknown[] = [
  3,
  -2.5,
  0,
  -0,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  1e300,
  null,
  undefined,
  new Timespan(5_000n),
  new DateTime(1_704_067_200_000_000_000n),
  7n,
  "x",
  "",
  true,
  false,
  { a: 1 },
];
const PREDICATES: unknown[] = [true, false, null, 1, "true"];

/** A fixed pseudo-random sequence, so that a failure repeats. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2_147_483_648;
    return s / 2_147_483_648;
  };
}

/** Each cell as its type and its value's text, so that 0 and -0, 1 and 1.0, a timespan and a number compare apart. */
const cellText = (cells: unknown[]) =>
  cells.map(
    (v) =>
      `${typeOf(v)}:${Object.is(v, -0) ? "-0" : String(v instanceof Timespan || v instanceof DateTime ? v.ns : v)}`,
  );

describe("GroupColumns answer as one accumulator per group", () => {
  it.each([
    ["count", 0],
    ["count", 1],
    ["countif", 1],
    ["sum", 1],
    ["sumif", 2],
    ["min", 1],
    ["minif", 2],
    ["max", 1],
    ["maxif", 2],
  ])("%s with %i arguments", (fn, arity) => {
    const def = AGGREGATIONS.get(fn)!;
    const constants = new Array<unknown>(arity).fill(undefined);
    for (const [seed, numbersOnly] of [
      [1, true],
      [2, false],
      [3, false],
      [4, true],
    ] as const) {
      const next = random(seed);
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)];
      // Mostly plain numbers, as a scan's fields are; some groups meet the other values late.
      // (No bigint for min and max: the accumulator's comparison of one with a bag throws, with or without columns.)
      const others =
        fn.startsWith("min") || fn.startsWith("max") ? VALUES.filter((v) => typeof v !== "bigint") : VALUES;
      const value = () => (numbersOnly || next() < 0.8 ? pick(VALUES.slice(0, 10)) : pick(others));
      const cols = def.columns!(constants);
      const accs = Array.from({ length: 40 }, () => def.create(constants));
      for (let g = 0; g < accs.length; g++) cols.open();
      for (let i = 0; i < 4000; i++) {
        const g = Math.floor(next() * accs.length);
        const args =
          fn.endsWith("if") && arity === 2
            ? [value(), pick(PREDICATES)]
            : fn === "countif"
              ? [pick(PREDICATES)]
              : Array.from({ length: arity }, value);
        // Each of the three entry points, as the core would call them.
        const via = next();
        if (via < 0.2 || args.length === 0) {
          accs[g].add([...args]);
          cols.add(g, [...args]);
        } else if (args.length === 1) {
          accs[g].add1!(args[0]);
          cols.add1!(g, args[0]);
        } else {
          accs[g].add2!(args[0], args[1]);
          cols.add2!(g, args[0], args[1]);
        }
      }
      for (let g = 0; g < accs.length; g++) {
        expect([fn, seed, g, ...cellText(cols.result(g))]).toEqual([
          fn,
          seed,
          g,
          ...cellText(accs[g].result()),
        ]);
      }
    }
  });
});
