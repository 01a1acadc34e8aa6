/**
 * The dashboards endpoints of the OpenAPI v2 document against a real emulator: addressing by uid, the version
 * every write increments, 409 on an existing uid, 412 carrying `currentVersion`, `overwrite: true` winning, the
 * chart PATCH, paging, and the `DashboardError` bodies. What the service injects into a stored document (`uid`,
 * `overrides: {}`, the lower-case everyone owner) is terraform-provider-axiom's record of the live service
 * (axiom/resource_dashboard.go lines 458-468 and 528-553, and its tests).
 */
import { api, useEmulator } from "../helpers/emulator";

const em = useEmulator();
const document = (text = "hello", extra: Record<string, unknown> = {}) => ({
  name: "raw crud dashboard",
  owner: "X-AXIOM-EVERYONE",
  charts: [{ id: "note-1", type: "Note", text }],
  layout: [{ i: "note-1", x: 0, y: 0, w: 4, h: 4 }],
  refreshTime: 60,
  schemaVersion: 2,
  timeWindowStart: "qr-now-1h",
  timeWindowEnd: "qr-now",
  ...extra,
});
const call = (method: string, path: string, body?: unknown) => api(em.current, method, path, body);

describe("create and read by uid", () => {
  it("creates with a declared uid (201, status created, version 1) and reads it back at /uid/{uid}", async () => {
    const res = await call("POST", "/v2/dashboards", {
      uid: "dash-a",
      dashboard: document(),
      message: "first",
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: "created", dashboard: { uid: "dash-a", version: 1 } });
    const { dashboard } = res.body;
    for (const key of ["id", "createdAt", "updatedAt", "createdBy", "updatedBy"])
      expect(typeof dashboard[key]).toBe("string");
    expect(dashboard.id).not.toBe("dash-a");
    // What the service injects, and the everyone owner echoed lower-case.
    expect(dashboard.dashboard).toMatchObject({ uid: "dash-a", overrides: {}, owner: "x-axiom-everyone" });
    const got = await call("GET", "/v2/dashboards/uid/dash-a");
    expect(got.status).toBe(200);
    expect(got.body).toEqual(dashboard);
  });

  it("assigns a uid of the documented pattern when none is given, and defaults the owner to everyone", async () => {
    const res = await call("POST", "/v2/dashboards", { dashboard: document("x", { owner: undefined }) });
    expect(res.status).toBe(201);
    expect(res.body.dashboard.uid).toMatch(/^[A-Za-z0-9_-]{1,128}$/);
    expect(res.body.dashboard.dashboard.owner).toBe("x-axiom-everyone");
  });

  it("keeps a user id owner as sent", async () => {
    const res = await call("POST", "/v2/dashboards", { dashboard: document("x", { owner: "usr_Mixed" }) });
    expect(res.body.dashboard.dashboard.owner).toBe("usr_Mixed");
  });

  it("answers 404 as a DashboardError for a uid that does not exist", async () => {
    for (const [method, body] of [
      ["GET", undefined],
      ["DELETE", undefined],
      ["PATCH", { chart: { text: "x" }, overwrite: true }],
    ] as const) {
      const path = method === "PATCH" ? "/v2/dashboards/uid/nope/charts/c" : "/v2/dashboards/uid/nope";
      const res = await call(method, path, body);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: "not_found", uid: "nope" });
      expect(res.body.message).toMatch(/not found/i);
    }
  });

  it("lists with limit and offset, every item a DashboardResource with its uid", async () => {
    for (const uid of ["page-1", "page-2", "page-3"])
      await call("POST", "/v2/dashboards", { uid, dashboard: document() });
    const all = (await call("GET", "/v2/dashboards?limit=1000")).body as { uid: string }[];
    const at = all.findIndex((d) => d.uid === "page-1");
    const page = await call("GET", `/v2/dashboards?limit=2&offset=${at + 1}`);
    expect(page.status).toBe(200);
    expect(page.body.map((d: { uid: string }) => d.uid)).toEqual(["page-2", "page-3"]);
    expect((await call("GET", "/v2/dashboards")).body.length).toBeLessThanOrEqual(100);
    for (const bad of ["limit=0", "limit=1001", "offset=-1", "limit=x"]) {
      const res = await call("GET", `/v2/dashboards?${bad}`);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("bad_request");
    }
  });
});

