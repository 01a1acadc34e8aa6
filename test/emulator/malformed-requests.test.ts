/**
 * Malformed requests: wrong content types, bad gzip, truncated JSON, a body on GET, oversized headers and
 * bodies, broken HTTP. Each gets a 4xx JSON `{code, message}` whose message names the problem, never a 5xx,
 * a hang or Node's bare status line.
 */
import { connect } from "node:net";
import { Readable } from "node:stream";
import { gzipSync } from "node:zlib";
import { request } from "undici";
import { MAX_BODY_BYTES, MAX_HEADER_BYTES } from "../../emulator";
import { api, useEmulator, type ApiResponse } from "../helpers/emulator";

const em = useEmulator({ datasets: ["a", "big", "enc"] });
const small = useEmulator({ maxBodyBytes: 1024, datasets: ["big", "edge"] });

/** Sends raw bytes over TCP and parses the one HTTP response that comes back before the server closes. */
function raw(payload: string | Buffer): Promise<ApiResponse> {
  const { hostname, port } = new URL(em.current.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on("data", (c) => chunks.push(c));
    socket.on("error", reject);
    socket.on("close", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const [head, ...rest] = text.split("\r\n\r\n");
      const [statusLine, ...lines] = head.split("\r\n");
      const headers: Record<string, string> = {};
      for (const l of lines) {
        const i = l.indexOf(":");
        headers[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim();
      }
      const bodyText = rest.join("\r\n\r\n");
      let body: unknown;
      try {
        body = JSON.parse(bodyText);
      } catch {
        body = undefined;
      }
      resolve({ status: Number(statusLine.split(" ")[1]), headers, body, text: bodyText });
    });
    socket.end(payload);
  });
}

const auth = () => `Authorization: Bearer ${em.current.token}\r\n`;

/** The service's error shape: JSON content type, `code` equal to the status, a message matching `message`. */
function expectError(res: ApiResponse, status: number, message: RegExp): void {
  expect({ status: res.status, type: res.headers["content-type"] }).toEqual({
    status,
    type: expect.stringMatching(/^application\/json/),
  });
  expect(res.body).toEqual({ code: status, message: expect.stringMatching(message) });
}

const annotation = JSON.stringify({ type: "deploy", datasets: ["a"] });

describe("content types and encodings", () => {
  it.each([
    [
      "text/plain on a management POST",
      "/v2/annotations",
      annotation,
      "text/plain",
      415,
      /Content-Type "text\/plain"/,
    ],
    [
      "a form body on a management POST",
      "/v2/monitors",
      "name=x",
      "application/x-www-form-urlencoded",
      415,
      /Content-Type "application\/x-www-form-urlencoded".*application\/json/,
    ],
    [
      "text/csv on the APL query",
      "/v1/datasets/_apl",
      '{"apl":"[\'a\']"}',
      "text/csv",
      415,
      /application\/json/,
    ],
    [
      "XML on ingest",
      "/v1/datasets/a/ingest",
      "<a/>",
      "application/xml",
      415,
      /Content-Type "application\/xml"/,
    ],
    [
      "a JSON type with parameters is fine",
      "/v2/annotations",
      annotation,
      "application/json; charset=utf-8",
      201,
      null,
    ],
    ["a +json type is fine", "/v2/annotations", annotation, "application/vnd.api+json", 201, null],
  ])("%s", async (_name, path, body, type, status, message) => {
    const res = await api(em.current, "POST", path, body, { "content-type": type });
    if (message) expectError(res, status, message);
    else expect(res.status).toBe(status);
  });

  it("no Content-Type at all on a JSON endpoint is read as JSON", async () => {
    const res = await request(`${em.current.url}/v2/annotations`, {
      method: "POST",
      headers: { authorization: `Bearer ${em.current.token}` },
      body: annotation,
    });
    expect(res.statusCode).toBe(201);
    await res.body.dump();
  });

  it.each([
    [
      "Content-Encoding gzip on a body that is not gzip",
      "gzip",
      Buffer.from('[{"a":1}]'),
      400,
      /not valid gzip/,
    ],
    ["truncated gzip", "gzip", gzipSync('[{"a":1},{"b":2}]').subarray(0, 12), 400, /not valid gzip/],
    ["an unsupported Content-Encoding", "br", Buffer.from('[{"a":1}]'), 415, /Content-Encoding: br/],
  ])("%s", async (_name, encoding, body, status, message) => {
    const res = await api(em.current, "POST", "/v1/datasets/enc/ingest", body, {
      "content-type": "application/json",
      "content-encoding": encoding,
    });
    expectError(res, status, message);
  });
});

