/**
 * The client's error hierarchy. HTTP failures are built by one factory, {@link errorFromResponse}, chosen by
 * status; transport failures (undici errors) are wrapped by {@link errorFromTransport}. No error ever holds
 * the token: messages are scrubbed and undici errors are replaced by a scrubbed copy, never kept as `cause`.
 */
/** Where a request went: carried by every error so a failure can be located without logs. */
export interface RequestInfo {
  /** HTTP method, e.g. `GET`. */
  method: string;
  /** Path with query string, as sent (percent-encoded). */
  path: string;
}

/** Thrown by the constructor when options are missing or invalid (no request was made). */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

/** Base of every failure of a request: method, path, status (undefined without a response), message, trace id. */
export class ApiError extends Error {
  override readonly name: string = "ApiError";
  /** HTTP method of the failed request. */
  readonly method: string;
  /** Path (and query) of the failed request. */
  readonly path: string;
  /** HTTP status, or undefined when no response arrived. */
  readonly status: number | undefined;
  /** The service's `message` from the error body, when there was one. */
  readonly serviceMessage: string | undefined;
  /** The service's `detail` from the error body, when there was one: for an APL error
   * `{line, column, errorType, message}`. Kept as sent (token scrubbed), so callers can point at the query. */
  readonly detail: unknown;
  /** The response's trace id (`X-Axiom-Trace-Id`, else `X-Trace-Id`), for support requests. */
  readonly traceId: string | undefined;
  /** True when a non-idempotent request (a create) failed after it may have reached the service: it may or
   * may not have taken effect, and it was not sent again. Check whether it did before creating again. */
  readonly outcomeUnknown: boolean;

  constructor(
    message: string,
    info: RequestInfo & {
      status?: number;
      serviceMessage?: string;
      detail?: unknown;
      traceId?: string;
      cause?: Error;
      outcomeUnknown?: boolean;
    },
  ) {
    super(message, info.cause ? { cause: info.cause } : undefined);
    this.method = info.method;
    this.path = info.path;
    this.status = info.status;
    this.serviceMessage = info.serviceMessage;
    this.detail = info.detail;
    this.traceId = info.traceId;
    this.outcomeUnknown = info.outcomeUnknown ?? false;
  }

  /** A plain object for JSON logs: every field except the stack, none of them secret. */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      message: this.message,
      method: this.method,
      path: this.path,
      status: this.status,
      serviceMessage: this.serviceMessage,
      detail: this.detail,
      traceId: this.traceId,
      outcomeUnknown: this.outcomeUnknown,
    };
  }
}

/** 400: the service refused the request as invalid. */
export class BadRequestError extends ApiError {
  override readonly name: string = "BadRequestError";
}
/** 422: the request was well formed but the service could not apply it; a kind of bad request, so code that
 * handles BadRequestError handles it too. */
export class UnprocessableEntityError extends BadRequestError {
  override readonly name = "UnprocessableEntityError";
}
/** 401 or 403: authentication failed (wrong or missing token, or a personal token without org id). */
export class ForbiddenError extends ApiError {
  override readonly name = "ForbiddenError";
}
/** 404: no such object. */
export class NotFoundError extends ApiError {
  override readonly name = "NotFoundError";
}
/** 409: the object already exists (e.g. a role name clash). */
export class ConflictError extends ApiError {
  override readonly name = "ConflictError";
}
/** 412: the object changed since the version the request named (a dashboard written elsewhere). */
export class PreconditionFailedError extends ApiError {
  override readonly name = "PreconditionFailedError";
  /** The version the service holds now, when its error body said (`currentVersion`), as sent. */
  readonly currentVersion: number | string | undefined;
  constructor(
    message: string,
    info: ConstructorParameters<typeof ApiError>[1] & { currentVersion?: number | string },
  ) {
    super(message, info);
    this.currentVersion = info.currentVersion;
  }
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), currentVersion: this.currentVersion };
  }
}
/** 429 after every retry: rate limited. `retryAfterMs` is when the service said to come back. */
export class RateLimitError extends ApiError {
  override readonly name = "RateLimitError";
  /** Milliseconds until the service accepts requests again, when it said. */
  readonly retryAfterMs: number | undefined;
  constructor(message: string, info: ConstructorParameters<typeof ApiError>[1] & { retryAfterMs?: number }) {
    super(message, info);
    this.retryAfterMs = info.retryAfterMs;
  }
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), retryAfterMs: this.retryAfterMs };
  }
}
/** 430: the organization's query or ingest quota is used up; the service's own status code. */
export class QuotaExceededError extends ApiError {
  override readonly name = "QuotaExceededError";
}
/** 5xx: the service failed. */
export class ServerError extends ApiError {
  override readonly name = "ServerError";
}
/** A 2xx response whose body does not have the documented shape; the message names the field. */
export class InvalidResponseError extends ApiError {
  override readonly name = "InvalidResponseError";
}
/** No usable response: connection refused, reset, DNS failure, socket closed. */
export class ConnectionError extends ApiError {
  override readonly name: string = "ConnectionError";
  /** The undici or system error code, e.g. `ECONNREFUSED`, `UND_ERR_SOCKET`. */
  readonly code: string | undefined;
  constructor(message: string, info: ConstructorParameters<typeof ApiError>[1] & { code?: string }) {
    super(message, info);
    this.code = info.code;
  }
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), code: this.code };
  }
}
/** The request did not finish within `timeoutMs` (connect, headers or body). */
export class TimeoutError extends ConnectionError {
  override readonly name = "TimeoutError";
}
/** The caller's AbortSignal fired; never retried. */
export class AbortError extends ApiError {
  override readonly name = "AbortError";
}

