/**
 * The aggregation registry through the whole APL query path (POST /v1/datasets/_apl's handler, tabular format):
 * the names and cells a client sees for the reference's aggregations, and the 400 for a bad constant.
 */
import { runAplQuery } from "../../emulator/query";
import { EventStore } from "../../emulator/store/events";

const T0 = 1_704_067_200_000_000_000n; // 2024-01-01T00:00:00Z
const MINUTE = 60_000_000_000n;
const NOW = T0 + 3_600_000_000_000n;

/** sample-http-logs, six requests over three minutes. */
const EVENTS = [
  { method: "GET", status: "200", req_duration_ms: 100, uri: "/home", id: "u1", resp_body_size_bytes: 600 },
  { method: "GET", status: "500", req_duration_ms: 300, uri: "/cart", id: "u1", resp_body_size_bytes: 120 },
  {
    method: "POST",
    status: "200",
    req_duration_ms: 700,
    uri: "/api/login",
    id: "u2",
    resp_body_size_bytes: 60,
  },
  { method: "GET", status: "200", req_duration_ms: 200, uri: "/home", id: "u3", resp_body_size_bytes: 0 },
  {
    method: "POST",
    status: "500",
    req_duration_ms: 1200,
    uri: "/api/cart",
    id: "u2",
    resp_body_size_bytes: null,
  },
  { method: "GET", status: "404", req_duration_ms: 50, uri: "/missing", id: "u4", resp_body_size_bytes: 30 },
];

function store(): EventStore {
  const s = new EventStore();
  s.append(
    "sample-http-logs",
    EVENTS.map((data, i) => ({ timeNs: T0 + BigInt(Math.floor(i / 2)) * MINUTE, data })),
    T0,
  );
  return s;
}

interface Table {
  fields: { name: string }[];
  columns: unknown[][];
}

/** Runs a query over the store and gives its first table as rows of named cells. */
async function query(apl: string): Promise<Record<string, unknown>[]> {
  const res = await runAplQuery(
    store(),
    {
      apl: `['sample-http-logs'] ${apl}`,
      startTime: "2024-01-01T00:00:00Z",
      endTime: "2024-01-01T01:00:00Z",
    },
    "tabular",
    NOW,
  );
  expect(res.status).toBe(200);
  const table = (res.body as { tables: Table[] }).tables[0];
  const names = table.fields.map((f) => f.name);
  const rows = table.columns[0]?.length ?? 0;
  return Array.from({ length: rows }, (_x, r) =>
    Object.fromEntries(names.map((n, c) => [n, table.columns[c][r]])),
  );
}

