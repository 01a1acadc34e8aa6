/**
 * The alert-test file's checks: every mistake is reported at once, each naming the file, the line and the field,
 * and the command exits 2 without running anything.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { testAlerts } from "../../cli/commands/test-alerts";
import { loadAlertTest } from "../../cli/alert-test/load";
import { FileProblems, formatProblem } from "../../cli/alert-test/source";
import { useTempDir } from "../helpers/cli";

const tmp = useTempDir();

/** Writes `text` as a test file and answers its name (relative to the temp folder). */
function file(name: string, text: string): string {
  writeFileSync(join(tmp.path, name), text);
  return name;
}

/** The problems loading `name` reports, each as the one line the command prints. */
async function problemsOf(name: string): Promise<string[]> {
  try {
    await loadAlertTest(name, tmp.path);
  } catch (err) {
    if (err instanceof FileProblems) return err.problems.map(formatProblem);
    throw err;
  }
  throw new Error(`${name} loaded without a problem`);
}

const MONITOR = `
datasets: [web]
notifiers:
  slack:
    name: On-call Slack
    properties: { slack: { slackUrl: "https://hooks.slack.com/services/T/B/X" } }
monitors:
  errors:
    name: Errors
    type: Threshold
    aplQuery: "['web'] | summarize count() by bin(_time, 1m)"
    operator: Above
    threshold: 5
    notifierIds: [slack]
`;

it("a YAML syntax error names its line", async () => {
  const name = file("syntax.yaml", "until: 1h\nexpect:\n  - monitor: [unclosed\n");
  // The parser places an unclosed flow list where its `]` was due: the end of the file.
  expect(await problemsOf(name)).toEqual([
    "syntax.yaml:4:1: Flow sequence in block collection must be sufficiently indented and end with a ]",
  ]);
});

it("a document that is not a map says what it must be", async () => {
  expect(await problemsOf(file("list.yaml", "- until: 1h\n"))).toEqual([
    "list.yaml:1:1: must be a map with until:, expect: and the monitors to test (see docs/testing-alerts.md)",
  ]);
});

it("every field's problem at once, each on its own line", async () => {
  const name = file(
    "many.yaml",
    [
      "start: yesterday", // 1
      "colour: blue", // 2
      "events:", // 3
      "  - at: 10 minutes", // 4
      "    dataset: web", // 5
      "    event: { status: 500 }", // 6
      "  - generate:", // 7
      "      dataset: web", // 8
      "      rate: lots", // 9
      "      for: 1h", // 10
      "      mix:", // 11
      "        - share: 300%", // 12
      "          fields: { status: 500 }", // 13
      "expect:", // 14
      "  - monitor: errors", // 15
      "    action: Opened", // 16
    ].join("\n"),
  );
  expect(await problemsOf(name)).toEqual([
    "many.yaml:1:1: until: is required",
    "many.yaml:1:8: start: must be an RFC 3339 date-time",
    "many.yaml:2:1: colour: is not a known field",
    'many.yaml:4:9: events[0].at: must be an offset from start such as "10m", "1h30m", "0m" or "-7d" (before start)',
    'many.yaml:9:13: events[1].generate.rate: must be a rate such as "120/m", "2/s" or "500/h"',
    'many.yaml:12:18: events[1].generate.mix[0].share: must be a share such as "3%" or 0.03, more than 0 and at most 100%',
    "many.yaml:16:13: expect[0].action: must be Open or Closed",
  ]);
});

it("a monitor is checked by the Monitor resource's own rules, on its lines", async () => {
  const name = file(
    "monitor.yaml",
    [
      "until: 1h", // 1
      "monitors:", // 2
      "  errors:", // 3
      "    name: Errors", // 4
      "    type: Threshold", // 5
      "    aplQuery: \"['web'] | count\"", // 6
      "    operator: Higher", // 7
      "    intervalMinutes: 0", // 8
      "    colour: red", // 9
      "expect: []", // 10
    ].join("\n"),
  );
  expect(await problemsOf(name)).toEqual([
    "monitor.yaml:3:3: monitors.errors.threshold: is required when type is Threshold",
    // Refused for its fields, its query is still checked, so every problem is said at once.
    "monitor.yaml:6:18: monitors.errors.aplQuery: reads dataset web, which this test does not create (it creates none): every run would fail; list it under datasets:, or send it events",
    "monitor.yaml:7:15: monitors.errors.operator: must be one of Below, BelowOrEqual, Above, AboveOrEqual (AboveOrBelow is only for AnomalyDetection)",
    "monitor.yaml:8:22: monitors.errors.intervalMinutes: must be at least 1",
    "monitor.yaml:9:5: monitors.errors.colour: is not a known field",
  ]);
});

it("names that lead nowhere: a monitor's notifier, an expectation's monitor and notifier", async () => {
  const name = file(
    "names.yaml",
    `until: 1h${MONITOR.replace("[slack]", "[slack, pager]")}expect:\n  - monitor: checkout\n  - monitor: errors\n    notifier: email\n    by: 2h\n`,
  );
  expect(await problemsOf(name)).toEqual([
    "names.yaml:14:26: monitors.errors.notifierIds[1]: names no notifier of this test (slack): give a notifier's resource name or name",
    "names.yaml:16:14: expect[0].monitor: names no monitor of this test (errors)",
    "names.yaml:18:15: expect[1].notifier: names no notifier of this test (slack)",
  ]);
});

it("an expectation's time and count rules", async () => {
  const name = file(
    "when.yaml",
    `until: 1h${MONITOR}expect:\n  - monitor: errors\n    at: 5m\n    by: 10m\n  - monitor: errors\n    after: 20m\n    by: 10m\n  - monitor: errors\n    count: 2\n    never: true\n`,
  );
  expect(await problemsOf(name)).toEqual([
    "when.yaml:17:9: expect[0].at: is exact: give at, or after and/or by, not both",
    "when.yaml:21:9: expect[1].by: must not be before after",
    "when.yaml:22:5: expect[2]: give at most one of count, atLeast and never",
  ]);
});

it("an expectation past the run's end can never be met", async () => {
  const name = file("late.yaml", `until: 1h${MONITOR}expect:\n  - monitor: errors\n    by: 2h\n`);
  expect(await problemsOf(name)).toEqual([
    "late.yaml:17:9: expect[0].by: is after until (the run ends there), so nothing can happen by then",
  ]);
});

it("the command prints each problem on stderr, prefixed, runs nothing and exits 2", async () => {
  const name = file("bad.yaml", `until: soon${MONITOR}expect:\n  - monitor: errors\n`);
  const out: string[] = [];
  const err: string[] = [];
  const result = await testAlerts([name, "missing.yaml"], {
    cwd: tmp.path,
    out: (l) => out.push(l),
    err: (l) => err.push(l),
  });
  expect(result.code).toBe(2);
  expect(result.outcomes).toEqual([]);
  expect(out).toEqual([]);
  expect(err).toEqual([
    'bad.yaml:1:8: until: must be a duration such as "90s", "10m", "1h30m" or "2d"',
    "missing.yaml: no such file",
  ]);
});

it("no file at all is a usage error", async () => {
  const err: string[] = [];
  expect((await testAlerts([], { err: (l) => err.push(l) })).code).toBe(2);
  expect(err).toEqual(["give at least one alert-test file"]);
});
