/**
 * The one transport every resource shares: a keep-alive undici Pool for the origin (or the injected
 * dispatcher), auth and User-Agent headers, per-attempt timeouts, retries with backoff, the rate-limit gate,
 * error mapping and loose response parsing.
 */
import { Pool, type Dispatcher } from "undici";
import type { z } from "zod";
import { formatFailures, validate } from "../schemas/common";
import { AbortError, ApiError, errorFromResponse, errorFromTransport, InvalidResponseError } from "./errors";
import type { ResolvedOptions } from "./options";
import { RatePacer } from "./pacing";
import { backoffMs, headerText, parseRateLimitReset, serverDelayMs, shouldRetry, sleep } from "./retry";
import { VERSION } from "./version";

/** Per-call options every client method takes last. */
export interface RequestOptions {
  /** Aborts the call, including any backoff wait; an aborted call is never retried. */
  signal?: AbortSignal;
  /** Per-attempt timeout in ms; overrides the client's `timeoutMs`. */
  timeoutMs?: number;
}

/** A caller's per-call options as the transport uses them: only `signal` and `timeoutMs`, checked. Picking them
 * keeps any other key a JavaScript caller passes (a `path`, say) from reaching the call. Callers that take more
 * options (ingest, paginate) hand over the whole object; {@link Transport.request} picks these two itself. */
export function requestOptions(options: RequestOptions | undefined): RequestOptions {
  if (options === undefined || options === null) return {};
  if (typeof options !== "object") throw new TypeError(`options must be an object, got ${typeof options}`);
  const { signal, timeoutMs } = options;
  if (
    signal !== undefined &&
    (typeof signal !== "object" ||
      signal === null ||
      typeof signal.aborted !== "boolean" ||
      typeof signal.addEventListener !== "function")
  ) {
    throw new TypeError("options.signal must be an AbortSignal");
  }
  if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs > 0)) {
    throw new RangeError(`options.timeoutMs must be a positive integer (ms), got ${String(timeoutMs)}`);
  }
  return { signal, timeoutMs };
}

/** HTTP methods the API uses. */
export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** One call through the transport: what the method sends. The caller's {@link RequestOptions} go beside it. */
export interface Call<T> {
  method: Method;
  /** Encoded path (built with `path```), with any query string. */
  path: string;
  /** JSON body, serialized once. */
  json?: unknown;
  /** A prepared body (ingest batches), with its headers. */
  raw?: { body: Buffer; contentType: string; contentEncoding?: string };
  /** Extra request headers of this call (ingest's labels and CSV field names), sent with their names as given. */
  headers?: Record<string, string>;
  /** @internal Schema of a successful response; omitted for empty responses (DELETE). */
  schema?: z.ZodType<T>;
  /** True for a POST that only reads (queries): retried like a GET. */
  idempotent?: boolean;
}

/** The organization header the live service reads, as the official clients spell it. */
export const ORG_HEADER = "X-Axiom-Org-Id";
/** The organization header of the API document. */
export const SPEC_ORG_HEADER = "x-service-org-id";

/** The trace id of a response: the live service's `X-Axiom-Trace-Id` (read by axiomhq/axiom-go axiom/client.go
 * into its errors), else the API document's `X-Trace-Id`. */
export function traceIdOf(headers: Record<string, string | string[] | undefined>): string | undefined {
  return headerText(headers["x-axiom-trace-id"]) || headerText(headers["x-trace-id"]) || undefined;
}

/** This package's product token, first in every User-Agent. */
const PRODUCT = `pulumi-observability/${VERSION}`;

/** The User-Agent header: the product token, then the caller's `extra` tokens. A caller that names the product
 * itself (the provider once passed it) does not send it twice. */
export function userAgent(extra: string | undefined): string {
  const tokens = (extra ?? "").split(/\s+/).filter((t) => t !== "" && t !== PRODUCT);
  return [PRODUCT, ...tokens].join(" ");
}

/** The wait the service asked for (Retry-After / X-RateLimit-Reset) per failed attempt; kept off the error. */
const serverDelays = new WeakMap<ApiError, number>();
/**
 * 429s whose own answer reported the rate-limit window used up (`X-RateLimit-Remaining: 0` with a reset): their
 * retries wait in the pacer's queue. Decided by the answer, not by the time the retry is decided: on a stalled
 * event loop the answer may be read after that window ended, and a retry that then slept out `Retry-After`
 * instead (whole seconds, rounded up) lost its place to the requests made after it, a window or more.
 */
