/**
 * Monitors and notifiers read from a stack's `pulumi preview --json`. The documents here are written in the shape
 * the CLI prints (pulumi/pulumi pkg/backend/display/json.go `ShowPreviewDigest`: `steps[]` with `op`, `urn`,
 * `newState`/`oldState` as apitype.ResourceV3), with secrets as `[secret]` (display/json.go `MassageSecrets`) and
 * values unknown at preview as pkg/resource/stack/deployment.go's `computedValuePlaceholder`.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { testAlerts } from "../../cli/commands/test-alerts";
import { loadAlertTest } from "../../cli/alert-test/load";
import { FileProblems, formatProblem } from "../../cli/alert-test/source";
import { STAND_IN_SECRET } from "../../cli/alert-test/model";
import { useTempDir } from "../helpers/cli";

const tmp = useTempDir();
const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
const STACK = "urn:pulumi:dev::monitors-to-notifiers::";
const DYNAMIC = "pulumi-nodejs:dynamic/observability:";
/** What the dynamic resources' `__provider` input holds for an installed package (provider/resources/shim.ts). */
const shim = (kind: string) =>
  `exports.handler = require("pulumi-observability/dist/provider/shims/${kind}.js");`;
const urn = (kind: string, name: string) => `${STACK}${DYNAMIC}${kind}::${name}`;

interface StepSpec {
  op?: string;
  kind: string;
  name: string;
  inputs: Record<string, unknown>;
  deps?: Record<string, string[]>;
  id?: string;
  type?: string;
}

/** One step as the preview prints it. */
function step({ op = "create", kind, name, inputs, deps = {}, id, type }: StepSpec) {
  const t = type ?? `${DYNAMIC}${kind}`;
  const u = type ? `${STACK}${type}::${name}` : urn(kind, name);
  const newState = {
    urn: u,
    custom: true,
    type: t,
    inputs: type ? inputs : { __provider: shim(kind), ...inputs },
    outputs: {},
    parent: `${STACK}pulumi:pulumi:Stack::monitors-to-notifiers-dev`,
    provider: `${STACK}pulumi:providers:pulumi-nodejs::default::${UNKNOWN}`,
    dependencies: [...new Set(Object.values(deps).flat())],
    propertyDependencies: deps,
  };
  return {
    op,
    urn: u,
    provider: newState.provider,
    ...(id ? { oldState: { ...newState, id, outputs: { id } } } : {}),
    newState,
  };
}

const root = {
  op: "create",
  urn: `${STACK}pulumi:pulumi:Stack::monitors-to-notifiers-dev`,
  newState: {
    urn: `${STACK}pulumi:pulumi:Stack::monitors-to-notifiers-dev`,
    custom: false,
    type: "pulumi:pulumi:Stack",
  },
};

/** A create preview of two notifiers and a monitor wired to both: the ids are unknown until apply. */
function createPreview(monitorInputs: Record<string, unknown> = {}, notifierDeps?: string[]) {
  return {
    config: { "monitors-to-notifiers:slackWebhookUrl": "[secret]" },
    steps: [
      root,
      step({ kind: "Dataset", name: "http-logs", inputs: { name: "http-logs", retentionDays: 30 } }),
      step({
        kind: "Notifier",
        name: "oncall-slack",
        inputs: { name: "On-call Slack", properties: { slack: { slackUrl: "[secret]" } } },
      }),
      step({
        kind: "Notifier",
        name: "oncall-pagerduty",
        inputs: { name: "PagerDuty", properties: { pagerduty: { routingKey: "[secret]" } } },
      }),
      step({
        kind: "Notifier",
        name: "incident-bot",
        inputs: {
          name: "Incident bot",
          properties: {
            customWebhook: {
              url: "[secret]",
              body: '{"title":"{{.Title}}","action":"{{.Action}}"}',
              headers: { "Content-Type": "application/json" },
              secretHeaders: { Authorization: "[secret]" },
            },
          },
        },
      }),
      step({
        kind: "Monitor",
        name: "checkout-5xx",
        inputs: {
          name: "Checkout 5xx",
          type: "Threshold",
          aplQuery: "['http-logs'] | where status >= 500 | summarize count() by bin(_time, 1m)",
          operator: "Above",
          threshold: 5,
          rangeMinutes: 5,
          notifierIds: [UNKNOWN, UNKNOWN],
          ...monitorInputs,
        },
        deps: {
          notifierIds: notifierDeps ?? [urn("Notifier", "oncall-slack"), urn("Notifier", "incident-bot")],
        },
      }),
    ],
    diagnostics: [],
    duration: 1234567890,
    changeSummary: { create: 6 },
  };
}

