/**
 * The emulator's one clock. Everything time-dependent reads it: the rate-limit windows and their `Retry-After`,
 * API tokens' expiry, the quotas' month, the query's `now`, and the monitor scheduler, which registers its runs as
 * timers on it.
 *
 * - `real` (the default): now is the machine's time; timers are `setTimeout`s, unref'd, so a scheduled monitor
 *   never keeps a process alive on its own.
 * - `manual`: now moves only when told to ({@link EmulatorClock.advance}, {@link EmulatorClock.advanceTo}). Moving
 *   it fires every timer that falls due on the way, one at a time in time order (ties by rank, then in the order
 *   registered),
 *   each awaited before the next, with now set to the timer's own time while it runs; a timer registered by a
 *   firing one fires too if it falls due before the target. So a test lays out hours of events and then advances
 *   through them without sleeping, and the result is the same on a busy machine as on an idle one.
 */
import { parseRfc3339Ns } from "./time";

/** Which clock an emulator runs on. */
export type ClockKind = "real" | "manual";

/** A registered timer; cancelling one that already fired does nothing. */
export interface ClockTimer {
  cancel(): void;
}

/** The one clock of an emulator (see the module's comment). */
export interface EmulatorClock {
  readonly kind: ClockKind;
  /** Now, in ms since the epoch. */
  nowMs(): number;
  /** Now, in ns since the epoch (the manual clock's ms, scaled). */
  nowNs(): bigint;
  /**
   * Manual only: moves now forward by `ms`, firing each timer that falls due on the way in time order; resolves
   * once every fired timer's work is done. The real clock refuses (it cannot be moved).
   */
  advance(ms: number): Promise<void>;
  /** Manual only: as {@link advance}, to the absolute time `ms` (not before now). */
  advanceTo(ms: number): Promise<void>;
  /**
   * Calls `fn` at the absolute time `ms` (at once, on the next turn, when that is past). Of timers due at the same
   * time, a manual clock fires the lower `rank` first (default 0), then the one registered first.
   */
  at(ms: number, fn: () => void | Promise<void>, rank?: number): ClockTimer;
}

/** The refusal of moving a real clock: names what to do instead. */
export const REAL_CLOCK_CANNOT_MOVE =
  'the emulator runs on the real clock, which cannot be moved; start it with clock: "manual" (CLI: --clock manual)';

/**
 * The largest delay `setTimeout` takes (2^31 − 1 ms, about 24.8 days; Node's docs, timers): a longer one fires
 * at once. A real timer further away than this waits in hops.
 */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/** The real clock: the machine's time, or what a reader function says (the older `clock: () => number` option). */
export class RealClock implements EmulatorClock {
  readonly kind = "real" as const;

  /** `read` is the time source; `Date.now` unless a test holds time in a function of its own. */
  constructor(private readonly read: () => number = Date.now) {}

  nowMs(): number {
    return this.read();
  }

  nowNs(): bigint {
    return BigInt(Math.trunc(this.read())) * 1_000_000n;
  }

  advance(_ms?: number): Promise<void> {
    return Promise.reject(new Error(REAL_CLOCK_CANNOT_MOVE));
  }

  advanceTo(_ms?: number): Promise<void> {
    return Promise.reject(new Error(REAL_CLOCK_CANNOT_MOVE));
  }

  at(ms: number, fn: () => void | Promise<void>): ClockTimer {
    let handle: NodeJS.Timeout | undefined;
    let cancelled = false;
    // Re-reads the clock at each wake: a reader function held by a test may not have reached `ms` yet, and a
    // delay past setTimeout's limit is waited in hops.
    const arm = () => {
      if (cancelled) return;
      const wait = ms - this.read();
      if (wait <= 0) {
        handle = undefined;
        void Promise.resolve()
          .then(fn)
          .catch(() => undefined);
        return;
      }
      handle = setTimeout(arm, Math.min(wait, MAX_TIMEOUT_MS));
      handle.unref();
    };
    handle = setTimeout(arm, Math.max(0, Math.min(ms - this.read(), MAX_TIMEOUT_MS)));
    handle.unref();
    return {
      cancel() {
        cancelled = true;
        if (handle) clearTimeout(handle);
      },
    };
  }
}

interface ManualTimer {
  due: number;
  rank: number;
  seq: number;
  fn: () => void | Promise<void>;
  cancelled: boolean;
}

/** The manual clock (see the module's comment). */
export class ManualClock implements EmulatorClock {
  readonly kind = "manual" as const;
  private current: number;
  private timers: ManualTimer[] = [];
  private seq = 0;
  /** Moves run one after another: a second `advance` waits for the first to finish. */
  private moving: Promise<void> = Promise.resolve();

  constructor(startMs: number) {
    if (!Number.isFinite(startMs))
      throw new Error(`the manual clock needs a finite start time, not ${startMs}`);
    this.current = startMs;
  }

  nowMs(): number {
    return this.current;
  }

  nowNs(): bigint {
    return BigInt(Math.trunc(this.current)) * 1_000_000n;
  }

  /** Timers registered and not yet fired nor cancelled. */
  get pending(): number {
    return this.timers.filter((t) => !t.cancelled).length;
  }

