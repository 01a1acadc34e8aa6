/**
 * The backtest's HTML report (`--report`) in a real browser (headless Chromium over the DevTools protocol, as the
 * alert-test report is tested): after layout, each monitor's chart shades its alert periods where the JSON's
 * alerts put them on the axis, marks each notification at its time, and the page loads nothing and runs nothing.
 * Against a base (`--base`), each monitor's one chart shows both sides: both thresholds drawn and labelled, the
 * base's alert periods hatched where its alerts were, and the legend naming every line, threshold and shading.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ObservabilityClient } from "../../provider/client";
import { runBacktest } from "../../cli/commands/backtest";
import type { BacktestReport, MonitorDiff, MonitorSummary } from "../../cli/backtest/report";
import { Browser, chromiumPath } from "../helpers/chromium";
import { api, useEmulator } from "../helpers/emulator";

const T0 = Date.UTC(2026, 0, 10, 12, 0, 0);
const at = (minutes: number, seconds = 0) => new Date(T0 + minutes * 60_000 + seconds * 1000).toISOString();
const em = useEmulator({ clock: "manual", now: at(120), datasets: ["web"] });
let dir: string;
let json: BacktestReport;
let diffJson: BacktestReport;
let browser: Browser | undefined;
const requests: string[] = [];
/** Where a chart sits on the page and the span its plot draws: what turns a time into a pixel. */
interface ChartBox {
  left: number;
  width: number;
  startMs: number;
  endMs: number;
  plotX: number;
  plotWidth: number;
  viewWidth: number;
}
let shown: {
  scripts: number;
  monitors: {
    monitor: string;
    svg: ChartBox;
    periods: { left: number; right: number; fromMs: number; toMs: number; group: string }[];
    notifications: { x: number; timeMs: number; action: string }[];
  }[];
};
/** What the report against a base shows, read after layout. */
let overlay: {
  charts: number;
  scripts: number;
  svg: ChartBox;
  thresholds: { value: number; sides: string; y: number; dash: string }[];
  labels: { text: string; width: number; y: number }[];
  periods: { side: string; fill: string; left: number; right: number; fromMs: number; toMs: number }[];
  legend: string[];
  described: string;
};

