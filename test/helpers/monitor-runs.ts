/**
 * Test helpers for monitors that run: an emulator on a manual clock, events laid out at minute offsets from its
 * start, monitors created with the defaults a test does not care about, and their history.
 */
import { startEmulator, type EmulatorOptions, type MonitorRun, type RunningEmulator } from "../../emulator";
import { api } from "./emulator";

/** Where the manual clock starts in these tests: a whole hour, so minute offsets are easy to read. */
export const T0 = Date.UTC(2026, 0, 10, 12, 0, 0);

/** RFC 3339 of `T0` plus `minutes` (and `seconds`). */
export const at = (minutes: number, seconds = 0): string =>
  new Date(T0 + minutes * 60_000 + seconds * 1000).toISOString().replace(".000Z", "Z");

/** An emulator on a manual clock at {@link T0} (or `now`), with dataset `logs`. */
export function startManual(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  return startEmulator({
    port: 0,
    clock: "manual",
    now: new Date(T0).toISOString(),
    datasets: ["logs"],
    ...options,
  });
}

/** Ingests events into `dataset`; each `_time` is given (see {@link at}). Fails the test on anything but 200. */
export async function ingest(
  em: RunningEmulator,
  events: Record<string, unknown>[],
  dataset = "logs",
): Promise<void> {
  const res = await api(em, "POST", `/v1/datasets/${dataset}/ingest`, events);
  if (res.status !== 200 || res.body.failed !== 0) throw new Error(`ingest: ${res.status} ${res.text}`);
}

/** `n` events at minute `minute` (seconds 1…n spread inside it), each with `fields`. */
export function eventsAt(
  minute: number,
  n: number,
  fields: Record<string, unknown> = {},
): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, i) => ({ _time: at(minute, 1 + ((i * 50) % 58)), ...fields }));
}

/** A threshold monitor on `logs` running every minute over one minute, with `fields` on top. */
export async function createMonitor(
  em: RunningEmulator,
  fields: Record<string, unknown>,
): Promise<{ id: string } & Record<string, unknown>> {
  const res = await api(em, "POST", "/v2/monitors", {
    name: "test monitor",
    type: "Threshold",
    aplQuery: "['logs'] | summarize count()",
    operator: "Above",
    threshold: 0,
    intervalMinutes: 1,
    rangeMinutes: 1,
    ...fields,
  });
  if (res.status !== 200) throw new Error(`create monitor: ${res.status} ${res.text}`);
  return res.body;
}

/** A monitor's history over all time. */
export async function historyOf(
  em: RunningEmulator,
  id: string,
): Promise<{ checkId: string; name: string; state: string; timestamp: string }[]> {
  const res = await api(
    em,
    "GET",
    `/v2/monitors/${id}/history?startTime=2000-01-01T00:00:00Z&endTime=2100-01-01T00:00:00Z`,
  );
  if (res.status !== 200) throw new Error(`history: ${res.status} ${res.text}`);
  return res.body;
}

/** The runs of one monitor, as `[time offset in minutes, state]`, for compact expectations. */
export function statesOf(runs: readonly MonitorRun[], monitorId: string): [number, string][] {
  return runs
    .filter((r) => r.monitorId === monitorId)
    .map((r) => [(Date.parse(r.time) - T0) / 60_000, r.state]);
}

/** The alert events of one monitor's runs, as `[minute, action, groupValues, value]`. */
export function alertsOf(
  runs: readonly MonitorRun[],
  monitorId: string,
): [number, string, string[] | null, number | null][] {
  return runs
    .filter((r) => r.monitorId === monitorId)
    .flatMap((r) =>
      r.alerts.map(
        (a) =>
          [(Date.parse(r.time) - T0) / 60_000, a.action, a.groupValues, a.value] as [
            number,
            string,
            string[] | null,
            number | null,
          ],
      ),
    );
}
