/**
 * The monitor scheduler: runs every enabled monitor on the emulator's clock, keeps each alert's state, records
 * opens and closes in the monitor's history and hands each notification to the notifications (./notify).
 *
 * When a monitor runs (our choices where no source says, documented in docs/emulator.md, "Monitors that run"):
 * - Every `intervalMinutes`, on the clock's grid of that interval since the Unix epoch (a 5-minute monitor runs at
 *   :00, :05, …), first at the first such time after it is created or the emulator starts.
 * - Its window ends `secondDelay` seconds before the run and spans `rangeMinutes` (a match monitor: its interval,
 *   so that each event is seen once): `[run − secondDelay − range, run − secondDelay)` (DOCS: the run's end time is
 *   when it runs; GO, TF: secondDelay shifts the window back for late data).
 * - An edit takes effect at the next run; a changed interval moves the next run to the new grid. A delete cancels
 *   the next run, and a run under way when its monitor is deleted is dropped. `disabled` skips runs; so does
 *   `disabledUntil`, until that time (DOCS configure-monitors).
 * - A monitor makes one run at a time. A run that falls due while the monitor's previous run is still under way
 *   is skipped, not queued, and recorded as a run of state `skipped` naming the run under way (as Prometheus
 *   counts a rule group's missed iterations, rules/group.go: its next evaluation is the next tick after the one
 *   under way ends, and the ticks it missed are counted, never caught up). Queued runs are what starved every
 *   monitor: each late run made the next later.
 * - Different monitors' runs go side by side: a run's query yields between slices (emulator/query/budget.ts), so
 *   one monitor's slow query delays another's run by a slice, not by the whole query. On a manual clock each
 *   run is awaited before the next timer fires, so runs there go one at a time, in time order, and runs due at one
 *   time in the order the monitors were created.
 * - A run's query has a run's budgets (./run-query.ts runBudget): the query timeout, cut to the monitor's
 *   interval, and a memory budget. A query that fails (unknown dataset, refused construct, over a budget) is
 *   recorded on the run, naming why, with the alert state left as it was; the scheduler goes on.
 * - Judging a run is ./judge.ts's pure function (the monitor parsed once into its typed form, the run's query
 *   results, the alert state before it): this file keeps the timers, runs the queries, saves and sends.
 */
import type { EmulatorClock, ClockTimer } from "../clock";
import type { EmulatorContext } from "../context";
import type { StateChange, StoredObject } from "../state";
import { formatNs } from "../time";
import { alertsRecord, readAlerts } from "./alert-state";
import { disabledAt, judge, runQueries, runWindow, type QueryOutcome } from "./judge";
import { parseMonitor, type RunnableMonitor } from "./monitor";
import type { MissingNotifier, Notifications } from "./notify";
import { runBudget, runMonitorQuery } from "./run-query";
import type { MonitorRun } from "./types";

/** The collections the scheduler reads (emulator/routes/monitors.ts, notifiers.ts). */
const MONITORS = "monitors";
const NOTIFIERS = "notifiers";

/** The most history entries kept per monitor (the oldest go first), so a long run's memory stays flat. */
export const HISTORY_LIMIT = 1000;

const MINUTE_MS = 60_000;
const NS_PER_MS = 1_000_000n;

/** Settings of a {@link MonitorScheduler}. */
export interface SchedulerOptions {
  em: EmulatorContext;
  clock: EmulatorClock;
  notifications: Notifications;
  /** Called with every run made, in order. */
  onRun?: (run: MonitorRun) => void;
  /** One line per failed run; silent when unset. */
  logger?: (line: string) => void;
}

interface Scheduled {
  timer: ClockTimer;
  intervalMs: number;
}

/** The monitor scheduler (see the module's comment). */
export class MonitorScheduler {
  private readonly scheduled = new Map<string, Scheduled>();
  /** Each monitor's rank, in the order the scheduler first saw them (creation order): runs due at one time go in it. */
  private readonly ranks = new Map<string, number>();
  private nextRank = 0;
  /** Each monitor's run under way, by monitor id: when it was due, and its end. A monitor has one at most. */
  private readonly underway = new Map<string, { dueMs: number; done: Promise<void> }>();
  /** Each stored monitor parsed once into its typed form (an edit stores a new object, parsed at its next run). */
  private readonly parsed = new WeakMap<StoredObject, RunnableMonitor>();
  private stopWatching?: () => void;
  private stopped = false;

