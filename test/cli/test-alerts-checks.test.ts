/**
 * Everything that can be checked before the clock starts is, all at once, each problem at its own
 * file:line:column: every monitor's APL (parsed and compiled by the emulator's engine, the position mapped into the
 * YAML file), every custom webhook's template (parsed as a Go template), the datasets a query reads, durations,
 * offsets, fields and names (an unknown one with the nearest known one), and an expectation naming a monitor the
 * test refused (saying so, and why). A test per mistake, then one file holding all of them.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { testAlerts } from "../../cli/commands/test-alerts";
import { loadAlertTest } from "../../cli/alert-test/load";
import { FileProblems, formatProblem } from "../../cli/alert-test/source";
import { useTempDir } from "../helpers/cli";

const tmp = useTempDir();

async function problemsOf(text: string, name = "t.yaml"): Promise<string[]> {
  writeFileSync(join(tmp.path, name), text);
  try {
    await loadAlertTest(name, tmp.path);
  } catch (err) {
    if (err instanceof FileProblems) return err.problems.map(formatProblem);
    throw err;
  }
  throw new Error(`${name} loaded without a problem`);
}

/** A file of one monitor (its fields given), one notifier, and one expectation. */
function monitorFile(fields: string, more = ""): string {
  return [
    "until: 1h", // 1
    "datasets: [web-logs]", // 2
    "notifiers:", // 3
    "  slack: { name: Slack, properties: { slack: { slackUrl: 'https://hooks.slack.com/services/T/B/X' } } }", // 4
    "monitors:", // 5
    "  errors-by-route:", // 6
    "    name: Errors", // 7
    "    type: Threshold", // 8
    "    operator: Above", // 9
    "    threshold: 5", // 10
    "    notifierIds: [slack]", // 11
    fields, // 12…
    "expect:",
    "  - { monitor: errors-by-route, never: true }",
    more,
  ].join("\n");
}

