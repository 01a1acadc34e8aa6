/**
 * `--report FILE.html`: the alert-test report's page over the backtest's real period, drawn with the same chart
 * (emulator/chart): each monitor's values against its threshold, the periods its alerts were open shaded, each
 * notification marked. The alert periods come from the judge's transitions exactly (an alert's open and its
 * close, by its stable id). With `--base`, a monitor on both sides gets one chart where the head's and the base's
 * values, thresholds, alert periods and notifications are drawn over each other, each named in the legend; a monitor
 * on one side only gets that side's chart, saying it was added or removed. One self-contained page: nothing loads
 * from elsewhere and nothing runs.
 */
import {
  chartHtml,
  CHART_CSS,
  escapeHtml,
  runChart,
  type AlertPeriod,
  type ChartMark,
  type ChartSide,
  standalonePage,
} from "../../emulator/chart";
import { formatNs } from "../../emulator/time";
import type { MonitorBacktest, Period } from "./run";

const iso = (ms: number) => formatNs(BigInt(ms) * 1_000_000n);

/** The alert periods of a backtest, from its transitions: one per alert, by its id. */
export function periodsOf(b: MonitorBacktest, endMs: number): AlertPeriod[] {
  // A match monitor's alerts are events that never close: its notifications are marked, no period is shaded.
  if (b.monitor.type === "MatchEvent") return [];
  const open = new Map<string, { fromMs: number; groupValues: string[] | null }>();
  const periods: AlertPeriod[] = [];
  for (const run of b.runs) {
    for (const t of run.judged.transitions) {
      if (t.action === "open") {
        // The judge's own text of the group, as its notifications carry it: the alert's key is not parsed back.
        open.set(t.alertId, { fromMs: run.runMs, groupValues: t.groupValues });
      } else {
        const p = open.get(t.alertId);
        if (p) periods.push({ ...p, toMs: run.runMs, closed: true });
        open.delete(t.alertId);
      }
    }
  }
  for (const p of open.values()) periods.push({ ...p, toMs: endMs, closed: false });
  return periods.sort((a, b) => a.fromMs - b.fromMs);
}

/** How many of a backtest's runs failed. */
const failedRunsOf = (b: MonitorBacktest) =>
  b.runs.reduce((n, r) => n + (r.judged.error !== undefined ? 1 : 0), 0);

/** The first failed run of a backtest, when and why. */
function firstFailureOf(b: MonitorBacktest): string | undefined {
  const run = b.runs.find((r) => r.judged.error !== undefined);
  return run && `the first at ${iso(run.runMs)}: ${run.judged.error}`;
}

/** The notifications of a backtest as chart marks. */
function marksOf(b: MonitorBacktest): ChartMark[] {
  return b.runs.flatMap((run) =>
    run.judged.events.map((e) => {
      // A notifier disabled at the time holds it (report.ts's `held`): the mark says so.
      const held = b.notifiers.filter((n) => (b.mutedUntil?.[n] ?? -Infinity) > run.runMs);
      return {
        timeMs: run.runMs,
        action: e.action,
        words:
          `${e.action} at ${iso(run.runMs)}${e.groupValues?.length ? ` (${e.groupValues.join(", ")})` : ""}: ${e.body}` +
          (held.length > 0
            ? ` (held by ${held.map((n) => `${n}, disabled until ${iso(b.mutedUntil![n])}`).join("; ")})`
            : ""),
        notifiers: b.notifiers,
      };
    }),
  );
}

/** A backtest as one side of a chart: its runs, threshold, alert periods and notifications. */
function sideOf(b: MonitorBacktest, period: Period): ChartSide {
  return {
    runs: b.runs.map((r) => ({ time: iso(r.runMs), values: r.judged.values, state: r.judged.state })),
    threshold: b.monitor.threshold,
    periods: periodsOf(b, period.toMs),
    marks: marksOf(b),
  };
}

const frameOf = (period: Period, id: string, label: string) => ({
  id,
  label,
  startMs: period.fromMs,
  endMs: period.toMs,
  timeLabel: iso,
  openEnd: "the end of the period",
});

