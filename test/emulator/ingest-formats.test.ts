/** Ingest over HTTP: every body format, timestamps, failures, limits and reserved names. */
import { gzipSync } from "node:zlib";
import { api, useEmulator } from "../helpers/emulator";

// Every dataset this file ingests into exists first (ingest into one never created is a 404: see
// test/emulator/datasets.test.ts): the `fresh()` names and the csv-delimiter ones.
const em = useEmulator({
  datasets: [
    ...Array.from({ length: 60 }, (_, i) => `ingest-${i + 1}`),
    ...["semicolon", "tab", "pipe"].map((name) => `csv-delim-${name}`),
    "csv-delim",
  ],
});
let seq = 0;
const fresh = () => `ingest-${++seq}`;
const NDJSON = { "content-type": "application/x-ndjson" };
const CSV = { "content-type": "text/csv" };

async function ingest(dataset: string, body: unknown, headers: Record<string, string> = {}, qs = "") {
  return api(em.current, "POST", `/v1/datasets/${dataset}/ingest${qs}`, body, headers);
}

/** Rows of a dataset in (time, arrival) order, through the APL endpoint. */
async function rows(
  dataset: string,
): Promise<{ _time: string; _sysTime: string; data: Record<string, unknown> }[]> {
  const res = await api(em.current, "POST", "/v1/datasets/_apl?format=legacy", {
    apl: `['${dataset}'] | sort by _time asc`,
    startTime: "1970-01-01T00:00:00Z",
    endTime: "now+1d",
  });
  expect(res.status).toBe(200);
  return res.body.matches;
}

function expectResult(body: unknown, ingested: number, failed: number) {
  expect(body).toEqual({
    ingested,
    failed,
    failures: expect.any(Array),
    processedBytes: expect.any(Number),
    blocksCreated: 0,
    walLength: expect.any(Number),
  });
  expect((body as { failures: unknown[] }).failures).toHaveLength(failed);
}

describe("formats", () => {
  it("JSON array (a nested object is stored flattened, its array kept)", async () => {
    const ds = fresh();
    const body = [{ a: 1, nested: { b: [1, 2] } }, { a: 2 }];
    const res = await ingest(ds, body);
    expect(res.status).toBe(200);
    expectResult(res.body, 2, 0);
    expect(res.body.processedBytes).toBe(JSON.stringify(body).length);
    const got = await rows(ds);
    expect(got.map((r) => r.data).sort((x, y) => Number(x.a) - Number(y.a))).toEqual([
      { a: 1, "nested.b": [1, 2] },
      { a: 2 },
    ]);
  });

  it.each([["application/x-ndjson"], ["application/json"]])("NDJSON as %s", async (type) => {
    const ds = fresh();
    const res = await ingest(ds, '{"n":1}\n{"n":2}\r\n\n{"n":3}\n', { "content-type": type });
    expectResult(res.body, 3, 0);
    expect((await rows(ds)).map((r) => r.data.n).sort()).toEqual([1, 2, 3]);
  });

  it("a single pretty-printed object under application/json is one event", async () => {
    const ds = fresh();
    const res = await ingest(ds, '{\n  "a": 1,\n  "b": "x"\n}');
    expectResult(res.body, 1, 0);
  });

  it("CSV: header first, quoted fields, numbers and booleans typed", async () => {
    const ds = fresh();
    const csv =
      'name,count,ok,ratio,note,_time\n"Smith, J",42,true,0.5,"said ""hi""",2024-01-01T00:00:00Z\nbob,-7,false,1e3,,2024-01-01T00:00:01Z\n';
    const res = await ingest(ds, csv, CSV);
    expectResult(res.body, 2, 0);
    const got = await rows(ds);
    expect(got.map((r) => r.data)).toEqual([
      { name: "Smith, J", count: 42, ok: true, ratio: 0.5, note: 'said "hi"' },
      { name: "bob", count: -7, ok: false, ratio: 1000 },
    ]);
    expect(got[0]._time).toBe("2024-01-01T00:00:00Z");
  });

  it("CSV keeps quoted numbers as strings", async () => {
    const ds = fresh();
    await ingest(ds, 'zip,n\n"02134",5\n', CSV);
    expect((await rows(ds))[0].data).toEqual({ zip: "02134", n: 5 });
  });

  it.each([
    ["an integer", "42", 42],
    ["a negative decimal", "-0.5", -0.5],
    ["an exponent", "1e3", 1000],
    ["zero", "0", 0],
    ["a leading zero (zip code)", "02134", "02134"],
    ["a bare fraction", ".5", ".5"],
    ["a trailing dot", "5.", "5."],
    ["a plus sign", "+5", "+5"],
    ["hex", "0x1F", "0x1F"],
    ["true", "true", true],
    ["TRUE (not a JSON boolean)", "TRUE", "TRUE"],
  ])("CSV value %s: %s becomes %p", async (_name, text, value) => {
    const ds = fresh();
    await ingest(ds, `v\n${text}\n`, CSV);
    expect((await rows(ds))[0].data).toEqual({ v: value });
  });

  it("malformed CSV is a 400 naming the problem", async () => {
    const res = await ingest(fresh(), "a,b\n1,2,3\n", CSV);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^request body is not valid CSV: /);
  });

  it.each([
    ["JSON", "application/json", JSON.stringify([{ g: 1 }, { g: 2 }])],
    ["NDJSON", "application/x-ndjson", '{"g":1}\n{"g":2}'],
    ["CSV", "text/csv", "g\n1\n2\n"],
  ])("gzip-encoded %s", async (_name, type, text) => {
    const ds = fresh();
    const res = await ingest(ds, gzipSync(text), { "content-type": type, "content-encoding": "gzip" });
    expectResult(res.body, 2, 0);
    expect((await rows(ds)).map((r) => r.data.g).sort()).toEqual([1, 2]);
  });

  it("bad gzip is a 400", async () => {
    const res = await ingest(fresh(), "not gzip", {
      "content-type": "application/json",
      "content-encoding": "gzip",
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/gzip/);
  });

  it("an unsupported content type is refused with JSON", async () => {
    const res = await ingest(fresh(), "a", { "content-type": "text/plain" });
    expect(res.status).toBe(415);
    expect(res.body.message).toContain("text/plain");
  });

  it("a JSON body that is not an array of objects", async () => {
    expect((await ingest(fresh(), "[1,")).status).toBe(400);
  });
});

