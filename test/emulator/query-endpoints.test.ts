/** Query endpoints over HTTP: both formats, both endpoints, times, limits, status fields and errors. */
import { aplPageLimit, DEFAULT_PAGE_LIMIT, SERVER_PAGE_LIMIT } from "../../emulator/query";
import { LegacyResultSchema, TabularResultSchema } from "../../provider/schemas/query";
import { api, useEmulator } from "../helpers/emulator";

const em = useEmulator({ datasets: ["web", "big"] });
// Ends in .123 s: the service writes times without trailing zeros, so a millisecond ending in 0 would make
// `toISOString()` (always three digits) differ from the response one run in ten.
const NOW_MS = Math.floor(Date.now() / 1000) * 1000 - 877;
const MIN_MS = 60_000;

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** 30 events: ids 0-9 two to three hours old, ids 10-29 within the last hour. */
const WEB = Array.from({ length: 30 }, (_, i) => ({
  _time: iso(i < 10 ? NOW_MS - 3 * 60 * MIN_MS + i * MIN_MS : NOW_MS - 50 * MIN_MS + i * MIN_MS),
  id: i,
  status: i % 5 === 0 ? 500 : 200,
  service: i % 2 ? "api" : "web",
  msg: `Request ${i}`,
}));
const BIG_COUNT = 1500;

async function ingest(dataset: string, events: object[]): Promise<void> {
  const res = await api(
    em.current,
    "POST",
    `/v1/datasets/${dataset}/ingest`,
    events.map((e) => JSON.stringify(e)).join("\n"),
    {
      "content-type": "application/x-ndjson",
    },
  );
  expect(res.status).toBe(200);
  expect(res.body.ingested).toBe(events.length);
}

beforeAll(async () => {
  await ingest("web", WEB);
  const t0 = NOW_MS - 10 * 60 * MIN_MS;
  await ingest(
    "big",
    Array.from({ length: BIG_COUNT }, (_, i) => ({ _time: iso(t0 + i), n: i })),
  );
});

const apl = (body: object, format?: string) =>
  api(em.current, "POST", `/v1/datasets/_apl${format ? `?format=${format}` : ""}`, body);
const legacy = (dataset: string, body: object) =>
  api(em.current, "POST", `/v1/datasets/${dataset}/query`, body);
const ALL_TIME = { startTime: "2000-01-01T00:00:00Z", endTime: "now+1h" };

