/** query, queryLegacy and paginate against a real emulator: every row exactly once, in both orders, by both methods. */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { ObservabilityClient, PaginationStalledError, type Match } from "../../provider/client";
import { paginationApl } from "../../provider/client/query";
import { useEmulator } from "../helpers/emulator";

const em = useEmulator({ record: true, datasets: ["pages"] });
let client: ObservabilityClient;

const TOTAL = 25_200;
const SAME_TIME = 300; // one timestamp shared by 300 rows, so page boundaries fall inside it
const WINDOW = { startTime: "2024-01-01T00:00:00Z", endTime: "2024-02-01T00:00:00Z" };

/** Groups of 7 rows share a timestamp (ns precision), so most page boundaries split a group. */
function timeOf(i: number): string {
  const group = i < SAME_TIME ? 0 : Math.floor((i - SAME_TIME) / 7) + 1;
  return new Date(Date.UTC(2024, 0, 1) + group * 1000).toISOString().slice(0, 19) + ".123456789Z";
}

beforeAll(async () => {
  client = new ObservabilityClient({ url: em.current.url, token: em.current.token });
  const events = Array.from({ length: TOTAL }, (_, i) => ({ _time: timeOf(i), i }));
  const summary = await client.ingest("pages", events);
  expect(summary.ingested).toBe(TOTAL);
  em.current.received.length = 0;
});
afterAll(() => client.close());

async function collect(iter: AsyncIterable<Match>): Promise<Match[]> {
  const out: Match[] = [];
  for await (const m of iter) out.push(m);
  return out;
}

function expectEachRowOnce(rows: Match[], order: "asc" | "desc") {
  const ids = rows.map((r) => r.data?.i);
  expect(ids.filter((i) => typeof i !== "number")).toEqual([]);
  expect(rows).toHaveLength(TOTAL);
  expect(new Set(ids).size).toBe(TOTAL);
  expect(new Set(rows.map((r) => r._rowId)).size).toBe(TOTAL);
  for (let k = 1; k < rows.length; k++) {
    const [a, b] = [rows[k - 1]._time, rows[k]._time];
    expect(typeof a === "string" && typeof b === "string" && (order === "asc" ? a <= b : a >= b)).toBe(true);
  }
}

