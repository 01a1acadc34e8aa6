/**
 * The shared chart module (emulator/chart/) without a browser: the alert periods it reads from runs, one per group,
 * and its drawing written as HTML with every name as text. The browser tests of the report and of the console check
 * the drawing laid out.
 */
import { alertPeriods, chartHtml, runChart, seriesStyle } from "../../emulator/chart";
import type { MonitorRun, RunTransition } from "../../emulator";

const T0 = Date.parse("2024-06-03T00:00:00Z");
const at = (min: number) => new Date(T0 + min * 60_000).toISOString();
/** A transition of the alert `id` (of the group `groupValues`), notifying unless `silent` (skipResolved). */
const tr = (
  action: "open" | "close",
  id: string,
  groupValues: string[] | null,
  silent = false,
): RunTransition => ({ alertId: id, action, groupValues, value: 1, notifies: !silent });
const run = (
  min: number,
  state: MonitorRun["state"],
  transitions: RunTransition[] = [],
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
    notifications: 0,
    alerts: [],
    transitions,
  }) satisfies MonitorRun;
/** Periods as `[groupValues, from, to, closed]`, in minutes from T0. */
const inMinutes = (periods: ReturnType<typeof alertPeriods>) =>
  periods.map((p) => [p.groupValues, (p.fromMs - T0) / 60_000, (p.toMs - T0) / 60_000, p.closed]);

it("rule: each alert's period runs from the run that opened it to the run that closed it, by its id", () => {
  const periods = alertPeriods(
    [
      run(1, "open", [tr("open", "a1", ["a"])]),
      run(2, "open", [tr("open", "b1", ["b"])]),
      run(3, "open", [tr("close", "a1", ["a"])]),
      run(4, "closed", [tr("close", "b1", ["b"])]),
      run(5, "open", [tr("open", "a2", ["a"])]),
    ],
    T0 + 10 * 60_000,
  );
  expect(inMinutes(periods)).toEqual([
    [["a"], 1, 3, true],
    [["b"], 2, 4, true],
    [["a"], 5, 10, false],
  ]);
});

it("rule: a close that notifies nothing (skipResolved) ends its period, and a group reopening is a new one", () => {
  // The group's close sends no Closed while another group stays open: its period still ends where it closed.
  const periods = alertPeriods(
    [
      run(1, "open", [tr("open", "a1", ["a"]), tr("open", "b1", ["b"])]),
      run(3, "open", [tr("close", "a1", ["a"], true)]),
      run(5, "open", [tr("open", "a2", ["a"])]),
      run(6, "error"),
      run(7, "closed", [tr("close", "a2", ["a"], true), tr("close", "b1", ["b"], true)]),
    ],
    T0 + 10 * 60_000,
  );
  expect(inMinutes(periods)).toEqual([
    [["a"], 1, 3, true],
    [["b"], 1, 7, true],
    [["a"], 5, 7, true],
  ]);
});

it("rule: two alerts whose group values read alike are two periods, told apart by their ids", () => {
  // A grouped monitor's no-data alert and an ungrouped alert left by an edit both have no group values.
  const periods = alertPeriods(
    [
      run(1, "open", [tr("open", "whole", null)]),
      run(2, "open", [tr("open", "no-data", null)]),
      run(3, "open", [tr("close", "whole", null)]),
      run(4, "closed", [tr("close", "no-data", null)]),
    ],
    T0 + 10 * 60_000,
  );
  expect(inMinutes(periods)).toEqual([
    [null, 1, 3, true],
    [null, 2, 4, true],
  ]);
});

it("rule: runs that begin after an alert opened show it from their first run", () => {
  // A close of an alert not seen opening: from the first run given to the close.
  expect(
    inMinutes(alertPeriods([run(1, "open"), run(2, "closed", [tr("close", "x", ["x"])])], T0 + 5 * 60_000)),
  ).toEqual([[["x"], 1, 2, true]]);
  // Still open after the last judged run, with none seen opening: from the first run to the end, no group known.
  expect(
    inMinutes(alertPeriods([run(1, "open"), run(2, "open"), run(3, "skipped")], T0 + 5 * 60_000)),
  ).toEqual([[null, 1, 5, false]]);
  expect(alertPeriods([run(1, "ok"), run(2, "ok")], T0 + 5 * 60_000)).toEqual([]);
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
