/**
 * examples/monitors-to-notifiers/alerts.test.yaml through the command: in process (the exported function the bin
 * calls), and once through the built bin as CI runs it. The file's monitors and notifiers are checked against what
 * the example's real program registers, so the test cannot drift from the stack it tests.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { testAlerts, type TestAlertsResult } from "../../cli/commands/test-alerts";
import { runCli } from "../helpers/cli";
import { loadIsolated } from "../examples/harness";
import { runProgram, type ProgramRun } from "../examples/program";

const ROOT = join(__dirname, "..", "..");
const FILE = "examples/monitors-to-notifiers/alerts.test.yaml";
const MINUTE = 60_000;

let result: TestAlertsResult;
const out: string[] = [];
const err: string[] = [];

beforeAll(async () => {
  result = await testAlerts([FILE], { cwd: ROOT, out: (l) => out.push(l), err: (l) => err.push(l) });
}, 120_000);

const outcome = () => result.outcomes[0];
/** The alert events of a monitor, as offsets from start: `[action, minutes, notifiers with outcomes]`. */
function alertsOf(monitorKey: string): [string, number, string[]][] {
  const o = outcome();
  const byTime = new Map<string, [string, number, string[]]>();
  for (const e of o.outbox) {
    if (o.facts.monitorKeyOfId.get(e.monitorId) !== monitorKey) continue;
    const minutes = (Date.parse(e.time) - o.test.startMs) / MINUTE;
    const key = `${e.action}@${minutes}`;
    const row = byTime.get(key) ?? [e.action, minutes, []];
    row[2].push(`${o.facts.notifierKeyOfId.get(e.notifierId)}:${e.outcome}`);
    byTime.set(key, row);
  }
  return [...byTime.values()].map(([a, m, n]) => [a, m, n.sort()]);
}

it("passes: exit 0, every expectation met, nothing unexpected, nothing on stderr", () => {
  expect(err).toEqual([]);
  expect(result.code).toBe(0);
  expect(out[0]).toBe(`${FILE}: PASS, 12 of 12 expectations met`);
  expect(outcome().comparison.rows.every((r) => r.ok)).toBe(true);
  expect(outcome().comparison.unexpected).toEqual([]);
  // One row a line, each marked.
  expect(out.filter((l) => l.trimStart().startsWith("✓"))).toHaveLength(12);
});

it("the error burst opens the 5xx monitor once (Slack delivered, PagerDuty held) and closes it after the window", () => {
  expect(alertsOf("checkout-5xx")).toEqual([
    ["Open", 61, ["oncall-pagerduty:held", "oncall-slack:delivered"]],
    ["Closed", 75, ["oncall-pagerduty:held", "oncall-slack:delivered"]],
  ]);
  // PagerDuty's Events API is not loopback: held, naming why, with the routing key masked.
  const held = outcome().outbox.find((e) => e.channel === "pagerduty")!;
  expect(held.targetHost).toBe("events.pagerduty.com");
  expect(held.reason).toMatch(/loopback|deliver-to/);
  expect(JSON.stringify(held)).not.toContain("test-routing-key");
});

it("the fatal line fires the match monitor once, and it never closes", () => {
  expect(alertsOf("payment-panics")).toEqual([
    ["Open", 91, ["incident-bot:delivered", "oncall-pagerduty:held"]],
  ]);
});

it("the latency shift opens the anomaly monitor, which closes when latency is back", () => {
  expect(alertsOf("checkout-latency-anomaly")).toEqual([
    ["Open", 125, ["incident-bot:delivered", "oncall-slack:delivered"]],
    ["Closed", 165, ["incident-bot:delivered", "oncall-slack:delivered"]],
  ]);
});

it("the receiver got each delivered notification at the notifier's own path", () => {
  const paths = outcome().received.map((r) => r.path);
  expect(paths.filter((p) => p === "/oncall-slack")).toHaveLength(4);
  expect(paths.filter((p) => p === "/incident-bot")).toHaveLength(3);
  const bot = outcome().received.find((r) => r.path === "/incident-bot")!;
  expect(JSON.parse(bot.body)).toEqual({
    monitor: "Payments: fatal errors",
    action: "Open",
    value: expect.any(String),
  });
});

