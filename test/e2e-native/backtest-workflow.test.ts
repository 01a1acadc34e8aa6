/**
 * The pull-request workflow of docs/backtesting.md ("In a pull request"), its commands run as the workflow runs
 * them: a Pulumi YAML program previewed by the real engine twice with `pulumi preview --json --show-sames`, the
 * base branch's program and then the pull request's (the error monitor's threshold lowered and the monitor rewired
 * from one notifier to another), and the diff run by the built CLI (`dist/cli/index.js`, what `npx -p
 * pulumi-observability observability` starts) with a query-only token against an emulator holding a week of
 * traffic with incidents laid down by hand. The markdown and the JSON are checked against counts worked out below.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { exec, mustExec } from "../../scripts/shared/commands";
import { demoFolder, editProgram, NODE, openHarnessIn, ROOT, toolPath, type Harness } from "./flagship";
import type { BacktestReport, MonitorDiff } from "../../cli/backtest/report";
import { UNKNOWN } from "../../provider/resources/unknowns";

const cli = toolPath("pulumi-path.mts");
const host = toolPath("pulumi-yaml.mts");
const reason = cli.reason ?? host.reason;
const maybe = cli.path && host.path ? describe : describe.skip;
if (reason) console.warn(`backtest workflow on real previews: skipped: ${reason}`);

const OBSERVABILITY = path.join(ROOT, "dist", "cli", "index.js");

/**
 * The base branch's program: two notifiers, and two threshold monitors counting over five minutes every five
 * minutes. The checkout-latency monitor stays as it is and comes first in the previews (the error monitor depends
 * on it: the YAML host's order of independent resources is its own), so that the markdown's leading with the
 * monitor whose paging changed is the diff's doing, not the order the preview lists them in.
 */
const PROGRAM = `name: backtest-workflow
runtime: yaml

resources:
  oncall-slack:
    type: observability:Notifier
    properties:
      name: On-call Slack
      properties:
        slack:
          slackUrl: https://hooks.slack.com/services/T0000/B0000/backtestworkflow

  checkout-email:
    type: observability:Notifier
    properties:
      name: Checkout team email
      properties:
        email:
          emails: [checkout-team@example.com]

  checkout-latency:
    type: observability:Monitor
    properties:
      name: Checkout latency
      type: Threshold
      aplQuery: "['http-logs'] | where duration_ms > 2000 | summarize count()"
      operator: Above
      threshold: 20
      intervalMinutes: 5
      rangeMinutes: 5
      notifierIds:
        - \${oncall-slack.id}

  error-rate:
    type: observability:Monitor
    properties:
      name: Checkout 5xx rate
      type: Threshold
      aplQuery: "['http-logs'] | where status >= 500 | summarize count()"
      operator: Above
      threshold: 25
      intervalMinutes: 5
      rangeMinutes: 5
      notifierIds:
        - \${oncall-slack.id}
    options:
      # Registered after checkout-latency, so that the preview lists the unchanged monitor first.
      dependsOn:
        - \${checkout-latency}
`;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** RFC 3339 to the second, as the report writes times. */
const rfc = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");

/**
 * A week of the checkout's traffic up to `nowMs`, and the incidents in it. Every minute one request answered 200
 * in 100 ms; at minute 2 of every hour one 500 (one error in a five-minute window: below both thresholds). The
 * incidents start at half past an hour, a multiple of five minutes, so that each lines up with the monitors'
 * five-minute runs (the grid is epoch-aligned: emulator/alerting/judge.ts, runTimes) and no hourly error falls in
 * their windows. `count` events spread over each five-minute window from `start`:
 * - A, six days ago: 60 errors in each of three windows (15 minutes);
 * - B, four days ago: 15 errors in each of two windows (10 minutes);
 * - C, two days ago: 15 errors in one window;
 * - D, one day ago: 5 errors in one window;
 * - E, three days ago: 30 slow requests (3 s, answered 200) in one window.
 */
function week(nowMs: number) {
  const hour = Math.floor(nowMs / HOUR) * HOUR;
  const at = (daysAgo: number) => hour - daysAgo * DAY + 30 * MINUTE;
  const incidents = { A: at(6), B: at(4), C: at(2), D: at(1), E: at(3) };
  const events: Record<string, unknown>[] = [];
  for (let t = Math.ceil((nowMs - 7 * DAY) / MINUTE) * MINUTE; t < nowMs; t += MINUTE) {
    events.push({ _time: new Date(t).toISOString(), status: 200, duration_ms: 100 });
    if (t % HOUR === 2 * MINUTE)
      events.push({ _time: new Date(t).toISOString(), status: 500, duration_ms: 20 });
  }
  const burst = (start: number, windows: number, count: number, event: Record<string, unknown>) => {
    for (let w = 0; w < windows; w++)
      for (let i = 0; i < count; i++) {
        const t = start + w * 5 * MINUTE + Math.floor((i * 5 * MINUTE) / count);
        events.push({ ...event, _time: new Date(t).toISOString() });
      }
  };
  const error = { status: 503, duration_ms: 30 };
  burst(incidents.A, 3, 60, error);
  burst(incidents.B, 2, 15, error);
  burst(incidents.C, 1, 15, error);
  burst(incidents.D, 1, 5, error);
  burst(incidents.E, 1, 30, { status: 200, duration_ms: 3000 });
  return { events, incidents };
}

