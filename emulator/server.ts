/**
 * The emulator's HTTP server: authentication, rate-limit and trace headers, fault injection, request
 * recording, then routing to the API families, whose handlers return a {@link Reply} that this file alone
 * writes. Built on node:http for raw socket access (dropped connections) and raw body streaming (ingest speed).
 */
import { randomBytes } from "node:crypto";
import type { Duplex } from "node:stream";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import {
  PUBLIC,
  TOKENS_COLLECTION,
  authenticate,
  authorize,
  isOrgless,
  needOf,
  type RouteAccess,
} from "./auth";
import type { EmulatorContext } from "./context";
import { FaultInjector, type FaultOptions } from "./faults";
import { quotaHeaders, quotaKindOf } from "./quota";
import { HttpError, Router, errorReply, parseQuery, readBody, writeReply, type Reply } from "./http";
import { registerRoutes } from "./routes";
import type { EmulatorControl } from "./alerting/types";
import { registerEmulatorControl } from "./routes/emulator-control";
import { registerConsole } from "./console";
import type { ConsoleSettings } from "./console/data";

/** One request as the server received it (tests assert on these); the token is redacted. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  headers: Record<string, string>;
  body: Buffer;
}

/** Counters of what the server did. */
export interface EmulatorStats {
  requests: number;
  /** Injected faults by kind: "429", "500", "500after", "502", "503", "drop", "latency". */
  faults: Record<string, number>;
  /** Requests refused by the `rateLimit` option. */
  rateLimited: number;
}

/** Settings of {@link createEmulatorServer}. */
export interface ServerSettings {
  token: string;
  /** Undefined when personal tokens are off. */
  personalToken: string | undefined;
  orgId: string;
  faults?: FaultOptions;
  rateLimit?: number;
  /** Length of the rate-limit window; default a minute, as the service counts. */
  rateLimitWindowMs?: number;
  /** What the rate-limit windows and token expiry read as now (ms since the epoch). */
  clock: () => number;
  record: boolean;
  /** Largest request body, on the wire and once gunzipped; default {@link MAX_BODY_BYTES}. */
  maxBodyBytes?: number;
  logger?: (line: string) => void;
  /** The emulator's own control routes (`/_emulator/…`); served when given. */
  control?: EmulatorControl;
  /** The live console at `/` (emulator/console/); served when given, with `control`. */
  console?: Omit<ConsoleSettings, "control">;
}

/**
 * Request bodies above this size (on the wire, and again once gunzipped) get 413 without being buffered. Ten
 * thousand events, the most one ingest takes, fit well inside it.
 */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;
/** How long an idle keep-alive connection stays open: longer than any client of ours keeps one idle. */
export const KEEP_ALIVE_MS = 65_000;
/** Node's limit on the request line plus headers; past it the emulator answers 431 JSON. */
export const MAX_HEADER_BYTES = 16 * 1024;

/** A fixed window of request counts, aligned to multiples of its length (a minute by default). */
class RateWindow {
  private windowStart = 0;
  private count = 0;

  constructor(private readonly lengthMs = 60_000) {}

  /** Counts one request; returns the count so far in the current window and the window's end (ms). */
  hit(now: number): { count: number; resetMs: number } {
    const state = this.peek(now);
    this.count++;
    return { count: this.count, resetMs: state.resetMs };
  }

  /** The count so far in the current window and the window's end (ms), without counting a request. */
  peek(now: number): { count: number; resetMs: number } {
    const start = now - (now % this.lengthMs);
    if (start !== this.windowStart) {
      this.windowStart = start;
      this.count = 0;
    }
    return { count: this.count, resetMs: start + this.lengthMs };
  }
}

/** The body as sent, or undefined once it is known to pass `max` bytes (by Content-Length or while reading). */
async function readRawBody(req: IncomingMessage, max: number): Promise<Buffer | undefined> {
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > max) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > max) return undefined;
    chunks.push(chunk as Buffer);
  }
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
}

/**
 * Answers a request Node's parser refused (headers too large, malformed request line, bad chunking) with the
 * service's JSON error body instead of Node's bare status line.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex, headers: [string, string][]): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const [status, message] =
    err.code === "HPE_HEADER_OVERFLOW"
      ? [431, `request headers are larger than the emulator's limit of ${MAX_HEADER_BYTES} bytes`]
      : err.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? [408, "request timed out before it was complete"]
        : [400, `malformed HTTP request (${err.code ?? "parse error"})`];
  const text = JSON.stringify({ code: status, message });
  const reason =
    status === 431 ? "Request Header Fields Too Large" : status === 408 ? "Request Timeout" : "Bad Request";
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\n` +
      `${traceHeaderLines()}${headers.map(([k, v]) => `${k}: ${v}\r\n`).join("")}` +
      `Connection: close\r\n\r\n${text}`,
  );
}

/** The live service answers its trace id in X-Axiom-Trace-Id (axiomhq/axiom-go axiom/client.go reads it into its
 * errors); the API document names it X-Trace-Id. Both carry the same id. */
export const TRACE_HEADER = "X-Axiom-Trace-Id";
export const SPEC_TRACE_HEADER = "X-Trace-Id";

