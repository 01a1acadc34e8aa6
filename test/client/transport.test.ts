/**
 * Transport, retry, error and option rules against a plain http.createServer on 127.0.0.1:0, asserting what
 * the server received inside its handler (octokit style).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { inspect } from "node:util";
import { Agent } from "undici";
import {
  AbortError,
  ApiError,
  BadRequestError,
  ConfigError,
  ConflictError,
  ConnectionError,
  ForbiddenError,
  InvalidResponseError,
  NotFoundError,
  ObservabilityClient,
  QuotaExceededError,
  RateLimitError,
  ServerError,
  TimeoutError,
  UnprocessableEntityError,
  errorFromResponse,
  type ClientOptions,
  type RetryEvent,
} from "../../provider/client";
import { resolveOptions } from "../../provider/client/options";
import { backoffMs, parseRetryAfter, serverDelayMs, shouldRetry } from "../../provider/client/retry";
import { VERSION } from "../../provider/client/version";
import { ManualClock } from "../helpers/manual-clock";

const TOKEN = "xaat-super-secret-token-4711";

type Handler = (req: IncomingMessage, res: ServerResponse, body: string, hit: number) => void;

interface TestServer {
  url: string;
  port: number;
  hits: { method: string; url: string; headers: IncomingMessage["headers"]; body: string; at: number }[];
  close(): Promise<void>;
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise<void>((resolve) => {
          s.closeAllConnections();
          s.close(() => resolve());
        }),
    ),
  );
});

async function serve(handler: Handler, port = 0): Promise<TestServer> {
  const hits: TestServer["hits"] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      hits.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body, at: Date.now() });
      handler(req, res, body, hits.length);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", () => resolve()));
  const actual = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${actual}`,
    port: actual,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { "content-type": "application/json", "x-trace-id": "trace-123", ...headers });
  res.end(body === undefined ? "" : JSON.stringify(body));
}

/** Rate-limit window headers with the reset `inSeconds` ahead of `now`. */
function rateHeaders(inSeconds: number, remaining: string, now = Date.now()): Record<string, string> {
  return {
    "x-ratelimit-limit": "600",
    "x-ratelimit-remaining": remaining,
    "x-ratelimit-reset": String(Math.ceil(now / 1000) + inSeconds),
  };
}

/** A whole second, as the epoch reset headers count: the clock-driven tests start 300 ms after it. */
const T0 = Date.UTC(2030, 0, 1);

const retryEvents: RetryEvent[] = [];
function client(url: string, extra: ClientOptions = {}): ObservabilityClient {
  return new ObservabilityClient({
    url,
    token: TOKEN,
    maxRetries: 3,
    timeoutMs: 2000,
    ...extra,
    retry: { baseDelayMs: 5, maxDelayMs: 2000, onRetry: (e) => retryEvents.push(e), ...extra.retry },
  });
}
beforeEach(() => retryEvents.splice(0));

const annotation = { id: "ann_1", datasets: ["web"], type: "deploy", time: "2024-01-01T00:00:00Z" };
const monitor = { id: "mon_1", name: "m", aplQuery: "x", type: "MatchEvent" };

