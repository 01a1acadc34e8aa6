/**
 * templates/<language>, as a user starts from one: `pulumi new <template folder> --yes --generate-only` into a fresh
 * folder, then the program it wrote, on the SDK of this checkout, against a fresh emulator: preview, up, a preview
 * proposing no change, destroy.
 *
 * `pulumi new` (pulumi/pulumi pkg/cmd/pulumi/project/newcmd/new.go, runNew) copies the template replacing
 * `${PROJECT}` and `${DESCRIPTION}` (cmd/pulumi/templates/project_templates.go, transform), then loads the
 * project, drops its `template:` section and saves it, and asks the language host for runtime-option prompts and
 * its own templating. `--yes` takes every default and `--generate-only` creates no stack and saves no
 * configuration, so no question is asked and no secret is given on its command line: the token and the webhook URL
 * go in afterwards with `pulumi config set --secret`, each read from stdin.
 *
 * YAML runs under the real engine through the YAML language host. The Node.js, Python and Go hosts are not served
 * to these machines, so `pulumi new` loads a stand-in for them (drivers/new-host.mts, which answers as the real
 * ones do for these templates and fails where they would ask), and the program runs through the tests' inline
 * driver (drivers/inline.mts), as the flagships' tests run theirs.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { parseYaml } from "../helpers/yaml";
import { exec, mustExec } from "../../scripts/shared/commands";
import {
  type Changes,
  changesOf,
  demoFolder,
  flagshipObjects,
  type Harness,
  inlineOperation,
  installTypeScriptSdk,
  noChanges,
  NODE,
  openHarnessIn,
  plaintextSecrets,
  recordCommandLines,
  ROOT,
  toolPath,
} from "./flagship";

const TEMPLATES = path.join(ROOT, "templates");
const PROJECT = "checkout-alerts";
const DESCRIPTION = "Alerts of the checkout service";
/** The template's resources: a dataset, a notifier, a monitor, and the stack itself. */
const CREATES = 4;
const STAND_IN = path.join(__dirname, "drivers", "new-host.mts");
const GO_MODULE = "github.com/pulumi-observability/pulumi-observability/sdk/go";
const PULUMI_GO_SDK = "github.com/pulumi/pulumi/sdk/v3";

const GO =
  process.env.GO ??
  (spawnSync("go", ["version"], { stdio: "ignore" }).status === 0 ? "go" : "/usr/local/go/bin/go");
const PYTHON = process.env.PYTHON ?? "python3";
const cli = toolPath("pulumi-path.mts");
const yamlHost = toolPath("pulumi-yaml.mts");

/** How one template's project is made ready and run. */
interface TemplateSpec {
  /** templates/<dir>. */
  dir: string;
  /** The runtime a stand-in host serves in `pulumi new`, or none (YAML's host is the real one). */
  standIn?: "nodejs" | "python" | "go";
  /** Why this language cannot run here, or undefined. */
  missing?: string;
  /** Installs the SDK of this checkout, as the language's flagship test does, and checks the program builds. */
  install(h: Harness): Promise<void>;
  operation(h: Harness, op: "preview" | "up" | "destroy"): Promise<Changes>;
}

/** `pulumi <args> --stack dev --non-interactive` in the project, `input` on stdin. */
const pulumiIn = (h: Harness, args: string[], input?: string) =>
  mustExec(h.pulumi, [...args, "--stack", "dev", "--non-interactive"], { cwd: h.work, env: h.env, input });

/** Through the inline driver, on the stack configuration the test set (none passes on a command line). */
const inline = (h: Harness, op: string) => inlineOperation(h, op, { INLINE_KEEP_CONFIG: "1" });

