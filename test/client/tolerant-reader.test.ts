/**
 * The client reads what the service returns by shape, not by the input rules: recorded-style bodies with missing
 * fields, out-of-range values, unknown enum values, nulls and extra fields are served by a small local server and
 * read through every family's read methods, the query methods and the provider's `read`, which shows drift
 * rather than an error. The bodies follow the mock responses in the official clients' tests; each row names its
 * source. Error details and the response size cap are checked against the emulator and the same local server.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { BadRequestError, InvalidResponseError, ObservabilityClient } from "../../provider/client";
import * as dynamic from "../../provider/resources/dynamic";
import { useEmulator } from "../helpers/emulator";
import { checked, configureProvider } from "../provider/support";

const ZERO = "0001-01-01T00:00:00Z";

// axiom-go axiom/monitors_test.go TestMonitorsService_Get: no aplQuery (an MPL monitor), intervalMinutes 0,
// notifierIDs null; plus a monitor type and a field this client does not know.
const MONITOR = {
  alertOnNoData: false,
  mplQuery: "`dataset`:`my-metric` | align to 5s using avg",
  description: "test",
  id: "testID",
  intervalMinutes: 0,
  name: "test",
  notifierIDs: null,
  operator: "Above",
  rangeMinutes: 1,
  threshold: 1,
  type: "Forecast",
  updatedAt: ZERO,
};
// axiom-go axiom/monitors_test.go TestMonitorsService_List (no type) and _Update (compareDays 8, tolerance 4).
const MONITOR_LIST = [
  {
    alertOnNoData: false,
    aplQuery: "['dataset'] | summarize count() by bin_auto(_time)",
    description: "test",
    disabledUntil: "2024-03-12T18:43:37Z",
    id: "test",
    intervalMinutes: 0,
    name: "test",
    notifierIDs: null,
    operator: "Above",
    rangeMinutes: 1,
    threshold: 1,
  },
  {
    id: "mon_2",
    name: "anomaly",
    type: "AnomalyDetection",
    compareDays: 8,
    tolerance: 400,
    operator: "Sideways",
  },
];
// axiom-go axiom/notifiers_test.go TestNotifiersService_Get: no createdAt/createdBy; plus an unknown channel.
const NOTIFIER = {
  id: "test",
  name: "test",
  properties: { email: { emails: ["test@test.com"] } },
  disabledUntil: null,
};
const NOTIFIER_LIST = [
  NOTIFIER,
  { id: "notify_2", name: "new", properties: { carrierPigeon: { loft: "A" } } },
];
// axiom-go axiom/annotations_test.go TestAnnotationService_Create: no time; plus nulls as axiom-py reads them.
const ANNOTATION = { id: "ann_test", type: "test", datasets: ["test"] };
const ANNOTATION_LIST = [
  ANNOTATION,
  { id: "ann_2", type: "Mixed Case", datasets: [], title: null, endTime: null },
];
// Recorded style: an action the capability tables do not name, and a capability key they do not know.
const ROLE = {
  id: "rol_1",
  name: "readers",
  description: null,
  orgCapabilities: { datasets: ["read", "export"], teleport: ["create"] },
  members: null,
};
// Recorded style: a kind other than apl, metadata holding a number, unknown fields.
const STARRED = {
  id: "sq_1",
  kind: "mpl",
  name: "s",
  who: "usr_1",
  metadata: { pinned: 1 },
  query: { apl: "['web']", defaultLimit: 0, unknown: true },
  createdAt: ZERO,
};
// axiom-go axiom/orgs_test.go TestOrganizationsService_Get: a licence without apiRateLimitPerSecond, billing
// period, features, monthlyQueryGbHours or storageAllowanceGB, with withRBAC and error instead; the zero time.
const ORG = {
  id: "axiom",
  name: "Axiom Industries Ltd",
  slug: "",
  plan: "enterpriseTrial",
  planCreated: "1970-01-01T00:00:00Z",
  lastUsageSync: ZERO,
  role: "admin",
  primaryEmail: "herb@axiom.sh",
  license: {
    id: "98baf1f7-0b51-403f-abc1-2ee91972a225",
    issuer: "console.dev.axiomtestlabs.co",
    issuedTo: "testorg-9t84.LAMdQbdnHiGOYCKLp0",
    issuedAt: "2021-01-19T17:55:53Z",
    validFrom: "2021-01-19T17:55:53Z",
    expiresAt: "2022-01-19T17:55:53Z",
    tier: "enterprise",
    monthlyIngestGb: 100,
    monthlyIngestGbHours: 100,
    maxUsers: 50,
    maxDatasets: 25,
    maxMonitors: 10,
    maxFields: 25,
    maxEndpoints: 10,
    maxQueryWindowSeconds: 2592000,
    maxAuditWindowSeconds: 2592000,
    withRBAC: true,
    withAuths: ["local", "sso"],
    error: "",
  },
  paymentStatus: "pending",
  metaCreated: "1970-01-01T00:00:00Z",
  metaModified: "2021-03-11T13:27:28.501218883Z",
  metaVersion: "1615469248501218883",
};
// axiom-go axiom/datasets_test.go actLegacyQueryResp: no buckets, no datasetNames; status without some fields.
const LEGACY = {
  status: {
    minCursor: "c776x1uafkpu-4918f6cb9000095-0",
    maxCursor: "c776x1uafnvq-4918f6cb9000095-1",
    elapsedTime: 542114,
    rowsExamined: 142655,
    rowsMatched: 142655,
    isPartial: false,
    cacheStatus: 1,
    messages: [{ priority: "warn", count: 1, msg: "new field" }],
  },
  matches: [
    {
      _time: "2020-11-19T11:06:31.569479846Z",
      _sysTime: "2020-11-19T11:06:31.581384524Z",
      _rowId: "c776x1uafnvq-4918f6cb9000095-1",
      data: { response: 304, request: "GET /downloads/product_1 HTTP/1.1" },
    },
    {
      _time: "2020-11-19T11:06:31.569475746Z",
      _sysTime: "2020-11-19T11:06:31.581384524Z",
      _rowId: "c776x1uafkpu-4918f6cb9000095-0",
      data: { response: 304, request: "GET /downloads/product_1 HTTP/1.1" },
    },
  ],
};
// axiom-go axiom/datasets_test.go actQueryResp: tabular without `format`, `datasetNames` or a table's `groups`.
const TABULAR = {
  tables: [
    {
      name: "0",
      sources: [{ name: "test" }],
      fields: [
        { name: "_time", type: "string" },
        { name: "bytes", type: "float64", agg: null },
      ],
      order: [{ field: "_time", desc: true }],
      range: {
        field: "_time",
        start: "2023-03-21T13:38:51.735448191Z",
        end: "2023-03-28T13:38:51.735448191Z",
      },
      columns: [["2020-11-19T11:06:31.569475746Z"], [0]],
    },
  ],
  status: { elapsedTime: 260650, minCursor: "0d8q6stroluyo-07c3957e7400015c-0000c875", rowsMatched: 1 },
};

const ROUTES: Record<string, unknown> = {
  "GET /v2/monitors/testID": MONITOR,
  "GET /v2/monitors": MONITOR_LIST,
  "GET /v2/notifiers/test": NOTIFIER,
  "GET /v2/notifiers": NOTIFIER_LIST,
  "GET /v2/annotations/ann_test": ANNOTATION,
  "GET /v2/annotations": ANNOTATION_LIST,
  "GET /v2/rbac/roles/rol_1": ROLE,
  "GET /v2/rbac/roles": [ROLE],
  "GET /v2/apl-starred-queries/sq_1": STARRED,
  "GET /v2/apl-starred-queries": [STARRED],
  "GET /v2/orgs/axiom": ORG,
  "GET /v2/orgs": [ORG],
  "POST /v1/datasets/_apl?format=legacy": LEGACY,
  "POST /v1/datasets/_apl?format=tabular": TABULAR,
  "POST /v1/datasets/test/query": LEGACY,
};

let server: Server;
let url: string;
let client: ObservabilityClient;
beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const key = `${req.method} ${req.url!.split("?")[0]}`;
      const withQuery = `${req.method} ${req.url}`;
      if (req.url!.includes("qs=huge")) {
        // Chunked, so no Content-Length announces the size: the cap must hold while reading.
        res.writeHead(200, { "content-type": "application/json" });
        const chunk = `"${"x".repeat(4094)}",`;
        res.write("[");
        for (let i = 0; i < 8; i++) res.write(chunk);
        res.end('""]');
        return;
      }
      if (req.url!.endsWith("/apl-error")) {
        const body = {
          code: 400,
          message: "invalid query",
          detail: { line: 1, column: 17, errorType: "syntax", message: "unexpected token '|'" },
        };
        res.writeHead(400, { "content-type": "application/json" });
        res.end(JSON.stringify(body));
        return;
      }
      const body = ROUTES[withQuery] ?? ROUTES[key];
      if (body === undefined) {
        res.writeHead(404, { "content-type": "application/json" });
        res.end('{"code":404,"message":"Not found"}');
        return;
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  client = new ObservabilityClient({ url, token: "xaat-recorded", maxRetries: 0 });
});
afterAll(async () => {
  await client.close();
  await dynamic.reset();
  await new Promise((resolve) => server.close(resolve));
});

describe("every family's read methods take recorded-style bodies", () => {
  it("Go client mock: monitor without aplQuery, intervalMinutes 0, notifierIDs null, an unknown type", async () => {
    const m = await client.monitors.get("testID");
    expect(m).toMatchObject({ id: "testID", type: "Forecast", intervalMinutes: 0 });
    expect(m.aplQuery).toBeUndefined();
    expect(m.notifierIds).toBeUndefined(); // null is absent
    expect(m.mplQuery).toBe(MONITOR.mplQuery); // unknown fields are kept
    expect(m.updatedAt).toBe(ZERO); // a field this client does not model is kept exactly as sent
  });

  it("Go client mock: monitor list without type, and compareDays 8, tolerance 400, an unknown operator", async () => {
    const list = await client.monitors.list();
    expect(list.map((m) => m.id)).toEqual(["test", "mon_2"]);
    expect(list[1]).toMatchObject({ compareDays: 8, tolerance: 400, operator: "Sideways" });
  });

  it("Go client mock: notifier without createdAt, and an unknown channel in the list", async () => {
    expect(await client.notifiers.get("test")).toMatchObject({ id: "test", properties: NOTIFIER.properties });
    const list = await client.notifiers.list();
    expect(list[1].properties).toEqual({ carrierPigeon: { loft: "A" } });
  });

  it("a notifier's channels are typed as declared but read as sent: a wrong type and an unknown field are kept", async () => {
    ROUTES["GET /v2/notifiers/odd"] = {
      id: "odd",
      properties: {
        slack: { slackUrl: 5, team: "ops" },
        webhook: null,
        customWebhook: { url: "u", headers: null },
      },
    };
    const n = await client.notifiers.get("odd");
    const slackUrl: string | undefined = n.properties?.slack?.slackUrl; // the type names the channel's fields
    expect(slackUrl).toBe(5);
    expect(n.properties).toEqual({ slack: { slackUrl: 5, team: "ops" }, customWebhook: { url: "u" } });
  });

  it("a starred query's request keeps unknown fields in its options and order entries; null is absent", async () => {
    ROUTES["GET /v2/apl-starred-queries/sq_odd"] = {
      id: "sq_odd",
      query: {
        apl: "['web']",
        startTime: null,
        defaultOrder: [{ field: "_time", desc: true, nulls: "last" }],
        queryOptions: { disableCache: true, futureOption: 1 },
      },
    };
    const sq = await client.starredQueries.get("sq_odd");
    const disableCache: boolean | undefined = sq.query?.queryOptions?.disableCache;
    expect(disableCache).toBe(true);
    expect(sq.query).toEqual({
      apl: "['web']",
      defaultOrder: [{ field: "_time", desc: true, nulls: "last" }],
      queryOptions: { disableCache: true, futureOption: 1 },
    });
  });

  it("Go client mock: annotation without time; a list entry with no datasets, nulls and a type outside the pattern", async () => {
    expect(await client.annotations.get("ann_test")).toEqual(ANNOTATION);
    const list = await client.annotations.list();
    expect(list[1]).toEqual({ id: "ann_2", type: "Mixed Case", datasets: [] });
  });

  it("role with an unnamed action, an unknown capability key and nulls", async () => {
    const role = await client.roles.get("rol_1");
    expect(role.orgCapabilities).toEqual(ROLE.orgCapabilities);
    expect(role.description).toBeUndefined();
    expect(await client.roles.list()).toHaveLength(1);
  });

  it("starred query of another kind, with a number in metadata and defaultLimit 0", async () => {
    const sq = await client.starredQueries.get("sq_1");
    expect(sq).toMatchObject({
      kind: "mpl",
      metadata: { pinned: 1 },
      query: { defaultLimit: 0, unknown: true },
    });
    expect(await client.starredQueries.list()).toHaveLength(1);
  });

  it("Go client mock: org whose licence lacks six fields, with an unknown plan and payment status", async () => {
    const org = await client.orgs.get("axiom");
    expect(org).toMatchObject({ plan: "enterpriseTrial", paymentStatus: "pending", slug: "" });
    expect(org.lastUsageSync).toBeUndefined();
    expect(org.license).toMatchObject({ withRBAC: true, maxUsers: 50 });
    expect(await client.orgs.list()).toHaveLength(1);
  });

  it("a recorded body without the id the client needs is still an InvalidResponseError naming it", async () => {
    const { id: _id, ...noId } = ANNOTATION;
    ROUTES["GET /v2/annotations/ann_noid"] = noId;
    const err = client.annotations.get("ann_noid");
    await expect(err).rejects.toBeInstanceOf(InvalidResponseError);
    await expect(err).rejects.toThrow(/response\.id/);
  });
});

describe("query, queryLegacy and paginate accept the same bodies", () => {
  it("Go client mock: legacy result without buckets, status without blocksExamined, an extra messages list", async () => {
    const viaApl = await client.query("['test']");
    const viaLegacy = await client.queryLegacy("test", { startTime: "now-1d", endTime: "now" });
    expect(viaApl).toEqual(viaLegacy);
    expect(viaLegacy.matches).toHaveLength(2);
    expect(viaLegacy.status.messages).toEqual(LEGACY.status.messages);
  });

  it("paginate walks the same body", async () => {
    const rows = [];
    for await (const row of client.paginate("['test']", { startTime: "now-1d", endTime: "now" }))
      rows.push(row);
    expect(rows.map((r) => r._rowId)).toEqual(LEGACY.matches.map((m) => m._rowId));
  });

  it("Go client mock: tabular result without format, datasetNames or groups", async () => {
    const res = await client.query("['test']", { format: "tabular" });
    expect(res.tables[0].columns).toEqual(TABULAR.tables[0].columns);
    expect(res.tables[0].range).toEqual(TABULAR.tables[0].range);
  });
});

describe("the provider's read shows what the service returned as drift", () => {
  beforeAll(() => configureProvider(url, "xaat-recorded"));
  it.each<[string, string, Record<string, unknown>, string[]]>([
    [
      "Monitor",
      "testID",
      { name: "test", type: "Threshold", aplQuery: "['x']", operator: "Above", threshold: 1 },
      ["aplQuery", "type", "intervalMinutes"],
    ],
    [
      "Notifier",
      "test",
      { name: "test", properties: { email: { emails: ["ops@example.com"] } } },
      ["properties"],
    ],
    ["Annotation", "ann_test", { datasets: ["test"], type: "deploy" }, ["type"]],
    ["Role", "rol_1", { name: "readers", orgCapabilities: { datasets: ["read"] } }, ["orgCapabilities"]],
    [
      "StarredQuery",
      "sq_1",
      { kind: "apl", name: "s", who: "usr_1", metadata: {}, query: { apl: "['web']" } },
      ["kind", "metadata", "query"],
    ],
    ["OrganizationName", "axiom", { organizationId: "axiom", name: "Axiom" }, ["name"]],
  ])("%s: read succeeds and diff names the drifted fields", async (kind, id, declared, drifted) => {
    const impl = dynamic.implementation(kind as never);
    const inputs = await checked(impl, declared);
    const read = await impl.read(id, inputs);
    expect(read.id).toBe(id);
    const diff = await impl.diff(id, read.props!, inputs);
    expect(diff.changes).toBe(true);
    for (const key of drifted) expect(diff.diffs).toContain(key);
  });
});

describe("nulls, missing fields and wrong types found by review, with the clients' own bodies", () => {
  /** Serves `body` at `key` for one test, then puts the route back as it was. */
  async function serving<T>(key: string, body: unknown, run: () => Promise<T>): Promise<T> {
    const before = ROUTES[key];
    ROUTES[key] = body;
    try {
      return await run();
    } finally {
      if (before === undefined) delete ROUTES[key];
      else ROUTES[key] = before;
    }
  }
  const window = { startTime: "now-1d", endTime: "now" };

  it("JavaScript client mock: an ingest result without failures (axiom-js packages/js/test/unit/batch.test.ts)", async () => {
    const body = { ingested: 1, failed: 0, processedBytes: 0, blocksCreated: 0, walLength: 0 };
    const summary = await serving("POST /v1/datasets/jsmock/ingest", body, () =>
      client.ingest("jsmock", [{ a: 1 }]),
    );
    expect(summary).toEqual({ ingested: 1, failed: 0, failures: [], processedBytes: 0, batches: 1 });
  });

  it("Go client: an ingest result with failures null, its nil slice (axiom-go axiom/ingest/status.go Status)", async () => {
    const body = {
      ingested: 2,
      failed: 0,
      failures: null,
      processedBytes: 64,
      blocksCreated: 0,
      walLength: 2,
    };
    const summary = await serving("POST /v1/datasets/gomock/ingest", body, () =>
      client.ingest("gomock", [{ a: 1 }, { a: 2 }]),
    );
    expect(summary).toEqual({ ingested: 2, failed: 0, failures: [], processedBytes: 64, batches: 1 });
  });

  it("an ingest result that leaves out its counts sums them as 0; a count that is not a number is still refused", async () => {
    const progress: number[] = [];
    const summary = await serving("POST /v1/datasets/sparse/ingest", { ingested: 3, extra: true }, () =>
      client.ingest("sparse", [{ a: 1 }], { onProgress: (p) => progress.push(p.failed) }),
    );
    expect(summary).toEqual({ ingested: 3, failed: 0, failures: [], processedBytes: 0, batches: 1 });
    expect(progress).toEqual([0]);
    const bad = serving("POST /v1/datasets/bad/ingest", { ingested: "3" }, () =>
      client.ingest("bad", [{ a: 1 }]),
    );
    await expect(bad).rejects.toThrow(/response\.ingested/);
  });

  // axiom-py src/axiom_py/query/result.py: QueryStatus.minCursor/maxCursor, buckets' series/totals and matches
  // are Optional and come back as null; axiom-go sends a nil matches slice as null.
  const PY_LEGACY = {
    status: { ...LEGACY.status, minCursor: null, maxCursor: null },
    matches: LEGACY.matches,
    buckets: { series: null, totals: null },
  };
  const LEGACY_ROUTES = ["POST /v1/datasets/_apl?format=legacy", "POST /v1/datasets/test/query"];
  const servingLegacy = <T>(body: unknown, run: () => Promise<T>) =>
    serving(LEGACY_ROUTES[0], body, () => serving(LEGACY_ROUTES[1], body, run));
  async function walk(mode: "timestamp" | "cursor") {
    const rows = [];
    for await (const row of client.paginate("['test']", { ...window, mode })) rows.push(row._rowId);
    return rows;
  }

  it("Python client: status cursors null and buckets {series: null, totals: null} read the same through query, queryLegacy and paginate", async () => {
    await servingLegacy(PY_LEGACY, async () => {
      const viaApl = await client.query("['test']");
      const viaLegacy = await client.queryLegacy("test", window);
      expect(viaApl).toEqual(viaLegacy);
      expect(viaLegacy.status.minCursor).toBeUndefined();
      expect(viaLegacy.buckets).toEqual({});
      const ids = LEGACY.matches.map((m) => m._rowId);
      expect(await walk("timestamp")).toEqual(ids);
      // No cursor to go on: cursor mode stops after the page it has.
      expect(await walk("cursor")).toEqual(ids);
    });
  });

  it("Go client: matches null is no rows, through query, queryLegacy and paginate (axiom-go nil slice)", async () => {
    await servingLegacy({ status: LEGACY.status, matches: null }, async () => {
      expect((await client.query("['test']")).matches).toEqual([]);
      expect((await client.queryLegacy("test", window)).matches).toEqual([]);
      expect(await walk("timestamp")).toEqual([]);
    });
  });

  it("a page without matches at all is still an InvalidResponseError naming it, for query and paginate alike", async () => {
    await servingLegacy({ status: LEGACY.status }, async () => {
      await expect(client.queryLegacy("test", window)).rejects.toThrow(/response\.matches/);
      await expect(walk("timestamp")).rejects.toThrow(/response\.matches/);
    });
  });

  it("Python client: tabular columns, order and groups null, and tables null (axiom-py query/result.py Optional)", async () => {
    const table = { ...TABULAR.tables[0], columns: null, order: null, groups: null };
    const res = await serving("POST /v1/datasets/_apl?format=tabular", { ...TABULAR, tables: [table] }, () =>
      client.query("['test']", { format: "tabular" }),
    );
    expect(res.tables[0]).not.toHaveProperty("columns");
    expect(res.tables[0]).not.toHaveProperty("order");
    expect(res.tables[0]).not.toHaveProperty("groups");
    expect(res.tables[0].fields).toEqual(TABULAR.tables[0].fields);
    const none = await serving("POST /v1/datasets/_apl?format=tabular", { ...TABULAR, tables: null }, () =>
      client.query("['test']", { format: "tabular" }),
    );
    expect(none.tables).toEqual([]);
  });

  it("a tabular column that is not an array is an InvalidResponseError naming it; an array column comes back as sent", async () => {
    const bad = { ...TABULAR.tables[0], columns: [[1, 2], "3"] };
    await expect(
      serving("POST /v1/datasets/_apl?format=tabular", { ...TABULAR, tables: [bad] }, () =>
        client.query("['test']", { format: "tabular" }),
      ),
    ).rejects.toThrow("response.tables[0].columns[1]: expected an array");
    const mixed = { ...TABULAR.tables[0], columns: [[1, "a", null, { b: 2 }, [3]]] };
    const res = await serving("POST /v1/datasets/_apl?format=tabular", { ...TABULAR, tables: [mixed] }, () =>
      client.query("['test']", { format: "tabular" }),
    );
    expect(res.tables[0].columns).toEqual([[1, "a", null, { b: 2 }, [3]]]);
  });

  it("Go client: a custom webhook read back with nil Headers (axiom-go axiom/notifiers.go, no JSON tags)", async () => {
    const body = {
      id: "hook_1",
      name: "hook",
      properties: { customWebhook: { url: "https://h.test/x", headers: null, body: "{}" }, slack: null },
    };
    const n = await serving("GET /v2/notifiers/hook_1", body, () => client.notifiers.get("hook_1"));
    expect(n.properties).toEqual({ customWebhook: { url: "https://h.test/x", body: "{}" } });
  });

  it("a role capability read back as null is absent (orgCapabilities {apiTokens: null}), and the provider's read shows drift", async () => {
    const body = {
      id: "rol_null",
      name: "r",
      orgCapabilities: { apiTokens: null, datasets: ["read"] },
      datasetCapabilities: { logs: { query: ["read"], ingest: null }, gone: null },
    };
    await serving("GET /v2/rbac/roles/rol_null", body, async () => {
      const role = await client.roles.get("rol_null");
      expect(role.orgCapabilities).toEqual({ datasets: ["read"] });
      expect(role.datasetCapabilities).toEqual({ logs: { query: ["read"] } });
      await configureProvider(url, "xaat-recorded");
      const impl = dynamic.implementation("Role");
      const inputs = await checked(impl, { name: "r", orgCapabilities: { apiTokens: ["read"] } });
      const read = await impl.read("rol_null", inputs);
      const diff = await impl.diff("rol_null", read.props!, inputs);
      expect(diff.diffs).toContain("orgCapabilities");
    });
  });

  it("notifierIds null beside axiom-go's notifierIDs list keeps the list (axiom-go axiom/monitors.go NotifierIDs)", async () => {
    const body = { id: "mon_both", name: "m", notifierIds: null, notifierIDs: ["n1", "n2"] };
    const m = await serving("GET /v2/monitors/mon_both", body, () => client.monitors.get("mon_both"));
    expect(m.notifierIds).toEqual(["n1", "n2"]);
  });

  it("a licence whose features is a list of names, not a map, reads as sent", async () => {
    const body = { ...ORG, id: "org_feat", license: { ...ORG.license, features: ["rbac", "sso"] } };
    const org = await serving("GET /v2/orgs/org_feat", body, () => client.orgs.get("org_feat"));
    expect(org.license?.features).toEqual(["rbac", "sso"]);
  });

  it.each<[string, string, string, Record<string, unknown>, Record<string, unknown>, string]>([
    [
      "Monitor",
      "mon_str",
      "GET /v2/monitors/mon_str",
      { id: "mon_str", name: "m", type: "Threshold", aplQuery: "['x']", operator: "Above", threshold: "1" },
      { name: "m", type: "Threshold", aplQuery: "['x']", operator: "Above", threshold: 1 },
      "threshold",
    ],
    [
      "Annotation",
      "ann_str",
      "GET /v2/annotations/ann_str",
      { id: "ann_str", type: "deploy", datasets: "d" },
      { type: "deploy", datasets: ["d"] },
      "datasets",
    ],
    [
      "Notifier",
      "not_str",
      "GET /v2/notifiers/not_str",
      { id: "not_str", name: "n", properties: "email" },
      { name: "n", properties: { email: { emails: ["ops@example.com"] } } },
      "properties",
    ],
    [
      "Role",
      "rol_str",
      "GET /v2/rbac/roles/rol_str",
      { id: "rol_str", name: "r", members: "u1" },
      { name: "r", members: ["u1"] },
      "members",
    ],
  ])(
    "%s: a value of an unexpected type is read as sent, and the provider's read shows it as drift",
    async (kind, id, key, body, declared, field) => {
      await serving(key, body, async () => {
        await configureProvider(url, "xaat-recorded");
        const impl = dynamic.implementation(kind as never);
        const inputs = await checked(impl, declared);
        const read = await impl.read(id, inputs);
        expect(read.props![field]).toEqual(body[field]);
        const diff = await impl.diff(id, read.props!, inputs);
        expect(diff.diffs).toContain(field);
      });
    },
  );

  it("an id of an unexpected type is still an InvalidResponseError: the client needs it", async () => {
    const err = serving("GET /v2/monitors/mon_badid", { id: 7, name: "m" }, () =>
      client.monitors.get("mon_badid"),
    );
    await expect(err).rejects.toThrow(/response\.id/);
  });
});

