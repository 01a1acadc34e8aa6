/**
 * The service's own JavaScript client (`@axiomhq/js` v2) against the emulator: what a real peer sends must
 * work, and what the emulator answers must parse in that peer.
 *
 * What the peer sends (read from node_modules/@axiomhq/js/dist/cjs):
 * - `Authorization: Bearer <token>`, `Accept` and `Content-Type: application/json` on every request (GET and
 *   DELETE included, with no body), `X-Axiom-Client`.
 * - Its org header is `X-Axiom-Org-Id`, the live service's name (the spec's is `x-service-org-id`); the emulator
 *   reads either, so a personal token with `orgId` authenticates. The other tests use an API token.
 * - Ingest: NDJSON (`application/x-ndjson`), gzip-compressed through `CompressionStream`, with
 *   `timestamp-field`, `timestamp-format` and `csv-delimiter` as query parameters, to
 *   `{url}/v1/datasets/{dataset}/ingest`. It swallows ingest errors into `onError` and resolves zero counts.
 * - APL: `POST {url}/v1/datasets/_apl?format=tabular|legacy` (tabular by default) with `{apl, startTime?,
 *   endTime?}`; it puts `cursor` in the query string, where the OpenAPI v2 document does not place it, so cursor paging is
 *   left to our own client. Its `edge`/`edgeUrl` options route to `/v1/ingest/{dataset}` and `/v1/query/_apl`,
 *   endpoints outside the OpenAPI v2 document; they are not used here.
 * - Errors: 401 becomes `Error('forbidden')`, 429 an `AxiomTooManyRequestsError` built from the
 *   `X-RateLimit-*` headers (`X-IngestLimit-*` for `/ingest`, `X-QueryLimit-*` for `/_apl` and `/query`), any
 *   other status >= 400 an `AxiomRequestError` carrying `status` and the body's `message`.
 * - A peer bug: for `/ingest`, `/_apl` and `/query` it calls `headers.get("")` for the scope, which Node's fetch
 *   refuses with a TypeError, so it cannot report a 429 on those paths whatever the server sends. The
 *   `X-IngestLimit-*`/`X-QueryLimit-*` headers on such a 429 are checked in test/emulator/quota.test.ts instead.
 */
import {
  AggregationOp,
  Axiom,
  AxiomWithoutBatching,
  ContentEncoding,
  ContentType,
  FilterOp,
} from "@axiomhq/js";
import type { RunningEmulator } from "../../emulator";
import { api, useEmulator } from "../helpers/emulator";

// Every dataset this file ingests into exists first: the service refuses ingest into a dataset never created
// with 404 (settled.md §1), which axiom-js would swallow into onError and zero counts.
const em = useEmulator({
  record: true,
  datasets: ["peer-a", "peer-b", "peer-basic", "peer-batch", "peer-c", "peer-csv", "peer-q"].concat([
    "peer-raw",
    "peer-single",
    "peer-tsfield",
    "peer-tsformat",
    "peer-x",
    "peer-pat",
    "peer-topk",
  ]),
});

const ALL_TIME = { startTime: "2000-01-01T00:00:00Z", endTime: "now+1h" };

/** A peer client against an emulator; errors the peer would swallow land in `errors`. */
function peer(target: RunningEmulator = em.current, token = target.token, orgId?: string) {
  const errors: unknown[] = [];
  const client = new AxiomWithoutBatching({ token, url: target.url, orgId, onError: (e) => errors.push(e) });
  return { client, errors };
}

/** The requests received on a path since `from` (an index into `received`). */
function receivedOn(path: string, from = 0) {
  return em.current.received.slice(from).filter((r) => r.path === path);
}

async function countOf(dataset: string): Promise<number> {
  const res = await peer().client.query(`['${dataset}'] | summarize count()`, ALL_TIME);
  const table = res.tables[0];
  const col = table.fields.findIndex((f) => f.name === "count_");
  expect(col).toBeGreaterThanOrEqual(0);
  return table.columns![col][0] as number;
}