describe("requests", () => {
  it("sends auth, org id, User-Agent, accept and JSON content type; the version matches package.json", async () => {
    const s = await serve((_req, res) => send(res, 200, monitor));
    const c = client(s.url, { orgId: "org-1", userAgent: "my-script/2" });
    await c.monitors.create({ name: "m", aplQuery: "x", type: "MatchEvent" });
    await c.close();
    expect(s.hits[0].headers).toMatchObject({
      authorization: `Bearer ${TOKEN}`,
      "x-service-org-id": "org-1",
      // The live service's name (axiomhq/axiom-go axiom/client.go); test/client/live-header-names.test.ts checks its spelling.
      "x-axiom-org-id": "org-1",
      "user-agent": `pulumi-observability/${VERSION} my-script/2`,
      accept: "application/json",
      "content-type": "application/json",
    });
    expect(VERSION).toBe(require("../../package.json").version);
  });

  it("keeps a path prefix of the base URL", async () => {
    const s = await serve((_req, res) => send(res, 200, [monitor]));
    const c = client(`${s.url}/proxy/`);
    await c.monitors.list();
    await c.close();
    expect(s.hits[0].url).toBe("/proxy/v2/monitors");
  });

  it("parses loosely: unknown response fields survive", async () => {
    const s = await serve((_req, res) => send(res, 200, { ...monitor, futureField: { a: 1 } }));
    const c = client(s.url);
    await expect(c.monitors.get("mon_1")).resolves.toMatchObject({ futureField: { a: 1 } });
    await c.close();
  });

  it("a response without a required field is an InvalidResponseError naming the field", async () => {
    const s = await serve((_req, res) => send(res, 200, [{ ...monitor, id: 5 }]));
    const c = client(s.url);
    const p = c.monitors.list();
    await expect(p).rejects.toBeInstanceOf(InvalidResponseError);
    await expect(p).rejects.toThrow(/response\[0\]\.id/);
    await expect(p).rejects.toMatchObject({ status: 200, traceId: "trace-123", path: "/v2/monitors" });
    await c.close();
  });

  it("an unexpected response body is described in the project's words, never zod's defaults", async () => {
    const { id: _id, ...noId } = monitor;
    // An id is the one field the client needs (a wrong-typed name is read as sent, as drift; see tolerant-reader).
    const s = await serve((_req, res) => send(res, 200, [{ ...monitor, id: 5 }, noId]));
    const c = client(s.url);
    const message = await c.monitors.list().then(
      () => "resolved",
      (e: Error) => e.message,
    );
    await c.close();
    expect(message).toContain("response[0].id: must be a string");
    expect(message).toContain("response[1].id: is required");
    expect(message).not.toMatch(/Invalid input|expected \w+, received/);
  });

  it("a body that is not JSON is an InvalidResponseError, not a crash", async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<html>");
    });
    const c = client(s.url);
    await expect(c.orgs.list()).rejects.toThrow(/not JSON/);
    await c.close();
  });

  it("uses an injected dispatcher and leaves it open on close()", async () => {
    const s = await serve((_req, res) => send(res, 200, [annotation]));
    const agent = new Agent();
    const c = client(s.url, { dispatcher: agent });
    await c.annotations.list();
    await c.close();
    expect(agent.closed).toBe(false);
    await agent.close();
  });

  it("close() closes the owned pool: later calls fail with a ConnectionError", async () => {
    const s = await serve((_req, res) => send(res, 200, [annotation]));
    const c = client(s.url);
    await c.annotations.list();
    await c.close();
    await expect(c.annotations.list()).rejects.toBeInstanceOf(ConnectionError);
  });
});

describe("error factory: one class per status", () => {
  it.each([
    [400, BadRequestError],
    [401, ForbiddenError],
    [403, ForbiddenError],
    [404, NotFoundError],
    [409, ConflictError],
    [422, UnprocessableEntityError],
    [429, RateLimitError],
    [430, QuotaExceededError],
    [500, ServerError],
    [502, ServerError],
    [503, ServerError],
    [418, ApiError],
  ])("status %i maps to %p", (status, cls) => {
    const e = errorFromResponse(status, JSON.stringify({ code: status, message: "nope" }), {
      method: "GET",
      path: "/v2/x",
      traceId: "t",
    });
    expect(e).toBeInstanceOf(cls);
    expect(e).toBeInstanceOf(ApiError);
    expect(e.name).toBe(cls.name);
    expect(e).toMatchObject({ status, method: "GET", path: "/v2/x", serviceMessage: "nope", traceId: "t" });
  });

  it("422 is a BadRequestError too, so code that handles a bad request handles it; a 400 is not a 422", () => {
    const info = { method: "POST", path: "/v2/monitors" };
    const e = errorFromResponse(422, JSON.stringify({ code: 422, message: "cannot apply" }), info);
    expect(e).toBeInstanceOf(BadRequestError);
    expect(e).toMatchObject({
      name: "UnprocessableEntityError",
      status: 422,
      serviceMessage: "cannot apply",
    });
    expect(e.toJSON()).toMatchObject({ name: "UnprocessableEntityError", status: 422 });
    expect(errorFromResponse(400, "", info)).not.toBeInstanceOf(UnprocessableEntityError);
  });

  it("a real 422 response is not retried and rejects with UnprocessableEntityError", async () => {
    const s = await serve((_req, res) => send(res, 422, { code: 422, message: "cannot apply" }));
    const c = client(s.url);
    await expect(c.monitors.list()).rejects.toBeInstanceOf(UnprocessableEntityError);
    expect(s.hits).toHaveLength(1);
    await c.close();
  });

  it("from a real response: status, method, path, service message and trace id", async () => {
    const s = await serve((_req, res) => send(res, 404, { code: 404, message: "Not found" }));
    const c = client(s.url);
    await expect(c.notifiers.delete("notify_1")).rejects.toMatchObject({
      name: "NotFoundError",
      status: 404,
      method: "DELETE",
      path: "/v2/notifiers/notify_1",
      serviceMessage: "Not found",
      traceId: "trace-123",
    });
    await c.close();
  });
});

