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
 */
import { randomBytes } from "node:crypto";
import type { EmulatorClock, ClockTimer } from "../clock";
import type { EmulatorContext } from "../context";
import type { QueryBudgetOptions } from "../query/budget";
import type { HistoryEntry, StateChange, StoredObject } from "../state";
import { formatNs, parseRfc3339Ns } from "../time";
import {
  alertsRecord,
  readAlerts,
  step,
  takeMatchSend,
  triggerRule,
  type AlertEntry,
  type MonitorAlerts,
  type Transition,
} from "./alert-state";
import { anomalyDirection, bandOf, isAnomalous, mostAnomalous, type AnomalyBand } from "./anomaly";
import {
  crosses,
  formatValue,
  operatorWords,
  readResult,
  worstValue,
  type GroupValues,
  type ThresholdOperator,
} from "./evaluate";
import type { AlertEvent, MissingNotifier, Notifications } from "./notify";
import { runBudget, runMonitorQuery, type ResultTable } from "./run-query";
import type { MonitorRun, RunValue } from "./types";

/** The collections the scheduler reads (emulator/routes/monitors.ts, notifiers.ts). */
const MONITORS = "monitors";
const NOTIFIERS = "notifiers";

/** The most history entries kept per monitor (the oldest go first), so a long run's memory stays flat. */
export const HISTORY_LIMIT = 1000;

/** The alert key of a grouped monitor's no-data alert; no group's key (a JSON array) can take it. */
const NO_DATA_KEY = "no-data";
/** The alert key of an ungrouped monitor: its one alert, as an empty group. */
const WHOLE_KEY = "[]";

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
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

/** One alert's judgement in one run. */
interface Judgement {
  key: string;
  crossed: boolean;
  value: number | null;
  groupKeys: string[] | null;
  groupValues: string[] | null;
  group: Record<string, unknown>;
  /** A no-data judgement (its body says so). */
  noData?: boolean;
  /** A group that was in the previous results and is not in this one: it closes with value 0 (DOCS). */
  disappeared?: boolean;
  /** The band an anomaly value was judged against. */
  band?: AnomalyBand;
}

/** What a run decided, before it is saved and sent. */
interface RunOutcome {
  state: MonitorRun["state"];
  values: RunValue[];
  events: AlertEvent[];
  history: HistoryEntry[];
  suppressed?: number;
  error?: string;
}

/** A monitor's field as a number, or `fallback`. */
const num = (m: StoredObject, field: string, fallback: number): number => {
  const v = m[field];
  return typeof v === "number" && Number.isFinite(v) ? v : fallback;
};

/** The monitor scheduler (see the module's comment). */
export class MonitorScheduler {
  private readonly scheduled = new Map<string, Scheduled>();
  /** Each monitor's rank, in the order the scheduler first saw them (creation order): runs due at one time go in it. */
  private readonly ranks = new Map<string, number>();
  private nextRank = 0;
  /** Each monitor's run under way, by monitor id: when it was due, and its end. A monitor has one at most. */
  private readonly underway = new Map<string, { dueMs: number; done: Promise<void> }>();
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
    const intervalMs = Math.max(1, num(monitor, "intervalMinutes", 1)) * MINUTE_MS;
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
    if (disabledAt(monitor, dueMs)) return undefined;
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
    const { startMs, endMs } = windowOf(monitor, dueMs);
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
      windowStart: iso(startMs),
      windowEnd: iso(endMs),
      state: "skipped",
      values: [],
      reason,
      notifications: 0,
      alerts: [],
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