describe("ingest through the peer", () => {
  it("an array of events lands, sent as gzip NDJSON to the legacy ingest path", async () => {
    const from = em.current.received.length;
    const { client, errors } = peer();
    const res = await client.ingest("peer-basic", [{ a: 1 }, { a: 2, nested: { b: [1, 2] } }, { a: 3 }]);
    expect(errors).toEqual([]);
    expect(res).toMatchObject({ ingested: 3, failed: 0, failures: [], blocksCreated: 0, walLength: 3 });
    expect(res.processedBytes).toBeGreaterThan(0);
    const [req] = receivedOn("/v1/datasets/peer-basic/ingest", from);
    expect(req.headers).toMatchObject({
      "content-type": "application/x-ndjson",
      "content-encoding": "gzip",
      authorization: "[redacted]",
    });
    expect(req.headers["x-service-org-id"]).toBeUndefined();
    expect(await countOf("peer-basic")).toBe(3);
  });

  it("a single object (not an array) is one event", async () => {
    const res = await peer().client.ingest("peer-single", { only: true });
    expect(res).toMatchObject({ ingested: 1, failed: 0 });
  });

  it("timestampField: that field becomes _time", async () => {
    const res = await peer().client.ingest(
      "peer-tsfield",
      [
        { ts: "2021-03-04T05:06:07.123456789Z", n: 1 },
        { ts: 1_600_000_000, n: 2 },
      ],
      { timestampField: "ts" },
    );
    expect(res).toMatchObject({ ingested: 2, failed: 0 });
    const q = await peer().client.query("['peer-tsfield'] | sort by n asc", ALL_TIME);
    const rows = [...q.tables[0].events()];
    expect(rows.map((r) => [r._time, r.n, r.ts])).toEqual([
      ["2021-03-04T05:06:07.123456789Z", 1, undefined],
      ["2020-09-13T12:26:40Z", 2, undefined],
    ]);
  });

  it("timestampField with a Go-layout timestampFormat; an unparseable time is a failure entry", async () => {
    const res = await peer().client.ingest(
      "peer-tsformat",
      [
        { when: "2/Jan/2023:15:04:05 +0000", ok: 1 },
        { when: "yesterday", ok: 0 },
      ],
      { timestampField: "when", timestampFormat: "2/Jan/2006:15:04:05 -0700" },
    );
    expect(res).toMatchObject({ ingested: 1, failed: 1 });
    expect(res.failures).toEqual([{ timestamp: expect.any(String), error: expect.stringMatching(/when/) }]);
    const q = await peer().client.query("['peer-tsformat']", { ...ALL_TIME, format: "legacy" });
    expect(q.matches?.map((m) => [m._time, m.data.ok])).toEqual([["2023-01-02T15:04:05Z", 1]]);
    const [req] = receivedOn("/v1/datasets/peer-tsformat/ingest");
    expect(req.query).toEqual({ "timestamp-field": "when", "timestamp-format": "2/Jan/2006:15:04:05 -0700" });
  });

  it("ingestRaw: a JSON array without compression", async () => {
    const from = em.current.received.length;
    const body = JSON.stringify([{ x: "a" }, { x: "b" }]);
    const res = await peer().client.ingestRaw("peer-raw", body, ContentType.JSON, ContentEncoding.Identity);
    expect(res).toMatchObject({ ingested: 2, failed: 0, processedBytes: Buffer.byteLength(body) });
    expect(receivedOn("/v1/datasets/peer-raw/ingest", from)[0].headers).toMatchObject({
      "content-type": "application/json",
    });
  });

  it("ingestRaw: CSV with the csvDelimiter option; numbers and booleans are typed", async () => {
    const csv = "host;code;up\nweb-1;200;true\nweb-2;503;false\n";
    const res = await peer().client.ingestRaw("peer-csv", csv, ContentType.CSV, ContentEncoding.Auto, {
      csvDelimiter: ";",
    });
    expect(res).toMatchObject({ ingested: 2, failed: 0 });
    const q = await peer().client.query("['peer-csv'] | sort by host asc | project host, code, up", ALL_TIME);
    expect([...q.tables[0].events()]).toEqual([
      { host: "web-1", code: 200, up: true },
      { host: "web-2", code: 503, up: false },
    ]);
  });

  it("the batching client: 2,500 events over several calls all land after flush()", async () => {
    const errors: unknown[] = [];
    const client = new Axiom({
      token: em.current.token,
      url: em.current.url,
      onError: (e) => errors.push(e),
    });
    for (let i = 0; i < 2500; i += 100) {
      client.ingest(
        "peer-batch",
        Array.from({ length: 100 }, (_, j) => ({ i: i + j })),
      );
    }
    await client.flush();
    expect(errors).toEqual([]);
    expect(await countOf("peer-batch")).toBe(2500);
    const q = await peer().client.query(
      "['peer-batch'] | summarize count() by odd = i % 2 == 1 | sort by odd asc",
      ALL_TIME,
    );
    expect(q.tables[0].columns).toEqual([
      [false, true],
      [1250, 1250],
    ]);
  });

  it("an ingest the service refuses reaches the peer's onError as an AxiomRequestError", async () => {
    const { client, errors } = peer();
    const res = await client.ingest("bad dataset name!", [{ a: 1 }]);
    expect(res).toMatchObject({ ingested: 0, failed: 0 });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ name: "AxiomRequestError", status: 400 });
    expect((errors[0] as Error).message).toMatch(/dataset name/);
  });
});

