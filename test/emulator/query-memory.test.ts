/**
 * A query's memory budget (emulator/query/budget.ts): joins, lookups, mv-expand, make-series, union, distinct and
 * summarize count the rows and values they build, and a query past its budget stops at once with an answer naming
 * the budget, never by the process's heap limit; the memory every running query shares stops the one that would
 * pass it. Each bound is asserted in bytes charged and checkpoints passed, not by a clock.
 */
import { runAplQuery } from "../../emulator/query";
import { MemoryPool, QueryBudget, rowBytes } from "../../emulator/query/budget";
import { EventStore } from "../../emulator/store/events";

const T0 = 1_704_067_200_000_000_000n;
const MIB = 1024 * 1024;

/** `n` events of dataset `d`, keyed `k` by `i % keys`, with `fields` on top. */
function store(
  n: number,
  keys: number,
  fields: (i: number) => Record<string, unknown> = () => ({}),
): EventStore {
  const s = new EventStore();
  s.append(
    "d",
    Array.from({ length: n }, (_, i) => ({ timeNs: T0 + BigInt(i), data: { k: i % keys, i, ...fields(i) } })),
    T0 + BigInt(n),
  );
  return s;
}

/** Runs `apl` with a memory budget of `memoryBytes` and its own pool; counts the checkpoints it passed. */
async function run(s: EventStore, apl: string, memoryBytes: number, pool = new MemoryPool(1024 * MIB)) {
  let slices = 0;
  const res = await runAplQuery(s, { apl }, "tabular", T0 + 10_000_000n, undefined, {
    memoryBytes,
    pool,
    onSlice: () => void slices++,
  });
  return {
    status: res.status,
    body: res.body as { message?: string; status?: { rowsMatched?: number } },
    slices,
    pool,
  };
}

describe("the query's memory budget", () => {
  it("a self-join whose output explodes stops at the budget, 400 naming it and the join, within a few slices", async () => {
    // 4,000 events on 2 keys: the self-join would build 2 × 2,000² = 8,000,000 rows (gigabytes).
    const r = await run(store(4000, 2), "d | join kind=inner (d) on k | count", 4 * MIB);
    expect(r.status).toBe(400);
    expect(r.body.message).toBe(
      "query exceeded the emulator's memory budget of 4 MiB (join's output rows built more than that) and was " +
        "stopped; narrow its time range, filter or summarize before the join, mv-expand or make-series",
    );
    // Stopped while building, not after: the rows a 4 MiB budget holds are about 13,000 of the 8,000,000.
    expect(r.slices).toBeLessThan(5);
    // What it charged went back to the pool.
    expect(r.pool.held).toBe(0);
  });

  it.each([
    ["leftouter", "d | join kind=leftouter (d) on k | count"],
    ["fullouter", "d | join kind=fullouter (d) on k | count"],
    ["rightouter", "d | join kind=rightouter (d) on k | count"],
  ])("join kind %s is bounded too", async (_kind, apl) => {
    const r = await run(store(4000, 2), apl, 4 * MIB);
    expect(r.status).toBe(400);
    expect(r.body.message).toContain("memory budget of 4 MiB (join's output rows");
  });

  it("lookup keeps one match per left row: the same tables fit the budget the join passed", async () => {
    const r = await run(store(4000, 2), "d | lookup (d | project k, j = i) on k | count", 4 * MIB);
    expect(r.status).toBe(200);
  });

  it("mv-expand of long arrays stops at the budget, naming mv-expand", async () => {
    // 1,000 events of a 1,000-element array: a million rows.
    const s = store(1000, 10, () => ({ arr: Array.from({ length: 1000 }, (_, j) => j) }));
    const r = await run(s, "d | mv-expand arr | count", 4 * MIB);
    expect(r.status).toBe(400);
    expect(r.body.message).toContain("memory budget of 4 MiB (mv-expand's rows built more than that)");
    expect(r.slices).toBeLessThan(5);
  });

  it("mv-expand of arrays held as JSON text counts the parsed values", async () => {
    const text = JSON.stringify(Array.from({ length: 20_000 }, (_, j) => `value ${j}`));
    const s = store(100, 10, () => ({ arr: text }));
    const r = await run(s, "d | mv-expand arr | count", 4 * MIB);
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/memory budget of 4 MiB \(mv-expand's (parsed arrays|rows) built/);
  });

  it("make-series of many groups over many bins stops at the budget, naming make-series", async () => {
    const r = await run(
      store(5000, 5000),
      "d | make-series count() default=0 on _time from datetime(2024-01-01) to datetime(2024-01-02) step 1s by i",
      4 * MIB,
    );
    expect(r.status).toBe(400);
    expect(r.body.message).toContain("memory budget of 4 MiB (make-series' arrays built more than that)");
  });

  it("summarize by a key of 200,000 values and distinct of as many stop at the budget", async () => {
    const s = store(200_000, 200_000);
    const grouped = await run(s, "d | summarize count() by i", 4 * MIB);
    expect(grouped.status).toBe(400);
    expect(grouped.body.message).toContain("(summarize's groups built more than that)");
    const distinct = await run(s, "d | distinct i", 4 * MIB);
    expect(distinct.status).toBe(400);
    expect(distinct.body.message).toContain("(distinct's rows built more than that)");
  });

  it("union withsource copies its rows and counts them", async () => {
    const r = await run(store(50_000, 10), "union withsource=src d, d | count", 4 * MIB);
    expect(r.status).toBe(400);
    expect(r.body.message).toContain("(union's rows built more than that)");
  });

  it("the same queries within their budget answer as before", async () => {
    const s = store(400, 2);
    const join = await run(s, "d | join kind=inner (d) on k | count", 64 * MIB);
    expect(join.status).toBe(200);
    expect(JSON.stringify(join.body)).toContain("80000");
    expect(join.pool.held).toBe(0);
    const expand = await run(
      store(10, 10, () => ({ arr: [1, 2, 3] })),
      "d | mv-expand arr | summarize sum(arr)",
      64 * MIB,
    );
    expect(expand.status).toBe(200);
    expect(JSON.stringify(expand.body)).toContain("60");
  });
});

describe("the memory running queries share", () => {
  it("a query that would take the pool past its bytes stops 503 naming the shared budget; its bytes go back", async () => {
    const pool = new MemoryPool(2 * MIB);
    // Another query holds most of the pool.
    const other = new QueryBudget({ pool, memoryBytes: 64 * MIB });
    other.charge(Math.floor(1.5 * MIB), "a test's rows");
    const r = await run(store(4000, 2), "d | join kind=inner (d) on k | count", 64 * MIB, pool);
    expect(r.status).toBe(503);
    expect(r.body.message).toMatch(
      /^the queries running at once hold the emulator's shared query memory of 2 MiB \(this one [\d.]+ MiB, at join's output rows\); it was stopped, try again when fewer queries run$/,
    );
    expect(pool.held).toBe(Math.floor(1.5 * MIB));
    other.release();
    expect(pool.held).toBe(0);
  });

  it("charge and release keep the pool's count; release is idempotent", () => {
    const pool = new MemoryPool(10 * MIB);
    const a = new QueryBudget({ pool });
    a.chargeRows(1000, 5, "rows");
    expect(a.held).toBe(1000 * rowBytes(5));
    expect(pool.held).toBe(a.held);
    a.release();
    a.release();
    expect(pool.held).toBe(0);
  });
});
