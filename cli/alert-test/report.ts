/**
 * `--report FILE.html`: one self-contained page of what the tests ran. For each monitor, a chart of its run values
 * over the test's time against its threshold, the periods its alert was open shaded, each notification marked; under
 * it the same facts as tables (the chart's text fallback). Inline SVG and CSS only: no script, no external asset (the
 * page's Content-Security-Policy forbids both), so it opens from a CI artifact as it is.
 *
 * The alert periods are the judge's: one per alert, by its stable id, from the run that opened it to the run that
 * closed it (emulator/chart's alertPeriods over the runs' transitions), so each group of a grouped monitor has its
 * own, a silent close (`skipResolved`) ends one and a reopening starts another. A period's row and its alert's
 * notifications carry the id (`data-alert-id`).
 *
 * Every drawn element carries its facts as data attributes (`data-time-ms`, `data-from-ms`, `data-to-ms`) and a
 * `<title>` in words, and the chart carries its scale (`data-start-ms`, `data-end-ms`, `data-plot-x`,
 * `data-plot-width`), so a reader (a screen reader, or a test in a browser) can check that a mark sits where its
 * time says.
 */
import {
  alertPeriods,
  chartHtml,
  CHART_CSS,
  escapeHtml,
  formatValue as num,
  runChart,
  type AlertPeriod,
  standalonePage,
} from "../../emulator/chart";
import { formatOffset, gotAlerts, type GotAlert } from "./compare";
import { describeWhen, formatWarning, groupText } from "./print";
import type { RunOutcome } from "./run";

/** An id made of safe characters, unique with its prefix. */
function slug(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]+/g, "-").replace(/^-+|-+$/g, "") || "x";
}

function describeAlertWords(a: GotAlert, startMs: number): string {
  const group = a.groupValues && a.groupValues.length ? ` for ${a.groupValues.join(", ")}` : "";
  const to = a.entries.map((e) => `${e.notifierKey} (${e.outcome})`).join(", ");
  return `${a.action} at ${formatOffset(a.timeMs - startMs)}${group}, to ${to || "no notifier"}`;
}

/** An alert's stable id as a row's attribute (the history's `checkId`), so a reader can pair a period with its
 * notifications; nothing when there is none. */
function alertIdAttr(alertId: string | undefined): string {
  return alertId === undefined ? "" : ` data-alert-id="${escapeHtml(alertId)}"`;
}

/** A period's group as the tables write it: its values, or `-` for the monitor's one alert. */
function periodGroup(p: AlertPeriod): string {
  return p.groupValues && p.groupValues.length ? p.groupValues.join(", ") : "-";
}