type Info = RequestInfo & {
  traceId?: string;
  /** The request is not idempotent (a create), so a failure after sending leaves its outcome unknown. */
  notIdempotent?: boolean;
};

/** Appended to the message of a create whose outcome is unknown; callers such as the provider reconcile. */
export const OUTCOME_UNKNOWN_NOTE =
  "the request may or may not have been processed by the service; it was not sent again (so nothing is created twice): check whether it took effect before retrying";

/** 503 is the one 5xx the service sends before processing; any other 5xx may follow a processed request. */
function responseLeavesOutcomeUnknown(status: number): boolean {
  return status >= 500 && status !== 503;
}

/** The one factory: the error class for an HTTP status, with the service's message and trace id. */
export function errorFromResponse(
  status: number,
  body: string,
  info: Info & { retryAfterMs?: number },
  secrets: readonly string[] = [],
): ApiError {
  const parsed = errorBodyOf(body, secrets);
  const serviceMessage = parsed.message;
  const text = serviceMessage ? `: ${serviceMessage}${detailText(serviceMessage, parsed.detail)}` : "";
  const outcomeUnknown = info.notIdempotent === true && responseLeavesOutcomeUnknown(status);
  const note = outcomeUnknown ? `; ${OUTCOME_UNKNOWN_NOTE}` : "";
  const message = `${info.method} ${info.path} failed with ${status}${text}${note}`;
  const init = {
    method: info.method,
    path: info.path,
    status,
    serviceMessage,
    detail: parsed.detail,
    traceId: info.traceId,
    outcomeUnknown,
  };
  if (status === 400) return new BadRequestError(message, init);
  if (status === 401 || status === 403) return new ForbiddenError(message, init);
  if (status === 404) return new NotFoundError(message, init);
  if (status === 409) return new ConflictError(message, init);
  if (status === 412)
    return new PreconditionFailedError(message, { ...init, currentVersion: parsed.currentVersion });
  if (status === 422) return new UnprocessableEntityError(message, init);
  if (status === 429) return new RateLimitError(message, { ...init, retryAfterMs: info.retryAfterMs });
  if (status === 430) return new QuotaExceededError(message, init);
  if (status >= 500) return new ServerError(message, init);
  return new ApiError(message, init);
}

/** The service's error text and `detail`: `message` of a JSON body, else a short prefix of the raw body. Both
 * are scrubbed of the secrets (a detail is scrubbed through its JSON text, so no nested string escapes it). */
function errorBodyOf(
  body: string,
  secrets: readonly string[],
): { message?: string; detail?: unknown; currentVersion?: number | string } {
  if (!body) return {};
  try {
    const parsed = JSON.parse(body) as {
      message?: unknown;
      detail?: unknown;
      currentVersion?: unknown;
    } | null;
    if (parsed && typeof parsed === "object" && typeof parsed.message === "string") {
      const detail =
        parsed.detail === undefined || parsed.detail === null
          ? undefined
          : (JSON.parse(scrub(JSON.stringify(parsed.detail), secrets)) as unknown);
      // A dashboard's 412 says which version the service holds (DashboardError.currentVersion).
      const v = parsed.currentVersion;
      const currentVersion = typeof v === "number" || typeof v === "string" ? v : undefined;
      return { message: scrub(parsed.message, secrets), detail, currentVersion };
    }
  } catch {
    // not JSON: fall through to the raw text
  }
  return { message: scrub(body.length > 200 ? `${body.slice(0, 200)}…` : body, secrets) };
}