describe("paginate over 25,200 events", () => {
  it.each([
    ["timestamp", "desc"],
    ["timestamp", "asc"],
    ["cursor", "desc"],
    ["cursor", "asc"],
  ] as const)("%s paging, %s order, returns each row exactly once", async (mode, order) => {
    const before = em.current.received.length;
    const rows = await collect(client.paginate("['pages']", { ...WINDOW, mode, order }));
    expectEachRowOnce(rows, order);
    const requests = em.current.received.slice(before).map((r) => JSON.parse(r.body.toString("utf8")));
    expect(requests[0].apl).toBe(`['pages']\n| sort by _time ${order}\n| limit 1000`);
    expect(requests.length).toBeGreaterThanOrEqual(26);
    expect(requests.length).toBeLessThanOrEqual(28);
  });

  it("timestamp paging moves endTime (desc) to the last row's _time exactly, without a 1 ns step", async () => {
    const before = em.current.received.length;
    const seen: Match[] = [];
    for await (const m of client.paginate("['pages'] | sort by _time desc | limit 500", WINDOW)) {
      seen.push(m);
      if (seen.length === 500) break;
    }
    // Breaking out after the first page sends no second request; run one more page to see it.
    const it = client.paginate("['pages'] | sort by _time desc | limit 500", WINDOW)[Symbol.asyncIterator]();
    for (let k = 0; k < 501; k++) await it.next();
    await it.return?.(undefined);
    const bodies = em.current.received.slice(before).map((r) => JSON.parse(r.body.toString("utf8")));
    expect(bodies[0]).toMatchObject({ apl: "['pages'] | sort by _time desc | limit 500", ...WINDOW });
    expect(bodies.at(-1)).toMatchObject({ startTime: WINDOW.startTime, endTime: seen[499]._time });
  });

  it("asc paging moves startTime to the last row's _time", async () => {
    const before = em.current.received.length;
    const it = client
      .paginate("['pages']", { ...WINDOW, order: "asc", pageSize: 400 })
      [Symbol.asyncIterator]();
    const first: Match[] = [];
    for (let k = 0; k < 401; k++) first.push((await it.next()).value as Match);
    await it.return?.(undefined);
    const bodies = em.current.received.slice(before).map((r) => JSON.parse(r.body.toString("utf8")));
    expect(bodies).toHaveLength(2);
    expect(bodies[1]).toMatchObject({ startTime: first[399]._time, endTime: WINDOW.endTime });
  });

  it("stops on a short page without asking again", async () => {
    const before = em.current.received.length;
    const rows = await collect(
      client.paginate("['pages'] | where i < 2500", { ...WINDOW, order: "asc", pageSize: 1000 }),
    );
    expect(rows).toHaveLength(2500);
    expect(em.current.received.length - before).toBe(3);
  });

  it("stops on an empty page", async () => {
    const before = em.current.received.length;
    const rows = await collect(
      client.paginate("['pages']", { startTime: "2020-01-01T00:00:00Z", endTime: "2020-01-02T00:00:00Z" }),
    );
    expect(rows).toEqual([]);
    expect(em.current.received.length - before).toBe(1);
  });

  it("more rows at one timestamp than a page holds cannot progress: PaginationStalledError, not a silent loss", async () => {
    await expect(
      collect(client.paginate("['pages']", { ...WINDOW, order: "asc", pageSize: 100 })),
    ).rejects.toBeInstanceOf(PaginationStalledError);
  });

  it.each(["asc", "desc"] as const)(
    "onStall: cursor walks on past them by the page's %s cursor: every row once, in order",
    async (order) => {
      const before = em.current.received.length;
      const rows = await collect(
        client.paginate("['pages']", { ...WINDOW, order, pageSize: 100, onStall: "cursor" }),
      );
      expectEachRowOnce(rows, order);
      // Timestamp pages until the 300 rows of one time stall a page of 100, then cursor pages to the end.
      const bodies = em.current.received.slice(before).map((r) => JSON.parse(r.body.toString("utf8")));
      const byCursor = bodies.findIndex((b) => b.cursor !== undefined);
      expect(byCursor).toBeGreaterThan(0);
      expect(bodies.slice(byCursor).every((b) => b.cursor !== undefined)).toBe(true);
      expect(bodies.slice(0, byCursor).every((b) => b.cursor === undefined)).toBe(true);
    },
  );
});

describe("one page", () => {
  it("query: POST /v1/datasets/_apl?format=legacy with apl, times, cursor and includeCursor", async () => {
    const before = em.current.received.length;
    const page = await client.query("['pages'] | where i == 7", { ...WINDOW, includeCursor: false });
    expect(page.matches.map((m) => m.data?.i)).toEqual([7]);
    const [req] = em.current.received.slice(before);
    expect(req).toMatchObject({ method: "POST", path: "/v1/datasets/_apl", query: { format: "legacy" } });
    expect(JSON.parse(req.body.toString("utf8"))).toEqual({
      apl: "['pages'] | where i == 7",
      ...WINDOW,
      includeCursor: false,
    });
  });

  it("query with format tabular returns column-major tables", async () => {
    const before = em.current.received.length;
    const page = await client.query("['pages'] | where i < 3 | project i", { ...WINDOW, format: "tabular" });
    expect(page.format).toBe("tabular");
    const table = page.tables[0];
    expect(table.fields).toBeDefined();
    expect(table.columns).toBeDefined();
    const col = table.fields!.findIndex((f) => f.name === "i");
    expect([...(table.columns![col] as number[])].sort()).toEqual([0, 1, 2]);
    expect(em.current.received.slice(before)[0].query).toEqual({ format: "tabular" });
  });

  it("queryLegacy: POST /v1/datasets/{name}/query with the request body", async () => {
    const before = em.current.received.length;
    const request = { ...WINDOW, limit: 5, order: [{ field: "_time", desc: false }] };
    const page = await client.queryLegacy("pages", request);
    expect(page.matches).toHaveLength(5);
    expect(page.matches.every((m) => m._time === timeOf(0))).toBe(true);
    const [req] = em.current.received.slice(before);
    expect(req).toMatchObject({ method: "POST", path: "/v1/datasets/pages/query" });
    expect(JSON.parse(req.body.toString("utf8"))).toEqual(request);
  });

  it("a bad APL is a BadRequestError carrying the service's message", async () => {
    await expect(client.query("['pages'] | frobnicate", WINDOW)).rejects.toMatchObject({
      name: "BadRequestError",
      status: 400,
      serviceMessage: expect.any(String),
    });
  });
});