const TEST = (stack: string) => `start: 2024-06-03T00:00:00Z
until: 30m
stack: ${stack}
events:
  - generate:
      dataset: http-logs
      rate: 60/m
      for: 30m
      fields: { status: 200 }
      mix: [{ share: 20%, from: 10m, for: 5m, fields: { status: 500 } }]
expect:
  - { monitor: checkout-5xx, action: Open, notifier: oncall-slack, by: 12m, outcome: delivered }
  - { monitor: Checkout 5xx, action: Open, notifier: Incident bot, by: 12m, outcome: delivered }
  - { monitor: checkout-5xx, action: Closed, after: 15m, by: 21m }
`;

function write(name: string, content: unknown): string {
  writeFileSync(
    join(tmp.path, name),
    typeof content === "string" ? content : JSON.stringify(content, null, 4),
  );
  return name;
}

async function problemsOf(name: string): Promise<string[]> {
  try {
    await loadAlertTest(name, tmp.path);
  } catch (err) {
    if (err instanceof FileProblems) return err.problems.map(formatProblem);
    throw err;
  }
  throw new Error(`${name} loaded without a problem`);
}

it("a create preview: unknown notifier ids told by the monitor's property dependencies, secrets stood in for", async () => {
  write("preview.json", createPreview());
  const name = write("stack.yaml", TEST("{ preview: preview.json }"));
  const test = await loadAlertTest(name, tmp.path);
  expect(test.model.datasets).toEqual([{ name: "http-logs", mapFields: [] }]);
  expect(test.model.monitors.map((m) => [m.key, m.inputs.notifierIds])).toEqual([
    ["checkout-5xx", ["oncall-slack", "incident-bot"]],
  ]);
  const notifiers = Object.fromEntries(test.model.notifiers.map((n) => [n.key, n]));
  expect(notifiers["oncall-slack"].urlHidden).toBe(true);
  expect(notifiers["oncall-pagerduty"]).toMatchObject({
    urlHidden: false,
    inputs: { properties: { pagerduty: { routingKey: STAND_IN_SECRET } } },
  });
  expect(notifiers["incident-bot"].inputs.properties.customWebhook).toMatchObject({
    body: '{"title":"{{.Title}}","action":"{{.Action}}"}',
    secretHeaders: { Authorization: STAND_IN_SECRET },
  });

  // And the whole test runs: the hidden URLs went to the receiver, whatever `deliver` says.
  const out: string[] = [];
  const r = await testAlerts([name], { cwd: tmp.path, out: (l) => out.push(l), err: (l) => out.push(l) });
  expect(out[0]).toBe("stack.yaml: PASS, 3 of 3 expectations met; 2 warnings");
  // A stand-in is named in the output, and in the run's result for the report.
  expect(out.filter((l) => l.startsWith("  ! warning:"))).toEqual([
    expect.stringMatching(
      /^ {2}! warning: preview\.json:\d+:\d+: notifier oncall-pagerduty runs as a stand-in: the preview shows pagerduty\.routingKey as \[secret\]: the test sends "alert-test-stand-in" in its place, so the request is tested, not the real value$/,
    ),
    expect.stringMatching(
      /^ {2}! warning: preview\.json:\d+:\d+: notifier incident-bot runs as a stand-in: the preview shows customWebhook\.secretHeaders\.Authorization as \[secret\]/,
    ),
  ]);
  expect(r.outcomes[0].warnings).toEqual([
    expect.objectContaining({ kind: "stand-in", notifier: "oncall-pagerduty", file: "preview.json" }),
    expect.objectContaining({ kind: "stand-in", notifier: "incident-bot", file: "preview.json" }),
  ]);
  expect(r.code).toBe(0);
  expect(r.outcomes[0].received.map((q) => q.path).sort()).toEqual([
    "/incident-bot",
    "/incident-bot",
    "/oncall-slack",
    "/oncall-slack",
  ]);
});

it("the same through stack.command, a command that prints the preview", async () => {
  write("preview.json", createPreview());
  const name = write("command.yaml", TEST('{ command: "cat preview.json" }'));
  const out: string[] = [];
  const r = await testAlerts([name], { cwd: tmp.path, out: (l) => out.push(l), err: (l) => out.push(l) });
  expect(out[0]).toBe("command.yaml: PASS, 3 of 3 expectations met; 2 warnings");
  expect(r.code).toBe(0);
});

