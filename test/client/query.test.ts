/** query, queryLegacy and paginate against a real emulator: every row exactly once, in both orders, by both methods. */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { ObservabilityClient, PaginationStalledError, type Match } from "../../provider/client";
import { paginationApl } from "../../provider/client/query";
import { useEmulator } from "../helpers/emulator";

const em = useEmulator({ record: true });
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
  const ids = rows.map((r) => r.data.i as number);
  expect(rows).toHaveLength(TOTAL);
  expect(new Set(ids).size).toBe(TOTAL);
  expect(new Set(rows.map((r) => r._rowId)).size).toBe(TOTAL);
  for (let k = 1; k < rows.length; k++) {
    const [a, b] = [rows[k - 1]._time, rows[k]._time];
    expect(order === "asc" ? a <= b : a >= b).toBe(true);
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
    expect(requests[0].apl).toBe(`['pages'] | sort by _time ${order} | limit 1000`);
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
});

describe("one page", () => {
  it("query: POST /v1/datasets/_apl?format=legacy with apl, times, cursor and includeCursor", async () => {
    const before = em.current.received.length;
    const page = await client.query("['pages'] | where i == 7", { ...WINDOW, includeCursor: false });
    expect(page.matches.map((m) => m.data.i)).toEqual([7]);
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
    const col = table.fields.findIndex((f) => f.name === "i");
    expect([...(table.columns[col] as number[])].sort()).toEqual([0, 1, 2]);
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

describe("cursor paging stop rules (scripted server)", () => {
  it.each([
    [
      "stops when the returned cursor equals the one sent",
      [
        ["c1", 2],
        ["c1", 2],
      ],
      2,
    ],
    [
      "stops on a short page",
      [
        ["c1", 2],
        ["c2", 1],
      ],
      2,
    ],
    [
      "stops on an empty page",
      [
        ["c1", 2],
        ["c2", 0],
      ],
      2,
    ],
  ] as const)("%s", async (_rule, pages, expectedRequests) => {
    const sent: (string | undefined)[] = [];
    let n = 0;
    const server = createServer((req, res) => {
      let body = "";
      req
        .on("data", (c) => (body += c))
        .on("end", () => {
          sent.push(JSON.parse(body).cursor);
          const [cursor, count] = pages[Math.min(n++, pages.length - 1)];
          const status = {
            elapsedTime: 1,
            minCursor: cursor,
            maxCursor: cursor,
            blocksExamined: 0,
            rowsExamined: 0,
            rowsMatched: 0,
            numGroups: 0,
            isPartial: false,
            cacheStatus: 0,
            minBlockTime: "",
            maxBlockTime: "",
          };
          const matches = Array.from({ length: count }, (_, k) => ({
            _time: "2024-01-01T00:00:00Z",
            _sysTime: "2024-01-01T00:00:00Z",
            _rowId: `${n}-${k}`,
            data: {},
          }));
          res.writeHead(200, { "content-type": "application/json" });
          res.end(JSON.stringify({ status, matches, buckets: { series: [], totals: [] } }));
        });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    const c = new ObservabilityClient({
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      token: "t-1234",
    });
    await collect(c.paginate("['x']", { ...WINDOW, mode: "cursor", pageSize: 2 }));
    await c.close();
    server.close();
    expect(sent).toHaveLength(expectedRequests);
    expect(sent[0]).toBeUndefined();
    expect(sent[1]).toBe("c1");
  });
});

describe("the APL a paginated walk sends", () => {
  it.each([
    [
      "appends sort and limit when absent",
      "['d']",
      undefined,
      undefined,
      "['d'] | sort by _time desc | limit 1000",
      "desc",
      1000,
    ],
    ["uses the order option", "['d']", "asc", 50, "['d'] | sort by _time asc | limit 50", "asc", 50],
    [
      "keeps an existing sort and takes its order",
      "['d'] | sort by _time asc",
      undefined,
      undefined,
      "['d'] | sort by _time asc | limit 1000",
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
