/**
 * What a backtest says: per monitor its runs, alerts (per group), notifications per notifier, time in alert, the
 * longest alert, flaps and failed runs, and the path it took with what it cost; with a base, what changed. The
 * JSON is a contract other tools read (docs/backtesting.md): times in RFC 3339, `group` an object of the `by`
 * columns' values (`{}` when ungrouped), `close` null for an alert still open at the end.
 */
import { isDeepStrictEqual } from "node:util";
import { formatNs } from "../../emulator/time";
import type { MonitorBacktest, Period } from "./run";

/** One alert: when it opened and closed (null: still open at the end of the period). */
export interface AlertSummary {
  /** Its stable id: the same monitor, group and opening run give the same id in every backtest (the judge's). */
  id: string;
  group: Record<string, unknown>;
  open: string;
  close: string | null;
}

/** One notification a notifier would have received. */
export interface NotificationSummary {
  time: string;
  action: "Open" | "Closed";
  group: Record<string, unknown>;
  notifier: string;
}

/** A notification a notifier would have held, not sent: it was disabled until later (its `disabledUntil`). */
export interface HeldNotification extends NotificationSummary {
  until: string;
}

/** One monitor's backtest, as the JSON contract states it. */
export interface MonitorSummary {
  name: string;
  /** Its resource name. */
  key: string;
  path: "service" | "events";
  /** Why it took the event path. */
  why?: string;
  requests: number;
  rows: number;
  /** The monitor whose answer this one's runs were rebuilt from (the same query over the same span): the
   * requests and rows are counted there, none here. */
  reused?: string;
  runs: number;
  failedRuns: number;
  /** The first failed runs (at most 5) and why. */
  failures: { time: string; error: string }[];
  alerts: AlertSummary[];
  notifications: NotificationSummary[];
  /**
   * Those of `notifications` that their notifier would have held, not sent, being disabled at the time (its
   * `disabledUntil`; present when there are any). They stay among the notifications: a mute set now ends, and a
   * change that pages more pages more after it.
   */
  held?: HeldNotification[];
  timeInAlertSeconds: number;
  longestAlertSeconds: number;
  /** Alerts that reopened within one range of closing (same group). */
  flaps: number;
  /** Why the monitor could not be backtested at all. */
  error?: string;
}

/** A monitor of a diff: its change, and the base's and head's backtests. */
export interface MonitorDiff extends Partial<MonitorSummary> {
  name: string;
  change: "added" | "removed" | "changed" | "unchanged";
  /** The inputs that differ (a changed monitor's). */
  inputs?: string[];
  base: MonitorSummary | null;
  head: MonitorSummary | null;
}

/** The whole report. */
export interface BacktestReport {
  from: string;
  to: string;
  monitors: (MonitorSummary | MonitorDiff)[];
}

const iso = (ms: number) => formatNs(BigInt(ms) * 1_000_000n);

