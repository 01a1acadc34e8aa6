/**
 * Expected notifications against the ones the run sent (the emulator's outbox).
 *
 * What is compared. Each outbox entry is one notification: one alert event (a monitor's Open or Closed, for a group,
 * at a run's time) sent to one notifier. An expectation with `notifier:` counts the entries sent to that notifier;
 * one without counts the alert events, however many notifiers each went to.
 *
 * When. Monitors run on their own schedule, every `intervalMinutes`, and a notification carries the time of the run
 * that sent it. A run's window ends where it runs, that instant excluded, so what happens at T is first seen by the
 * next run, up to one interval later. `at: T` therefore matches a notification sent in
 * `[start + T, start + T + interval]`, both ends included: the run that sees what happened at T, whatever the phase
 * of the schedule, and a notification sent at exactly T (a time copied from a report). `after: A` and `by: B` bound
 * it to `[start + A, start + B]`, both ends included. With none of them, any time in the run.
 *
 * How many. Exactly one by default; `count: N` exactly N, `atLeast: N` N or more, `never: true` none.
 *
 * Unexpected. A notification that no expectation's monitor, action, notifier, group and time describe is listed as
 * unexpected, and fails the test unless the file says `unexpected: ignore` (as promtool fails on an alert it was not
 * told to expect).
 *
 * Strict. A test passes only if what it tested ran (as promtool fails a test on a rule it cannot evaluate): a run
 * whose query failed fails it, and so does a notification that failed to render or deliver, unless an expectation
 * asks for that failure (`outcome: failed`). A held send (a vendor's host the emulator does not call) is not a
 * failure. The file's `allow:` lets either pass, as a warning that names it.
 */
import type { MonitorRun, OutboxEntry } from "../../emulator";
import type { RunWarning } from "./check";
import type { ResolvedExpectation } from "./load";
import type { Allowance } from "./schema";

/** One alert event as the outbox shows it: what a monitor sent at one time, for one group, to its notifiers. */
export interface GotAlert {
  timeMs: number;
  monitorKey: string;
  action: "Open" | "Closed";
  groupValues: string[] | null;
  /** The alert it is of: its stable id (the history's `checkId`), as the run and the outbox row carry it. */
  alertId?: string;
  /** One per notifier it went to. */
  entries: { notifierKey: string; outcome: OutboxEntry["outcome"]; reason?: string }[];
}

/** One row of the comparison. */
export interface ExpectationResult {
  expectation: ResolvedExpectation;
  ok: boolean;
  /** What was expected, as text: `1`, `0`, `≥ 2`. */
  wanted: string;
  /** The matching notifications (alert events, or entries to the one notifier, each as its alert). */
  got: GotAlert[];
  /** The window the time bounds give, in ms since the epoch (either end may be open). */
  window: { from: number; to: number; toIncluded: boolean };
  /** For a failed row: what came nearest, in words, so the diff says what happened instead. */
  hints: string[];
}

/**
 * What ran and failed: a monitor's runs whose query failed, or a notifier's sends that failed to render or deliver
 * (that no expectation asked for with `outcome: failed`), one per monitor (and notifier).
 */
export interface RunFailure {
  kind: "query-failed" | "notification-failed";
  monitor: string;
  /** The notifier, for a failed notification. */
  notifier?: string;
  /** How many failed, and of how many (runs of the monitor; its sends to that notifier). */
  failed: number;
  of: number;
  /** When the first one was, ms since the epoch. */
  firstMs: number;
  /** The first one's error: the engine's, the template's, the receiver's answer. */
  error: string;
  /** For a failed query: where the monitor's `aplQuery` is written. */
  query?: SourcePosition;
  /** The whole failure, in words, as printed. */
  message: string;
}

/** A place in a file. */
export interface SourcePosition {
  file: string;
  line?: number;
  column?: number;
}