describe("the file's monitors and notifiers are the example program's", () => {
  let run: ProgramRun;
  beforeAll(async () => {
    const project = "monitors-to-notifiers";
    const secrets = {
      slackWebhookUrl: "https://hooks.slack.com/services/T0/B0/x",
      pagerdutyRoutingKey: "rk",
      incidentWebhookUrl: "https://incident-bot.example.com/hooks/checkout",
      incidentWebhookToken: "t",
    };
    const config: Record<string, string> = {};
    for (const [k, v] of Object.entries(secrets)) config[`${project}:${k}`] = v;
    // No provider: each registration answers its inputs as outputs and `<name>-id` as its id, which is all the
    // wiring needs (a monitor's notifierIds then read `oncall-slack-id`).
    run = await runProgram({
      example: project,
      project,
      config,
      secretKeys: Object.keys(config),
      register: async (req) => ({ id: `${req.name}-id`, outputs: { ...req.inputs } }),
      load: loadIsolated,
    });
  }, 120_000);

  const file = () =>
    parse(readFileSync(join(ROOT, FILE), "utf8")) as Record<string, Record<string, Record<string, unknown>>>;
  const declared = (kind: string) =>
    Object.fromEntries(
      run.registrations
        .filter((r) => r.type === `pulumi-nodejs:dynamic/observability:${kind}`)
        .map((r) => {
          const { __provider: _, ...inputs } = r.inputs;
          return [r.name, inputs];
        }),
    );

  it("monitors: every input equal, notifierIds naming the same notifiers", () => {
    const program = declared("Monitor");
    const inFile = file().monitors;
    expect(Object.keys(inFile).sort()).toEqual(Object.keys(program).sort());
    for (const [name, inputs] of Object.entries(program)) {
      const ids = (inputs.notifierIds as string[]).map((id) => id.replace(/-id$/, ""));
      // The program reads the virtual field's name through its output; the file writes the name out.
      expect({ ...inFile[name], notifierIds: [...(inFile[name].notifierIds as string[])].sort() }).toEqual({
        ...inputs,
        notifierIds: ids.sort(),
      });
    }
  });

  it("notifiers: the same names and channels (URLs and keys are the stack's secrets, and go to the receiver)", () => {
    const program = declared("Notifier");
    const inFile = file().notifiers;
    expect(Object.keys(inFile).sort()).toEqual(Object.keys(program).sort());
    for (const [name, inputs] of Object.entries(program)) {
      expect(inFile[name].name).toBe(inputs.name);
      expect(Object.keys(inFile[name].properties as object)).toEqual(
        Object.keys(inputs.properties as object),
      );
    }
  });
});

const bin = join(ROOT, "dist", "cli", "commands", "test-alerts.js");
(existsSync(bin) ? it : it.skip)(
  "the built bin runs the file, writes the report and exits 0 (skipped before a build)",
  async () => {
    const dir = mkdtempSync(join(tmpdir(), "alert-report-"));
    try {
      const report = join(dir, "report.html");
      const r = await runCli(["test", "alerts", FILE, "--report", report]);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(r.stdout.split("\n")[0]).toBe(`${FILE}: PASS, 12 of 12 expectations met`);
      expect(r.stdout).toContain(`report: ${report}`);
      expect(readFileSync(report, "utf8")).toContain('data-result="pass"');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
  120_000,
);

describe("examples/adopt-existing/alerts.test.yaml", () => {
  const ADOPT = "examples/adopt-existing/alerts.test.yaml";

  it("passes: the disk monitor opens on db-2's first reading above 90% and closes after; the email is recorded", async () => {
    const lines: string[] = [];
    const r = await testAlerts([ADOPT], { cwd: ROOT, out: (l) => lines.push(l), err: (l) => lines.push(l) });
    expect(lines[0]).toBe(`${ADOPT}: PASS, 2 of 2 expectations met`);
    expect(r.code).toBe(0);
    expect(r.outcomes[0].outbox.map((e) => [e.action, e.time, e.outcome])).toEqual([
      ["Open", "2024-06-03T00:45:00.000Z", "recorded"],
      ["Closed", "2024-06-03T01:00:00.000Z", "recorded"],
    ]);
  });

  it("its monitor and notifier are the ones index.ts adopts, with the default config", () => {
    const file = parse(readFileSync(join(ROOT, ADOPT), "utf8")) as Record<
      string,
      Record<string, Record<string, unknown>>
    >;
    const source = readFileSync(join(ROOT, "examples", "adopt-existing", "index.ts"), "utf8");
    const monitor = file.monitors["disk-full"];
    // Values the program spells out (the name and threshold are its config's defaults).
    for (const key of ["description", "aplQuery"])
      expect(source).toContain(`${key}: ${JSON.stringify(monitor[key])}`);
    expect(source).toContain(`?? ${JSON.stringify(monitor.name)}`);
    expect(source).toContain(`?? ${monitor.threshold};`);
    for (const key of ["type", "operator"]) expect(source).toContain(`${key}: "${String(monitor[key])}"`);
    for (const key of ["intervalMinutes", "rangeMinutes"])
      expect(source).toContain(`${key}: ${String(monitor[key])},`);
    expect(monitor.notifierIds).toEqual(["platform-email"]);
    expect(source).toContain("notifierIds: [platformEmail.id]");
    const notifier = file.notifiers["platform-email"];
    expect(source).toContain(`?? ${JSON.stringify(notifier.name)}`);
    const emails = (notifier.properties as { email: { emails: string[] } }).email.emails;
    expect(source).toContain(`email: { emails: ${JSON.stringify(emails).replace(/","/g, '", "')} }`);
  });
});