describe("timestamps", () => {
  it("_time sets the event time; missing _time gets the receive time; _sysTime is the ingest time", async () => {
    const ds = fresh();
    const before = Date.now();
    await ingest(ds, [{ _time: "2024-03-01T12:00:00.123456789Z", a: 1 }, { a: 2 }]);
    const got = await rows(ds);
    expect(got[0]._time).toBe("2024-03-01T12:00:00.123456789Z");
    expect(got[0].data).toEqual({ a: 1 });
    expect(Date.parse(got[1]._time)).toBeGreaterThanOrEqual(before - 5);
    for (const r of got) {
      expect(Date.parse(r._sysTime)).toBeGreaterThanOrEqual(before - 5);
      expect(Date.parse(r._sysTime)).toBeLessThanOrEqual(Date.now() + 5);
    }
  });

  it.each([
    ["RFC 3339 with offset", "2024-03-01T14:00:00+02:00", "2024-03-01T12:00:00Z"],
    ["ISO 8601 without offset (UTC)", "2024-03-01T12:00:00", "2024-03-01T12:00:00Z"],
    ["ISO 8601 with space", "2024-03-01 12:00:00.5", "2024-03-01T12:00:00.5Z"],
    ["Unix seconds", 1709294400, "2024-03-01T12:00:00Z"],
    ["Unix seconds with fraction", 1709294400.25, "2024-03-01T12:00:00.25Z"],
    ["Unix milliseconds", 1709294400123, "2024-03-01T12:00:00.123Z"],
    ["Unix microseconds", 1709294400123456, "2024-03-01T12:00:00.123456Z"],
    ["Unix nanoseconds", 1709294400123456800, "2024-03-01T12:00:00.1234568Z"],
    ["Unix seconds as a string", "1709294400", "2024-03-01T12:00:00Z"],
  ])("heuristic: %s", async (_name, value, expected) => {
    const ds = fresh();
    const res = await ingest(ds, [{ _time: value }]);
    expectResult(res.body, 1, 0);
    const t = (await rows(ds))[0]._time;
    if (typeof value === "number" && value > 1e17) {
      // A float64 ns value keeps ~16 significant digits; within a microsecond is faithful.
      expect(Math.abs(Date.parse(t) - Date.parse(expected))).toBeLessThanOrEqual(1);
    } else expect(t).toBe(expected);
  });

  it.each([["query parameter"], ["header"]])("timestamp-field as a %s", async (where) => {
    const ds = fresh();
    const qs = where === "query parameter" ? "?timestamp-field=ts" : "";
    const headers: Record<string, string> = where === "header" ? { "timestamp-field": "ts" } : {};
    await ingest(ds, [{ ts: "2022-02-02T02:02:02Z", v: 1 }], headers, qs);
    const got = await rows(ds);
    expect(got[0]._time).toBe("2022-02-02T02:02:02Z");
    expect(got[0].data).toEqual({ v: 1 });
  });

  it.each([["toString"], ["constructor"], ["__proto__"]])(
    "timestamp-field %s, a name Object.prototype has, reads only the event's own field",
    async (field) => {
      const ds = fresh();
      const res = await ingest(
        ds,
        [{}, { [field]: "2022-02-02T02:02:02Z", v: 1 }],
        {},
        `?timestamp-field=${field}`,
      );
      expectResult(res.body, 2, 0);
      expect((await rows(ds)).map((r) => r._time)).toContain("2022-02-02T02:02:02Z");
    },
  );

  it.each([["query parameter"], ["header"]])("timestamp-format (Go layout) as a %s", async (where) => {
    const ds = fresh();
    const layout = "2/Jan/2006:15:04:05 -0700";
    const qs =
      where === "query parameter"
        ? `?timestamp-field=when&timestamp-format=${encodeURIComponent(layout)}`
        : "";
    const headers: Record<string, string> =
      where === "header" ? { "timestamp-field": "when", "timestamp-format": layout } : {};
    const res = await ingest(
      ds,
      [
        { when: "10/Oct/2000:13:55:36 -0700" },
        { when: "2000-10-10T13:55:36Z" },
        { when: "5/Mar/2021:01:02:03 +0000" },
      ],
      headers,
      qs,
    );
    expectResult(res.body, 2, 1);
    expect(res.body.failures[0]).toEqual({
      timestamp: expect.any(String),
      error: expect.stringContaining("when"),
    });
    expect((await rows(ds)).map((r) => r._time)).toEqual(["2000-10-10T20:55:36Z", "2021-03-05T01:02:03Z"]);
  });

  it("an unparseable timestamp is a failure for that event; the others land and the counts add up", async () => {
    const ds = fresh();
    const res = await ingest(ds, [
      { _time: "not a time" },
      { _time: "2024-01-01T00:00:00Z" },
      { _time: true },
      { x: 1 },
    ]);
    expectResult(res.body, 2, 2);
    expect(res.body.ingested + res.body.failed).toBe(4);
    for (const f of res.body.failures) {
      expect(f.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T/);
      expect(f.error).toContain("_time");
    }
    expect(await rows(ds)).toHaveLength(2);
  });
});