beforeAll(async () => {
  const executable = chromiumPath();
  dir = mkdtempSync(join(tmpdir(), "backtest-report-"));
  // Two incidents on route /pay: minutes 5 to 7 and 20 to 21; a quiet route beside it.
  const events = [
    ...Array.from({ length: 40 }, (_, i) => ({ _time: at(i, 30), status: 200, route: "/home" })),
    ...[5, 6, 7, 20, 21].flatMap((m) =>
      Array.from({ length: 4 }, (_, i) => ({ _time: at(m, 5 + i), status: 503, route: "/pay" })),
    ),
  ];
  expect((await api(em.current, "POST", "/v1/datasets/web/ingest", events)).status).toBe(200);
  writeFileSync(
    join(dir, "m.test.yaml"),
    `until: 1h
datasets: [web]
notifiers:
  oncall: { name: On-call, properties: { webhook: { url: "http://127.0.0.1:9/hook" } } }
monitors:
  by-route:
    name: Server errors by route
    type: Threshold
    aplQuery: "['web'] | where status >= 500 | summarize count() by route, bin(_time, 1m)"
    operator: Above
    threshold: 3
    notifyByGroup: true
    notifierIds: [oncall]
expect: []
`,
  );
  // The base: the same monitor paging on any error.
  writeFileSync(
    join(dir, "base.test.yaml"),
    readFileSync(join(dir, "m.test.yaml"), "utf8").replace("threshold: 3", "threshold: 1"),
  );
  const client = new ObservabilityClient({ url: em.current.url, token: em.current.token });
  const report = join(dir, "report.html");
  const diffPage = join(dir, "diff.html");
  let text = "";
  let diffText = "";
  try {
    await runBacktest(
      join(dir, "m.test.yaml"),
      { monitor: [], from: at(0), to: at(30), maxEvents: 1000, format: "json", report } as never,
      { client, out: (t) => (text += t), nowMs: T0 + 120 * 60_000 },
    );
    await runBacktest(
      join(dir, "m.test.yaml"),
      {
        monitor: [],
        from: at(0),
        to: at(30),
        maxEvents: 1000,
        format: "json",
        report: diffPage,
        base: join(dir, "base.test.yaml"),
      } as never,
      { client, out: (t) => (diffText += t), nowMs: T0 + 120 * 60_000 },
    );
  } finally {
    await client.close();
  }
  json = JSON.parse(text) as BacktestReport;
  diffJson = JSON.parse(diffText) as BacktestReport;
  expect(readFileSync(report, "utf8")).toContain("<!doctype html>");

  browser = await Browser.launch(executable);
  browser.on((method, params) => {
    if (method === "Network.requestWillBeSent") requests.push((params.request as { url: string }).url);
  });
  await browser.send("Network.enable");
  await browser.send("Page.enable");
  const loaded = browser.waitFor("Page.loadEventFired");
  await browser.send("Page.navigate", { url: pathToFileURL(report).href });
  await loaded;
  shown = await browser.evaluate(`(() => ({
    scripts: document.scripts.length,
    monitors: [...document.querySelectorAll("section.monitor")].map((section) => {
      const svg = section.querySelector("svg.chart");
      const r = svg.getBoundingClientRect();
      return {
        monitor: section.dataset.monitor,
        svg: { left: r.left, width: r.width, startMs: +svg.dataset.startMs, endMs: +svg.dataset.endMs, plotX: +svg.dataset.plotX, plotWidth: +svg.dataset.plotWidth, viewWidth: svg.viewBox.baseVal.width },
        periods: [...svg.querySelectorAll("rect.alert-period")].map((rect) => {
          const b = rect.getBoundingClientRect();
          return { left: b.left, right: b.right, fromMs: +rect.dataset.fromMs, toMs: +rect.dataset.toMs, group: rect.dataset.group };
        }),
        notifications: [...svg.querySelectorAll("g.notification")].map((g) => {
          const b = g.querySelector("line").getBoundingClientRect();
          return { x: (b.left + b.right) / 2, timeMs: +g.dataset.timeMs, action: g.dataset.action };
        }),
      };
    }),
  }))()`);

  const diffLoaded = browser.waitFor("Page.loadEventFired");
  await browser.send("Page.navigate", { url: pathToFileURL(diffPage).href });
  await diffLoaded;
  overlay = await browser.evaluate(`(() => {
    const svg = document.querySelector("section.monitor svg.chart");
    const r = svg.getBoundingClientRect();
    return {
      charts: document.querySelectorAll("section.monitor svg.chart").length,
      scripts: document.scripts.length,
      svg: { left: r.left, width: r.width, startMs: +svg.dataset.startMs, endMs: +svg.dataset.endMs, plotX: +svg.dataset.plotX, plotWidth: +svg.dataset.plotWidth, viewWidth: svg.viewBox.baseVal.width },
      thresholds: [...svg.querySelectorAll("line.threshold")].map((l) => ({
        value: +l.dataset.value, sides: l.dataset.sides, y: l.getBoundingClientRect().top, dash: getComputedStyle(l).strokeDasharray,
      })),
      labels: [...svg.querySelectorAll("text.threshold-label")].map((t) => ({
        text: t.textContent, width: t.getBoundingClientRect().width, y: t.getBoundingClientRect().top,
      })),
      periods: [...svg.querySelectorAll("rect.alert-period")].map((rect) => {
        const b = rect.getBoundingClientRect();
        return { side: rect.dataset.side, fill: getComputedStyle(rect).fill, left: b.left, right: b.right, fromMs: +rect.dataset.fromMs, toMs: +rect.dataset.toMs };
      }),
      legend: [...document.getElementById(svg.getAttribute("aria-describedby")).querySelectorAll("li")].map((li) => li.textContent),
      described: svg.getAttribute("aria-describedby"),
    };
  })()`);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the backtest's report in a browser", () => {
  it("shades each alert where the JSON's alerts say, at the right place on the axis", () => {
    const m = json.monitors[0] as MonitorSummary;
    // /pay's bursts: open at :06 (minute 5's four errors), closed at :09; open at :21, closed at :23.
    expect(m.alerts).toEqual([
      {
        id: expect.any(String),
        group: { route: "/pay" },
        open: "2026-01-10T12:06:00Z",
        close: "2026-01-10T12:09:00Z",
      },
      {
        id: expect.any(String),
        group: { route: "/pay" },
        open: "2026-01-10T12:21:00Z",
        close: "2026-01-10T12:23:00Z",
      },
    ]);
    const [chart] = shown.monitors;
    expect(chart.monitor).toBe("by-route");
    expect(chart.periods.map((p) => [p.fromMs, p.toMs])).toEqual(
      m.alerts.map((a) => [Date.parse(a.open), Date.parse(a.close!)]),
    );
    // Each period names its group, as the judge's transitions give it (the chart's data-group).
    expect(chart.periods.map((p) => p.group)).toEqual(["/pay", "/pay"]);
    const { svg } = chart;
    const scale = svg.width / svg.viewWidth;
    const xOf = (t: number) =>
      svg.left + (svg.plotX + ((t - svg.startMs) / (svg.endMs - svg.startMs)) * svg.plotWidth) * scale;
    for (const p of chart.periods) {
      expect(Math.abs(p.left - xOf(p.fromMs))).toBeLessThan(1.5);
      expect(Math.abs(p.right - xOf(p.toMs))).toBeLessThan(1.5);
    }
  });

  it("marks each notification at its time, and loads and runs nothing", () => {
    const [chart] = shown.monitors;
    const m = json.monitors[0] as MonitorSummary;
    expect(chart.notifications.map((n) => `${n.action} ${new Date(n.timeMs).toISOString()}`)).toEqual(
      m.notifications.map((n) => `${n.action} ${new Date(n.time).toISOString()}`),
    );
    const { svg } = chart;
    const scale = svg.width / svg.viewWidth;
    for (const n of chart.notifications) {
      const x =
        svg.left +
        (svg.plotX + ((n.timeMs - svg.startMs) / (svg.endMs - svg.startMs)) * svg.plotWidth) * scale;
      expect(Math.abs(n.x - x)).toBeLessThan(1.5);
    }
    expect(shown.scripts).toBe(0);
    expect(requests.filter((u) => !u.startsWith("file:"))).toEqual([]);
  });
});