  constructor(private readonly options: SchedulerOptions) {}

  private get em(): EmulatorContext {
    return this.options.em;
  }

  /** Schedules every stored monitor and follows monitors as they are created, edited and deleted. */
  start(): void {
    for (const m of this.em.state.collection(MONITORS).list()) this.follow(m);
    this.stopWatching = this.em.state.watch((change) => this.onChange(change));
  }

  /** Cancels every scheduled run and waits for the runs under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopWatching?.();
    for (const s of this.scheduled.values()) s.timer.cancel();
    this.scheduled.clear();
    await Promise.all([...this.underway.values()].map((u) => u.done));
  }

  private onChange(change: StateChange): void {
    if ("put" in change && change.put === MONITORS) this.follow(change.obj);
    else if ("del" in change && change.del === MONITORS) {
      this.scheduled.get(change.id)?.timer.cancel();
      this.scheduled.delete(change.id);
      this.ranks.delete(change.id);
    }
  }

  /** Schedules a monitor's next run, unless one is scheduled at its interval already (an edit keeps it). */
  private follow(monitor: StoredObject): void {
    if (this.stopped) return;
    const intervalMs = Math.max(1, this.typed(monitor).intervalMinutes) * MINUTE_MS;
    const current = this.scheduled.get(monitor.id);
    if (current?.intervalMs === intervalMs) return;
    current?.timer.cancel();
    const now = this.options.clock.nowMs();
    this.schedule(monitor.id, intervalMs, (Math.floor(now / intervalMs) + 1) * intervalMs);
  }

  private schedule(id: string, intervalMs: number, dueMs: number): void {
    let rank = this.ranks.get(id);
    if (rank === undefined) this.ranks.set(id, (rank = this.nextRank++));
    const timer = this.options.clock.at(dueMs, () => this.fire(id, intervalMs, dueMs), rank);
    this.scheduled.set(id, { timer, intervalMs });
  }

  /**
   * A monitor's run falls due: the next one is scheduled, then this one runs at once, or is skipped when the
   * monitor's previous run is still under way. Answers the run's end (a manual clock awaits it).
   */
  private fire(id: string, intervalMs: number, dueMs: number): Promise<void> | undefined {
    if (this.stopped) return undefined;
    this.scheduled.delete(id);
    const monitor = this.em.state.collection(MONITORS).get(id);
    if (!monitor) return undefined;
    this.schedule(id, intervalMs, this.nextDue(dueMs, intervalMs));
    if (disabledAt(this.typed(monitor), dueMs)) return undefined;
    const busy = this.underway.get(id);
    if (busy) {
      this.skip(monitor, dueMs, busy.dueMs);
      return undefined;
    }
    const done = this.run(id, dueMs, intervalMs)
      .catch((err: unknown) => {
        this.options.logger?.(`monitor ${id}: the scheduler failed a run: ${(err as Error)?.message ?? err}`);
      })
      .finally(() => this.underway.delete(id));
    this.underway.set(id, { dueMs, done });
    return done;
  }

  /** Records a run not made because the run due at `busyMs` is still under way (see the module's comment). */
  private skip(monitor: StoredObject, dueMs: number, busyMs: number): void {
    const { startNs, endNs } = runWindow(this.typed(monitor), dueMs);
    const reason =
      `the run due at ${iso(busyMs)} was still under way; a monitor makes one run at a time, and a run that ` +
      "falls due meanwhile is skipped (its window is not read)";
    this.options.logger?.(
      `monitor ${monitor.id} (${String(monitor.name)}): run at ${iso(dueMs)} skipped: ${reason}`,
    );
    this.options.onRun?.({
      monitorId: monitor.id,
      monitorName: String(monitor.name),
      time: iso(dueMs),
      windowStart: formatNs(startNs),
      windowEnd: formatNs(endNs),
      state: "skipped",
      values: [],
      reason,
      notifications: 0,
      alerts: [],
      transitions: [],
      ...this.startedAt(),
    });
  }

  /** A run's `startedAt`: the real clock's now; nothing on a manual clock (a run starts at its time there). */
  private startedAt(): { startedAt?: string } {
    return this.options.clock.kind === "real"
      ? { startedAt: new Date(this.options.clock.nowMs()).toISOString() }
      : {};
  }

