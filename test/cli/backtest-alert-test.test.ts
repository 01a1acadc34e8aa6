/**
 * A backtest over events and an alert test over the same events give the same notifications (issue: "The same
 * answer both ways"): the file's events are laid out by the alert-test loader, run by `test alerts` on its own
 * in-process emulator, and ingested into another emulator that a backtest of the same file's monitors reads as
 * the service, over the same period. Each monitor's notifications (time, action, group) agree.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ObservabilityClient } from "../../provider/client";
import { loadAlertTest } from "../../cli/alert-test/load";
import { runAlertTest } from "../../cli/alert-test/run";
import { periodsOf } from "../../cli/backtest/html";
import { summarize } from "../../cli/backtest/report";
import { backtest } from "../../cli/backtest/run";
import { loadMonitors } from "../../cli/backtest/sources";
import { api, useEmulator } from "../helpers/emulator";

const FILE = `start: 2024-06-03T00:00:00Z
until: 40m
datasets: [web, app, shop]
notifiers:
  slack: { name: On-call, properties: { slack: { slackUrl: "https://hooks.slack.com/services/T/B/X" } } }
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
    notifyByGroup: true
    triggerFromNRuns: 2
    triggerAfterNPositiveResults: 1
    notifierIds: [slack]
  p95:
    name: Slow checkout
    type: Threshold
    aplQuery: "['shop'] | summarize percentile(ms, 95) by bin(_time, 1m)"
    operator: Above
    threshold: 400
    notifierIds: [slack]
events:
  - generate:
      dataset: web
      rate: 60/m
      for: 40m
      fields: { status: 200 }
      mix: [{ share: 20%, from: 10m, for: 5m, fields: { status: 503 } }]
  - { at: 25m, dataset: app, event: { level: fatal }, times: 2, every: 5m }
  - generate:
      dataset: shop
      rate: 60/m
      for: 40m
      fields: { status: 200, route: /home, ms: 120 }
      mix:
        - { share: 20%, from: 10m, for: 5m, fields: { status: 503, route: /checkout, ms: 900 } }
        - { share: 20%, from: 30m, for: 3m, fields: { status: 503, route: /search, ms: 700 } }
expect:
  - { monitor: errors, action: Open, by: 12m }
`;

const em = useEmulator({ clock: "manual", now: "2024-06-03T06:00:00Z", datasets: ["web", "app", "shop"] });
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "backtest-alert-test-"));
  writeFileSync(join(dir, "alerts.test.yaml"), FILE);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("gives each monitor the notifications the alert test's emulator sent", async () => {
  const file = join(dir, "alerts.test.yaml");
  const test = await loadAlertTest(file);
  const outcome = await runAlertTest(test);
  for (const dataset of ["web", "app", "shop"]) {
    const events = test.events
      .filter((e) => e.dataset === dataset)
      .map((e) => ({ _time: new Date(e.timeMs).toISOString(), ...e.data }));
    for (let i = 0; i < events.length; i += 5000) {
      const res = await api(em.current, "POST", `/v1/datasets/${dataset}/ingest`, events.slice(i, i + 5000));
      expect(res.status).toBe(200);
    }
  }
  const client = new ObservabilityClient({ url: em.current.url, token: em.current.token });
  let results;
  try {
    results = await backtest(client, await loadMonitors({ testFile: file }), {
      fromMs: test.startMs,
      toMs: test.startMs + test.untilMs,
    });
  } finally {
    await client.close();
  }
  const byName = new Map(results.map((r) => [r.monitor.name, r]));
  let compared = 0;
  for (const name of ["Errors above 5 a minute", "Fatal lines", "Server errors by route", "Slow checkout"]) {
    const expected = outcome.runs
      .filter((r) => r.monitorName === name)
      .flatMap((r) => r.alerts.map((a) => `${r.time} ${a.action} ${JSON.stringify(a.groupValues)}`));
    const got = byName
      .get(name)!
      .runs.flatMap((r) =>
        r.judged.events.map(
          (e) =>
            `${new Date(r.runMs).toISOString().replace(".000Z", "Z")} ${e.action} ${JSON.stringify(e.groupValues)}`,
        ),
      );
    expect({ name, got }).toEqual({ name, got: expected });
    compared += expected.length;
  }
  // Both paths are exercised, and the monitors did notify.
  expect(new Set(results.map((r) => r.path))).toEqual(new Set(["service", "events"]));
  expect(compared).toBeGreaterThanOrEqual(8);
  // A match monitor's alerts are its matching events: listed, never closed, and no time in alert (each counted to
  // the period's end summed to more than the period); its report shades no period.
  const period = { fromMs: test.startMs, toMs: test.startMs + test.untilMs };
  const fatal = byName.get("Fatal lines")!;
  const summary = summarize(fatal, period);
  expect(summary.alerts.map((a) => [a.open, a.close])).toEqual([
    ["2024-06-03T00:26:00Z", null],
    ["2024-06-03T00:31:00Z", null],
  ]);
  expect([summary.timeInAlertSeconds, summary.longestAlertSeconds]).toEqual([0, 0]);
  expect(periodsOf(fatal, period.toMs)).toEqual([]);
  expect(summarize(byName.get("Errors above 5 a minute")!, period).timeInAlertSeconds).toBeGreaterThan(0);
});
