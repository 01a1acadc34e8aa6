/**
 * Judging a monitor's run, as a pure function: (monitor, the run's query results, the alert state before it, the
 * run's time) → (the alert state after it, the alerts' transitions, the notifications and history entries they
 * make). No clock, no store, no sending: the emulator's scheduler keeps timers, runs the queries, saves and sends;
 * a backtest feeds it results from the service or from fetched events and sends nothing. Grafana's state manager
 * is the model (pkg/services/ngalert/state/manager.go: evaluation results in, transitions out, the sender
 * injected and nil when backtesting).
 *
 * The rules are those of docs/emulator.md, "Monitors that run", with their sources:
 * - threshold monitors (./evaluate.ts): any value of a group crossing puts it in alert; `notifyByGroup` judges
 *   each group on its own, and a group no longer in the result closes with value 0 (DOCS);
 * - `alertOnNoData`: no data opens an alert with value null, a crossing taking precedence (DOCS);
 * - anomaly monitors (./anomaly.ts): each value against the band of the same window on earlier days;
 * - match monitors: one `Open` per matching event, oldest first, within 10 a minute and 500 a day (DOCS);
 * - N of the last M runs (./alert-state.ts); notifications on open, on close unless `skipResolved`, and on every
 *   run while open with `notifyEveryRun` (DOCS, OA).
 *
 * Each alert carries a stable id: the same monitor, group and opening run give the same id on every evaluation,
 * so a backtest's alerts, the history's `checkId` and a report name one alert alike.
 */
import { createHash } from "node:crypto";
import type { HistoryEntry } from "../state";
import { formatNs, parseRfc3339Ns } from "../time";
import {
  copyAlerts,
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
  type ReadAhead,
  type GroupValues,
  type ThresholdOperator,
} from "./evaluate";
import type { RunnableMonitor } from "./monitor";
import type { AlertEvent } from "./notify/types";
import type { ResultTable } from "./run-query";
import type { MonitorRunState, RunValue } from "./types";

/** The alert key of a grouped monitor's no-data alert; no group's key (a JSON array) can take it. */
export const NO_DATA_KEY = "no-data";
/** The alert key of an ungrouped monitor: its one alert, as an empty group. */
export const WHOLE_KEY = "[]";

/** The group of an ungrouped alert: one frozen object that a month of runs' values share. */
const NO_GROUP: Record<string, unknown> = Object.freeze({});
/** The group names and values of the whole result, judged as one: one frozen list for every run. */
const NO_NAMES = Object.freeze([]) as unknown as string[];
/**
 * The transitions, notifications and history of a run that has none (most runs): one frozen list for all, which a
 * replay keeps with each such run too (a reader that added to it would change every run holding it).
 */
export const NONE = Object.freeze([]) as unknown as never[];

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
const NS_PER_MS = 1_000_000n;

/** A query's window and now, in nanoseconds: `[startNs, endNs)`. */
export interface QueryWindow {
  startNs: bigint;
  endNs: bigint;
  nowNs: bigint;
}

/** A result table; a row's event time may come beside it (`times`), else its `_time` is read. */
export type JudgeTable = ResultTable & ReadAhead & { times?: readonly (bigint | undefined)[] };

/** One query's outcome: its table, or why it failed. */
export type QueryOutcome = { ok: true; table: JudgeTable } | { ok: false; error: string };

/**
 * The window a run at `runMs` queries: `[run − secondDelay − span, run − secondDelay)`, the span being the range
 * (a match monitor's: its interval, so each event is seen once).
 */
export function runWindow(monitor: RunnableMonitor, runMs: number): QueryWindow {
  const spanMinutes = monitor.type === "MatchEvent" ? monitor.intervalMinutes : monitor.rangeMinutes;
  const endMs = runMs - monitor.secondDelay * 1000;
  const startMs = endMs - spanMinutes * MINUTE_MS;
  return { startNs: ms(startMs), endNs: ms(endMs), nowNs: ms(runMs) };
}

/**
 * Every query a run needs, in the order {@link judge} reads their outcomes: the run's window, then an anomaly
 * monitor's baseline windows, 1 … `compareDays` days back (one when it is 0).
 */
