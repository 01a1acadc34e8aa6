/**
 * What the console shows, read from the emulator's own state: its datasets (counts, the latest event's time, ingest
 * in the last minute, fields), its monitors (type, alert state with open groups, last run, notifiers) and one
 * monitor's detail (its last runs drawn by the shared chart module, emulator/chart/, and its history). The page's
 * script asks for these (emulator/console/index.ts); the clock, the outbox and the query box use the emulator's
 * own routes.
 *
 * Light by construction: each answer carries a version (an ETag) that changes only when what it shows may have
 * changed, so a console that polls is answered 304 with no body, and nothing here scans more than it shows (the
 * fields are those of the latest events, a bounded number).
 */
import { alertPeriods, runChart, type ChartNode } from "../chart";
import { readAlerts } from "../alerting/alert-state";
import type { EmulatorControl, MonitorRun } from "../alerting/types";
import type { EmulatorContext } from "../context";
import { seenFields, DATASETS } from "../routes/datasets";
import type { StoredObject } from "../state";
import type { StoredEvent } from "../store/events";

/** Runs kept per monitor for its chart: an hour of a 1-minute monitor. */
export const RUNS_KEPT = 60;
/** Groups' values kept per run (the chart's lines), and open groups listed per monitor. */
export const GROUPS_SHOWN = 20;
/** The events whose fields a dataset lists: the latest ones, so the cost stays flat as a dataset grows. */
export const FIELDS_SAMPLE = 1_000;
/** History entries shown per monitor, newest first. */
export const HISTORY_SHOWN = 50;

const MINUTE_NS = 60_000_000_000n;

/**
 * The last {@link RUNS_KEPT} runs of each monitor, recorded as the scheduler makes them, and a version that moves
 * with every run and every change of the state (a monitor created, edited, deleted; an alert's state).
 */
export class RecentRuns {
  private readonly byMonitor = new Map<string, MonitorRun[]>();
  private counter = 0;

  /** Records a run (the scheduler's `onRun`). */
  record(run: MonitorRun): void {
    let runs = this.byMonitor.get(run.monitorId);
    if (!runs) this.byMonitor.set(run.monitorId, (runs = []));
    const kept: MonitorRun =
      run.values.length > GROUPS_SHOWN ? { ...run, values: run.values.slice(0, GROUPS_SHOWN) } : run;
    runs.push(kept);
    if (runs.length > RUNS_KEPT) runs.splice(0, runs.length - RUNS_KEPT);
    this.counter++;
  }

  /** A change that is not a run: the version moves. */
  touch(): void {
    this.counter++;
  }

  /** Forgets a deleted monitor's runs. */
  forget(monitorId: string): void {
    this.byMonitor.delete(monitorId);
    this.counter++;
  }

  of(monitorId: string): readonly MonitorRun[] {
    return this.byMonitor.get(monitorId) ?? [];
  }

  get version(): number {
    return this.counter;
  }
}

/**
 * What the console needs besides the routes. Declared here, with no route types, so that the server's public
 * typings (`pulumi-observability/emulator`) reach no HTTP toolkit or zod through it.
 */
export interface ConsoleSettings {
  control: EmulatorControl;
  runs: RecentRuns;
  /** The token the page may use by itself (the published development token), or undefined. */
  developmentToken: string | undefined;
  /** Whether a `Host` header's name is a loopback one. */
  isLoopbackHost(host: string): boolean;
}

/** One dataset as the console lists it. */
export interface ConsoleDataset {
  name: string;
  events: number;
  /** The latest event's `_time` (RFC 3339), null without events. */
  latestEventTime: string | null;
  /** Events ingested in the last minute of the clock (by `_sysTime`). */
  ingestLastMinute: number;
  /** Fields of the last {@link FIELDS_SAMPLE} events the store holds (the latest, or the last to arrive). */
  fields: { name: string; type: string }[];
  /** Whether the fields come from part of the events only. */
  fieldsSampled: boolean;
}

/**
 * A dataset's events as the store holds them, not sorted for the console: a late batch leaves them out of order
 * until the next query sorts them, and a sort of 100,000 rows on each poll would cost the emulator what the
 * console must not (bench/console.mts). The figures below need no order.
 */
function asStored(em: EmulatorContext, name: string): readonly StoredEvent[] {
  return (em.store.eventsAsStored ? em.store.eventsAsStored(name) : em.store.events(name)) ?? [];
}