it("a failing command is a problem naming it, its exit code and its last words", async () => {
  const name = write("failing.yaml", TEST('{ command: "echo no stack selected >&2; exit 3" }'));
  expect(await problemsOf(name)).toEqual([
    'failing.yaml:3:19: stack.command: "echo no stack selected >&2; exit 3" exited with 3: no stack selected',
  ]);
});

it("an update preview: known ids are matched to the notifiers whose state holds them; native types too", async () => {
  const preview = {
    steps: [
      root,
      step({
        op: "same",
        kind: "Notifier",
        name: "oncall-slack",
        id: "notify_123",
        inputs: { name: "On-call Slack", properties: { slack: { slackUrl: "[secret]" } } },
      }),
      step({
        op: "update",
        kind: "Notifier",
        name: "incident-bot",
        type: "observability:index:Notifier",
        id: "notify_456",
        inputs: { name: "Incident bot", properties: { webhook: { url: "https://bot.example.com/hook" } } },
      }),
      step({
        op: "update",
        kind: "Monitor",
        name: "checkout-5xx",
        type: "observability:index:Monitor",
        id: "mon_1",
        inputs: {
          name: "Checkout 5xx",
          type: "Threshold",
          aplQuery: "['http-logs'] | where status >= 500 | summarize count() by bin(_time, 1m)",
          operator: "Above",
          threshold: 5,
          rangeMinutes: 5,
          notifierIds: ["notify_123", "notify_456"],
        },
      }),
      step({ op: "delete", kind: "Monitor", name: "old-monitor", inputs: { name: "gone" } }),
    ],
  };
  // A deleted resource's step has only its old state in the real output.
  delete (preview.steps[4] as { newState?: unknown }).newState;
  write("update.json", preview);
  const name = write("update.yaml", TEST("{ preview: update.json }").replace("outcome: delivered }", "}"));
  const test = await loadAlertTest(name, tmp.path);
  expect(test.model.monitors.map((m) => [m.key, m.origin, m.inputs.notifierIds])).toEqual([
    ["checkout-5xx", `${STACK}observability:index:Monitor::checkout-5xx`, ["oncall-slack", "incident-bot"]],
  ]);
  expect(test.model.notifiers.map((n) => [n.key, n.urlHidden])).toEqual([
    ["oncall-slack", true],
    ["incident-bot", false],
  ]);
});

it("what cannot be told from a preview is refused, naming the resource, the field and the line", async () => {
  write(
    "unknowns.json",
    createPreview({}, [
      urn("Notifier", "oncall-slack"),
      urn("Notifier", "incident-bot"),
      urn("Notifier", "oncall-pagerduty"),
    ]),
  );
  const name = write("unknowns.yaml", TEST("{ preview: unknowns.json }"));
  const problems = await problemsOf(name);
  expect(problems).toEqual([
    expect.stringMatching(
      /^unknowns\.json:\d+:\d+: Monitor checkout-5xx: notifierIds: has 2 ids unknown at preview, and depends on 3 other notifiers of this stack \(oncall-slack, incident-bot, oncall-pagerduty\), so which notifier each one is cannot be told; declare the monitor under monitors: in the test file$/,
    ),
    // Each expectation naming it says it was refused, where, and why.
    ...[0, 1, 2].map((i) =>
      expect.stringMatching(
        new RegExp(
          `^unknowns\\.yaml:\\d+:\\d+: expect\\[${i}\\]\\.monitor: names monitor (checkout-5xx|Checkout 5xx), which this test refused at unknowns\\.json:\\d+:\\d+ \\(Monitor checkout-5xx: notifierIds: has 2 ids unknown at preview, .*cannot be told\\)$`,
        ),
      ),
    ),
  ]);
  // Declaring it in the file replaces the stack's; its unknown query is then the file's to give.
  const fixed = write(
    "fixed.yaml",
    TEST("{ preview: unknowns.json }") +
      `monitors:
  checkout-5xx:
    name: Checkout 5xx
    type: Threshold
    aplQuery: "['http-logs'] | where status >= 500 | summarize count() by bin(_time, 1m)"
    operator: Above
    threshold: 5
    rangeMinutes: 5
    notifierIds: [oncall-slack, "\${incident-bot.id}"]
`,
  );
  expect((await loadAlertTest(fixed, tmp.path)).model.monitors[0].inputs.notifierIds).toEqual([
    "oncall-slack",
    "incident-bot",
  ]);
});

