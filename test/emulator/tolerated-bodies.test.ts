/**
 * Bodies the service tolerates, as the official Go client (axiom-go) sends them: whole objects read from
 * GET sent back (id, createdAt, createdBy, updatedAt, zero times), `notifierIDs`, a custom webhook's
 * `URL`/`Headers`/`Body`, and the zero time as "no bound" on the annotation list.
 */
import { api, useEmulator } from "../helpers/emulator";

const em = useEmulator();
const ZERO = "0001-01-01T00:00:00Z";
const GO_READ_ONLY = {
  createdAt: "2020-01-01T00:00:00Z",
  createdBy: "usr_someone_else",
  updatedAt: "2020-01-02T00:00:00Z",
  updatedBy: "usr_someone_else",
};

/** One resource: its collection path and a valid create body. */
const RESOURCES: [string, string, Record<string, unknown>][] = [
  [
    "annotation",
    "/v2/annotations",
    { type: "deploy", datasets: ["web"], title: "t", time: "2024-01-01T00:00:00Z" },
  ],
  [
    "monitor",
    "/v2/monitors",
    {
      name: "m",
      type: "Threshold",
      aplQuery: "['web'] | summarize count()",
      operator: "Above",
      threshold: 1,
    },
  ],
  ["notifier", "/v2/notifiers", { name: "n", properties: { email: { emails: ["ops@example.com"] } } }],
  ["role", "/v2/rbac/roles", { name: "readers", orgCapabilities: { datasets: ["read"] } }],
  [
    "starred query",
    "/v2/apl-starred-queries",
    {
      kind: "apl",
      name: "s",
      who: "local-user",
      dataset: "web",
      metadata: { a: "b" },
      query: { apl: "['web']" },
    },
  ],
];

describe("whole objects sent back", () => {
  it.each(RESOURCES)(
    "%s: PUT of the object read by GET, unchanged, succeeds and changes nothing",
    async (_n, path, body) => {
      const created = await api(em.current, "POST", path, body);
      expect(created.status).toBeLessThan(300);
      const read = await api(em.current, "GET", `${path}/${created.body.id}`);
      const put = await api(em.current, "PUT", `${path}/${created.body.id}`, read.body);
      expect(put.status).toBe(200);
      expect(put.body).toEqual(read.body);
      expect((await api(em.current, "GET", `${path}/${created.body.id}`)).body).toEqual(read.body);
    },
  );

  it.each(RESOURCES)(
    "%s: PUT with foreign id, createdAt, createdBy, updatedAt and unknown fields keeps the server's values",
    async (_n, path, body) => {
      const created = await api(em.current, "POST", path, { ...body, name: `${String(body.name)}-2` });
      const id = created.body.id as string;
      const put = await api(em.current, "PUT", `${path}/${id}`, {
        ...created.body,
        ...GO_READ_ONLY,
        id: "someone-elses-id",
        unknownField: { nested: true },
      });
      expect(put.status).toBe(200);
      expect(put.body.id).toBe(id);
      expect(put.body.unknownField).toBeUndefined();
      expect(put.body.updatedAt).toBeUndefined();
      for (const k of ["createdAt", "createdBy"]) expect(put.body[k]).toBe(created.body[k]);
    },
  );

  it.each(RESOURCES)(
    "%s: POST of a whole object with an id creates a new one with its own id",
    async (_n, path, body) => {
      const sent = { ...body, name: `${String(body.name)}-3`, ...GO_READ_ONLY, id: "forged_1" };
      const res = await api(em.current, "POST", path, sent);
      expect(res.status).toBeLessThan(300);
      expect(res.body.id).not.toBe("forged_1");
      expect(res.body.createdBy).not.toBe(GO_READ_ONLY.createdBy);
      expect((await api(em.current, "GET", `${path}/forged_1`)).status).toBe(404);
    },
  );

  it("organization: PUT of the org read by GET, with the Go client's zero times, changes only the name (and its meta fields)", async () => {
    const read = await api(em.current, "GET", `/v2/orgs/${em.current.orgId}`);
    const put = await api(em.current, "PUT", `/v2/orgs/${em.current.orgId}`, {
      ...read.body,
      name: "Renamed",
      firstFailedPayment: ZERO,
      lastUsageSync: ZERO,
    });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({
      ...read.body,
      name: "Renamed",
      metaModified: expect.any(String),
      metaVersion: String(Number(read.body.metaVersion) + 1),
    });
    expect(put.body.lastUsageSync).toBe(read.body.lastUsageSync);
  });
});