const windowUsedUp = new WeakSet<ApiError>();

/** Whether an answer's headers report the rate-limit window used up, with the time it ends. */
function usedUp(headers: Record<string, string | string[] | undefined>): boolean {
  const remaining = Number(headerText(headers["x-ratelimit-remaining"]));
  return (
    Number.isFinite(remaining) &&
    remaining <= 0 &&
    parseRateLimitReset(headers["x-ratelimit-reset"]) !== undefined
  );
}

/** The shared HTTP transport; one per client. */
export class Transport {
  /** How many retries have been made since the client was created. */
  retries = 0;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly headers: Record<string, string>;
  private readonly pacer: RatePacer;

  constructor(private readonly options: ResolvedOptions) {
    this.pacer = new RatePacer(options.clock);
    this.ownsDispatcher = options.dispatcher === undefined;
    this.dispatcher =
      options.dispatcher ??
      new Pool(options.origin, {
        connections: 16,
        keepAliveTimeout: 30_000,
        connect: { timeout: options.timeoutMs },
      });
    this.headers = {
      authorization: `Bearer ${options.token}`,
      "user-agent": userAgent(options.userAgent),
      accept: "application/json",
      // The live service reads the organization from X-Axiom-Org-Id (axiomhq/axiom-go axiom/client.go,
      // axiomhq/axiom-js packages/js/src/httpClient.ts); the API document's own name goes beside it.
      ...(options.orgId ? { [ORG_HEADER]: options.orgId, [SPEC_ORG_HEADER]: options.orgId } : {}),
    };
  }

  /** Sends `call`, retrying what is safe to retry, and returns the parsed body. `options` are the caller's, as
   * given: only their `signal` and `timeoutMs` are taken, after a check (see {@link requestOptions}). */
  async request<T>(call: Call<T>, options?: RequestOptions): Promise<T> {
    const { signal, timeoutMs } = requestOptions(options);
    const idempotent = call.idempotent ?? call.method !== "POST";
    const headers = call.headers ? { ...this.headers, ...call.headers } : { ...this.headers };
    let body: Buffer | undefined;
    if (call.raw) {
      body = call.raw.body;
      headers["content-type"] = call.raw.contentType;
      if (call.raw.contentEncoding) headers["content-encoding"] = call.raw.contentEncoding;
    } else if (call.json !== undefined) {
      body = Buffer.from(JSON.stringify(call.json));
      headers["content-type"] = "application/json";
    }
    const fullPath = this.options.basePath + call.path;
    const ticket = this.pacer.ticket();
    for (let attempt = 0; ; attempt++) {
      try {
        await this.pacer.acquire(ticket, signal, { method: call.method, path: fullPath });
        return await this.attempt(call, { signal, timeoutMs }, fullPath, headers, body, idempotent);
      } catch (err) {
        const error = err as ApiError;
        if (
          !(error instanceof ApiError) ||
          attempt >= this.options.maxRetries ||
          !shouldRetry(error, idempotent)
        ) {
          throw err;
        }
        const asked = serverDelays.get(error);
        const jitter = backoffMs(attempt + 1, this.options.baseDelayMs, this.options.maxDelayMs);
        // Refused because the window is used up: the retry waits in the pacer's queue, holding its ticket, so it
        // goes first at the reset (at once, if that window has ended meanwhile). Sleeping out Retry-After
        // instead would let newer requests take the window.
        const inQueue = windowUsedUp.has(error);
        // The service's own delay wins; a little jitter on top keeps concurrent callers from waking together.
        const delayMs = inQueue
          ? this.pacer.waitMs()
          : asked !== undefined
            ? Math.min(this.options.maxDelayMs, asked + Math.min(jitter, this.options.baseDelayMs))
            : jitter;
        this.retries++;
        this.options.onRetry?.({
          method: call.method,
          path: fullPath,
          attempt: attempt + 1,
          status: error.status,
          code: (error as { code?: string }).code,
          delayMs,
        });
        if (!inQueue) await this.pause(delayMs, call, fullPath, signal);
      }
    }
  }

