/**
 * `--report FILE.html`: one self-contained page of what the tests ran. For each monitor, a chart of its run values
 * over the test's time against its threshold, the periods its alert was open shaded, each notification marked; under
 * it the same facts as tables (the chart's text fallback). Inline SVG and CSS only: no script, no external asset (the
 * page's Content-Security-Policy forbids both), so it opens from a CI artifact as it is.
 *
 * Every drawn element carries its facts as data attributes (`data-time-ms`, `data-from-ms`, `data-to-ms`) and a
 * `<title>` in words, and the chart carries its scale (`data-start-ms`, `data-end-ms`, `data-plot-x`,
 * `data-plot-width`), so a reader (a screen reader, or a test in a browser) can check that a mark sits where its
 * time says.
 */
import type { MonitorRun } from "../../emulator";
import { formatOffset, gotAlerts, type GotAlert } from "./compare";
import { describeWhen } from "./print";
import type { RunOutcome } from "./run";

/** The chart's geometry, in CSS pixels. */
export const CHART = { width: 960, height: 240, left: 64, right: 16, top: 16, bottom: 36 } as const;

const SERIES_COLORS = ["#1f6feb", "#8250df", "#bf8700", "#1a7f37", "#cf222e", "#0a7ea4"];

/** Text made safe for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );
}

/** An id made of safe characters, unique with its prefix. */
function slug(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]+/g, "-").replace(/^-+|-+$/g, "") || "x";
}

/** A number as the page prints it: up to 4 significant decimals, no exponent for ordinary values. */
function num(v: number, digits = 6): string {
  return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(digits)));
}

/** An alert period of a monitor: from the run that found it open to the run that closed it (or the test's end). */
export interface AlertPeriod {
  fromMs: number;
  toMs: number;
  /** False when the test ended with the alert still open. */
  closed: boolean;
}

/** The periods a monitor's runs show its alert open (runs in time order). */
export function alertPeriods(runs: readonly MonitorRun[], endMs: number): AlertPeriod[] {
  const periods: AlertPeriod[] = [];
  let openSince: number | undefined;
  for (const run of runs) {
    const t = Date.parse(run.time);
    if (run.state === "open" && openSince === undefined) openSince = t;
    if (run.state === "closed" && openSince !== undefined) {
      periods.push({ fromMs: openSince, toMs: t, closed: true });
      openSince = undefined;
    }
  }
  if (openSince !== undefined) periods.push({ fromMs: openSince, toMs: endMs, closed: false });
  return periods;
}

interface Scale {
  x(t: number): number;
  y(v: number): number;
  yTicks: number[];
}

function scaleFor(startMs: number, endMs: number, values: number[], threshold: number | undefined): Scale {
  const plotW = CHART.width - CHART.left - CHART.right;
  const plotH = CHART.height - CHART.top - CHART.bottom;
  const all = threshold === undefined ? values : [...values, threshold];
  let lo = Math.min(0, ...all);
  let hi = Math.max(...all, 0);
  if (hi === lo) hi = lo + 1;
  hi += (hi - lo) * 0.1;
  if (lo < 0) lo -= (hi - lo) * 0.05;
  const span = endMs - startMs || 1;
  return {
    x: (t) => CHART.left + ((t - startMs) / span) * plotW,
    y: (v) => CHART.top + plotH - ((v - lo) / (hi - lo)) * plotH,
    yTicks: [lo, (lo + hi) / 2, hi],
  };
}

/** Time ticks: about six, on whole minutes, hours or days of offset. */
function timeTicks(startMs: number, endMs: number): number[] {
  const span = endMs - startMs;
  const steps = [
    60_000,
    5 * 60_000,
    10 * 60_000,
    15 * 60_000,
    30 * 60_000,
    3_600_000,
    2 * 3_600_000,
    3 * 3_600_000,
    6 * 3_600_000,
    12 * 3_600_000,
    86_400_000,
  ];
  const step = steps.find((s) => span / s <= 8) ?? Math.ceil(span / 8 / 86_400_000) * 86_400_000;
  const ticks: number[] = [];
  for (let t = 0; t <= span; t += step) ticks.push(startMs + t);
  return ticks;
}

