/**
 * What the scheduler remembers of a monitor between runs: each alert (the whole monitor, or one group with
 * `notifyByGroup`) with whether it is open and the last runs' results, and a match monitor's recent sends. Plain
 * JSON, saved in the state after every run, so that with `--data` a restart opens no alert a second time.
 *
 * An alert is open while at least N of the last M runs crossed, M = `triggerFromNRuns` (at least 1) and
 * N = `triggerAfterNPositiveResults` (GO: axiom-go axiom/monitors.go; N = 0 reads as N = M, our inference, and N is
 * at most M). With the defaults (M = 1, N = 1) an alert opens on the first run that crosses and closes on the first
 * that does not. Closing when fewer than N of the last M crossed is our choice: no source says when such an alert
 * closes.
 */
import type { MonitorAlertRecord } from "../state";

/** One alert of a monitor: the whole monitor (key `[]`), one group, or the no-data alert of a grouped monitor. */
export interface AlertEntry {
  open: boolean;
  /** The id of the open alert's history entries (its open and its close share it). */
  checkId?: string;
  /** The last runs' results, oldest first, at most M of them: true when the run crossed. */
  recent: boolean[];
  groupKeys: string[] | null;
  groupValues: string[] | null;
  /** The last value seen. */
  value: number | null;
}

/** A monitor's alert state. */
export interface MonitorAlerts {
  alerts: Record<string, AlertEntry>;
  /** A match monitor's notification times (ms) in the last day, oldest first: its rate limits' memory. */
  sent: number[];
}

/** The alert state of a monitor as saved, or a fresh one (nothing saved, or a record of an older shape). */
export function readAlerts(record: MonitorAlertRecord | undefined): MonitorAlerts {
  const alerts: Record<string, AlertEntry> = {};
  const saved = record?.alerts;
  if (typeof saved === "object" && saved !== null) {
    for (const [key, raw] of Object.entries(saved as Record<string, Partial<AlertEntry>>)) {
      if (typeof raw !== "object" || raw === null || typeof raw.open !== "boolean") continue;
      alerts[key] = {
        open: raw.open,
        checkId: typeof raw.checkId === "string" ? raw.checkId : undefined,
        recent: Array.isArray(raw.recent) ? raw.recent.filter((r) => typeof r === "boolean") : [],
        groupKeys: Array.isArray(raw.groupKeys) ? raw.groupKeys.map(String) : null,
        groupValues: Array.isArray(raw.groupValues) ? raw.groupValues.map(String) : null,
        value: typeof raw.value === "number" ? raw.value : null,
      };
    }
  }
  const sent = Array.isArray(record?.sent)
    ? (record.sent as unknown[]).filter((t) => typeof t === "number")
    : [];
  return { alerts, sent: sent as number[] };
}

/**
 * A copy of the state that judging may change while the original stays as it was. Only `recent` and `sent` are
 * changed in place (by {@link step} and {@link takeMatchSend}); an entry's group arrays are replaced, never
 * changed, so they are shared. Cheaper than a deep clone, which a month of one-minute runs felt.
 */
export function copyAlerts(state: MonitorAlerts): MonitorAlerts {
  const alerts: Record<string, AlertEntry> = {};
  for (const key in state.alerts) {
    const e = state.alerts[key];
    alerts[key] = { ...e, recent: e.recent.slice() };
  }
  return { alerts, sent: state.sent.slice() };
}

/** The state as saved: plain JSON. */
export function alertsRecord(state: MonitorAlerts): MonitorAlertRecord {
  return { alerts: state.alerts, sent: state.sent };
}

/** M and N of a monitor, as {@link AlertEntry.recent} is judged. */
export interface TriggerRule {
  /** Runs considered (M). */
  runs: number;
  /** Of them, how many must cross (N). */
  positives: number;
}

/** The rule of a monitor's `triggerFromNRuns` / `triggerAfterNPositiveResults` (see the module's comment). */
export function triggerRule(monitor: {
  triggerFromNRuns: number;
  triggerAfterNPositiveResults: number;
}): TriggerRule {
  const m = Math.max(1, Math.trunc(monitor.triggerFromNRuns || 1));
  const n = Math.trunc(monitor.triggerAfterNPositiveResults || 0);
  return { runs: m, positives: n <= 0 ? m : Math.min(n, m) };
}

/** What one run did to one alert. */
export type Transition = "opened" | "stayed-open" | "closed" | "stayed-closed";

/** Records one run's result on an alert and answers what it did. */
export function step(entry: AlertEntry, crossed: boolean, rule: TriggerRule): Transition {
  entry.recent.push(crossed);
  if (entry.recent.length > rule.runs) entry.recent.splice(0, entry.recent.length - rule.runs);
  let positives = 0;
  for (const r of entry.recent) if (r) positives++;
  const inAlert = positives >= rule.positives;
  if (inAlert === entry.open) return inAlert ? "stayed-open" : "stayed-closed";
  entry.open = inAlert;
  return inAlert ? "opened" : "closed";
}

/**
 * A match monitor's limits (DOCS match-monitors: axiomhq/docs monitor-data/match-monitors.mdx): 10 notifications
 * a minute and 500 a day per monitor. Both windows slide; `sent` keeps the day's send times.
 */
export const MATCH_LIMITS = { perMinute: 10, perDay: 500 } as const;

/** Whether one more match notification may go at `nowMs`; if so it is counted. Trims times older than a day. */
export function takeMatchSend(state: MonitorAlerts, nowMs: number): boolean {
  const dayAgo = nowMs - 86_400_000;
  let drop = 0;
  while (drop < state.sent.length && state.sent[drop] <= dayAgo) drop++;
  if (drop > 0) state.sent.splice(0, drop);
  if (state.sent.length >= MATCH_LIMITS.perDay) return false;
  const minuteAgo = nowMs - 60_000;
  let lastMinute = 0;
  for (let i = state.sent.length - 1; i >= 0 && state.sent[i] > minuteAgo; i--) lastMinute++;
  if (lastMinute >= MATCH_LIMITS.perMinute) return false;
  state.sent.push(nowMs);
  return true;
}
