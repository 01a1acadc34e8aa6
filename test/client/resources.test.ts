/** Every resource method against a real emulator: the result, and what the server received. */
import { gunzipSync } from "node:zlib";
import {
  ForbiddenError,
  NotFoundError,
  ObservabilityClient,
  PathParameterError,
  type RequestOptions,
} from "../../provider/client";
import { VERSION } from "../../provider/client/version";
import { useEmulator } from "../helpers/emulator";

const em = useEmulator({ record: true, datasets: ["shapes"] });
let client: ObservabilityClient;

beforeAll(() => {
  client = new ObservabilityClient({
    url: em.current.url,
    token: em.current.token,
    userAgent: "resources-test",
  });
});
afterAll(() => client.close());

/** The requests the emulator received while `fn` ran. */
async function capture<T>(
  fn: () => Promise<T>,
): Promise<{ result: T; requests: typeof em.current.received }> {
  const before = em.current.received.length;
  const result = await fn();
  return { result, requests: em.current.received.slice(before) };
}

const json = (body: Buffer) => JSON.parse(body.toString("utf8"));

describe("headers every request carries", () => {
  it("sends Bearer auth (redacted in the recording), accept and the User-Agent with the custom suffix", async () => {
    const { requests } = await capture(() => client.monitors.list());
    expect(requests).toHaveLength(1);
    expect(requests[0].headers).toMatchObject({
      authorization: "[redacted]",
      accept: "application/json",
      "user-agent": `pulumi-observability/${VERSION} resources-test`,
    });
    expect(requests[0].headers["x-service-org-id"]).toBeUndefined();
  });

  it("sends x-service-org-id with a personal token and the org id", async () => {
    const pat = new ObservabilityClient({
      url: em.current.url,
      token: em.current.personalToken,
      orgId: em.current.orgId,
    });
    const { result, requests } = await capture(() => pat.orgs.list());
    await pat.close();
    expect(result.map((o) => o.id)).toContain(em.current.orgId);
    expect(requests[0].headers["x-service-org-id"]).toBe(em.current.orgId);
    expect(requests[0].headers["user-agent"]).toBe(`pulumi-observability/${VERSION}`);
  });

  it("a wrong token is a ForbiddenError (403) with the service's message and trace id", async () => {
    const bad = new ObservabilityClient({ url: em.current.url, token: "wrong-token-123" });
    const p = bad.monitors.list();
    await expect(p).rejects.toBeInstanceOf(ForbiddenError);
    await expect(p).rejects.toMatchObject({
      status: 403,
      method: "GET",
      path: "/v2/monitors",
      traceId: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    await bad.close();
  });
});

describe("annotations", () => {
  let id: string;
  it("create: POST /v2/annotations with the JSON body, 201 parsed", async () => {
    const body = { datasets: ["web"], type: "deploy", title: "v1.2", time: "2024-05-01T10:00:00Z" };
    const { result, requests } = await capture(() => client.annotations.create(body));
    expect(result).toMatchObject({ ...body, id: expect.stringMatching(/^ann_/) });
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ method: "POST", path: "/v2/annotations" });
    expect(requests[0].headers["content-type"]).toBe("application/json");
    expect(json(requests[0].body)).toEqual(body);
    id = result.id;
  });
  it("get: GET /v2/annotations/{id}", async () => {
    const { result, requests } = await capture(() => client.annotations.get(id));
    expect(result).toMatchObject({ id, title: "v1.2" });
    expect(requests[0]).toMatchObject({ method: "GET", path: `/v2/annotations/${id}` });
  });
  it("list: GET /v2/annotations with datasets comma-joined, start and end", async () => {
    const params = { datasets: ["web", "api"], start: "2024-05-01T00:00:00Z", end: "2024-05-02T00:00:00Z" };
    const { result, requests } = await capture(() => client.annotations.list(params));
    expect(result.map((a) => a.id)).toEqual([id]);
    expect(requests[0]).toMatchObject({ method: "GET", path: "/v2/annotations" });
    expect(requests[0].query).toMatchObject({ datasets: "web,api", start: params.start, end: params.end });
  });
  it("update: PUT /v2/annotations/{id} with the partial body", async () => {
    const { result, requests } = await capture(() => client.annotations.update(id, { title: "v1.3" }));
    expect(result).toMatchObject({ id, title: "v1.3", type: "deploy" });
    expect(requests[0]).toMatchObject({ method: "PUT", path: `/v2/annotations/${id}` });
    expect(json(requests[0].body)).toEqual({ title: "v1.3" });
  });
  it("delete: DELETE /v2/annotations/{id} resolves to undefined; a second get is NotFoundError", async () => {
    const { result, requests } = await capture(() => client.annotations.delete(id));
    expect(result).toBeUndefined();
    expect(requests[0]).toMatchObject({ method: "DELETE", path: `/v2/annotations/${id}` });
    await expect(client.annotations.get(id)).rejects.toBeInstanceOf(NotFoundError);
  });
});