it("an unknown query is refused with the advice to declare the monitor in the file", async () => {
  write("query.json", createPreview({ aplQuery: UNKNOWN }));
  const problems = await problemsOf(write("query.yaml", TEST("{ preview: query.json }")));
  expect(problems).toEqual([
    expect.stringMatching(
      /^query\.json:\d+:\d+: Monitor checkout-5xx: aplQuery: is secret or unknown at preview \(computed from another resource's output\); declare the monitor under monitors: in the test file$/,
    ),
    ...[0, 1, 2].map((i) =>
      expect.stringMatching(
        new RegExp(
          `^query\\.yaml:\\d+:\\d+: expect\\[${i}\\]\\.monitor: names monitor (checkout-5xx|Checkout 5xx), which this test refused at query\\.json:\\d+:\\d+ \\(Monitor checkout-5xx: aplQuery: is secret or unknown at preview \\(computed from another resource's output\\)\\)$`,
        ),
      ),
    ),
  ]);
  const line = Number(/^query\.json:(\d+):/.exec(problems[0])![1]);
  expect(JSON.stringify(createPreview({ aplQuery: UNKNOWN }), null, 4).split("\n")[line - 1]).toContain(
    '"aplQuery"',
  );
});

it("a file that is not a preview, and a preview that is missing", async () => {
  write("not-preview.json", { message: "error: no stack named 'dev' found" });
  expect(await problemsOf(write("np.yaml", TEST("{ preview: not-preview.json }")))).toEqual([
    "not-preview.json:1:1: is not the output of `pulumi preview --json` (a JSON object with a `steps` list); a preview that failed prints its diagnostics instead, so run it by hand to see why",
  ]);
  expect(await problemsOf(write("missing.yaml", TEST("{ preview: nowhere.json }")))).toEqual([
    expect.stringMatching(/^missing\.yaml:3:19: stack\.preview: cannot read .*nowhere\.json: ENOENT$/),
  ]);
  expect(await problemsOf(write("both.yaml", TEST("{ preview: a.json, command: cat }")))).toEqual([
    "both.yaml:3:8: stack: give exactly one of preview: FILE or command: COMMAND",
  ]);
});

it("a notifier whose whole properties the preview hides runs as a webhook to the receiver", async () => {
  // As the native provider's preview prints it: any secret field marks the whole object.
  const preview = createPreview();
  const slack = preview.steps[2] as unknown as { newState: { inputs: Record<string, unknown> } };
  slack.newState.inputs.properties = "[secret]";
  write("whole.json", preview);
  const name = write("whole.yaml", TEST("{ preview: whole.json }"));
  const test = await loadAlertTest(name, tmp.path);
  expect(test.model.notifiers.find((n) => n.key === "oncall-slack")).toMatchObject({
    urlHidden: true,
    inputs: { properties: { webhook: { url: "http://receiver.invalid/" } } },
  });
  const out: string[] = [];
  const r = await testAlerts([name], { cwd: tmp.path, out: (l) => out.push(l), err: (l) => out.push(l) });
  expect(out[0]).toBe("whole.yaml: PASS, 3 of 3 expectations met; 3 warnings");
  expect(out).toContainEqual(
    expect.stringMatching(
      /^ {2}! warning: whole\.json:\d+:\d+: notifier oncall-slack runs as a stand-in: the preview shows its properties as \[secret\], so not even its channel is known: it runs as a plain webhook to the test's receiver/,
    ),
  );
  expect(r.outcomes[0].warnings[0]).toMatchObject({ kind: "stand-in", notifier: "oncall-slack" });
  expect(r.code).toBe(0);
  expect(
    r.outcomes[0].outbox.filter((e) => e.notifierName === "On-call Slack").map((e) => e.channel),
  ).toEqual(["webhook", "webhook"]);
});

it("a preview that lists no monitor (a deployed stack previewed without --show-sames) says to add it", async () => {
  write("sames.json", { steps: [root], changeSummary: { same: 6 } });
  expect(await problemsOf(write("sames.yaml", TEST("{ preview: sames.json }")))).toEqual([
    "sames.yaml:3:8: stack: the preview shows no monitor of this package; `pulumi preview --json` lists resources that do not change only with --show-sames: add it",
  ]);
});
