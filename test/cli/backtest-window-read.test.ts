/**
 * A backtest's rebuilt window comes read for the judge (cli/backtest/decompose.ts, Rebuilder.window), so that a
 * month of runs does not make each window's rows and read them again. That reading must be the judge's own: over
 * random fine rows (groups whose values are null, numbers, or text that reads like a number), random windows and
 * every `columnName` a monitor may give, it equals what readResult (emulator/alerting/evaluate.ts) reads from the
 * window's rows. And those rows are the engine's: the fine rows grouped and combined the plain way. No server:
 * the fine rows are made here, as the service would answer them (backtest-paths.test.ts runs both paths against
 * the emulator).
 */
import fc from "fast-check";
import { decompose, FineRows, Rebuilder, type Decomposition } from "../../cli/backtest/decompose";
import { readResult } from "../../emulator/alerting/evaluate";

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 20261205) });

const MINUTE_NS = 60_000_000_000n;
const BASE_NS = 1_767_225_600_000n * 1_000_000n; // 2026-01-01T00:00:00Z

const QUERIES = [
  "['l'] | summarize n = count(), s = sum(v) by bin(_time, 2m), host",
  "['l'] | summarize max(v), avg(v) by host",
  "['l'] | where v > 3 | summarize lo = min(v), c = countif(v > 50)",
  "['l'] | summarize count() by bin(_time, 1m)",
  "['l'] | summarize a = avg(v), m = max(v) by host, zone",
  // The bin after another key: groups go by host first, then by time.
  "['l'] | summarize n = count(), m = max(v) by host, bin(_time, 3m)",
];

/** A host's value as a row holds it: text, a number, the same number as text, or nothing. */
const hostArb = fc.constantFrom<unknown>("a", "b", 1, "1", null, undefined);

const fineArb = fc.array(
  fc.record({
    grain: fc.integer({ min: 0, max: 30 }),
    host: hostArb,
    zone: fc.constantFrom<unknown>("x", "y", null),
    n: fc.integer({ min: 0, max: 5 }),
    v: fc.option(fc.integer({ min: -10, max: 100 }), { nil: null }),
  }),
  { maxLength: 60 },
);

type Drawn = { grain: number; host: unknown; zone: unknown; n: number; v: number | null };

/** The fine rows a service would answer for `d` (in bin order), from drawn rows. */
function fineRowsOf(d: Decomposition, drawn: readonly Drawn[]): FineRows {
  const fine = new FineRows(BASE_NS, MINUTE_NS);
  const names = [...d.by.filter((b) => b.binNs === undefined).map((b) => b.name), ...partialNames(d), "__n"];
  const valueOf = (r: Drawn, name: string) =>
    name === "host" ? r.host : name === "zone" ? r.zone : name === "__n" || name.endsWith("c") ? r.n : r.v;
  // Two answers, as a period split in two requests comes back; the second lists its rows out of bin order, as a
  // service that did not sort them would (the fetch then reads them in bin order through `rows`).
  const sorted = [...drawn].sort((x, y) => x.grain - y.grain);
  const half = Math.floor(sorted.length / 2);
  const first = sorted.slice(0, half);
  const second = sorted.slice(half).reverse();
  fine.add(
    first.map((r) => r.grain),
    new Map(names.map((name) => [name, first.map((r) => valueOf(r, name))])),
  );
  fine.add(
    second.map((r) => r.grain).reverse(),
    new Map(names.map((name) => [name, second.map((r) => valueOf(r, name))])),
    second.map((_, i) => second.length - 1 - i),
  );
  return fine;
}
const partialNames = (d: Decomposition) => d.aggs.flatMap((a) => a.partials);

/**
 * A window's rows worked out the plain way, as the engine's summarize would answer them: the fine rows of the
 * window grouped by their time bin and plain values (1 and "1" apart, as the values' JSON tells them), each
 * group's partials combined, groups ordered by their keys with nulls first.
 */