/** The chart of one monitor. */
function monitorChart(
  id: string,
  label: string,
  runs: readonly MonitorRun[],
  alerts: readonly GotAlert[],
  periods: readonly AlertPeriod[],
  threshold: number | undefined,
  startMs: number,
  endMs: number,
): string {
  const series = new Map<
    string,
    { group: Record<string, unknown>; points: { t: number; v: number | null }[] }
  >();
  for (const run of runs) {
    const t = Date.parse(run.time);
    for (const value of run.values) {
      const key = JSON.stringify(value.group);
      let s = series.get(key);
      if (!s) series.set(key, (s = { group: value.group, points: [] }));
      s.points.push({ t, v: value.value });
    }
  }
  const values = [...series.values()]
    .flatMap((s) => s.points.map((p) => p.v))
    .filter((v): v is number => v !== null);
  const scale = scaleFor(startMs, endMs, values, threshold);
  const plotTop = CHART.top;
  const plotBottom = CHART.height - CHART.bottom;
  const parts: string[] = [];
  parts.push(
    `<svg class="chart" role="img" aria-labelledby="${id}-title ${id}-desc" width="${CHART.width}" height="${CHART.height}" ` +
      `viewBox="0 0 ${CHART.width} ${CHART.height}" data-start-ms="${startMs}" data-end-ms="${endMs}" ` +
      `data-plot-x="${CHART.left}" data-plot-width="${CHART.width - CHART.left - CHART.right}">`,
    `<title id="${id}-title">${escapeHtml(label)}</title>`,
    `<desc id="${id}-desc">${escapeHtml(
      `${runs.length} runs from ${formatOffset(0)} to ${formatOffset(endMs - startMs)}; ` +
        `${periods.length} alert ${periods.length === 1 ? "period" : "periods"}; ${alerts.length} ${alerts.length === 1 ? "notification" : "notifications"}` +
        (threshold === undefined ? "" : `; threshold ${num(threshold)}`),
    )}</desc>`,
  );
  // Axes and ticks.
  parts.push(`<g class="axis">`);
  parts.push(
    `<line x1="${CHART.left}" y1="${plotBottom}" x2="${CHART.width - CHART.right}" y2="${plotBottom}"/>`,
  );
  parts.push(`<line x1="${CHART.left}" y1="${plotTop}" x2="${CHART.left}" y2="${plotBottom}"/>`);
  for (const t of timeTicks(startMs, endMs)) {
    const x = scale.x(t).toFixed(2);
    parts.push(`<line x1="${x}" y1="${plotBottom}" x2="${x}" y2="${plotBottom + 4}"/>`);
    parts.push(
      `<text x="${x}" y="${plotBottom + 18}" text-anchor="middle">${escapeHtml(formatOffset(t - startMs))}</text>`,
    );
  }
  for (const v of scale.yTicks) {
    const y = scale.y(v).toFixed(2);
    parts.push(
      `<text x="${CHART.left - 6}" y="${y}" text-anchor="end" dominant-baseline="middle">${escapeHtml(num(v, 3))}</text>`,
    );
  }
  parts.push(`</g>`);
  // Alert periods, under everything else.
  for (const p of periods) {
    const x = scale.x(p.fromMs);
    const w = Math.max(1, scale.x(p.toMs) - x);
    const words = `alert open from ${formatOffset(p.fromMs - startMs)} to ${p.closed ? formatOffset(p.toMs - startMs) : "the end of the test (still open)"}`;
    parts.push(
      `<rect class="alert-period" x="${x.toFixed(2)}" y="${plotTop}" width="${w.toFixed(2)}" height="${plotBottom - plotTop}" ` +
        `data-from-ms="${p.fromMs}" data-to-ms="${p.toMs}" data-closed="${p.closed}"><title>${escapeHtml(words)}</title></rect>`,
    );
  }
  if (threshold !== undefined) {
    const y = scale.y(threshold).toFixed(2);
    parts.push(
      `<line class="threshold" x1="${CHART.left}" y1="${y}" x2="${CHART.width - CHART.right}" y2="${y}" data-value="${threshold}">` +
        `<title>threshold ${escapeHtml(num(threshold))}</title></line>`,
    );
  }
  [...series.values()].forEach((s, i) => {
    const color = SERIES_COLORS[i % SERIES_COLORS.length];
    const name = Object.keys(s.group).length
      ? Object.entries(s.group)
          .map(([k, v]) => `${k}=${String(v)}`)
          .join(", ")
      : "value";
    // A null (no data) breaks the line.
    const segments: string[][] = [[]];
    for (const p of s.points) {
      if (p.v === null) segments.push([]);
      else segments[segments.length - 1].push(`${scale.x(p.t).toFixed(2)},${scale.y(p.v).toFixed(2)}`);
    }
    parts.push(
      `<g class="series" data-group="${escapeHtml(JSON.stringify(s.group))}"><title>${escapeHtml(name)}</title>`,
    );
    for (const seg of segments.filter((x) => x.length > 0)) {
      if (seg.length === 1) {
        const [cx, cy] = seg[0].split(",");
        parts.push(`<circle cx="${cx}" cy="${cy}" r="2" fill="${color}"/>`);
      } else parts.push(`<polyline fill="none" stroke="${color}" points="${seg.join(" ")}"/>`);
    }
    parts.push(`</g>`);
  });
  for (const a of alerts) {
    const x = scale.x(a.timeMs);
    const words = describeAlertWords(a, startMs);
    const open = a.action === "Open";
    const tip = open
      ? `${x.toFixed(2)},${plotTop + 10} ${(x - 5).toFixed(2)},${plotTop} ${(x + 5).toFixed(2)},${plotTop}`
      : `${x.toFixed(2)},${plotTop} ${(x - 5).toFixed(2)},${plotTop + 10} ${(x + 5).toFixed(2)},${plotTop + 10}`;
    parts.push(
      `<g class="notification ${open ? "open" : "closed"}" data-action="${a.action}" data-time-ms="${a.timeMs}" data-x="${x.toFixed(2)}" ` +
        `data-notifiers="${escapeHtml(a.entries.map((e) => e.notifierKey).join(","))}">` +
        `<title>${escapeHtml(words)}</title>` +
        `<line x1="${x.toFixed(2)}" y1="${plotTop}" x2="${x.toFixed(2)}" y2="${plotBottom}"/>` +
        `<polygon points="${tip}"/></g>`,
    );
  }
  parts.push(`</svg>`);
  return parts.join("\n");
}