/** Every way an error could show the token. */
function leaks(e: unknown): string[] {
  const views = [
    String((e as Error).message),
    inspect(e, { depth: 10, showHidden: true }),
    JSON.stringify(e),
    inspect((e as Error).cause, { depth: 10, showHidden: true }),
    JSON.stringify(Object.getOwnPropertyNames(e).map((k) => (e as Record<string, unknown>)[k])),
  ];
  return views.filter((v) => v.includes(TOKEN));
}

describe("the token never leaks from an error", () => {
  it.each([
    [
      "a 403 whose message echoes the token",
      (res: ServerResponse) => send(res, 403, { code: 403, message: `invalid token ${TOKEN}` }),
    ],
    [
      "a 400 whose raw body echoes the token",
      (res: ServerResponse) => {
        res.writeHead(400);
        res.end(`bad: Bearer ${TOKEN}`);
      },
    ],
    ["a dropped connection", (res: ServerResponse) => res.socket?.destroy()],
    ["an invalid 200 body", (res: ServerResponse) => send(res, 200, { token: TOKEN })],
  ])("%s", async (_rule, respond) => {
    const s = await serve((_req, res) => respond(res));
    const c = client(s.url, { maxRetries: 0 });
    const error = await c.monitors.get("mon_1").catch((e: unknown) => e);
    await c.close();
    expect(error).toBeInstanceOf(ApiError);
    expect(leaks(error)).toEqual([]);
  });

  it("a refused connection and a timeout", async () => {
    const s = await serve(() => undefined); // never answers
    const c = client(s.url, { maxRetries: 0, timeoutMs: 100 });
    const timeout = await c.monitors.list().catch((e: unknown) => e);
    expect(timeout).toBeInstanceOf(TimeoutError);
    expect(leaks(timeout)).toEqual([]);
    await c.close();
    const port = s.port;
    await s.close();
    const r = client(`http://127.0.0.1:${port}`, { maxRetries: 0 });
    const refused = await r.monitors.list().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ConnectionError);
    expect(refused).toMatchObject({
      code: "ECONNREFUSED",
      method: "GET",
      path: "/v2/monitors",
      status: undefined,
    });
    expect(leaks(refused)).toEqual([]);
    await r.close();
  });
});