/** The whole comparison. */
export interface Comparison {
  rows: ExpectationResult[];
  /** Notifications no expectation describes. */
  unexpected: GotAlert[];
  /** Failed runs and sends that fail the test (the strict rule above). */
  failures: RunFailure[];
  /** Failed runs and sends the file's `allow:` lets pass. */
  allowed: RunWarning[];
  /** Whether the test passes: every row ok, no unexpected notification unless they are ignored, no failure. */
  ok: boolean;
}

/** A monitor as the comparison needs it: its schedule, its wiring and its rule, for the hints. */
export interface MonitorFacts {
  intervalMs: number;
  /** The notifier keys it is wired to. */
  notifierKeys: readonly string[];
  name: string;
  operator?: string;
  threshold?: number;
  /** Where its `aplQuery` is written, for a failed run's message. */
  query?: SourcePosition;
}

/** What the comparison needs of the run besides the outbox. */
export interface RunFacts {
  startMs: number;
  /** The test's keys of the emulator's ids. */
  monitorKeyOfId: ReadonlyMap<string, string>;
  notifierKeyOfId: ReadonlyMap<string, string>;
  /** What the comparison knows of each monitor, by monitor key. */
  monitors: ReadonlyMap<string, MonitorFacts>;
  notifierNames: ReadonlyMap<string, string>;
  /** Every run the clock made (for group keys and failed queries). */
  runs: readonly MonitorRun[];
  unexpected: "fail" | "ignore";
  /** What the file's `allow:` lets pass. */
  allow?: ReadonlySet<Allowance>;
}

/** An offset from start as text: `+1h5m`, `-7d`, `+0s`, `+30.5s`. */
export function formatOffset(ms: number): string {
  const sign = ms < 0 ? "-" : "+";
  let rest = Math.abs(ms);
  const parts: string[] = [];
  for (const [unit, size] of [
    ["d", 86_400_000],
    ["h", 3_600_000],
    ["m", 60_000],
  ] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  if (rest > 0 || parts.length === 0)
    parts.push(`${rest % 1000 === 0 ? rest / 1000 : (rest / 1000).toFixed(3).replace(/0+$/, "")}s`);
  return sign + parts.join("");
}

/**
 * The alert events of the run, in time order: each run's alerts (so a monitor with no notifier has them too), each
 * with the outbox entries it sent, one per notifier. An entry belongs to the alert event of its run that has its
 * `alertId` and its action: one alert is notified at most once a run, and two matches of one run are two alerts.
 * Monitors the test did not make are left out.
 */
export function gotAlerts(outbox: readonly OutboxEntry[], facts: RunFacts): GotAlert[] {
  const alerts: GotAlert[] = [];
  /** Each alert's events, by its id: its Open, a repeat with notifyEveryRun, its Closed. */
  const byId = new Map<string, GotAlert[]>();
  const add = (alert: GotAlert) => {
    alerts.push(alert);
    if (alert.alertId === undefined) return alert;
    const list = byId.get(alert.alertId);
    if (list) list.push(alert);
    else byId.set(alert.alertId, [alert]);
    return alert;
  };
  /** An alert event with no entry yet, from a run's alert or an outbox row. */
  const event = (
    timeMs: number,
    monitorKey: string,
    a: { action: GotAlert["action"]; groupValues: string[] | null; alertId?: string },
  ): GotAlert => ({
    timeMs,
    monitorKey,
    action: a.action,
    groupValues: a.groupValues,
    ...(a.alertId !== undefined ? { alertId: a.alertId } : {}),
    entries: [],
  });
  for (const run of facts.runs) {
    const monitorKey = facts.monitorKeyOfId.get(run.monitorId);
    if (monitorKey === undefined) continue;
    const timeMs = Date.parse(run.time);
    for (const a of run.alerts) add(event(timeMs, monitorKey, a));
  }
  for (const entry of outbox) {
    const monitorKey = facts.monitorKeyOfId.get(entry.monitorId);
    if (monitorKey === undefined) continue;
    const timeMs = Date.parse(entry.time);
    const alert =
      (entry.alertId === undefined
        ? undefined
        : byId.get(entry.alertId)?.find((a) => a.timeMs === timeMs && a.action === entry.action)) ??
      // An entry no run reported (none should be) still counts, as an alert of its own.
      add(event(timeMs, monitorKey, entry));
    alert.entries.push({
      notifierKey: facts.notifierKeyOfId.get(entry.notifierId) ?? entry.notifierName ?? entry.notifierId,
      outcome: entry.outcome,
      reason: entry.reason,
    });
  }
  return alerts.sort((a, b) => a.timeMs - b.timeMs);
}

/** The group's column names a monitor's runs report, in their order (empty when ungrouped or never run). */
function groupKeysOf(monitorKey: string, facts: RunFacts): string[] {
  for (const run of facts.runs) {
    if (facts.monitorKeyOfId.get(run.monitorId) !== monitorKey) continue;
    for (const v of run.values) if (Object.keys(v.group).length > 0) return Object.keys(v.group);
  }
  return [];
}

/** Whether an alert's group values are the expected group (a list in `by` order, or a map by column). */
function groupMatches(expected: ResolvedExpectation["group"], got: string[] | null, keys: string[]): boolean {
  if (expected === undefined) return true;
  const values = got ?? [];
  const text = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));
  if (Array.isArray(expected))
    return expected.length === values.length && expected.every((v, i) => text(v) === values[i]);
  const entries = Object.entries(expected);
  if (entries.length !== values.length) return false;
  if (keys.length === values.length && entries.every(([k]) => keys.includes(k)))
    return entries.every(([k, v]) => values[keys.indexOf(k)] === text(v));
  // No run told the columns' order: the values as a set.
  const rest = [...values];
  return entries.every(([, v]) => {
    const i = rest.indexOf(text(v));
    if (i < 0) return false;
    rest.splice(i, 1);
    return true;
  });
}