describe("the backtest's report against a base, in a browser", () => {
  it("draws base and head on one chart, both thresholds drawn, labelled and told apart", () => {
    expect(overlay.charts).toBe(1);
    expect(overlay.scripts).toBe(0);
    const t = [...overlay.thresholds].sort((a, b) => a.value - b.value);
    expect(t.map((x) => [x.value, x.sides])).toEqual([
      [1, "base"],
      [3, "head"],
    ]);
    // The higher threshold sits higher on the page, and the two lines' dash patterns differ.
    expect(t[1].y).toBeLessThan(t[0].y);
    expect(t[0].dash).not.toBe(t[1].dash);
    expect(overlay.labels.map((l) => l.text).sort()).toEqual(["base threshold 1", "head threshold 3"]);
    for (const l of overlay.labels) expect(l.width).toBeGreaterThan(0);
  });

  it("shades the base's alert periods apart from the head's, each where its side's alerts were", () => {
    const m = diffJson.monitors[0] as MonitorDiff;
    const { svg } = overlay;
    const scale = svg.width / svg.viewWidth;
    const xOf = (t: number) =>
      svg.left + (svg.plotX + ((t - svg.startMs) / (svg.endMs - svg.startMs)) * svg.plotWidth) * scale;
    for (const side of ["head", "base"] as const) {
      const periods = overlay.periods.filter((p) => p.side === side);
      expect(periods.map((p) => [p.fromMs, p.toMs])).toEqual(
        m[side]!.alerts.map((a) => [Date.parse(a.open), Date.parse(a.close!)]),
      );
      expect(periods.length).toBeGreaterThan(0);
      for (const p of periods) {
        expect(Math.abs(p.left - xOf(p.fromMs))).toBeLessThan(1.5);
        expect(Math.abs(p.right - xOf(p.toMs))).toBeLessThan(1.5);
      }
    }
    // The base's periods take the hatching pattern; the head's keep the usual flat shading.
    expect(overlay.periods.filter((p) => p.side === "base").every((p) => p.fill.startsWith("url("))).toBe(
      true,
    );
    expect(overlay.periods.filter((p) => p.side === "head").every((p) => p.fill.startsWith("rgb("))).toBe(
      true,
    );
  });

  it("names every line, both thresholds and both shadings in the chart's legend", () => {
    expect(overlay.described).toBeTruthy();
    const named = (start: string) => overlay.legend.some((item) => item.startsWith(start));
    // Only /pay has errors, so one line a side.
    expect(overlay.legend).toHaveLength(2 + 2 + 2 + 2);
    for (const name of [
      "head route=/pay",
      "base route=/pay",
      "head threshold 3",
      "base threshold 1",
      "head alert open",
      "base alert open",
      "head notifications",
      "base notifications",
    ])
      expect(named(name)).toBe(true);
  });
});
