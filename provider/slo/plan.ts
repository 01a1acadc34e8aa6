/**
 * What an `Slo` makes, as plain values both faces create resources from: one Threshold monitor per alert window
 * pair, and the error-budget dashboard. Pure: no Pulumi, no network; the faces pass in what only they know (the
 * monitors' ids, for the dashboard's monitor list).
 */
import { formatFailures, validate, type ValidationFailure } from "../schemas/common";
import {
  DEFAULT_ALERT_WINDOWS,
  SLO_WINDOW_DAYS,
  SloArgsSchema,
  durationMinutes,
  type AlertSeverity,
  type SloArgs,
} from "./spec";

/** Run intervals a pair's monitor may take, in minutes; it takes the largest at most a fifth of its short window. */
const INTERVAL_LADDER = [1, 5, 10, 15, 30, 60];

/** One pair's monitor. */
export interface PlannedMonitor {
  /** The pair's key (`pageFast`, `pageSlow`, `ticket`, or a program's own). */
  key: string;
  severity: AlertSeverity;
  longMinutes: number;
  shortMinutes: number;
  /** The burn rate both windows must reach: budget share × SLO window ÷ long window. */
  burnRate: number;
  /** The Monitor's inputs, but for `notifierIds`, which the face passes through as given. */
  monitor: {
    name: string;
    description: string;
    type: "Threshold";
    operator: "AboveOrEqual";
    threshold: number;
    columnName: string;
    aplQuery: string;
    rangeMinutes: number;
    intervalMinutes: number;
    notifyByGroup: boolean;
    alertOnNoData: false;
  };
  /** The ids of the notifiers it alerts, as declared (page or ticket). */
  notifierIds: string[];
}

/** What an Slo makes. */
export interface SloPlan {
  displayName: string;
  objective: number;
  windowDays: number;
  /** 1 − objective, as a fraction. */
  errorBudget: number;
  monitors: PlannedMonitor[];
  /** The queries, by name: each pair's (by key), and the dashboard's. */
  queries: Record<string, string>;
  /** The dashboard's inputs given the monitors' ids, or undefined when `dashboard: false`. */
  dashboard?: (monitorIds: readonly unknown[]) => { uid: string; dashboard: Record<string, unknown> };
}

/** The column every burn-rate query yields and its monitor compares. */
export const BURN_RATE_COLUMN = "burn_rate";

/** Thrown by {@link planSlo} for inputs that break a rule: every failure at once, each naming its property. */
export class SloArgsError extends Error {
  constructor(readonly failures: ValidationFailure[]) {
    super(formatFailures(failures));
    this.name = "SloArgsError";
  }
}

/** The inputs' failures, or none: what `check` reports at preview. */
export function sloArgsFailures(args: unknown): ValidationFailure[] {
  const result = validate(SloArgsSchema, args);
  return result.ok ? [] : result.failures;
}

/** A dataset reference as APL writes it: `['name']`, quotes escaped. */
function datasetRef(name: string): string {
  return `['${name.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}']`;
}

/** A field reference: bare when it is an identifier path, else bracketed. */
function fieldRef(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/.test(name)
    ? name
    : `['${name.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}']`;
}

/** An APL number literal that reads back as the same real (`0.001`, never `1e-3`). */
function real(n: number): string {
  const text = String(n);
  return /e/i.test(text) ? n.toFixed(12).replace(/0+$/, "") : text.includes(".") ? text : `${text}.0`;
}

/** The minutes of a duration as APL's timespan literal. */
function timespan(minutes: number): string {
  return minutes % 1440 === 0
    ? `${minutes / 1440}d`
    : minutes % 60 === 0
      ? `${minutes / 60}h`
      : `${minutes}m`;
}

/** The SLI's parts as APL: which events count, and which of them are bad. */
function sliPredicates(args: SloArgs): { total?: string; bad: string } {
  if (args.latency) {
    const field = fieldRef(args.latency.field);
    return { total: args.latency.total, bad: `not(${field} <= ${real(args.latency.thresholdMs)})` };
  }
  const events = args.events!;
  return { total: events.total, bad: events.bad !== undefined ? `(${events.bad})` : `not(${events.good})` };
}

/**
 * A pair's query: over the long window (the monitor's range), each group's burn rate in the long window and in the
 * last `shortMinutes`, and the lesser of the two as `burn_rate`, so the monitor fires only when both burn.
 */
export function burnRateQuery(
  args: SloArgs,
  longMinutes: number,
  shortMinutes: number,
  budget: number,
): string {
  const { total, bad } = sliPredicates(args);
  const by = (args.groupBy ?? []).map(fieldRef);
  const recent = `_time >= now() - ${timespan(shortMinutes)}`;
  return [
    datasetRef(args.dataset),
    ...(total ? [`| where ${total}`] : []),
    `| summarize long_total = count(), long_bad = countif(${bad}), ` +
      `short_total = countif(${recent}), short_bad = countif(${recent} and ${bad})` +
      (by.length > 0 ? ` by ${by.join(", ")}` : ""),
    `| extend long_burn = iff(long_total > 0, todouble(long_bad) / long_total / ${real(budget)}, 0.0), ` +
      `short_burn = iff(short_total > 0, todouble(short_bad) / short_total / ${real(budget)}, 0.0)`,
    `| extend ${BURN_RATE_COLUMN} = min_of(long_burn, short_burn)`,
    `| project ${[...by, BURN_RATE_COLUMN].join(", ")}`,
  ].join("\n");
}

