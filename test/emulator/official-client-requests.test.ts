/**
 * Request bodies as the service's official clients serialize them, sent to the emulator, which must take them as
 * the real service does: null means absent, Go's and Terraform's zero values mean unset, and ingest may be zstd.
 * Each row names the client behaviour it models and, in its comment, where that body shape comes from. The API reference's
 * rules still hold for every value actually given: the last block shows those 422s, each naming the field.
 */
import { gzipSync, zstdCompressSync } from "node:zlib";
import { api, useEmulator } from "../helpers/emulator";

const em = useEmulator({ maxBodyBytes: 64 * 1024, datasets: ["legacy", "legacy2", "zstd"] });
const ZERO = "0001-01-01T00:00:00Z";

/** What axiom-go's `Monitor` struct puts on the wire for fields the caller left unset (axiom-go axiom/monitors.go:
 * no omitempty on createdAt, createdBy, updatedAt, notifierIDs, operator, disabledUntil, threshold). */
const GO_MONITOR_ZEROES = {
  createdAt: ZERO,
  createdBy: "",
  updatedAt: ZERO,
  notifierIDs: null,
  disabled: false,
  disabledUntil: ZERO,
  alertOnNoData: false,
  notifyByGroup: false,
  resolvable: false,
  threshold: 0,
};

describe("monitors", () => {
  it("Go client: notifierIDs null (axiom-go axiom/monitors_integration_test.go SetupTest, no notifiers)", async () => {
    const res = await api(em.current, "POST", "/v2/monitors", {
      ...GO_MONITOR_ZEROES,
      name: "Test Monitor",
      type: "Threshold",
      aplQuery: "['logs'] | summarize count()",
      description: "A test monitor",
      intervalMinutes: 1,
      rangeMinutes: 5,
      operator: "BelowOrEqual",
      threshold: 1,
      secondDelay: 10,
      notifyEveryRun: true,
      triggerFromNRuns: 3,
      triggerAfterNPositiveResults: 2,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ notifierIds: [], disabledUntil: null, secondDelay: 10 });
    expect(res.body.createdAt).not.toBe(ZERO);
    expect(res.body.notifierIDs).toBeUndefined();
  });

  it("JavaScript caller: notifierIds null on PUT means none", async () => {
    const created = await api(em.current, "POST", "/v2/monitors", {
      name: "js",
      type: "MatchEvent",
      aplQuery: "['logs']",
    });
    const put = await api(em.current, "PUT", `/v2/monitors/${created.body.id}`, {
      ...created.body,
      notifierIds: null,
      description: null,
      columnName: null,
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ notifierIds: [], description: "", columnName: "" });
  });

  it('Terraform: MatchEvent monitor with operator "" (terraform-provider-axiom axiom/resource_monitor.go buildMonitor, provider_test.go type = "MatchEvent")', async () => {
    const n = await api(em.current, "POST", "/v2/notifiers", {
      name: "slack",
      properties: { slack: { slackUrl: "https://hooks.slack.com/services/T/B/X" } },
    });
    const res = await api(em.current, "POST", "/v2/monitors", {
      ...GO_MONITOR_ZEROES,
      name: "match",
      type: "MatchEvent",
      aplQuery: "['logs'] | where level == 'error'",
      operator: "",
      intervalMinutes: 5,
      rangeMinutes: 5,
      notifierIDs: [n.body.id],
      tolerance: 0,
      compareDays: 0,
    });
    expect(res.status).toBe(200);
    expect(res.body.operator).toBeUndefined();
    expect(res.body.notifierIds).toEqual([n.body.id]);
  });

  it("both spellings: notifierIds null beside axiom-go's notifierIDs list keeps the list (a Go-shaped body re-sent with the documented field added)", async () => {
    const n = await api(em.current, "POST", "/v2/notifiers", {
      name: "slack-2",
      properties: { slack: { slackUrl: "https://hooks.slack.com/services/T/B/Y" } },
    });
    const body = { name: "both", type: "MatchEvent", aplQuery: "['logs']" };
    const res = await api(em.current, "POST", "/v2/monitors", {
      ...body,
      notifierIds: null,
      notifierIDs: [n.body.id],
    });
    expect(res.status).toBe(200);
    expect(res.body.notifierIds).toEqual([n.body.id]);
  });

  it("Go client: the monitor it read, sent back with Disabled set (axiom-go monitors_integration_test.go TestCreateMatchMonitor)", async () => {
    const created = await api(em.current, "POST", "/v2/monitors", {
      ...GO_MONITOR_ZEROES,
      name: "match-2",
      type: "MatchEvent",
      aplQuery: "['logs']",
      operator: "",
      intervalMinutes: 1,
      rangeMinutes: 10,
    });
    const { notifierIds, ...asGoReadsIt } = created.body;
    const put = await api(em.current, "PUT", `/v2/monitors/${created.body.id}`, {
      ...asGoReadsIt,
      notifierIDs: notifierIds.length === 0 ? null : notifierIds,
      operator: "",
      disabled: true,
      updatedAt: ZERO,
    });
    expect(put.status).toBe(200);
    expect(put.body.disabled).toBe(true);
  });
});

