/**
 * `observability test alerts` on a stack read from the real `pulumi preview --json`: the YAML flagship
 * (examples/yaml-flagship, the native provider's `observability:index:*` types through the YAML language host),
 * previewed by the CLI before any create (the notifier's id unknown, its webhook URL a secret) and again after
 * `up` (the ids known). The flagship's own alert-test file, with its inline monitors and notifier taken out and
 * `stack: { preview: … }` put in, must pass on both, as it passes inline (test/cli/test-alerts-flagships.test.ts).
 */
import { readFileSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { parse, stringify } from "yaml";
import { testAlerts } from "../../cli/commands/test-alerts";
import { loadAlertTest } from "../../cli/alert-test/load";
import { mustExec } from "../../scripts/shared/commands";
import { openHarness, ROOT, toolPath, type Harness } from "./flagship";

const cli = toolPath("pulumi-path.mts");
const host = toolPath("pulumi-yaml.mts");
const reason = cli.reason ?? host.reason;
const maybe = cli.path && host.path ? describe : describe.skip;
if (reason) console.warn(`alert tests on a real preview: skipped: ${reason}`);

/** `pulumi <args> --stack dev --non-interactive` in the program's folder; resolves with standard output. */
const pulumi = (h: Harness, args: string[], input?: string) =>
  mustExec(h.pulumi, [...args, "--stack", "dev", "--non-interactive"], { cwd: h.work, env: h.env, input });

/** The flagship's alert-test file, reading its monitors and notifier from `preview` instead of declaring them. */
function fromStack(preview: string): string {
  const file = parse(
    readFileSync(path.join(ROOT, "examples", "yaml-flagship", "alerts.test.yaml"), "utf8"),
  ) as Record<string, unknown>;
  delete file.monitors;
  delete file.notifiers;
  return stringify({ ...file, stack: { preview } });
}

maybe("observability test alerts on the YAML flagship's real `pulumi preview --json`", () => {
  let h: Harness;

  beforeAll(async () => {
    h = await openHarness(cli.path!, "yaml-flagship", [host.path!]);
    await mustExec(
      h.pulumi,
      ["stack", "init", "dev", "--secrets-provider", "passphrase", "--non-interactive"],
      {
        cwd: h.work,
        env: h.env,
      },
    );
    await pulumi(h, ["config", "set", "observability:url", h.em.url]);
    // Secrets on stdin: never in a process list.
    await pulumi(h, ["config", "set", "--secret", "observability:token"], h.em.token);
    await pulumi(h, ["config", "set", "--secret", "slackWebhookUrl"], h.slackUrl);
  }, 20 * 60_000);
  afterAll(async () => h?.close());

  /** Runs the stack-reading test file on the preview's output, saved as `name`. */
  async function runOn(name: string, previewJson: string) {
    writeFileSync(path.join(h.work, name), previewJson);
    writeFileSync(path.join(h.work, `${name}.test.yaml`), fromStack(name));
    const out: string[] = [];
    const err: string[] = [];
    const result = await testAlerts([`${name}.test.yaml`], {
      cwd: h.work,
      out: (l) => out.push(l),
      err: (l) => err.push(l),
    });
    return { result, out, err, loaded: await loadAlertTest(`${name}.test.yaml`, h.work) };
  }

  test("before any create: the notifier's unknown id is told from the monitors' property dependencies, its secret URL goes to the receiver", async () => {
    const preview = await pulumi(h, ["preview", "--json", "--show-sames"]);
    // What the preview says of the notifier: no id yet, and the URL hidden.
    expect(preview).toContain("04da6b54-80e4-46f7-96ec-b56ff0331ba9");
    expect(preview).not.toContain(h.slackUrl);
    const { result, out, err, loaded } = await runOn("create-preview.json", preview);
    expect(err).toEqual([]);
    expect(out[0]).toMatch(
      /^create-preview\.json\.test\.yaml: PASS, 3 of 3 expectations met; \d+ warnings?$/,
    );
    expect(result.code).toBe(0);
    // The preview prints the notifier's whole properties as [secret]: it runs as a stand-in, and says so.
    expect(result.outcomes[0].warnings).toContainEqual(
      expect.objectContaining({ kind: "stand-in", notifier: "oncall-slack" }),
    );
    expect(loaded.model.monitors.map((m) => [m.key, m.inputs.notifierIds]).sort()).toEqual([
      ["error-rate", ["oncall-slack"]],
      ["panics", ["oncall-slack"]],
    ]);
    expect(loaded.model.notifiers.map((n) => [n.key, n.urlHidden])).toEqual([["oncall-slack", true]]);
    expect(loaded.model.datasets.map((d) => d.name)).toEqual(["http-logs"]);
  });

  test("after up: the known ids are matched to the notifier, and the verdict is the same", async () => {
    await pulumi(h, ["up", "--yes", "--skip-preview"]);
    const preview = await pulumi(h, ["preview", "--json", "--show-sames"]);
    expect(preview).not.toContain(h.slackUrl);
    const { result, out, err, loaded } = await runOn("same-preview.json", preview);
    expect(err).toEqual([]);
    expect(out[0]).toMatch(
      /^same-preview\.json\.test\.yaml: PASS, 3 of 3 expectations met(; \d+ warnings?)?$/,
    );
    expect(result.code).toBe(0);
    expect(loaded.model.monitors.map((m) => m.inputs.notifierIds)).toEqual([
      ["oncall-slack"],
      ["oncall-slack"],
    ]);
    await pulumi(h, ["destroy", "--yes", "--skip-preview"]);
  });
});