/** The time window of an expectation, by the rule in the module's comment. */
export function windowOf(
  e: ResolvedExpectation,
  startMs: number,
  intervalMs: number,
): ExpectationResult["window"] {
  if (e.at !== undefined) return { from: startMs + e.at, to: startMs + e.at + intervalMs, toIncluded: true };
  return {
    from: e.after === undefined ? -Infinity : startMs + e.after,
    to: e.by === undefined ? Infinity : startMs + e.by,
    toIncluded: true,
  };
}

function inWindow(t: number, w: ExpectationResult["window"]): boolean {
  return t >= w.from && (w.toIncluded ? t <= w.to : t < w.to);
}

/** A got alert in words: `Open at +31m (group /pay) to oncall-slack, oncall-pagerduty`. */
export function describeAlert(a: GotAlert, startMs: number, only?: string): string {
  const group = a.groupValues && a.groupValues.length > 0 ? ` (group ${a.groupValues.join(", ")})` : "";
  const entries = only === undefined ? a.entries : a.entries.filter((e) => e.notifierKey === only);
  const to = entries.map(
    (e) => e.notifierKey + (e.outcome === "failed" ? ` [failed${e.reason ? `: ${e.reason}` : ""}]` : ""),
  );
  return `${a.monitorKey} ${a.action} at ${formatOffset(a.timeMs - startMs)}${group}${to.length ? ` to ${to.join(", ")}` : ", to no notifier"}`;
}

