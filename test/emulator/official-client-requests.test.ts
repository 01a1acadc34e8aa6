/**
 * Request bodies as the service's official clients serialize them, sent to the emulator, which must take them as
 * the real service does: null means absent, Go's and Terraform's zero values mean unset, and ingest may be zstd.
 * Each row names the client behaviour it models and, in its comment, where that body shape comes from. The spec's
 * rules still hold for every value actually given: the last block shows those 400s, each naming the field.
 */
import { gzipSync, zstdCompressSync } from "node:zlib";
import { api, useEmulator } from "../helpers/emulator";

const em = useEmulator({ maxBodyBytes: 64 * 1024 });
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

describe("roles and starred queries", () => {
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

describe("still strict where the spec is", () => {
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
      "intervalMinutes 0 is below the spec's minimum of 1",
      "POST",
      "/v2/monitors",
      { ...monitor, intervalMinutes: 0 },
      /intervalMinutes: must be at least 1/,
    ],
    [
      "compareDays 8 is above the spec's maximum of 7",
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
      /name: must be a string/,
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
      /datasets: must be a list/,
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
      /startTime: must be a string/,
    ],
  ])("%s: 400 naming the field", async (_n, method, path, body, message) => {
    const res = await api(em.current, method, path, body);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(message);
  });
});
