/** The event store: ordering, row ids as cursors, out-of-order appends and persistence. */
import fc from "fast-check";
import { compileQuery, parseApl } from "../../emulator/apl";
import { execute } from "../../emulator/query";
import { encodeRowId, EventStore } from "../../emulator/store/events";

const T = 1_704_067_200_000_000_000n;

describe("EventStore", () => {
  it("keeps appends in (time, arrival) order with unique, sortable row ids", () => {
    const s = new EventStore();
    s.append(
      "d",
      [0, 1, 1, 2].map((k, i) => ({ timeNs: T + BigInt(k), data: { i } })),
      T,
    );
    const rows = s.events("d")!;
    expect(rows.map((r) => r.data.i)).toEqual([0, 1, 2, 3]);
    const ids = rows.map((r) => r.rowId);
    expect(new Set(ids).size).toBe(4);
    expect([...ids].sort()).toEqual(ids);
    expect(rows.every((r) => r.sysTimeNs === T)).toBe(true);
  });

  it("sorts out-of-order appends by time, keeping arrival order among equal times", () => {
    const s = new EventStore();
    s.append(
      "d",
      [
        { timeNs: T + 10n, data: { i: "a" } },
        { timeNs: T + 5n, data: { i: "b" } },
      ],
      T,
    );
    s.append(
      "d",
      [
        { timeNs: T + 5n, data: { i: "c" } },
        { timeNs: T - 100n, data: { i: "d" } },
      ],
      T,
    );
    expect(s.events("d")!.map((r) => r.data.i)).toEqual(["d", "b", "c", "a"]);
    const ids = s.events("d")!.map((r) => r.rowId);
    expect([...ids].sort()).toEqual(ids);
  });

  it.each([
    ["before the epoch", -5n, 3n],
    ["far apart", 0n, 10n ** 18n],
    ["same time, later arrival", 7n, 7n],
  ])("row ids sort like (time, arrival): %s", (_case, a, b) => {
    expect(encodeRowId(a, 1) < encodeRowId(b, 2)).toBe(true);
  });

  it("returns undefined for an unknown dataset and lists names", () => {
    const s = new EventStore();
    s.append("b", [{ timeNs: T, data: {} }], T);
    s.append("a", [{ timeNs: T, data: {} }], T);
    expect(s.events("zzz")).toBeUndefined();
    expect(s.names()).toEqual(["a", "b"]);
    expect(s.count("a")).toBe(1);
  });

  it("round-trips through JSON, and new row ids stay unique after load", () => {
    const s = new EventStore();
    s.append(
      "d",
      [
        { timeNs: T + 2n, data: { x: 1 } },
        { timeNs: T + 1n, data: { x: 2, nested: { y: [1] } } },
      ],
      T,
    );
    const json = JSON.parse(JSON.stringify(s.toJSON()));
    const r = new EventStore();
    r.load(json);
    expect(r.events("d")).toEqual(s.events("d"));
    const [added] = r.append("d", [{ timeNs: T + 1n, data: {} }], T);
    expect(s.events("d")!.map((e) => e.rowId)).not.toContain(added.rowId);
    expect(r.events("d")!.map((e) => e.rowId)).toEqual([...r.events("d")!.map((e) => e.rowId)].sort());
  });

  it.each([
    ["not an object", 5],
    ["datasets not an object", { datasets: 3 }],
    ["a dataset not a list", { datasets: { d: {} } }],
    ["a malformed row", { datasets: { d: [[1, 2]] } }],
  ])("load rejects a malformed document (%s) without changing the store", (_case, doc) => {
    const s = new EventStore();
    s.append("keep", [{ timeNs: T, data: {} }], T);
    expect(() => s.load(doc)).toThrow(/event store/);
    expect(s.names()).toEqual(["keep"]);
  });
});

describe("execute: project and extend stay lazy", () => {
  const store = new EventStore();
  // Three events per time, so ties show whether arrival order is kept.
  store.append(
    "d",
    Array.from({ length: 3000 }, (_, i) => ({
      timeNs: T + BigInt(Math.floor(i / 3)),
      data: { i, odd: i % 2 },
    })),
    T,
  );
  const events = store.events("d")!;
  const run = (apl: string) => execute(events, compileQuery(parseApl(apl), { now: T }), { pageLimit: 1000 });
  const ids = async (apl: string) => (await run(apl)).rows.map((r) => r.data.i ?? r.data);

  it("maps only the rows a limit keeps, yet counts every match", async () => {
    let calls = 0;
    const res = await execute(
      events,
      {
        dataset: "d",
        ops: [
          { op: "project", columns: [{ name: "i", get: (r) => (calls++, r.data.i) }] },
          { op: "limit", n: 5 },
        ],
      },
      { pageLimit: 1000 },
    );
    expect(res.rows.map((r) => r.data)).toEqual([2999, 2998, 2997, 2996, 2995].map((i) => ({ i })));
    expect(res.rowsMatched).toBe(3000);
    expect(calls).toBe(5);
  });

  it.each([
    [
      "project then sort by _time asc",
      "d | project i | sort by _time asc | take 7",
      "d | sort by _time asc | take 7",
    ],
    [
      "extend then where on the new column",
      "d | extend k = i * 10 | where k < 50 | project i",
      "d | where i < 5",
    ],
    [
      "where, project, where",
      "d | where odd == 1 | project i, odd | where i > 2990",
      "d | where odd == 1 and i > 2990",
    ],
    [
      "sort by a field, then where",
      "d | sort by i desc | where odd == 1 | take 4",
      "d | where odd == 1 | take 4",
    ],
    [
      "summarize after extend and where",
      "d | extend k = i | where k < 10 | summarize count()",
      "d | where i < 10 | summarize count()",
    ],
  ])(
    "%s gives the rows of the plain query, ties in arrival order, and counts what matched",
    async (_name, apl, plain) => {
      expect(await ids(apl)).toEqual(await ids(plain));
      expect((await run(apl)).rowsMatched).toBe((await run(plain)).rowsMatched);
    },
  );
});

describe("execute: sort by a field, then limit", () => {
  it("keeps exactly the first n of the full sort, ties in arrival order, and counts every row (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constant(null), fc.constantFrom("a", "b")), {
          maxLength: 60,
        }),
        fc.integer({ min: 0, max: 12 }),
        fc.boolean(),
        async (values, n, desc) => {
          const s = new EventStore();
          s.append(
            "d",
            values.map((v, i) => ({ timeNs: T + BigInt(i % 4), data: { v, i } })),
            T,
          );
          const events = s.events("d")!;
          const dir = desc ? "desc" : "asc";
          const run = (apl: string) =>
            execute(events, compileQuery(parseApl(apl), { now: T }), { pageLimit: 1000 });
          const full = (await run(`d | sort by v ${dir}, i asc`)).rows.map((r) => r.data.i);
          const top = await run(`d | sort by v ${dir}, i asc | limit ${n}`);
          expect(top.rows.map((r) => r.data.i)).toEqual(full.slice(0, n));
          expect(top.rowsMatched).toBe(values.length);
          // Ties on v alone keep the order the rows came in.
          const tied = (await run(`d | sort by v ${dir}`)).rows.map((r) => r.data.i);
          const taken = (await run(`d | sort by v ${dir} | take ${n}`)).rows.map((r) => r.data.i);
          expect(taken).toEqual(tied.slice(0, n));
        },
      ),
      { numRuns: 300 },
    );
  });
});