  advance(ms: number): Promise<void> {
    if (!Number.isFinite(ms) || ms < 0) {
      return Promise.reject(new Error(`advance: must be a non-negative number of ms, not ${ms}`));
    }
    return this.queue(() => this.current + ms);
  }

  advanceTo(ms: number): Promise<void> {
    if (!Number.isFinite(ms)) return Promise.reject(new Error(`advanceTo: must be a finite time, not ${ms}`));
    return this.queue(() => {
      if (ms < this.current) {
        throw new Error(
          `advanceTo: ${new Date(ms).toISOString()} is before the clock's now, ${new Date(this.current).toISOString()}; the clock only moves forward`,
        );
      }
      return ms;
    });
  }

  at(ms: number, fn: () => void | Promise<void>, rank = 0): ClockTimer {
    const timer: ManualTimer = { due: ms, rank, seq: this.seq++, fn, cancelled: false };
    this.timers.push(timer);
    return {
      cancel: () => {
        timer.cancelled = true;
        this.timers = this.timers.filter((t) => t !== timer);
      },
    };
  }

  /** Runs one move after the moves already asked for; `target` is read when the move starts. */
  private queue(target: () => number): Promise<void> {
    const run = this.moving.then(() => this.moveTo(target()));
    // A failed move (a timer threw, a target in the past) does not block the next one.
    this.moving = run.catch(() => undefined);
    return run;
  }

  private async moveTo(target: number): Promise<void> {
    for (;;) {
      const next = this.earliestDue(target);
      if (!next) break;
      this.timers = this.timers.filter((t) => t !== next);
      this.current = Math.max(this.current, next.due);
      await next.fn();
    }
    this.current = Math.max(this.current, target);
  }

  /** The earliest live timer due at or before `target` (ties: the lower rank, then the first registered). */
  private earliestDue(target: number): ManualTimer | undefined {
    let best: ManualTimer | undefined;
    for (const t of this.timers) {
      if (t.cancelled || t.due > target) continue;
      if (
        !best ||
        t.due < best.due ||
        (t.due === best.due && (t.rank < best.rank || (t.rank === best.rank && t.seq < best.seq)))
      )
        best = t;
    }
    return best;
  }
}

/** Duration units a clock advance takes, in ms. */
const DURATION_UNITS: Record<string, number> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/**
 * A duration as ms: a non-negative number of ms, or text such as `90m`, `1h30m`, `45s`, `2d`, `250ms` (Go's
 * `time.ParseDuration` units, plus `d`). Undefined when it is neither.
 */
export function parseDurationMs(spec: string | number): number | undefined {
  if (typeof spec === "number") return Number.isFinite(spec) && spec >= 0 ? spec : undefined;
  if (typeof spec !== "string") return undefined;
  const text = spec.trim();
  if (text === "") return undefined;
  const part = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/y;
  let total = 0;
  let at = 0;
  while (at < text.length) {
    part.lastIndex = at;
    const m = part.exec(text);
    if (!m) return undefined;
    total += Number(m[1]) * DURATION_UNITS[m[2]];
    at = part.lastIndex;
  }
  return total;
}

/** An RFC 3339 time (or a Date) as ms since the epoch; undefined when it is not one. */
export function parseTimeMs(time: string | Date): number | undefined {
  if (time instanceof Date) return Number.isNaN(time.getTime()) ? undefined : time.getTime();
  if (typeof time !== "string") return undefined;
  const ns = parseRfc3339Ns(time);
  return ns === undefined ? undefined : Number(ns / 1_000_000n);
}

/** The clock settings as `startEmulator` takes them. */
export interface ClockOptions {
  /**
   * `"real"` (default) or `"manual"`. A function returning ms since the epoch is still taken: a real clock that
   * reads it (a test seam for rate-limit windows and token expiry).
   */
  clock?: ClockKind | (() => number);
  /** Manual clock only: where it starts, RFC 3339 or a Date; default the machine's time at start. */
  now?: string | Date;
}

/**
 * The clock the options ask for; an option of the wrong type or value is an Error naming it, thrown before
 * anything starts.
 */
export function createClock(options: ClockOptions): EmulatorClock {
  const { clock, now } = options;
  if (clock !== undefined && typeof clock !== "function" && clock !== "real" && clock !== "manual") {
    throw new Error(
      `clock: must be "real" or "manual" (or a function answering ms since the epoch), not ${describe(clock)}`,
    );
  }
  let startMs: number | undefined;
  if (now !== undefined) {
    startMs = typeof now === "string" || now instanceof Date ? parseTimeMs(now) : undefined;
    if (startMs === undefined) {
      throw new Error(
        `now: must be an RFC 3339 time (e.g. 2026-01-01T00:00:00Z) or a Date, not ${describe(now)}`,
      );
    }
    if (clock !== "manual") throw new Error('now: is only taken with clock: "manual"');
  }
  if (clock === "manual") return new ManualClock(startMs ?? Date.now());
  return new RealClock(typeof clock === "function" ? clock : Date.now);
}

/** A value as an error message shows it: strings quoted, the rest by type. */
function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (value instanceof Date) return "an invalid Date";
  if (value === null) return "null";
  if (typeof value === "number" || typeof value === "boolean") return `${typeof value} ${String(value)}`;
  return Array.isArray(value) ? "an array" : `a ${typeof value}`;
}