const SPECS: Record<string, TemplateSpec> = {
  TypeScript: {
    dir: "typescript",
    standIn: "nodejs",
    install: async (h) => {
      // As a package, not a link, as the flagship's .npmrc says: a link would resolve @pulumi/pulumi from the
      // checkout, a second copy the program's resources would not register with.
      await installTypeScriptSdk(["--install-links"], { cwd: h.work, env: h.env });
      // The project's own TypeScript and tsconfig.json, as `pulumi up` would compile it.
      await mustExec(NODE, [path.join("node_modules", "typescript", "bin", "tsc"), "--noEmit", "-p", "."], {
        cwd: h.work,
        env: h.env,
      });
    },
    operation: inline,
  },
  Python: {
    dir: "python",
    standIn: "python",
    missing:
      spawnSync(PYTHON, ["-c", "import sys, venv; assert sys.version_info >= (3, 9)"], { stdio: "ignore" })
        .status === 0
        ? undefined
        : `no Python 3.9+ with venv (${PYTHON})`,
    install: async (h) => {
      // The released distribution's requirement, pointed at this checkout's sdk/python.
      const file = path.join(h.work, "requirements.txt");
      const lines = readFileSync(file, "utf8").split("\n");
      const sdk = lines.findIndex((l) => /^pulumi_observability\b/.test(l));
      expect(sdk).toBeGreaterThanOrEqual(0);
      lines[sdk] = path.join(ROOT, "sdk", "python");
      writeFileSync(file, lines.join("\n"));
      await mustExec(PYTHON, ["-m", "venv", "venv"], { cwd: h.work, env: h.env });
      await mustExec(
        path.join(h.work, "venv", "bin", "python"),
        ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r", "requirements.txt"],
        { cwd: h.work, env: h.env },
      );
    },
    operation: inline,
  },
  Go: {
    dir: "go",
    standIn: "go",
    missing:
      spawnSync(GO, ["version"], { stdio: "ignore" }).status === 0 ? undefined : `no Go toolchain (${GO})`,
    install: async (h) => {
      const env = { ...h.env, GOTOOLCHAIN: "local" };
      const go = (args: string[]) => mustExec(GO, args, { cwd: h.work, env });
      await go(["mod", "edit", "-replace", `${GO_MODULE}=${path.join(ROOT, "sdk", "go")}`]);
      // What `pulumi install` runs for a Go project, filling go.sum.
      await go(["mod", "tidy"]);
      await go(["build", "-mod=readonly", "-o", "/dev/null", "."]);
      // The inline driver joins the package as a test file importing the Automation API: its modules' sums too,
      // at the version the template requires.
      const required = /^\s*github\.com\/pulumi\/pulumi\/sdk\/v3 (v\S+)/m.exec(
        readFileSync(path.join(h.work, "go.mod"), "utf8"),
      );
      expect(required).not.toBeNull();
      await go(["get", `${PULUMI_GO_SDK}/go/auto@${required![1]}`]);
    },
    operation: (h, op) => inlineOperation(h, op, { INLINE_KEEP_CONFIG: "1", GO }),
  },
  YAML: {
    dir: "yaml",
    missing: yamlHost.path ? undefined : `no YAML language host: ${yamlHost.reason}`,
    install: async () => {
      // Nothing to install: the plugin gives YAML the schema of each type.
    },
    operation: async (h, op) =>
      changesOf(
        await pulumiIn(
          h,
          op === "preview" ? ["preview", "--json"] : [op, "--yes", "--skip-preview", "--json"],
        ),
      ),
  },
};

/** Executables `pulumi-language-<runtime>` in `dir`, each starting the stand-in host for its runtime. */
function writeStandInHosts(dir: string): void {
  mkdirSync(dir, { recursive: true });
  for (const runtime of ["nodejs", "python", "go"]) {
    const file = path.join(dir, `pulumi-language-${runtime}`);
    writeFileSync(file, `#!/bin/sh\nexec '${NODE}' '${STAND_IN}' ${runtime} "$@"\n`);
    chmodSync(file, 0o755);
  }
}

/** Every file under `dir`, relative to it, sorted. */
function filesOf(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) => statSync(path.join(dir, f)).isFile())
    .sort();
}

