/** Every management endpoint of the service's OpenAPI v2 document (axiomhq/docs `content/docs/(api-reference)/restapi/versions/v2.json`): status codes, shapes, id prefixes, filters, tolerated bodies. */
import { api, useEmulator } from "../helpers/emulator";

const em = useEmulator();
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const slackUrl = "https://hooks.slack.example/T000/B000/XXX";

describe("404 for a missing id", () => {
  const families = [
    ["annotation", "/v2/annotations/ann_missing", { type: "x" }],
    ["monitor", "/v2/monitors/mon_missing", { name: "m", aplQuery: "q", type: "MatchEvent" }],
    ["notifier", "/v2/notifiers/notify_missing", { name: "n", properties: { slack: { slackUrl } } }],
    ["role", "/v2/rbac/roles/role_missing", { name: "r" }],
    [
      "starred query",
      "/v2/apl-starred-queries/sq_missing",
      { kind: "apl", name: "n", who: "w", metadata: {}, query: { apl: "x" } },
    ],
  ] as const;
  it.each(
    families.flatMap(([name, path, body]) =>
      (["GET", "PUT", "DELETE"] as const).map((m) => [name, m, path, body] as const),
    ),
  )("%s %s", async (_name, method, path, body) => {
    const res = await api(em.current, method, path, method === "PUT" ? body : undefined);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 404, message: "Not found" });
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
  });
  it.each([["GET"], ["PUT"]])("org %s", async (method) => {
    const res = await api(
      em.current,
      method,
      "/v2/orgs/org_missing",
      method === "PUT" ? { name: "x" } : undefined,
    );
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 404, message: "Not found" });
  });
  it("monitor history of a missing monitor", async () => {
    const res = await api(em.current, "GET", "/v2/monitors/mon_missing/history?startTime=now-1h&endTime=now");
    expect(res.status).toBe(404);
  });
});

describe("annotations", () => {
  it("POST is 201 with an ann_ id and the request time as default time", async () => {
    const before = Date.now();
    const res = await api(em.current, "POST", "/v2/annotations", {
      datasets: ["web"],
      type: "deploy",
      title: "v1",
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^ann_/),
      datasets: ["web"],
      type: "deploy",
      title: "v1",
    });
    const t = Date.parse(res.body.time);
    expect(t).toBeGreaterThanOrEqual(before - 1000);
    expect(t).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it("GET, partial PUT and DELETE 204 with an empty body", async () => {
    const { body: created } = await api(em.current, "POST", "/v2/annotations", {
      datasets: ["api"],
      type: "incident",
      time: "2024-05-01T10:00:00Z",
      description: "outage",
    });
    expect((await api(em.current, "GET", `/v2/annotations/${created.id}`)).body).toEqual(created);
    const put = await api(em.current, "PUT", `/v2/annotations/${created.id}`, { title: "resolved" });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ ...created, title: "resolved" });
    const del = await api(em.current, "DELETE", `/v2/annotations/${created.id}`);
    expect(del.status).toBe(204);
    expect(del.text).toBe("");
    expect((await api(em.current, "GET", `/v2/annotations/${created.id}`)).status).toBe(404);
  });

  it("PUT of the object read back (with id) succeeds unchanged", async () => {
    const { body: created } = await api(em.current, "POST", "/v2/annotations", {
      datasets: ["web"],
      type: "echo",
    });
    const put = await api(em.current, "PUT", `/v2/annotations/${created.id}`, created);
    expect(put.status).toBe(200);
    expect(put.body).toEqual(created);
  });

  it("lists with datasets (comma-joined or repeated) and start/end filters; zero time is no bound", async () => {
    const mk = (datasets: string[], time: string, endTime?: string) =>
      api(em.current, "POST", "/v2/annotations", { datasets, type: "filter-test", time, endTime });
    const a = (await mk(["f-a"], "2023-01-01T00:00:00Z")).body;
    const b = (await mk(["f-b"], "2023-02-01T00:00:00Z", "2023-03-01T00:00:00Z")).body;
    const c = (await mk(["f-c", "f-a"], "2023-04-01T00:00:00Z")).body;
    const ids = async (qs: string) =>
      ((await api(em.current, "GET", `/v2/annotations?${qs}`)).body as { id: string }[])
        .map((x) => x.id)
        .filter((id) => [a.id, b.id, c.id].includes(id))
        .sort();
    const sorted = (...xs: string[]) => [...xs].sort();
    expect(await ids("")).toEqual(sorted(a.id, b.id, c.id));
    expect(await ids("datasets=f-a")).toEqual(sorted(a.id, c.id));
    expect(await ids("datasets=f-a,f-b")).toEqual(sorted(a.id, b.id, c.id));
    expect(await ids("datasets=f-b&datasets=f-c")).toEqual(sorted(b.id, c.id));
    expect(await ids("start=2023-01-15T00:00:00Z")).toEqual(sorted(b.id, c.id));
    expect(await ids("end=2023-01-15T00:00:00Z")).toEqual([a.id]);
    // b spans February; a window inside its span still lists it.
    expect(await ids("start=2023-02-10T00:00:00Z&end=2023-02-20T00:00:00Z")).toEqual([b.id]);
    expect(await ids("start=0001-01-01T00:00:00Z&end=0001-01-01T00:00:00Z")).toEqual(
      sorted(a.id, b.id, c.id),
    );
    const bad = await api(em.current, "GET", "/v2/annotations?start=yesterday");
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/^start: /);
  });
});