describe("each mistake, at its own line and column", () => {
  it("a query's syntax error, inside a block scalar", async () => {
    const problems = await problemsOf(
      monitorFile(
        "    aplQuery: |\n      ['web-logs']\n      | where status >= 500\n      | summarise count() by route",
      ),
    );
    expect(problems).toEqual([
      "t.yaml:15:9: monitors.errors-by-route.aplQuery: does not compile: unknown or unsupported operator 'summarise' (the query's line 3, column 3); every run would fail",
      "t.yaml:17:16: expect[0].monitor: names monitor errors-by-route, which this test refused at t.yaml:15:9 (monitors.errors-by-route.aplQuery: does not compile: unknown or unsupported operator 'summarise' (the query's line 3, column 3))",
    ]);
  });

  it("a query that parses but does not compile (an unknown function), in a quoted string", async () => {
    const problems = await problemsOf(
      monitorFile(`    aplQuery: "['web-logs'] | summarize countt() by bin(_time, 1m)"`),
    );
    expect(problems).toEqual([
      "t.yaml:12:41: monitors.errors-by-route.aplQuery: does not compile: unknown function 'countt' (the query's line 1, column 26); every run would fail",
      expect.stringMatching(
        /^t\.yaml:14:16: expect\[0\]\.monitor: names monitor errors-by-route, which this test refused at t\.yaml:12:41 /,
      ),
    ]);
  });

  it("a dataset the test does not create, with the nearest one", async () => {
    expect(
      await problemsOf(monitorFile(`    aplQuery: "['web-log'] | summarize count() by bin(_time, 1m)"`)),
    ).toEqual([
      "t.yaml:12:18: monitors.errors-by-route.aplQuery: reads dataset web-log, which this test does not create (it creates web-logs): every run would fail; list it under datasets:, or send it events; did you mean web-logs?",
      "t.yaml:14:16: expect[0].monitor: names monitor errors-by-route, which this test refused at t.yaml:12:18 (monitors.errors-by-route.aplQuery: reads dataset web-log, which this test does not create (it creates web-logs): every run would fail)",
    ]);
  });

  it("a custom webhook's template that does not parse, at its own line", async () => {
    const problems = await problemsOf(
      [
        "until: 1h",
        "datasets: [web-logs]",
        "notifiers:",
        "  hook:",
        "    name: Hook",
        "    properties:",
        "      customWebhook:",
        "        url: https://example.com/hook",
        "        body: |",
        '          {"title": "{{.Title}}",',
        '           "bad": "{{if}}"}',
        "monitors:",
        "  errors:",
        "    { name: Errors, type: MatchEvent, aplQuery: \"['web-logs']\", notifierIds: [hook] }",
        "expect: []",
      ].join("\n"),
    );
    // The resource's own rule refuses it (as `pulumi up` would); the test places it on the template's line.
    expect(problems).toEqual([
      "t.yaml:11:12: notifiers.hook.properties.customWebhook.body: must be a Go template the service can parse (template: webhook:2: missing value for if)",
      expect.stringMatching(
        /^t\.yaml:14:79: monitors\.errors\.notifierIds\[0\]: names notifier hook, which this test refused at t\.yaml:11:12 /,
      ),
    ]);
  });

  it("a virtual field's expression that does not compile (every query of its dataset would fail)", async () => {
    const problems = await problemsOf(
      monitorFile(
        `    aplQuery: "['web-logs'] | summarize count() by bin(_time, 1m)"\nvirtualFields:\n  ms: { dataset: web-logs, name: ms, expression: "duration / / 1000000" }`,
      ),
    );
    expect(problems).toEqual([
      expect.stringMatching(
        /^t\.yaml:14:62: virtualFields\.ms\.expression: does not compile: .*; every query of its dataset would fail, and every run of a monitor reading it$/,
      ),
    ]);
  });

  it("an unknown name suggests the nearest: a monitor, a notifier, a monitor's notifierIds entry", async () => {
    const problems = await problemsOf(
      monitorFile(
        `    aplQuery: "['web-logs'] | summarize count() by bin(_time, 1m)"`,
        "  - { monitor: errors-by-rout, never: true }\n  - { monitor: errors-by-route, notifier: slak, never: true }\n",
      ).replace("notifierIds: [slack]", "notifierIds: [slakc]"),
    );
    expect(problems).toEqual([
      "t.yaml:11:19: monitors.errors-by-route.notifierIds[0]: names no notifier of this test (slack): give a notifier's resource name or name; did you mean slack?",
      "t.yaml:15:16: expect[1].monitor: names no monitor of this test (errors-by-route); did you mean errors-by-route?",
      "t.yaml:16:43: expect[2].notifier: names no notifier of this test (slack); did you mean slack?",
    ]);
  });

  it("an expectation's group names the query's group columns, or gives as many values", async () => {
    const problems = await problemsOf(
      monitorFile(
        `    aplQuery: "['web-logs'] | summarize count() by bin(_time, 1m), route"`,
        "  - { monitor: errors-by-route, group: { rout: /pay }, never: true }\n  - { monitor: errors-by-route, group: [/pay, 500], never: true }\n",
      ),
    );
    expect(problems).toEqual([
      "t.yaml:15:48: expect[1].group.rout: is not a group column of monitor errors-by-route (its query groups by route); did you mean route?",
      "t.yaml:16:40: expect[2].group: gives 2 values, but monitor errors-by-route has 1 group column (its query groups by route)",
    ]);
  });

  it("an unknown field suggests the nearest, at the field's own key", async () => {
    const problems = await problemsOf(
      monitorFile(`    aplQuery: "['web-logs'] | summarize count() by bin(_time, 1m)"\n    rangeMinute: 5`)
        .replace("until: 1h", "until: 1h\nunexpectd: ignore")
        .replace("never: true }", "nevr: true }"),
    );
    expect(problems).toEqual([
      "t.yaml:2:1: unexpectd: is not a known field; did you mean unexpected?",
      "t.yaml:14:5: monitors.errors-by-route.rangeMinute: is not a known field; did you mean rangeMinutes?",
      "t.yaml:16:33: expect[0].nevr: is not a known field; did you mean never?",
    ]);
  });

  it("a Threshold monitor's operator: the ones it may use (not AboveOrBelow), and the nearest", async () => {
    const problems = await problemsOf(
      monitorFile(`    aplQuery: "['web-logs'] | summarize count() by bin(_time, 1m)"`).replace(
        "operator: Above",
        "operator: Abvoe",
      ),
    );
    expect(problems).toEqual([
      "t.yaml:9:15: monitors.errors-by-route.operator: must be one of Below, BelowOrEqual, Above, AboveOrEqual (AboveOrBelow is only for AnomalyDetection); did you mean Above?",
      expect.stringMatching(
        /^t\.yaml:14:16: expect\[0\]\.monitor: names monitor errors-by-route, which this test refused at t\.yaml:9:15 \(monitors\.errors-by-route\.operator: must be one of/,
      ),
    ]);
  });

  it("an expectation naming a refused monitor says it was refused, and why", async () => {
    const problems = await problemsOf(monitorFile(`    aplQuery: "['web-logs'] | summarise count()"`));
    expect(problems).toEqual([
      "t.yaml:12:31: monitors.errors-by-route.aplQuery: does not compile: unknown or unsupported operator 'summarise' (the query's line 1, column 16); every run would fail",
      "t.yaml:14:16: expect[0].monitor: names monitor errors-by-route, which this test refused at t.yaml:12:31 (monitors.errors-by-route.aplQuery: does not compile: unknown or unsupported operator 'summarise' (the query's line 1, column 16))",
    ]);
  });
});

it("a threshold monitor binned by bin_auto runs, with a warning naming the bin the emulator chose and why it is no promise", async () => {
  writeFileSync(
    join(tmp.path, "auto.yaml"),
    monitorFile(
      `    rangeMinutes: 5\n    aplQuery: "['web-logs'] | where status >= 500 | summarize count() by bin_auto(_time)"`,
    ),
  );
  const out: string[] = [];
  const r = await testAlerts(["auto.yaml"], {
    cwd: tmp.path,
    out: (l) => out.push(l),
    err: (l) => out.push(l),
  });
  expect(r.code).toBe(0);
  expect(out[0]).toBe("auto.yaml: PASS, 1 of 1 expectations met; 1 warning");
  expect(out.at(-1)).toBe(
    "  ! warning: auto.yaml:13:74: errors-by-route bins by bin_auto, which the emulator makes 5s bins over its 5-minute range, so its threshold (Above 5) is compared with 5s of data at a time. The service documents only that bin_auto's size follows the query's range, not which size, so the monitor means whatever the service's steps are: bin by an explicit size (bin(_time, 5m) for the whole range), or not at all, to say what it counts",
  );
  expect(r.outcomes[0].warnings).toEqual([
    expect.objectContaining({ kind: "bin-auto", monitor: "errors-by-route", file: "auto.yaml", line: 13 }),
  ]);
});

it("one file holding every mistake lists every one, at once, exit 2 and nothing run", async () => {
  const text = [
    "until: 10 minutes", // 1
    "start: 2024-06-03T00:00:00Z", // 2
    "unexpectd: ignore", // 3
    "notifiers:", // 4
    "  slack: { name: Slack, properties: { slack: { slackUrl: 'https://hooks.slack.com/services/T/B/X' } } }", // 5
    "  hook:", // 6
    "    name: Hook", // 7
    "    properties:", // 8
    "      customWebhook: { url: https://example.com/hook, body: '{{if}}' }", // 9
    "monitors:", // 10
    "  errors-by-route:", // 11
    "    name: Errors", // 12
    "    type: Threshold", // 13
    "    aplQuery: \"['web-logs'] | summarise count()\"", // 14
    "    operator: Above", // 15
    "    threshold: 5", // 16
    "    notifierIds: [slakc]", // 17
    "  latency:", // 18
    "    name: Latency", // 19
    "    type: Threshold", // 20
    "    aplQuery: \"['web-log'] | summarize avg(ms)\"", // 21
    "    operator: AboveOrBelow", // 22
    "    threshold: 100", // 23
    "  panics:", // 24
    "    name: Panics", // 25
    "    type: MatchEvent", // 26
    "    aplQuery: \"['web-logs'] | where msg has 'panic'\"", // 27
    "    notifierIds: [hook]", // 28
    "events:", // 29
    "  - { at: 10 minutes, dataset: web-logs, event: { status: 500 } }", // 30
    "  - generate: { dataset: web-logs, rate: lots, for: 1h }", // 31
    "expect:", // 32
    "  - { monitor: errors-by-route, never: true }", // 33
    "  - { monitor: latency, at: 5m }", // 34
    "  - { monitor: panic, at: 5m }", // 35
    "  - { monitor: panics, notifier: slak, at: 5m }", // 36
    "  - { monitor: panics, at: soon }", // 37
  ].join("\n");
  writeFileSync(join(tmp.path, "all.yaml"), text);
  const err: string[] = [];
  const out: string[] = [];
  const r = await testAlerts(["all.yaml"], {
    cwd: tmp.path,
    out: (l) => out.push(l),
    err: (l) => err.push(l),
  });
  expect(r.code).toBe(2);
  expect(r.outcomes).toEqual([]);
  expect(out).toEqual([]);
  expect(err).toEqual([
    'all.yaml:1:8: until: must be a duration such as "90s", "10m", "1h30m" or "2d"',
    "all.yaml:3:1: unexpectd: is not a known field; did you mean unexpected?",
    "all.yaml:9:62: notifiers.hook.properties.customWebhook.body: must be a Go template the service can parse (template: webhook:1: missing value for if)",
    "all.yaml:14:31: monitors.errors-by-route.aplQuery: does not compile: unknown or unsupported operator 'summarise' (the query's line 1, column 16); every run would fail",
    "all.yaml:17:19: monitors.errors-by-route.notifierIds[0]: names no notifier of this test (slack): give a notifier's resource name or name; did you mean slack?",
    "all.yaml:21:18: monitors.latency.aplQuery: reads dataset web-log, which this test does not create (it creates web-logs): every run would fail; list it under datasets:, or send it events; did you mean web-logs?",
    "all.yaml:22:15: monitors.latency.operator: AboveOrBelow is only allowed when type is AnomalyDetection",
    "all.yaml:28:19: monitors.panics.notifierIds[0]: names notifier hook, which this test refused at all.yaml:9:62 (notifiers.hook.properties.customWebhook.body: must be a Go template the service can parse (template: webhook:1: missing value for if))",
    'all.yaml:30:11: events[0].at: must be an offset from start such as "10m", "1h30m", "0m" or "-7d" (before start)',
    'all.yaml:31:42: events[1].generate.rate: must be a rate such as "120/m", "2/s" or "500/h"',
    "all.yaml:33:16: expect[0].monitor: names monitor errors-by-route, which this test refused at all.yaml:14:31 (monitors.errors-by-route.aplQuery: does not compile: unknown or unsupported operator 'summarise' (the query's line 1, column 16))",
    "all.yaml:34:16: expect[1].monitor: names monitor latency, which this test refused at all.yaml:22:15 (monitors.latency.operator: AboveOrBelow is only allowed when type is AnomalyDetection)",
    "all.yaml:35:16: expect[2].monitor: names no monitor of this test (panics); did you mean panics?",
    "all.yaml:36:34: expect[3].notifier: names no notifier of this test (slack); did you mean slack?",
    'all.yaml:37:28: expect[4].at: must be an offset from start such as "10m", "1h30m", "0m" or "-7d" (before start)',
  ]);
});