  /** Runs one monitor at `runMs`: query, judge, save, send; reports the run. */
  private async run(id: string, runMs: number, intervalMs: number): Promise<void> {
    const monitors = this.em.state.collection(MONITORS);
    const monitor = monitors.get(id);
    if (!monitor || this.stopped) return;
    const started = this.startedAt();
    const type = String(monitor.type);
    const { startMs, endMs } = windowOf(monitor, runMs);
    const window = { startNs: BigInt(startMs) * NS_PER_MS, endNs: BigInt(endMs) * NS_PER_MS };
    const nowNs = BigInt(runMs) * NS_PER_MS;
    const apl = String(monitor.aplQuery);
    const limits = runBudget(this.em, intervalMs);

    const result = await runMonitorQuery(this.em, apl, window, nowNs, limits);
    // Deleted while its query ran: nothing of it is kept.
    if (monitors.get(id) === undefined || this.stopped) return;
    const alerts = readAlerts(this.em.state.alertState(id));
    const ctx: RunContext = { monitor, alerts, runMs, window, nowNs, limits };
    let outcome: RunOutcome;
    if (!result.ok) outcome = failed(result.error);
    else if (type === "MatchEvent") outcome = this.judgeMatches(ctx, result.table);
    else if (type === "AnomalyDetection") outcome = await this.judgeAnomaly(ctx, result.table);
    else outcome = judgeThreshold(ctx, result.table);
    if (monitors.get(id) === undefined || this.stopped) return;

    if (outcome.error === undefined) {
      this.em.state.setAlertState(id, alertsRecord(alerts));
      if (outcome.history.length > 0) {
        const history = [...this.em.state.history(id), ...outcome.history];
        this.em.state.setHistory(id, history.slice(Math.max(0, history.length - HISTORY_LIMIT)));
      }
      this.em.changed();
      // With --data the run's changes go to disk in the background; a failed write is the journal's to report.
      void this.em.durable?.()?.catch(() => undefined);
    } else {
      this.options.logger?.(
        `monitor ${id} (${String(monitor.name)}): run at ${iso(runMs)}: ${outcome.error}`,
      );
    }

    const notifiers = this.notifiersOf(monitor);
    for (const event of outcome.events) {
      if (notifiers.length > 0) await this.options.notifications.dispatch(event, notifiers, runMs);
    }
    this.options.onRun?.({
      monitorId: id,
      monitorName: String(monitor.name),
      time: iso(runMs),
      windowStart: iso(startMs),
      windowEnd: iso(endMs),
      state: outcome.state,
      values: outcome.values,
      ...(outcome.error !== undefined ? { error: outcome.error } : {}),
      notifications: outcome.events.length,
      alerts: outcome.events.map((e) => ({
        action: e.action,
        groupValues: e.groupValues,
        value: e.value,
        body: e.body,
      })),
      ...(outcome.suppressed ? { suppressed: outcome.suppressed } : {}),
      ...started,
    });
  }

  /** The monitor's notifiers as stored; an id that names none is passed as missing (the outbox records it). */
  private notifiersOf(monitor: StoredObject): (StoredObject | MissingNotifier)[] {
    const ids = Array.isArray(monitor.notifierIds) ? (monitor.notifierIds as unknown[]) : [];
    const col = this.em.state.collection(NOTIFIERS);
    return ids.map((id) => col.get(String(id)) ?? { id: String(id), missing: true as const });
  }

  /**
   * A match monitor: one notification per matching event, oldest first, within the limits; never closed (DOCS
   * match-monitors). The query must not aggregate.
   */
  private judgeMatches(ctx: RunContext, table: ResultTable): RunOutcome {
    if (table.summarized) {
      return failed(
        "a match monitor's query filters events (where, extend, project, parse); it must not summarize. " +
          "Use a threshold monitor to compare an aggregate",
      );
    }
    const rows = table.rows
      .map((row) => ({ row, at: parseRfc3339Ns(String(row._time ?? "")) ?? 0n }))
      .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
    const events: AlertEvent[] = [];
    const history: HistoryEntry[] = [];
    // Alerts left open by an edit that made a threshold or anomaly monitor a match monitor: a match monitor
    // keeps none, so each closes now.
    for (const [key, entry] of Object.entries(ctx.alerts.alerts)) {
      if (entry.open) {
        history.push(historyEntry(ctx, entry.checkId ?? newCheckId(), "closed"));
        if (ctx.monitor.skipResolved !== true) {
          events.push(
            alertEvent(ctx, "Closed", {
              value: null,
              groupKeys: entry.groupKeys,
              groupValues: entry.groupValues,
              matchedEvent: null,
              body: "The monitor is now a match monitor, which keeps no alert open; this alert closes",
            }),
          );
        }
      }
      delete ctx.alerts.alerts[key];
    }
    let suppressed = 0;
    for (const { row } of rows) {
      if (!takeMatchSend(ctx.alerts, ctx.runMs)) {
        suppressed++;
        continue;
      }
      const { _sysTime: _omitted, ...matched } = row;
      events.push(
        alertEvent(ctx, "Open", {
          value: null,
          groupKeys: null,
          groupValues: null,
          matchedEvent: matched,
          body: JSON.stringify(matched),
        }),
      );
      history.push(historyEntry(ctx, newCheckId(), "open"));
    }
    return {
      state: rows.length > 0 ? "open" : "ok",
      values: [{ group: {}, value: rows.length }],
      events,
      history,
      suppressed,
    };
  }