const monitorBody = {
  name: "errors",
  aplQuery: "['web'] | where status >= 500 | summarize count()",
  type: "Threshold" as const,
  operator: "Above" as const,
  threshold: 10,
  intervalMinutes: 5,
  rangeMinutes: 5,
};

describe("monitors", () => {
  let id: string;
  it("create: POST /v2/monitors", async () => {
    const { result, requests } = await capture(() => client.monitors.create(monitorBody));
    expect(result).toMatchObject({ ...monitorBody, id: expect.stringMatching(/^mon_/) });
    expect(requests[0]).toMatchObject({ method: "POST", path: "/v2/monitors" });
    expect(json(requests[0].body)).toEqual(monitorBody);
    id = result.id;
  });
  it("get and list", async () => {
    const got = await capture(() => client.monitors.get(id));
    expect(got.result).toMatchObject({ id, name: "errors" });
    expect(got.requests[0]).toMatchObject({ method: "GET", path: `/v2/monitors/${id}` });
    const listed = await capture(() => client.monitors.list());
    expect(listed.result.map((m) => m.id)).toContain(id);
    expect(listed.requests[0]).toMatchObject({ method: "GET", path: "/v2/monitors" });
  });
  it("update: PUT /v2/monitors/{id} with the whole monitor", async () => {
    const body = { ...monitorBody, threshold: 20 };
    const { result, requests } = await capture(() => client.monitors.update(id, body));
    expect(result).toMatchObject({ id, threshold: 20 });
    expect(requests[0]).toMatchObject({ method: "PUT", path: `/v2/monitors/${id}` });
    expect(json(requests[0].body)).toEqual(body);
  });
  it("history: GET /v2/monitors/{id}/history?startTime=&endTime=", async () => {
    const params = { startTime: "2000-01-01T00:00:00Z", endTime: "2100-01-01T00:00:00Z" };
    const { result, requests } = await capture(() => client.monitors.history(id, params));
    expect(Array.isArray(result)).toBe(true);
    for (const entry of result)
      expect(entry).toMatchObject({
        checkId: expect.any(String),
        state: expect.stringMatching(/^(open|closed)$/),
      });
    expect(requests[0]).toMatchObject({ method: "GET", path: `/v2/monitors/${id}/history`, query: params });
  });
  it("delete", async () => {
    const { requests } = await capture(() => client.monitors.delete(id));
    expect(requests[0]).toMatchObject({ method: "DELETE", path: `/v2/monitors/${id}` });
    await expect(client.monitors.get(id)).rejects.toMatchObject({ name: "NotFoundError", status: 404 });
  });
});