describe("result shapes", () => {
  it("_apl legacy format: status, matches, buckets, datasetNames, fieldsMetaMap", async () => {
    const res = await apl({ apl: "['web'] | where id == 3" });
    expect(res.status).toBe(200);
    expect(() => LegacyResultSchema.parse(res.body)).not.toThrow();
    expect(res.body.matches).toHaveLength(1);
    const m = res.body.matches[0];
    expect(m).toMatchObject({
      _time: WEB[3]._time.replace(".000Z", "Z"),
      data: { id: 3, status: 200, service: "api" },
    });
    expect(m._rowId).toEqual(expect.any(String));
    expect(res.body.datasetNames).toEqual(["web"]);
    expect(res.body.fieldsMetaMap.web).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: "id", type: "integer" })]),
    );
    expect(res.body.buckets).toEqual({ series: [], totals: [] });
    expect(Object.keys(res.body.status).sort()).toEqual(
      [
        "blocksExamined",
        "cacheStatus",
        "elapsedTime",
        "isPartial",
        "maxBlockTime",
        "maxCursor",
        "minBlockTime",
        "minCursor",
        "numGroups",
        "rowsExamined",
        "rowsMatched",
      ].sort(),
    );
  });

  it("a missing format means legacy", async () => {
    const res = await apl({ apl: "web | limit 1" });
    expect(res.body.matches).toHaveLength(1);
    expect(res.body.format).toBeUndefined();
  });

  it("tabular format: column-major columns aligned with typed fields", async () => {
    const res = await apl(
      { apl: "web | where id < 3 | sort by _time asc | project _time, id, service, ok = status == 200" },
      "tabular",
    );
    expect(res.status).toBe(200);
    expect(() => TabularResultSchema.parse(res.body)).not.toThrow();
    const table = res.body.tables[0];
    expect(table.fields).toEqual([
      { name: "_time", type: "datetime" },
      { name: "id", type: "integer" },
      { name: "service", type: "string" },
      { name: "ok", type: "boolean" },
    ]);
    expect(table.columns).toEqual([
      WEB.slice(0, 3).map((e) => e._time.replace(".000Z", "Z")),
      [0, 1, 2],
      ["web", "api", "web"],
      [false, true, true],
    ]);
    expect(table.sources).toEqual([{ name: "web" }]);
    expect(table.order).toEqual([{ field: "_time", desc: false }]);
    expect(res.body.datasetNames).toEqual(["web"]);
  });

  it("tabular without project lists _time, _sysTime and every field", async () => {
    const res = await apl({ apl: "web | limit 2" }, "tabular");
    expect(res.body.tables[0].fields.map((f: { name: string }) => f.name)).toEqual([
      "_time",
      "_sysTime",
      "id",
      "msg",
      "service",
      "status",
    ]);
    expect(res.body.tables[0].columns.every((c: unknown[]) => c.length === 2)).toBe(true);
  });

  it("legacy endpoint: status, matches and buckets only", async () => {
    const res = await legacy("web", { ...ALL_TIME, limit: 2 });
    expect(res.status).toBe(200);
    expect(() => LegacyResultSchema.parse(res.body)).not.toThrow();
    expect(res.body.matches.map((m: { data: { id: number } }) => m.data.id)).toEqual([29, 28]);
    expect(res.body.datasetNames).toBeUndefined();
  });
});

describe("times", () => {
  it.each([
    ["relative now-1h on _apl", () => apl({ apl: "web", startTime: "now-1h", endTime: "now" }), 20],
    ["relative now-1h on legacy", () => legacy("web", { startTime: "now-1h", endTime: "now" }), 20],
    ["relative now-4h on _apl", () => apl({ apl: "web", startTime: "now-4h", endTime: "now" }), 30],
    ["RFC 3339 start is inclusive", () => apl({ apl: "web", startTime: WEB[29]._time }), 1],
    ["RFC 3339 end is inclusive", () => apl({ apl: "web", endTime: WEB[0]._time }), 1],
    [
      "equal start and end select that instant",
      () => legacy("web", { startTime: WEB[5]._time, endTime: WEB[5]._time }),
      1,
    ],
    [
      "a range before the data is empty",
      () => apl({ apl: "web", startTime: "2000-01-01T00:00:00Z", endTime: "2000-01-02T00:00:00Z" }),
      0,
    ],
  ])("%s", async (_rule, call, count) => {
    const res = await call();
    expect(res.status).toBe(200);
    expect(res.body.matches).toHaveLength(count);
    expect(res.body.status.rowsMatched).toBe(count);
  });
});

