/**
 * A clock that moves only when the test moves it (the client's `clock` option, provider/client/clock.ts), and a
 * way to let everything that does not wait on it finish first. With the client's requests answered in process
 * (an undici MockAgent), nothing but this clock's timers is left pending once `settle` returns, so a test can
 * run minutes of rate-limit windows and retries in milliseconds, the same on a busy machine as on an idle one.
 */
import type { Clock } from "../../provider/client";

interface Timer {
  at: number;
  seq: number;
  fn: () => void;
}

/** A hand-driven clock. */
export class ManualClock implements Clock {
  private timers: Timer[] = [];
  private seq = 0;
  private waiters: (() => void)[] = [];

  constructor(private current: number) {}

  now(): number {
    return this.current;
  }

  setTimer(fn: () => void, ms: number): () => void {
    const timer: Timer = { at: this.current + Math.max(0, ms), seq: this.seq++, fn };
    this.timers.push(timer);
    for (const wake of this.waiters.splice(0)) wake();
    return () => void (this.timers = this.timers.filter((t) => t !== timer));
  }

  /** Timers not yet fired. */
  get pending(): number {
    return this.timers.length;
  }

  /** How far ahead the earliest pending timer is; undefined when none is. */
  nextDueIn(): number | undefined {
    if (this.timers.length === 0) return undefined;
    return Math.min(...this.timers.map((t) => t.at)) - this.current;
  }

  /**
   * Resolves once a timer is pending: at once if one is, else when the next is set. What a test awaits instead
   * of guessing how long the work before a wait takes.
   */
  timerSet(): Promise<void> {
    if (this.timers.length > 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /**
   * Time passes with nothing run: a stalled event loop. Timers that fall due meanwhile fire only at the next
   * {@link advance}, late, as they would after a stall.
   */
  stall(ms: number): void {
    this.current += ms;
  }

  /**
   * Moves to the earliest pending timer (or stays, when it is already due) and fires it: one timer a step, so
   * that a timer cancelled by the one before it never fires, as with Node's clearTimeout.
   */
  advance(): boolean {
    if (this.timers.length === 0) return false;
    const next = this.timers.reduce((a, b) => (b.at < a.at || (b.at === a.at && b.seq < a.seq) ? b : a));
    this.current = Math.max(this.current, next.at);
    this.timers = this.timers.filter((t) => t !== next);
    next.fn();
    return true;
  }
}

/**
 * Lets promise chains, stream events and in-process answers run to their end: `turns` turns of the event loop.
 * Nothing here waits on wall time.
 */
export async function settle(turns = 50): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((r) => setImmediate(r));
}

/**
 * Runs `clock` until `done()`: settles, then fires the next timers, and again. Fails when nothing is pending and
 * `done()` still does not hold (the work is stuck on something other than the clock).
 */
export async function runUntil(clock: ManualClock, done: () => boolean): Promise<void> {
  for (;;) {
    await settle();
    if (done()) return;
    if (!clock.advance()) throw new Error("runUntil: nothing left to run, and the work is not done");
  }
}