  /**
   * The run after one due at `dueMs`. A manual clock makes every run on the way, however far it moves. On the real
   * clock, runs missed while the machine slept (or the emulator was starved) are skipped to the grid's next point
   * after now: one run catches up, not one per missed interval.
   */
  private nextDue(dueMs: number, intervalMs: number): number {
    const next = dueMs + intervalMs;
    const now = this.options.clock.nowMs();
    if (this.options.clock.kind === "manual" || next > now) return next;
    return (Math.floor(now / intervalMs) + 1) * intervalMs;
  }

  /** A stored monitor in its typed form, parsed once per stored version. */
  private typed(stored: StoredObject): RunnableMonitor {
    let monitor = this.parsed.get(stored);
    if (!monitor) this.parsed.set(stored, (monitor = parseMonitor(stored)));
    return monitor;
  }

  /** Runs one monitor at `runMs`: its queries, the judge (./judge.ts), then save and send; reports the run. */
  private async run(id: string, runMs: number, intervalMs: number): Promise<void> {
    const monitors = this.em.state.collection(MONITORS);
    const stored = monitors.get(id);
    if (!stored || this.stopped) return;
    const started = this.startedAt();
    const monitor = this.typed(stored);
    const limits = runBudget(this.em, intervalMs);
    const outcomes: QueryOutcome[] = [];
    // The run's window, then an anomaly monitor's baselines; a failed query fails the run, so none after it runs.
    for (const w of runQueries(monitor, runMs)) {
      const result = await runMonitorQuery(this.em, monitor.aplQuery, w, w.nowNs, limits);
      outcomes.push(result);
      if (!result.ok) break;
    }
    // Deleted while its queries ran: nothing of it is kept.
    if (monitors.get(id) === undefined || this.stopped) return;
    const judged = judge(monitor, outcomes, readAlerts(this.em.state.alertState(id)), runMs);

    if (judged.error === undefined) {
      this.em.state.setAlertState(id, alertsRecord(judged.alerts));
      if (judged.history.length > 0) {
        const history = [...this.em.state.history(id), ...judged.history];
        this.em.state.setHistory(id, history.slice(Math.max(0, history.length - HISTORY_LIMIT)));
      }
      this.em.changed();
      // With --data the run's changes go to disk in the background; a failed write is the journal's to report.
      void this.em.durable?.()?.catch(() => undefined);
    } else {
      this.options.logger?.(`monitor ${id} (${monitor.name}): run at ${iso(runMs)}: ${judged.error}`);
    }

    const notifiers = this.notifiersOf(stored);
    for (const event of judged.events) {
      if (notifiers.length > 0) await this.options.notifications.dispatch(event, notifiers, runMs);
    }
    const window = runWindow(monitor, runMs);
    this.options.onRun?.({
      monitorId: id,
      monitorName: monitor.name,
      time: iso(runMs),
      windowStart: formatNs(window.startNs),
      windowEnd: formatNs(window.endNs),
      state: judged.state,
      values: judged.values,
      ...(judged.error !== undefined ? { error: judged.error } : {}),
      notifications: judged.events.length,
      alerts: judged.events.map((e) => ({
        action: e.action,
        groupValues: e.groupValues,
        value: e.value,
        body: e.body,
        ...(e.alertId !== undefined ? { alertId: e.alertId } : {}),
      })),
      transitions: judged.transitions.map((t) => ({
        alertId: t.alertId,
        action: t.action,
        groupValues: t.groupValues,
        value: t.value,
        notifies: t.notifies,
      })),
      ...(judged.suppressed ? { suppressed: judged.suppressed } : {}),
      ...started,
    });
  }

  /** The monitor's notifiers as stored; an id that names none is passed as missing (the outbox records it). */
  private notifiersOf(monitor: StoredObject): (StoredObject | MissingNotifier)[] {
    const ids = Array.isArray(monitor.notifierIds) ? (monitor.notifierIds as unknown[]) : [];
    const col = this.em.state.collection(NOTIFIERS);
    return ids.map((id) => col.get(String(id)) ?? { id: String(id), missing: true as const });
  }
}

/** RFC 3339 of a time in ms. */
const iso = (ms: number) => formatNs(BigInt(ms) * NS_PER_MS);