/** Compares the expectations with the outbox. */
export function compare(
  expectations: readonly ResolvedExpectation[],
  outbox: readonly OutboxEntry[],
  facts: RunFacts,
): Comparison {
  const alerts = gotAlerts(outbox, facts);
  /** Entries some expectation describes, as `alertIndex:entryIndex`. */
  const claimed = new Set<string>();
  /** Failed entries an expectation asks for (`outcome: failed`): these failures are what was tested. */
  const expectedFailures = new Set<string>();
  const rows = expectations.map((e): ExpectationResult => {
    const monitor = facts.monitors.get(e.monitorKey)!;
    const action = e.action ?? "Open";
    const keys = groupKeysOf(e.monitorKey, facts);
    const window = windowOf(e, facts.startMs, monitor.intervalMs);
    const got: GotAlert[] = [];
    alerts.forEach((a, ai) => {
      if (a.monitorKey !== e.monitorKey || a.action !== action || !groupMatches(e.group, a.groupValues, keys))
        return;
      if (!inWindow(a.timeMs, window)) return;
      const entries = a.entries
        .map((entry, ei) => ({ entry, ei }))
        .filter(
          ({ entry }) =>
            (e.notifierKey === undefined || entry.notifierKey === e.notifierKey) &&
            (e.outcome === undefined || entry.outcome === e.outcome),
        );
      // Without a notifier or an outcome, the alert itself is what is expected, sent to anyone or no one.
      if (entries.length === 0 && (e.notifierKey !== undefined || e.outcome !== undefined)) return;
      for (const { ei } of entries) claimed.add(`${ai}:${ei}`);
      if (e.outcome === "failed") for (const { ei } of entries) expectedFailures.add(`${ai}:${ei}`);
      // Without a notifier, an alert counts once whatever number of notifiers it went to.
      if (e.notifierKey === undefined) {
        for (const ei of a.entries.keys()) claimed.add(`${ai}:${ei}`);
        got.push(a);
      } else {
        // One per entry: an alert sent twice to the same notifier is two notifications.
        got.push(...entries.map(() => a));
      }
    });
    const n = got.length;
    const [ok, wanted] =
      e.never === true
        ? [n === 0, "0"]
        : e.atLeast !== undefined
          ? [n >= e.atLeast, `≥ ${e.atLeast}`]
          : [n === (e.count ?? 1), String(e.count ?? 1)];
    return {
      expectation: e,
      ok,
      wanted,
      got,
      window,
      hints: ok ? [] : hintsFor(e, action, alerts, facts, got),
    };
  });
  const unexpected: GotAlert[] = [];
  alerts.forEach((a, ai) => {
    const rest = a.entries.filter((_, ei) => !claimed.has(`${ai}:${ei}`));
    if (rest.length > 0) unexpected.push({ ...a, entries: rest });
  });
  const { failures, allowed } = failuresOf(alerts, expectedFailures, facts);
  const ok =
    rows.every((r) => r.ok) &&
    (facts.unexpected === "ignore" || unexpected.length === 0) &&
    failures.length === 0;
  return { rows, unexpected, failures, allowed, ok };
}

/** `file:line:column`, as far as known. */
export function formatPosition(p: SourcePosition): string {
  return `${p.file}${p.line === undefined ? "" : `:${p.line}${p.column === undefined ? "" : `:${p.column}`}`}`;
}