describe("page limits", () => {
  const count = async (
    p: Promise<{ status: number; body: { matches: unknown[]; status: { rowsMatched: number } } }>,
  ) => {
    const res = await p;
    expect(res.status).toBe(200);
    expect(res.body.status.rowsMatched).toBe(BIG_COUNT);
    return res.body.matches.length;
  };
  it.each([
    ["no query or request limit gives the default 1,000 (_apl)", () => apl({ apl: "big" }), 1000],
    ["no request limit gives the default 1,000 (legacy)", () => legacy("big", ALL_TIME), 1000],
    ["an APL limit below the default wins", () => apl({ apl: "big | limit 10" }), 10],
    ["an APL limit above the default is honoured", () => apl({ apl: "big | limit 1200" }), 1200],
    ["take is a limit", () => apl({ apl: "big | take 7" }), 7],
    ["the lowest of several APL limits wins", () => apl({ apl: "big | limit 50 | take 20 | limit 30" }), 20],
    [
      "a request limit above the default is honoured (legacy)",
      () => legacy("big", { ...ALL_TIME, limit: 1300 }),
      1300,
    ],
    ["a request limit below the default wins (legacy)", () => legacy("big", { ...ALL_TIME, limit: 3 }), 3],
    ["a request limit below the APL limit wins (_apl)", () => apl({ apl: "big | limit 50", limit: 4 }), 4],
    ["an APL limit below the request limit wins (_apl)", () => apl({ apl: "big | limit 6", limit: 40 }), 6],
    ["a request limit alone sets the page (_apl)", () => apl({ apl: "big", limit: 1500 }), 1500],
  ])("%s", async (_rule, call, expected) => {
    expect(await count(call())).toBe(expected);
  });

  it.each([
    ["server cap applies to APL limits", [100_000], SERVER_PAGE_LIMIT, undefined],
    ["lowest APL limit", [5000, 2000], 2000, undefined],
    ["default without limits", [], DEFAULT_PAGE_LIMIT, undefined],
    ["server cap applies to a request limit", [], SERVER_PAGE_LIMIT, 90_000],
    ["request limit below APL limits", [5000], 300, 300],
  ])("%s", (_rule, limits, expected, requestLimit) => {
    expect(
      aplPageLimit(
        limits.map((n) => ({ op: "limit" as const, n })),
        requestLimit,
      ),
    ).toBe(expected);
  });

  it("the legacy limit is at most 50,000 (a body field: 422)", async () => {
    const res = await legacy("big", { ...ALL_TIME, limit: 50_001 });
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(/^limit: /);
  });
});

describe("status cursors and counts", () => {
  it("descending page: minCursor is the last (oldest) row, maxCursor the first", async () => {
    const res = await apl({ apl: "web | where status == 200 | sort by _time desc | limit 5" });
    const rowIds = res.body.matches.map((m: { _rowId: string }) => m._rowId);
    expect(rowIds).toEqual([...rowIds].sort().reverse());
    expect(res.body.status).toMatchObject({ minCursor: rowIds[4], maxCursor: rowIds[0], rowsMatched: 24 });
  });

  it("ascending page: minCursor is the first row, maxCursor the last", async () => {
    const res = await apl({ apl: "web | sort by _time asc | limit 4" });
    const rowIds = res.body.matches.map((m: { _rowId: string }) => m._rowId);
    expect(rowIds).toEqual([...rowIds].sort());
    expect(res.body.status).toMatchObject({ minCursor: rowIds[0], maxCursor: rowIds[3], rowsMatched: 30 });
  });

  it("cursor excludes the named row by default, includeCursor includes it", async () => {
    const first = await apl({ apl: "web | limit 3" });
    const cursor = first.body.matches[1]._rowId;
    const next = await apl({ apl: "web | limit 2", cursor });
    expect(next.body.matches.map((m: { data: { id: number } }) => m.data.id)).toEqual([27, 26]);
    const incl = await apl({ apl: "web | limit 2", cursor, includeCursor: true });
    expect(incl.body.matches.map((m: { data: { id: number } }) => m.data.id)).toEqual([28, 27]);
    const asc = await legacy("web", {
      ...ALL_TIME,
      order: [{ field: "_time", desc: false }],
      limit: 2,
      cursor,
    });
    expect(asc.body.matches.map((m: { data: { id: number } }) => m.data.id)).toEqual([29]);
  });

  it("an empty page echoes the cursor sent, or empty strings without one", async () => {
    const none = await apl({ apl: "web | where id > 100" });
    expect(none.body.status).toMatchObject({ minCursor: "", maxCursor: "", rowsMatched: 0 });
    const oldest = await apl({ apl: "web | sort by _time asc | limit 1" });
    const cursor = oldest.body.matches[0]._rowId;
    const end = await apl({ apl: "web | limit 10", cursor });
    expect(end.body.matches).toEqual([]);
    expect(end.body.status).toMatchObject({ minCursor: cursor, maxCursor: cursor });
  });
});

