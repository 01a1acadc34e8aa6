/**
 * The one drawing of a monitor's runs: each group's values over time against the threshold, the periods its alert
 * was open shaded, each notification marked, and a legend naming each group's line. Both pages that show monitors
 * draw with it: the alert-test report (cli/alert-test/report.ts, which writes it as HTML text) and the emulator's
 * live console (emulator/console/, which sends the same tree as JSON for its script to build with DOM calls). The
 * backtest's report draws with it too, and against a base draws both sides on one chart (a {@link SidesChartSpec}).
 * It lives in emulator/ because the CLI imports the emulator and never the other way round.
 *
 * The drawing is a tree of plain nodes (tag, attributes, children; a string child is text), not markup: whoever
 * shows it turns names and values into text nodes and attribute values, so a group, monitor or notifier name
 * holding HTML is shown as written and never parsed.
 *
 * Every drawn element carries its facts as data attributes (`data-time-ms`, `data-from-ms`, `data-to-ms`) and a
 * `<title>` in words, and the chart carries its scale (`data-start-ms`, `data-end-ms`, `data-plot-x`,
 * `data-plot-width`), so a reader (a screen reader, or a test in a browser) can check that a mark sits where its
 * time says. Lines are told apart by colour and by dash pattern, and the legend names each line's pattern in words.
 */
import type { MonitorRun } from "../alerting/types";

/** One element of a drawing: its tag, attributes and children (strings are text). */
export interface ChartNode {
  tag: string;
  attrs?: Record<string, string>;
  children?: (ChartNode | string)[];
}

/** The chart's geometry, in CSS pixels. */
export const CHART = { width: 960, height: 240, left: 64, right: 16, top: 16, bottom: 36 } as const;

/** A line's look: its colour and its dash pattern, and both in words for the legend. */
export interface SeriesStyle {
  color: string;
  colorName: string;
  /** The SVG `stroke-dasharray`; empty for a solid line. */
  dash: string;
  dashName: string;
}

const COLORS: readonly (readonly [string, string])[] = [
  ["#1f6feb", "blue"],
  ["#8250df", "purple"],
  ["#bf8700", "amber"],
  ["#1a7f37", "green"],
  ["#0a7ea4", "teal"],
  ["#57606a", "grey"],
];
// Five patterns against six colours: the pair repeats only after thirty lines. Red is the threshold's and the
// alert's colour, and the threshold's dash (6 4) is none of these.
const DASHES: readonly (readonly [string, string])[] = [
  ["", "solid"],
  ["10 4", "dashed"],
  ["2 3", "dotted"],
  ["10 3 2 3", "dash-dot"],
  ["16 4 4 4", "long dash-short dash"],
];

/** The look of the `i`th line (from 0). */
export function seriesStyle(i: number): SeriesStyle {
  const [color, colorName] = COLORS[i % COLORS.length];
  const [dash, dashName] = DASHES[i % DASHES.length];
  return { color, colorName, dash, dashName };
}

/** A number as the pages print it: up to `digits` significant digits, no exponent for ordinary values. */
export function formatValue(v: number, digits = 6): string {
  return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(digits)));
}

/** A group as text: `service=checkout, region=eu`, or `value` for an ungrouped result. */
export function groupName(group: Record<string, unknown>): string {
  const entries = Object.entries(group);
  return entries.length ? entries.map(([k, v]) => `${k}=${String(v)}`).join(", ") : "value";
}

/** An alert period: from the run that opened a group's alert to the run that closed it (or the chart's end). */
export interface AlertPeriod {
  fromMs: number;
  toMs: number;
  /** False when the alert was still open at the end. */
  closed: boolean;
  /** The group's values (`notifyByGroup`), or null for the monitor's one alert. */
  groupValues: string[] | null;
  /** The alert's stable id (the history's `checkId`); absent for an alert whose open and close were not seen. */
  alertId?: string;
}

/**
 * The periods a monitor's runs (in time order) show its alerts open: one per alert, by its stable id, from the run
 * whose judging opened it to the run that closed it, whether or not the close notified (`skipResolved`), so a
 * grouped monitor's periods are each group's exactly, a group that reopens being a new period. A period still open
 * at `endMs` ends there, not closed.
 *
 * Runs that begin after an alert opened (the console keeps a monitor's last runs): a close of an alert not seen
 * opening makes a period from the first run given; and when the last judged run leaves an alert open though none
 * seen opening is, one period of no known group runs from the first run given to `endMs`.
 */