function describeAlertWords(a: GotAlert, startMs: number): string {
  const group = a.groupValues && a.groupValues.length ? ` for ${a.groupValues.join(", ")}` : "";
  const to = a.entries.map((e) => `${e.notifierKey} (${e.outcome})`).join(", ");
  return `${a.action} at ${formatOffset(a.timeMs - startMs)}${group}, to ${to || "no notifier"}`;
}

const STYLE = `
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px; color: #1f2328; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 32px; } h3 { font-size: 16px; margin: 24px 0 4px; }
.pass { color: #1a7f37; } .fail { color: #cf222e; }
table { border-collapse: collapse; margin: 8px 0; }
th, td { border: 1px solid #d0d7de; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
td.mark { font-weight: bold; }
.chart { display: block; background: #fff; border: 1px solid #d0d7de; }
.chart text { font-size: 11px; fill: #57606a; }
.chart .axis line { stroke: #8c959f; stroke-width: 1; }
.chart .alert-period { fill: #cf222e; fill-opacity: 0.16; }
.chart .threshold { stroke: #cf222e; stroke-width: 1.5; stroke-dasharray: 6 4; }
.chart polyline { stroke-width: 1.5; }
.chart .notification line { stroke-width: 1.5; }
.chart .notification.open line, .chart .notification.open polygon { stroke: #cf222e; fill: #cf222e; }
.chart .notification.closed line, .chart .notification.closed polygon { stroke: #1a7f37; fill: #1a7f37; }
.meta { color: #57606a; margin: 0 0 6px; }
`;