describe("legacy filter, order and project", () => {
  const ids = async (body: object) => {
    const res = await legacy("web", { ...ALL_TIME, ...body });
    expect(res.status).toBe(200);
    return res.body.matches.map((m: { data: { id: number } }) => m.data.id);
  };
  it.each([
    ["== matches equal values", { op: "==", field: "id", value: 3 }, [3]],
    [
      "!= excludes equal values",
      {
        op: "and",
        children: [
          { op: "<", field: "id", value: 3 },
          { op: "!=", field: "id", value: 1 },
        ],
      },
      [2, 0],
    ],
    [
      ">= and <= bound a range",
      {
        op: "and",
        children: [
          { op: ">=", field: "id", value: 27 },
          { op: "<=", field: "id", value: 28 },
        ],
      },
      [28, 27],
    ],
    [
      "> and < are strict",
      {
        op: "and",
        children: [
          { op: ">", field: "id", value: 26 },
          { op: "<", field: "id", value: 29 },
        ],
      },
      [28, 27],
    ],
    [
      "or takes either",
      {
        op: "or",
        children: [
          { op: "==", field: "id", value: 1 },
          { op: "==", field: "id", value: 2 },
        ],
      },
      [2, 1],
    ],
    [
      "not negates its child",
      {
        op: "and",
        children: [
          { op: "<", field: "id", value: 4 },
          { op: "not", children: [{ op: "==", field: "service", value: "api" }] },
        ],
      },
      [2, 0],
    ],
    [
      "contains is case-insensitive",
      { op: "contains", field: "msg", value: "REQUEST 2" },
      [29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 2],
    ],
    [
      "contains with caseSensitive",
      { op: "contains", field: "msg", value: "REQUEST", caseSensitive: true },
      [],
    ],
    [
      "starts-with",
      { op: "starts-with", field: "msg", value: "request 1" },
      [19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 1],
    ],
    ["_time compares with RFC 3339", { op: ">=", field: "_time", value: WEB[28]._time }, [29, 28]],
    [
      "exists",
      {
        op: "and",
        children: [
          { op: "exists", field: "msg" },
          { op: "==", field: "id", value: 9 },
        ],
      },
      [9],
    ],
  ])("%s", async (_rule, filter, expected) => {
    expect(await ids({ filter })).toEqual(expected);
  });

  it.each([
    ["unknown op", { op: "regexp-ish", field: "a", value: 1 }, "filter.op"],
    [
      "nested unknown op",
      { op: "and", children: [{ op: "==", field: "id", value: 1 }, { op: "~" }] },
      "filter.children[1].op",
    ],
    ["missing field", { op: "==", value: 1 }, "filter.field"],
    ["children not a list", { op: "or", children: 3 }, "filter.children"],
    ["non-string value for contains", { op: "contains", field: "msg", value: 3 }, "filter.value"],
  ])("bad filter (%s) is a 422 naming %s", async (_rule, filter, property) => {
    const res = await legacy("web", { ...ALL_TIME, filter });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 422 });
    expect(res.body.message.startsWith(`${property}:`)).toBe(true);
  });

  it("order by a field ascending, then project with an alias", async () => {
    const res = await legacy("web", {
      ...ALL_TIME,
      order: [
        { field: "status", desc: true },
        { field: "id", desc: false },
      ],
      project: ["id", { field: "service", alias: "svc" }],
      limit: 3,
    });
    expect(res.body.matches.map((m: { data: object }) => m.data)).toEqual([
      { id: 0, svc: "web" },
      { id: 5, svc: "api" },
      { id: 10, svc: "web" },
    ]);
  });
});