export function runQueries(monitor: RunnableMonitor, runMs: number): QueryWindow[] {
  const main = runWindow(monitor, runMs);
  if (monitor.type !== "AnomalyDetection") return [main];
  const out = [main];
  for (let d = 1; d <= Math.max(1, monitor.compareDays); d++) {
    const back = ms(d * DAY_MS);
    out.push({ startNs: main.startNs - back, endNs: main.endNs - back, nowNs: main.nowNs - back });
  }
  return out;
}

/** The first and last time a monitor runs in `(fromMs, toMs]` (its interval's grid since the epoch), or
 * undefined when it runs in none. */
export function runSpan(
  monitor: RunnableMonitor,
  fromMs: number,
  toMs: number,
): { first: number; last: number; interval: number } | undefined {
  const interval = Math.max(1, monitor.intervalMinutes) * MINUTE_MS;
  const first = (Math.floor(fromMs / interval) + 1) * interval;
  const last = Math.floor(toMs / interval) * interval;
  return first > toMs ? undefined : { first, last, interval };
}

/** The times a monitor runs in `(fromMs, toMs]`: its interval's grid since the epoch. */
export function runTimes(monitor: RunnableMonitor, fromMs: number, toMs: number): number[] {
  const span = runSpan(monitor, fromMs, toMs);
  if (!span) return [];
  // Sized once: a month of one-minute runs grown by push is a chain of ever larger copies.
  const out = new Array<number>((span.last - span.first) / span.interval + 1);
  for (let i = 0, t = span.first; t <= span.last; t += span.interval) out[i++] = t;
  return out;
}

/** Whether the monitor skips a run at `runMs`: `disabled`, or `disabledUntil` still ahead (DOCS). */
export function disabledAt(monitor: RunnableMonitor, runMs: number): boolean {
  if (monitor.disabled) return true;
  if (monitor.disabledUntil === null) return false;
  const until = parseRfc3339Ns(monitor.disabledUntil);
  return until !== undefined && ms(runMs) < until;
}

/** What one run did to one alert, as a backtest and the alert tests read it. */
export interface AlertTransition {
  /** The alert's stable id (its open and its close share it; the history's `checkId`). */
  alertId: string;
  /** The alert's key: `[]` for the whole monitor, a group's values as JSON, or `no-data`. */
  key: string;
  /** The group's values by column (`{}` when ungrouped). */
  group: Record<string, unknown>;
  /** The group's values as text, as its notifications carry them (`notifyByGroup`), else null. */
  groupValues: string[] | null;
  action: "open" | "close";
  value: number | null;
  /** Whether the transition notifies (a close with `skipResolved` does not). */
  notifies: boolean;
}

/** What judging one run decided. */
export interface Judged {
  state: MonitorRunState;
  values: RunValue[];
  /** The alert state after the run (a new object: the prior one is not changed). */
  alerts: MonitorAlerts;
  transitions: AlertTransition[];
  /** The notifications, in the order they go (each to every notifier of the monitor). */
  events: AlertEvent[];
  history: HistoryEntry[];
  /** A match monitor's matching events held back by its limits. */
  suppressed?: number;
  /** Why the run failed (the alert state is then the prior one). */
  error?: string;
}

/** One alert's judgement in one run. */
interface Judgement {
  key: string;
  crossed: boolean;
  value: number | null;
  groupKeys: string[] | null;
  groupValues: string[] | null;
  group: Record<string, unknown>;
  noData?: boolean;
  disappeared?: boolean;
  band?: AnomalyBand;
}

