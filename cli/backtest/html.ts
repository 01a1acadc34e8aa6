/**
 * `--report FILE.html`: the alert-test report's page over the backtest's real period, drawn with the same chart
 * (emulator/chart): each monitor's values against its threshold, the periods its alerts were open shaded, each
 * notification marked. The alert periods come from the judge's transitions exactly (an alert's open and its
 * close, by its stable id). With `--base`, the base's chart sits under the head's, each with its threshold. One
 * self-contained page: nothing loads from elsewhere and nothing runs.
 */
import {
  chartHtml,
  CHART_CSS,
  escapeHtml,
  runChart,
  type AlertPeriod,
  type ChartMark,
  standalonePage,
} from "../../emulator/chart";
import { formatNs } from "../../emulator/time";
import type { MonitorBacktest, Period } from "./run";

const iso = (ms: number) => formatNs(BigInt(ms) * 1_000_000n);

/** The alert periods of a backtest, from its transitions: one per alert, by its id. */
export function periodsOf(b: MonitorBacktest, endMs: number): AlertPeriod[] {
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

/** The notifications of a backtest as chart marks. */
function marksOf(b: MonitorBacktest): ChartMark[] {
  return b.runs.flatMap((run) =>
    run.judged.events.map((e) => ({
      timeMs: run.runMs,
      action: e.action,
      words: `${e.action} at ${iso(run.runMs)}${e.groupValues?.length ? ` (${e.groupValues.join(", ")})` : ""}: ${e.body}`,
      notifiers: b.notifiers,
    })),
  );
}

/** One monitor's chart. */
function chartOf(b: MonitorBacktest, period: Period, id: string, label: string): string {
  return chartHtml(
    runChart({
      id,
      label,
      startMs: period.fromMs,
      endMs: period.toMs,
      runs: b.runs.map((r) => ({ time: iso(r.runMs), values: r.judged.values, state: r.judged.state })),
      threshold: b.monitor.threshold,
      periods: periodsOf(b, period.toMs),
      marks: marksOf(b),
      timeLabel: iso,
      openEnd: "the end of the period",
    }),
  );
}

const STYLE = `
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px; color: #1f2328; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 32px; }
.meta { color: #57606a; margin: 0 0 6px; }
${CHART_CSS}`;

/** The whole page: the head's monitors, each with its base's chart under it when there is a base. */
export function renderBacktestReport(
  head: readonly MonitorBacktest[],
  period: Period,
  base?: readonly MonitorBacktest[],
): string {
  const title = `Backtest, ${iso(period.fromMs)} to ${iso(period.toMs)}`;
  const body = [`<h1>${escapeHtml(title)}</h1>`];
  const keys = [...new Set([...head.map((m) => m.key), ...(base ?? []).map((m) => m.key)])];
  keys.forEach((key, i) => {
    const h = head.find((m) => m.key === key);
    const b = base?.find((m) => m.key === key);
    const any = (h ?? b)!;
    body.push(
      `<section class="monitor" data-monitor="${escapeHtml(key)}" data-runs="${h?.runs.length ?? 0}">`,
      `<h2>${escapeHtml(key)}: ${escapeHtml(any.monitor.name)}</h2>`,
    );
    for (const [side, m] of [
      ["head", h],
      ["base", b],
    ] as const) {
      if (!m) continue;
      if (side === "base" && !base) continue;
      const periods = periodsOf(m, period.toMs);
      body.push(
        `<p class="meta">${base ? `${side}: ` : ""}${m.path} path, ${m.requests} requests, ${m.runs.length} runs, ` +
          `${periods.length} alert ${periods.length === 1 ? "period" : "periods"}` +
          `${m.error ? `; could not be backtested: ${escapeHtml(m.error)}` : ""}.</p>`,
        chartOf(
          m,
          period,
          `m${i}-${side}`,
          `${base ? `${side}: ` : ""}${key}: run values${m.monitor.threshold === undefined ? "" : ` against the threshold ${m.monitor.threshold}`}`,
        ),
      );
    }
    body.push(`</section>`);
  });
  return standalonePage(title, STYLE, body);
}