/** A monitor's chart: its head's and base's over each other when it has both, else its one side's. */
function chartOf(
  key: string,
  period: Period,
  id: string,
  sides: { head?: MonitorBacktest; base?: MonitorBacktest; compared: boolean },
): string {
  const { head, base } = sides;
  if (head && base) {
    const thresholds = (["head", "base"] as const).flatMap((name) => {
      const t = sides[name]!.monitor.threshold;
      return t === undefined ? [] : [`${t} (${name})`];
    });
    const against = thresholds.length
      ? ` against the ${thresholds.length > 1 ? "thresholds" : "threshold"} ${thresholds.join(" and ")}`
      : "";
    return chartHtml(
      runChart({
        ...frameOf(period, id, `${key}: head and base run values${against}`),
        sides: [
          { name: "head", ...sideOf(head, period) },
          { name: "base", ...sideOf(base, period) },
        ],
      }),
    );
  }
  const only = (head ?? base)!;
  const change = !sides.compared ? "" : head ? "added, only in the head: " : "removed, only in the base: ";
  const against =
    only.monitor.threshold === undefined ? "" : ` against the threshold ${only.monitor.threshold}`;
  return chartHtml(
    runChart({ ...frameOf(period, id, `${change}${key}: run values${against}`), ...sideOf(only, period) }),
  );
}

const STYLE = `
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px; color: #1f2328; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 32px; }
.meta { color: #57606a; margin: 0 0 6px; }
${CHART_CSS}`;

/**
 * The whole page: a section for each monitor, with a line of facts for each side it is on and its one chart, the
 * base's drawn over the head's when there is a base.
 */
export function renderBacktestReport(
  head: readonly MonitorBacktest[],
  period: Period,
  base?: readonly MonitorBacktest[],
): string {
  const title = `Backtest, ${iso(period.fromMs)} to ${iso(period.toMs)}`;
  const body = [`<h1>${escapeHtml(title)}</h1>`];
  const keys = [...new Set([...head.map((m) => m.key), ...(base ?? []).map((m) => m.key)])];
  const compared = base !== undefined;
  keys.forEach((key, i) => {
    const h = head.find((m) => m.key === key);
    const b = base?.find((m) => m.key === key);
    const any = (h ?? b)!;
    const change = !compared ? undefined : h && b ? "both" : h ? "added" : "removed";
    body.push(
      `<section class="monitor" data-monitor="${escapeHtml(key)}" data-runs="${h?.runs.length ?? 0}"` +
        `${change ? ` data-change="${change}"` : ""}>`,
      `<h2>${escapeHtml(key)}: ${escapeHtml(any.monitor.name)}</h2>`,
    );
    for (const [side, m] of [
      ["head", h],
      ["base", b],
    ] as const) {
      if (!m) continue;
      const periods = periodsOf(m, period.toMs);
      const which =
        change === "added"
          ? "head (added, not in the base): "
          : change === "removed"
            ? "base (removed, not in the head): "
            : compared
              ? `${side}: `
              : "";
      body.push(
        `<p class="meta">${which}${m.path} path, ` +
          `${m.reused === undefined ? `${m.requests} ${m.requests === 1 ? "request" : "requests"}` : `the answer of ${escapeHtml(m.reused)}'s equal query`}, ` +
          `${m.runs.length} ${m.runs.length === 1 ? "run" : "runs"}` +
          `${failedRunsOf(m) > 0 ? ` (${failedRunsOf(m)} failed: ${escapeHtml(firstFailureOf(m)!)})` : ""}, ` +
          `${periods.length} alert ${periods.length === 1 ? "period" : "periods"}` +
          `${m.error ? `; could not be backtested: ${escapeHtml(m.error)}` : ""}.</p>`,
      );
    }
    body.push(chartOf(key, period, `m${i}`, { head: h, base: b, compared }), `</section>`);
  });
  return standalonePage(title, STYLE, body);
}