describe("the live service's names, through the peer", () => {
  it("a personal token with orgId: the peer's X-Axiom-Org-Id authenticates, and ingest lands", async () => {
    const from = em.current.received.length;
    const { client, errors } = peer(em.current, em.current.personalToken, em.current.orgId);
    const res = await client.ingest("peer-pat", [{ a: 1 }]);
    expect(errors).toEqual([]);
    expect(res).toMatchObject({ ingested: 1, failed: 0 });
    const [req] = receivedOn("/v1/datasets/peer-pat/ingest", from);
    expect(req.headers["x-axiom-org-id"]).toBe(em.current.orgId);
    expect(await countOf("peer-pat")).toBe(1);
  });

  it("a personal token with another orgId is refused (403) into the peer's onError", async () => {
    const { client, errors } = peer(em.current, em.current.personalToken, "someone-else");
    await client.ingest("peer-pat", [{ a: 1 }]);
    expect(errors).toHaveLength(1);
    expect((errors[0] as { status?: number }).status).toBe(403);
  });

  it("summarize topk(field, k): the peer reads the agg object and the [{key, count, error}] cell", async () => {
    const { client } = peer();
    await client.ingest("peer-topk", [
      { ip: "a" },
      { ip: "b" },
      { ip: "b" },
      { ip: "c" },
      { ip: "b" },
      { ip: "c" },
    ]);
    const res = await client.query("['peer-topk'] | summarize topk(ip, 2)", ALL_TIME);
    const table = res.tables[0];
    expect(table.fields[0].agg).toEqual({ name: AggregationOp.Topk, fields: ["ip"], args: [2] });
    expect([...table.events()]).toEqual([
      {
        topk_ip: [
          { key: "b", count: 3, error: 0 },
          { key: "c", count: 2, error: 0 },
        ],
      },
    ]);
  });

  it("a nested object comes back flattened into dotted field names", async () => {
    const { client } = peer();
    const res = await client.query("['peer-basic'] | where a == 2 | project ['nested.b']", ALL_TIME);
    expect([...res.tables[0].events()]).toEqual([{ "nested.b": [1, 2] }]);
  });
});