export function alertPeriods(
  runs: readonly Pick<MonitorRun, "time" | "state" | "transitions">[],
  endMs: number,
): AlertPeriod[] {
  const periods: AlertPeriod[] = [];
  const open = new Map<string, { fromMs: number; groupValues: string[] | null; alertId: string }>();
  const firstMs = runs.length > 0 ? Date.parse(runs[0].time) : endMs;
  let lastState: MonitorRun["state"] | undefined;
  for (const run of runs) {
    const t = Date.parse(run.time);
    for (const tr of run.transitions) {
      if (tr.action === "open") {
        open.set(tr.alertId, { fromMs: t, groupValues: tr.groupValues, alertId: tr.alertId });
        continue;
      }
      const p = open.get(tr.alertId) ?? { fromMs: firstMs, groupValues: tr.groupValues, alertId: tr.alertId };
      periods.push({ ...p, toMs: t, closed: true });
      open.delete(tr.alertId);
    }
    // A failed or skipped run leaves the alert state as it was.
    if (run.state !== "error" && run.state !== "skipped") lastState = run.state;
  }
  for (const p of open.values()) periods.push({ ...p, toMs: endMs, closed: false });
  if (lastState === "open" && open.size === 0)
    periods.push({ fromMs: firstMs, toMs: endMs, closed: false, groupValues: null });
  return periods.sort((a, b) => a.fromMs - b.fromMs);
}

/** A notification drawn on the chart. */
export interface ChartMark {
  timeMs: number;
  action: "Open" | "Closed";
  /** What it was, in words (its title). */
  words: string;
  /** The notifiers it went to, for `data-notifiers`. */
  notifiers: readonly string[];
}

/** One set of runs a chart draws: the chart's only one, or one side of a comparison (a base and a head). */
export interface ChartSide {
  /**
   * The side's name (`head`, `base`), which names its lines, its threshold, its alert periods and its
   * notifications; absent on a chart of one side.
   */
  name?: string;
  /** The monitor's runs, in time order; a failed run has no values. */
  runs: readonly Pick<MonitorRun, "time" | "values" | "state">[];
  threshold?: number;
  periods: readonly AlertPeriod[];
  marks: readonly ChartMark[];
}

/** What a chart shows besides its runs. */
interface ChartFrame {
  /** A prefix for the ids of the chart's parts, unique in its page (safe characters only). */
  id: string;
  /** The chart's name, for its title. */
  label: string;
  startMs: number;
  endMs: number;
  /** A time as the page writes it (`+11m` in a test's report, the clock's time in the console). */
  timeLabel(ms: number): string;
  /** The end of a period still open, in words: `the end of the test`, `now`. */
  openEnd: string;
}

/** What one chart shows. */
export interface RunChartSpec extends ChartFrame, Omit<ChartSide, "name"> {}

/**
 * What a chart comparing sides shows (the backtest's base and head): every side's lines, threshold, alert periods
 * and notifications on one scale, each named with its side's name and drawn in its side's look ({@link sideLook}).
 */
export interface SidesChartSpec extends ChartFrame {
  sides: readonly (ChartSide & { name: string })[];
}

/**
 * How one side of a comparison draws its threshold, its alert periods and its notifications, and each in words
 * for the legend. The first side's is the look of a chart of one side.
 */
export interface SideLook {
  thresholdColor: string;
  thresholdDash: string;
  thresholdName: string;
  /** The colour of the diagonal hatching over the side's alert periods; empty for the usual light red shading. */
  hatch: string;
  periodName: string;
  /** Where a notification's triangle sits, and its line's dash pattern (empty for solid). */
  markAt: "top" | "bottom";
  markDash: string;
  markName: string;
}