/** Runs `pulumi new <template> --yes --generate-only` into `root/<project>`; resolves to its outcome. */
function pulumiNew(root: string, template: string, extraPath: string[]) {
  const hosts = path.join(root, "stand-in-hosts");
  writeStandInHosts(hosts);
  // Recorded where the harness records the rest of the run (flagship.ts recordCommandLines): one log.
  const recorder = recordCommandLines(cli.path!, path.join(root, "recorded-cli"));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PULUMI_HOME: path.join(root, "new-home"),
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    NEW_HOST_LOG: path.join(root, "new-host.log"),
    PATH: [hosts, ...extraPath, path.dirname(cli.path!), path.dirname(NODE), process.env.PATH ?? ""].join(
      path.delimiter,
    ),
  };
  return exec(
    recorder.pulumi,
    [
      "new",
      template,
      "--yes",
      "--generate-only",
      "--name",
      PROJECT,
      "--description",
      DESCRIPTION,
      "--dir",
      path.join(root, PROJECT),
    ],
    // No stdin: a prompt would read end of file and fail.
    { cwd: root, env },
  );
}

function describeTemplate(language: string, spec: TemplateSpec): void {
  const reason = cli.path ? spec.missing : `no Pulumi CLI: ${cli.reason}`;
  if (reason) console.warn(`${language} template: skipped: ${reason}`);
  const maybe = reason ? describe.skip : describe;

  maybe(`${language}: templates/${spec.dir}, from pulumi new to destroy`, () => {
    let root: string;
    let h: Harness;
    let baseline: Record<string, string[]>;
    const template = path.join(TEMPLATES, spec.dir);
    const extraPath = spec.standIn ? [] : [yamlHost.path!];

    beforeAll(async () => {
      root = demoFolder(`template-${spec.dir}-`);
      const made = await pulumiNew(root, template, extraPath);
      if (made.code !== 0) throw new Error(`pulumi new failed:\n${made.stdout}\n${made.stderr}`);
      h = await openHarnessIn(cli.path!, path.join(root, PROJECT), extraPath);
      baseline = await flagshipObjects(h.client);
    }, 5 * 60_000);
    afterAll(async () => h?.close());

    test("pulumi new wrote every file, the name and description given, and no template section", () => {
      const project = parseYaml(readFileSync(path.join(h.work, "Pulumi.yaml"), "utf8")) as Record<
        string,
        unknown
      >;
      const source = parseYaml(readFileSync(path.join(template, "Pulumi.yaml"), "utf8")) as Record<
        string,
        unknown
      >;
      expect(project.name).toBe(PROJECT);
      expect(project.description).toBe(DESCRIPTION);
      expect(project.runtime).toEqual(source.runtime);
      expect(source.template).toBeDefined();
      expect(project).not.toHaveProperty("template");
      // pulumi new tags the project with where it came from.
      expect(project.config).toMatchObject({ "pulumi:tags": { value: { "pulumi:template": template } } });
      // The state folder is the harness's; nothing else was added, and no stack configuration was saved.
      const written = filesOf(h.work).filter((f) => !f.startsWith(".pulumi-state"));
      expect(written).toEqual(filesOf(template));
      for (const file of written) {
        const text = readFileSync(path.join(h.work, file), "utf8");
        expect({ file, placeholder: /\$\{(PROJECT|DESCRIPTION)\}/.exec(text)?.[0] }).toEqual({
          file,
          placeholder: undefined,
        });
      }
      if (spec.dir === "typescript")
        expect(JSON.parse(readFileSync(path.join(h.work, "package.json"), "utf8")).name).toBe(PROJECT);
      if (spec.dir === "go")
        expect(readFileSync(path.join(h.work, "go.mod"), "utf8")).toMatch(
          new RegExp(`^module ${PROJECT}$`, "m"),
        );
      if (spec.standIn) {
        // What pulumi new asked the host, each answered as the real one answers.
        const asked = readFileSync(path.join(root, "new-host.log"), "utf8").trim().split("\n");
        expect(asked).toEqual(["GetPluginInfo", "RuntimeOptionsPrompts", "Template"]);
      }
    });

    test(
      "the SDK installs and the program builds; the stack's secrets go in on stdin",
      async () => {
        await spec.install(h);
        await mustExec(
          h.pulumi,
          ["stack", "init", "dev", "--secrets-provider", "passphrase", "--non-interactive"],
          { cwd: h.work, env: h.env },
        );
        await pulumiIn(h, ["config", "set", "observability:url", h.em.url]);
        await pulumiIn(h, ["config", "set", "--secret", "observability:token"], h.em.token);
        await pulumiIn(h, ["config", "set", "--secret", "slackWebhookUrl"], h.slackUrl);
        const stackFile = readFileSync(path.join(h.work, "Pulumi.dev.yaml"), "utf8");
        expect(stackFile).not.toContain(h.em.token);
        expect(stackFile).not.toContain(h.slackUrl);
      },
      10 * 60_000,
    );

    test("preview proposes the template's creates and changes nothing", async () => {
      expect(await spec.operation(h, "preview")).toEqual({ create: CREATES });
      expect(await flagshipObjects(h.client)).toEqual(baseline);
    });

    test("up makes the dataset named after the project, the Slack notifier and the monitor wired to it", async () => {
      expect(await spec.operation(h, "up")).toEqual({ create: CREATES });
      const now = await flagshipObjects(h.client);
      const added = (family: string) => now[family].filter((id) => !baseline[family].includes(id));
      expect(added("datasets")).toEqual([`${PROJECT}-logs`]);
      expect(added("notifiers")).toHaveLength(1);
      expect(added("monitors")).toHaveLength(1);
      const notifier = await h.client.notifiers.get(added("notifiers")[0]);
      expect(notifier.name).toBe(`${PROJECT} on-call (Slack)`);
      expect(notifier.properties?.slack?.slackUrl).toBe(h.slackUrl);
      const monitor = await h.client.monitors.get(added("monitors")[0]);
      expect(monitor).toMatchObject({
        name: `${PROJECT} errors`,
        type: "Threshold",
        operator: "Above",
        threshold: 10,
        notifierIds: added("notifiers"),
      });
      expect(monitor.aplQuery).toContain(`['${PROJECT}-logs']`);
    });

    test("a preview after up proposes no change", async () => {
      const again = await spec.operation(h, "preview");
      expect(noChanges(again)).toBe(true);
      expect(again.same).toBe(CREATES);
    });

    test("neither the token nor the webhook URL is in plaintext in any state file", () => {
      expect(
        plaintextSecrets(path.join(h.work, ".pulumi-state"), {
          "provider's token": h.em.token,
          "notifier's webhook URL": h.slackUrl,
        }),
      ).toEqual([]);
    });

    test("destroy deletes everything, leaving the emulator as it was", async () => {
      expect((await spec.operation(h, "destroy")).delete).toBe(CREATES);
      expect(await flagshipObjects(h.client)).toEqual(baseline);
    });

    test("no secret was ever on a pulumi command line, from pulumi new to destroy", () => {
      const calls = h.commandLines();
      // The log saw the run: pulumi new, the secrets set, and each operation.
      expect(calls[0]).toMatch(/^new .* --yes --generate-only /);
      expect(calls).toContain("config set --secret observability:token --stack dev --non-interactive");
      expect(calls).toContain("config set --secret slackWebhookUrl --stack dev --non-interactive");
      // The Automation API of Python and Go puts --non-interactive first.
      expect(calls.filter((c) => /^(--non-interactive )?(up|destroy)\b/.test(c))).toHaveLength(2);
      expect(calls.filter((c) => c.includes(h.em.token) || c.includes(h.slackUrl))).toEqual([]);
    });
  });
}

