/**
 * The `pulumi new` templates' monitor says what it does: "More than 10 error events in five minutes" is one count
 * over its five-minute range (`summarize count()`), not a count per bin of `bin_auto(_time)`, whose size follows
 * the range (the emulator makes 5-second bins over five minutes; the service documents no size). Run through
 * `observability test alerts` as the YAML template declares it, and the same query spelt in every language.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { testAlerts } from "../../cli/commands/test-alerts";
import { useTempDir } from "../helpers/cli";

const ROOT = join(__dirname, "..", "..");
const read = (path: string) => readFileSync(join(ROOT, "templates", path), "utf8");
const program = parse(read("yaml/Pulumi.yaml")) as {
  resources: Record<string, { properties: Record<string, unknown> }>;
};
/** The template's monitor, with the names `pulumi new` fills in. */
const monitor = JSON.parse(
  JSON.stringify(program.resources.errors.properties)
    .replaceAll("${logs.name}", "my-app-logs")
    .replaceAll("${pulumi.project}", "my-app"),
) as Record<string, unknown>;

const tmp = useTempDir();

test("every template's monitor counts its whole five-minute window, with no bins", () => {
  expect(monitor).toMatchObject({
    description: "More than 10 error events in five minutes.",
    aplQuery: "['my-app-logs'] | where level == 'error' | summarize count()",
    threshold: 10,
    rangeMinutes: 5,
  });
  for (const file of ["typescript/index.ts", "python/__main__.py", "go/main.go"])
    expect({ file, query: /\| where level == 'error' \| summarize count\(\)[`"']/.test(read(file)) }).toEqual(
      {
        file,
        query: true,
      },
    );
});

test("8 errors in every five minutes open nothing; 12 in five minutes open it, though no bin of 5 seconds holds two", async () => {
  const file = {
    start: "2024-06-03T00:00:00Z",
    until: "35m",
    notifiers: {
      "oncall-slack": {
        name: "my-app on-call (Slack)",
        properties: { slack: { slackUrl: "https://hooks.slack.com/services/T000/B000/XXXX" } },
      },
    },
    monitors: { errors: { ...monitor, notifierIds: ["${oncall-slack.id}"] } },
    events: [
      {
        generate: {
          dataset: "my-app-logs",
          rate: "20/m",
          for: "35m",
          fields: { level: "info" },
          mix: [
            // 8 errors in every five minutes, one each 37.5 s: not more than 10.
            { share: "8%", from: "5m", for: "10m", fields: { level: "error" } },
            // 12 in the five minutes from +20m, one each 25 s.
            { share: "12%", from: "20m", for: "5m", fields: { level: "error" } },
          ],
        },
      },
    ],
    expect: [
      { monitor: "errors", action: "Open", notifier: "oncall-slack", after: "20m", by: "25m" },
      { monitor: "errors", action: "Closed", notifier: "oncall-slack", after: "25m", by: "30m" },
    ],
  };
  writeFileSync(join(tmp.path, "alerts.test.yaml"), stringify(file));
  const out: string[] = [];
  const result = await testAlerts(["alerts.test.yaml"], {
    cwd: tmp.path,
    out: (l) => out.push(l),
    err: (l) => out.push(l),
  });
  expect(out[0]).toBe("alerts.test.yaml: PASS, 2 of 2 expectations met");
  expect(result.outcomes[0].outbox.map((e) => `${e.action} ${e.time.slice(11, 16)}`)).toEqual([
    "Open 00:25",
    "Closed 00:30",
  ]);
});