/** What judging needs besides the alert state. */
class RunContext {
  #window: QueryWindow | undefined;
  constructor(
    readonly monitor: RunnableMonitor,
    readonly alerts: MonitorAlerts,
    readonly runMs: number,
  ) {}
  /** The run's window: read only by notifications and history entries, which most runs make none of. */
  get window(): QueryWindow {
    return (this.#window ??= runWindow(this.monitor, this.runMs));
  }
}

/** The stable id of an alert of `monitorId` under `key`, opened by the run at `runMs` (`n`: a match's index). */
export function alertId(monitorId: string, key: string, runMs: number, n = 0): string {
  const hash = createHash("sha256").update(`${monitorId}\n${key}\n${runMs}\n${n}`).digest("hex");
  return `chk_${hash.slice(0, 16)}`;
}

/**
 * Judges one run of `monitor` at `runMs` from its queries' outcomes (in {@link runQueries}' order) and the alert
 * state before it. Pure: the same arguments give the same answer, and `prior` is left as it was, unless the caller
 * hands it over (`handedOver`): a replay never reads a run's prior state again, and copying it for each of a
 * month of runs cost more than judging some of them. A run that fails leaves even a handed-over state as it was.
 */
export function judge(
  monitor: RunnableMonitor,
  outcomes: readonly QueryOutcome[],
  prior: MonitorAlerts,
  runMs: number,
  handedOver = false,
): Judged {
  const ctx = new RunContext(monitor, handedOver ? prior : copyAlerts(prior), runMs);
  const main = outcomes[0];
  if (main === undefined) return failed(prior, "the run's query gave no result");
  if (!main.ok) return failed(prior, main.error);
  if (monitor.type === "MatchEvent") return judgeMatches(ctx, main.table, prior);
  if (monitor.type === "AnomalyDetection") return judgeAnomaly(ctx, main.table, outcomes.slice(1), prior);
  return judgeThreshold(ctx, main.table, prior);
}

const failed = (prior: MonitorAlerts, error: string): Judged => ({
  state: "error",
  values: NONE,
  alerts: prior,
  transitions: NONE,
  events: NONE,
  history: NONE,
  error,
});

/** A row's event time: the table's `times`, else its `_time` read as RFC 3339. */
function rowTime(table: JudgeTable, i: number): bigint {
  return table.times?.[i] ?? parseRfc3339Ns(String(table.rows[i]._time ?? "")) ?? 0n;
}

/** A match monitor: one notification per matching event, oldest first, within the limits; never closed. */
function judgeMatches(ctx: RunContext, table: JudgeTable, prior: MonitorAlerts): Judged {
  if (table.summarized) {
    return failed(
      prior,
      "a match monitor's query filters events (where, extend, project, parse); it must not summarize. " +
        "Use a threshold monitor to compare an aggregate",
    );
  }
  const rows = table.rows
    .map((row, i) => ({ row, at: rowTime(table, i) }))
    .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  const events: AlertEvent[] = [];
  const history: HistoryEntry[] = [];
  const transitions: AlertTransition[] = [];
  // Alerts left open by an edit that made a threshold or anomaly monitor a match monitor: a match monitor keeps
  // none, so each closes now.
  for (const [key, entry] of Object.entries(ctx.alerts.alerts)) {
    if (entry.open) {
      const id = entry.checkId ?? alertId(ctx.monitor.id, key, ctx.runMs);
      history.push(historyEntry(ctx, id, "closed"));
      transitions.push({
        alertId: id,
        key,
        group: groupOf(entry),
        groupValues: entry.groupValues,
        action: "close",
        value: null,
        notifies: !ctx.monitor.skipResolved,
      });
      if (!ctx.monitor.skipResolved) {
        events.push(
          alertEvent(ctx, "Closed", {
            value: null,
            groupKeys: entry.groupKeys,
            groupValues: entry.groupValues,
            matchedEvent: null,
            body: "The monitor is now a match monitor, which keeps no alert open; this alert closes",
            alertId: id,
          }),
        );
      }
    }
    delete ctx.alerts.alerts[key];
  }
  let suppressed = 0;
  rows.forEach(({ row }, i) => {
    if (!takeMatchSend(ctx.alerts, ctx.runMs)) {
      suppressed++;
      return;
    }
    const { _sysTime: _omitted, ...matched } = row;
    const id = alertId(ctx.monitor.id, "match", ctx.runMs, i);
    events.push(
      alertEvent(ctx, "Open", {
        value: null,
        groupKeys: null,
        groupValues: null,
        matchedEvent: matched,
        body: JSON.stringify(matched),
        alertId: id,
      }),
    );
    history.push(historyEntry(ctx, id, "open"));
    transitions.push({
      alertId: id,
      key: "match",
      group: {},
      groupValues: null,
      action: "open",
      value: null,
      notifies: true,
    });
  });
  return {
    state: rows.length > 0 ? "open" : "ok",
    values: [{ group: {}, value: rows.length }],
    alerts: ctx.alerts,
    transitions,
    events,
    history,
    suppressed,
  };
}

/** An anomaly monitor: each value of the window against the band of the same window on earlier days. */
function judgeAnomaly(
  ctx: RunContext,
  table: JudgeTable,
  baselines: readonly QueryOutcome[],
  prior: MonitorAlerts,
): Judged {
  const read = readResult(table, ctx.monitor.columnName);
  if (!read.ok) return failed(prior, read.error);
  const days = Math.max(1, ctx.monitor.compareDays);
  const baseline = new Map<string, number[]>();
  const all: number[] = [];
  for (let d = 1; d <= days; d++) {
    const back = `the baseline ${d} day${d > 1 ? "s" : ""} back`;
    const earlier = baselines[d - 1];
    if (earlier === undefined) return failed(prior, `${back}: no result`);
    if (!earlier.ok) return failed(prior, `${back}: ${earlier.error}`);
    const past = readResult(earlier.table, ctx.monitor.columnName);
    if (!past.ok) return failed(prior, `${back}: ${past.error}`);
    for (const g of past.groups) {
      const list = baseline.get(g.key) ?? [];
      list.push(...g.values);
      baseline.set(g.key, list);
      all.push(...g.values);
    }
  }
  const direction = anomalyDirection(ctx.monitor.operator ?? "");
  return judgeGroups(ctx, read, (g, whole) => {
    const band = bandOf(whole ? all : (baseline.get(g.key) ?? []), ctx.monitor.tolerance);
    return {
      band,
      value: mostAnomalous(g.values, band, direction),
      crossed: band !== undefined && g.values.some((v) => isAnomalous(v, band, direction)),
    };
  });
}

/** A threshold monitor: any value of a group crossing the threshold puts it in alert (./evaluate.ts). */
function judgeThreshold(ctx: RunContext, table: JudgeTable, prior: MonitorAlerts): Judged {
  const read = readResult(table, ctx.monitor.columnName);
  if (!read.ok) return failed(prior, read.error);
  const operator = (ctx.monitor.operator ?? "") as ThresholdOperator;
  const threshold = ctx.monitor.threshold ?? 0;
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
  judgeOne: (
    g: GroupValues,
    whole: boolean,
  ) => { value: number | null; crossed: boolean; band?: AnomalyBand },
): Judged {
  const { monitor, alerts } = ctx;
  // The judgements that step an alert, made at the first: a group that does not cross and has no alert state would
  // stay closed and be forgotten at once (N of M needs at least one crossing run to open), so it makes none, only
  // its value. Most runs step none.
  let judgements: Judgement[] | undefined;
  // The run's values, one a judgement, in order: a lone value is its group's shared list.
  let values: RunValue[];
  if (monitor.notifyByGroup && read.grouped) {
    // The groups this run saw, asked only of alerts kept from earlier runs: most runs of most monitors keep none.
    let seen: Set<string> | undefined;
    const saw = (key: string) => (seen ??= new Set(read.groups.map((g) => g.key))).has(key);
    values = new Array<RunValue>(read.groups.length);
    for (let i = 0; i < read.groups.length; i++) {
      const g = read.groups[i];
      const j = judgeOne(g, false);
      values[i] = valueList(g.group, j.value)[0];
      if (!j.crossed && alerts.alerts[g.key] === undefined) continue;
      (judgements ??= []).push({
        key: g.key,
        value: j.value,
        crossed: j.crossed,
        band: j.band,
        groupKeys: g.groupKeys,
        groupValues: g.groupValues,
        group: g.group,
      });
    }
    // A group that left has an alert, and so does a grouped monitor's no-data judgement (or it crosses): each steps.
    for (const key in alerts.alerts) {
      if (key === NO_DATA_KEY || saw(key)) continue;
      const d = departed(key, alerts.alerts[key]);
      values.push(valueList(d.group, d.value)[0]);
      (judgements ??= []).push(d);
    }
    if ((read.noData && monitor.alertOnNoData) || alerts.alerts[NO_DATA_KEY]) {
      values.push(valueList(NO_GROUP, null)[0]);
      (judgements ??= []).push({
        key: NO_DATA_KEY,
        crossed: read.noData && monitor.alertOnNoData,
        value: null,
        groupKeys: null,
        groupValues: null,
        group: NO_GROUP,
        noData: true,
      });
    }
    if (values.length === 1) values = valueList(values[0].group, values[0].value) as RunValue[];
  } else {
    const whole: GroupValues = {
      key: WHOLE_KEY,
      groupKeys: NO_NAMES,
      groupValues: NO_NAMES,
      group: NO_GROUP,
      values: read.groups.length === 1 ? read.groups[0].values : read.groups.flatMap((g) => g.values),
    };
    const j = judgeOne(whole, true);
    const noData = read.noData && monitor.alertOnNoData && !j.crossed;
    values = valueList(NO_GROUP, j.value) as RunValue[];
    if (j.crossed || noData || alerts.alerts[WHOLE_KEY] !== undefined) {
      judgements = [
        {
          key: WHOLE_KEY,
          value: j.value,
          band: j.band,
          crossed: j.crossed || noData,
          groupKeys: null,
          groupValues: null,
          group: NO_GROUP,
          noData,
        },
      ];
    }
    // Alerts of groups kept from before an edit turned notifyByGroup off: each closes, as a group that left.
    for (const key in alerts.alerts) {
      if (key === WHOLE_KEY) continue;
      const d = departed(key, alerts.alerts[key]);
      values = [...values, valueList(d.group, d.value)[0]];
      (judgements ??= []).push(d);
    }
  }

  const rule = triggerRule(monitor);
  // Made at a run's first transition, notification or history entry: most runs have none.
  let events: AlertEvent[] | undefined;
  let history: HistoryEntry[] | undefined;
  let transitions: AlertTransition[] | undefined;
  let anyOpen = false;
  let anyClosed = false;
  for (const j of judgements ?? NONE) {
    const entry: AlertEntry = (alerts.alerts[j.key] ??= {
      open: false,
      recent: [],
      groupKeys: j.groupKeys,
      groupValues: j.groupValues,
      value: null,
    });
    entry.value = j.value;
    const transition = step(entry, j.crossed, rule);
    if (transition === "opened") entry.checkId = alertId(monitor.id, j.key, ctx.runMs);
    const notifies =
      transition === "opened" ||
      (transition === "stayed-open" && monitor.notifyEveryRun) ||
      (transition === "closed" && !monitor.skipResolved);
    if (transition === "opened" || transition === "closed") {
      const id = entry.checkId ?? alertId(monitor.id, j.key, ctx.runMs);
      (history ??= []).push(historyEntry(ctx, id, transition === "opened" ? "open" : "closed"));
      (transitions ??= []).push({
        alertId: id,
        key: j.key,
        group: j.group,
        groupValues: j.groupValues,
        action: transition === "opened" ? "open" : "close",
        value: j.value,
        notifies,
      });
    }
    if (notifies) {
      (events ??= []).push(
        alertEvent(ctx, transition === "closed" ? "Closed" : "Open", {
          value: j.value,
          groupKeys: j.groupKeys,
          groupValues: j.groupValues,
          matchedEvent: null,
          body: bodyLine(monitor, j, transition),
          // The alert notified of: the one open (its open, a repeat with notifyEveryRun), or the one closing.
          alertId: entry.checkId,
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
    values,
    alerts,
    transitions: transitions ?? NONE,
    events: events ?? NONE,
    history: history ?? NONE,
  };
}

/**
 * Run values that a month of runs shares: a run's values are kept with it (a report draws them), and most runs
 * repeat a value their group had before (counts, maxima). Only a group object that is itself shared and frozen
 * (the whole result's, a backtest's rebuilt groups) keys them; each group keeps at most
 * {@link SHARED_VALUES_PER_GROUP} values, the first ones seen, and a later value is its run's own. The shared lists
 * and values are frozen, as every run holding them shares them.
 */
const sharedValues = new WeakMap<object, Map<number | null, readonly RunValue[]>>();
const SHARED_VALUES_PER_GROUP = 1024;

/** One group's value as a run keeps it: a shared one-value list when its group is shared, else a new one. */
function valueList(group: Record<string, unknown>, value: number | null): readonly RunValue[] {
  if (!Object.isFrozen(group)) return [{ group, value }];
  let byValue = sharedValues.get(group);
  if (byValue === undefined) sharedValues.set(group, (byValue = new Map()));
  let list = byValue.get(value);
  if (list === undefined) {
    // Past the group's first values, a new one is its run's own, as a group made per run has: frozen, it would
    // pass for a shared list and be keyed as one (a replay's quiet records) for no run to share.
    if (byValue.size >= SHARED_VALUES_PER_GROUP) return [{ group, value }];
    list = Object.freeze([Object.freeze({ group, value })]);
    byValue.set(value, list);
  }
  return list;
}

/** A group's values by column, from what an alert entry kept. */
function groupOf(entry: AlertEntry): Record<string, unknown> {
  return Object.fromEntries((entry.groupKeys ?? []).map((k, i) => [k, entry.groupValues?.[i]]));
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
    group: groupOf(entry),
    disappeared: true,
  };
}

/** The human line of a notification (the docs' sample: "Current value of 57347 is above or equal to the threshold
 * value of 0"). */
function bodyLine(monitor: RunnableMonitor, j: Judgement, transition: Transition): string {
  const closing = transition === "closed";
  if (j.disappeared) return "The group is no longer in the query's result; its alert closes with value 0";
  if (j.noData) {
    return closing
      ? "Data is back in the query's window"
      : "No data in the query's window, and the monitor alerts on no data";
  }
  const value = formatValue(j.value);
  const operator = monitor.operator ?? "";
  if (j.band) {
    const range = `the expected range ${formatValue(round(j.band.low))} to ${formatValue(round(j.band.high))}`;
    return closing
      ? `Current value of ${value} is back within ${range}`
      : `Current value of ${value} is ${j.value !== null && j.value < j.band.low ? "below" : "above"} ${range}`;
  }
  const threshold = formatValue(monitor.threshold ?? 0);
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
  rest: Pick<AlertEvent, "value" | "groupKeys" | "groupValues" | "matchedEvent" | "body" | "alertId"> & {
    threshold?: number;
  },
): AlertEvent {
  const { monitor } = ctx;
  const threshold = rest.threshold ?? monitor.threshold;
  // Optional fields are set only when present (a notification names no threshold it has not got), without a
  // spread object for each.
  const event: AlertEvent = {
    time: ctx.window.nowNs,
    monitor: notifiedMonitor(monitor),
    action,
    value: rest.value,
    queryStartTime: ctx.window.startNs,
    queryEndTime: ctx.window.endNs,
    groupKeys: rest.groupKeys,
    groupValues: rest.groupValues,
    matchedEvent: rest.matchedEvent,
    body: rest.body,
  };
  if (threshold !== undefined) event.threshold = threshold;
  if (monitor.operator !== undefined) event.operator = monitor.operator;
  if (rest.alertId !== undefined) event.alertId = rest.alertId;
  return event;
}

/**
 * What a notification says of its monitor: one frozen object a monitor, which every notification of a flapping
 * monitor over a month (hundreds of thousands in a backtest) shares, where each had one of its own.
 */
const notifiedMonitors = new WeakMap<RunnableMonitor, AlertEvent["monitor"]>();

function notifiedMonitor(monitor: RunnableMonitor): AlertEvent["monitor"] {
  let named = notifiedMonitors.get(monitor);
  if (named === undefined) {
    named = Object.freeze({
      id: monitor.id,
      name: monitor.name,
      description: monitor.description,
      type: monitor.type,
    });
    notifiedMonitors.set(monitor, named);
  }
  return named;
}

function historyEntry(ctx: RunContext, checkId: string, state: "open" | "closed"): HistoryEntry {
  return { checkId, name: ctx.monitor.name, state, timestamp: formatNs(ms(ctx.runMs)) };
}

const ms = (v: number): bigint => BigInt(v) * NS_PER_MS;