describe("retries", () => {
  const faultThenOk =
    (fault: (res: ServerResponse) => void, ok: unknown, faults = 1): Handler =>
    (_req, res, _body, hit) =>
      hit <= faults ? fault(res) : send(res, 200, ok);
  const status =
    (code: number, headers: Record<string, string> = {}) =>
    (res: ServerResponse) =>
      send(res, code, { code, message: `status ${code}` }, headers);
  const drop = (res: ServerResponse) => res.socket?.destroy();
  const hang = () => undefined;

  type Op = (c: ObservabilityClient) => Promise<unknown>;
  const get: Op = (c) => c.monitors.get("mon_1");
  const put: Op = (c) => c.monitors.update("mon_1", { name: "m", aplQuery: "x", type: "MatchEvent" });
  const del: Op = (c) => c.monitors.delete("mon_1");
  const post: Op = (c) => c.monitors.create({ name: "m", aplQuery: "x", type: "MatchEvent" });
  const query: Op = (c) => c.queryLegacy("web", { startTime: "now-1h", endTime: "now" });
  const queryResult = {
    status: {
      elapsedTime: 1,
      minCursor: "a",
      maxCursor: "b",
      blocksExamined: 0,
      rowsExamined: 0,
      rowsMatched: 0,
      numGroups: 0,
      isPartial: false,
      cacheStatus: 0,
      minBlockTime: "",
      maxBlockTime: "",
    },
    matches: [],
    buckets: { series: [], totals: [] },
  };

  it.each<[string, Op, (res: ServerResponse) => void, number, unknown]>([
    ["GET is retried on 500", get, status(500), 2, monitor],
    ["GET is retried on 502", get, status(502), 2, monitor],
    ["GET is retried on 429", get, status(429), 2, monitor],
    ["GET is retried on a dropped connection", get, drop, 2, monitor],
    ["GET is retried on a timeout", get, hang, 2, monitor],
    ["PUT is retried on 500", put, status(500), 2, monitor],
    ["PUT is retried on a dropped connection", put, drop, 2, monitor],
    ["DELETE is retried on 504", del, status(504), 2, undefined],
    ["POST is retried on 429 (refused before processing)", post, status(429), 2, monitor],
    ["POST is retried on 503 (refused before processing)", post, status(503), 2, monitor],
    ["POST is NOT retried on 500 (may have been processed)", post, status(500), 1, monitor],
    ["POST is NOT retried on 502", post, status(502), 1, monitor],
    ["POST is NOT retried after a reset mid-request", post, drop, 1, monitor],
    ["POST is NOT retried after a timeout", post, hang, 1, monitor],
    ["a read-only query POST is retried on 500", query, status(500), 2, queryResult],
    ["a read-only query POST is retried after a reset", query, drop, 2, queryResult],
    ["400 is never retried", get, status(400), 1, monitor],
    ["404 is never retried", get, status(404), 1, monitor],
    ["430 (quota) is never retried", get, status(430), 1, monitor],
  ])("%s", async (_rule, op, fault, attempts, ok) => {
    const s = await serve(faultThenOk(fault, ok));
    const c = client(s.url, { timeoutMs: 150 });
    const outcome = await op(c).then(
      () => "ok",
      (e: Error) => e.name,
    );
    await c.close();
    expect(s.hits).toHaveLength(attempts);
    expect(c.retryCount).toBe(attempts - 1);
    expect(retryEvents).toHaveLength(attempts - 1);
    if (attempts === 2) expect(outcome).toBe("ok");
    else expect(outcome).not.toBe("ok");
  });

  it("POST is retried when the connection was refused before sending", async () => {
    // Reserve a port, free it, and only start listening once the client has failed once.
    const probe = await serve(() => undefined);
    const port = probe.port;
    await probe.close();
    let s: TestServer | undefined;
    const c = client(`http://127.0.0.1:${port}`, {
      retry: {
        baseDelayMs: 5,
        onRetry: () => {
          retryEvents.push({} as RetryEvent);
          started ??= serve((_req, res) => send(res, 200, monitor), port).then((x) => (s = x));
        },
      },
    });
    let started: Promise<TestServer> | undefined;
    const result = c.monitors.create({ name: "m", aplQuery: "x", type: "MatchEvent" });
    await expect(result).resolves.toMatchObject({ id: "mon_1" });
    await c.close();
    expect(c.retryCount).toBeGreaterThanOrEqual(1);
    expect(s?.hits).toHaveLength(1);
  });

  it("gives up after maxRetries and surfaces the last error (RateLimitError with retryAfterMs)", async () => {
    const s = await serve((_req, res) =>
      send(res, 429, { code: 429, message: "rate limit exceeded" }, { "retry-after": "0" }),
    );
    const c = client(s.url, { maxRetries: 2 });
    await expect(c.roles.list()).rejects.toMatchObject({
      name: "RateLimitError",
      status: 429,
      retryAfterMs: 0,
    });
    await c.close();
    expect(s.hits).toHaveLength(3);
  });

  it("honours Retry-After in seconds", async () => {
    const s = await serve(faultThenOk(status(429, { "retry-after": "1" }), [annotation]));
    const c = client(s.url);
    await c.annotations.list();
    await c.close();
    expect(retryEvents[0]).toMatchObject({ status: 429, attempt: 1 });
    expect(retryEvents[0].delayMs).toBeGreaterThanOrEqual(1000);
    expect(s.hits[1].at - s.hits[0].at).toBeGreaterThanOrEqual(950);
  });

  // The next tests run the client on a clock held still (its `clock` option): a wait is exactly what the
  // answer asked for, whatever the time the answer took to be read, and the retry goes when the test moves it.
  it("honours Retry-After as an HTTP date", async () => {
    const clock = new ManualClock(T0 + 300);
    // Two seconds after T0, in the date format's whole seconds: 1.7 s from the client's now.
    const at = new Date(T0 + 2000).toUTCString();
    const s = await serve((_req, res, _body, hit) =>
      hit === 1 ? status(429, { "retry-after": at })(res) : send(res, 200, [annotation]),
    );
    const c = client(s.url, { clock, retry: { baseDelayMs: 5, maxDelayMs: 10_000 } });
    const listed = c.annotations.list();
    await clock.timerSet();
    // The date's wait, and at most the base delay of jitter on top.
    expect(retryEvents[0].delayMs).toBeGreaterThanOrEqual(1700);
    expect(retryEvents[0].delayMs).toBeLessThan(1705);
    expect(clock.nextDueIn()).toBe(retryEvents[0].delayMs);
    expect(s.hits).toHaveLength(1);
    clock.advance();
    await listed;
    await c.close();
    expect(s.hits).toHaveLength(2);
  });

  it("honours X-RateLimit-Reset on a 429 without Retry-After: the retry waits in line for the reset", async () => {
    const clock = new ManualClock(T0 + 300);
    const s = await serve((req, res, body, hit) =>
      hit === 1
        ? status(429, { "x-ratelimit-reset": String(T0 / 1000 + 1), "x-ratelimit-remaining": "0" })(res)
        : send(res, 200, [annotation]),
    );
    const c = client(s.url, { clock });
    const listed = c.annotations.list();
    await clock.timerSet();
    expect(retryEvents[0].delayMs).toBe(700);
    expect(clock.nextDueIn()).toBe(700);
    expect(s.hits).toHaveLength(1);
    clock.advance();
    await listed;
    await c.close();
    expect(s.hits).toHaveLength(2);
  });

  it.each([
    ["a 503", (res: ServerResponse) => send(res, 503, { code: 503, message: "busy" }, rateHeaders(60, "5"))],
    ["a 500", (res: ServerResponse) => send(res, 500, { code: 500, message: "oops" }, rateHeaders(60, "5"))],
    ["a dropped connection", (res: ServerResponse) => res.socket?.destroy()],
  ])(
    "after %s the retry backs off with jitter, not until an X-RateLimit-Reset 60 s ahead",
    async (_rule, fault) => {
      // The jitter is drawn at half its range: a draw of 0 (one in twenty) sends the retry with no timer at all,
      // and the steps below would find it already answered.
      const random = jest.spyOn(Math, "random").mockReturnValue(0.5);
      const clock = new ManualClock(T0 + 300);
      // The first response of every kind carries the window headers, as the emulator and the service send them.
      const s = await serve((_req, res, _body, hit) => {
        if (hit === 1) {
          send(res, 200, [monitor], rateHeaders(60, "5", clock.now()));
        } else if (hit === 2) fault(res);
        else send(res, 200, monitor, rateHeaders(60, "4", clock.now()));
      });
      const c = client(s.url, { clock, retry: { baseDelayMs: 20, maxDelayMs: 120_000 } });
      await c.monitors.list();
      const got = c.monitors.get("mon_1");
      // Remaining was above 0, so the reset gated neither the next request (sent with no timer run) nor the
      // retry, whose one wait is the first retry's full jitter, below baseDelayMs.
      await Promise.race([got, clock.timerSet()]);
      expect(s.hits).toHaveLength(2);
      expect(retryEvents).toHaveLength(1);
      expect(retryEvents[0].delayMs).toBe(10);
      expect(clock.nextDueIn()).toBe(10);
      clock.advance();
      await got;
      await c.close();
      random.mockRestore();
      expect(s.hits).toHaveLength(3);
    },
  );

  it("a 429 with X-RateLimit-Remaining above 0 still honours its Retry-After (and only that)", async () => {
    const clock = new ManualClock(T0 + 300);
    const s = await serve(
      faultThenOk(status(429, { "retry-after": "0", ...rateHeaders(60, "3", clock.now()) }), [annotation]),
    );
    const c = client(s.url, { clock, retry: { baseDelayMs: 20, maxDelayMs: 120_000 } });
    const listed = c.annotations.list();
    await Promise.race([listed, clock.timerSet()]);
    expect(retryEvents[0].delayMs).toBeLessThan(20);
    if (clock.pending > 0) {
      expect(clock.nextDueIn()).toBeLessThan(20);
      clock.advance();
    }
    await listed;
    await c.close();
    expect(s.hits).toHaveLength(2);
  });

  it("waits for X-RateLimit-Reset before sending when X-RateLimit-Remaining reached 0", async () => {
    let reset = 0;
    const s = await serve((_req, res, _body, hit) => {
      if (hit === 1) reset = Math.ceil(Date.now() / 1000) + 1;
      send(res, 200, [annotation], {
        "x-ratelimit-remaining": hit === 1 ? "0" : "5",
        "x-ratelimit-reset": String(reset),
      });
    });
    const c = client(s.url);
    await c.annotations.list();
    await c.annotations.list();
    await c.close();
    expect(s.hits).toHaveLength(2);
    expect(c.retryCount).toBe(0);
    expect(s.hits[1].at).toBeGreaterThanOrEqual(reset * 1000 - 5);
  });

  it("an abort during the backoff wait rejects with AbortError", async () => {
    const s = await serve((_req, res) =>
      send(res, 503, { code: 503, message: "busy" }, { "retry-after": "5" }),
    );
    // On a clock held still the five seconds never pass: only the abort can end the wait.
    const clock = new ManualClock(T0);
    const c = client(s.url, { clock, retry: { maxDelayMs: 10_000 } });
    const controller = new AbortController();
    const listed = c.monitors.list({ signal: controller.signal });
    await clock.timerSet();
    controller.abort();
    await expect(listed).rejects.toBeInstanceOf(AbortError);
    expect(s.hits).toHaveLength(1);
    await c.close();
  });

  it("a per-call timeoutMs overrides the client's", async () => {
    const s = await serve(() => undefined);
    const c = client(s.url, { maxRetries: 0, timeoutMs: 10_000 });
    const started = Date.now();
    await expect(c.monitors.list({ timeoutMs: 100 })).rejects.toMatchObject({
      name: "TimeoutError",
      code: "UND_ERR_HEADERS_TIMEOUT",
    });
    // Well before the client's 10 s: the call's 100 ms applied (undici's own timer, on the machine's clock).
    expect(Date.now() - started).toBeLessThan(9_000);
    await c.close();
  });
});