function naiveRows(d: Decomposition, fine: FineRows, fromGrain: number, toGrain: number) {
  const timeBin = d.by.find((b) => b.binNs !== undefined)?.binNs;
  const groups = new Map<string, { q: bigint; plain: unknown[]; at: number[] }>();
  fine.grains.forEach((k, i) => {
    if (k < fromGrain || k >= toGrain) return;
    const binNs = BASE_NS + BigInt(k) * MINUTE_NS;
    const q = timeBin === undefined ? 0n : binNs / timeBin;
    const plain = d.by.map((b) => (b.binNs === undefined ? (fine.column(b.name)[i] ?? null) : null));
    const key = `${q} ${JSON.stringify(plain)}`;
    const g = groups.get(key) ?? { q, plain, at: [] };
    g.at.push(i);
    groups.set(key, g);
  });
  const order = (u: unknown, v: unknown) =>
    u === v
      ? 0
      : u === null
        ? -1
        : v === null
          ? 1
          : typeof u === typeof v
            ? (u as string | number) < (v as string | number)
              ? -1
              : 1
            : typeof u < typeof v
              ? -1
              : 1;
  // By the keys in the `by` order, as the engine sorts its groups: a time bin by its number.
  const sorted = [...groups.values()].sort((x, y) => {
    for (let k = 0; k < d.by.length; k++) {
      const c =
        d.by[k].binNs !== undefined ? (x.q === y.q ? 0 : x.q < y.q ? -1 : 1) : order(x.plain[k], y.plain[k]);
      if (c !== 0) return c;
    }
    return 0;
  });
  const partial = (name: string, at: number[]) =>
    at.map((i) => fine.column(name)[i]).filter((v) => typeof v === "number") as number[];
  const rows = sorted.map((g) => {
    const row: Record<string, unknown> = {};
    d.by.forEach((b, k) => {
      row[b.name] =
        b.binNs === undefined
          ? g.plain[k]
          : new Date(Number((g.q * b.binNs) / 1_000_000n)).toISOString().replace(".000Z", "Z");
    });
    for (const a of d.aggs) {
      const xs = partial(a.partials[0], g.at);
      if (a.kind === "sum") row[a.name] = xs.reduce((s, x) => s + x, 0);
      else if (a.kind === "min") row[a.name] = xs.length === 0 ? null : Math.min(...xs);
      else if (a.kind === "max") row[a.name] = xs.length === 0 ? null : Math.max(...xs);
      else {
        const n = partial(a.partials[1], g.at).reduce((s, x) => s + x, 0);
        row[a.name] = n > 0 ? xs.reduce((s, x) => s + x, 0) / n : null;
      }
    }
    return row;
  });
  return rows;
}

describe("a rebuilt window holds the rows the engine's summarize would answer", () => {
  it.each(QUERIES)("%s", (apl) => {
    const d = decompose(apl);
    if ("reason" in d) throw new Error(d.reason);
    fc.assert(
      fc.property(
        fineArb,
        fc.integer({ min: -2, max: 32 }),
        fc.integer({ min: 1, max: 12 }),
        (drawn, start, span) => {
          const fine = fineRowsOf(d, drawn);
          const table = new Rebuilder(d, fine).window(
            BASE_NS + BigInt(start) * MINUTE_NS,
            BASE_NS + BigInt(start + span) * MINUTE_NS,
          );
          const expected = naiveRows(d, fine, start, start + span);
          // An ungrouped summarize over nothing answers its one row of zeros and nulls.
          if (expected.length === 0 && d.by.length === 0)
            expected.push(Object.fromEntries(d.aggs.map((a) => [a.name, a.kind === "sum" ? 0 : null])));
          expect(table.rows).toEqual(expected);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe("a rebuilt window comes read as the judge reads its rows", () => {
  it.each(QUERIES)("%s", (apl) => {
    const d = decompose(apl);
    if ("reason" in d) throw new Error(d.reason);
    const columnNames = [undefined, "", ...d.aggs.map((a) => a.name), ...d.by.map((b) => b.name), "nope"];
    let read = 0;
    fc.assert(
      fc.property(
        fineArb,
        fc.constantFrom(...columnNames),
        fc.array(fc.tuple(fc.integer({ min: -2, max: 32 }), fc.integer({ min: 1, max: 10 })), {
          minLength: 1,
          maxLength: 8,
        }),
        (drawn, columnName, windows) => {
          const rebuilder = new Rebuilder(d, fineRowsOf(d, drawn), columnName);
          for (const [start, span] of windows) {
            const table = rebuilder.window(
              BASE_NS + BigInt(start) * MINUTE_NS,
              BASE_NS + BigInt(start + span) * MINUTE_NS,
            );
            const { columns, groupBy, summarized, rows, matched } = table;
            const fromRows = readResult({ columns, groupBy, summarized, rows, matched }, columnName);
            if (table.read !== undefined) {
              read++;
              expect(table.read.result).toEqual(fromRows);
              expect(readResult(table, columnName)).toBe(table.read.result);
            } else {
              // Read from its rows: the monitor's column is not in the result, or two groups read as one text.
              expect(readResult(table, columnName)).toEqual(fromRows);
            }
          }
        },
      ),
      { numRuns: 150 },
    );
    // Most windows come read: the fallback to rows is for the cases named above.
    expect(read).toBeGreaterThan(100);
  });

  it("is not taken for another columnName than the one it was read for", () => {
    const d = decompose("['l'] | summarize n = count(), s = sum(v) by host");
    if ("reason" in d) throw new Error(d.reason);
    const fine = new FineRows(BASE_NS, MINUTE_NS);
    fine.add(
      [0, 0],
      new Map<string, unknown[]>([
        ["host", ["a", "b"]],
        ["__p0", [3, 4]],
        ["__p1", [10, 20]],
        ["__n", [3, 4]],
      ]),
    );
    const table = new Rebuilder(d, fine, "n").window(BASE_NS, BASE_NS + MINUTE_NS);
    expect(readResult(table, "n")).toMatchObject({ ok: true, groups: [{ values: [3] }, { values: [4] }] });
    expect(readResult(table, "s")).toMatchObject({ ok: true, groups: [{ values: [10] }, { values: [20] }] });
  });
});