  /** Closes the pool the transport created; an injected dispatcher belongs to the caller. */
  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  /** Waits `ms` between attempts; the call's signal ends the wait with an AbortError naming the request. */
  private async pause(
    ms: number,
    call: Call<unknown>,
    fullPath: string,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    try {
      await sleep(ms, signal, this.options.clock);
    } catch {
      throw new AbortError(`${call.method} ${fullPath} was aborted`, { method: call.method, path: fullPath });
    }
  }

  private async attempt<T>(
    call: Call<T>,
    { signal, timeoutMs }: RequestOptions,
    fullPath: string,
    headers: Record<string, string>,
    body: Buffer | undefined,
    idempotent: boolean,
  ): Promise<T> {
    const info = { method: call.method, path: fullPath };
    const notIdempotent = !idempotent;
    const secrets = [this.options.token];
    const timeout = timeoutMs ?? this.options.timeoutMs;
    let status: number;
    let resHeaders: Record<string, string | string[] | undefined>;
    let text: string;
    try {
      const res = await this.dispatcher.request({
        origin: this.options.origin,
        path: fullPath,
        method: call.method,
        headers,
        body,
        signal,
        headersTimeout: timeout,
        bodyTimeout: timeout,
      });
      status = res.statusCode;
      resHeaders = res.headers;
      const within = await textWithin(res.body, this.options.maxResponseBytes, resHeaders["content-length"]);
      if (within === undefined) {
        throw new InvalidResponseError(
          `${call.method} ${fullPath} returned ${status} with a body larger than ${this.options.maxResponseBytes} bytes (maxResponseBytes), which was not read: narrow the request (a smaller limit or time range) or raise maxResponseBytes`,
          { ...info, status, traceId: traceIdOf(resHeaders) },
        );
      }
      text = within;
    } catch (err) {
      if (err instanceof InvalidResponseError) throw err;
      throw errorFromTransport(err, { ...info, notIdempotent }, secrets, signal?.aborted === true);
    }
    const now = this.options.clock.now();
    this.pacer.note(resHeaders, now);
    const traceId = traceIdOf(resHeaders);
    if (status < 200 || status >= 300) {
      const retryDelayMs = serverDelayMs(status, resHeaders, now);
      const error = errorFromResponse(
        status,
        text,
        { ...info, traceId, retryAfterMs: retryDelayMs, notIdempotent },
        secrets,
      );
      if (retryDelayMs !== undefined) serverDelays.set(error, retryDelayMs);
      if (status === 429 && usedUp(resHeaders)) windowUsedUp.add(error);
      throw error;
    }
    if (!call.schema) return undefined as T;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new InvalidResponseError(
        `${call.method} ${fullPath} returned ${status} with a body that is not JSON`,
        {
          ...info,
          status,
          traceId,
        },
      );
    }
    // validate() applies the project's error map, so no zod default wording reaches the user.
    const result = validate(call.schema, parsed, "response");
    if (!result.ok) {
      const detail = formatFailures(result.failures);
      throw new InvalidResponseError(`${call.method} ${fullPath} returned an unexpected body: ${detail}`, {
        ...info,
        status,
        traceId,
      });
    }
    return result.value;
  }
}

/**
 * The body as text, or undefined when it is larger than `max` bytes: refused up front by its Content-Length, or
 * as soon as the bytes read pass the cap (a chunked body has no length), so at most `max` bytes are ever held.
 */
async function textWithin(
  body: Dispatcher.ResponseData["body"],
  max: number,
  contentLength: string | string[] | undefined,
): Promise<string | undefined> {
  const text = headerText(contentLength);
  const declared = text === undefined || text.trim() === "" ? NaN : Number(text);
  if (Number.isFinite(declared)) {
    // HTTP/1.1 framing ends a body at its Content-Length, so a length within the cap is safe to read the fast
    // way, which keeps the pages of a walk as cheap as before the cap.
    if (declared <= max) return body.text();
    // Destroying an unread body makes undici emit its abort as an error; nobody else listens, so swallow it here.
    body.on("error", () => {});
    body.destroy();
    return undefined;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    // Leaving the loop ends the stream (and frees the connection) through the iterator's return().
    if (size > max) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size).toString("utf8");
}