describe("annotations", () => {
  it("Python client: create with description, endTime, title, url and time as None (axiom-py src/axiom_py/annotations.py AnnotationCreateRequest, asdict)", async () => {
    const before = Date.now();
    const res = await api(em.current, "POST", "/v2/annotations", {
      datasets: ["web"],
      time: null,
      endTime: null,
      title: null,
      description: null,
      url: null,
      type: "deploy",
    });
    expect(res.status).toBe(201);
    expect(Date.parse(res.body.time)).toBeGreaterThanOrEqual(before - 1000);
    for (const k of ["endTime", "title", "description", "url"])
      expect(res.body[k] ?? undefined).toBeUndefined();
  });

  it("Python client: update with every field it does not change as None leaves those fields (AnnotationUpdateRequest)", async () => {
    const created = await api(em.current, "POST", "/v2/annotations", {
      datasets: ["web"],
      type: "deploy",
      title: "v1",
      description: "first",
      time: "2024-01-01T00:00:00Z",
      endTime: "2024-01-01T01:00:00Z",
    });
    const put = await api(em.current, "PUT", `/v2/annotations/${created.body.id}`, {
      datasets: null,
      time: null,
      endTime: null,
      title: "v2",
      description: null,
      url: null,
      type: null,
    });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ ...created.body, title: "v2" });
  });

  it("Go client: the zero time for time and endTime means unset (axiom-go axiom/annotations.go Annotation, time.Time{})", async () => {
    const res = await api(em.current, "POST", "/v2/annotations", {
      id: "",
      datasets: ["web"],
      type: "mark",
      time: ZERO,
      endTime: ZERO,
      title: "",
    });
    expect(res.status).toBe(201);
    expect(res.body.time).not.toBe(ZERO);
    expect(res.body.endTime).toBeUndefined();
  });
});