const iso = (ns: bigint) => new Date(Number(ns / 1_000_000n)).toISOString();

/** A dataset's figures, cached until its event count or the clock's minute moves. */
interface DatasetCache {
  key: string;
  value: ConsoleDataset;
}
const datasetCaches = new WeakMap<EmulatorContext, Map<string, DatasetCache>>();

/** Every dataset's figures. */
export function consoleDatasets(em: EmulatorContext): ConsoleDataset[] {
  let caches = datasetCaches.get(em);
  if (!caches) datasetCaches.set(em, (caches = new Map()));
  const nowNs = em.clock.nowNs();
  const names = new Set([
    ...em.state
      .collection(DATASETS)
      .list()
      .map((d) => d.id),
    ...em.store.names(),
  ]);
  const out: ConsoleDataset[] = [];
  for (const name of [...names].sort()) {
    const rows = asStored(em, name);
    // The count and the last row id change with every append, trim or drop; the second moves the minute's window.
    const key = `${rows.length}:${rows.length ? rows[rows.length - 1].rowId : ""}:${nowNs / 1_000_000_000n}`;
    const cached = caches.get(name);
    if (cached?.key === key) {
      out.push(cached.value);
      continue;
    }
    let ingested = 0;
    let latest: bigint | undefined;
    const since = nowNs - MINUTE_NS;
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i];
      if (row.sysTimeNs > since) ingested++;
      if (latest === undefined || row.timeNs > latest) latest = row.timeNs;
    }
    const sample = rows.length > FIELDS_SAMPLE ? rows.slice(rows.length - FIELDS_SAMPLE) : rows;
    const value: ConsoleDataset = {
      name,
      events: rows.length,
      latestEventTime: latest === undefined ? null : iso(latest),
      ingestLastMinute: ingested,
      fields: [...seenFields(sample)]
        .map(([field, types]) => ({ name: field, type: [...types].sort().join("|") }))
        .sort((a, b) => a.name.localeCompare(b.name)),
      fieldsSampled: sample.length < rows.length,
    };
    caches.set(name, { key, value });
    out.push(value);
  }
  for (const name of caches.keys()) if (!names.has(name)) caches.delete(name);
  return out;
}

/** A version of {@link consoleDatasets}'s answer: it changes whenever the answer may. */
export function datasetsVersion(em: EmulatorContext): string {
  let v = `${em.clock.nowNs() / 1_000_000_000n}`;
  for (const name of em.store.names()) {
    const rows = asStored(em, name);
    v += `|${name}:${rows.length}:${rows.length ? rows[rows.length - 1].rowId : ""}`;
  }
  return `${v}|${em.state.collection(DATASETS).list().length}`;
}

/** One monitor as the console lists it. */
export interface ConsoleMonitor {
  id: string;
  name: string;
  type: string;
  /** `open` with an alert open, `ok`, `disabled`, or `error` when its last run failed. */
  state: "open" | "ok" | "disabled" | "error";
  /** The groups whose alert is open (their values joined), at most {@link GROUPS_SHOWN}; `openCount` counts all. */
  openGroups: string[];
  openCount: number;
  intervalMinutes: number;
  rule: string;
  notifierIds: string[];
  lastRun: {
    time: string;
    state: MonitorRun["state"];
    values: { group: string; value: number | null }[];
    error?: string;
  } | null;
}

const groupText = (group: Record<string, unknown>) =>
  Object.entries(group)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(", ");

/** A monitor's rule in words. */
function ruleOf(m: StoredObject): string {
  switch (m.type) {
    case "Threshold":
      return `alert when the value is ${String(m.operator)} ${String(m.threshold)}`;
    case "AnomalyDetection":
      return `anomaly ${String(m.operator)} the last ${String(m.compareDays)} days, tolerance ${String(m.tolerance)}%`;
    case "MatchEvent":
      return "one notification per matching event";
    default:
      return String(m.type ?? "");
  }
}

