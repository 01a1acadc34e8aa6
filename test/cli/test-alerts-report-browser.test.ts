/**
 * The alert-test report in a real browser: headless Chromium (Debian's package, installed by
 * scripts/install-chromium.sh when absent), driven over the DevTools protocol with undici's WebSocket. After layout,
 * the page must show what the run did: each monitor's chart with its alert periods shaded and each notification
 * marked where its time puts it on the chart's axis, the names and counts in words, and nothing loaded from
 * anywhere or run (no script, no request besides the page itself).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Browser, chromiumPath } from "../helpers/chromium";
import { testAlerts, type TestAlertsResult } from "../../cli/commands/test-alerts";
import { renderReport } from "../../cli/alert-test/report";

/** A 40-minute run: a threshold monitor over an error burst, a match monitor firing twice, a monitor never alerting. */
const FILE = `start: 2024-06-03T00:00:00Z
until: 40m
notifiers:
  slack: { name: "On-call <Slack>", properties: { slack: { slackUrl: "https://hooks.slack.com/services/T/B/X" } } }
monitors:
  errors:
    name: Errors above 5 a minute
    type: Threshold
    aplQuery: "['web'] | where status >= 500 | summarize count() by bin(_time, 1m)"
    operator: Above
    threshold: 5
    rangeMinutes: 5
    notifierIds: [slack]
  fatal:
    name: Fatal lines
    type: MatchEvent
    aplQuery: "['app'] | where level == 'fatal'"
    notifierIds: [slack]
  by-route:
    name: Server errors by route
    type: Threshold
    aplQuery: "['shop'] | where status >= 500 | summarize count() by route, bin(_time, 1m)"
    operator: Above
    threshold: 5
    rangeMinutes: 5
    notifyByGroup: true
  calm:
    name: Never alerts
    type: Threshold
    aplQuery: "['web'] | summarize count() by bin(_time, 1m)"
    operator: Above
    threshold: 100000
events:
  - generate:
      dataset: web
      rate: 60/m
      for: 40m
      fields: { status: 200 }
      mix: [{ share: 20%, from: 10m, for: 5m, fields: { status: 503 } }]
  - { at: 25m, dataset: app, event: { level: fatal }, times: 2, every: 5m }
  # Two routes' bursts: /checkout's twice, with runs between them where its group has no value at all.
  - generate:
      dataset: shop
      rate: 60/m
      for: 40m
      fields: { status: 200, route: /home }
      mix:
        - { share: 20%, from: 10m, for: 5m, fields: { status: 503, route: /checkout } }
        - { share: 20%, from: 20m, for: 4m, fields: { status: 503, route: "<i>search</i>" } }
        - { share: 20%, from: 30m, for: 3m, fields: { status: 503, route: /checkout } }
expect:
  - { monitor: errors, action: Open, by: 12m }
  - { monitor: errors, action: Closed, by: 21m }
  - { monitor: fatal, count: 2 }
  - { monitor: calm, never: true }
  - { monitor: by-route, group: { route: /checkout }, count: 2 }
  - { monitor: by-route, action: Closed, group: { route: /checkout }, count: 2 }
  - { monitor: by-route, group: { route: "<i>search</i>" } }
  - { monitor: by-route, action: Closed, group: { route: "<i>search</i>" } }
`;

interface Mark {
  left: number;
  right: number;
  top: number;
  bottom: number;
}
interface ShownMonitor {
  monitor: string;
  heading: string;
  svg: Mark & { startMs: number; endMs: number; plotX: number; plotWidth: number; viewWidth: number };
  label: string;
  periods: (Mark & {
    fromMs: number;
    toMs: number;
    fill: string;
    opacity: number;
    title: string;
    hit: string;
  })[];
  notifications: (Mark & { timeMs: number; action: string; lineX: number; title: string })[];
  notificationRows: number;
  series: { group: string; polylines: number; dots: number; dash: string; stroke: string; title: string }[];
  legend: { text: string; swatchDash: string; swatchStroke: string; hidden: string | null }[];
  describedBy: string;
  periodRows: string[][];
}

let dir: string;
let result: TestAlertsResult;
let browser: Browser | undefined;
let shown: {
  title: string;
  summary: string;
  scripts: number;
  monitors: ShownMonitor[];
  expectationRows: string[];
  expectationHead: string[];
  expectationGroups: string[];
  warnings: string[];
  failures: string[];
  elementsInText: number;
};
/** The chart's accessible names and descriptions as Chromium computes them for assistive technology. */
let accessible: { role: string; name: string; description: string }[];
const requests: string[] = [];

