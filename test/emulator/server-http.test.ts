/** HTTP-level behaviour: unknown routes, wrong methods, malformed bodies, headers on every response. */
import { api, useEmulator } from "../helpers/emulator";

const em = useEmulator({ record: true });

describe("errors are JSON {code, message}", () => {
  it.each([
    ["unknown route", "GET", "/v2/unknown", undefined, 404],
    ["unknown version", "GET", "/v9/monitors", undefined, 404],
    ["wrong method on a collection", "DELETE", "/v2/monitors", undefined, 405],
    ["wrong method on an item", "POST", "/v2/monitors/mon_x", undefined, 405],
    ["wrong method on ingest", "GET", "/v1/datasets/web/ingest", undefined, 405],
    ["malformed JSON", "POST", "/v2/monitors", "{not json", 400],
    ["empty body", "POST", "/v2/monitors", "", 400],
    ["JSON array instead of object", "POST", "/v2/rbac/roles", "[1,2]", 400],
    ["JSON string instead of object", "PUT", "/v2/orgs/local-org", '"x"', 400],
  ])("%s → %d", async (_name, method, path, body, status) => {
    const res = await api(em.current, method, path, body);
    expect(res.status).toBe(status);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expect(res.body).toEqual({ code: status, message: expect.any(String) });
    expect(res.body.message).not.toMatch(/\bat .*\.(ts|js):\d+/);
  });

  it("a malformed JSON body names the problem", async () => {
    const res = await api(em.current, "POST", "/v2/annotations", '{"datasets": [}');
    expect(res.body.message).toMatch(/^request body is not valid JSON: /);
  });

  it("405 lists the allowed methods", async () => {
    const res = await api(em.current, "PATCH", "/v2/monitors/mon_1");
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe("GET, PUT, DELETE");
  });

  it("ids with reserved characters are decoded, not routed elsewhere", async () => {
    const res = await api(em.current, "GET", "/v2/monitors/mon_a%2Fb");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 404, message: "Not found" });
  });
});

describe("headers on every response", () => {
  it.each([
    ["success", "GET", "/v2/monitors", 200],
    ["created", "POST", "/v2/annotations", 201],
    ["not found", "GET", "/v2/monitors/mon_none", 404],
    ["bad request", "POST", "/v2/rbac/roles", 400],
  ])("%s carries X-Trace-Id and X-RateLimit-*", async (_name, method, path, status) => {
    const body = method === "POST" ? (status === 201 ? { datasets: ["a"], type: "t" } : {}) : undefined;
    const res = await api(em.current, method, path, body);
    expect(res.status).toBe(status);
    expect(res.headers["x-trace-id"]).toMatch(/^[0-9a-f]{32}$/);
    expect(res.headers["x-ratelimit-scope"]).toMatch(/^(user|organization)$/);
    expect(Number(res.headers["x-ratelimit-limit"])).toBeGreaterThan(0);
    expect(Number(res.headers["x-ratelimit-remaining"])).toBeGreaterThanOrEqual(0);
    const reset = Number(res.headers["x-ratelimit-reset"]);
    expect(reset).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000));
    expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 61);
  });

  it("trace ids differ between responses", async () => {
    const a = await api(em.current, "GET", "/v2/monitors");
    const b = await api(em.current, "GET", "/v2/monitors");
    expect(a.headers["x-trace-id"]).not.toBe(b.headers["x-trace-id"]);
  });

  it("X-RateLimit-Remaining counts down within the window", async () => {
    const a = Number((await api(em.current, "GET", "/v2/monitors")).headers["x-ratelimit-remaining"]);
    const b = Number((await api(em.current, "GET", "/v2/monitors")).headers["x-ratelimit-remaining"]);
    // A minute boundary between the two requests resets the count.
    expect(b === a - 1 || b > a).toBe(true);
  });
});

it("records what the server received, with the token redacted", async () => {
  const before = em.current.received.length;
  await api(
    em.current,
    "POST",
    "/v2/annotations?x=1&x=2",
    { datasets: ["rec"], type: "t" },
    { "x-custom": "yes" },
  );
  const r = em.current.received[before];
  expect(r).toMatchObject({ method: "POST", path: "/v2/annotations", query: { x: ["1", "2"] } });
  expect(r.headers["x-custom"]).toBe("yes");
  expect(r.headers.authorization).toBe("[redacted]");
  expect(JSON.parse(r.body.toString())).toEqual({ datasets: ["rec"], type: "t" });
  expect(em.current.stats.requests).toBeGreaterThan(before);
});