describe("zero times and the other spellings", () => {
  it.each([
    ["monitor disabledUntil", "/v2/monitors", RESOURCES[1][2], "disabledUntil"],
    ["notifier disabledUntil", "/v2/notifiers", RESOURCES[2][2], "disabledUntil"],
  ])("%s as the zero time means not disabled (null)", async (_n, path, body, field) => {
    const res = await api(em.current, "POST", path, { ...body, name: `zero-${field}`, [field]: ZERO });
    expect(res.status).toBe(200);
    expect(res.body[field]).toBeNull();
    const put = await api(em.current, "PUT", `${path}/${res.body.id}`, { ...res.body, [field]: ZERO });
    expect(put.body[field]).toBeNull();
  });

  it("monitor POST with notifierIDs (the Go spelling) is read back as notifierIds", async () => {
    const n = await api(em.current, "POST", "/v2/notifiers", RESOURCES[2][2]);
    const res = await api(em.current, "POST", "/v2/monitors", {
      ...RESOURCES[1][2],
      notifierIDs: [n.body.id],
    });
    expect(res.status).toBe(200);
    expect(res.body.notifierIds).toEqual([n.body.id]);
    expect(res.body.notifierIDs).toBeUndefined();
  });

  it("notifier PUT with a custom webhook as URL/Headers/Body is stored as url/headers/body", async () => {
    const hook = { url: "https://example.com/a", body: "{}", headers: { "X-A": "1" } };
    const res = await api(em.current, "POST", "/v2/notifiers", {
      name: "hook",
      properties: { customWebhook: hook },
    });
    const put = await api(em.current, "PUT", `/v2/notifiers/${res.body.id}`, {
      ...res.body,
      ...GO_READ_ONLY,
      properties: {
        customWebhook: { URL: "https://example.com/b", Headers: { "X-B": "2" }, Body: "{{.Title}}" },
      },
    });
    expect(put.status).toBe(200);
    expect(put.body.properties).toEqual({
      customWebhook: { url: "https://example.com/b", headers: { "X-B": "2" }, body: "{{.Title}}" },
    });
  });

  it("the Go spelling still goes through validation: a bad URL is a 422 naming the field", async () => {
    const res = await api(em.current, "POST", "/v2/notifiers", {
      name: "hook",
      properties: { customWebhook: { URL: "not a url", Body: "{}" } },
    });
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(/customWebhook\.(url|URL)/);
  });

  it.each([
    ["start zero, end real", `start=${ZERO}&end=2024-06-01T00:00:00Z`, ["early"]],
    ["start real, end zero", `start=2024-06-01T00:00:00Z&end=${ZERO}`, ["late"]],
    ["both zero", `start=${ZERO}&end=${ZERO}`, ["early", "late"]],
  ])("annotation list with %s: the zero time is no bound", async (_n, qs, titles) => {
    for (const [title, time] of [
      ["early", "2024-01-01T00:00:00Z"],
      ["late", "2024-12-01T00:00:00Z"],
    ]) {
      const have = await api(em.current, "GET", `/v2/annotations?datasets=zero-list`);
      if (!have.body.some((a: { title: string }) => a.title === title)) {
        await api(em.current, "POST", "/v2/annotations", {
          type: "mark",
          datasets: ["zero-list"],
          title,
          time,
        });
      }
    }
    const res = await api(em.current, "GET", `/v2/annotations?datasets=zero-list&${qs}`);
    expect(res.status).toBe(200);
    expect(res.body.map((a: { title: string }) => a.title).sort()).toEqual(titles);
  });
});