describe("queries through the peer", () => {
  const NOW = Date.now();
  const events = Array.from({ length: 20 }, (_, i) => ({
    _time: new Date(NOW - (20 - i) * 60_000).toISOString(),
    i,
    svc: i % 2 ? "api" : "web",
    msg: `req ${i}`,
  }));
  beforeAll(async () => {
    const res = await peer().client.ingest("peer-q", events);
    expect(res.ingested).toBe(20);
  });

  it("APL, tabular (the peer's default): fields, column-major columns and the events() generator", async () => {
    const from = em.current.received.length;
    const q = await peer().client.query("['peer-q'] | where svc == 'api' | sort by i desc | limit 3", {
      startTime: "now-1h",
      endTime: "now",
    });
    expect(q.format).toBe("tabular");
    expect(q.status.rowsMatched).toBe(10);
    expect(q.datasetNames).toEqual(["peer-q"]);
    const table = q.tables[0];
    expect(table.fields.map((f) => f.name)).toEqual(["_time", "_sysTime", "i", "msg", "svc"]);
    expect(table.columns).toHaveLength(table.fields.length);
    expect([...table.events()].map((e) => [e.i, e.svc])).toEqual([
      [19, "api"],
      [17, "api"],
      [15, "api"],
    ]);
    const [req] = receivedOn("/v1/datasets/_apl", from);
    expect(req.query).toEqual({ format: "tabular" });
    expect(JSON.parse(req.body.toString())).toEqual({
      apl: expect.any(String),
      startTime: "now-1h",
      endTime: "now",
    });
  });

  it("APL, legacy format: matches with _time, _sysTime, _rowId and data, plus status cursors", async () => {
    const q = await peer().client.query("['peer-q'] | where i < 2 | sort by _time asc", {
      ...ALL_TIME,
      format: "legacy",
    });
    expect(q.matches?.map((m) => m.data)).toEqual([
      { i: 0, svc: "web", msg: "req 0" },
      { i: 1, svc: "api", msg: "req 1" },
    ]);
    for (const m of q.matches!) {
      expect(m._rowId).toEqual(expect.any(String));
      expect(Date.parse(m._time)).not.toBeNaN();
      expect(Date.parse(m._sysTime)).not.toBeNaN();
    }
    expect(q.status.minCursor <= q.status.maxCursor).toBe(true);
  });

  it("APL summarize count() by field: one group column and one count column", async () => {
    const q = await peer().client.query("['peer-q'] | summarize count() by svc | sort by svc asc", ALL_TIME);
    const table = q.tables[0];
    expect(table.groups).toEqual([{ name: "svc" }]);
    expect([...table.events()]).toEqual([
      { svc: "api", count_: 10 },
      { svc: "web", count_: 10 },
    ]);
  });

  it("queryLegacy: filter tree, ascending order, limit and projection (resolution is accepted)", async () => {
    const q = await peer().client.queryLegacy("peer-q", {
      ...ALL_TIME,
      resolution: "auto",
      filter: {
        op: FilterOp.And,
        field: "",
        children: [
          { op: FilterOp.Equal, field: "svc", value: "web" },
          { op: FilterOp.GreaterThanOrEqualTo, field: "i", value: 10 },
        ],
      },
      order: [{ field: "_time", desc: false }],
      limit: 3,
      project: [{ field: "i", alias: "n" }],
    });
    expect(q.status.rowsMatched).toBe(5);
    expect(q.matches?.map((m) => m.data)).toEqual([{ n: 10 }, { n: 12 }, { n: 14 }]);
    expect(q.buckets).toEqual({ series: [], totals: [] });
  });

  it("a malformed APL query rejects with an AxiomRequestError 400 whose message gives the position", async () => {
    await expect(peer().client.query("['peer-q'] | where (", ALL_TIME)).rejects.toMatchObject({
      name: "AxiomRequestError",
      status: 400,
      message: expect.stringMatching(/line 1, column \d+/),
    });
  });

  it("an unknown dataset rejects with an AxiomRequestError 404", async () => {
    await expect(peer().client.query("['peer-none']", ALL_TIME)).rejects.toMatchObject({
      name: "AxiomRequestError",
      status: 404,
    });
  });

  it("an ingest into a dataset never created is a 404 whose message axiom-js's own helper recognizes", async () => {
    // axiom-js integration/src/testHelpers.ts:3-5 tests /not found/i on the error's message (settled.md §1).
    const { client, errors } = peer();
    await client.ingest("peer-never-created", [{ a: 1 }]);
    expect(errors).toEqual([
      expect.objectContaining({ status: 404, message: expect.stringMatching(/not found/i) }),
    ]);
  });
});

