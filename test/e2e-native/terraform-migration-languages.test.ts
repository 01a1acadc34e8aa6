/**
 * docs/migrating-from-terraform.md, "Other languages": the program `pulumi import` generates for a Terraform
 * migration, in TypeScript, Python and Go, run on this checkout's SDKs against the imported stack, previews with no
 * change.
 *
 * `pulumi import` (pulumi/pulumi pkg/cmd/pulumi/operations/import.go, v3.274.1) forms the program in two steps: the
 * CLI turns the imported states into PCL (importer.GenerateLanguageDefinitions), then the project's language host
 * binds that PCL and calls its language's GenerateProgram (pkg/codegen/nodejs, python, go). Only the YAML host is
 * served to these machines (the Go module proxy answers 403 for pulumi-language-python, -go and -nodejs), so:
 * - the import runs for real, in a YAML project, with the CLI built here: `observability migrate terraform`, then
 *   `pulumi import --file`, which writes imported.yaml through the YAML host;
 * - engine/sdkgen -import-program (scripts/sdkgen.mts --import-program) makes the CLI's first step on the stack's
 *   state after that import, with the same function, name table and CLI version, and the hosts' second step with the
 *   same generators. That its PCL is the one the CLI handed the YAML host is checked, not assumed: the real YAML
 *   host turns it (`pulumi convert --from pcl --language yaml`) into the very YAML `pulumi import` wrote;
 * - each language's generated program, unedited but for Go's program function being named for the driver, runs
 *   as an Automation API inline program (drivers/inline.mts, as the flagships' tests run theirs) on this checkout's
 *   SDK, in the imported stack: `preview` proposes no change, and the service is untouched.
 */
