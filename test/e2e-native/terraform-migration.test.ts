/**
 * docs/migrating-from-terraform.md, followed block by block under the real engine: objects made on an emulator as
 * terraform-provider-axiom makes them, the Terraform state recording them (count, for_each, modules, a data source,
 * another provider's resource, tainted and deposed instances, an object deleted since), then every `sh` block of
 * the page in order, with bash, in a fresh folder: a YAML project, `observability migrate terraform` with the
 * stack's credentials, `pulumi import --file` (the CLI built here and pulumi-language-yaml, which writes the
 * program), `pulumi preview --expect-no-changes`, and the hand-over script.
 *
 * Two programs of the page are stood in for, and only those: `terraform` (not installed here), by a script on PATH
 * that answers `terraform state pull` with the state and records each `terraform state rm`; and
 * `npx -p pulumi-observability observability`, by this checkout's build (npx would fetch the published package).
 * The engine is the real one throughout.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { ObservabilityClient } from "../../provider/client";
import {
  makeTerraformProject,
  ROUTING_KEY,
  SLACK_URL,
  type TerraformMade,
} from "../helpers/terraform-fixture";
import { exec, mustExec } from "../../scripts/shared/commands";
import { NODE, PLUGIN, plaintextSecrets, ROOT, shellBlocks, toolPath, VERSION } from "./flagship";
import { serviceContents } from "../helpers/service-contents";

const PAGE = readFileSync(path.join(ROOT, "docs", "migrating-from-terraform.md"), "utf8");
const BLOCKS = shellBlocks(PAGE);
const cli = toolPath("pulumi-path.mts");
const yaml = toolPath("pulumi-yaml.mts");
const missing = !cli.path ? cli.reason : !yaml.path ? `no YAML language host: ${yaml.reason}` : undefined;
if (missing) console.warn(`docs/migrating-from-terraform.md: skipped: ${missing}`);
const maybe = missing ? describe.skip : describe;

/** The page's sections, in order. */
const STEPS = [
  "Before you start",
  "1. Freeze Terraform, and pull its state",
  "2. Write the import file",
  "3. Import into the stack",
  "4. Add the code, and check that nothing would change",
  "5. Hand each object over",
];

/** The addresses the state's objects are taken from: everything but what the page says is skipped. */
const TAKEN = [
  "axiom_dashboard.board",
  "axiom_dataset.logs",
  "axiom_monitor.errors[0]",
  "axiom_monitor.errors[1]",
  'axiom_notifier.oncall["pager.duty"]',
  'axiom_notifier.oncall["slack"]',
  "axiom_token.ci",
  "axiom_user.ada",
  "module.fields.axiom_virtual_field.dur",
  'module.team["a"].axiom_monitor.errors',
];

interface StackState {
  deployment: {
    resources: {
      urn: string;
      type: string;
      id?: string;
      protect?: boolean;
      outputs?: Record<string, unknown>;
    }[];
  };
}