beforeAll(async () => {
  const executable = chromiumPath();
  dir = mkdtempSync(join(tmpdir(), "alert-report-"));
  writeFileSync(join(dir, "alerts.test.yaml"), FILE);
  const written = join(dir, "written.html");
  result = await testAlerts(["alerts.test.yaml"], {
    cwd: dir,
    report: written,
    out: () => undefined,
    err: () => undefined,
  });
  expect(result.code).toBe(0);
  // The page shown is the one the command wrote, with warnings added as a run gives them (a failed run, a stand-in
  // notifier), one holding HTML: the same renderer writes both.
  expect(readFileSync(written, "utf8")).toBe(renderReport(result.outcomes));
  const report = join(dir, "report.html");
  writeFileSync(
    report,
    renderReport(
      result.outcomes.map((o) =>
        Object.assign({}, o, {
          comparison: {
            ...o.comparison,
            failures: [
              {
                kind: "query-failed" as const,
                monitor: "errors",
                failed: 1,
                of: 40,
                firstMs: Date.parse("2024-06-03T00:03:00Z"),
                error: "<b>boom</b>",
                message: "monitor errors: 1 of 40 runs failed, the first at +3m: <b>boom</b>",
              },
            ],
          },
          warnings: [
            ...o.warnings,
            {
              kind: "stand-in",
              notifier: "pager",
              file: "alerts.test.yaml",
              line: 4,
              column: 3,
              message: "notifier pager runs as a stand-in: its properties are [secret] in the preview",
            },
            {
              kind: "allowed",
              monitor: "errors",
              message: "1 run of <b>errors</b> failed, allowed by allow:",
            },
          ],
        }),
      ),
    ),
  );

  browser = await Browser.launch(executable);
  browser.on((method, params) => {
    if (method === "Network.requestWillBeSent") requests.push((params.request as { url: string }).url);
  });
  await browser.send("Network.enable");
  await browser.send("Page.enable");
  const loaded = browser.waitFor("Page.loadEventFired");
  await browser.send("Page.navigate", { url: pathToFileURL(report).href });
  await loaded;
  // Everything below is read from the laid-out page: positions from getBoundingClientRect, colours from the
  // computed style, and what a pointer at a spot would hit from elementFromPoint.
  shown = await browser.evaluate(`(() => {
    const box = (el) => { const r = el.getBoundingClientRect(); return { left: r.left, right: r.right, top: r.top, bottom: r.bottom }; };
    const titleOf = (el) => el.querySelector(":scope > title")?.textContent ?? "";
    return {
      title: document.title,
      summary: document.getElementById("summary").textContent,
      scripts: document.scripts.length,
      expectationRows: [...document.querySelectorAll("table.expectations tr[data-ok]")].map((tr) => tr.textContent),
      expectationHead: [...document.querySelectorAll("table.expectations th")].map((th) => th.textContent),
      expectationGroups: [...document.querySelectorAll("table.expectations tr[data-ok] td.group")].map((td) => td.textContent),
      warnings: [...document.querySelectorAll("section.warnings li")].map((li) => li.textContent),
      failures: [...document.querySelectorAll("section.failures li")].map((li) => li.textContent),
      // Names holding markup are text: no <b> or <i> element anywhere in the page.
      elementsInText: document.querySelectorAll("b, i").length,
      monitors: [...document.querySelectorAll("section.monitor")].map((section) => {
        const svg = section.querySelector("svg.chart");
        // In view, so that what a pointer would hit can be asked; every box of this chart is read at this scroll.
        svg.scrollIntoView({ block: "center" });
        const viewWidth = svg.viewBox.baseVal.width;
        return {
          monitor: section.dataset.monitor,
          heading: section.querySelector("h3").textContent,
          label: [...svg.getAttribute("aria-labelledby").split(" ")].map((id) => document.getElementById(id).textContent).join(" | "),
          svg: { ...box(svg), startMs: +svg.dataset.startMs, endMs: +svg.dataset.endMs, plotX: +svg.dataset.plotX, plotWidth: +svg.dataset.plotWidth, viewWidth },
          periods: [...svg.querySelectorAll("rect.alert-period")].map((rect) => {
            const b = box(rect);
            const style = getComputedStyle(rect);
            const hit = document.elementFromPoint((b.left + b.right) / 2, b.bottom - 3);
            return { ...b, fromMs: +rect.dataset.fromMs, toMs: +rect.dataset.toMs, fill: style.fill, opacity: +style.fillOpacity, title: titleOf(rect), hit: hit ? hit.tagName + "." + hit.getAttribute("class") : "" };
          }),
          notifications: [...svg.querySelectorAll("g.notification")].map((g) => {
            const line = box(g.querySelector("line"));
            return { ...box(g), timeMs: +g.dataset.timeMs, action: g.dataset.action, lineX: (line.left + line.right) / 2, title: titleOf(g) };
          }),
          notificationRows: section.querySelectorAll("table.notifications tr[data-time-ms]").length,
          series: [...svg.querySelectorAll("g.series")].map((g) => {
            const line = g.querySelector("polyline");
            return { group: g.dataset.group, polylines: g.querySelectorAll("polyline").length, dots: g.querySelectorAll("circle").length, dash: line ? getComputedStyle(line).strokeDasharray : "", stroke: line ? getComputedStyle(line).stroke : "", title: titleOf(g) };
          }),
          legend: [...section.querySelectorAll("ul.legend li")].map((li) => {
            const swatch = li.querySelector("svg.swatch");
            const line = swatch.querySelector("line");
            return { text: li.textContent, swatchDash: getComputedStyle(line).strokeDasharray, swatchStroke: getComputedStyle(line).stroke, hidden: swatch.getAttribute("aria-hidden") };
          }),
          describedBy: (svg.getAttribute("aria-describedby") ?? "").split(" ").filter(Boolean).map((id) => document.getElementById(id).textContent).join(" | "),
          periodRows: [...section.querySelectorAll("table.periods tr[data-from-ms]")].map((tr) => [...tr.cells].map((td) => td.textContent)),
        };
      }),
    };
  })()`);
  await browser.send("Accessibility.enable");
  const { nodes } = (await browser.send("Accessibility.getFullAXTree")) as {
    nodes: { role?: { value: string }; name?: { value: string }; description?: { value: string } }[];
  };
  accessible = nodes
    .filter((n) => n.role?.value === "image")
    .map((n) => ({
      role: n.role!.value,
      name: n.name?.value ?? "",
      description: n.description?.value ?? "",
    }));
}, 180_000);