describe("monitors", () => {
  const base = {
    name: "errors",
    aplQuery: "['web'] | where status >= 500 | count()",
    type: "Threshold",
    operator: "Above",
    threshold: 5,
  };

  it("POST returns mon_ id, createdAt, createdBy, the defaults and notifierIds", async () => {
    const res = await api(em.current, "POST", "/v2/monitors", base);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      ...base,
      id: expect.stringMatching(/^mon_/),
      createdAt: expect.stringMatching(RFC3339),
      createdBy: "local-user",
      intervalMinutes: 1,
      rangeMinutes: 1,
      triggerFromNRuns: 1,
      alertOnNoData: false,
      disabled: false,
      disabledUntil: null,
      notifierIds: [],
    });
    expect((await api(em.current, "GET", `/v2/monitors/${res.body.id}`)).body).toEqual(res.body);
    const list = (await api(em.current, "GET", "/v2/monitors")).body as { id: string }[];
    expect(list.map((m) => m.id)).toContain(res.body.id);
  });

  it("PUT replaces the whole monitor but keeps id, createdAt and createdBy", async () => {
    const { body: created } = await api(em.current, "POST", "/v2/monitors", { ...base, description: "old" });
    const put = await api(em.current, "PUT", `/v2/monitors/${created.id}`, {
      ...base,
      name: "renamed",
      intervalMinutes: 5,
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      id: created.id,
      createdAt: created.createdAt,
      createdBy: "local-user",
      name: "renamed",
      intervalMinutes: 5,
      description: "",
    });
  });

  it("PUT of the object read back, with notifierIDs spelling and zero-time disabledUntil, succeeds", async () => {
    const { body: n } = await api(em.current, "POST", "/v2/notifiers", {
      name: "n",
      properties: { slack: { slackUrl } },
    });
    const { body: created } = await api(em.current, "POST", "/v2/monitors", base);
    const { notifierIds: _drop, ...rest } = created;
    const sentBack = {
      ...rest,
      notifierIDs: [n.id],
      disabledUntil: "0001-01-01T00:00:00Z",
      updatedAt: "2024-01-01T00:00:00Z",
      unknownField: 1,
    };
    const put = await api(em.current, "PUT", `/v2/monitors/${created.id}`, sentBack);
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ ...created, notifierIds: [n.id], disabledUntil: null });
    const again = await api(em.current, "PUT", `/v2/monitors/${created.id}`, put.body);
    expect(again.body).toEqual(put.body);
  });

  it("history needs startTime and endTime, naming the missing one", async () => {
    const { body: m } = await api(em.current, "POST", "/v2/monitors", base);
    const none = await api(em.current, "GET", `/v2/monitors/${m.id}/history`);
    expect(none.status).toBe(400);
    expect(none.body.message).toContain("startTime: is required");
    expect(none.body.message).toContain("endTime: is required");
    const noEnd = await api(em.current, "GET", `/v2/monitors/${m.id}/history?startTime=now-1h`);
    expect(noEnd.status).toBe(400);
    expect(noEnd.body.message).toBe("endTime: is required");
    const badStart = await api(em.current, "GET", `/v2/monitors/${m.id}/history?startTime=soon&endTime=now`);
    expect(badStart.status).toBe(400);
    expect(badStart.body.message).toMatch(/^startTime: /);
  });

  it("a monitor that never alerted has an empty history: no entry is made up at creation", async () => {
    const { body: m } = await api(em.current, "POST", "/v2/monitors", base);
    const res = await api(
      em.current,
      "GET",
      `/v2/monitors/${m.id}/history?startTime=now-1h&endTime=now%2B1m`,
    );
    expect(res.status).toBe(200);
    // Each open and close is an entry (test/emulator/monitors-run.test.ts); creating one is neither.
    expect(res.body).toEqual([]);
    const old = await api(
      em.current,
      "GET",
      `/v2/monitors/${m.id}/history?startTime=2020-01-01T00:00:00Z&endTime=2020-01-02T00:00:00Z`,
    );
    expect(old.body).toEqual([]);
  });

  it("DELETE is 204 with an empty body", async () => {
    const { body: m } = await api(em.current, "POST", "/v2/monitors", base);
    const del = await api(em.current, "DELETE", `/v2/monitors/${m.id}`);
    expect(del.status).toBe(204);
    expect(del.text).toBe("");
    expect((await api(em.current, "GET", `/v2/monitors/${m.id}`)).status).toBe(404);
  });
});