function monitorRow(m: StoredObject, em: EmulatorContext, runs: RecentRuns): ConsoleMonitor {
  const alerts = readAlerts(em.state.alertState(m.id));
  const open = Object.values(alerts.alerts).filter((a) => a.open);
  const last = runs.of(m.id).at(-1);
  const disabled = m.disabled === true;
  return {
    id: m.id,
    name: String(m.name ?? ""),
    type: String(m.type ?? ""),
    state: disabled ? "disabled" : open.length ? "open" : last?.state === "error" ? "error" : "ok",
    openGroups: open
      .slice(0, GROUPS_SHOWN)
      .map((a) => (a.groupValues && a.groupValues.length ? a.groupValues.join(", ") : "(all)")),
    openCount: open.length,
    intervalMinutes: typeof m.intervalMinutes === "number" ? m.intervalMinutes : 1,
    rule: ruleOf(m),
    notifierIds: Array.isArray(m.notifierIds) ? m.notifierIds.map(String) : [],
    lastRun: last
      ? {
          time: last.time,
          state: last.state,
          values: last.values.slice(0, 5).map((v) => ({ group: groupText(v.group), value: v.value })),
          ...(last.error === undefined ? {} : { error: last.error }),
        }
      : null,
  };
}

/** Every monitor, in creation order. */
export function consoleMonitors(em: EmulatorContext, runs: RecentRuns): ConsoleMonitor[] {
  return em.state
    .collection("monitors")
    .list()
    .map((m) => monitorRow(m, em, runs));
}

/** A time as the console's chart writes it: the clock's UTC time of day, with the date when it is not today's. */
function clockLabel(nowMs: number): (ms: number) => string {
  const today = new Date(nowMs).toISOString().slice(0, 10);
  return (ms) => {
    const iso = new Date(ms).toISOString();
    return iso.slice(0, 10) === today ? iso.slice(11, 16) : `${iso.slice(5, 10)} ${iso.slice(11, 16)}`;
  };
}

/** One monitor in full: its row, its chart, its history and its query. */
export interface ConsoleMonitorDetail extends ConsoleMonitor {
  aplQuery: string;
  chart: ChartNode;
  /** Opens and closes, newest first, at most {@link HISTORY_SHOWN}. */
  history: { time: string; state: string; checkId: string }[];
  runs: { time: string; state: string; values: string; error?: string; reason?: string }[];
}

/** One monitor's detail, or undefined when there is no such monitor. */
export function consoleMonitor(
  em: EmulatorContext,
  runs: RecentRuns,
  id: string,
): ConsoleMonitorDetail | undefined {
  const m = em.state.collection("monitors").get(id);
  if (!m) return undefined;
  const row = monitorRow(m, em, runs);
  const recent = runs.of(id);
  const nowMs = em.clock.nowMs();
  const intervalMs = row.intervalMinutes * 60_000;
  const startMs = recent.length
    ? Math.min(Date.parse(recent[0].time), nowMs - intervalMs)
    : nowMs - 60 * intervalMs;
  const label = clockLabel(nowMs);
  const threshold = m.type === "Threshold" && typeof m.threshold === "number" ? m.threshold : undefined;
  const chart = runChart({
    id: `chart-${id.replace(/[^A-Za-z0-9_-]/g, "-")}`,
    label: `${row.name}: the last ${recent.length} runs' values${threshold === undefined ? "" : ` against the threshold ${threshold}`} (UTC)`,
    startMs,
    endMs: Math.max(nowMs, startMs + 1),
    runs: recent,
    threshold,
    periods: m.type === "MatchEvent" ? [] : alertPeriods(recent, nowMs),
    marks: recent.flatMap((r) =>
      r.alerts.map((a) => ({
        timeMs: Date.parse(r.time),
        action: a.action,
        words: `${a.action} at ${label(Date.parse(r.time))}${a.groupValues && a.groupValues.length ? ` for ${a.groupValues.join(", ")}` : ""}${a.value === null ? "" : `, value ${a.value}`}`,
        notifiers: row.notifierIds,
      })),
    ),
    timeLabel: label,
    openEnd: "now",
  });
  return {
    ...row,
    aplQuery: String(m.aplQuery ?? ""),
    chart,
    history: [...em.state.history(id)]
      .slice(-HISTORY_SHOWN)
      .reverse()
      .map((e) => ({ time: e.timestamp, state: e.state, checkId: e.checkId })),
    runs: [...recent].reverse().map((r) => ({
      time: r.time,
      state: r.state,
      values: r.values
        .map(
          (v) =>
            `${Object.keys(v.group).length ? `${groupText(v.group)}: ` : ""}${v.value === null ? "no data" : v.value}`,
        )
        .join("; "),
      ...(r.error === undefined ? {} : { error: r.error }),
      // A skipped run's reason names the run still under way (the scheduler's skip), shown as a failed run's error is.
      ...(r.reason === undefined ? {} : { reason: r.reason }),
    })),
  };
}