describe("per-call options", () => {
  it("only signal and timeoutMs are taken: a path or method smuggled in from JavaScript never reaches the request", async () => {
    const s = await serve((_req, res) => send(res, 200, monitor));
    const c = client(s.url);
    const smuggled = { path: "/v2/orgs/x", method: "DELETE", json: { a: 1 } } as never;
    await c.monitors.get("mon_1", smuggled);
    await c.close();
    expect(s.hits.map((h) => `${h.method} ${h.url}`)).toEqual(["GET /v2/monitors/mon_1"]);
  });

  type Call = (c: ObservabilityClient) => Promise<unknown>;
  it.each<[string, Call, RegExp]>([
    [
      "a zero timeoutMs",
      (c) => c.monitors.list({ timeoutMs: 0 }),
      /options\.timeoutMs must be a positive integer/,
    ],
    [
      "a fractional timeoutMs",
      (c) => c.roles.get("r", { timeoutMs: 1.5 }),
      /options\.timeoutMs must be a positive integer/,
    ],
    [
      "a signal that is not an AbortSignal",
      (c) => c.orgs.list({ signal: {} as AbortSignal }),
      /options\.signal must be an AbortSignal/,
    ],
    [
      "query: an unknown format",
      (c) => c.query("['x']", { format: "csv" as "tabular" }),
      /options\.format must be legacy or tabular, got csv/,
    ],
    [
      "query: includeCursor that is not a boolean",
      (c) => c.query("['x']", { includeCursor: "yes" as never }),
      /options\.includeCursor must be a boolean/,
    ],
    ["query: an empty APL", (c) => c.query("  "), /apl must be a non-empty string/],
    [
      "paginate: an unknown order",
      async (c) => {
        for await (const _ of c.paginate("['x']", {
          startTime: "now-1h",
          endTime: "now",
          order: "up" as "asc",
        }));
      },
      /options\.order must be asc or desc, got up/,
    ],
  ])("refuses %s with an error naming it, before sending", async (_rule, call, message) => {
    const s = await serve((_req, res) => send(res, 200, []));
    const c = client(s.url);
    await expect(call(c)).rejects.toThrow(message);
    await c.close();
    expect(s.hits).toHaveLength(0);
  });
});