describe("bodies", () => {
  it.each([
    [
      "truncated JSON on a management POST",
      "POST",
      "/v2/annotations",
      '{"type":"x","datasets":["a"',
      /not valid JSON/,
    ],
    ["truncated JSON array on ingest", "POST", "/v1/datasets/a/ingest", '[{"a":1},{"b":', /not valid JSON/],
    ["truncated JSON on the APL query", "POST", "/v1/datasets/_apl", '{"apl":"[\'a\']', /not valid JSON/],
    ["truncated JSON on the legacy query", "POST", "/v1/datasets/a/query", '{"startTime":', /not valid JSON/],
    ["an empty body where an object is needed", "POST", "/v2/rbac/roles", "", /empty/],
    ["an array where an object is needed", "POST", "/v2/rbac/roles", "[]", /must be a JSON object/],
    ["a string where an object is needed", "POST", "/v2/notifiers", '"x"', /must be a JSON object/],
    ["JSON null on the APL query", "POST", "/v1/datasets/_apl", "null", /./],
  ])("%s is a 400 naming it", async (_name, method, path, body, message) => {
    const res = await api(em.current, method, path, body, { "content-type": "application/json" });
    expectError(res, 400, message);
  });

  it.each([
    ["aggregations[0].op", { aggregations: [{ op: "percentiles", field: "d" }] }, "must be one of"],
    ["groupBy", { groupBy: ["svc"] }, "needs at least one aggregation"],
    [
      "virtualFields[0].expr",
      { virtualFields: [{ alias: "x", expr: "1 | take 1" }] },
      "must be one expression",
    ],
  ])(
    "a legacy query whose %s the emulator cannot compute is a 422 naming it rather than a wrong answer",
    async (key, extra, reason) => {
      const res = await api(em.current, "POST", "/v1/datasets/a/query", {
        startTime: "now-1h",
        endTime: "now",
        ...extra,
      });
      expectError(res, 422, new RegExp(`^${key.replace(/[[\]]/g, "\\$&")}: ${reason}`));
      const key0 = key.split(/[[.]/)[0];
      const empty = await api(em.current, "POST", "/v1/datasets/a/query", {
        startTime: "now-1h",
        endTime: "now",
        [key0]: [],
      });
      expect(empty.status).toBe(200);
    },
  );

  it.each(["GET /v2/annotations", "GET /v2/orgs", "GET /v2/monitors/mon_x"])(
    "a body on %s is a 400 saying GET takes no body",
    async (line) => {
      const body = '{"a":1}';
      const res = await raw(
        `${line} HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: application/json\r\n` +
          `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      );
      expectError(res, 400, /GET request takes no body/);
    },
  );

  it("GET with Content-Type: application/json and no body (as the JS peer sends) is fine", async () => {
    const res = await api(em.current, "GET", "/v2/annotations", undefined, {
      "content-type": "application/json",
    });
    expect(res.status).toBe(200);
  });
});

describe("size limits", () => {
  it("a 50 MB body (over the default 32 MiB) is refused with 413 JSON", async () => {
    expect(MAX_BODY_BYTES).toBe(32 * 1024 * 1024);
    const res = await api(
      em.current,
      "POST",
      "/v1/datasets/big/ingest",
      Buffer.alloc(50 * 1024 * 1024, 0x20),
    );
    expectError(res, 413, /larger than the emulator's limit of 33554432 bytes/);
    expect(res.headers.connection).toBe("close");
  });

  it("the 413 is decided by the Content-Length alone: answered before a byte of the body is sent", async () => {
    // The request's head declares 50 MB and the socket stays open with no body: an emulator that read the body
    // before deciding would never answer, and the test would time out. No clock is consulted.
    const { hostname, port } = new URL(em.current.url);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), hostname);
      const chunks: Buffer[] = [];
      socket.on("data", (c) => chunks.push(c));
      socket.on("error", reject);
      socket.on("close", () => resolve(Buffer.concat(chunks).toString("utf8")));
      socket.write(
        `POST /v1/datasets/big/ingest HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: application/json\r\n` +
          `Content-Length: ${50 * 1024 * 1024}\r\n\r\n`,
      );
    });
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain("larger than the emulator's limit of 33554432 bytes");
  });

  it("a chunked body with no Content-Length is cut off at the limit with 413", async () => {
    async function* chunks() {
      for (let i = 0; i < 8; i++) yield Buffer.alloc(512, 0x20);
    }
    const res = await request(`${small.current.url}/v1/datasets/big/ingest`, {
      method: "POST",
      headers: { authorization: `Bearer ${small.current.token}`, "content-type": "application/json" },
      body: Readable.from(chunks()),
    });
    expect(res.statusCode).toBe(413);
    expect(await res.body.json()).toEqual({
      code: 413,
      message: expect.stringMatching(/limit of 1024 bytes/),
    });
  });

  it("a gzip body that inflates past the limit is a 413 (no gzip bomb)", async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(1024);
    const res = await api(small.current, "POST", "/v1/datasets/big/ingest", bomb, {
      "content-encoding": "gzip",
      "content-type": "application/json",
    });
    expectError(res, 413, /larger than 1024 bytes once gunzipped/);
  });

  it("a body at exactly the limit is accepted", async () => {
    const body = `[${'{"a":1},'.repeat(126)}{"a":12}]`.padEnd(1024, " ");
    expect(Buffer.byteLength(body)).toBe(1024);
    const res = await api(small.current, "POST", "/v1/datasets/edge/ingest", body);
    expect(res.status).toBe(200);
    expect(res.body.ingested).toBe(127);
  });

  it("headers over the limit get 431 JSON naming the headers, not Node's bare status line", async () => {
    const res = await raw(
      `GET /v2/annotations HTTP/1.1\r\nHost: x\r\n${auth()}X-Big: ${"a".repeat(MAX_HEADER_BYTES)}\r\n\r\n`,
    );
    expectError(res, 431, /request headers are larger than the emulator's limit of 16384 bytes/);
  });
});

describe("broken HTTP and unknown routes", () => {
  it.each([
    ["a malformed request line", "NOT HTTP AT ALL\r\n\r\n"],
    ["a bad header line", `GET /v2/orgs HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n`],
    [
      "bad chunked encoding",
      `POST /v2/annotations HTTP/1.1\r\nHost: x\r\n${"Transfer-Encoding: chunked\r\n"}\r\nzz\r\n{}\r\n0\r\n\r\n`,
    ],
  ])("%s gets 400 JSON", async (_name, payload) => {
    expectError(await raw(payload), 400, /malformed HTTP request/);
  });

  it("a method a path does not take is a 405 JSON with Allow", async () => {
    const res = await api(em.current, "PATCH", "/v2/monitors/mon_x", {});
    expectError(res, 405, /method PATCH is not allowed.*allowed: GET, PUT, DELETE/);
    expect(res.headers.allow).toBe("GET, PUT, DELETE");
  });

  it("an unknown path is a 404 JSON naming it", async () => {
    expectError(await api(em.current, "GET", "/v3/nothing"), 404, /no endpoint GET \/v3\/nothing/);
  });
});