for (const [language, spec] of Object.entries(SPECS)) describeTemplate(language, spec);

const standInReason = cli.path ? undefined : `no Pulumi CLI: ${cli.reason}`;
(standInReason ? test.skip : test)(
  "the stand-in host fails pulumi new where the real one would ask: a template without packagemanager",
  async () => {
    const root = demoFolder("template-prompt-");
    const template = path.join(root, "template");
    cpSync(path.join(TEMPLATES, "typescript"), template, { recursive: true });
    const file = path.join(template, "Pulumi.yaml");
    const text = readFileSync(file, "utf8");
    const without = text.replace(/\n {2}options:\n(?: {4}.*\n)+/, "\n");
    expect(without).not.toContain("packagemanager");
    writeFileSync(file, without);
    const made = await pulumiNew(root, template, []);
    expect(made.code).not.toBe(0);
    expect(made.stderr).toContain("the real host would prompt for the runtime option packagemanager");
  },
  60_000,
);

/**
 * Without `--generate-only`, `pulumi new --yes` also makes the stack and saves the template's configuration
 * (pulumi/pulumi newcmd/config.go, promptForConfig: each key's default under `--yes`, a `--config` value before it;
 * an empty value is not saved). YAML, whose host is served here, shows what a user of any template gets.
 */