describe("failures and limits", () => {
  it("non-object events and bad NDJSON lines are failures; the good ones land", async () => {
    const ds = fresh();
    const res = await ingest(ds, [1, "x", null, [1], { ok: true }]);
    expectResult(res.body, 1, 4);
    const nd = await ingest(ds, '{"ok":1}\n{broken\n{"ok":2}\n', NDJSON);
    expectResult(nd.body, 2, 1);
    expect(nd.body.failures[0].error).toMatch(/^line 2: invalid JSON/);
  });

  it.each([
    ["two objects on one line", '{"a":1}\n{"b":2},{"c":3}\n', 1, 1, ["a"]],
    ["one line that is two numbers", '{"a":1}\n1,2\n', 1, 1, ["a"]],
    [
      "an object split over two lines beside a line of two objects",
      '{"a":[{"b":1}\n{"c":2}]}\n{"d":1},{"e":2}\n{"f":1}\n',
      1,
      3,
      ["f"],
    ],
    ["CRLF line ends and whitespace-only lines", '{"a":1}\r\n   \r\n{"b":2}\r\n', 2, 0, ["a", "b"]],
  ])("NDJSON: %s; each line is one event or one failure", async (_name, body, ingested, failed, keys) => {
    const ds = fresh();
    const res = await ingest(ds, body, NDJSON);
    expectResult(res.body, ingested, failed);
    expect((await rows(ds)).map((r) => Object.keys(r.data)[0])).toEqual(keys);
  });

  it("more than 10,000 events is a 400 and nothing lands", async () => {
    const ds = fresh();
    const ok = await ingest(
      ds,
      Array.from({ length: 10_000 }, (_, i) => ({ i })),
    );
    expectResult(ok.body, 10_000, 0);
    const ds2 = fresh();
    for (const [type, body] of [
      ["application/json", JSON.stringify(Array.from({ length: 10_001 }, (_, i) => ({ i })))],
      ["application/x-ndjson", Array.from({ length: 10_001 }, (_, i) => `{"i":${i}}`).join("\n")],
      ["text/csv", "i\n" + Array.from({ length: 10_001 }, (_, i) => i).join("\n")],
    ]) {
      const res = await ingest(ds2, body, { "content-type": type });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/10001.*10000/);
    }
    const q = await api(em.current, "POST", "/v1/datasets/_apl", { apl: `['${ds2}']` });
    expect(q.status).toBe(200);
    expect(q.body.matches).toEqual([]);
  });

  it("a field name over 200 bytes is a failure; 200 bytes is fine (top level and nested)", async () => {
    const ds = fresh();
    const res = await ingest(ds, [
      { ["k".repeat(200)]: 1 },
      { ["k".repeat(201)]: 1 },
      { nested: { ["é".repeat(101)]: 1 } },
    ]);
    expectResult(res.body, 1, 2);
    expect(res.body.failures[0].error).toContain("200 bytes");
  });

  it("nesting over 100 levels is a failure; 100 is fine", async () => {
    const nest = (depth: number) => {
      let v: unknown = 1;
      for (let i = 0; i < depth; i++) v = { d: v };
      return v;
    };
    const res = await ingest(fresh(), [nest(100), nest(101)]);
    expectResult(res.body, 1, 1);
    expect(res.body.failures[0].error).toContain("100 levels");
  });

  it.each([
    ["starts with underscore", "_private"],
    ["contains a space", "has%20space"],
    ["too long", "d".repeat(129)],
  ])("a bad dataset name (%s) is a 400", async (_name, ds) => {
    const res = await ingest(ds, [{ a: 1 }]);
    expect(res.status).toBe(400);
    expect(res.body.message).toContain("dataset name");
  });

  it("an empty dataset name is a 400", async () => {
    const res = await api(em.current, "POST", "/v1/datasets//ingest", [{ a: 1 }]);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe("dataset name must not be empty");
  });
});

