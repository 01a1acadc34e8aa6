/**
 * When to retry and how long to wait. Pure functions, so the rules are tested without a server.
 */
import { parseDateTextMs } from "../time";
import { systemClock, type Clock } from "./clock";
import { AbortError, ApiError, ConnectionError, NOT_SENT_CODES } from "./errors";

/** Whether a failed attempt may be sent again.
 * Idempotent requests (GET, PUT, DELETE, read-only query POSTs) retry on 429, 5xx, timeouts and connection
 * errors. Other POSTs retry only where the service surely did not act: 429 and 503 (refused before
 * processing) and a connection that was never established; a 500 or a reset mid-request may mean the object
 * was created, and sending again could create it twice. */
export function shouldRetry(error: ApiError, idempotent: boolean): boolean {
  if (error instanceof AbortError) return false;
  if (error instanceof ConnectionError) {
    if (error.code !== undefined && NOT_SENT_CODES.has(error.code)) return true;
    return idempotent;
  }
  const status = error.status;
  if (status === 429 || status === 503) return true;
  if (status !== undefined && status >= 500) return idempotent;
  return false;
}

/** Exponential backoff with full jitter: uniform in [0, min(cap, base·2^(attempt-1))). */
export function backoffMs(
  attempt: number,
  baseDelayMs: number,
  maxDelayMs: number,
  random = Math.random,
): number {
  const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * ceiling);
}

type HeaderValue = string | string[] | undefined;

/** The first value of a response header, as undici gives repeated headers as a list. */
export function headerText(v: HeaderValue): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** `Retry-After` in ms: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: HeaderValue, now = Date.now()): number | undefined {
  const text = headerText(value)?.trim();
  if (!text) return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const at = parseDateTextMs(text);
  return at === undefined ? undefined : Math.max(0, at - now);
}

/** `X-RateLimit-Reset` (Unix epoch seconds) as an absolute time in ms; undefined when absent. */
export function parseRateLimitReset(value: HeaderValue): number | undefined {
  const text = headerText(value)?.trim();
  if (!text || !/^\d+(\.\d+)?$/.test(text)) return undefined;
  return Math.round(Number(text) * 1000);
}

/** How long the service asked us to wait before retrying a response with `status`, or undefined to back off
 * with jitter. A 429 honours `Retry-After`, else `X-RateLimit-Reset`; a 503 honours `Retry-After` only. The
 * service sends `X-RateLimit-Reset` on every response, so reading it on a 5xx would stall a retry until the
 * rate-limit window ends (up to a minute) although nothing was rate limited. */
export function serverDelayMs(
  status: number,
  headers: Record<string, HeaderValue>,
  now = Date.now(),
): number | undefined {
  if (status !== 429 && status !== 503) return undefined;
  const retryAfter = parseRetryAfter(headers["retry-after"], now);
  if (retryAfter !== undefined || status !== 429) return retryAfter;
  const reset = parseRateLimitReset(headers["x-ratelimit-reset"]);
  return reset === undefined ? undefined : Math.max(0, reset - now);
}

/** Sleeps `ms` on `clock`, waking early (rejecting) when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal, clock: Clock = systemClock): Promise<void> {
  if (ms <= 0 && !signal?.aborted) return Promise.resolve();
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const cancel = clock.setTimer(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      cancel();
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