/** The plan of an Slo named `name` (the component's name), or an {@link SloArgsError}. */
export function planSlo(name: string, raw: unknown): SloPlan {
  const result = validate(SloArgsSchema, raw);
  if (!result.ok) throw new SloArgsError(result.failures);
  const args = result.value;
  const displayName = args.displayName ?? name;
  const windowDays = args.windowDays ?? SLO_WINDOW_DAYS.default;
  const budget = Number((1 - args.objective / 100).toPrecision(12));
  const windowMinutes = windowDays * 1440;
  const grouped = (args.groupBy ?? []).length > 0;

  const monitors: PlannedMonitor[] = [];
  const keys = new Set([...Object.keys(DEFAULT_ALERT_WINDOWS), ...Object.keys(args.alertWindows ?? {})]);
  for (const key of keys) {
    const override = args.alertWindows?.[key];
    if (override?.enabled === false) continue;
    const base = DEFAULT_ALERT_WINDOWS[key];
    const severity = override?.severity ?? base.severity;
    const longMinutes = durationMinutes(override?.longWindow ?? base.longWindow)!;
    const shortMinutes = durationMinutes(override?.shortWindow ?? base.shortWindow)!;
    const share = override?.budgetPercent ?? base.budgetPercent;
    const burnRate = Number((((share / 100) * windowMinutes) / longMinutes).toPrecision(12));
    const intervalMinutes = INTERVAL_LADDER.filter((i) => i <= Math.max(1, shortMinutes / 5)).at(-1)!;
    const aplQuery = burnRateQuery(args, longMinutes, shortMinutes, budget);
    const ids = (severity === "page" ? args.pageNotifierIds : args.ticketNotifierIds) ?? [];
    monitors.push({
      key,
      severity,
      longMinutes,
      shortMinutes,
      burnRate,
      notifierIds: ids,
      monitor: {
        name: `${displayName}: ${severity}, burn rate ${burnRate} over ${timespan(longMinutes)} and ${timespan(shortMinutes)}`,
        description:
          `SLO ${displayName} (${args.objective}% over ${windowDays} days): ${share}% of the error budget spent ` +
          `within ${timespan(longMinutes)}, the last ${timespan(shortMinutes)} still burning.`,
        type: "Threshold",
        operator: "AboveOrEqual",
        threshold: burnRate,
        columnName: BURN_RATE_COLUMN,
        aplQuery,
        rangeMinutes: longMinutes,
        intervalMinutes,
        notifyByGroup: grouped,
        alertOnNoData: false,
      },
    });
  }

  const { total, bad } = sliPredicates(args);
  const base = [datasetRef(args.dataset), ...(total ? [`| where ${total}`] : [])].join("\n");
  const queries: Record<string, string> = Object.fromEntries(
    monitors.map((m) => [m.key, m.monitor.aplQuery]),
  );
  queries.sli = `${base}\n| summarize sli = 100.0 * (1.0 - todouble(countif(${bad})) / count())`;
  queries.budgetRemaining =
    `${base}\n| summarize bad = countif(${bad}), total = count()\n` +
    `| extend budget_remaining = 100.0 * (1.0 - (todouble(bad) / total) / ${real(budget)})\n| project budget_remaining`;
  queries.burnRate = `${base}\n| summarize ${BURN_RATE_COLUMN} = todouble(countif(${bad})) / count() / ${real(budget)} by bin(_time, 1h)`;

  const uid = `slo-${displayName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")}`.slice(0, 64);
  const dashboard =
    args.dashboard === false
      ? undefined
      : (monitorIds: readonly unknown[]) => ({
          uid,
          dashboard: {
            name: `SLO: ${displayName}`,
            description: `${args.objective}% over a rolling ${windowDays} days; error budget ${real(budget * 100)}% of events`,
            charts: [
              {
                id: "sli",
                type: "Statistic",
                name: `SLI over ${windowDays} days (%)`,
                query: { apl: queries.sli },
              },
              {
                id: "budget",
                type: "Statistic",
                name: "Error budget remaining (%)",
                query: { apl: queries.budgetRemaining },
              },
              {
                id: "burn",
                type: "TimeSeries",
                name: "Burn rate per hour",
                query: { apl: queries.burnRate },
              },
              {
                id: "alerts",
                type: "MonitorList",
                name: "Burn-rate alerts",
                selectedMonitors: [...monitorIds],
                columns: { status: true, history: true, dataset: false, type: false, notifiers: true },
              },
            ],
            layout: [
              { i: "sli", x: 0, y: 0, w: 3, h: 4 },
              { i: "budget", x: 3, y: 0, w: 3, h: 4 },
              { i: "alerts", x: 6, y: 0, w: 6, h: 4 },
              { i: "burn", x: 0, y: 4, w: 12, h: 6 },
            ],
            refreshTime: 300,
            schemaVersion: 2,
            timeWindowStart: `qr-now-${windowDays}d`,
            timeWindowEnd: "qr-now",
          },
        });
  return {
    displayName,
    objective: args.objective,
    windowDays,
    errorBudget: budget,
    monitors,
    queries,
    dashboard,
  };
}