describe("errors", () => {
  it("a malformed query is a 400 with line and column", async () => {
    const res = await apl({ apl: "web\n| where id ==\n| limit 1" });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 400, detail: { line: 3, column: 1, errorType: "syntax" } });
    expect(res.body.message).toMatch(/^apl: /);
  });

  it.each([
    ["_apl", () => apl({ apl: "['nope'] | limit 1" })],
    ["legacy", () => legacy("nope", ALL_TIME)],
  ])("an unknown dataset is a 404 naming it (%s)", async (_endpoint, call) => {
    const res = await call();
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 404, message: expect.stringContaining('"nope"') });
  });

  // A body field missing or invalid answers 422 (alchemy-run/distilled `packages/axiom/patches/v2/001-add-error-responses.patch.json`, live probes); a bad query
  // string parameter stays 400.
  it.each([
    ["unknown format (query string)", () => apl({ apl: "web" }, "csv"), /^format: /, 400],
    ["apl missing", () => apl({}), /^apl: /, 422],
    ["apl not a string", () => apl({ apl: 5 }), /^apl: /, 422],
    ["bad startTime", () => apl({ apl: "web", startTime: "yesterday" }), /^startTime: /, 422],
    [
      "startTime after endTime",
      () => apl({ apl: "web", startTime: "now", endTime: "now-1h" }),
      /^startTime: /,
      422,
    ],
    ["includeCursor not a boolean", () => apl({ apl: "web", includeCursor: "yes" }), /^includeCursor: /, 422],
    ["legacy startTime missing", () => legacy("web", { endTime: "now" }), /startTime: /, 422],
    [
      "legacy order entry without desc",
      () => legacy("web", { ...ALL_TIME, order: [{ field: "id" }] }),
      /^order\[0\]\.desc: /,
      422,
    ],
    ["legacy bad project entry", () => legacy("web", { ...ALL_TIME, project: [5] }), /^project\[0\]: /, 422],
  ])("%s is a %s naming the field", async (_rule, call, message, status) => {
    const res = await call();
    expect(res.status).toBe(status);
    expect(res.body.code).toBe(status);
    expect(res.body.message).toMatch(message);
  });
});

describe("regexes never stall (issue 45): RE2, linear in the subject", () => {
  const subject = `${"a".repeat(50_000)}!`;

  it("the legacy regexp filter answers (a+)+$ over a long field at once", async () => {
    const s = new (await import("../../emulator/store/events")).EventStore();
    s.append("r", [{ timeNs: 1_000_000_000n, data: { msg: subject } }], 1_000_000_000n);
    const { runLegacyQuery } = await import("../../emulator/query");
    const started = process.hrtime.bigint();
    const res = await runLegacyQuery(s, "r", {
      startTime: "1970-01-01T00:00:00Z",
      endTime: "1970-01-01T00:00:02Z",
      filter: { op: "regexp", field: "msg", value: "(a+)+$" },
    });
    expect(res.status).toBe(200);
    expect((res.body as { matches: unknown[] }).matches).toEqual([]);
    // V8's backtracking engine stalls for minutes at 35 characters; RE2 takes milliseconds at 50,000.
    expect(Number(process.hrtime.bigint() - started) / 1e9).toBeLessThan(10);
  });

  it("APL's matches regex and parse kind=regex answer it at once too", async () => {
    const s = new (await import("../../emulator/store/events")).EventStore();
    s.append("r", [{ timeNs: 1_000_000_000n, data: { msg: subject } }], 1_000_000_000n);
    const { runAplQuery } = await import("../../emulator/query");
    const started = process.hrtime.bigint();
    const where = await runAplQuery(s, { apl: "r | where msg matches regex '(a+)+$' | count" }, "tabular");
    const parse = await runAplQuery(
      s,
      { apl: "r | parse kind=regex msg with '(a+)+$' x | count" },
      "tabular",
    );
    expect([where.status, parse.status]).toEqual([200, 200]);
    expect(Number(process.hrtime.bigint() - started) / 1e9).toBeLessThan(10);
  });
});