/** A monitor's backtest summarized (see {@link MonitorSummary}). */
export function summarize(b: MonitorBacktest, period: Period): MonitorSummary {
  const alerts: (AlertSummary & { key: string; openMs: number; closeMs?: number })[] = [];
  const openById = new Map<string, (typeof alerts)[number]>();
  /** Each alert's group by its id, kept after it closes: its closing notification reads it. */
  const groupById = new Map<string, Record<string, unknown>>();
  const notifications: NotificationSummary[] = [];
  const held: HeldNotification[] = [];
  const failures: { time: string; error: string }[] = [];
  let failedRuns = 0;
  let flaps = 0;
  const lastClose = new Map<string, number>();
  const rangeMs = b.monitor.rangeMinutes * 60_000;
  for (const run of b.runs) {
    const j = run.judged;
    if (j.error !== undefined) {
      failedRuns++;
      if (failures.length < 5) failures.push({ time: iso(run.runMs), error: j.error });
    }
    for (const t of j.transitions) {
      if (t.action === "open") {
        const closed = lastClose.get(t.key);
        if (closed !== undefined && run.runMs - closed <= rangeMs) flaps++;
        const a = {
          id: t.alertId,
          group: t.group,
          open: iso(run.runMs),
          close: null,
          key: t.key,
          openMs: run.runMs,
        };
        alerts.push(a);
        openById.set(t.alertId, a);
        groupById.set(t.alertId, t.group);
      } else {
        const a = openById.get(t.alertId);
        if (a) {
          a.close = iso(run.runMs);
          a.closeMs = run.runMs;
          openById.delete(t.alertId);
        }
        lastClose.set(t.key, run.runMs);
      }
    }
    for (const e of j.events) {
      // The alert's own group, typed as its alerts carry it (a notification's groupValues are texts: 503 is "503",
      // null is ""); the texts only for a notification of no alert this backtest opened.
      const group =
        (e.alertId !== undefined ? groupById.get(e.alertId) : undefined) ??
        Object.fromEntries((e.groupKeys ?? []).map((k, i) => [k, e.groupValues?.[i] ?? null]));
      for (const notifier of b.notifiers) {
        const n = { time: iso(run.runMs), action: e.action, group, notifier };
        notifications.push(n);
        const until = b.mutedUntil?.[notifier];
        if (until !== undefined && until > run.runMs) held.push({ ...n, until: iso(until) });
      }
    }
  }
  // A match monitor's alerts are its matching events, which never close (emulator/alerting/judge.ts): none is a
  // time in alert, where counting each to the period's end summed to many times the period.
  const durations =
    b.monitor.type === "MatchEvent" ? [] : alerts.map((a) => (a.closeMs ?? period.toMs) - a.openMs);
  return {
    name: b.monitor.name,
    key: b.key,
    path: b.path,
    ...(b.why !== undefined ? { why: b.why } : {}),
    requests: b.requests,
    rows: b.rows,
    ...(b.reused !== undefined ? { reused: b.reused } : {}),
    runs: b.runs.length,
    failedRuns,
    failures,
    alerts: alerts.map(({ id, group, open, close }) => ({ id, group, open, close })),
    notifications,
    ...(held.length > 0 ? { held } : {}),
    timeInAlertSeconds: durations.reduce((s, d) => s + d, 0) / 1000,
    longestAlertSeconds: durations.reduce((s, d) => Math.max(s, d), 0) / 1000,
    flaps,
    ...(b.error !== undefined ? { error: b.error } : {}),
  };
}

/** The report of one backtest. */
export function report(results: readonly MonitorBacktest[], period: Period): BacktestReport {
  return {
    from: iso(period.fromMs),
    to: iso(period.toMs),
    monitors: results.map((r) => summarize(r, period)),
  };
}

/** The monitor fields a diff compares (the id is the resource name on both sides). */
function changedInputs(base: MonitorBacktest, head: MonitorBacktest): string[] {
  const out: string[] = [];
  const b = base.monitor as unknown as Record<string, unknown>;
  const h = head.monitor as unknown as Record<string, unknown>;
  for (const key of [...new Set([...Object.keys(b), ...Object.keys(h)])].sort()) {
    if (key !== "id" && !isDeepStrictEqual(b[key], h[key])) out.push(key);
  }
  // A notifier's own disabledUntil changes who is paged as much as the monitor's fields do.
  for (const notifier of [...new Set([...base.notifiers, ...head.notifiers])].sort())
    if (base.mutedUntil?.[notifier] !== head.mutedUntil?.[notifier]) out.push(`${notifier}.disabledUntil`);
  return out;
}

/** The diff of a base's and a head's backtests over one period, monitors matched by resource name. */
export function diffReport(
  base: readonly MonitorBacktest[],
  head: readonly MonitorBacktest[],
  period: Period,
): BacktestReport {
  const keys = [...new Set([...head.map((m) => m.key), ...base.map((m) => m.key)])];
  const monitors = keys.map((key): MonitorDiff => {
    const b = base.find((m) => m.key === key);
    const h = head.find((m) => m.key === key);
    const bs = b ? summarize(b, period) : null;
    const hs = h ? summarize(h, period) : null;
    const inputs = b && h ? changedInputs(b, h) : undefined;
    const change = !b ? "added" : !h ? "removed" : inputs!.length > 0 ? "changed" : "unchanged";
    return { ...(hs ?? bs!), change, ...(inputs && inputs.length > 0 ? { inputs } : {}), base: bs, head: hs };
  });
  // The monitors whose head fails where its base did not lead, then those whose paging changed.
  const rank = (d: MonitorDiff) => (failsMore(d) ? 2 : pagingChanged(d) ? 1 : 0);
  monitors.sort((x, y) => rank(y) - rank(x));
  return { from: iso(period.fromMs), to: iso(period.toMs), monitors };
}