/** An APL error's position in a `detail` (`{line, column, message?}`), or undefined when it holds none. */
export function aplPosition(detail: unknown): { line: number; column: number; message?: string } | undefined {
  if (typeof detail !== "object" || detail === null || Array.isArray(detail)) return undefined;
  const d = detail as { line?: unknown; column?: unknown; message?: unknown };
  if (typeof d.line !== "number" || typeof d.column !== "number") return undefined;
  return { line: d.line, column: d.column, message: typeof d.message === "string" ? d.message : undefined };
}

/**
 * What the message adds from `detail`: an APL error's position as `(line L, column C)` unless the message already
 * says it, and the detail's own `message` when it differs; any other detail as compact JSON (at most 300
 * characters), so nothing the service explained is lost on the way to the user.
 */
function detailText(message: string, detail: unknown): string {
  if (detail === undefined) return "";
  const apl = aplPosition(detail);
  if (apl) {
    const position = `line ${apl.line}, column ${apl.column}`;
    const why = apl.message !== undefined && !message.includes(apl.message) ? `: ${apl.message}` : "";
    return message.includes(position) && why === "" ? "" : ` (${position}${why})`;
  }
  const json = JSON.stringify(detail);
  return ` (detail: ${json.length > 300 ? `${json.slice(0, 300)}…` : json})`;
}

/** Codes meaning the connection was never established, so nothing reached the service. */
export const NOT_SENT_CODES: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);
const TIMEOUT_CODES: ReadonlySet<string> = new Set([
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "ETIMEDOUT",
]);

/** A scrubbed stand-in for an undici/system error: keeps name, code and message, drops everything else. */
export class TransportCause extends Error {
  override readonly name: string;
  /** The original error code. */
  readonly code: string | undefined;
  constructor(name: string, code: string | undefined, message: string) {
    super(message);
    this.name = name;
    this.code = code;
  }
}

/** Wraps an undici or system error as ConnectionError / TimeoutError / AbortError, with the token scrubbed. */
export function errorFromTransport(
  err: unknown,
  info: RequestInfo & { notIdempotent?: boolean },
  secrets: readonly string[],
  aborted: boolean,
): ApiError {
  const e = (err ?? {}) as { code?: unknown; message?: unknown; name?: unknown; cause?: unknown };
  // Connect failures sometimes arrive as a generic error whose `cause` carries the system code.
  const inner = (e.cause ?? {}) as { code?: unknown };
  const code = typeof e.code === "string" ? e.code : typeof inner.code === "string" ? inner.code : undefined;
  const rawMessage = scrub(typeof e.message === "string" ? e.message : String(err), secrets);
  const cause = new TransportCause(typeof e.name === "string" ? e.name : "Error", code, rawMessage);
  const where = { method: info.method, path: info.path };
  // A connection that was never established carried nothing; anything later may have delivered the request.
  const outcomeUnknown = info.notIdempotent === true && !(code !== undefined && NOT_SENT_CODES.has(code));
  const note = outcomeUnknown ? `; ${OUTCOME_UNKNOWN_NOTE}` : "";
  if (aborted) {
    return new AbortError(`${info.method} ${info.path} was aborted${note}`, {
      ...where,
      cause,
      outcomeUnknown,
    });
  }
  const what = `${info.method} ${info.path}`;
  if (code && TIMEOUT_CODES.has(code)) {
    return new TimeoutError(`${what} timed out (${code})${note}`, { ...where, code, cause, outcomeUnknown });
  }
  return new ConnectionError(`${what} failed: ${rawMessage}${code ? ` (${code})` : ""}${note}`, {
    ...where,
    code,
    cause,
    outcomeUnknown,
  });
}

/** Replaces every secret (the token) in `text`; secrets shorter than 4 characters are left (too ambiguous). */
export function scrub<T extends string | undefined>(text: T, secrets: readonly string[]): T {
  if (text === undefined) return text;
  let out: string = text;
  for (const s of secrets) if (s.length >= 4) out = out.split(s).join("[REDACTED]");
  return out as T;
}