const yamlReason = !cli.path ? `no Pulumi CLI: ${cli.reason}` : SPECS.YAML.missing;
(yamlReason ? describe.skip : describe)(
  "YAML: pulumi new --yes with a stack saves the template's configuration",
  () => {
    let h: Harness;
    let project: string;

    beforeAll(async () => {
      const root = demoFolder("template-stack-");
      // The harness's folder holds the state and PULUMI_HOME; pulumi new writes into an empty one beside it.
      mkdirSync(path.join(root, "state"));
      h = await openHarnessIn(cli.path!, path.join(root, "state"), [yamlHost.path!]);
      project = path.join(root, PROJECT);
      await mustExec(
        h.pulumi,
        [
          "new",
          path.join(TEMPLATES, "yaml"),
          "--yes",
          "--name",
          PROJECT,
          "--stack",
          "dev",
          "--secrets-provider",
          "passphrase",
          "--dir",
          project,
          // Not a secret: the URL may go on the command line.
          "--config",
          `observability:url=${h.em.url}`,
        ],
        { cwd: root, env: h.env },
      );
    }, 5 * 60_000);
    afterAll(async () => h?.close());

    const run = (args: string[], input?: string) =>
      mustExec(h.pulumi, [...args, "--stack", "dev", "--non-interactive"], {
        cwd: project,
        env: h.env,
        input,
      });

    test("the region's default and the URL given are saved; the token and webhook URL, unanswered, are not", async () => {
      const config = JSON.parse(await run(["config", "--json"])) as Record<string, { value?: string }>;
      expect(config["observability:region"]?.value).toBe("us");
      expect(config["observability:url"]?.value).toBe(h.em.url);
      expect(config).not.toHaveProperty("observability:token");
      expect(config).not.toHaveProperty(`${PROJECT}:slackWebhookUrl`);
      const saved = parseYaml(readFileSync(path.join(project, "Pulumi.yaml"), "utf8")) as Record<
        string,
        unknown
      >;
      expect(saved).not.toHaveProperty("template");
    });

    test("a preview fails naming the missing secret; given on stdin, it proposes the template's creates", async () => {
      await run(["config", "set", "--secret", "observability:token"], h.em.token);
      const missing = await exec(h.pulumi, ["preview", "--stack", "dev", "--non-interactive"], {
        cwd: project,
        env: h.env,
      });
      expect(missing.code).not.toBe(0);
      expect(`${missing.stdout}${missing.stderr}`).toContain("slackWebhookUrl");
      await run(["config", "set", "--secret", "slackWebhookUrl"], h.slackUrl);
      expect(changesOf(await run(["preview", "--json"]))).toEqual({ create: CREATES });
    });
  },
);