describe("management through the peer", () => {
  it("annotations: create, get, list by datasets and time, update, delete, then 404", async () => {
    const { client } = peer();
    const created = await client.annotations.create({
      type: "deploy",
      datasets: ["peer-a", "peer-b"],
      title: "v1.2.3",
      time: "2024-05-01T10:00:00Z",
      endTime: "2024-05-01T10:05:00Z",
    });
    expect(created).toMatchObject({ id: expect.stringMatching(/^ann_/), type: "deploy", title: "v1.2.3" });
    expect(await client.annotations.get(created.id)).toEqual(created);
    const other = await client.annotations.create({ type: "incident", datasets: ["peer-c"] });

    // The peer joins the datasets array with commas in the query string.
    const listed = await client.annotations.list({
      datasets: ["peer-b", "peer-x"],
      start: "2024-05-01T10:04:00Z",
      end: "2024-05-01T11:00:00Z",
    });
    expect(listed.map((a) => a.id)).toEqual([created.id]);
    expect((await client.annotations.list({ datasets: ["peer-c"] })).map((a) => a.id)).toEqual([other.id]);

    const updated = await client.annotations.update(created.id, { title: "v1.2.4" });
    expect(updated).toEqual({ ...created, title: "v1.2.4" });
    const del = await client.annotations.delete(created.id);
    expect(del.status).toBe(204);
    await expect(client.annotations.get(created.id)).rejects.toMatchObject({
      name: "AxiomRequestError",
      status: 404,
      message: expect.stringMatching(/Not found/),
    });
  });

  it("annotations: a documented rule (type pattern) rejects with 422 naming the field", async () => {
    await expect(
      peer().client.annotations.create({ type: "Not Valid", datasets: ["peer-a"] }),
    ).rejects.toMatchObject({
      name: "AxiomRequestError",
      status: 422,
      message: expect.stringMatching(/type/),
    });
  });

  it("monitors: create, get, list, update by sending back the whole object read, delete", async () => {
    const { client } = peer();
    const created = await client.monitors.create({
      name: "errors",
      type: "Threshold",
      aplQuery: "['peer-q'] | where svc == 'api' | summarize count()",
      operator: "Above",
      threshold: 10,
      intervalMinutes: 5,
      rangeMinutes: 5,
      notifierIDs: [],
    });
    expect(created).toMatchObject({
      id: expect.stringMatching(/^mon_/),
      createdAt: expect.any(String),
      createdBy: expect.any(String),
      notifierIds: [],
    });
    expect(await client.monitors.get(created.id)).toEqual(created);
    expect((await client.monitors.list()).map((m) => m.id)).toContain(created.id);

    const read = await client.monitors.get(created.id);
    const updated = await client.monitors.update(created.id, { ...read, threshold: 20 });
    expect(updated).toEqual({ ...created, threshold: 20 });
    expect((await client.monitors.delete(created.id)).status).toBe(204);
    await expect(client.monitors.get(created.id)).rejects.toMatchObject({ status: 404 });
  });

  it("saved queries: list (with who and limit) and get", async () => {
    const make = (name: string, who: string) =>
      api(em.current, "POST", "/v2/apl-starred-queries", {
        kind: "apl",
        name,
        who,
        dataset: "peer-q",
        metadata: {},
        query: { apl: "['peer-q'] | limit 1" },
      });
    const mine = await make("mine", "local-user");
    const theirs = await make("theirs", "usr_other");
    expect([mine.status, theirs.status]).toEqual([200, 200]);
    const { client } = peer();
    expect((await client.savedQueries.list({ who: "all", limit: 10 })).map((q) => q.name).sort()).toEqual(
      expect.arrayContaining(["mine", "theirs"]),
    );
    expect((await client.savedQueries.list({ who: "usr_other" })).map((q) => q.id)).toEqual([theirs.body.id]);
    const got = await client.savedQueries.get(mine.body.id);
    expect(got).toMatchObject({ id: mine.body.id, kind: "apl", query: { apl: "['peer-q'] | limit 1" } });
  });
});

describe("authentication and limits seen by the peer", () => {
  it("a wrong token rejects with an AxiomRequestError 403 (the documented status), not a bare 'forbidden'", async () => {
    await expect(peer(em.current, "xaat-wrong").client.annotations.list()).rejects.toMatchObject({
      name: "AxiomRequestError",
      status: 403,
      message: expect.stringMatching(/invalid token/),
    });
  });

  describe("with --rate-limit 3", () => {
    const limited = useEmulator({ rateLimit: 3 });
    it("the 4th request in a minute is an AxiomTooManyRequestsError built from the X-RateLimit-* headers", async () => {
      const { client } = peer(limited.current);
      // All four requests must fall in one per-minute window.
      const intoMinute = Date.now() % 60_000;
      if (intoMinute > 55_000) await new Promise((r) => setTimeout(r, 60_500 - intoMinute));
      for (let i = 0; i < 3; i++) await client.annotations.list();
      const err = await client.annotations.list().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toMatchObject({ limit: { type: "api", scope: "organization", value: 3, remaining: 0 } });
      const reset = (err as { limit: { reset: Date } }).limit.reset.getTime();
      expect(reset).toBeGreaterThan(Date.now());
      expect(reset).toBeLessThanOrEqual(Date.now() + 61_000);
    });
  });

  describe("with an ingest quota of 200 bytes and a query quota of 1", () => {
    const quota = useEmulator({ ingestQuotaBytes: 200, queryQuota: 1, datasets: ["q"] });
    it("430 past the ingest quota reaches onError as an AxiomRequestError with the service's message", async () => {
      const { client, errors } = peer(quota.current);
      expect(await client.ingest("q", [{ n: 1 }])).toMatchObject({ ingested: 1 });
      const res = await client.ingest("q", [{ pad: "x".repeat(300) }]);
      expect(res).toMatchObject({ ingested: 0, failed: 0 });
      expect(errors).toEqual([
        expect.objectContaining({
          name: "AxiomRequestError",
          status: 430,
          message: expect.stringMatching(/ingest quota exceeded/),
        }),
      ]);
    });

    it("430 past the query quota rejects the peer's query", async () => {
      const { client } = peer(quota.current);
      await expect(client.query("['q']", ALL_TIME)).resolves.toMatchObject({ format: "tabular" });
      await expect(client.query("['q']", ALL_TIME)).rejects.toMatchObject({
        name: "AxiomRequestError",
        status: 430,
        message: expect.stringMatching(/query quota exceeded/),
      });
    });
  });
});