// Two looks: the pages compare two sides. A third side would share the second's look, its legend still naming it.
const SIDE_LOOKS: readonly SideLook[] = [
  {
    thresholdColor: "#cf222e",
    thresholdDash: "6 4",
    thresholdName: "red dashed line",
    hatch: "",
    periodName: "light red shading",
    markAt: "top",
    markDash: "",
    markName: "solid upright line, triangle at the top; red opens, green closes",
  },
  {
    thresholdColor: "#953800",
    thresholdDash: "2 3",
    thresholdName: "brown dotted line",
    hatch: "#953800",
    periodName: "brown diagonal hatching",
    markAt: "bottom",
    markDash: "2 3",
    markName: "dotted upright line, triangle at the bottom; red opens, green closes",
  },
];

/** The look of the `i`th side (from 0) of a chart comparing sides. */
export function sideLook(i: number): SideLook {
  return SIDE_LOOKS[Math.min(i, SIDE_LOOKS.length - 1)];
}

/**
 * The look of the line of group `g` (from 0, over every side's groups) on side `s` of `sides`. On a chart of one
 * side it is {@link seriesStyle}'s. Comparing sides, a group keeps its colour on every side and the side sets the
 * dash pattern (the first solid, the second dashed), so a group's lines pair up across sides; past six groups the
 * colours come round again with the next patterns.
 */
export function sideSeriesStyle(g: number, s: number, sides: number): SeriesStyle {
  if (sides <= 1) return seriesStyle(g);
  const [color, colorName] = COLORS[g % COLORS.length];
  const [dash, dashName] = DASHES[(Math.floor(g / COLORS.length) * sides + s) % DASHES.length];
  return { color, colorName, dash, dashName };
}

interface Scale {
  x(t: number): number;
  y(v: number): number;
  yTicks: number[];
}