describe("versions: every write increments; 409, 412 and overwrite", () => {
  const uid = "versioned";
  beforeAll(async () => {
    await call("POST", "/v2/dashboards", { uid, dashboard: document("v1") });
  });

  it("a create of an existing uid without overwrite answers 409", async () => {
    const res = await call("POST", "/v2/dashboards", { uid, dashboard: document("again") });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: "already_exists", uid });
    expect(res.body.reason).toContain("overwrite: true");
  });

  it("an update with the current version succeeds and increments it", async () => {
    const res = await call("PUT", `/v2/dashboards/uid/${uid}`, { dashboard: document("v2"), version: 1 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "updated", dashboard: { uid, version: 2 } });
    expect(res.body).not.toHaveProperty("overwritten");
  });

  it("a version sent as a string of digits is compared as the same version", async () => {
    const res = await call("PUT", `/v2/dashboards/uid/${uid}`, { dashboard: document("v3"), version: "2" });
    expect(res.status).toBe(200);
    expect(res.body.dashboard.version).toBe(3);
  });

  it("a stale version answers 412 carrying currentVersion, and changes nothing", async () => {
    const res = await call("PUT", `/v2/dashboards/uid/${uid}`, { dashboard: document("stale"), version: 1 });
    expect(res.status).toBe(412);
    expect(res.body).toMatchObject({
      code: "version_mismatch",
      message: "dashboard version mismatch",
      uid,
      currentVersion: 3,
    });
    expect((await call("GET", `/v2/dashboards/uid/${uid}`)).body.dashboard.charts[0].text).toBe("v3");
  });

  it("an update naming no version answers 412 too", async () => {
    const res = await call("PUT", `/v2/dashboards/uid/${uid}`, { dashboard: document("none") });
    expect(res.status).toBe(412);
    expect(res.body.currentVersion).toBe(3);
  });

  it("a create naming a stale version of an existing uid answers 412", async () => {
    const res = await call("POST", "/v2/dashboards", { uid, dashboard: document("x"), version: 2 });
    expect(res.status).toBe(412);
    expect(res.body.currentVersion).toBe(3);
  });

  it("overwrite: true wins, on PUT and on POST, saying overwritten", async () => {
    const put = await call("PUT", `/v2/dashboards/uid/${uid}`, {
      dashboard: document("mine"),
      version: 1,
      overwrite: true,
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ status: "updated", overwritten: true, dashboard: { version: 4 } });
    const post = await call("POST", "/v2/dashboards", { uid, dashboard: document("ours"), overwrite: true });
    expect(post.status).toBe(200);
    expect(post.body).toMatchObject({ status: "updated", overwritten: true, dashboard: { version: 5 } });
    expect(post.body.dashboard.dashboard.charts[0].text).toBe("ours");
    // The server's stamps survive a write; the id stays.
    expect(post.body.dashboard.createdAt).toBe(put.body.dashboard.createdAt);
    expect(post.body.dashboard.id).toBe(put.body.dashboard.id);
  });

  it("a PUT of a uid that does not exist creates it (201)", async () => {
    const res = await call("PUT", "/v2/dashboards/uid/made-by-put", { dashboard: document() });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: "created", dashboard: { uid: "made-by-put", version: 1 } });
  });

  it("a PUT whose body names another uid than its path answers 422", async () => {
    const res = await call("PUT", `/v2/dashboards/uid/${uid}`, {
      uid: "other",
      dashboard: document(),
      overwrite: true,
    });
    expect(res.status).toBe(422);
    expect(res.body.message).toContain("uid");
  });
});