describe("notifiers", () => {
  let id: string;
  const body = { name: "oncall", properties: { email: { emails: ["a@example.com"] } } };
  it("create, get, list, update, delete", async () => {
    const created = await capture(() => client.notifiers.create(body));
    expect(created.result).toMatchObject({ ...body, id: expect.stringMatching(/^notify_/) });
    expect(created.requests[0]).toMatchObject({ method: "POST", path: "/v2/notifiers" });
    expect(json(created.requests[0].body)).toEqual(body);
    id = created.result.id;

    const got = await capture(() => client.notifiers.get(id));
    expect(got.result).toMatchObject({ id, name: "oncall" });
    expect(got.requests[0]).toMatchObject({ method: "GET", path: `/v2/notifiers/${id}` });

    const listed = await capture(() => client.notifiers.list());
    expect(listed.result.map((n) => n.id)).toContain(id);
    expect(listed.requests[0]).toMatchObject({ method: "GET", path: "/v2/notifiers" });

    const changed = { name: "oncall-2", properties: { email: { emails: ["b@example.com"] } } };
    const updated = await capture(() => client.notifiers.update(id, changed));
    expect(updated.result).toMatchObject({ id, ...changed });
    expect(updated.requests[0]).toMatchObject({ method: "PUT", path: `/v2/notifiers/${id}` });
    expect(json(updated.requests[0].body)).toEqual(changed);

    const deleted = await capture(() => client.notifiers.delete(id));
    expect(deleted.requests[0]).toMatchObject({ method: "DELETE", path: `/v2/notifiers/${id}` });
    await expect(client.notifiers.get(id)).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe("roles", () => {
  it("create, get, list, update, delete; a duplicate name is a ConflictError", async () => {
    const body = { name: "readers", orgCapabilities: { monitors: ["read" as const] } };
    const created = await capture(() => client.roles.create(body));
    expect(created.result).toMatchObject({ ...body, id: expect.any(String) });
    expect(created.requests[0]).toMatchObject({ method: "POST", path: "/v2/rbac/roles" });
    expect(json(created.requests[0].body)).toEqual(body);
    const id = created.result.id;
    await expect(client.roles.create(body)).rejects.toMatchObject({ name: "ConflictError", status: 409 });

    const got = await capture(() => client.roles.get(id));
    expect(got.result).toMatchObject({ id, name: "readers" });
    expect(got.requests[0]).toMatchObject({ method: "GET", path: `/v2/rbac/roles/${id}` });

    const listed = await capture(() => client.roles.list());
    expect(listed.result.map((r) => r.id)).toEqual([id]);
    expect(listed.requests[0]).toMatchObject({ method: "GET", path: "/v2/rbac/roles" });

    const changed = { name: "writers", orgCapabilities: { monitors: ["read" as const, "update" as const] } };
    const updated = await capture(() => client.roles.update(id, changed));
    expect(updated.result).toMatchObject({ id, ...changed });
    expect(updated.requests[0]).toMatchObject({ method: "PUT", path: `/v2/rbac/roles/${id}` });
    expect(json(updated.requests[0].body)).toEqual(changed);

    const deleted = await capture(() => client.roles.delete(id));
    expect(deleted.requests[0]).toMatchObject({ method: "DELETE", path: `/v2/rbac/roles/${id}` });
    await expect(client.roles.get(id)).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe("orgs", () => {
  it("list, get, update (rename)", async () => {
    const listed = await capture(() => client.orgs.list());
    expect(listed.result).toHaveLength(1);
    expect(listed.requests[0]).toMatchObject({ method: "GET", path: "/v2/orgs" });
    const id = listed.result[0].id;
    // Unknown fields survive the loose response schema.
    expect(listed.result[0]).toHaveProperty("slug");

    const got = await capture(() => client.orgs.get(id));
    expect(got.result).toMatchObject({ id, plan: expect.any(String), license: expect.any(Object) });
    expect(got.requests[0]).toMatchObject({ method: "GET", path: `/v2/orgs/${id}` });

    const updated = await capture(() => client.orgs.update(id, { name: "Renamed" }));
    expect(updated.result).toMatchObject({ id, name: "Renamed" });
    expect(updated.requests[0]).toMatchObject({ method: "PUT", path: `/v2/orgs/${id}` });
    expect(json(updated.requests[0].body)).toEqual({ name: "Renamed" });
  });
});

describe("starred queries", () => {
  it("create, get, list with params, update, delete", async () => {
    const body = {
      kind: "apl" as const,
      name: "slow requests",
      who: "local-user",
      dataset: "web",
      metadata: { team: "sre" },
      query: { apl: "['web'] | where duration > 1000" },
    };
    const created = await capture(() => client.starredQueries.create(body));
    expect(created.result).toMatchObject({ ...body, id: expect.any(String) });
    expect(created.requests[0]).toMatchObject({ method: "POST", path: "/v2/apl-starred-queries" });
    expect(json(created.requests[0].body)).toEqual(body);
    const id = created.result.id;

    const got = await capture(() => client.starredQueries.get(id));
    expect(got.result).toMatchObject({ id, name: "slow requests" });
    expect(got.requests[0]).toMatchObject({ method: "GET", path: `/v2/apl-starred-queries/${id}` });

    const listed = await capture(() =>
      client.starredQueries.list({ limit: 10, offset: 0, dataset: "web", who: "all", qs: "slow" }),
    );
    expect(listed.result.map((q) => q.id)).toEqual([id]);
    expect(listed.requests[0]).toMatchObject({ method: "GET", path: "/v2/apl-starred-queries" });
    expect(listed.requests[0].query).toEqual({
      limit: "10",
      offset: "0",
      dataset: "web",
      who: "all",
      qs: "slow",
    });

    const changed = { ...body, name: "very slow requests" };
    const updated = await capture(() => client.starredQueries.update(id, changed));
    expect(updated.result).toMatchObject({ id, name: "very slow requests" });
    expect(updated.requests[0]).toMatchObject({ method: "PUT", path: `/v2/apl-starred-queries/${id}` });

    const deleted = await capture(() => client.starredQueries.delete(id));
    expect(deleted.requests[0]).toMatchObject({ method: "DELETE", path: `/v2/apl-starred-queries/${id}` });
    await expect(client.starredQueries.get(id)).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe("path parameters are encoded so no id reaches another path", () => {
  it.each([
    ["a traversal stays one segment", "../orgs/x", "/v2/monitors/..%2Forgs%2Fx"],
    ["a slash and a query stay one segment", "a/b?c", "/v2/monitors/a%2Fb%3Fc"],
    ["a fragment and spaces are encoded", "a #b", "/v2/monitors/a%20%23b"],
    ["percent signs are encoded, so %2e%2e is not a dot segment", "%2e%2e", "/v2/monitors/%252e%252e"],
    ["unicode is UTF-8 percent-encoded", "mön", "/v2/monitors/m%C3%B6n"],
  ])("%s", async (_rule, id, expected) => {
    const before = em.current.received.length;
    await expect(client.monitors.get(id)).rejects.toBeInstanceOf(NotFoundError);
    const requests = em.current.received.slice(before);
    expect(requests).toHaveLength(1);
    expect(requests[0].path).toBe(expected);
  });

  it.each([
    ["an empty id is refused", ""],
    ["a . segment is refused", "."],
    ["a .. segment is refused", ".."],
  ])("%s before anything is sent", async (_rule, id) => {
    const before = em.current.received.length;
    await expect(client.monitors.get(id)).rejects.toThrow(PathParameterError);
    await expect(client.annotations.delete(id)).rejects.toThrow(PathParameterError);
    await expect(client.monitors.history(id, { startTime: "now-1h", endTime: "now" })).rejects.toThrow(
      /must not be/,
    );
    expect(em.current.received.length).toBe(before);
  });
});

describe("request options", () => {
  it("an aborted signal rejects with AbortError and is not retried", async () => {
    const options: RequestOptions = { signal: AbortSignal.abort() };
    await expect(client.monitors.list(options)).rejects.toMatchObject({ name: "AbortError", method: "GET" });
  });
});

describe("ingest and query (request shapes)", () => {
  it("ingest sends gzip NDJSON with timestamp-field/format as query parameters", async () => {
    const events = [
      { ts: "2024-05-01T10:00:00Z", msg: "a" },
      { ts: "2024-05-01T10:00:01Z", msg: "b" },
    ];
    const { result, requests } = await capture(() =>
      client.ingest("shapes", events, { timestampField: "ts", timestampFormat: "2006-01-02T15:04:05Z07:00" }),
    );
    expect(result).toMatchObject({ ingested: 2, failed: 0, failures: [], batches: 1 });
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ method: "POST", path: "/v1/datasets/shapes/ingest" });
    expect(requests[0].query).toEqual({
      "timestamp-field": "ts",
      "timestamp-format": "2006-01-02T15:04:05Z07:00",
    });
    expect(requests[0].headers).toMatchObject({
      "content-type": "application/x-ndjson",
      "content-encoding": "gzip",
    });
    const lines = gunzipSync(requests[0].body)
      .toString("utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines).toEqual(events);
  });
});