interface ScriptedPage {
  rows: [time: string, rowId: string][];
  minCursor?: string;
  maxCursor?: string;
}

/** A server answering `_apl` walks from a script: `answer(body, n)` gives the n-th page (0-based). */
async function scripted(
  answer: (body: { cursor?: string; startTime: string; endTime: string }, n: number) => ScriptedPage,
): Promise<{ client: ObservabilityClient; sent: Record<string, unknown>[]; close(): Promise<void> }> {
  const sent: Record<string, unknown>[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req
      .on("data", (c) => (body += c))
      .on("end", () => {
        const parsed = JSON.parse(body);
        sent.push(parsed);
        const page = answer(parsed, sent.length - 1);
        const status = {
          elapsedTime: 1,
          minCursor: page.minCursor ?? "",
          maxCursor: page.maxCursor ?? "",
          blocksExamined: 0,
          rowsExamined: 0,
          rowsMatched: 0,
          numGroups: 0,
          isPartial: false,
          cacheStatus: 0,
          minBlockTime: "",
          maxBlockTime: "",
        };
        const matches = page.rows.map(([time, id]) => ({
          _time: time,
          _sysTime: time,
          _rowId: id,
          data: {},
        }));
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ status, matches, buckets: { series: [], totals: [] } }));
      });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const client = new ObservabilityClient({
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    token: "t-1234",
    maxRetries: 0,
  });
  return {
    client,
    sent,
    close: async () => {
      await client.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

const T = "2024-01-01T00:00:0";

describe("cursor paging stop rules (scripted server)", () => {
  const rows = (n: number, count: number): ScriptedPage["rows"] =>
    Array.from({ length: count }, (_, k) => [`${T}0Z`, `${n}-${k}`]);
  it.each([
    [
      "stops when the returned cursor equals the one sent",
      [
        ["c1", 2],
        ["c1", 2],
      ],
      2,
      4,
    ],
    [
      "stops on a short page",
      [
        ["c1", 2],
        ["c2", 1],
      ],
      2,
      3,
    ],
    [
      "stops on an empty page",
      [
        ["c1", 2],
        ["c2", 0],
      ],
      2,
      2,
    ],
  ] as [string, [string, number][], number, number][])(
    "%s",
    async (_rule, pages, expectedRequests, expectedRows) => {
      const s = await scripted((_body, n) => {
        const [cursor, count] = pages[Math.min(n, pages.length - 1)];
        return { rows: rows(n, count), minCursor: cursor, maxCursor: cursor };
      });
      const got = await collect(s.client.paginate("['x']", { ...WINDOW, mode: "cursor", pageSize: 2 }));
      await s.close();
      expect(s.sent).toHaveLength(expectedRequests);
      expect(s.sent[0].cursor).toBeUndefined();
      expect(s.sent[1].cursor).toBe("c1");
      expect(got).toHaveLength(expectedRows);
    },
  );

  it("the row a cursor names, sent again by the service, is not yielded twice", async () => {
    // desc: page 1 ends at row b (minCursor b); page 2 starts with b again (as with includeCursor).
    const pages: ScriptedPage[] = [
      {
        rows: [
          [`${T}3Z`, "d"],
          [`${T}2Z`, "b"],
        ],
        minCursor: "b",
        maxCursor: "d",
      },
      {
        rows: [
          [`${T}2Z`, "b"],
          [`${T}1Z`, "a"],
        ],
        minCursor: "a",
        maxCursor: "b",
      },
      { rows: [], minCursor: "a", maxCursor: "a" },
    ];
    const s = await scripted((_body, n) => pages[n]);
    const got = await collect(
      s.client.paginate("['x']", { ...WINDOW, mode: "cursor", order: "desc", pageSize: 2 }),
    );
    await s.close();
    expect(got.map((r) => r._rowId)).toEqual(["d", "b", "a"]);
    expect(s.sent.map((b) => b.cursor)).toEqual([undefined, "b", "a"]);
  });
});

describe("timestamp paging against awkward services (scripted server)", () => {
  it("inclusive bounds: rows beyond the boundary and boundary rows already yielded are dropped", async () => {
    // desc, page 2 repeats a row from before the boundary (3Z) and both rows at it (2Z, ids b1 b2).
    const pages: ScriptedPage["rows"][] = [
      [
        [`${T}4Z`, "e"],
        [`${T}3Z`, "d"],
        [`${T}2Z`, "b2"],
        [`${T}2Z`, "b1"],
      ],
      [
        [`${T}3Z`, "d"],
        [`${T}2Z`, "b2"],
        [`${T}2Z`, "b1"],
        [`${T}2Z`, "b0"],
      ],
      [
        [`${T}2Z`, "b0"],
        [`${T}1Z`, "a"],
      ],
    ];
    const s = await scripted((_body, n) => ({ rows: pages[n] ?? [] }));
    const got = await collect(s.client.paginate("['x']", { ...WINDOW, order: "desc", pageSize: 4 }));
    await s.close();
    expect(got.map((r) => r._rowId)).toEqual(["e", "d", "b2", "b1", "b0", "a"]);
    expect(s.sent.map((b) => b.endTime)).toEqual([WINDOW.endTime, `${T}2Z`, `${T}2Z`]);
  });

  it("a boundary time written differently (offset, fraction digits) is still the same instant", async () => {
    // asc: the service spells 2Z as 2.000000000Z and +00:00 on the next page.
    const pages: ScriptedPage["rows"][] = [
      [
        [`${T}1Z`, "a"],
        [`${T}2Z`, "b1"],
      ],
      [
        [`${T}2.000000000Z`, "b1"],
        [`${T}2+00:00`, "b2"],
      ],
      [
        [`${T}2.0Z`, "b1"],
        [`${T}2.000Z`, "b2"],
        [`${T}3Z`, "c"],
      ],
    ];
    const s = await scripted((_body, n) => ({ rows: pages[n] ?? [] }));
    const got = await collect(s.client.paginate("['x']", { ...WINDOW, order: "asc", pageSize: 2 }));
    await s.close();
    expect(got.map((r) => r._rowId)).toEqual(["a", "b1", "b2", "c"]);
  });

  it("overlapping next() calls still hand out every row once, in order", async () => {
    const pages: ScriptedPage["rows"][] = [
      [
        [`${T}3Z`, "c"],
        [`${T}2Z`, "b"],
      ],
      [[`${T}1Z`, "a"]],
    ];
    const s = await scripted((_body, n) => ({ rows: pages[n] ?? [] }));
    const it = s.client.paginate("['x']", { ...WINDOW, pageSize: 2 })[Symbol.asyncIterator]();
    const results = await Promise.all([it.next(), it.next(), it.next(), it.next(), it.next()]);
    await s.close();
    expect(results.map((r) => (r.done ? "done" : r.value._rowId))).toEqual(["c", "b", "a", "done", "done"]);
    expect(s.sent).toHaveLength(2);
  });

  it("rows of a fetched page are handed out in one microtask turn each (no async generator trip per row)", async () => {
    // Microtask turns are deterministic, unlike wall time: a counter that re-queues itself every turn counts
    // how many turns the consumer spends per row. An async generator yielding each row costs two.
    const rows = Array.from({ length: 1000 }, (_, k): [string, string] => [`${T}1Z`, `r${k}`]);
    const s = await scripted((_body, n) => ({ rows: n === 0 ? rows : [] }));
    const it = s.client.paginate("['x']", { ...WINDOW, pageSize: 2000 })[Symbol.asyncIterator]();
    expect((await it.next()).value).toMatchObject({ _rowId: "r0" });
    let turns = 0;
    let spinning = true;
    const spin = async () => {
      while (spinning) {
        turns++;
        await null;
      }
    };
    void spin();
    let n = 1;
    for (let r = await it.next(); !r.done && n < 1000; r = await it.next()) n++;
    spinning = false;
    await it.return?.(undefined);
    await s.close();
    expect(n).toBe(1000);
    expect(turns / 999).toBeLessThan(1.5);
  });

  it("a row without a string _rowId is an InvalidResponseError naming matches and the row", async () => {
    const s = await scripted(() => ({ rows: [[`${T}1Z`, "a"]] }));
    // Break the second row by hand: the scripted rows always have ids, so serve one that lacks it.
    const bad = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({ status: {}, matches: [{ _time: `${T}1Z`, _rowId: "a" }, { _time: `${T}1Z` }] }),
      );
    });
    await new Promise<void>((r) => bad.listen(0, "127.0.0.1", () => r()));
    const c = new ObservabilityClient({
      url: `http://127.0.0.1:${(bad.address() as AddressInfo).port}`,
      token: "t-1234",
    });
    const error = await collect(c.paginate("['x']", WINDOW)).catch((e: Error) => e);
    await c.close();
    bad.close();
    await s.close();
    expect(error).toMatchObject({ name: "InvalidResponseError", status: 200 });
    expect((error as Error).message).toMatch(/response\.matches: row 1 must have a string _time and _rowId/);
  });

  it("options are checked: missing times and an unknown mode name the option", async () => {
    const s = await scripted(() => ({ rows: [] }));
    await expect(
      collect(s.client.paginate("['x']", { startTime: "now-1h" } as unknown as typeof WINDOW)),
    ).rejects.toThrow(/options\.startTime and options\.endTime are required/);
    await expect(
      collect(s.client.paginate("['x']", { ...WINDOW, mode: "offset" as "cursor" })),
    ).rejects.toThrow(/options\.mode must be timestamp or cursor, got offset/);
    await expect(
      collect(s.client.paginate("['x']", { ...WINDOW, onStall: "skip" as "cursor" })),
    ).rejects.toThrow(/options\.onStall must be throw or cursor, got skip/);
    await s.close();
    expect(s.sent).toHaveLength(0);
  });
});