describe("aggregations through the query path", () => {
  it("count, countif, dcount, sum, avg, min, max, stdev, variance by method", async () => {
    const rows = await query(
      "| summarize count(), countif(status == '500'), dcount(id), sum(req_duration_ms), avg(req_duration_ms), " +
        "min(req_duration_ms), max(req_duration_ms), stdev(req_duration_ms), variance(req_duration_ms) by method",
    );
    expect(rows).toEqual([
      {
        method: "GET",
        count_: 4,
        countif_: 1,
        dcount_id: 3,
        sum_req_duration_ms: 650,
        avg_req_duration_ms: 162.5,
        min_req_duration_ms: 50,
        max_req_duration_ms: 300,
        stdev_req_duration_ms: expect.closeTo(Math.sqrt(36875 / 3), 9),
        variance_req_duration_ms: expect.closeTo(36875 / 3, 6),
      },
      {
        method: "POST",
        count_: 2,
        countif_: 1,
        dcount_id: 1,
        sum_req_duration_ms: 1900,
        avg_req_duration_ms: 950,
        min_req_duration_ms: 700,
        max_req_duration_ms: 1200,
        stdev_req_duration_ms: expect.closeTo(Math.sqrt(125000), 9),
        variance_req_duration_ms: 125000,
      },
    ]);
  });

  it("percentile, percentiles_array, percentileif and topk", async () => {
    const rows = await query(
      "| summarize percentile(req_duration_ms, 50), percentiles_array(req_duration_ms, 25, 95), " +
        "percentileif(req_duration_ms, 90, method == 'GET'), topk(status, 2)",
    );
    expect(rows).toEqual([
      {
        percentile_req_duration_ms_50: 200,
        percentiles_req_duration_ms: [100, 1200],
        percentileif_req_duration_ms_90: 300,
        topk_status: [
          { key: "200", count: 3, error: 0 },
          { key: "500", count: 2, error: 0 },
        ],
      },
    ]);
  });

  it("arg_max with a named column, make_set and make_list_if", async () => {
    const [row] = await query(
      "| summarize arg_max(req_duration_ms, slowest=uri), make_set(method), make_list_if(id, status == '500')",
    );
    expect(row.req_duration_ms).toBe(1200);
    expect(row.slowest).toBe("/api/cart");
    expect((row.make_set_method as string[]).slice().sort()).toEqual(["GET", "POST"]);
    expect((row.make_list_if_id as string[]).slice().sort()).toEqual(["u1", "u2"]);
  });

  it("arg_min(x, *) spreads the row where x is smallest into columns", async () => {
    const [row] = await query("| summarize arg_min(req_duration_ms, *)");
    expect(row).toMatchObject({
      req_duration_ms: 50,
      method: "GET",
      status: "404",
      uri: "/missing",
      id: "u4",
      resp_body_size_bytes: 30,
    });
  });

  it("make-series runs the same accumulators once per bin, the default where a bin has no row", async () => {
    const [row] = await query(
      "| make-series avg(req_duration_ms) default=0, percentile(req_duration_ms, 50) on _time from datetime(2024-01-01) to datetime(2024-01-01T00:04:00Z) step 1m",
    );
    expect(row.avg_req_duration_ms).toEqual([200, 450, 625, 0]);
    expect(row.percentile_req_duration_ms_50).toEqual([100, 200, 50, 0]);
  });

  it("spotlight names its fields after the arguments, and * compares every column", async () => {
    const [row] = await query("| summarize spotlight(status == '500', method, uri)");
    const entries = row.spotlight_ as { field: string; score: number }[];
    expect(entries.map((e) => e.field).sort()).toEqual(["method", "uri"]);
    const [all] = await query("| summarize spotlight(status == '500', *)");
    expect((all.spotlight_ as { field: string }[]).map((e) => e.field)).toContain("req_duration_ms");
  });

  it("two aggregations with one default name keep both columns (x, x1)", async () => {
    const [row] = await query("| summarize arg_max(req_duration_ms, uri), arg_min(req_duration_ms, id)");
    expect(row).toMatchObject({ req_duration_ms: 1200, uri: "/api/cart", req_duration_ms1: 50, id: "u4" });
  });

  it("rate by bin(_time, 1m): the sum per second of each minute", async () => {
    const rows = await query("| summarize rate(resp_body_size_bytes) by bin(_time, 1m)");
    expect(rows).toEqual([
      { _time: "2024-01-01T00:00:00Z", rate_resp_body_size_bytes: 12 },
      { _time: "2024-01-01T00:01:00Z", rate_resp_body_size_bytes: 1 },
      { _time: "2024-01-01T00:02:00Z", rate_resp_body_size_bytes: 0.5 },
    ]);
  });

  it("a bad constant is a 400 that names the aggregation and points at it", async () => {
    const res = await runAplQuery(
      store(),
      { apl: "['sample-http-logs'] | summarize topk(status, 0)" },
      "tabular",
      NOW,
    );
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      message: expect.stringContaining("topk() takes k as a positive integer constant, got 0"),
      detail: { line: 1, column: expect.any(Number), errorType: "semantic" },
    });
    // The registry's message names its function already: the core does not prefix it again.
    expect((res.body as { message: string }).message).not.toContain("topk(): topk()");
  });
});