describe("notifiers", () => {
  it("Go client: custom webhook with nil Headers (axiom-go axiom/notifiers.go CustomWebhook has no JSON tags)", async () => {
    const res = await api(em.current, "POST", "/v2/notifiers", {
      name: "go-hook",
      properties: {
        customWebhook: { URL: "https://hooks.example.com/x", Headers: null, Body: '{"a":1}' },
      },
      disabledUntil: ZERO,
    });
    expect(res.status).toBe(200);
    expect(res.body.properties).toEqual({
      customWebhook: { url: "https://hooks.example.com/x", body: '{"a":1}' },
    });
  });

  it("Python client: custom webhook with headers and secretHeaders as None (axiom-py dataclasses, asdict)", async () => {
    const res = await api(em.current, "POST", "/v2/notifiers", {
      name: "py-hook",
      properties: {
        customWebhook: { url: "https://hooks.example.com/y", body: "{}", headers: null, secretHeaders: null },
        slack: null,
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.properties).toEqual({
      customWebhook: { url: "https://hooks.example.com/y", body: "{}" },
    });
  });
});

describe("roles and starred queries", () => {
  it("JavaScript caller: a role capability as null means that capability is not granted", async () => {
    const res = await api(em.current, "POST", "/v2/rbac/roles", {
      name: "nested-nulls",
      orgCapabilities: { apiTokens: null, datasets: ["read"] },
      datasetCapabilities: { logs: { query: ["read"], ingest: null }, gone: null },
    });
    expect(res.status).toBe(200);
    expect(res.body.orgCapabilities).toEqual({ datasets: ["read"] });
    expect(res.body.datasetCapabilities).toEqual({ logs: { query: ["read"] } });
  });

  it("JavaScript caller: role with description, members and capabilities null", async () => {
    const res = await api(em.current, "POST", "/v2/rbac/roles", {
      name: "nulls",
      description: null,
      members: null,
      orgCapabilities: null,
      datasetCapabilities: null,
      viewCapabilities: null,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: res.body.id, name: "nulls" });
  });

  it("JavaScript caller: starred query with dataset and query options null", async () => {
    const res = await api(em.current, "POST", "/v2/apl-starred-queries", {
      kind: "apl",
      name: "nulls",
      who: "local-user",
      dataset: null,
      metadata: {},
      query: { apl: "['web']", cursor: null, startTime: null, endTime: null, queryOptions: null },
    });
    expect(res.status).toBe(200);
    expect(res.body.query).toEqual({ apl: "['web']" });
  });
});

describe("legacy query", () => {
  beforeAll(async () => {
    const events = Array.from({ length: 5 }, (_, i) => ({ _time: `2024-01-01T00:00:0${i}Z`, n: i }));
    const res = await api(em.current, "POST", "/v1/datasets/legacy/ingest", events);
    expect(res.body.ingested).toBe(5);
  });
  const window = { startTime: "2024-01-01T00:00:00Z", endTime: "2024-01-02T00:00:00Z" };

  it("Go client: every unset field as its zero value (axiom-go axiom/querylegacy/query.go Query, filter.go Filter)", async () => {
    const res = await api(em.current, "POST", "/v1/datasets/legacy/query", {
      ...window,
      resolution: "auto",
      aggregations: null,
      groupBy: null,
      filter: { op: "", field: "", value: null, caseSensitive: false, children: null },
      order: null,
      limit: 0,
      virtualFields: null,
      project: null,
      cursor: "",
      includeCursor: false,
      continuationToken: "",
    });
    expect(res.status).toBe(200);
    // limit 0 is the default page, not an empty one; the default order is _time descending.
    expect(res.body.matches.map((m: { data: { n: number } }) => m.data.n)).toEqual([4, 3, 2, 1, 0]);
  });

  it("Python client: order, project, cursor, filter, aggregations and groupBy as None (axiom-py src/axiom_py/query/query.py QueryLegacy)", async () => {
    const res = await api(em.current, "POST", "/v1/datasets/legacy/query", {
      ...window,
      resolution: "auto",
      aggregations: null,
      groupBy: null,
      filter: null,
      order: null,
      limit: null,
      virtualFields: null,
      project: null,
      cursor: null,
      includeCursor: null,
    });
    expect(res.status).toBe(200);
    expect(res.body.matches).toHaveLength(5);
  });
});

describe("legacy query projection and filters", () => {
  beforeAll(async () => {
    const events = [
      { _time: "2024-02-01T00:00:00Z", path: "/api/v1/users", n: 1 },
      { _time: "2024-02-01T00:00:01Z", path: "/static/app.js", n: 2 },
      { _time: "2024-02-01T00:00:02Z", path: "/API/v2/orders", n: 3 },
    ];
    const res = await api(em.current, "POST", "/v1/datasets/legacy2/ingest", events);
    expect(res.body.ingested).toBe(3);
  });
  const window = { startTime: "2024-02-01T00:00:00Z", endTime: "2024-02-02T00:00:00Z" };
  const query = (body: Record<string, unknown>) =>
    api(em.current, "POST", "/v1/datasets/legacy2/query", { ...window, ...body });
  const ns = (res: { body: { matches: { data: { n: number } }[] } }) =>
    res.body.matches.map((m) => m.data.n).sort();

  it('Go client: a projection with alias "" keeps the field\'s name (axiom-go axiom/querylegacy/query.go Projection, no omitempty)', async () => {
    const res = await query({ project: [{ field: "path", alias: "" }] });
    expect(res.status).toBe(200);
    expect(res.body.matches[0].data).toEqual({ path: "/API/v2/orders" });
  });

  it("Python client: a projection with alias None keeps the field's name (axiom-py src/axiom_py/query/query.py Projection)", async () => {
    const res = await query({
      project: [
        { field: "n", alias: null },
        { field: "path", alias: "p" },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.matches[0].data).toEqual({ n: 3, p: "/API/v2/orders" });
  });

  it("Python client: a filter with caseSensitive None is case-insensitive (axiom-py src/axiom_py/query/filter.py)", async () => {
    const res = await query({
      filter: { op: "starts-with", field: "path", value: "/api", caseSensitive: null, children: null },
    });
    expect(res.status).toBe(200);
    expect(ns(res)).toEqual([1, 3]);
  });

  it("Go client: regexp and not-regexp filters (axiom-go axiom/querylegacy/filter.go OpRegexp, OpNotRegexp)", async () => {
    const re = await query({
      filter: { op: "regexp", field: "path", value: "^/api/v\\d+/", caseSensitive: true },
    });
    expect(re.status).toBe(200);
    expect(ns(re)).toEqual([1]);
    const insensitive = await query({ filter: { op: "regexp", field: "path", value: "^/api/v\\d+/" } });
    expect(ns(insensitive)).toEqual([1, 3]);
    const not = await query({ filter: { op: "not-regexp", field: "path", value: "\\.js$" } });
    expect(ns(not)).toEqual([1, 3]);
  });

  it.each([
    ["an invalid pattern", "(unclosed", /filter\.children\[0\]\.value: is not a valid regular expression/],
    ["an empty pattern", "", /filter\.children\[0\]\.value: must be a non-empty pattern/],
    [
      "a pattern past the length cap",
      "a".repeat(1025),
      /filter\.children\[0\]\.value: must be a pattern of at most 1024/,
    ],
  ])("regexp with %s is a 422 naming the filter's value", async (_what, value, message) => {
    const res = await query({ filter: { op: "and", children: [{ op: "regexp", field: "path", value }] } });
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(message);
  });
});

describe("ingest compressions", () => {
  const ndjson = Buffer.from('{"a":1}\n{"a":2}\n{"a":3}\n');

  it("Go client: Content-Encoding zstd, its default (axiom-go axiom/datasets.go ContentEncoding Zstd)", async () => {
    const res = await api(em.current, "POST", "/v1/datasets/zstd/ingest", zstdCompressSync(ndjson), {
      "content-type": "application/x-ndjson",
      "content-encoding": "zstd",
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ingested: 3, failed: 0 });
  });

  it.each([
    ["zstd", zstdCompressSync],
    ["gzip", gzipSync],
  ])("%s: a small body that decompresses past the limit is a 413", async (encoding, compress) => {
    const bomb = compress(Buffer.alloc(256 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(64 * 1024);
    const res = await api(em.current, "POST", "/v1/datasets/zstd/ingest", bomb, {
      "content-type": "application/x-ndjson",
      "content-encoding": encoding,
    });
    expect(res.status).toBe(413);
    expect(res.body.message).toMatch(/larger than 65536 bytes once/);
  });

  it("zstd: a body that is not zstd is a 400 naming the encoding", async () => {
    const res = await api(em.current, "POST", "/v1/datasets/zstd/ingest", ndjson, {
      "content-type": "application/x-ndjson",
      "content-encoding": "zstd",
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/not valid zstd/);
  });
});

describe("still strict where the API reference is", () => {
  const monitor = { name: "m", type: "Threshold", aplQuery: "['logs']", operator: "Above", threshold: 1 };
  it.each<[string, string, string, Record<string, unknown>, RegExp]>([
    [
      'Threshold monitor with operator "" still needs an operator',
      "POST",
      "/v2/monitors",
      { ...monitor, operator: "" },
      /operator: is required when type is Threshold/,
    ],
    [
      "intervalMinutes 0 is below the documented minimum of 1",
      "POST",
      "/v2/monitors",
      { ...monitor, intervalMinutes: 0 },
      /intervalMinutes: must be at least 1/,
    ],
    [
      "compareDays 8 is above the documented maximum of 7",
      "POST",
      "/v2/monitors",
      { ...monitor, compareDays: 8 },
      /compareDays: must be at most 7/,
    ],
    [
      "a required name as null is named",
      "POST",
      "/v2/monitors",
      { ...monitor, name: null },
      /name: must not be null/,
    ],
    [
      "an unknown operator is named",
      "POST",
      "/v2/monitors",
      { ...monitor, operator: "Sideways" },
      /operator: must be one of/,
    ],
    [
      "annotation datasets null on create (required)",
      "POST",
      "/v2/annotations",
      { datasets: null, type: "deploy" },
      /datasets: must not be null/,
    ],
    [
      "annotation type with capitals",
      "POST",
      "/v2/annotations",
      { datasets: ["web"], type: "Deploy", title: null },
      /type: must match/,
    ],
    [
      "legacy limit above 50000",
      "POST",
      "/v1/datasets/legacy/query",
      { startTime: "now-1h", endTime: "now", limit: 50001 },
      /limit: must be at most 50000/,
    ],
    [
      "legacy filter with a field but no op is not Go's zero filter",
      "POST",
      "/v1/datasets/legacy/query",
      { startTime: "now-1h", endTime: "now", filter: { op: "", field: "a", value: 1 } },
      /filter\.op: must be one of/,
    ],
    [
      "legacy startTime null (required)",
      "POST",
      "/v1/datasets/legacy/query",
      { startTime: null, endTime: "now" },
      /startTime: must not be null/,
    ],
    [
      // axiom-go axiom/monitors_integration_test.go TestCreateMonitorWithMPLQuery: the live service takes it, but
      // the API reference requires aplQuery, and the emulator has no MPL to run in its place.
      'Go client: an MPL monitor with aplQuery ""',
      "POST",
      "/v2/monitors",
      { ...monitor, aplQuery: "", mplQuery: "`dataset`:`m` | align to 5s using avg" },
      /aplQuery: must not be empty/,
    ],
    [
      "a custom webhook whose URL is null has no url",
      "POST",
      "/v2/notifiers",
      { name: "n", properties: { customWebhook: { URL: null, Body: "{}" } } },
      /properties\.customWebhook\.url: is required/,
    ],
    [
      "a projection alias that is not a string",
      "POST",
      "/v1/datasets/legacy/query",
      { startTime: "now-1h", endTime: "now", project: [{ field: "a", alias: 5 }] },
      /project\[0\]\.alias: must be a string/,
    ],
  ])("%s: 422 naming the field", async (_n, method, path, body, message) => {
    const res = await api(em.current, method, path, body);
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(message);
  });
});