  /**
   * An anomaly monitor: each value of the window against the band of the same window on earlier days
   * (./anomaly.ts), per group with `notifyByGroup`.
   */
  private async judgeAnomaly(ctx: RunContext, table: ResultTable): Promise<RunOutcome> {
    const columnName = String(ctx.monitor.columnName ?? "");
    const read = readResult(table, columnName);
    if (!read.ok) return failed(read.error);
    const days = Math.max(1, num(ctx.monitor, "compareDays", 1));
    const baseline = new Map<string, number[]>();
    const all: number[] = [];
    for (let d = 1; d <= days; d++) {
      const back = BigInt(d * DAY_MS) * NS_PER_MS;
      const earlier = await runMonitorQuery(
        this.em,
        String(ctx.monitor.aplQuery),
        { startNs: ctx.window.startNs - back, endNs: ctx.window.endNs - back },
        ctx.nowNs - back,
        ctx.limits,
      );
      if (!earlier.ok) return failed(`the baseline ${d} day${d > 1 ? "s" : ""} back: ${earlier.error}`);
      const past = readResult(earlier.table, columnName);
      if (!past.ok) return failed(`the baseline ${d} day${d > 1 ? "s" : ""} back: ${past.error}`);
      for (const g of past.groups) {
        const list = baseline.get(g.key) ?? [];
        list.push(...g.values);
        baseline.set(g.key, list);
        all.push(...g.values);
      }
    }
    const tolerance = num(ctx.monitor, "tolerance", 0);
    const direction = anomalyDirection(String(ctx.monitor.operator));
    const judge = (values: number[], base: number[]) => {
      const band = bandOf(base, tolerance);
      return {
        band,
        value: mostAnomalous(values, band, direction),
        crossed: band !== undefined && values.some((v) => isAnomalous(v, band, direction)),
      };
    };
    return judgeGroups(ctx, read, (g, whole) => judge(g.values, whole ? all : (baseline.get(g.key) ?? [])));
  }
}

/** What judging one run needs. */
interface RunContext {
  monitor: StoredObject;
  alerts: MonitorAlerts;
  runMs: number;
  window: { startNs: bigint; endNs: bigint };
  nowNs: bigint;
  /** The run's query budgets (each baseline query of an anomaly monitor has its own). */
  limits: QueryBudgetOptions;
}

/** A threshold monitor: any value of a group crossing the threshold puts it in alert (./evaluate.ts). */
function judgeThreshold(ctx: RunContext, table: ResultTable): RunOutcome {
  const read = readResult(table, String(ctx.monitor.columnName ?? ""));
  if (!read.ok) return failed(read.error);
  const operator = String(ctx.monitor.operator) as ThresholdOperator;
  const threshold = num(ctx.monitor, "threshold", 0);
  return judgeGroups(ctx, read, (g) => {
    const value = worstValue(operator, g.values);
    return { value, crossed: value !== null && crosses(operator, value, threshold) };
  });
}

/**
 * Judges each alert of a threshold or anomaly monitor: per group with `notifyByGroup` (a group that disappears
 * closes with value 0), else the whole result as one; no data alerts with `alertOnNoData` (a threshold result
 * takes precedence, DOCS). Then steps each alert (N of M) and turns transitions into history and notifications.
 */