describe("PATCH of one chart", () => {
  const uid = "patched";
  beforeAll(async () => {
    await call("POST", "/v2/dashboards", {
      uid,
      dashboard: document("note", {
        charts: [
          { id: "note-1", type: "Note", text: "note" },
          { id: "ts", type: "TimeSeries", name: "Requests", query: { apl: "['logs'] | count" } },
        ],
        layout: [
          { i: "note-1", x: 0, y: 0, w: 4, h: 4 },
          { i: "ts", x: 4, y: 0, w: 8, h: 4 },
        ],
      }),
    });
  });

  it("merges the patch into the chart and increments the version", async () => {
    const res = await call("PATCH", `/v2/dashboards/uid/${uid}/charts/ts`, {
      chart: { name: "Requests per minute", query: { queryOptions: { timeSeriesVariant: "bars" } } },
      version: 1,
      message: "rename",
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "updated", dashboard: { uid, version: 2 } });
    expect(res.body.dashboard.dashboard.charts[1]).toEqual({
      id: "ts",
      type: "TimeSeries",
      name: "Requests per minute",
      query: { apl: "['logs'] | count", queryOptions: { timeSeriesVariant: "bars" } },
    });
    expect(res.body.dashboard.dashboard.charts[0]).toEqual({ id: "note-1", type: "Note", text: "note" });
  });

  it("a null in the patch removes the key (JSON merge patch)", async () => {
    const res = await call("PATCH", `/v2/dashboards/uid/${uid}/charts/ts`, {
      chart: { name: null },
      version: 2,
    });
    expect(res.status).toBe(200);
    expect(res.body.dashboard.dashboard.charts[1]).not.toHaveProperty("name");
    expect(res.body.dashboard.version).toBe(3);
  });

  it("a stale version answers 412 with currentVersion; overwrite wins", async () => {
    const stale = await call("PATCH", `/v2/dashboards/uid/${uid}/charts/note-1`, {
      chart: { text: "x" },
      version: 1,
    });
    expect(stale.status).toBe(412);
    expect(stale.body.currentVersion).toBe(3);
    const won = await call("PATCH", `/v2/dashboards/uid/${uid}/charts/note-1`, {
      chart: { text: "x" },
      overwrite: true,
    });
    expect(won.status).toBe(200);
    expect(won.body).toMatchObject({ overwritten: true, dashboard: { version: 4 } });
  });

  it("a chart that does not exist answers 404; an id other than the path's, or a patch breaking a rule, 422", async () => {
    const missing = await call("PATCH", `/v2/dashboards/uid/${uid}/charts/nope`, {
      chart: { text: "x" },
      overwrite: true,
    });
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe("not_found");
    const otherId = await call("PATCH", `/v2/dashboards/uid/${uid}/charts/ts`, {
      chart: { id: "ts2" },
      overwrite: true,
    });
    expect(otherId.status).toBe(422);
    expect(otherId.body.message).toContain("chart.id");
    const broken = await call("PATCH", `/v2/dashboards/uid/${uid}/charts/ts`, {
      chart: { name: "x".repeat(501) },
      overwrite: true,
    });
    expect(broken.status).toBe(422);
    expect(broken.body).toMatchObject({ code: "invalid_dashboard" });
    expect(broken.body.message).toContain("dashboard.charts[1].name");
    expect((await call("GET", `/v2/dashboards/uid/${uid}`)).body.version).toBe(4);
  });
});

describe("bodies and deletes", () => {
  it("a body that is not JSON is 400; a document breaking a rule 422 naming the field, as a DashboardError", async () => {
    const malformed = await call("POST", "/v2/dashboards", "{not json");
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe("bad_request");
    const invalid = await call("POST", "/v2/dashboards", { uid: "bad uid", dashboard: document() });
    expect(invalid.status).toBe(422);
    expect(invalid.body).toMatchObject({ code: "invalid_dashboard" });
    expect(invalid.body.message).toContain("uid");
    const missing = await call("POST", "/v2/dashboards", {});
    expect(missing.status).toBe(422);
    expect(missing.body.message).toContain("dashboard: is required");
  });

  it("DELETE answers 204, then the uid is gone", async () => {
    await call("POST", "/v2/dashboards", { uid: "doomed", dashboard: document() });
    const res = await call("DELETE", "/v2/dashboards/uid/doomed");
    expect(res.status).toBe(204);
    expect((await call("GET", "/v2/dashboards/uid/doomed")).status).toBe(404);
  });
});