describe("a create whose outcome is unknown is never resent, and says so", () => {
  const post = (c: ObservabilityClient) =>
    c.monitors.create({ name: "m", aplQuery: "x", type: "MatchEvent" });
  const get = (c: ObservabilityClient) => c.monitors.get("mon_1");
  const query = (c: ObservabilityClient) => c.queryLegacy("web", { startTime: "now-1h", endTime: "now" });
  const status = (code: number) => (res: ServerResponse) =>
    send(res, code, { code, message: `status ${code}` }, code === 429 ? { "retry-after": "0" } : {});
  const drop = (res: ServerResponse) => res.socket?.destroy();
  const hang = () => undefined;
  const UNKNOWN = /may or may not have been processed.*not sent again/;

  it.each<
    [
      string,
      (c: ObservabilityClient) => Promise<unknown>,
      (res: ServerResponse) => void,
      string,
      number,
      boolean,
    ]
  >([
    [
      "POST after a dropped connection: ConnectionError, outcome unknown",
      post,
      drop,
      "ConnectionError",
      1,
      true,
    ],
    ["POST after a timeout: TimeoutError, outcome unknown", post, hang, "TimeoutError", 1, true],
    ["POST answered 500: ServerError, outcome unknown", post, status(500), "ServerError", 1, true],
    ["POST answered 502: ServerError, outcome unknown", post, status(502), "ServerError", 1, true],
    [
      "POST answered 503 on every try: refused before processing, so known",
      post,
      status(503),
      "ServerError",
      3,
      false,
    ],
    ["POST answered 429 on every try: known", post, status(429), "RateLimitError", 3, false],
    [
      "GET after dropped connections: retried, and a read has no outcome to doubt",
      get,
      drop,
      "ConnectionError",
      3,
      false,
    ],
    ["a read-only query POST after dropped connections: known", query, drop, "ConnectionError", 3, false],
  ])("%s", async (_rule, op, fault, name, attempts, unknown) => {
    const s = await serve((_req, res) => fault(res));
    const c = client(s.url, { maxRetries: 2, timeoutMs: 150 });
    const error = await op(c).then(
      () => undefined,
      (e: unknown) => e as ApiError,
    );
    await c.close();
    expect(s.hits).toHaveLength(attempts);
    expect(error?.name).toBe(name);
    expect(error?.outcomeUnknown).toBe(unknown);
    expect(error?.toJSON()).toMatchObject({ outcomeUnknown: unknown });
    if (unknown) expect(error?.message).toMatch(UNKNOWN);
    else expect(error?.message).not.toMatch(/may or may not/);
    expect(inspect(error)).not.toContain(TOKEN);
  });

  it("POST refused before connecting (nothing sent) is retried, and the final error's outcome is known", async () => {
    const probe = await serve(() => undefined);
    await probe.close();
    const c = client(probe.url, { maxRetries: 1 });
    const error = await post(c).catch((e: unknown) => e as ConnectionError);
    await c.close();
    expect(error).toMatchObject({ name: "ConnectionError", code: "ECONNREFUSED", outcomeUnknown: false });
    expect(c.retryCount).toBe(1);
  });
});