maybe("the pull-request workflow of docs/backtesting.md under the real engine", () => {
  let h: Harness;
  let base: string;
  let head: string;
  let incidents: ReturnType<typeof week>["incidents"];
  /** The workflow's environment for the backtest step: the service's URL and org, a query-only token. */
  let ciEnv: NodeJS.ProcessEnv;

  /** `pulumi <args> --stack dev --non-interactive` in the program's folder; resolves with standard output. */
  const pulumi = (args: string[], input?: string) =>
    mustExec(h.pulumi, [...args, "--stack", "dev", "--non-interactive"], { cwd: h.work, env: h.env, input });

  /** The built CLI as the workflow's step runs it, in the folder the previews were saved to. */
  const observability = (args: string[]) => exec(NODE, [OBSERVABILITY, ...args], { cwd: h.work, env: ciEnv });

  beforeAll(async () => {
    const work = path.join(demoFolder("backtest-workflow-"), "program");
    mkdirSync(work);
    writeFileSync(path.join(work, "Pulumi.yaml"), PROGRAM);
    h = await openHarnessIn(cli.path!, work, [host.path!]);
    await mustExec(
      h.pulumi,
      ["stack", "init", "dev", "--secrets-provider", "passphrase", "--non-interactive"],
      { cwd: h.work, env: h.env },
    );
    await pulumi(["config", "set", "observability:url", h.em.url]);
    await pulumi(["config", "set", "--secret", "observability:token"], h.em.token);

    // The base branch's stack, then the pull request's: the threshold lowered from 25 to 10 and the monitor
    // rewired from the on-call Slack to the team's email. Neither is deployed: a preview reads no service.
    base = await pulumi(["preview", "--json", "--show-sames"]);
    writeFileSync(path.join(h.work, "base.json"), base);
    editProgram(h.work, "Pulumi.yaml", "threshold: 25", "threshold: 10");
    editProgram(
      h.work,
      "Pulumi.yaml",
      "      threshold: 10\n      intervalMinutes: 5\n      rangeMinutes: 5\n      notifierIds:\n        - ${oncall-slack.id}",
      "      threshold: 10\n      intervalMinutes: 5\n      rangeMinutes: 5\n      notifierIds:\n        - ${checkout-email.id}",
    );
    head = await pulumi(["preview", "--json", "--show-sames"]);
    writeFileSync(path.join(h.work, "head.json"), head);

    // The service: the dataset the monitors read, holding the week, and the read-only token the workflow's
    // secret holds (query rights on that dataset, nothing else).
    await h.client.datasets.create({ name: "http-logs", description: "Access logs of the checkout API." });
    const traffic = week(Date.now());
    incidents = traffic.incidents;
    await h.client.ingest("http-logs", traffic.events);
    const token = await h.client.tokens.create({
      name: "backtest in CI",
      datasetCapabilities: { "http-logs": { query: ["read"] } },
    });
    ciEnv = {
      PATH: process.env.PATH,
      OBSERVABILITY_URL: h.em.url,
      OBSERVABILITY_ORG_ID: h.em.orgId,
      OBSERVABILITY_TOKEN: token.token!,
    };
  }, 10 * 60_000);
  afterAll(async () => h?.close());

  test("the previews propose creates only, the notifiers' ids unknown: the wiring is in the monitors' property dependencies", () => {
    /** Each monitor's threshold, notifier ids and the resources its notifierIds depend on, as the preview says,
     * in the preview's order (the unchanged monitor first: the markdown's order below is then the diff's). */
    const wiring = (preview: string) => {
      const doc = JSON.parse(preview) as {
        changeSummary: Record<string, number>;
        steps: {
          urn: string;
          newState?: {
            type: string;
            inputs: { threshold?: number; notifierIds?: string[] };
            propertyDependencies?: Record<string, string[]>;
          };
        }[];
      };
      expect(doc.changeSummary).toEqual({ create: 5 });
      return doc.steps
        .filter((s) => s.newState?.type === "observability:index:Monitor")
        .map((s) => [
          s.urn.split("::").at(-1),
          s.newState!.inputs.threshold,
          s.newState!.inputs.notifierIds,
          s.newState!.propertyDependencies?.notifierIds?.map((urn) => urn.split("::").at(-1)),
        ]);
    };
    // No notifier exists yet: each monitor's notifierIds is Pulumi's marker of a value unknown at preview.
    const unknown = [UNKNOWN];
    expect(wiring(base)).toEqual([
      ["checkout-latency", 20, unknown, ["oncall-slack"]],
      ["error-rate", 25, unknown, ["oncall-slack"]],
    ]);
    expect(wiring(head)).toEqual([
      ["checkout-latency", 20, unknown, ["oncall-slack"]],
      ["error-rate", 10, unknown, ["checkout-email"]],
    ]);
  });

  /*
   * What each monitor would have done over the week, worked out by hand. A run at r counts [r − 5 min, r)
   * (secondDelay 0), so an incident window [t, t + 5 min) is seen by the run at t + 5 min, and an alert opened by
   * the run after an incident's first window closes at the run after its last (each a notification: Open, then
   * Closed):
   * - Checkout 5xx rate, base (above 25, to oncall-slack): A only (60 > 25; B's and C's 15, D's 5 and the hourly
   *   1 are not): 1 alert, A + 5 min to A + 20 min, 15 min in alert; oncall-slack 2 notifications.
   * - Checkout 5xx rate, head (above 10, to checkout-email): A (15 min), B (B + 5 min to B + 15 min, 10 min) and C
   *   (5 min); D's 5 is not above 10: 3 alerts, 30 min; checkout-email 6 notifications, oncall-slack none.
   *   The first alert that moved: A is the same on both sides, B is the earliest of the head's others.
   * - Checkout latency, both sides (above 20, to oncall-slack): E's 30, one window: 1 alert, 5 min,
   *   oncall-slack 2 notifications; unchanged.
   */
  test("the docs' diff command: the markdown leads with the monitor whose paging changed, with the hand counts, and fails on more pages", async () => {
    const run = await observability([
      "backtest",
      "--preview",
      "head.json",
      "--base",
      "base.json",
      "--since",
      "7d",
      "--format",
      "markdown",
      "--fail-on",
      "more-pages",
    ]);
    expect(run.stderr).toBe("");
    const lines = run.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^### Backtest, \S+Z to \S+Z$/);
    expect(lines.slice(1)).toEqual([
      "",
      "**1 monitor pages differently.**",
      "",
      "| Monitor | Change | Notifications (base → head) | Alerts | Time in alert | Failed runs | First alert that moved |",
      "| --- | --- | --- | --- | --- | --- | --- |",
      `| Checkout 5xx rate | changed (notifierIds, threshold) | oncall-slack 2 → checkout-email 6 | 1 → 3 | 15m → 30m | 0 → 0 | ${rfc(
        incidents.B + 5 * MINUTE,
      )} to ${rfc(incidents.B + 15 * MINUTE)} (head only) |`,
      "| Checkout latency | unchanged | oncall-slack 2 → oncall-slack 2 | 1 → 1 | 5m → 5m | 0 → 0 |  |",
    ]);
    // checkout-email gets 6 notifications where it got none: more pages, so the gating step fails.
    expect(run.code).toBe(1);
  });

  test("the JSON: each side's alerts and notifications at the times worked out by hand", async () => {
    const run = await observability([
      "backtest",
      "--preview",
      "head.json",
      "--base",
      "base.json",
      "--since",
      "7d",
      "--format",
      "json",
    ]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const r = JSON.parse(run.stdout) as BacktestReport;
    const monitors = r.monitors as MonitorDiff[];
    expect(monitors.map((m) => [m.key, m.change, m.inputs])).toEqual([
      ["error-rate", "changed", ["notifierIds", "threshold"]],
      ["checkout-latency", "unchanged", undefined],
    ]);
    const alert = (start: number, windows: number) => ({
      group: {},
      open: rfc(start + 5 * MINUTE),
      close: rfc(start + (windows + 1) * 5 * MINUTE),
    });
    const pages = (start: number, windows: number, notifier: string) => [
      { time: rfc(start + 5 * MINUTE), action: "Open", group: {}, notifier },
      { time: rfc(start + (windows + 1) * 5 * MINUTE), action: "Closed", group: {}, notifier },
    ];
    const [errors, slow] = monitors;
    const { A, B, C, E } = incidents;
    expect(errors.base).toMatchObject({
      failedRuns: 0,
      alerts: [alert(A, 3)],
      notifications: pages(A, 3, "oncall-slack"),
      timeInAlertSeconds: 15 * 60,
    });
    expect(errors.head).toMatchObject({
      failedRuns: 0,
      alerts: [alert(A, 3), alert(B, 2), alert(C, 1)],
      notifications: [
        ...pages(A, 3, "checkout-email"),
        ...pages(B, 2, "checkout-email"),
        ...pages(C, 1, "checkout-email"),
      ],
      timeInAlertSeconds: 30 * 60,
    });
    for (const side of [slow.base, slow.head])
      expect(side).toMatchObject({
        failedRuns: 0,
        alerts: [alert(E, 1)],
        notifications: pages(E, 1, "oncall-slack"),
        timeInAlertSeconds: 5 * 60,
      });
    // Both sides ran over the one period: a run every five minutes for the week.
    for (const m of monitors)
      for (const side of [m.base!, m.head!]) expect(side.runs).toBe((7 * DAY) / (5 * MINUTE));
    // Counting monitors go to the service's own engine.
    expect(monitors.flatMap((m) => [m.base!.path, m.head!.path])).toEqual([
      "service",
      "service",
      "service",
      "service",
    ]);
  });
});