afterAll(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Where on the screen a time falls on a chart, by the scale the chart states. */
function screenX(m: ShownMonitor, timeMs: number): number {
  const { svg } = m;
  const scale = (svg.right - svg.left) / svg.viewWidth;
  return (
    svg.left + (svg.plotX + ((timeMs - svg.startMs) / (svg.endMs - svg.startMs)) * svg.plotWidth) * scale
  );
}

const byName = (name: string) => shown.monitors.find((m) => m.monitor === name)!;

it("is one page: nothing requested but itself, no script", () => {
  expect(requests).toEqual([expect.stringMatching(/^file:\/\/.*report\.html$/)]);
  expect(shown.scripts).toBe(0);
  expect(shown.title).toBe("Alert tests: 1 passed, 0 failed");
  expect(shown.summary).toBe("1 file: 1 passed, 0 failed.");
  expect(shown.expectationRows).toHaveLength(8);
  expect(shown.expectationRows.every((row) => row.startsWith("✓ pass"))).toBe(true);
});

it("one chart per monitor, named in its heading and in its accessible label", () => {
  expect(shown.monitors.map((m) => m.monitor)).toEqual(["errors", "fatal", "by-route", "calm"]);
  expect(byName("errors").heading).toBe("errors: Errors above 5 a minute");
  expect(byName("errors").label).toMatch(
    /^errors: run values against the threshold 5 \| 40 runs from \+0s to \+40m; 1 alert period; 2 notifications; threshold 5$/,
  );
  for (const m of shown.monitors) expect(m.svg.right - m.svg.left).toBeGreaterThan(500);
});

it("the burst's alert period is shaded from its Open to its Close, where their times fall on the axis", () => {
  const m = byName("errors");
  const outcome = result.outcomes[0];
  const alerts = outcome.outbox.filter((e) => outcome.facts.monitorKeyOfId.get(e.monitorId) === "errors");
  const open = Date.parse(alerts.find((a) => a.action === "Open")!.time);
  const closed = Date.parse(alerts.find((a) => a.action === "Closed")!.time);
  expect(m.periods).toHaveLength(1);
  const [period] = m.periods;
  expect([period.fromMs, period.toMs]).toEqual([open, closed]);
  expect(period.left).toBeCloseTo(screenX(m, open), 0);
  expect(period.right).toBeCloseTo(screenX(m, closed), 0);
  // Painted: a visible fill, and what a pointer inside it hits is the shaded period.
  expect(period.fill).toBe("rgb(207, 34, 46)");
  expect(period.opacity).toBeGreaterThan(0.05);
  expect(period.hit).toBe("rect.alert-period");
  expect(period.title).toBe("alert open from +11m to +20m");
});

it("each notification is marked at its time, Open and Closed told apart, in the table too", () => {
  const m = byName("errors");
  expect(m.notifications.map((n) => [n.action, n.title])).toEqual([
    ["Open", "Open at +11m, to slack (delivered)"],
    ["Closed", "Closed at +20m, to slack (delivered)"],
  ]);
  for (const n of m.notifications) {
    expect(n.lineX).toBeCloseTo(screenX(m, n.timeMs), 0);
    expect(n.bottom - n.top).toBeGreaterThan(100);
  }
  expect(m.notificationRows).toBe(2);

  const fatal = byName("fatal");
  expect(fatal.periods).toEqual([]);
  expect(fatal.notifications.map((n) => n.title)).toEqual([
    "Open at +26m, to slack (delivered)",
    "Open at +31m, to slack (delivered)",
  ]);
  expect(fatal.notifications[1].lineX - fatal.notifications[0].lineX).toBeCloseTo(
    screenX(fatal, 5 * 60_000) - screenX(fatal, 0),
    0,
  );

  const calm = byName("calm");
  expect([calm.periods.length, calm.notifications.length, calm.notificationRows]).toEqual([0, 0, 0]);
});

it("rule: the expectations table has the terminal's group column", () => {
  expect(shown.expectationHead).toEqual([
    "Result",
    "Line",
    "Monitor",
    "Action",
    "Group",
    "Notifier",
    "When",
    "Want",
    "Got",
    "Sent at",
  ]);
  expect(shown.expectationGroups).toEqual([
    "-",
    "-",
    "-",
    "-",
    "route=/checkout",
    "route=/checkout",
    "route=<i>search</i>",
    "route=<i>search</i>",
  ]);
});

it("rule: the alert periods table names each period's group, so two groups' rows differ", () => {
  const m = byName("by-route");
  expect(m.periodRows).toEqual([
    ["/checkout", "+11m", "+20m"],
    ["<i>search</i>", "+21m", "+29m"],
    ["/checkout", "+31m", "+38m"],
  ]);
  expect(m.periods.map((p) => p.title)).toEqual([
    "alert open for /checkout from +11m to +20m",
    "alert open for <i>search</i> from +21m to +29m",
    "alert open for /checkout from +31m to +38m",
  ]);
  expect(byName("errors").periodRows).toEqual([["-", "+11m", "+20m"]]);
});

it("rule: a group's line breaks at each run where it has no data, never joined across the gap", () => {
  const m = byName("by-route");
  const checkout = m.series.find((s) => s.group === JSON.stringify({ route: "/checkout" }))!;
  // Two bursts, two pieces: nothing drawn across the runs between them where /checkout had no value.
  expect(checkout.polylines).toBe(2);
  const search = m.series.find((s) => s.group === JSON.stringify({ route: "<i>search</i>" }))!;
  expect(search.polylines).toBe(1);
});

it("rule: a legend names each group's line by its pattern in words, not by colour alone, for a screen reader too", () => {
  const m = byName("by-route");
  expect(m.legend.map((l) => l.text)).toEqual([
    "route=/checkout (solid blue line, broken at 22 runs without data)",
    "route=<i>search</i> (dashed purple line, broken at 31 runs without data)",
  ]);
  // The two lines differ in pattern as well as colour, and each swatch repeats its line's look.
  expect(m.series.map((s) => s.dash)).toEqual(["none", "10px, 4px"]);
  expect(m.legend.map((l) => [l.swatchDash, l.swatchStroke])).toEqual(
    m.series.map((s) => [s.dash, s.stroke]),
  );
  expect(m.legend.every((l) => l.hidden === "true")).toBe(true);
  expect(m.describedBy).toBe(m.legend.map((l) => l.text).join(""));
  // What assistive technology gets: the chart as an image named by its title and description, described by the legend.
  const chart = accessible.find((a) => a.name.startsWith("by-route:"))!;
  expect(chart.name).toMatch(
    /^by-route: run values against the threshold 5 .*2 lines, one per group, named in the legend$/,
  );
  expect(chart.description).toContain("route=/checkout (solid blue line");
  expect(chart.description).toContain("route=<i>search</i> (dashed purple line");
});

it("rule: the run's warnings and what failed while it ran are listed in the report, as text", () => {
  expect(shown.failures).toEqual(["monitor errors: 1 of 40 runs failed, the first at +3m: <b>boom</b>"]);
  expect(shown.warnings).toEqual([
    "alerts.test.yaml:4:3: notifier pager runs as a stand-in: its properties are [secret] in the preview",
    "1 run of <b>errors</b> failed, allowed by allow:",
  ]);
  expect(shown.elementsInText).toBe(0);
});
