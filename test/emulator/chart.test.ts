/**
 * The shared chart module (emulator/chart/) without a browser: the alert periods it reads from runs, one per group,
 * and its drawing written as HTML with every name as text. The browser tests of the report and of the console check
 * the drawing laid out.
 */
import { alertPeriods, chartHtml, runChart, seriesStyle } from "../../emulator/chart";
import type { MonitorRun, RunAlert } from "../../emulator";

const T0 = Date.parse("2024-06-03T00:00:00Z");
const at = (min: number) => new Date(T0 + min * 60_000).toISOString();
const alert = (action: "Open" | "Closed", groupValues: string[] | null): RunAlert => ({
  action,
  groupValues,
  value: 1,
  body: "",
});
const run = (
  min: number,
  state: MonitorRun["state"],
  alerts: RunAlert[] = [],
  values: MonitorRun["values"] = [],
) =>
  ({
    monitorId: "m",
    monitorName: "m",
    time: at(min),
    windowStart: at(min - 1),
    windowEnd: at(min),
    state,
    values,
    notifications: alerts.length,
    alerts,
  }) satisfies MonitorRun;

it("rule: each group's alert period runs from its Open to its Closed", () => {
  const periods = alertPeriods(
    [
      run(1, "open", [alert("Open", ["a"])]),
      run(2, "open", [alert("Open", ["b"])]),
      run(3, "open", [alert("Closed", ["a"])]),
      run(4, "closed", [alert("Closed", ["b"])]),
      run(5, "open", [alert("Open", ["a"])]),
    ],
    T0 + 10 * 60_000,
  );
  expect(
    periods.map((p) => [p.groupValues, (p.fromMs - T0) / 60_000, (p.toMs - T0) / 60_000, p.closed]),
  ).toEqual([
    [["a"], 1, 3, true],
    [["b"], 2, 4, true],
    [["a"], 5, 10, false],
  ]);
});

it("rule: a run after which no alert is open ends every period (skipResolved sends no Closed)", () => {
  const periods = alertPeriods(
    [run(1, "open", [alert("Open", null)]), run(2, "open"), run(3, "closed"), run(4, "ok")],
    T0 + 10 * 60_000,
  );
  expect(periods.map((p) => [(p.fromMs - T0) / 60_000, (p.toMs - T0) / 60_000, p.closed])).toEqual([
    [1, 3, true],
  ]);
});

it("rule: a failed run breaks every line; the drawing's names are text in its HTML", () => {
  const g = { route: "<script>x</script>" };
  const chart = runChart({
    id: "c",
    label: "<b>label</b>",
    startMs: T0,
    endMs: T0 + 4 * 60_000,
    runs: [
      run(1, "ok", [], [{ group: g, value: 1 }]),
      run(2, "ok", [], [{ group: g, value: 2 }]),
      run(3, "error"),
      run(4, "ok", [], [{ group: g, value: 3 }]),
    ],
    threshold: 5,
    periods: [],
    marks: [],
    timeLabel: (ms) => `+${(ms - T0) / 60_000}m`,
    openEnd: "now",
  });
  const html = chartHtml(chart);
  expect(html).not.toContain("<script>");
  expect(html).not.toContain("<b>");
  expect(html).toContain("route=&lt;script&gt;x&lt;/script&gt;");
  expect(html.match(/<polyline/g)).toHaveLength(1);
  expect(html.match(/<circle/g)).toHaveLength(1);
  expect(html).toContain('data-segments="2"');
});

it("lines differ in dash pattern as well as colour for thirty lines", () => {
  const looks = new Set(Array.from({ length: 30 }, (_, i) => JSON.stringify(seriesStyle(i))));
  expect(looks.size).toBe(30);
  expect(new Set(Array.from({ length: 5 }, (_, i) => seriesStyle(i).dash)).size).toBe(5);
});