/** The failed runs and sends of the run, by the strict rule (module comment); those `allow:` lets pass apart. */
function failuresOf(
  alerts: readonly GotAlert[],
  expectedFailures: ReadonlySet<string>,
  facts: RunFacts,
): { failures: RunFailure[]; allowed: RunWarning[] } {
  const found: RunFailure[] = [];
  const runsOf = new Map<string, { total: number; failed: MonitorRun[] }>();
  for (const run of facts.runs) {
    const key = facts.monitorKeyOfId.get(run.monitorId);
    if (key === undefined) continue;
    let entry = runsOf.get(key);
    if (!entry) runsOf.set(key, (entry = { total: 0, failed: [] }));
    entry.total++;
    if (run.state === "error") entry.failed.push(run);
  }
  for (const [monitor, { total, failed }] of runsOf) {
    if (failed.length === 0) continue;
    const first = failed[0];
    const firstMs = Date.parse(first.time);
    const query = facts.monitors.get(monitor)?.query;
    const error = first.error ?? "no reason given";
    found.push({
      kind: "query-failed",
      monitor,
      failed: failed.length,
      of: total,
      firstMs,
      error,
      query,
      message:
        `monitor ${monitor}: ${failed.length} of its ${total} runs failed, the first at ${formatOffset(firstMs - facts.startMs)}: ${error}` +
        (query ? ` (its aplQuery: ${formatPosition(query)})` : ""),
    });
  }
  const sends = new Map<
    string,
    { monitor: string; notifier: string; total: number; failed: GotAlert[]; reasons: string[] }
  >();
  alerts.forEach((a, ai) =>
    a.entries.forEach((entry, ei) => {
      const key = JSON.stringify([a.monitorKey, entry.notifierKey]);
      let s = sends.get(key);
      if (!s)
        sends.set(
          key,
          (s = { monitor: a.monitorKey, notifier: entry.notifierKey, total: 0, failed: [], reasons: [] }),
        );
      s.total++;
      if (entry.outcome === "failed" && !expectedFailures.has(`${ai}:${ei}`)) {
        s.failed.push(a);
        s.reasons.push(entry.reason ?? "no reason given");
      }
    }),
  );
  for (const s of sends.values()) {
    if (s.failed.length === 0) continue;
    const firstMs = s.failed[0].timeMs;
    found.push({
      kind: "notification-failed",
      monitor: s.monitor,
      notifier: s.notifier,
      failed: s.failed.length,
      of: s.total,
      firstMs,
      error: s.reasons[0],
      message: `notifier ${s.notifier}: ${s.failed.length} of the ${s.total} notifications from monitor ${s.monitor} failed, the first at ${formatOffset(firstMs - facts.startMs)}: ${s.reasons[0]}; expect them with outcome: failed if that is what the test is for`,
    });
  }
  const failures: RunFailure[] = [];
  const allowed: RunWarning[] = [];
  for (const f of found) {
    const allowance = f.kind === "query-failed" ? "failed-queries" : "failed-notifications";
    if (facts.allow?.has(allowance))
      allowed.push({
        kind: "allowed",
        monitor: f.monitor,
        notifier: f.notifier,
        ...f.query,
        message: `allowed by the file's allow: ${allowance}: ${f.message}`,
      });
    else failures.push(f);
  }
  return { failures, allowed };
}

/** What came nearest to a failed expectation, in words. */
function hintsFor(
  e: ResolvedExpectation,
  action: string,
  alerts: readonly GotAlert[],
  facts: RunFacts,
  got: readonly GotAlert[],
): string[] {
  const hints: string[] = [];
  const monitor = facts.monitors.get(e.monitorKey)!;
  if (e.notifierKey !== undefined && !monitor.notifierKeys.includes(e.notifierKey)) {
    hints.push(
      `${e.monitorKey} does not notify ${e.notifierKey}: its notifierIds are ${monitor.notifierKeys.length ? monitor.notifierKeys.join(", ") : "empty"}`,
    );
  }
  if (e.notifierKey !== undefined && monitor.notifierKeys.length === 0)
    hints.push(`${e.monitorKey} has no notifiers, so it sends no notification`);
  const failed = facts.runs.filter(
    (r) => facts.monitorKeyOfId.get(r.monitorId) === e.monitorKey && r.state === "error",
  );
  if (failed.length > 0)
    hints.push(
      `${failed.length} of its runs failed, the first at ${formatOffset(Date.parse(failed[0].time) - facts.startMs)}: ${failed[0].error ?? "no reason given"}`,
    );
  const shown = new Set(got);
  const near = alerts.filter((a) => a.monitorKey === e.monitorKey && a.action === action && !shown.has(a));
  for (const a of near.slice(0, 3)) hints.push(`got ${describeAlert(a, facts.startMs)}`);
  if (near.length > 3) hints.push(`and ${near.length - 3} more ${action} of ${e.monitorKey}`);
  if (near.length === 0 && got.length === 0) {
    const runs = facts.runs.filter((r) => facts.monitorKeyOfId.get(r.monitorId) === e.monitorKey);
    const values = runs.flatMap((r) => r.values.map((v) => v.value)).filter((v): v is number => v !== null);
    hints.push(
      runs.length === 0
        ? `${e.monitorKey} never ran`
        : `${e.monitorKey} ran ${runs.length} times and sent no ${action}` +
            (values.length
              ? `; its values ranged ${Math.min(...values)} to ${Math.max(...values)}` +
                (monitor.operator && monitor.threshold !== undefined
                  ? ` (alert when ${monitor.operator} ${monitor.threshold})`
                  : "")
              : "; its query found no value"),
    );
  }
  return hints;
}