function judgeGroups(
  ctx: RunContext,
  read: Extract<ReturnType<typeof readResult>, { ok: true }>,
  judge: (g: GroupValues, whole: boolean) => { value: number | null; crossed: boolean; band?: AnomalyBand },
): RunOutcome {
  const { monitor, alerts } = ctx;
  const alertOnNoData = monitor.alertOnNoData === true;
  const judgements: Judgement[] = [];
  if (monitor.notifyByGroup === true && read.grouped) {
    const seen = new Set<string>();
    for (const g of read.groups) {
      const j = judge(g, false);
      seen.add(g.key);
      judgements.push({
        key: g.key,
        ...j,
        groupKeys: g.groupKeys,
        groupValues: g.groupValues,
        group: g.group,
      });
    }
    for (const [key, entry] of Object.entries(alerts.alerts)) {
      if (seen.has(key) || key === NO_DATA_KEY) continue;
      judgements.push(departed(key, entry));
    }
    if ((read.noData && alertOnNoData) || alerts.alerts[NO_DATA_KEY]) {
      judgements.push({
        key: NO_DATA_KEY,
        crossed: read.noData && alertOnNoData,
        value: null,
        groupKeys: null,
        groupValues: null,
        group: {},
        noData: true,
      });
    }
  } else {
    const whole: GroupValues = {
      key: WHOLE_KEY,
      groupKeys: [],
      groupValues: [],
      group: {},
      values: read.groups.flatMap((g) => g.values),
    };
    const j = judge(whole, true);
    const noData = read.noData && alertOnNoData && !j.crossed;
    judgements.push({
      key: WHOLE_KEY,
      ...j,
      crossed: j.crossed || noData,
      groupKeys: null,
      groupValues: null,
      group: {},
      noData,
    });
    // Alerts of groups kept from before an edit turned notifyByGroup off: each closes, as a group that left.
    for (const [key, entry] of Object.entries(alerts.alerts)) {
      if (key === WHOLE_KEY) continue;
      judgements.push(departed(key, entry));
    }
  }

  const rule = triggerRule(monitor);
  const events: AlertEvent[] = [];
  const history: HistoryEntry[] = [];
  let anyOpen = false;
  let anyClosed = false;
  for (const j of judgements) {
    const entry: AlertEntry = (alerts.alerts[j.key] ??= {
      open: false,
      recent: [],
      groupKeys: j.groupKeys,
      groupValues: j.groupValues,
      value: null,
    });
    entry.value = j.value;
    const transition = step(entry, j.crossed, rule);
    if (transition === "opened") entry.checkId = newCheckId();
    if (transition === "opened" || transition === "closed") {
      history.push(
        historyEntry(ctx, entry.checkId ?? newCheckId(), transition === "opened" ? "open" : "closed"),
      );
    }
    if (
      transition === "opened" ||
      (transition === "stayed-open" && monitor.notifyEveryRun === true) ||
      (transition === "closed" && monitor.skipResolved !== true)
    ) {
      const action = transition === "closed" ? "Closed" : "Open";
      events.push(
        alertEvent(ctx, action, {
          value: j.value,
          groupKeys: j.groupKeys,
          groupValues: j.groupValues,
          matchedEvent: null,
          body: bodyLine(monitor, j, transition),
          threshold: j.band
            ? j.value !== null && j.value < j.band.low
              ? j.band.low
              : j.band.high
            : undefined,
        }),
      );
    }
    if (transition === "closed") entry.checkId = undefined;
    anyOpen ||= entry.open;
    anyClosed ||= transition === "closed";
    // A closed alert whose last runs all stayed under is forgotten: groups that come and go leave nothing behind.
    if (!entry.open && !entry.recent.some(Boolean)) delete alerts.alerts[j.key];
  }
  return {
    state: anyOpen ? "open" : anyClosed ? "closed" : "ok",
    values: judgements.map((j) => ({ group: j.group, value: j.value })),
    events,
    history,
  };
}

/**
 * The judgement of an alert whose group is no longer in the result: it closes with value 0 (DOCS). A grouped
 * monitor's no-data alert, left by an edit, closes as no data.
 */
function departed(key: string, entry: AlertEntry): Judgement {
  if (key === NO_DATA_KEY) {
    return { key, crossed: false, value: null, groupKeys: null, groupValues: null, group: {}, noData: true };
  }
  return {
    key,
    crossed: false,
    value: 0,
    groupKeys: entry.groupKeys,
    groupValues: entry.groupValues,
    group: Object.fromEntries((entry.groupKeys ?? []).map((k, i) => [k, entry.groupValues?.[i]])),
    disappeared: true,
  };
}