function scaleFor(startMs: number, endMs: number, values: number[], thresholds: number[]): Scale {
  const plotW = CHART.width - CHART.left - CHART.right;
  const plotH = CHART.height - CHART.top - CHART.bottom;
  let lo = 0;
  let hi = 0;
  // A loop, not Math.min(...values): a chart of many runs and groups would pass the engine's argument limit.
  for (const list of [values, thresholds]) {
    for (const v of list) {
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  }
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

/** Time ticks: about six, on whole minutes, hours or days from the start. */
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

const el = (
  tag: string,
  attrs: Record<string, string> = {},
  children: (ChartNode | string)[] = [],
): ChartNode => ({
  tag,
  attrs,
  children,
});

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** One group's line: its points, `null` where a run had no value for it (which breaks the line). */
interface Series {
  key: string;
  group: Record<string, unknown>;
  points: { t: number; v: number | null }[];
}

/** The groups that have a value in some run, by their key, in the order they first appear. */
function groupsOf(runs: ChartSide["runs"]): Map<string, Record<string, unknown>> {
  const keys = new Map<string, Record<string, unknown>>();
  for (const run of runs) for (const v of run.values) keys.set(JSON.stringify(v.group), v.group);
  return keys;
}

/**
 * Each group's values over the runs, one point per run: a run without a value for the group (no data, a failed
 * query, the group absent from its result) is a null, so the line breaks there rather than joining its neighbours.
 */
function seriesOf(runs: ChartSide["runs"], groups: Map<string, Record<string, unknown>>): Series[] {
  return [...groups].map(([key, group]) => ({
    key,
    group,
    points: runs.map((run) => ({
      t: Date.parse(run.time),
      v: run.values.find((v) => JSON.stringify(v.group) === key)?.value ?? null,
    })),
  }));
}

/** A line's pieces: the runs of consecutive values, split at each null. */
function segmentsOf(points: Series["points"]): { t: number; v: number }[][] {
  const segments: { t: number; v: number }[][] = [[]];
  for (const p of points) {
    if (p.v === null) segments.push([]);
    else segments[segments.length - 1].push({ t: p.t, v: p.v });
  }
  return segments.filter((s) => s.length > 0);
}

/** A line's name in the legend: its group, after its side's name on a chart comparing sides. */
function lineName(side: ChartSide, group: Record<string, unknown>): string {
  if (side.name === undefined) return groupName(group);
  return Object.keys(group).length ? `${side.name} ${groupName(group)}` : side.name;
}

/**
 * The chart of one monitor and its legend, as a `<figure>`: of its runs (a {@link RunChartSpec}), or of several
 * sides' runs on one scale (a {@link SidesChartSpec}: the backtest's base and head), where the legend also names
 * each threshold, each side's shading of its alert periods and each side's notification marks.
 */
export function runChart(spec: RunChartSpec | SidesChartSpec): ChartNode {
  const { id, startMs, endMs, timeLabel } = spec;
  const compared = "sides" in spec;
  const sides: readonly ChartSide[] = compared ? spec.sides : [spec];
  const groupsBySide = sides.map((side) => groupsOf(side.runs));
  // Each group's place over every side, so a group keeps its colour from one side to the next.
  const groupIndex = new Map<string, number>();
  for (const groups of groupsBySide)
    for (const key of groups.keys()) if (!groupIndex.has(key)) groupIndex.set(key, groupIndex.size);
  const lines = sides.flatMap((side, s) =>
    seriesOf(side.runs, groupsBySide[s]).map((series) => ({
      side,
      series,
      style: sideSeriesStyle(groupIndex.get(series.key)!, s, sides.length),
    })),
  );
  const values: number[] = [];
  for (const { series } of lines) for (const p of series.points) if (p.v !== null) values.push(p.v);
  // Sides that share a threshold share its line, named for them all.
  const thresholds = new Map<number, number[]>();
  sides.forEach((side, s) => {
    if (side.threshold !== undefined)
      thresholds.set(side.threshold, [...(thresholds.get(side.threshold) ?? []), s]);
  });
  const scale = scaleFor(startMs, endMs, values, [...thresholds.keys()]);
  const plotTop = CHART.top;
  const plotBottom = CHART.height - CHART.bottom;
  const plotRight = CHART.width - CHART.right;
  const f = (n: number) => n.toFixed(2);

  const alertFacts = (side: ChartSide, sep: string) =>
    `${plural(side.periods.length, "alert period")}${sep}${plural(side.marks.length, "notification")}` +
    (side.threshold === undefined ? "" : `${sep}threshold ${formatValue(side.threshold)}`);
  const desc = compared
    ? `from ${timeLabel(startMs)} to ${timeLabel(endMs)}; ` +
      sides
        .map((side) => `${side.name}: ${plural(side.runs.length, "run")}, ${alertFacts(side, ", ")}`)
        .join("; ") +
      `; ${plural(lines.length, "line")}, named in the legend`
    : `${plural(sides[0].runs.length, "run")} from ${timeLabel(startMs)} to ${timeLabel(endMs)}; ` +
      alertFacts(sides[0], "; ") +
      (lines.length > 1 ? `; ${plural(lines.length, "line")}, one per group, named in the legend` : "");
  const svg: (ChartNode | string)[] = [
    el("title", { id: `${id}-title` }, [spec.label]),
    el("desc", { id: `${id}-desc` }, [desc]),
  ];
  const hatchId = (s: number) => `${id}-hatch${s}`;
  const hatches = sides.flatMap((_, s) => {
    const { hatch } = sideLook(s);
    if (!compared || !hatch) return [];
    return [
      el(
        "pattern",
        {
          id: hatchId(s),
          patternUnits: "userSpaceOnUse",
          width: "6",
          height: "6",
          patternTransform: "rotate(45)",
        },
        [
          el("line", {
            x1: "0",
            y1: "0",
            x2: "0",
            y2: "6",
            stroke: hatch,
            "stroke-width": "2",
            "stroke-opacity": "0.55",
          }),
        ],
      ),
    ];
  });
  if (hatches.length) svg.push(el("defs", {}, hatches));
  const axis: ChartNode[] = [
    el("line", {
      x1: `${CHART.left}`,
      y1: `${plotBottom}`,
      x2: `${plotRight}`,
      y2: `${plotBottom}`,
    }),
    el("line", { x1: `${CHART.left}`, y1: `${plotTop}`, x2: `${CHART.left}`, y2: `${plotBottom}` }),
  ];
  for (const t of timeTicks(startMs, endMs)) {
    const x = f(scale.x(t));
    axis.push(el("line", { x1: x, y1: `${plotBottom}`, x2: x, y2: `${plotBottom + 4}` }));
    axis.push(el("text", { x, y: `${plotBottom + 18}`, "text-anchor": "middle" }, [timeLabel(t)]));
  }
  for (const v of scale.yTicks) {
    axis.push(
      el(
        "text",
        { x: `${CHART.left - 6}`, y: f(scale.y(v)), "text-anchor": "end", "dominant-baseline": "middle" },
        [formatValue(v, 3)],
      ),
    );
  }
  svg.push(el("g", { class: "axis" }, axis));
  const sideAttrs = (side: ChartSide): Record<string, string> =>
    side.name === undefined ? {} : { "data-side": side.name };
  const prefixed = (side: ChartSide, words: string) =>
    side.name === undefined ? words : `${side.name} ${words}`;
  // Alert periods, under everything else.
  sides.forEach((side, s) => {
    const { hatch } = sideLook(s);
    for (const p of side.periods) {
      const x = scale.x(p.fromMs);
      const w = Math.max(1, scale.x(p.toMs) - x);
      const group = p.groupValues ? ` for ${p.groupValues.join(", ")}` : "";
      const words = `alert open${group} from ${timeLabel(p.fromMs)} to ${p.closed ? timeLabel(p.toMs) : `${spec.openEnd} (still open)`}`;
      svg.push(
        el(
          "rect",
          {
            class: "alert-period",
            x: f(x),
            y: `${plotTop}`,
            width: f(w),
            height: `${plotBottom - plotTop}`,
            "data-from-ms": `${p.fromMs}`,
            "data-to-ms": `${p.toMs}`,
            "data-closed": `${p.closed}`,
            "data-group": p.groupValues ? p.groupValues.join(", ") : "",
            ...(p.alertId !== undefined ? { "data-alert-id": p.alertId } : {}),
            ...sideAttrs(side),
            // Inline, so the page's rule for the usual shading does not cover the hatching.
            ...(compared && hatch ? { style: `fill: url(#${hatchId(s)}); fill-opacity: 1` } : {}),
          },
          [el("title", {}, [prefixed(side, words)])],
        ),
      );
    }
  });
  const thresholdName = (sideIndexes: number[]) => sideIndexes.map((s) => sides[s].name).join(" and ");
  // Labels over their lines, one moved under its line when it would overlap the label above it.
  let lastLabelY = -Infinity;
  for (const [threshold, sideIndexes] of [...thresholds].sort(([a], [b]) => b - a)) {
    const y = scale.y(threshold);
    const look = sideLook(sideIndexes[0]);
    const words = `${compared ? `${thresholdName(sideIndexes)} ` : ""}threshold ${formatValue(threshold)}`;
    svg.push(
      el(
        "line",
        {
          class: "threshold",
          x1: `${CHART.left}`,
          y1: f(y),
          x2: `${plotRight}`,
          y2: f(y),
          "data-value": `${threshold}`,
          ...(compared
            ? {
                "data-sides": sideIndexes.map((s) => sides[s].name).join(","),
                style: `stroke: ${look.thresholdColor}; stroke-dasharray: ${look.thresholdDash}`,
              }
            : {}),
        },
        [el("title", {}, [words])],
      ),
    );
    if (!compared) continue;
    let labelY = y - 4;
    if (labelY - lastLabelY < 12 || labelY < plotTop + 10) labelY = y + 12;
    lastLabelY = labelY;
    svg.push(
      el(
        "text",
        {
          class: "threshold-label",
          x: `${plotRight - 4}`,
          y: f(labelY),
          "text-anchor": "end",
          style: `fill: ${look.thresholdColor}`,
        },
        [words],
      ),
    );
  }
  const legend: ChartNode[] = [];
  const swatch = (shape: ChartNode) =>
    el("svg", { class: "swatch", width: "36", height: "10", viewBox: "0 0 36 10", "aria-hidden": "true" }, [
      shape,
    ]);
  const legendItem = (attrs: Record<string, string>, shape: ChartNode, name: string, look: string) =>
    el("li", attrs, [
      // The swatch repeats the drawing's look; the words after it say the same for whoever cannot see it.
      swatch(shape),
      el("span", { class: "legend-name" }, [name]),
      el("span", { class: "legend-look" }, [` (${look})`]),
    ]);
  lines.forEach(({ side, series: s, style }, i) => {
    const name = lineName(side, s.group);
    const segments = segmentsOf(s.points);
    const noData = s.points.filter((p) => p.v === null).length;
    const lineAttrs = (extra: Record<string, string>) => ({
      ...extra,
      stroke: style.color,
      ...(style.dash ? { "stroke-dasharray": style.dash } : {}),
    });
    const pieces: (ChartNode | string)[] = [
      el("title", {}, [`${name}: ${style.dashName} ${style.colorName} line`]),
    ];
    for (const seg of segments) {
      // One value between two runs without data has no neighbour to join: a dot shows it.
      if (seg.length === 1)
        pieces.push(
          el("circle", { cx: f(scale.x(seg[0].t)), cy: f(scale.y(seg[0].v)), r: "2.5", fill: style.color }),
        );
      else
        pieces.push(
          el(
            "polyline",
            lineAttrs({
              fill: "none",
              points: seg.map((p) => `${f(scale.x(p.t))},${f(scale.y(p.v))}`).join(" "),
            }),
          ),
        );
    }
    svg.push(
      el(
        "g",
        {
          class: "series",
          id: `${id}-s${i}`,
          "data-group": JSON.stringify(s.group),
          "data-segments": `${segments.length}`,
          "data-no-data": `${noData}`,
          ...sideAttrs(side),
        },
        pieces,
      ),
    );
    legend.push(
      legendItem(
        { "data-series": `${id}-s${i}` },
        el("line", lineAttrs({ x1: "0", y1: "5", x2: "36", y2: "5" })),
        name,
        `${style.dashName} ${style.colorName} line${noData ? `, broken at ${plural(noData, "run")} without data` : ""}`,
      ),
    );
  });
  sides.forEach((side, s) => {
    const look = sideLook(s);
    for (const a of side.marks) {
      const x = scale.x(a.timeMs);
      const open = a.action === "Open";
      // The triangle's flat side on the plot's edge, its point towards the plot when the alert opens.
      const [edge, inward] = look.markAt === "top" ? [plotTop, plotTop + 10] : [plotBottom, plotBottom - 10];
      const [tipY, baseY] = open ? [inward, edge] : [edge, inward];
      const tip = `${f(x)},${tipY} ${f(x - 5)},${baseY} ${f(x + 5)},${baseY}`;
      svg.push(
        el(
          "g",
          {
            class: `notification ${open ? "open" : "closed"}`,
            "data-action": a.action,
            "data-time-ms": `${a.timeMs}`,
            "data-x": f(x),
            "data-notifiers": a.notifiers.join(","),
            ...sideAttrs(side),
          },
          [
            el("title", {}, [side.name === undefined ? a.words : `${side.name}: ${a.words}`]),
            el("line", {
              x1: f(x),
              y1: `${plotTop}`,
              x2: f(x),
              y2: `${plotBottom}`,
              ...(compared && look.markDash ? { "stroke-dasharray": look.markDash } : {}),
            }),
            el("polygon", { points: tip }),
          ],
        ),
      );
    }
  });
  if (compared) {
    for (const [threshold, sideIndexes] of thresholds) {
      const look = sideLook(sideIndexes[0]);
      legend.push(
        legendItem(
          { "data-threshold": `${threshold}` },
          el("line", {
            x1: "0",
            y1: "5",
            x2: "36",
            y2: "5",
            stroke: look.thresholdColor,
            "stroke-dasharray": look.thresholdDash,
          }),
          `${thresholdName(sideIndexes)} threshold ${formatValue(threshold)}`,
          look.thresholdName,
        ),
      );
    }
    sides.forEach((side, s) => {
      const look = sideLook(s);
      legend.push(
        legendItem(
          { "data-periods": side.name! },
          el("rect", {
            width: "36",
            height: "10",
            ...(look.hatch ? { fill: `url(#${hatchId(s)})` } : { fill: "#cf222e", "fill-opacity": "0.16" }),
          }),
          `${side.name} alert open`,
          `${look.periodName}; ${plural(side.periods.length, "period")}`,
        ),
        legendItem(
          { "data-marks": side.name! },
          el("line", {
            x1: "18",
            y1: "0",
            x2: "18",
            y2: "10",
            stroke: "#cf222e",
            ...(look.markDash ? { "stroke-dasharray": look.markDash } : {}),
          }),
          `${side.name} notifications`,
          `${look.markName}; ${plural(side.marks.length, "notification")}`,
        ),
      );
    });
  }
  const chart = el(
    "svg",
    {
      class: "chart",
      role: "img",
      "aria-labelledby": `${id}-title ${id}-desc`,
      ...(legend.length ? { "aria-describedby": `${id}-legend` } : {}),
      width: `${CHART.width}`,
      height: `${CHART.height}`,
      viewBox: `0 0 ${CHART.width} ${CHART.height}`,
      "data-start-ms": `${startMs}`,
      "data-end-ms": `${endMs}`,
      "data-plot-x": `${CHART.left}`,
      "data-plot-width": `${CHART.width - CHART.left - CHART.right}`,
    },
    svg,
  );
  const caption = legend.length
    ? el("figcaption", {}, [
        el("span", { class: "legend-heading", id: `${id}-legend-heading` }, [
          compared ? "Legend: " : "Lines: ",
        ]),
        el("ul", { class: "legend", id: `${id}-legend`, "aria-labelledby": `${id}-legend-heading` }, legend),
      ])
    : el("figcaption", {}, ["No values yet."]);
  return el("figure", { class: "run-chart", id: `${id}-figure` }, [chart, caption]);
}

/** Text made safe for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );
}

/**
 * A page written whole, as the alert tests' and the backtest's reports are: nothing may load from elsewhere and
 * nothing runs (its policy allows only its own inline style and data: images), so a report opened from a CI
 * artifact shows what it holds and does nothing else. `body` is HTML already escaped; `title` is escaped here.
 */
export function standalonePage(title: string, style: string, body: readonly string[]): string {
  return [
    `<!doctype html>`,
    `<html lang="en"><head><meta charset="utf-8">`,
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`,
    `<meta name="viewport" content="width=device-width, initial-scale=1">`,
    `<title>${escapeHtml(title)}</title><style>${style}</style></head>`,
    `<body>`,
    ...body,
    `</body></html>`,
    ``,
  ].join("\n");
}

/** A drawing as HTML text, every name and value escaped (for a page written whole, such as the report). */
export function chartHtml(node: ChartNode | string): string {
  if (typeof node === "string") return escapeHtml(node);
  const attrs = Object.entries(node.attrs ?? {})
    .map(([k, v]) => ` ${k}="${escapeHtml(v)}"`)
    .join("");
  return `<${node.tag}${attrs}>${(node.children ?? []).map(chartHtml).join("")}</${node.tag}>`;
}

/** The chart's styles, shared by the pages that draw it. */
export const CHART_CSS = `
.run-chart { margin: 8px 0; }
.chart { display: block; max-width: 100%; height: auto; background: #fff; border: 1px solid #d0d7de; }
.chart text { font-size: 11px; fill: #57606a; }
.chart .axis line { stroke: #8c959f; stroke-width: 1; }
.chart .alert-period { fill: #cf222e; fill-opacity: 0.16; }
.chart .threshold { stroke: #cf222e; stroke-width: 1.5; stroke-dasharray: 6 4; }
.chart .threshold-label { font-weight: 600; paint-order: stroke; stroke: #fff; stroke-width: 3px; }
.chart polyline { stroke-width: 1.75; }
.chart .notification line { stroke-width: 1.5; }
.chart .notification.open line, .chart .notification.open polygon { stroke: #cf222e; fill: #cf222e; }
.chart .notification.closed line, .chart .notification.closed polygon { stroke: #1a7f37; fill: #1a7f37; }
.run-chart figcaption { font-size: 13px; color: #1f2328; }
.run-chart .legend { display: inline; list-style: none; margin: 0; padding: 0; }
.run-chart .legend li { display: inline-block; margin: 2px 16px 2px 0; }
.run-chart .swatch { vertical-align: middle; margin-right: 4px; }
.run-chart .swatch line { stroke-width: 2; }
.run-chart .legend-look { color: #57606a; }
`;