/** Notifications per notifier, the notifiers in name order (the order a monitor lists them in pages no one). */
export function perNotifier(s: MonitorSummary | null): Map<string, number> {
  const out = new Map<string, number>();
  for (const n of s?.notifications ?? []) out.set(n.notifier, (out.get(n.notifier) ?? 0) + 1);
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** A monitor's notifications as a sorted list of texts: one run's notifications to two notifiers come in the
 * order the monitor lists its notifiers, which a reordering changes and no notifier sees. */
const notificationSet = (s: MonitorSummary | null): string[] =>
  (s?.notifications ?? []).map((n) => JSON.stringify([n.time, n.action, n.group, n.notifier])).sort();

/** Whether a diffed monitor's notifications differ between base and head (per notifier, or in time). */
export function pagingChanged(d: MonitorDiff): boolean {
  return !isDeepStrictEqual(notificationSet(d.base), notificationSet(d.head));
}

/**
 * Whether the head's side of a diffed monitor fails where the base's did not: more of its runs fail. A monitor whose
 * runs fail sends nothing, so its paging "drops": the report says why, and the `more-pages` gate counts it, as a
 * change that breaks a monitor is worse than one that pages more. A side that could not be backtested at all has
 * no runs to compare: it is listed as such, and the command exits 1 when the service did not answer a head
 * monitor, where a monitor a backtest cannot run by design (a let, a dataset pattern) fails no gate.
 */
export function failsMore(d: MonitorDiff): boolean {
  const h = d.head;
  const b = d.base;
  if (h === null || h.error !== undefined || b?.error !== undefined) return false;
  return h.failedRuns > (b?.failedRuns ?? 0);
}

/** The monitors of a report that could not be backtested, on either side of a diff, and why. */
export function notBacktested(r: BacktestReport): { name: string; side?: "base" | "head"; error: string }[] {
  return r.monitors.flatMap((m) => {
    if (!("change" in m)) return m.error !== undefined ? [{ name: m.name, error: m.error }] : [];
    return (["base", "head"] as const).flatMap((side) => {
      const error = m[side]?.error;
      return error !== undefined ? [{ name: m.name, side, error }] : [];
    });
  });
}

/** Whether `--fail-on` fails this report: `more-pages` when a notifier gets more from some head monitor than
 * from its base, or a head monitor fails where its base did not ({@link failsMore}); `any-change` when any
 * monitor's alerts, notifications or failed runs differ, or it was added or removed. */
export function failsOn(r: BacktestReport, rule: "more-pages" | "any-change"): boolean {
  return r.monitors.some((m) => {
    if (!("change" in m)) return false;
    if (failsMore(m)) return true;
    if (rule === "any-change")
      return (
        m.change === "added" ||
        m.change === "removed" ||
        pagingChanged(m) ||
        !isDeepStrictEqual(m.base?.alerts, m.head?.alerts) ||
        m.base?.failedRuns !== m.head?.failedRuns ||
        m.base?.error !== m.head?.error
      );
    const before = perNotifier(m.base);
    for (const [notifier, n] of perNotifier(m.head)) if (n > (before.get(notifier) ?? 0)) return true;
    return false;
  });
}

/** A duration in words: `2h 5m`, `40s`. */
export function duration(seconds: number): string {
  if (seconds === 0) return "0s";
  const parts: string[] = [];
  let rest = Math.round(seconds);
  for (const [unit, size] of [
    ["d", 86_400],
    ["h", 3_600],
    ["m", 60],
    ["s", 1],
  ] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  return parts.slice(0, 2).join(" ");
}

const groupText = (g: Record<string, unknown>) =>
  Object.keys(g).length === 0
    ? ""
    : ` ${Object.entries(g)
        .map(([k, v]) => `${k}=${String(v)}`)
        .join(" ")}`;

const pathText = (s: MonitorSummary) =>
  (s.reused !== undefined
    ? `${s.path} path, the answer of ${s.reused}'s equal query`
    : `${s.path} path, ${s.requests} request${s.requests === 1 ? "" : "s"}, ${s.rows.toLocaleString("en-US")} rows`) +
  (s.why ? ` (events: ${s.why})` : "");

/** The notifications a monitor's disabled notifiers held, per notifier, until when. */
const heldText = (s: MonitorSummary) => {
  if (s.held === undefined) return "";
  const each = new Map<string, { n: number; until: string }>();
  for (const h of s.held) each.set(h.notifier, { n: (each.get(h.notifier)?.n ?? 0) + 1, until: h.until });
  return ` (of which held, not sent: ${[...each].map(([k, v]) => `${k} ${v.n}, disabled until ${v.until}`).join("; ")})`;
};

const notifierText = (m: Map<string, number>) =>
  m.size === 0 ? "none" : [...m].map(([n, c]) => `${n} ${c}`).join(", ");

/** The report as text for a terminal. */
export function formatText(r: BacktestReport): string[] {
  const lines = [`backtest ${r.from} to ${r.to}`];
  for (const m of r.monitors) {
    if ("change" in m) {
      lines.push("", `${m.name}: ${m.change}${m.inputs ? ` (${m.inputs.join(", ")})` : ""}`);
      const b = m.base;
      const h = m.head;
      lines.push(`  notifications: ${notifierText(perNotifier(b))} -> ${notifierText(perNotifier(h))}`);
      for (const [side, s] of [
        ["base", b],
        ["head", h],
      ] as const)
        if (s?.held) lines.push(`    ${side}${heldText(s)}`);
      lines.push(`  alerts: ${b?.alerts.length ?? 0} -> ${h?.alerts.length ?? 0}`);
      lines.push(
        `  time in alert: ${duration(b?.timeInAlertSeconds ?? 0)} -> ${duration(h?.timeInAlertSeconds ?? 0)}`,
      );
      const moved = firstMoved(b, h);
      if (moved) lines.push(`  first alert that moved: ${moved}`);
      lines.push(...failureLines(m));
      continue;
    }
    lines.push("", `${m.name} (${pathText(m)})`);
    if (m.error) {
      lines.push(`  could not be backtested: ${m.error}`);
      continue;
    }
    lines.push(`  runs: ${m.runs}, failed: ${m.failedRuns}`);
    for (const f of m.failures) lines.push(`    failed at ${f.time}: ${f.error}`);
    lines.push(
      `  alerts: ${m.alerts.length} (time in alert ${duration(m.timeInAlertSeconds)}, longest ${duration(m.longestAlertSeconds)}, flaps ${m.flaps})`,
    );
    for (const a of m.alerts) lines.push(`    ${a.open} to ${a.close ?? "still open"}${groupText(a.group)}`);
    lines.push(`  notifications: ${notifierText(perNotifier(m))}${heldText(m)}`);
  }
  return lines;
}

/** A diffed monitor's failures, when either side has any: each side could not be backtested, or its failed runs
 * and the head's first. */
function failureLines(m: MonitorDiff): string[] {
  const b = m.base;
  const h = m.head;
  if (!b?.error && !h?.error && !b?.failedRuns && !h?.failedRuns) return [];
  const lines: string[] = [];
  for (const [side, s] of [
    ["base", b],
    ["head", h],
  ] as const)
    if (s?.error) lines.push(`  ${side} could not be backtested: ${s.error}`);
  if (!b?.error && !h?.error) lines.push(`  failed runs: ${b?.failedRuns ?? 0} -> ${h?.failedRuns ?? 0}`);
  const first = h?.failures[0];
  if (first) lines.push(`    head failed at ${first.time}: ${first.error}`);
  return lines;
}

/** A diffed monitor's failed runs as a markdown cell: a side that could not be backtested says so. */
const failedCell = (m: MonitorDiff) => {
  const side = (s: MonitorSummary | null) =>
    s === null ? "–" : s.error !== undefined ? "not run" : `${s.failedRuns}`;
  return `${side(m.base)} → ${side(m.head)}`;
};

/** The first alert of base that head does not have, or of head that base does not (in time order). */
function firstMoved(b: MonitorSummary | null, h: MonitorSummary | null): string | undefined {
  // By when and for whom, not by id: a base's and a head's alerts of one group opened at one run share it anyway.
  const key = (a: AlertSummary) => JSON.stringify([a.open, a.close, a.group]);
  const inHead = new Set((h?.alerts ?? []).map(key));
  const inBase = new Set((b?.alerts ?? []).map(key));
  const gone = (b?.alerts ?? []).filter((a) => !inHead.has(key(a))).map((a) => ({ a, side: "base only" }));
  const fresh = (h?.alerts ?? []).filter((a) => !inBase.has(key(a))).map((a) => ({ a, side: "head only" }));
  const first = [...gone, ...fresh].sort((x, y) => x.a.open.localeCompare(y.a.open))[0];
  return (
    first && `${first.a.open} to ${first.a.close ?? "still open"}${groupText(first.a.group)} (${first.side})`
  );
}

const cell = (text: string) => text.replace(/\|/g, "\\|");

/** The report as markdown, for a pull request's comment or `$GITHUB_STEP_SUMMARY`. */
export function formatMarkdown(r: BacktestReport): string[] {
  const lines = [`### Backtest, ${r.from} to ${r.to}`, ""];
  const diffs = r.monitors.filter((m): m is MonitorDiff => "change" in m);
  if (diffs.length > 0) {
    const failing = diffs.filter(failsMore);
    const paging = diffs.filter(pagingChanged);
    const monitors = (n: number) => `${n} monitor${n === 1 ? "" : "s"}`;
    if (failing.length > 0)
      lines.push(
        `**${monitors(failing.length)} fail${failing.length === 1 ? "s" : ""} in the head where the base did not: ${failing
          .map((m) => cell(m.name))
          .join(", ")}.** A monitor whose runs fail sends nothing.`,
        "",
      );
    lines.push(
      paging.length === 0
        ? "No monitor's notifications change."
        : `**${monitors(paging.length)} page${paging.length === 1 ? "s" : ""} differently.**`,
      "",
      "| Monitor | Change | Notifications (base → head) | Alerts | Time in alert | Failed runs | First alert that moved |",
      "| --- | --- | --- | --- | --- | --- | --- |",
    );
    for (const m of diffs) {
      lines.push(
        `| ${cell(m.name)} | ${m.change}${m.inputs ? ` (${cell(m.inputs.join(", "))})` : ""} | ${cell(
          `${notifierText(perNotifier(m.base))}${m.base ? heldText(m.base) : ""} → ${notifierText(perNotifier(m.head))}${m.head ? heldText(m.head) : ""}`,
        )} | ${m.base?.alerts.length ?? 0} → ${m.head?.alerts.length ?? 0} | ${duration(
          m.base?.timeInAlertSeconds ?? 0,
        )} → ${duration(m.head?.timeInAlertSeconds ?? 0)} | ${failedCell(m)} | ${cell(firstMoved(m.base, m.head) ?? "")} |`,
      );
    }
    lines.push(...notBacktestedLines(r));
    return lines;
  }
  lines.push(
    "| Monitor | Path | Runs | Failed | Alerts | Notifications | Time in alert | Longest | Flaps |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
  );
  for (const m of r.monitors as MonitorSummary[]) {
    lines.push(
      `| ${cell(m.name)} | ${m.path} (${m.requests} req) | ${m.runs} | ${m.error ? cell(m.error) : m.failedRuns} | ${
        m.alerts.length
      } | ${cell(notifierText(perNotifier(m)))} | ${duration(m.timeInAlertSeconds)} | ${duration(
        m.longestAlertSeconds,
      )} | ${m.flaps} |`,
    );
  }
  lines.push(...notBacktestedLines(r));
  return lines;
}

/** Markdown's note of the monitors that could not be backtested, each with why. */
function notBacktestedLines(r: BacktestReport): string[] {
  const list = notBacktested(r);
  if (list.length === 0) return [];
  return [
    "",
    `**${list.length} could not be backtested:**`,
    "",
    ...list.map((u) => `- ${cell(u.name)}${u.side ? ` (${u.side})` : ""}: ${cell(u.error)}`),
  ];
}