const STYLE = `
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px; color: #1f2328; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 32px; } h3 { font-size: 16px; margin: 24px 0 4px; }
.pass { color: #1a7f37; } .fail { color: #cf222e; }
table { border-collapse: collapse; margin: 8px 0; }
th, td { border: 1px solid #d0d7de; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
td.mark { font-weight: bold; }
.meta { color: #57606a; margin: 0 0 6px; }
.warnings { border-left: 4px solid #bf8700; background: #fff8c5; padding: 4px 12px; margin: 8px 0; }
.warnings h3, .failures h3 { margin: 4px 0; }
.failures { border-left: 4px solid #cf222e; background: #ffebe9; padding: 4px 12px; margin: 8px 0; }
${CHART_CSS}`;

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
    // What the terminal prints under the table, first here: what failed while it ran, and the run's warnings.
    const { failures } = comparison;
    if (failures.length > 0)
      body.push(
        `<section class="failures" aria-labelledby="${fileId}-failures"><h3 id="${fileId}-failures" class="fail">Failed while it ran</h3>` +
          `<p>A test passes only if what it tests runs; <code>allow:</code> in the file lets it pass.</p><ul>`,
        ...failures.map((f) => `<li data-kind="${f.kind}">${escapeHtml(f.message)}</li>`),
        `</ul></section>`,
      );
    if (o.warnings.length > 0)
      body.push(
        `<section class="warnings" aria-labelledby="${fileId}-warnings"><h3 id="${fileId}-warnings">${o.warnings.length} ${o.warnings.length === 1 ? "warning" : "warnings"}</h3><ul>`,
        ...o.warnings.map((w) => `<li data-kind="${w.kind}">${escapeHtml(formatWarning(w))}</li>`),
        `</ul></section>`,
      );
    body.push(`<table class="expectations"><caption>Expected against got</caption>`);
    body.push(
      `<tr><th scope="col">Result</th><th scope="col">Line</th><th scope="col">Monitor</th><th scope="col">Action</th><th scope="col">Group</th><th scope="col">Notifier</th><th scope="col">When</th><th scope="col">Want</th><th scope="col">Got</th><th scope="col">Sent at</th></tr>`,
    );
    for (const r of comparison.rows) {
      const e = r.expectation;
      body.push(
        `<tr class="${r.ok ? "pass" : "fail"}" data-ok="${r.ok}"><td class="mark">${r.ok ? "✓ pass" : "✗ fail"}</td><td>${e.line ?? ""}</td>` +
          `<td>${escapeHtml(e.monitorKey)}</td><td>${e.action ?? "Open"}</td><td class="group">${escapeHtml(groupText(e.group))}</td><td>${escapeHtml(e.notifierKey ?? "(any)")}</td>` +
          `<td>${escapeHtml(describeWhen(r))}</td><td>${escapeHtml(r.wanted)}</td><td>${r.got.length}</td>` +
          `<td>${escapeHtml(r.got.map((g) => formatOffset(g.timeMs - test.startMs)).join(", ") || "-")}` +
          `${r.hints.length ? `<br>${r.hints.map(escapeHtml).join("<br>")}` : ""}</td></tr>`,
      );
    }
    for (const a of comparison.unexpected) {
      body.push(
        `<tr class="fail unexpected" data-ok="false"${alertIdAttr(a.alertId)}><td class="mark">✗ unexpected</td><td></td>` +
          `<td>${escapeHtml(a.monitorKey)}</td><td>${a.action}</td><td class="group">${escapeHtml((a.groupValues ?? []).join(",") || "-")}</td>` +
          `<td>${escapeHtml(a.entries.map((e) => `${e.notifierKey} (${e.outcome})`).join(", "))}</td>` +
          `<td colspan="3">not expected</td><td>${escapeHtml(formatOffset(a.timeMs - test.startMs))}</td></tr>`,
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
        chartHtml(
          runChart({
            id,
            label: `${m.key}: run values${threshold === undefined ? "" : ` against the threshold ${num(threshold)}`}`,
            startMs: test.startMs,
            endMs,
            runs: monitorRuns,
            threshold,
            periods,
            marks: monitorAlerts.map((a) => ({
              timeMs: a.timeMs,
              action: a.action,
              words: describeAlertWords(a, test.startMs),
              notifiers: a.entries.map((e) => e.notifierKey),
            })),
            timeLabel: (t) => formatOffset(t - test.startMs),
            openEnd: "the end of the test",
          }),
        ),
      );
      body.push(
        `<table class="notifications"><caption>Notifications of ${escapeHtml(m.key)}</caption><tr><th scope="col">At</th><th scope="col">Action</th><th scope="col">Group</th><th scope="col">Sent to</th></tr>`,
      );
      for (const a of monitorAlerts) {
        body.push(
          `<tr data-time-ms="${a.timeMs}" data-action="${a.action}"${alertIdAttr(a.alertId)}><td>${escapeHtml(formatOffset(a.timeMs - test.startMs))}</td><td>${a.action}</td>` +
            `<td>${escapeHtml((a.groupValues ?? []).join(", ") || "-")}</td><td>${escapeHtml(a.entries.map((e) => `${e.notifierKey} (${e.outcome})`).join(", ") || "-")}</td></tr>`,
        );
      }
      if (monitorAlerts.length === 0) body.push(`<tr><td colspan="4">none</td></tr>`);
      body.push(`</table>`);
      body.push(
        `<table class="periods"><caption>Alert periods of ${escapeHtml(m.key)}</caption><tr><th scope="col">Group</th><th scope="col">From</th><th scope="col">To</th></tr>`,
      );
      for (const p of periods)
        body.push(
          `<tr data-from-ms="${p.fromMs}"${alertIdAttr(p.alertId)}><td class="group">${escapeHtml(periodGroup(p))}</td><td>${escapeHtml(formatOffset(p.fromMs - test.startMs))}</td><td>${p.closed ? escapeHtml(formatOffset(p.toMs - test.startMs)) : "still open at the end"}</td></tr>`,
        );
      if (periods.length === 0)
        body.push(
          `<tr><td colspan="3">${m.inputs.type === "MatchEvent" ? "none: a match monitor's alert never closes, each notification is one event" : "none"}</td></tr>`,
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
  return standalonePage(title, STYLE, body);
}