function traceHeaderLines(): string {
  const id = randomBytes(16).toString("hex");
  return `${TRACE_HEADER}: ${id}\r\n${SPEC_TRACE_HEADER}: ${id}\r\n`;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The reply, once every change made so far is on disk (`--data`): a 2xx is never sent for a change that a crash
 * could still lose, and no reply shows another request's change that could still be lost. When the change
 * cannot be written, the reply becomes a 500: the change is in memory, its fate on disk unknown.
 */
async function whenDurable(reply: Reply, durable: () => Promise<void> | undefined): Promise<Reply> {
  try {
    await durable();
    return reply;
  } catch (err) {
    const message = `the emulator could not write its data file: ${(err as Error).message}`;
    return errorReply(500, message, undefined, reply.headers);
  }
}

/** What a request's processing produced, before the server's last word on it (see `handle`). */
interface Answer {
  reply: Reply;
  /** The request drew the `500after` fault and reached its handler. */
  failAfter: boolean;
}

/** Creates (but does not start) the emulator's HTTP server. */
export function createEmulatorServer(
  em: EmulatorContext,
  settings: ServerSettings,
): { server: Server; received: RecordedRequest[]; stats: EmulatorStats } {
  const router = new Router<RouteAccess>();
  registerRoutes(router, em);
  if (settings.control) registerEmulatorControl(router, settings.control);
  if (settings.control && settings.console)
    registerConsole(router, em, { ...settings.console, control: settings.control });
  // Minted API tokens (emulator/routes/tokens.ts), found by the hash of their value.
  const tokens = em.state.collection(TOKENS_COLLECTION);

  const received: RecordedRequest[] = [];
  const stats: EmulatorStats = { requests: 0, faults: {}, rateLimited: 0 };
  const faults = settings.faults ? new FaultInjector(settings.faults) : undefined;
  const window = new RateWindow(settings.rateLimitWindowMs);
  const limit = settings.rateLimit;
  const maxBody = settings.maxBodyBytes ?? MAX_BODY_BYTES;
  const countFault = (kind: string) => (stats.faults[kind] = (stats.faults[kind] ?? 0) + 1);
  /**
   * The `X-RateLimit-*` headers for a request that is the `count`th of the window ending at `resetMs`. Without a
   * `rateLimit` nothing is limited, and only the scope is sent: a made-up limit whose `Remaining` reached 0 would
   * make a correct client wait for a reset that nothing enforces.
   */
  const rateHeaders = (count: number, resetMs: number): [string, string][] =>
    limit === undefined
      ? [["X-RateLimit-Scope", "organization"]]
      : [
          ["X-RateLimit-Limit", String(limit)],
          ["X-RateLimit-Remaining", String(Math.max(0, limit - count))],
          ["X-RateLimit-Reset", String(Math.ceil(resetMs / 1000))],
          ["X-RateLimit-Scope", "organization"],
        ];

  /** The `{code, message}` reply for what a request threw: its own status for an HttpError, else a logged 500. */
  const replyForError = (err: unknown, method: string, path: string): Reply => {
    if (err instanceof HttpError) return errorReply(err.status, err.message, err.detail);
    settings.logger?.(`internal error on ${method} ${path}: ${(err as Error)?.message ?? String(err)}`);
    return errorReply(500, "internal server error");
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = Date.now();
    stats.requests++;
    const traceId = randomBytes(16).toString("hex");
    res.setHeader(TRACE_HEADER, traceId);
    res.setHeader(SPEC_TRACE_HEADER, traceId);
    const url = new URL(req.url ?? "/", "http://emulator");
    const method = req.method ?? "GET";
    // Keep inner empty segments (an empty dataset name is a 400, not a 404), drop one trailing slash.
    const path =
      url.pathname.length > 1 && url.pathname.endsWith("/") ? url.pathname.slice(0, -1) : url.pathname;
    res.on("finish", () =>
      settings.logger?.(`${method} ${path} ${res.statusCode} ${Date.now() - started}ms`),
    );

    const answer = await answerRequest(req, res, method, path, parseQuery(url.searchParams));
    if (answer === undefined) return; // a `drop` fault: the connection is gone, nothing to answer
    let reply = answer.reply;
    // What happens to a reply between its handler and the wire, in this order:
    // 1. The `500after` fault: the handler ran and its change stays, but the client is told it failed, so it
    //    cannot tell whether the request took effect. Its headers (quota) stay, as a real failure would leave them.
    if (answer.failAfter) {
      countFault("500after");
      const failed = errorReply(500, "internal server error (injected fault after processing)");
      reply = { ...failed, headers: reply.headers };
    }
    // 2. Durability (`--data`): every reply, the 500after one included since its change is as real as any,
    //    waits until the changes made so far are on disk; a failed write makes it a 500 (see whenDurable).
    if (em.durable) reply = await whenDurable(reply, em.durable);
    // 3. Written, once.
    writeReply(res, reply);
  }

  /** Everything a request goes through up to its handler's reply; undefined when a fault drops the connection. */
  async function answerRequest(
    req: IncomingMessage,
    res: ServerResponse,
    method: string,
    path: string,
    query: Record<string, string | string[]>,
  ): Promise<Answer | undefined> {
    const refuse = (status: number, message: string, headers?: Record<string, string>): Answer => ({
      reply: errorReply(status, message, undefined, headers),
      failAfter: false,
    });

    // Counted and reported before anything can refuse the request, so that every answer carries the headers.
    const { count, resetMs } = window.hit(settings.clock());
    for (const [k, v] of rateHeaders(count, resetMs)) res.setHeader(k, v);

    const rawBody = await readRawBody(req, maxBody);
    if (rawBody === undefined) {
      // Refused before buffering it; the rest of the upload is discarded and the connection closed after.
      req.resume();
      const message = `request body is larger than the emulator's limit of ${maxBody} bytes`;
      return refuse(413, message, { Connection: "close" });
    }
    if (settings.record) {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) {
        if (v !== undefined)
          headers[k] = k === "authorization" ? "[redacted]" : Array.isArray(v) ? v.join(", ") : v;
      }
      received.push({ method, path, query, headers, body: rawBody });
    }

    const decision = faults?.decide();
    if (decision && decision.latencyMs > 0) {
      countFault("latency");
      await sleep(decision.latencyMs);
    }

    // Even a refused ingest or query reports its quota, as clients read these headers on a 429 too.
    const quotaKind = quotaKindOf(path);
    if (quotaKind) {
      for (const [k, v] of Object.entries(quotaHeaders(quotaKind, em.quotas[quotaKind]))) res.setHeader(k, v);
    }

    // Pre-processing faults: the request has no effect at all.
    switch (decision?.kind) {
      case "drop":
        countFault("drop");
        req.socket.destroy();
        return undefined;
      case "429":
        countFault("429");
        return refuse(429, "rate limit exceeded", { "Retry-After": "1" });
      case "500":
      case "502":
      case "503": {
        countFault(decision.kind);
        const text = { "500": "internal server error", "502": "bad gateway", "503": "service unavailable" };
        return refuse(Number(decision.kind), `${text[decision.kind]} (injected fault)`);
      }
    }

    const drewFailAfter = decision?.kind === "500after";
    let handled = false;
    try {
      // The route first (its declared need says whether the caller must be known at all), then who is asking;
      // what they may do is decided once the request is read.
      const match = router.match(method, path);
      const open = match.kind === "found" && match.access === PUBLIC;
      // A public route (the document's `security: []`) takes any caller, a token or none.
      const principal = open
        ? undefined
        : authenticate(req, settings, tokens, settings.clock(), isOrgless(method, path));
      if (principal) {
        res.setHeader(
          "X-RateLimit-Scope",
          principal.kind === "development" ? principal.scope : "organization",
        );
      }
      if (limit !== undefined && count > limit) {
        stats.rateLimited++;
        const retryAfter = String(Math.max(1, Math.ceil((resetMs - settings.clock()) / 1000)));
        return refuse(429, "rate limit exceeded", { "Retry-After": retryAfter });
      }
      if (match.kind === "not-found") throw new HttpError(404, `Not found: no endpoint ${method} ${path}`);
      if (match.kind === "method-not-allowed") {
        const allowed = match.allowed.join(", ");
        return refuse(405, `method ${method} is not allowed on ${path}; allowed: ${allowed}`, {
          Allow: allowed,
        });
      }
      // Only a request that reached a route is judged by its body: an unknown path is a 404 and a wrong method a
      // 405, whatever they carry.
      if ((method === "GET" || method === "HEAD") && rawBody.length > 0) {
        throw new HttpError(400, `a ${method} request takes no body; this one has ${rawBody.length} bytes`);
      }
      const body = await readBody(req, rawBody, maxBody);
      const ctx = { req, params: match.params, query, body };
      if (principal) authorize(principal, needOf(match.access, ctx));
      handled = true;
      return {
        reply: await match.handler(ctx),
        failAfter: drewFailAfter,
      };
    } catch (err) {
      // A handler's error is its reply, so the 500after fault replaces it too; an earlier refusal keeps its own.
      return { reply: replyForError(err, method, path), failAfter: handled && drewFailAfter };
    }
  }

  const server = createServer(
    {
      maxHeaderSize: MAX_HEADER_BYTES,
      // An idle keep-alive connection stays open longer than a client keeps one (ours: 30 s), as services behind
      // load balancers do (60 s and more). With Node's 5 s default, a client sending its next request on a
      // connection at the moment the server closes it gets ECONNRESET, and a POST cannot be resent safely; a
      // loaded machine makes that race likely (seen as a flaky ingest test).
      keepAliveTimeout: KEEP_ALIVE_MS,
      headersTimeout: KEEP_ALIVE_MS + 1_000,
    },
    (req, res) => {
      handle(req, res).catch(() => res.destroy());
    },
  );
  // A request Node could not parse is not counted against the window, only reported in it.
  server.on("clientError", (err: NodeJS.ErrnoException, socket) => {
    const { count, resetMs } = window.peek(settings.clock());
    answerClientError(err, socket, rateHeaders(count, resetMs));
  });
  return { server, received, stats };
}