maybe("docs/migrating-from-terraform.md, followed block by block", () => {
  let em: RunningEmulator;
  let client: ObservabilityClient;
  let made: TerraformMade;
  let baseline: Record<string, string[]>;
  let root: string;
  let project: string;
  let stateDir: string;
  let env: NodeJS.ProcessEnv;
  const rmLog = () => path.join(root, "terraform-state-rm.log");

  /** Runs one section's blocks with bash in the project, stopping at the first command that fails. */
  async function runSection(
    heading: string,
    extra: NodeJS.ProcessEnv = {},
  ): Promise<{ stdout: string; stderr: string }> {
    const blocks = BLOCKS.get(heading);
    if (!blocks?.length) throw new Error(`the page has no sh block under "## ${heading}"`);
    let stdout = "";
    let stderr = "";
    for (const block of blocks) {
      const script = block.replace(/\bnpx (?:-p pulumi-observability )?observability\b/g, "observability");
      const r = await exec("bash", ["-euo", "pipefail", "-c", script], {
        cwd: project,
        env: { ...env, ...extra },
      });
      if (r.code !== 0)
        throw new Error(
          `the block of "${heading}" failed (exit ${r.code}):\n${script}\n---\n${`${r.stdout}\n${r.stderr}`.trim().split("\n").slice(-30).join("\n")}`,
        );
      stdout += r.stdout;
      stderr += r.stderr;
    }
    return { stdout, stderr };
  }

  const pulumi = (args: string[]) =>
    mustExec(cli.path!, [...args, "--stack", "dev", "--non-interactive"], { cwd: project, env });

  beforeAll(async () => {
    const token = `xaat-tf-${Math.random().toString(36).slice(2, 12)}`;
    em = await startEmulator({ port: 0, host: "127.0.0.1", token });
    client = new ObservabilityClient({ url: em.url, token: em.token, orgId: em.orgId });
    const fixture = await makeTerraformProject(em, client);
    made = fixture.made;
    baseline = await serviceContents(client);

    root = path.join(os.tmpdir(), `tf-migration-${process.pid}-${Date.now()}`);
    project = path.join(root, "project");
    stateDir = path.join(root, "pulumi-state");
    const bin = path.join(root, "bin");
    for (const dir of [project, stateDir, bin, path.join(root, "pulumi-home")])
      mkdirSync(dir, { recursive: true });
    const tfState = path.join(root, "backend.tfstate");
    writeFileSync(tfState, JSON.stringify(fixture.state, null, 2));
    writeFileSync(
      path.join(bin, "terraform"),
      [
        "#!/bin/sh",
        "# The tests' stand-in for terraform: the state's backend, and a record of what it was told to forget.",
        'case "$1 $2" in',
        `  "state pull") cat ${JSON.stringify(tfState)} ;;`,
        `  "state rm") shift 2; for a in "$@"; do printf '%s\\n' "$a" >> ${JSON.stringify(rmLog())}; done; echo "Removed $*" ;;`,
        '  *) echo "stand-in terraform: $* is not served" >&2; exit 1 ;;',
        "esac",
        "",
      ].join("\n"),
      { mode: 0o755 },
    );
    writeFileSync(
      path.join(bin, "observability"),
      `#!/bin/sh\nexec ${JSON.stringify(NODE)} ${JSON.stringify(path.join(ROOT, "dist", "cli", "index.js"))} "$@"\n`,
      { mode: 0o755 },
    );
    env = {};
    for (const [k, v] of Object.entries(process.env))
      if (v !== undefined && !k.startsWith("OBSERVABILITY_")) env[k] = v;
    Object.assign(env, {
      PULUMI_HOME: path.join(root, "pulumi-home"),
      PULUMI_BACKEND_URL: `file://${stateDir}`,
      PULUMI_CONFIG_PASSPHRASE: "pulumi-observability-local",
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      PATH: [bin, path.dirname(cli.path!), yaml.path!, path.dirname(NODE), process.env.PATH ?? ""].join(
        path.delimiter,
      ),
    });
    // The plugin as a user installs it, from this checkout's build.
    await mustExec(cli.path!, ["plugin", "install", "resource", "observability", VERSION, "--file", PLUGIN], {
      env,
    });
  });

  afterAll(async () => {
    await client?.close();
    await em?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  test("the page has its steps, each with a block", () => {
    expect([...BLOCKS.keys()]).toEqual(STEPS);
  });

  test("Before you start: a YAML project and a stack holding the service's credentials", async () => {
    await runSection(STEPS[0], { OBSERVABILITY_URL: em.url, OBSERVABILITY_TOKEN: em.token });
    const config = JSON.parse(await pulumi(["config", "--json"])) as Record<string, { secret?: boolean }>;
    expect(config["observability:token"]).toMatchObject({ secret: true });
  });

  test("1 and 2: the state pulled, and the import file written with the stack's credentials", async () => {
    await runSection(STEPS[1]);
    // No OBSERVABILITY_* from here on: the credentials are the stack's (--stack dev).
    const { stderr } = await runSection(STEPS[2]);
    expect(stderr).toContain("checked against the service with stack dev's configuration");
    expect(stderr).toMatch(/Taken \(10\)/);
    expect(stderr).toMatch(/Skipped \(5\)/);
    for (const secret of [SLACK_URL, ROUTING_KEY, made.token.value]) expect(stderr).not.toContain(secret);
    const file = JSON.parse(readFileSync(path.join(project, "import.json"), "utf8")) as {
      resources: unknown[];
    };
    expect(file.resources).toHaveLength(10);
    expect(readFileSync(path.join(project, "handover.sh"), "utf8")).toContain(
      "terraform state rm 'axiom_token.ci'",
    );
    // A stack that does not exist: one line saying what `pulumi` answered, exit 1.
    const wrong = await exec(
      path.join(path.dirname(project), "bin", "observability"),
      ["migrate", "terraform", "terraform.tfstate", "--stack", "nope"],
      { cwd: project, env },
    );
    expect(wrong.code).toBe(1);
    expect(wrong.stderr.trimEnd().split("\n")).toEqual([
      expect.stringMatching(
        /^observability migrate terraform: `pulumi config --show-secrets --json` failed .*nope/,
      ),
    ]);
  });

  test("3: `pulumi import --file` takes every object, protected, the token's value as a secret", async () => {
    const { stdout } = await runSection(STEPS[3]);
    expect(stdout).toMatch(/10 imported/);
    expect(existsSync(path.join(project, "import.json"))).toBe(false);
    const exported = JSON.parse(await pulumi(["stack", "export"])) as StackState;
    const ours = exported.deployment.resources.filter((r) => r.type.startsWith("observability:index:"));
    expect(ours.map((r) => r.id).sort()).toEqual(
      [
        made.dataset,
        ...made.monitors,
        made.moduleMonitor,
        made.slack,
        made.pagerduty,
        made.token.id,
        made.vfield,
        made.user,
        made.dashboard,
      ].sort(),
    );
    expect(ours.every((r) => r.protect === true)).toBe(true);
    const token = ours.find((r) => r.type === "observability:index:ApiToken")!;
    expect(token.outputs?.token).toMatchObject({
      "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
      ciphertext: expect.any(String),
    });
    const shown = JSON.parse(await pulumi(["stack", "export", "--show-secrets"])) as StackState;
    const value = shown.deployment.resources.find((r) => r.type === "observability:index:ApiToken")!.outputs
      ?.token;
    expect(JSON.stringify(value)).toContain(made.token.value);
    // No credential of the state in plaintext in any checkpoint, backup or history file.
    expect(
      plaintextSecrets(stateDir, {
        "Slack URL": SLACK_URL,
        "routing key": ROUTING_KEY,
        token: made.token.value,
      }),
    ).toEqual([]);
  });

  test("4: the generated YAML program, added to the project, previews with no change", async () => {
    const program = readFileSync(path.join(project, "imported.yaml"), "utf8");
    expect(program).toContain("type: observability:Notifier");
    // Pulumi's YAML code generator writes a secret input as a plain literal: why the page says to move each one to
    // the stack's configuration before committing the program.
    expect(program).toContain(SLACK_URL);
    await runSection(STEPS[4]);
    // A refresh reads every object again, by the provider's Read: still nothing changes, and the token's value,
    // which no Read returns, is kept from the state (the kind's carried outputs).
    await pulumi(["refresh", "--yes", "--expect-no-changes", "--skip-preview"]);
    const shown = JSON.parse(await pulumi(["stack", "export", "--show-secrets"])) as StackState;
    const token = shown.deployment.resources.find((r) => r.type === "observability:index:ApiToken");
    expect(JSON.stringify(token?.outputs?.token)).toContain(made.token.value);
    // Nothing was created or deleted on the service at any step.
    expect(await serviceContents(client)).toEqual(baseline);
  });

  test("5: the hand-over script makes Terraform forget exactly what was taken", async () => {
    await runSection(STEPS[5]);
    expect(readFileSync(rmLog(), "utf8").trim().split("\n")).toEqual(TAKEN);
    expect(await serviceContents(client)).toEqual(baseline);
  });
});