describe("an APL error through paginate", () => {
  it.each([
    ["on the caller's second line", "['pages']\n| whre x > 1", { line: 2, column: 3 }],
    ["after leading blank lines", "\n\n['pages'] | whre x > 1", { line: 3, column: 13 }],
  ])("%s points where the caller wrote it, as query() does", async (_where, apl, position) => {
    const viaQuery = await client.query(apl, WINDOW).then(
      () => undefined,
      (e: { detail?: unknown }) => e.detail,
    );
    expect(viaQuery).toMatchObject(position);
    const viaPaginate = await collect(client.paginate(apl, WINDOW)).then(
      () => undefined,
      (e: { detail?: unknown }) => e.detail,
    );
    expect(viaPaginate).toMatchObject(position);
  });
});

describe("the APL a paginated walk sends", () => {
  it.each([
    [
      "appends sort and limit when absent",
      "['d']",
      undefined,
      undefined,
      "['d']\n| sort by _time desc\n| limit 1000",
      "desc",
      1000,
    ],
    ["uses the order option", "['d']", "asc", 50, "['d']\n| sort by _time asc\n| limit 50", "asc", 50],
    [
      "keeps the caller's lines as written (leading blank lines too), so an APL error's position is theirs",
      "\n['d']\n| where a > 1  \n",
      undefined,
      undefined,
      "\n['d']\n| where a > 1\n| sort by _time desc\n| limit 1000",
      "desc",
      1000,
    ],
    [
      "keeps an existing sort and takes its order",
      "['d'] | sort by _time asc",
      undefined,
      undefined,
      "['d'] | sort by _time asc\n| limit 1000",
      "asc",
      1000,
    ],
    [
      "sort by _time without a direction is desc",
      "['d'] | sort by _time | take 20",
      undefined,
      undefined,
      "['d'] | sort by _time | take 20",
      "desc",
      20,
    ],
    [
      "keeps an existing limit as the page size",
      "['d'] | sort by _time desc | limit 300",
      "desc",
      undefined,
      "['d'] | sort by _time desc | limit 300",
      "desc",
      300,
    ],
  ] as const)("%s", (_rule, apl, order, size, expected, expectedOrder, expectedSize) => {
    expect(paginationApl(apl, order, size)).toEqual({
      apl: expected,
      order: expectedOrder,
      pageSize: expectedSize,
    });
  });
  it.each([
    [
      "a limit without a sort before it",
      "['d'] | limit 10",
      undefined,
      undefined,
      /no `sort by _time` before it/,
    ],
    [
      "an order that contradicts the APL",
      "['d'] | sort by _time asc",
      "desc",
      undefined,
      /options.order is desc/,
    ],
    [
      "a page size that contradicts the APL limit",
      "['d'] | sort by _time | limit 5",
      undefined,
      6,
      /pageSize is 6/,
    ],
    [
      "a page size that is not a positive integer",
      "['d']",
      undefined,
      0,
      /pageSize must be a positive integer/,
    ],
  ] as const)("refuses %s", (_rule, apl, order, size, message) => {
    expect(() => paginationApl(apl, order, size)).toThrow(message);
  });
});
