/**
 * Fair pacing under the service's rate limit. Every request takes a ticket when it is first made; while the
 * window the service reports (`X-RateLimit-Remaining`, `-Reset`, `-Limit`) has room and nobody waits, it goes at
 * once. Otherwise it waits in a queue ordered by ticket, and each reset releases as many as the window allows,
 * oldest ticket first. A retry keeps its ticket, so a request the service refused with 429 is first in line at
 * the next reset instead of racing the requests made after it: no request waits more than one window beyond
 * its place in the queue.
 *
 * Without rate-limit headers nothing is paced.
 */
import { systemClock, type Clock } from "./clock";
import { AbortError } from "./errors";
import { headerText, parseRateLimitReset } from "./retry";

type HeaderValue = string | string[] | undefined;

/** The service counts in windows of a minute; a reset further ahead than this is read as this far. */
export const MAX_WINDOW_MS = 61_000;
/** When a window ran out and no answer told when the next one ends, look again after this long. */
const PROBE_MS = 1_000;

interface Waiter {
  ticket: number;
  resolve(): void;
  reject(err: Error): void;
}

/** The window as the service last reported it. */
interface Window {
  /** When it ends (ms since the epoch); undefined once it ended and no answer has reported the next one. */
  resetAt: number | undefined;
  /** Requests it still takes, counting those sent into it whose answers are still to come. */
  remaining: number;
  /** The reset of the last window reported, to tell a newer window from a late answer about an older one. */
  lastReset: number;
}

/** One client's rate-limit gate; see the file comment. */
export class RatePacer {
  private nextTicket = 0;
  private window?: Window;
  /** The limit per window, once the service has said it. */
  private limit?: number;
  private queue: Waiter[] = [];
  /** Cancels the pending wake-up, when one is set. */
  private cancelTimer?: () => void;

  constructor(private readonly clock: Clock = systemClock) {}

  /** A place in line for a new request; its retries reuse it. */
  ticket(): number {
    return this.nextTicket++;
  }

  /** Whether the current window is known to be used up (so a 429's retry waits here, for the reset). */
  exhausted(now = this.clock.now()): boolean {
    this.roll(now);
    return this.window !== undefined && this.window.remaining <= 0;
  }

  /** How long until the current window ends, as far as known (0 when it has room or is unknown). */
  waitMs(now = this.clock.now()): number {
    const resetAt = this.window?.resetAt;
    return this.exhausted(now) && resetAt !== undefined ? Math.max(0, resetAt - now) : 0;
  }

  /** Resolves when the request holding `ticket` may be sent; an abort rejects with an AbortError naming it. */
  acquire(
    ticket: number,
    signal: AbortSignal | undefined,
    what: { method: string; path: string },
  ): Promise<void> {
    if (this.queue.length === 0 && this.take(this.clock.now())) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const abort = () => {
        this.queue = this.queue.filter((w) => w !== waiter);
        reject(new AbortError(`${what.method} ${what.path} was aborted`, what));
        this.drain();
      };
      if (signal?.aborted) return abort();
      const waiter: Waiter = {
        ticket,
        resolve: () => {
          signal?.removeEventListener("abort", abort);
          resolve();
        },
        reject,
      };
      signal?.addEventListener("abort", abort, { once: true });
      // Kept in ticket order: a retry goes ahead of every request made after it.
      const at = this.queue.findIndex((w) => w.ticket > ticket);
      this.queue.splice(at === -1 ? this.queue.length : at, 0, waiter);
      this.drain();
    });
  }

  /** Reads the window from an answer's headers (any status), then lets waiting requests go if it has room. */
  note(headers: Record<string, HeaderValue>, now = this.clock.now()): void {
    const remaining = Number(headerText(headers["x-ratelimit-remaining"]));
    const reset = parseRateLimitReset(headers["x-ratelimit-reset"]);
    if (!Number.isFinite(remaining) || reset === undefined) return;
    const limit = Number(headerText(headers["x-ratelimit-limit"]));
    if (Number.isFinite(limit) && limit > 0) this.limit = limit;
    const resetAt = Math.min(reset, now + MAX_WINDOW_MS);
    const w = this.window;
    if (w === undefined || resetAt > w.lastReset) {
      // A window not seen before. The requests released into it since it began were counted down locally.
      const local = w !== undefined && w.resetAt === undefined ? w.remaining : Infinity;
      this.window = { resetAt, remaining: Math.min(local, remaining), lastReset: resetAt };
    } else if (resetAt === w.lastReset) {
      // The service's count lags the requests still in flight, and ours lags other clients': the lower holds.
      w.remaining = Math.min(w.remaining, remaining);
    }
    // Otherwise a late answer about a window that has ended: nothing to learn.
    this.drain();
  }

  /** Starts the next window when the current one has ended. */
  private roll(now: number): void {
    const w = this.window;
    if (w?.resetAt !== undefined && now >= w.resetAt) {
      w.resetAt = undefined;
      w.remaining = this.limit ?? Infinity;
    }
  }

  /** Counts one request into the window when it has room; false when it has none. */
  private take(now: number): boolean {
    this.roll(now);
    const w = this.window;
    if (w === undefined) return true;
    if (w.remaining <= 0) return false;
    w.remaining--;
    return true;
  }

  /** Lets waiting requests go, oldest ticket first, while the window has room; else waits for its end. */
  private drain(): void {
    const now = this.clock.now();
    while (this.queue.length > 0 && this.take(now)) this.queue.shift()!.resolve();
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    if (this.queue.length === 0) return;
    const resetAt = this.window?.resetAt;
    this.cancelTimer = this.clock.setTimer(
      () => {
        this.cancelTimer = undefined;
        // No answer said when the next window ends: let one request go to find out.
        if (this.window && this.window.resetAt === undefined && this.window.remaining <= 0)
          this.window.remaining = 1;
        this.drain();
      },
      resetAt === undefined ? PROBE_MS : Math.max(0, resetAt - now),
    );
  }
}