describe("retry rules (pure)", () => {
  const info = { method: "POST", path: "/x" };
  it.each([
    ["ECONNREFUSED is retried even for POST", "ECONNREFUSED", false, true],
    ["UND_ERR_CONNECT_TIMEOUT is retried even for POST", "UND_ERR_CONNECT_TIMEOUT", false, true],
    ["UND_ERR_SOCKET is not retried for POST", "UND_ERR_SOCKET", false, false],
    ["ECONNRESET is not retried for POST", "ECONNRESET", false, false],
    ["ECONNRESET is retried for idempotent requests", "ECONNRESET", true, true],
  ])("%s", (_rule, code, idempotent, expected) => {
    expect(shouldRetry(new ConnectionError("x", { ...info, code }), idempotent)).toBe(expected);
  });
  it("header timeouts are TimeoutErrors, retried only when idempotent", () => {
    const e = new TimeoutError("x", { ...info, code: "UND_ERR_HEADERS_TIMEOUT" });
    expect(shouldRetry(e, false)).toBe(false);
    expect(shouldRetry(e, true)).toBe(true);
  });
  it("full jitter stays within [0, min(cap, base·2^(n-1)))", () => {
    expect(backoffMs(1, 100, 1000, () => 0.999)).toBe(99);
    expect(backoffMs(3, 100, 1000, () => 0.999)).toBe(399);
    expect(backoffMs(10, 100, 1000, () => 0.999)).toBe(999);
    expect(backoffMs(4, 100, 1000, () => 0)).toBe(0);
  });
  it.each([
    ["delta seconds", "3", 3000],
    ["fractional seconds", "0.5", 500],
    ["an HTTP date", new Date(1_000_000 + 7000).toUTCString(), 7000],
    ["a date in the past is 0", new Date(0).toUTCString(), 0],
    ["garbage is ignored", "soon", undefined],
  ])("Retry-After as %s", (_rule, value, expected) => {
    expect(parseRetryAfter(value, 1_000_000)).toBe(expected);
  });
  it.each<[string, number, Record<string, string>, number | undefined]>([
    [
      "a 429: Retry-After wins over X-RateLimit-Reset",
      429,
      { "retry-after": "2", "x-ratelimit-reset": "2000" },
      2000,
    ],
    [
      "a 429 without Retry-After: X-RateLimit-Reset (epoch seconds)",
      429,
      { "x-ratelimit-reset": "1005" },
      5000,
    ],
    ["a 429 with an HTTP-date Retry-After", 429, { "retry-after": new Date(1_003_000).toUTCString() }, 3000],
    ["a 503 honours Retry-After", 503, { "retry-after": "2", "x-ratelimit-reset": "1060" }, 2000],
    [
      "a 503 ignores X-RateLimit-Reset (sent on every response)",
      503,
      { "x-ratelimit-reset": "1060" },
      undefined,
    ],
    ["a 500 ignores X-RateLimit-Reset", 500, { "x-ratelimit-reset": "1060" }, undefined],
    [
      "a 502 ignores Retry-After and X-RateLimit-Reset",
      502,
      { "retry-after": "9", "x-ratelimit-reset": "1060" },
      undefined,
    ],
  ])("server delay: %s", (_rule, code, headers, expected) => {
    expect(serverDelayMs(code, headers, 1_000_000)).toBe(expected);
  });
});