describe("notifiers", () => {
  it("POST returns notify_ id, createdAt, createdBy and disabledUntil null; GET, list, PUT, DELETE", async () => {
    const res = await api(em.current, "POST", "/v2/notifiers", {
      name: "oncall",
      properties: { email: { emails: ["a@example.com"] } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^notify_/),
      name: "oncall",
      properties: { email: { emails: ["a@example.com"] } },
      disabledUntil: null,
      createdAt: expect.stringMatching(RFC3339),
      createdBy: "local-user",
    });
    expect((await api(em.current, "GET", `/v2/notifiers/${res.body.id}`)).body).toEqual(res.body);
    expect(
      ((await api(em.current, "GET", "/v2/notifiers")).body as { id: string }[]).map((n) => n.id),
    ).toContain(res.body.id);
    const put = await api(em.current, "PUT", `/v2/notifiers/${res.body.id}`, {
      ...res.body,
      name: "renamed",
    });
    expect(put.body).toEqual({ ...res.body, name: "renamed" });
    const del = await api(em.current, "DELETE", `/v2/notifiers/${res.body.id}`);
    expect([del.status, del.text]).toEqual([204, ""]);
  });

  it("accepts URL/Headers/Body spelling for a custom webhook and zero-time disabledUntil", async () => {
    const res = await api(em.current, "POST", "/v2/notifiers", {
      name: "hook",
      disabledUntil: "0001-01-01T00:00:00Z",
      properties: {
        customWebhook: { URL: "https://example.com/hook", Headers: { "X-A": "1" }, Body: "{{.Title}}" },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.properties).toEqual({
      customWebhook: { url: "https://example.com/hook", headers: { "X-A": "1" }, body: "{{.Title}}" },
    });
    expect(res.body.disabledUntil).toBeNull();
  });

  it("422 messages do not echo secret values", async () => {
    const res = await api(em.current, "POST", "/v2/notifiers", {
      name: "x",
      properties: { slack: { slackUrl: "not-a-url-secret-123" } },
    });
    expect(res.status).toBe(422);
    expect(res.text).not.toContain("secret-123");
  });
});

describe("roles", () => {
  it("POST returns role_ id; GET, list, PUT, DELETE", async () => {
    const body = {
      name: "readers",
      description: "read only",
      members: ["u1"],
      orgCapabilities: { monitors: ["read"] },
    };
    const res = await api(em.current, "POST", "/v2/rbac/roles", body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: expect.stringMatching(/^role_/), ...body });
    expect((await api(em.current, "GET", `/v2/rbac/roles/${res.body.id}`)).body).toEqual(res.body);
    expect(
      ((await api(em.current, "GET", "/v2/rbac/roles")).body as { id: string }[]).map((r) => r.id),
    ).toContain(res.body.id);
    const put = await api(em.current, "PUT", `/v2/rbac/roles/${res.body.id}`, {
      ...res.body,
      members: ["u1", "u2"],
    });
    expect(put.body.members).toEqual(["u1", "u2"]);
    const del = await api(em.current, "DELETE", `/v2/rbac/roles/${res.body.id}`);
    expect([del.status, del.text]).toEqual([204, ""]);
  });

  it("409 on a duplicate name, on create and on update to an existing name", async () => {
    const a = await api(em.current, "POST", "/v2/rbac/roles", { name: "dup-a" });
    const b = await api(em.current, "POST", "/v2/rbac/roles", { name: "dup-b" });
    const clash = await api(em.current, "POST", "/v2/rbac/roles", { name: "dup-a" });
    expect(clash.status).toBe(409);
    expect(clash.body).toEqual({ code: 409, message: expect.stringContaining("dup-a") });
    const rename = await api(em.current, "PUT", `/v2/rbac/roles/${b.body.id}`, { name: "dup-a" });
    expect(rename.status).toBe(409);
    // Keeping its own name is not a clash.
    expect(
      (await api(em.current, "PUT", `/v2/rbac/roles/${a.body.id}`, { name: "dup-a", description: "x" }))
        .status,
    ).toBe(200);
  });
});

describe("orgs", () => {
  const LICENSE_FIELDS = [
    "apiRateLimitPerSecond",
    "billingPeriodEnd",
    "billingPeriodStart",
    "features",
    "id",
    "issuedAt",
    "issuedTo",
    "issuer",
    "maxAuditWindowSeconds",
    "maxDatasets",
    "maxEndpoints",
    "maxFields",
    "maxMonitors",
    "maxQueryWindowSeconds",
    "maxUsers",
    "monthlyIngestGb",
    "monthlyQueryGbHours",
    "tier",
    "validFrom",
    "withAuths",
    "expiresAt",
    "storageAllowanceGB",
  ];

  it("lists the emulator's org with every spec field and a full license", async () => {
    const res = await api(em.current, "GET", "/v2/orgs");
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(1);
    const org = res.body[0];
    expect(org).toMatchObject({
      id: em.current.orgId,
      name: expect.any(String),
      lastUsageSync: expect.any(String),
      planCreated: expect.any(String),
      primaryEmail: expect.any(String),
    });
    expect(["na", "failed", "success", "blocked"]).toContain(org.paymentStatus);
    expect([
      "personal",
      "basicDirect",
      "teamMonthlyDirect",
      "teamMonthlyAws",
      "axiomCloud",
      "teamPlus",
      "enterprise",
      "comped",
      "accelerator",
    ]).toContain(org.plan);
    for (const f of LICENSE_FIELDS) expect(org.license).toHaveProperty(f);
    expect(typeof org.license.maxDatasets).toBe("number");
    expect(Array.isArray(org.license.withAuths)).toBe(true);
  });

  it("PUT changes only the name", async () => {
    const before = (await api(em.current, "GET", `/v2/orgs/${em.current.orgId}`)).body;
    const put = await api(em.current, "PUT", `/v2/orgs/${em.current.orgId}`, {
      ...before,
      name: "Renamed Org",
      plan: "enterprise",
    });
    expect(put.status).toBe(200);
    expect(put.body.name).toBe("Renamed Org");
    expect(put.body.plan).toBe(before.plan);
    expect(put.body.license).toEqual(before.license);
    expect((await api(em.current, "GET", `/v2/orgs/${em.current.orgId}`)).body.name).toBe("Renamed Org");
  });
});

describe("starred queries", () => {
  const sq = (name: string, who: string, dataset?: string, apl = "['web'] | take 5") => ({
    kind: "apl",
    name,
    who,
    dataset,
    metadata: { k: "v" },
    query: { apl },
  });

  it("POST returns sq_ id; GET, PUT, DELETE", async () => {
    const res = await api(em.current, "POST", "/v2/apl-starred-queries", sq("mine", "local-user", "web"));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: expect.stringMatching(/^sq_/), ...sq("mine", "local-user", "web") });
    expect((await api(em.current, "GET", `/v2/apl-starred-queries/${res.body.id}`)).body).toEqual(res.body);
    const put = await api(em.current, "PUT", `/v2/apl-starred-queries/${res.body.id}`, {
      ...res.body,
      name: "mine2",
    });
    expect(put.body).toEqual({ ...res.body, name: "mine2" });
    const del = await api(em.current, "DELETE", `/v2/apl-starred-queries/${res.body.id}`);
    expect([del.status, del.text]).toEqual([204, ""]);
  });

  it("lists by who (unset = own, user id, team, all), dataset, qs, limit and offset", async () => {
    const made: Record<string, string> = {};
    for (const [name, who, ds, apl] of [
      ["lq-own-1", "local-user", "logs", "['logs'] | where level == 'error'"],
      ["lq-own-2", "local-user", "web", "['web'] | count()"],
      ["lq-alice", "alice", "logs", "['logs'] | take 1"],
      ["lq-team", "team", "web", "['web'] | where slow"],
    ])
      made[name] = (await api(em.current, "POST", "/v2/apl-starred-queries", sq(name, who, ds, apl))).body.id;
    const names = async (qs: string) =>
      ((await api(em.current, "GET", `/v2/apl-starred-queries?${qs}`)).body as { name: string }[])
        .map((q) => q.name)
        .filter((n) => n.startsWith("lq-"))
        .sort();
    expect(await names("")).toEqual(["lq-own-1", "lq-own-2"]);
    expect(await names("who=alice")).toEqual(["lq-alice"]);
    expect(await names("who=team")).toEqual(["lq-alice", "lq-team"]);
    expect(await names("who=all")).toEqual(["lq-alice", "lq-own-1", "lq-own-2", "lq-team"]);
    expect(await names("who=all&dataset=logs")).toEqual(["lq-alice", "lq-own-1"]);
    expect(await names("who=all&qs=LEVEL")).toEqual(["lq-own-1"]);
    expect(await names("who=all&qs=alice")).toEqual(["lq-alice"]);
    const all = (await api(em.current, "GET", "/v2/apl-starred-queries?who=all&limit=1000")).body as {
      id: string;
    }[];
    const page = (await api(em.current, "GET", "/v2/apl-starred-queries?who=all&limit=2&offset=1")).body as {
      id: string;
    }[];
    expect(page.map((q) => q.id)).toEqual(all.slice(1, 3).map((q) => q.id));
  });
});