describe("ApiError keeps the service's detail", () => {
  const em = useEmulator();

  it("an APL error from the emulator carries detail {line, column, errorType, message}", async () => {
    const c = new ObservabilityClient({ url: em.current.url, token: em.current.token, maxRetries: 0 });
    const err = await c.query("['logs'] | where", { startTime: "now-1h", endTime: "now" }).catch((e) => e);
    await c.close();
    expect(err).toBeInstanceOf(BadRequestError);
    expect(err.detail).toMatchObject({ line: 1, column: expect.any(Number), errorType: expect.any(String) });
    expect(err.message).toMatch(/line 1, column \d+/);
    expect(err.toJSON().detail).toEqual(err.detail);
  });

  it("a service message without the position gets it from detail", async () => {
    const e = await client.roles.get("apl-error").catch((x) => x);
    expect(e).toBeInstanceOf(BadRequestError);
    expect(e.message).toMatch(/invalid query \(line 1, column 17: unexpected token '\|'\)/);
  });
});

describe("response bodies are capped", () => {
  const em = useEmulator();

  it("a list from the emulator larger than maxResponseBytes fails with a clear error (Content-Length)", async () => {
    const big = new ObservabilityClient({
      url: em.current.url,
      token: em.current.token,
      maxResponseBytes: 2048,
    });
    for (let i = 0; i < 10; i++) {
      await big.monitors.create({
        name: `m${i}`,
        type: "MatchEvent",
        aplQuery: "['logs']",
        description: "x".repeat(200),
      });
    }
    const err = big.monitors.list();
    await expect(err).rejects.toBeInstanceOf(InvalidResponseError);
    await expect(err).rejects.toThrow(/larger than 2048 bytes \(maxResponseBytes\)/);
    // The same client still reads what fits: the connection was not left in a bad state.
    expect((await big.orgs.list()).length).toBe(1);
    await big.close();
  });

  it("a chunked body without Content-Length is cut off once it passes the cap", async () => {
    const small = new ObservabilityClient({
      url,
      token: "xaat-recorded",
      maxResponseBytes: 16 * 1024,
      maxRetries: 0,
    });
    const err = small.starredQueries.list({ qs: "huge" });
    await expect(err).rejects.toBeInstanceOf(InvalidResponseError);
    await expect(err).rejects.toThrow(/larger than 16384 bytes/);
    await small.close();
  });

  it("maxResponseBytes must be a positive integer", () => {
    expect(() => new ObservabilityClient({ url, token: "t", maxResponseBytes: 0 })).toThrow(
      /options\.maxResponseBytes: must be positive/,
    );
  });
});
