/**
 * The backtest's HTML report against a base (`--report` with `--base`): a monitor on both sides is one chart with
 * the head's and the base's lines, both thresholds labelled, both sides' alert periods shaded apart and both
 * sides' notifications marked, every one named in the legend; a monitor on one side keeps one chart saying it was
 * added or removed. The backtests are replayed over tables written by hand, with no server.
 */
import { parseMonitor } from "../../emulator/alerting/monitor";
import { replay } from "../../emulator/alerting/replay";
import type { JudgeTable } from "../../emulator/alerting/judge";
import { renderBacktestReport } from "../../cli/backtest/html";
import type { MonitorBacktest } from "../../cli/backtest/run";

const MIN = 60_000;
const T0 = Date.UTC(2026, 0, 10, 12, 0, 0);
const PERIOD = { fromMs: T0, toMs: T0 + 20 * MIN };

/** `/pay`'s errors by minute: two bursts, 60 at minutes 5 and 6, 30 at minutes 12 and 13; `/home` steady at 2. */
const payAt = (minute: number) =>
  minute === 5 || minute === 6 ? 60 : minute === 12 || minute === 13 ? 30 : 1;

function tableAt(minute: number): JudgeTable {
  return {
    columns: [
      { name: "route", type: "string", aggregated: false },
      { name: "n", type: "integer", aggregated: true },
    ],
    groupBy: ["route"],
    summarized: true,
    rows: [
      { route: "/pay", n: payAt(minute) },
      { route: "/home", n: 2 },
    ],
    matched: 2,
  };
}

/** The monitor `key` with `threshold` backtested over the period, one run a minute. */
async function backtestOf(key: string, threshold: number): Promise<MonitorBacktest> {
  const monitor = parseMonitor({
    id: key,
    name: `Errors by route (${key})`,
    type: "Threshold",
    aplQuery: "['web'] | where status >= 500 | summarize n = count() by route",
    operator: "Above",
    threshold,
    intervalMinutes: 1,
    rangeMinutes: 1,
    notifyByGroup: true,
  });
  const { runs } = await replay(monitor, PERIOD.fromMs, PERIOD.toMs, async (w) => ({
    ok: true,
    table: tableAt(Number(w.endNs / 1_000_000n - BigInt(T0)) / MIN),
  }));
  return { key, monitor, notifiers: ["oncall"], path: "service", requests: 1, rows: runs.length * 2, runs };
}

/** Each section of the page, by its monitor. */
function sections(html: string): Map<string, string> {
  const found = [...html.matchAll(/<section class="monitor" data-monitor="([^"]*)"[\s\S]*?<\/section>/g)];
  return new Map(found.map((m) => [m[1], m[0]]));
}

const all = (html: string, re: RegExp) => [...html.matchAll(re)].map((m) => m[1]);