/** The human line of a notification (the docs' sample: "Current value of 57347 is above or equal to the threshold
 * value of 0"). */
function bodyLine(monitor: StoredObject, j: Judgement, transition: Transition): string {
  const closing = transition === "closed";
  if (j.disappeared) return "The group is no longer in the query's result; its alert closes with value 0";
  if (j.noData) {
    return closing
      ? "Data is back in the query's window"
      : "No data in the query's window, and the monitor alerts on no data";
  }
  const value = formatValue(j.value);
  const operator = String(monitor.operator);
  if (j.band) {
    const range = `the expected range ${formatValue(round(j.band.low))} to ${formatValue(round(j.band.high))}`;
    return closing
      ? `Current value of ${value} is back within ${range}`
      : `Current value of ${value} is ${j.value !== null && j.value < j.band.low ? "below" : "above"} ${range}`;
  }
  const threshold = formatValue(num(monitor, "threshold", 0));
  if (j.value === null) {
    return `No value in the query's window is ${operatorWords(operator)} the threshold value of ${threshold}`;
  }
  return closing
    ? `Current value of ${value} is no longer ${operatorWords(operator)} the threshold value of ${threshold}`
    : `Current value of ${value} is ${operatorWords(operator)} the threshold value of ${threshold}`;
}

const round = (v: number) => Math.round(v * 1000) / 1000;

/** An alert event of this run. */
function alertEvent(
  ctx: RunContext,
  action: "Open" | "Closed",
  rest: Pick<AlertEvent, "value" | "groupKeys" | "groupValues" | "matchedEvent" | "body"> & {
    threshold?: number;
  },
): AlertEvent {
  const { monitor } = ctx;
  const threshold = rest.threshold ?? (typeof monitor.threshold === "number" ? monitor.threshold : undefined);
  return {
    time: ctx.nowNs,
    monitor: {
      id: monitor.id,
      name: String(monitor.name),
      description: typeof monitor.description === "string" ? monitor.description : undefined,
      type: String(monitor.type),
    },
    action,
    value: rest.value,
    ...(threshold !== undefined ? { threshold } : {}),
    ...(typeof monitor.operator === "string" ? { operator: monitor.operator } : {}),
    queryStartTime: ctx.window.startNs,
    queryEndTime: ctx.window.endNs,
    groupKeys: rest.groupKeys,
    groupValues: rest.groupValues,
    matchedEvent: rest.matchedEvent,
    body: rest.body,
  };
}

function historyEntry(ctx: RunContext, checkId: string, state: "open" | "closed"): HistoryEntry {
  return { checkId, name: String(ctx.monitor.name), state, timestamp: iso(ctx.runMs) };
}

const failed = (error: string): RunOutcome => ({
  state: "error",
  values: [],
  events: [],
  history: [],
  error,
});

const newCheckId = () => `chk_${randomBytes(8).toString("hex")}`;

/** RFC 3339 of a time in ms. */
const iso = (ms: number) => formatNs(BigInt(ms) * NS_PER_MS);

/**
 * The window of a run at `runMs`: it ends `secondDelay` before the run and spans `rangeMinutes` (a match monitor:
 * its interval), as the module's comment says.
 */
function windowOf(monitor: StoredObject, runMs: number): { startMs: number; endMs: number } {
  const delayMs = num(monitor, "secondDelay", 0) * 1000;
  const spanMinutes =
    String(monitor.type) === "MatchEvent"
      ? num(monitor, "intervalMinutes", 1)
      : num(monitor, "rangeMinutes", 1);
  const endMs = runMs - delayMs;
  return { startMs: endMs - spanMinutes * MINUTE_MS, endMs };
}

/** Whether the monitor is disabled at `ms`: `disabled`, or `disabledUntil` still ahead. */
function disabledAt(monitor: StoredObject, ms: number): boolean {
  if (monitor.disabled === true) return true;
  if (typeof monitor.disabledUntil !== "string" || monitor.disabledUntil === "") return false;
  const until = parseRfc3339Ns(monitor.disabledUntil);
  return until !== undefined && BigInt(ms) * NS_PER_MS < until;
}
