/**
 * A summarize whose rows nothing after it reads but a limit answers them as columns (emulator/query/engine.ts
 * `ColumnTable`), which the tabular body, the status and the monitors' table read without a row object per group.
 * Over random events and random summarizes (every kind of key, plain aggregations and ones made of parts, output
 * names that collide, steps after the summarize that read its rows), each answer must be the one the rows give:
 * the same tabular and legacy bodies, the same status, the same typed table, the same rows.
 */
import fc from "fast-check";
import { setSummarizeTables } from "../../emulator/query/engine";
import { runAplQuery } from "../../emulator/query";
import { queryTable } from "../../emulator/query/table";
import { EventStore } from "../../emulator/store/events";
import { stringifyExactJson } from "../../emulator/http/exact-json";
import { compileQuery, parseApl } from "../../emulator/apl";
import { execute } from "../../emulator/query";

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 20261205) });

const T0 = 1_767_225_600_000_000_000n; // 2026-01-01T00:00:00Z
const SEC = 1_000_000_000n;
const NOW = T0 + 86_400n * SEC;
const KINDS: unknown[] = ["a", "b", 1, "1", 0, true, null, undefined, { x: 1 }, 2.5];

const event = fc.record({
  second: fc.integer({ min: 0, max: 3_600 }),
  k: fc.constantFrom(...KINDS),
  n: fc.oneof(fc.integer({ min: -3, max: 9 }), fc.constant(null), fc.constant("x")),
  s: fc.constantFrom("s0", "s1", undefined),
});

const BY = [
  "",
  "by k",
  "by b = bin(_time, 5m)",
  "by b = bin(_time, 1m), k",
  "by s, b = bin(_time, 10m)",
  "by k, s",
];
const AGGS = [
  "c = count()",
  "c = count(), ci = countif(n > 3), sm = sum(n), mx = max(n), mn = min(s)",
  "si = sumif(n, n > 2), a = avg(n)",
  "r = round(100.0 * countif(n > 3) / count(), 2)",
  "p = percentile(n, 50), d = dcount(k), l = make_list(n, 2)",
  "am = arg_max(n, *)",
  "k = count()",
];
const TAILS = [
  "",
  " | limit 3",
  " | sort by b asc | limit 4",
  " | where c > 1",
  " | extend z = 1",
  " | summarize total = count()",
  " | limit 5 | limit 2",
];

let answeredAsTable = 0;
let answeredAsRows = 0;

/** Every answer a query gets: both bodies (without the time it took), its typed table, its rows. */
async function answers(store: EventStore, apl: string, pageLimit: number): Promise<unknown> {
  const body = { apl, startTime: "2025-12-31T00:00:00Z", endTime: "2026-01-02T00:00:00Z" };
  const reply = async (format: string) =>
    stringifyExactJson((await runAplQuery(store, body, format, NOW)).body).replace(/"elapsedTime":\d+/, "");
  const table = await queryTable(
    store,
    { apl, startNs: T0 - 86_400n * SEC, endNs: NOW, nowNs: NOW, limit: pageLimit },
    { exists: (name) => name === "d", virtualFields: () => [] },
  );
  const plan = compileQuery(parseApl(apl), { now: NOW, startNs: T0 - 86_400n * SEC, endNs: NOW });
  const res = await execute(store.events("d") ?? [], plan, {
    pageLimit,
    startNs: T0 - 86_400n * SEC,
    endNs: NOW,
  });
  if (res.table !== undefined) answeredAsTable++;
  else answeredAsRows++;
  return {
    tabular: await reply("tabular"),
    legacy: await reply("legacy"),
    table: stringifyExactJson(table),
    // Undefined apart from null, which JSON would make of both: a row's data holds null for a missing key.
    rows: stringifyExactJson(
      res.rows.map((r) => [
        r.timeNs,
        r.rowId,
        Object.entries(r.data).map(([k, v]) => [k, v === undefined ? "<undefined>" : v]),
      ]),
    ),
    matched: res.rowsMatched,
    columns: res.columns,
  };
}

describe("a summarize answered as columns", () => {
  afterEach(() => setSummarizeTables(true));

  it("answers what its rows answer, in every format", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(event, { minLength: 0, maxLength: 60 }),
        fc.constantFrom(...BY),
        fc.constantFrom(...AGGS),
        fc.constantFrom(...TAILS),
        fc.constantFrom(1, 2, 1_000),
        async (events, by, aggs, tail, pageLimit) => {
          // `b` only exists with a bin; a tail that names it needs one.
          if (tail.includes(" b ") && !by.includes("b =")) return;
          if (tail.includes("c > 1") && !aggs.startsWith("c =")) return;
          const store = new EventStore();
          store.append(
            "d",
            events.map((e) => {
              const data: Record<string, unknown> = { n: e.n };
              if (e.k !== undefined) data.k = e.k;
              if (e.s !== undefined) data.s = e.s;
              return { timeNs: T0 + BigInt(e.second) * SEC, data };
            }),
            T0,
          );
          const apl = `d | summarize ${aggs} ${by}${tail}`;
          setSummarizeTables(true);
          const columns = await answers(store, apl, pageLimit);
          setSummarizeTables(false);
          const rows = await answers(store, apl, pageLimit);
          expect(columns).toEqual(rows);
        },
      ),
      { numRuns: 400 },
    );
    // Both kinds of answer were drawn: the property compared tables, not rows with rows only.
    expect(answeredAsTable).toBeGreaterThan(50);
    expect(answeredAsRows).toBeGreaterThan(50);
  });

  it("is a table only where every output is one aggregation's", async () => {
    const store = new EventStore();
    store.append("d", [{ timeNs: T0, data: { n: 1, k: "a" } }], T0);
    const tableOf = async (apl: string) => {
      const plan = compileQuery(parseApl(apl), { now: NOW, startNs: T0, endNs: NOW });
      return (await execute(store.events("d") ?? [], plan, { pageLimit: 100, startNs: T0, endNs: NOW }))
        .table;
    };
    expect((await tableOf("d | summarize c = count(), mx = max(n) by k"))?.names).toEqual(["k", "c", "mx"]);
    expect((await tableOf("d | summarize c = count() by k | limit 1"))?.values).toEqual([["a"], [1]]);
    // avg's parts, an expression over aggregations, arg_max's spread and a name the key holds take rows.
    expect(await tableOf("d | summarize r = round(100.0 * countif(n > 0) / count(), 2)")).toBeUndefined();
    expect(await tableOf("d | summarize am = arg_max(n, *)")).toBeUndefined();
    // An output named as a key is named apart by the compiler (`k1`), so the table holds both.
    expect((await tableOf("d | summarize k = count() by k"))?.names).toEqual(["k", "k1"]);
    // A step that reads the rows makes them: the answer has no table.
    expect(await tableOf("d | summarize c = count() by k | where c > 0")).toBeUndefined();
  });
});