/** The whole page for the outcomes of one command's files. */
export function renderReport(outcomes: readonly RunOutcome[]): string {
  const passed = outcomes.filter((o) => o.comparison.ok).length;
  const failed = outcomes.length - passed;
  const title = `Alert tests: ${passed} passed, ${failed} failed`;
  const body: string[] = [];
  body.push(`<h1>${escapeHtml(title)}</h1>`);
  body.push(
    `<p id="summary" data-files="${outcomes.length}" data-passed="${passed}" data-failed="${failed}">` +
      `${outcomes.length} ${outcomes.length === 1 ? "file" : "files"}: <span class="pass">${passed} passed</span>, ` +
      `<span class="${failed ? "fail" : "pass"}">${failed} failed</span>.</p>`,
  );
  outcomes.forEach((o, fi) => {
    const { test, comparison, runs } = o;
    const endMs = test.startMs + test.untilMs;
    const fileId = `f${fi}`;
    body.push(
      `<section class="test-file" id="${fileId}" data-file="${escapeHtml(test.file)}" data-result="${comparison.ok ? "pass" : "fail"}">`,
      `<h2>${escapeHtml(test.file)}: <span class="${comparison.ok ? "pass" : "fail"}">${comparison.ok ? "PASS" : "FAIL"}</span></h2>`,
      `<p class="meta">From ${escapeHtml(new Date(test.startMs).toISOString())} for ${escapeHtml(formatOffset(test.untilMs).slice(1))}; ${test.events.length} events; ${runs.length} monitor runs; ${o.outbox.length} notifications sent.</p>`,
    );
    body.push(`<table class="expectations"><caption>Expected against got</caption>`);
    body.push(
      `<tr><th scope="col">Result</th><th scope="col">Line</th><th scope="col">Monitor</th><th scope="col">Action</th><th scope="col">Notifier</th><th scope="col">When</th><th scope="col">Want</th><th scope="col">Got</th><th scope="col">Sent at</th></tr>`,
    );
    for (const r of comparison.rows) {
      const e = r.expectation;
      body.push(
        `<tr class="${r.ok ? "pass" : "fail"}" data-ok="${r.ok}"><td class="mark">${r.ok ? "✓ pass" : "✗ fail"}</td><td>${e.line ?? ""}</td>` +
          `<td>${escapeHtml(e.monitorKey)}</td><td>${e.action ?? "Open"}</td><td>${escapeHtml(e.notifierKey ?? "(any)")}</td>` +
          `<td>${escapeHtml(describeWhen(r))}</td><td>${escapeHtml(r.wanted)}</td><td>${r.got.length}</td>` +
          `<td>${escapeHtml(r.got.map((g) => formatOffset(g.timeMs - test.startMs)).join(", ") || "-")}` +
          `${r.hints.length ? `<br>${r.hints.map(escapeHtml).join("<br>")}` : ""}</td></tr>`,
      );
    }
    for (const a of comparison.unexpected) {
      body.push(
        `<tr class="fail unexpected" data-ok="false"><td class="mark">✗ unexpected</td><td></td>` +
          `<td>${escapeHtml(a.monitorKey)}</td><td>${a.action}</td>` +
          `<td>${escapeHtml(a.entries.map((e) => `${e.notifierKey} (${e.outcome})`).join(", "))}</td>` +
          `<td colspan="3">not expected</td><td>${escapeHtml(formatOffset(a.timeMs - test.startMs))}` +
          `${a.groupValues && a.groupValues.length ? ` (group ${escapeHtml(a.groupValues.join(", "))})` : ""}</td></tr>`,
      );
    }
    body.push(`</table>`);

    const alerts = gotAlerts(o.outbox, o.facts);
    for (const m of test.model.monitors) {
      const id = `${fileId}-m-${slug(m.key)}`;
      const monitorRuns = runs.filter((r) => o.facts.monitorKeyOfId.get(r.monitorId) === m.key);
      const monitorAlerts = alerts.filter((a) => a.monitorKey === m.key);
      // A match monitor's alert never closes (DOCS match-monitors): each notification is one event, not a period.
      const periods = m.inputs.type === "MatchEvent" ? [] : alertPeriods(monitorRuns, endMs);
      const threshold =
        m.inputs.type === "Threshold" && m.inputs.threshold !== undefined
          ? Number(m.inputs.threshold)
          : undefined;
      const rule =
        m.inputs.type === "Threshold"
          ? `alert when the value is ${m.inputs.operator} ${num(Number(m.inputs.threshold))}`
          : m.inputs.type === "AnomalyDetection"
            ? `anomaly ${m.inputs.operator} the last ${m.inputs.compareDays} days, tolerance ${m.inputs.tolerance}% (the band is the emulator's, not drawn)`
            : "one notification per matching event";
      const errors = monitorRuns.filter((r) => r.state === "error");
      body.push(
        `<section class="monitor" id="${id}" data-monitor="${escapeHtml(m.key)}" data-type="${m.inputs.type}" ` +
          `data-runs="${monitorRuns.length}" data-periods="${periods.length}" data-notifications="${monitorAlerts.length}">`,
        `<h3>${escapeHtml(m.key)}: ${escapeHtml(m.inputs.name)}</h3>`,
        `<p class="meta">${escapeHtml(m.inputs.type)}, ${escapeHtml(rule)}; every ${m.inputs.intervalMinutes ?? 1} min over ${m.inputs.rangeMinutes ?? 1} min. ` +
          `${monitorRuns.length} runs, ${periods.length} alert ${periods.length === 1 ? "period" : "periods"}, ${monitorAlerts.length} ${monitorAlerts.length === 1 ? "notification" : "notifications"}` +
          `${errors.length ? `, <span class="fail">${errors.length} failed runs: ${escapeHtml(errors[0].error ?? "")}</span>` : ""}.</p>`,
        monitorChart(
          id,
          `${m.key}: run values${threshold === undefined ? "" : ` against the threshold ${num(threshold)}`}`,
          monitorRuns,
          monitorAlerts,
          periods,
          threshold,
          test.startMs,
          endMs,
        ),
      );
      body.push(
        `<table class="notifications"><caption>Notifications of ${escapeHtml(m.key)}</caption><tr><th scope="col">At</th><th scope="col">Action</th><th scope="col">Group</th><th scope="col">Sent to</th></tr>`,
      );
      for (const a of monitorAlerts) {
        body.push(
          `<tr data-time-ms="${a.timeMs}" data-action="${a.action}"><td>${escapeHtml(formatOffset(a.timeMs - test.startMs))}</td><td>${a.action}</td>` +
            `<td>${escapeHtml((a.groupValues ?? []).join(", ") || "-")}</td><td>${escapeHtml(a.entries.map((e) => `${e.notifierKey} (${e.outcome})`).join(", ") || "-")}</td></tr>`,
        );
      }
      if (monitorAlerts.length === 0) body.push(`<tr><td colspan="4">none</td></tr>`);
      body.push(`</table>`);
      body.push(
        `<table class="periods"><caption>Alert periods of ${escapeHtml(m.key)}</caption><tr><th scope="col">From</th><th scope="col">To</th></tr>`,
      );
      for (const p of periods)
        body.push(
          `<tr><td>${escapeHtml(formatOffset(p.fromMs - test.startMs))}</td><td>${p.closed ? escapeHtml(formatOffset(p.toMs - test.startMs)) : "still open at the end"}</td></tr>`,
        );
      if (periods.length === 0)
        body.push(
          `<tr><td colspan="2">${m.inputs.type === "MatchEvent" ? "none: a match monitor's alert never closes, each notification is one event" : "none"}</td></tr>`,
        );
      body.push(`</table>`);
      body.push(
        `<details><summary>Every run of ${escapeHtml(m.key)} (${monitorRuns.length})</summary><table class="runs"><tr><th scope="col">At</th><th scope="col">State</th><th scope="col">Values</th></tr>`,
      );
      for (const r of monitorRuns) {
        const vals = r.values.map(
          (v) =>
            `${Object.keys(v.group).length ? `${Object.values(v.group).map(String).join(",")}: ` : ""}${v.value === null ? "no data" : num(v.value)}`,
        );
        body.push(
          `<tr data-state="${r.state}"><td>${escapeHtml(formatOffset(Date.parse(r.time) - test.startMs))}</td><td>${r.state}</td><td>${escapeHtml(r.error ?? (vals.join("; ") || "-"))}</td></tr>`,
        );
      }
      body.push(`</table></details></section>`);
    }
    body.push(`</section>`);
  });
  return [
    `<!doctype html>`,
    `<html lang="en"><head><meta charset="utf-8">`,
    // Nothing may load from elsewhere, and nothing runs: the page is its own whole.
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`,
    `<meta name="viewport" content="width=device-width, initial-scale=1">`,
    `<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>`,
    `<body>`,
    ...body,
    `</body></html>`,
    ``,
  ].join("\n");
}