it("reserved field names are renamed to _user_<name>", async () => {
  const ds = fresh();
  const event = { _blockInfo: 1, _cursor: 2, _rowID: 3, _source: 4, _sysTime: 5, keep: 6 };
  await ingest(ds, [event]);
  expect((await rows(ds))[0].data).toEqual({
    _user__blockInfo: 1,
    _user__cursor: 2,
    _user__rowID: 3,
    _user__source: 4,
    _user__sysTime: 5,
    keep: 6,
  });
});

describe("csv-delimiter", () => {
  it.each([
    ["semicolon", ";", "a;b\n1;x\n"],
    ["tab", "\t", "a\tb\n1\tx\n"],
    ["pipe", "|", "a|b\n1|x\n"],
  ])("csv-delimiter %s splits fields", async (name, delimiter, csv) => {
    const res = await api(
      em.current,
      "POST",
      `/v1/datasets/csv-delim-${name}/ingest?csv-delimiter=${encodeURIComponent(delimiter)}`,
      csv,
      { "content-type": "text/csv" },
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ingested: 1, failed: 0 });
    const q = await api(em.current, "POST", `/v1/datasets/csv-delim-${name}/query`, {
      startTime: "2000-01-01T00:00:00Z",
      endTime: "now+1h",
    });
    expect(q.body.matches.map((m: { data: unknown }) => m.data)).toEqual([{ a: 1, b: "x" }]);
  });

  it.each([
    ["two characters", ";;"],
    ["a quote", '"'],
    ["a line break", "\n"],
  ])("csv-delimiter of %s is a 400 naming csv-delimiter", async (_name, delimiter) => {
    const res = await api(
      em.current,
      "POST",
      `/v1/datasets/csv-delim/ingest?csv-delimiter=${encodeURIComponent(delimiter)}`,
      "a,b\n1,2\n",
      { "content-type": "text/csv" },
    );
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 400, message: expect.stringMatching(/^csv-delimiter: /) });
  });
});
