/**
 * The time the client reads and waits on: the rate-limit pacer's windows, the waits between retries, and the
 * service's `Retry-After` dates. One seam, so a test can run all of them on a clock it moves by hand (and a
 * stalled event loop becomes a step of that clock), instead of on the machine's, whose pace depends on its load.
 */

/** A source of the current time and of timers. */
export interface Clock {
  /** Milliseconds since the epoch, as `Date.now()`. */
  now(): number;
  /** Calls `fn` once, `ms` from now; the function returned cancels it. */
  setTimer(fn: () => void, ms: number): () => void;
}

/** The machine's clock and Node's timers. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer: (fn, ms) => {
    const timer = setTimeout(fn, ms);
    return () => clearTimeout(timer);
  },
};
