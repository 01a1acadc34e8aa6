/**
 * A running query yields to the event loop on time as well as by work (emulator/query/budget.ts SLICE_MS): slices
 * are sized in rows, and a row can cost far more than a slice's size assumes (a join's row with thousands of
 * matches, a regex over long text, the garbage collector catching up), so a query that would hold the loop past the
 * slice's time yields early. The slice's clock is a counter here: every reading is 25 ms after the one before, so
 * every reading is late, and nothing waits on a wall clock.
 */
import { compileQuery, parseApl } from "../../emulator/apl";
import { execute } from "../../emulator/query";
import { QueryBudget, SLICE_MS } from "../../emulator/query/budget";
import { EventStore } from "../../emulator/store/events";

const T0 = 1_704_067_200_000_000_000n;

function store(n: number, keys: number): EventStore {
  const s = new EventStore();
  s.append(
    "d",
    Array.from({ length: n }, (_, i) => ({
      timeNs: T0 + BigInt(i),
      data: { k: i % keys, i, s: `row ${i}` },
    })),
    T0 + BigInt(n),
  );
  return s;
}

/**
 * Runs `apl` with slices of a billion rows (no checkpoint by work at all) and a late slice clock; answers the
 * query's pauses and whether a callback queued on the event loop before it started ran before it ended.
 */
async function run(
  apl: string,
  s: EventStore,
): Promise<{ pauses: number; checkpoints: number; otherFirst: boolean }> {
  let t = 0;
  const budget = new QueryBudget({ sliceClock: () => (t += SLICE_MS + 5) });
  budget.rowsPerSlice = 1e9;
  const order: string[] = [];
  setImmediate(() => order.push("other"));
  await execute(s.events("d") ?? [], compileQuery(parseApl(apl), { now: T0 + 10n ** 12n }), {
    pageLimit: 10,
    budget,
    datasetEvents: (name) => s.events(name),
    datasetNames: () => s.names(),
  });
  order.push("query");
  return { pauses: budget.pauses, checkpoints: budget.checkpoints, otherFirst: order[0] === "other" };
}

describe("a query's slices end on time too", () => {
  // Each case's least pauses: more than its scan alone makes (a reading per 256 rows read), so the operator's own
  // work ended slices on time.
  it.each([
    ["a scan's filter", "d | where s contains 'row 1' | count", 4000, 4, 10],
    // 200 rows on one key: 40,000 rows out of 400 read.
    ["a self-join's matches", "d | join kind=inner (d) on k | take 1 | count", 200, 1, 100],
    ["mv-expand's rows", "d | extend a = pack_array(1, 2, 3, 4) | mv-expand a | count", 4000, 4, 40],
    ["a summarize's rows", "d | summarize count() by k", 4000, 4, 25],
    ["a sort's rows", "d | sort by s asc | take 5", 4000, 4, 25],
  ])(
    "%s: the event loop runs meanwhile, though no slice of rows ended",
    async (_what, apl, n, keys, least) => {
      const r = await run(apl, store(n, keys));
      expect(r.checkpoints).toBe(0);
      expect(r.pauses).toBeGreaterThanOrEqual(least);
      expect(r.otherFirst).toBe(true);
    },
  );

  it("on time, the clock is read once per 256 units of work: a small query reads it not at all and never pauses", async () => {
    const r = await run("d | count", store(100, 4));
    expect(r.pauses).toBe(0);
    expect(r.otherFirst).toBe(false);
  });
});
