/** HTTP-level behaviour: unknown routes, wrong methods, malformed bodies, headers on every response. */
import { connect } from "node:net";
import { api, useEmulator, type ApiResponse } from "../helpers/emulator";

/** A limit far above what these tests send, so that every response reports the window. */
const LIMIT = 1_000_000;
/** The rate-limit windows' clock, held half a minute into a window: the reset is exact however long a request takes. */
const T0 = Date.UTC(2030, 0, 1);
const clock = () => T0 + 30_000;
const em = useEmulator({ record: true, rateLimit: LIMIT, clock });
/** Refuses bodies over 64 bytes (413) and fails every request that gets past that with an injected 503. */
const strict = useEmulator({
  maxBodyBytes: 64,
  faults: "503=1",
  rateLimit: LIMIT,
  datasets: ["big"],
  clock,
});
/** No rate limit configured. */
const unlimited = useEmulator();

/** The status line and headers of a raw request Node's parser refuses (431 for oversized headers). */
function rawHeaders(
  port: number,
  request: string,
): Promise<{ status: number; headers: Record<string, string> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(request));
    let text = "";
    socket.on("data", (chunk) => (text += chunk.toString()));
    socket.on("error", reject);
    socket.on("close", () => {
      const [statusLine, ...lines] = text.split("\r\n\r\n")[0].split("\r\n");
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const i = line.indexOf(":");
        headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
      }
      resolve({ status: Number(statusLine.split(" ")[1]), headers });
    });
  });
}

/** The trace and rate-limit headers every response must carry. */
function expectTraceAndRateHeaders(headers: ApiResponse["headers"]): void {
  expect(headers["x-trace-id"]).toMatch(/^[0-9a-f]{32}$/);
  expect(headers["x-ratelimit-scope"]).toMatch(/^(user|organization)$/);
  expect(Number(headers["x-ratelimit-limit"])).toBe(LIMIT);
  expect(Number(headers["x-ratelimit-remaining"])).toBeGreaterThanOrEqual(0);
  // The end of the minute the clock is in, in epoch seconds.
  expect(Number(headers["x-ratelimit-reset"])).toBe((T0 + 60_000) / 1000);
}

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
  ])("%s (%s %s)", async (_name, method, path, body, status) => {
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
    ["invalid body", "POST", "/v2/rbac/roles", 422],
  ])("%s carries X-Trace-Id and X-RateLimit-*", async (_name, method, path, status) => {
    const body = method === "POST" ? (status === 201 ? { datasets: ["a"], type: "t" } : {}) : undefined;
    const res = await api(em.current, method, path, body);
    expect(res.status).toBe(status);
    expectTraceAndRateHeaders(res.headers);
  });

  it.each([
    ["forbidden", "GET", "/v2/monitors", undefined, { authorization: "Bearer wrong" }, 403],
    ["unknown route", "GET", "/v2/unknown", undefined, {}, 404],
    ["wrong method", "PATCH", "/v2/monitors", undefined, {}, 405],
  ])("%s carries X-Trace-Id and X-RateLimit-*", async (_name, method, path, body, headers, status) => {
    const res = await api(em.current, method, path, body, headers);
    expect(res.status).toBe(status);
    expectTraceAndRateHeaders(res.headers);
  });

  it("a body over the limit (413, refused before it is read) carries X-Trace-Id and X-RateLimit-*", async () => {
    const res = await api(strict.current, "POST", "/v1/datasets/big/ingest", "x".repeat(65));
    expect(res.status).toBe(413);
    expectTraceAndRateHeaders(res.headers);
  });

  it("an injected fault carries X-Trace-Id and X-RateLimit-*", async () => {
    const res = await api(strict.current, "GET", "/v2/monitors");
    expect(res.status).toBe(503);
    expectTraceAndRateHeaders(res.headers);
  });

  it("headers Node refuses to parse (431) still get X-Trace-Id and X-RateLimit-*", async () => {
    const port = Number(new URL(em.current.url).port);
    const res = await rawHeaders(
      port,
      `GET /v2/monitors HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`,
    );
    expect(res.status).toBe(431);
    expectTraceAndRateHeaders(res.headers);
  });

  it("trace ids differ between responses", async () => {
    const a = await api(em.current, "GET", "/v2/monitors");
    const b = await api(em.current, "GET", "/v2/monitors");
    expect(a.headers["x-trace-id"]).not.toBe(b.headers["x-trace-id"]);
  });

  it("without a rate limit only the scope is sent: no Limit, Remaining or Reset that nothing enforces", async () => {
    for (let i = 0; i < 3; i++) {
      const res = await api(unlimited.current, "GET", "/v2/monitors");
      expect(res.status).toBe(200);
      expect(res.headers["x-ratelimit-scope"]).toBe("organization");
      expect(res.headers).not.toHaveProperty("x-ratelimit-limit");
      expect(res.headers).not.toHaveProperty("x-ratelimit-remaining");
      expect(res.headers).not.toHaveProperty("x-ratelimit-reset");
    }
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