describe("options", () => {
  const env = {} as NodeJS.ProcessEnv;
  it.each<[string, ClientOptions, NodeJS.ProcessEnv, RegExp]>([
    [
      "a missing token names options.token and OBSERVABILITY_TOKEN",
      {},
      env,
      /options\.token.*OBSERVABILITY_TOKEN/,
    ],
    ["an empty token is refused", { token: "" }, env, /options\.token: must not be empty/],
    [
      "plain http to a remote host is refused",
      { token: "t", url: "http://example.com" },
      env,
      /must use https/,
    ],
    [
      "plain http via OBSERVABILITY_URL is refused too",
      { token: "t" },
      { OBSERVABILITY_URL: "http://10.0.0.1:80" },
      /must use https/,
    ],
    ["a URL that does not parse", { token: "t", url: "not a url" }, env, /not a valid URL/],
    ["credentials in the URL", { token: "t", url: "https://u:p@example.com" }, env, /credentials/],
    ["an unknown region", { token: "t", region: "ap" as "us" }, env, /options\.region: must be us or eu/],
    [
      "an unknown region from OBSERVABILITY_REGION",
      { token: "t" },
      { OBSERVABILITY_REGION: "mars" },
      /options\.region \(from OBSERVABILITY_REGION\): must be us or eu/,
    ],
    ["a negative maxRetries", { token: "t", maxRetries: -1 }, env, /options\.maxRetries: must be at least 0/],
    ["a zero timeout", { token: "t", timeoutMs: 0 }, env, /options\.timeoutMs: must be positive/],
    [
      "an unknown option",
      { token: "t", tokn: "x" } as ClientOptions,
      env,
      /options\.tokn: is not a known field/,
    ],
  ])("%s", (_rule, options, e, message) => {
    expect(() => resolveOptions(options, e)).toThrow(ConfigError);
    expect(() => resolveOptions(options, e)).toThrow(message);
  });

  it("an unparseable URL is echoed without its userinfo, which may hold a password", () => {
    const attempt = () => resolveOptions({ token: "t", url: "https://user:hunter2@exa mple.com" }, env);
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/not a valid URL: "https:\/\/\[redacted\]@exa mple\.com"/);
    expect(attempt).not.toThrow(/hunter2/);
  });

  it("the ConfigError from the constructor has name ConfigError and never shows the token", () => {
    const error = (() => {
      try {
        new ObservabilityClient({ token: TOKEN, url: "http://example.com" });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).name).toBe("ConfigError");
    expect(inspect(error)).not.toContain(TOKEN);
  });

  it.each([
    ["http://127.0.0.1:8080", "http://127.0.0.1:8080"],
    ["http://127.9.9.9", "http://127.9.9.9"],
    ["http://localhost:1", "http://localhost:1"],
    ["http://[::1]:9", "http://[::1]:9"],
    ["https://example.com/", "https://example.com"],
  ])("accepts %s", (url, origin) => {
    expect(resolveOptions({ token: "t", url }, env).origin).toBe(origin);
  });

  it("regions: us is the default, eu picks the EU host; env fallbacks are used", () => {
    expect(resolveOptions({ token: "t" }, env).origin).toBe("https://api.axiom.co");
    expect(resolveOptions({ token: "t", region: "eu" }, env).origin).toBe("https://api.eu.axiom.co");
    const fromEnv = resolveOptions(
      {},
      {
        OBSERVABILITY_TOKEN: "env-token",
        OBSERVABILITY_REGION: "eu",
        OBSERVABILITY_ORG_ID: "org-9",
      },
    );
    expect(fromEnv).toMatchObject({
      token: "env-token",
      origin: "https://api.eu.axiom.co",
      orgId: "org-9",
      maxRetries: 4,
    });
    expect(
      resolveOptions({}, { OBSERVABILITY_TOKEN: "t", OBSERVABILITY_URL: "http://127.0.0.1:1" }).origin,
    ).toBe("http://127.0.0.1:1");
    // Explicit options win over the environment.
    expect(resolveOptions({ token: "opt" }, { OBSERVABILITY_TOKEN: "env" }).token).toBe("opt");
  });
});