describe("the backtest's report against a base", () => {
  let page: Map<string, string>;
  beforeAll(async () => {
    const head = [await backtestOf("errors", 20), await backtestOf("fresh", 20)];
    const base = [await backtestOf("errors", 50), await backtestOf("stale", 20)];
    page = sections(renderBacktestReport(head, PERIOD, base));
  });

  it("draws a monitor on both sides as one chart holding both sides' lines", () => {
    const s = page.get("errors")!;
    expect(s).toContain('data-change="both"');
    expect(s.match(/<svg class="chart"/g)).toHaveLength(1);
    expect(all(s, /<g class="series"[^>]*data-side="(\w+)"/g)).toEqual(["head", "head", "base", "base"]);
    const names = all(s, /<span class="legend-name">([^<]*)<\/span>/g);
    expect(names).toEqual(
      expect.arrayContaining(["head route=/pay", "head route=/home", "base route=/pay", "base route=/home"]),
    );
    // A group keeps its colour on both sides; the side changes the dash (head solid, base dashed).
    const looks = all(s, /<span class="legend-look"> \(([^)]*)\)<\/span>/g);
    expect(looks.slice(0, 4)).toEqual([
      "solid blue line",
      "solid purple line",
      "dashed blue line",
      "dashed purple line",
    ]);
    // Both sides' facts stay, one line each.
    expect(all(s, /<p class="meta">(\w+): service path/g)).toEqual(["head", "base"]);
  });

  it("draws and labels both thresholds, and names them in the legend", () => {
    const s = page.get("errors")!;
    expect(all(s, /<line class="threshold"[^>]*data-value="(\d+)"/g).sort()).toEqual(["20", "50"]);
    expect(all(s, /<text class="threshold-label"[^>]*>([^<]*)</g).sort()).toEqual([
      "base threshold 50",
      "head threshold 20",
    ]);
    expect(s).toContain('<span class="legend-name">head threshold 20</span>');
    expect(s).toContain('<span class="legend-name">base threshold 50</span>');
  });

  it("shades each side's alert periods apart and marks each side's notifications", () => {
    const s = page.get("errors")!;
    const periods = [...s.matchAll(/<rect class="alert-period"([^>]*)>/g)].map((m) => m[1]);
    const side = (attrs: string) => /data-side="(\w+)"/.exec(attrs)![1];
    const from = (attrs: string) => (Number(/data-from-ms="(\d+)"/.exec(attrs)![1]) - T0) / MIN;
    // The head (threshold 20) opens on both bursts; the base (threshold 50) only on the first.
    expect(periods.filter((p) => side(p) === "head").map(from)).toEqual([5, 12]);
    expect(periods.filter((p) => side(p) === "base").map(from)).toEqual([5]);
    // The base's periods are hatched, the head's keep the usual shading.
    expect(periods.filter((p) => side(p) === "base").every((p) => p.includes("fill: url(#m0-hatch1)"))).toBe(
      true,
    );
    expect(periods.filter((p) => side(p) === "head").some((p) => p.includes("style="))).toBe(false);
    expect(s).toContain('<pattern id="m0-hatch1"');
    expect(all(s, /<li data-periods="(\w+)"/g)).toEqual(["head", "base"]);
    expect(s).toContain('<span class="legend-name">base alert open</span>');
    const marks = all(s, /<g class="notification \w+"[^>]*data-side="(\w+)"/g);
    expect(marks.filter((m) => m === "head")).toHaveLength(4);
    expect(marks.filter((m) => m === "base")).toHaveLength(2);
    expect(all(s, /<li data-marks="(\w+)"/g)).toEqual(["head", "base"]);
  });

  it("keeps one chart for a monitor on one side, saying it was added or removed", () => {
    for (const [key, change, words] of [
      ["fresh", "added", "added, only in the head: fresh"],
      ["stale", "removed", "removed, only in the base: stale"],
    ]) {
      const s = page.get(key)!;
      expect(s).toContain(`data-change="${change}"`);
      expect(s.match(/<svg class="chart"/g)).toHaveLength(1);
      expect(s).toContain(words);
      expect(s).not.toContain("data-side=");
    }
  });

  it("draws one threshold, named for both sides, when they share it", async () => {
    const html = renderBacktestReport([await backtestOf("errors", 20)], PERIOD, [
      await backtestOf("errors", 20),
    ]);
    expect(html.match(/<line class="threshold"/g)).toHaveLength(1);
    expect(html).toContain('data-sides="head,base"');
    expect(all(html, /<text class="threshold-label"[^>]*>([^<]*)</g)).toEqual(["head and base threshold 20"]);
  });

  it("a notification a disabled notifier holds is marked as held, and a failed run is counted on its side's line", async () => {
    const muted = { ...(await backtestOf("errors", 20)), mutedUntil: { oncall: T0 + 20 * MIN } };
    const html = renderBacktestReport([muted], PERIOD);
    expect(html).toContain(
      `(held by oncall, disabled until ${new Date(T0 + 20 * MIN).toISOString().replace(".000Z", "Z")})`,
    );
    expect(renderBacktestReport([await backtestOf("errors", 20)], PERIOD)).not.toContain("held by");
    const failing = await backtestOf("errors", 20);
    failing.runs[3] = { runMs: failing.runs[3].runMs, judged: { ...failing.runs[3].judged, error: "boom" } };
    expect(renderBacktestReport([failing], PERIOD)).toMatch(/runs \(1 failed: the first at \S+: boom\)/);
  });

  it("says a side rebuilt from the other's equal query took its answer, rather than 0 requests", async () => {
    const base = { ...(await backtestOf("errors", 50)), requests: 0, rows: 0, reused: "errors" };
    const html = renderBacktestReport([await backtestOf("errors", 20)], PERIOD, [base]);
    expect(html).toContain("base: service path, the answer of errors's equal query, ");
    expect(html).not.toContain("0 requests");
  });
});