import { copyFileSync, cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
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
import {
  editProgram,
  inlineOperation,
  installTypeScriptSdk,
  noChanges,
  NODE,
  PLUGIN,
  ROOT,
  toolPath,
  typecheckProgram,
  VERSION,
} from "./flagship";
import { serviceContents } from "../helpers/service-contents";

const cli = toolPath("pulumi-path.mts");
const yaml = toolPath("pulumi-yaml.mts");
const GO =
  process.env.GO ??
  (spawnSync("go", ["version"], { stdio: "ignore" }).status === 0 ? "go" : "/usr/local/go/bin/go");
const PYTHON = process.env.PYTHON ?? "python3";
const missing = !cli.path
  ? cli.reason
  : !yaml.path
    ? `no YAML language host: ${yaml.reason}`
    : spawnSync(GO, ["version"], { stdio: "ignore" }).status !== 0
      ? `no Go toolchain to build engine/sdkgen (${GO})`
      : undefined;
if (missing) console.warn(`terraform-migration-languages: skipped: ${missing}`);
const maybe = missing ? describe.skip : describe;
const hasPython =
  spawnSync(PYTHON, ["-c", "import sys, venv; assert sys.version_info >= (3, 9)"], { stdio: "ignore" })
    .status === 0;
if (!missing && !hasPython)
  console.warn(`terraform-migration-languages: Python skipped: no Python 3.9+ with venv (${PYTHON})`);

const PROJECT = "from-terraform";
const GO_MODULE = "github.com/pulumi-observability/pulumi-observability/sdk/go";
/** What the import takes of the fixture's state (terraform-migration.test.ts lists the addresses). */
const TAKEN = 10;

maybe("the program `pulumi import` generates, in TypeScript, Python and Go, previews with no change", () => {
  let em: RunningEmulator;
  let client: ObservabilityClient;
  let made: TerraformMade;
  let baseline: Record<string, string[]>;
  let root: string;
  let env: NodeJS.ProcessEnv;
  let generated: string;
  const yamlProject = () => path.join(root, "yaml");

  const pulumi = (args: string[], cwd: string, input?: string) =>
    mustExec(cli.path!, [...args, "--non-interactive"], { cwd, env, input });

  beforeAll(async () => {
    const token = `xaat-tfl-${Math.random().toString(36).slice(2, 12)}`;
    em = await startEmulator({ port: 0, host: "127.0.0.1", token });
    client = new ObservabilityClient({ url: em.url, token: em.token, orgId: em.orgId });
    const fixture = await makeTerraformProject(em, client);
    made = fixture.made;
    baseline = await serviceContents(client);

    mkdirSync(path.join(ROOT, ".demo"), { recursive: true });
    root = path.join(ROOT, ".demo", `tf-languages-${process.pid}-${Date.now()}`);
    for (const dir of [yamlProject(), path.join(root, "state"), path.join(root, "pulumi-home")])
      mkdirSync(dir, { recursive: true });
    env = {};
    for (const [k, v] of Object.entries(process.env))
      if (v !== undefined && !k.startsWith("OBSERVABILITY_")) env[k] = v;
    Object.assign(env, {
      PULUMI_HOME: path.join(root, "pulumi-home"),
      PULUMI_BACKEND_URL: `file://${path.join(root, "state")}`,
      PULUMI_CONFIG_PASSPHRASE: "pulumi-observability-local",
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      PATH: [path.dirname(cli.path!), yaml.path!, path.dirname(NODE), process.env.PATH ?? ""].join(
        path.delimiter,
      ),
    });
    await mustExec(cli.path!, ["plugin", "install", "resource", "observability", VERSION, "--file", PLUGIN], {
      env,
    });

    // The page's steps 2 to 4 in a YAML project, the only language whose host is served here.
    const cwd = yamlProject();
    writeFileSync(path.join(cwd, "Pulumi.yaml"), `name: ${PROJECT}\nruntime: yaml\n`);
    writeFileSync(path.join(cwd, "terraform.tfstate"), JSON.stringify(fixture.state, null, 2));
    await pulumi(["stack", "init", "dev"], cwd);
    await pulumi(["config", "set", "observability:url", em.url], cwd);
    await pulumi(["config", "set", "--secret", "observability:token"], cwd, em.token);
    await mustExec(
      NODE,
      [
        path.join(ROOT, "dist", "cli", "index.js"),
        "migrate",
        "terraform",
        "terraform.tfstate",
        "--stack",
        "dev",
        "--out",
        "import.json",
      ],
      { cwd, env },
    );
    await pulumi(
      ["import", "--file", "import.json", "--yes", "--out", "imported.yaml", "--stack", "dev"],
      cwd,
    );
    const program = readFileSync(path.join(cwd, "imported.yaml"), "utf8");
    writeFileSync(path.join(cwd, "Pulumi.yaml"), `name: ${PROJECT}\nruntime: yaml\n${program}`);
    await pulumi(["preview", "--expect-no-changes", "--stack", "dev"], cwd);

    // The CLI's program generation for the other languages, on the stack's state after the import.
    const exported = path.join(root, "export.json");
    writeFileSync(exported, await pulumi(["stack", "export", "--show-secrets", "--stack", "dev"], cwd), {
      mode: 0o600,
    });
    generated = path.join(root, "generated");
    await mustExec(
      NODE,
      [
        path.join(ROOT, "scripts", "sdkgen.mts"),
        "--import-program",
        "--state",
        exported,
        "--import-file",
        path.join(cwd, "import.json"),
        "--out",
        generated,
      ],
      { env },
    );
    rmSync(exported);
  }, 20 * 60_000);

  afterAll(async () => {
    await client?.close();
    await em?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  test("the PCL is the one `pulumi import` handed the YAML host: that host makes the same YAML of it", async () => {
    const pcl = path.join(root, "pcl");
    mkdirSync(pcl);
    copyFileSync(path.join(generated, "pcl", "main.pp"), path.join(pcl, "main.pp"));
    // convert takes the project from the nearest Pulumi.yaml up the tree: this folder's, not the repository's.
    writeFileSync(path.join(pcl, "Pulumi.yaml"), `name: ${PROJECT}\nruntime: yaml\n`);
    const out = path.join(root, "pcl-yaml");
    const convert = await exec(
      cli.path!,
      [
        "convert",
        "--from",
        "pcl",
        "--language",
        "yaml",
        "--generate-only",
        "--out",
        out,
        "--non-interactive",
      ],
      { cwd: pcl, env },
    );
    // `pulumi convert` (pkg/cmd/pulumi/convert/convert.go, v3.274.1) writes the project through the host's
    // GenerateProject, then always asks the host to Link the SDKs it generated (packages.LinkPackages), even when
    // there are none, as here; pulumi-language-yaml v1.25.0 (engine/pulumi-yaml) has no Link. That last step's
    // error, and only it, is after the program is written.
    if (convert.code !== 0)
      expect(convert.stderr).toMatch(
        /^error: could not generate output program: error generating packages: failed to link SDK to project: linking package: method Link not implemented$/m,
      );
    const imported = readFileSync(path.join(yamlProject(), "imported.yaml"), "utf8");
    // The YAML host's GenerateProject writes its GenerateProgram's Main.yaml, the call `pulumi import` makes.
    expect(readFileSync(path.join(out, "Main.yaml"), "utf8")).toEqual(imported);
    expect(imported.match(/^ {2}\S+:$/gm)).toHaveLength(TAKEN);
  });

  test("-import-program names what it cannot take: ciphertext, an object the stack lacks, a parent", async () => {
    const cwd = yamlProject();
    const sealed = path.join(root, "sealed.json");
    writeFileSync(sealed, await pulumi(["stack", "export", "--stack", "dev"], cwd));
    const spec = JSON.parse(readFileSync(path.join(cwd, "import.json"), "utf8")) as {
      resources: Record<string, unknown>[];
    };
    const altered = (edit: (r: Record<string, unknown>) => void) => {
      const file = path.join(root, `altered-${Math.random().toString(36).slice(2)}.json`);
      const copy = structuredClone(spec);
      edit(copy.resources[1]);
      writeFileSync(file, JSON.stringify(copy));
      return file;
    };
    const open = path.join(root, "open.json");
    writeFileSync(open, await pulumi(["stack", "export", "--show-secrets", "--stack", "dev"], cwd), {
      mode: 0o600,
    });
    const cases: [string, string, RegExp][] = [
      [
        sealed,
        path.join(cwd, "import.json"),
        /the stack's export \(made with --show-secrets\?\): .*encrypted/m,
      ],
      [
        open,
        altered((r) => (r.logicalName = "never-imported")),
        /resources\[1\]: the stack has no .*never-imported/,
      ],
      [
        open,
        altered((r) => (r.parent = "logs")),
        /resources\[1\]: parent, provider and component are not supported/,
      ],
    ];
    for (const [state, importFile, message] of cases) {
      const r = await exec(
        NODE,
        [
          path.join(ROOT, "scripts", "sdkgen.mts"),
          "--import-program",
          "--state",
          state,
          "--import-file",
          importFile,
          "--out",
          path.join(root, "never-written"),
        ],
        { env },
      );
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/goroutine|\.go:\d+/);
    }
    rmSync(open);
  });

  /**
   * A folder holding the language's generated program as `file`, beside the scaffolding of the language's flagship
   * example (its requirements, go.mod, package.json), as the project the imported stack belongs to.
   */
  function programFolder(language: string, example: string, file: string, runtime: string): string {
    const folder = path.join(root, language);
    cpSync(path.join(ROOT, "examples", example), folder, {
      recursive: true,
      filter: (src) => !/(node_modules|\.pulumi-state|__pycache__|\.?venv|package-lock\.json)$/.test(src),
    });
    copyFileSync(path.join(generated, language, file), path.join(folder, file));
    writeFileSync(path.join(folder, "Pulumi.yaml"), `name: ${PROJECT}\nruntime:\n${runtime}`);
    // The stack's passphrase salt, so the driver opens the same stack's secrets.
    copyFileSync(path.join(yamlProject(), "Pulumi.dev.yaml"), path.join(folder, "Pulumi.dev.yaml"));
    return folder;
  }

  /** `preview` of the folder's program in the imported stack, through the tests' inline driver. */
  const previewIn = (folder: string) =>
    inlineOperation(
      { work: folder, env: { ...env, OBSERVABILITY_URL: em.url, OBSERVABILITY_TOKEN: em.token } },
      "preview",
    );

  async function previewsNoChange(folder: string, program: string): Promise<void> {
    const changes = await previewIn(folder);
    // The ten imported objects and the stack, all the same: nothing created, updated or deleted.
    expect(noChanges(changes)).toBe(true);
    expect(changes).toEqual({ same: TAKEN + 1 });
    // Like the YAML generator, each one writes a secret input as a literal: the page's warning holds for all.
    expect(program).toContain(SLACK_URL);
    expect(program).toContain(ROUTING_KEY);
    expect(program).not.toContain(made.token.value);
    expect(await serviceContents(client)).toEqual(baseline);
  }

  test("TypeScript: index.ts on sdk/nodejs", async () => {
    const folder = programFolder("nodejs", "typescript-flagship", "index.ts", "  name: nodejs\n");
    const program = readFileSync(path.join(folder, "index.ts"), "utf8");
    expect(program).toMatch(/from "@pulumi-observability\/sdk"/);
    expect(program.match(/new observability\.\w+\(/g)).toHaveLength(TAKEN);
    await installTypeScriptSdk(["--omit=dev"], { cwd: folder, env });
    // Node runs it without checking types, as the driver does.
    await typecheckProgram(["index.ts"], { cwd: folder, env });
    await previewsNoChange(folder, program);
    // The preview weighs the program's inputs against the imported state: one input changed is one update.
    editProgram(folder, "index.ts", "threshold: 10,", "threshold: 11,");
    const changed = await previewIn(folder);
    expect(changed).toEqual({ same: TAKEN, update: 1 });
  });

  (hasPython ? test : test.skip)("Python: __main__.py on sdk/python", async () => {
    const folder = programFolder(
      "python",
      "python-flagship",
      "__main__.py",
      "  name: python\n  options:\n    toolchain: pip\n    virtualenv: venv\n",
    );
    const program = readFileSync(path.join(folder, "__main__.py"), "utf8");
    expect(program).toMatch(/^import pulumi_observability as observability$/m);
    expect(program.match(/= observability\.\w+\("/g)).toHaveLength(TAKEN);
    editProgram(folder, "requirements.txt", "../../sdk/python", path.join(ROOT, "sdk", "python"));
    await mustExec(PYTHON, ["-m", "venv", "venv"], { cwd: folder, env });
    await mustExec(
      path.join(folder, "venv", "bin", "python"),
      ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r", "requirements.txt"],
      { cwd: folder, env },
    );
    await previewsNoChange(folder, program);
  });

  test("Go: main.go on sdk/go", async () => {
    const folder = programFolder("go", "go-flagship", "main.go", "  name: go\n");
    const program = readFileSync(path.join(folder, "main.go"), "utf8");
    expect(program).toContain(`"${GO_MODULE}/observability"`);
    expect(program.match(/observability\.New\w+\(ctx, "/g)).toHaveLength(TAKEN);
    // The driver (drivers/inline_test.go) calls the package's function `flagship`: the generator's anonymous
    // program function is given that name; its body is the generator's.
    editProgram(
      folder,
      "main.go",
      "pulumi.Run(func(ctx *pulumi.Context) error {",
      "pulumi.Run(flagship)\n}\n\nfunc flagship(ctx *pulumi.Context) error {",
    );
    const named = readFileSync(path.join(folder, "main.go"), "utf8");
    if (!named.trimEnd().endsWith("})\n}"))
      throw new Error(`main.go does not end as pulumi.Run's call:\n${named}`);
    writeFileSync(path.join(folder, "main.go"), `${named.trimEnd().slice(0, -"})\n}".length)}}\n`);
    const goEnv = { ...env, GOTOOLCHAIN: "local" };
    await mustExec(GO, ["mod", "edit", "-replace", `${GO_MODULE}=${path.join(ROOT, "sdk", "go")}`], {
      cwd: folder,
      env: goEnv,
    });
    await mustExec(GO, ["vet", "."], { cwd: folder, env: goEnv });
    await previewsNoChange(folder, program);
  });
});
