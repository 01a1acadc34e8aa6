/**
 * A Terraform state with the awkward cases (test/helpers/terraform-awkward.ts: for_each keys with an emoji, a tab,
 * `;`, `?`, quotes, a line break and template introducers; names alike across types; nested modules; tainted,
 * deposed, duplicate, deleted and drifted objects) taken all the way through the real engine: `observability migrate
 * terraform`, `pulumi import --file` (the CLI built here, whose PCL step parses every name: pulumi/pulumi
 * pkg/importer/language.go), the YAML program it writes added to the project, `pulumi preview --expect-no-changes`,
 * and the hand-over script, after which every object the service has is in exactly one tool's state. The TypeScript,
 * Python and Go programs the CLI's generators write for the same import (engine/sdkgen -import-program, as
 * terraform-migration-languages.test.ts makes them) are parsed by each language's own parser, and declare each
 * resource under its URN's name: the Node.js and Python generators write that name between quotes unescaped.
 *
 * `terraform` (not installed here) is stood in for by a script that records each address `terraform state rm` is
 * given, NUL-separated so that a key's line break survives.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { ObservabilityClient } from "../../provider/client";
import {
  afterHandover,
  makeAwkwardTerraformProject,
  type AwkwardProject,
} from "../helpers/terraform-awkward";
import { exec, mustExec } from "../../scripts/shared/commands";
import { NODE, PLUGIN, ROOT, toolPath, VERSION } from "./flagship";
import { serviceContents } from "../helpers/service-contents";

const cli = toolPath("pulumi-path.mts");
const yaml = toolPath("pulumi-yaml.mts");
const missing = !cli.path ? cli.reason : !yaml.path ? `no YAML language host: ${yaml.reason}` : undefined;
if (missing) console.warn(`terraform-migration-awkward: skipped: ${missing}`);
const maybe = missing ? describe.skip : describe;
// engine/sdkgen, which makes the CLI's program generation for the other languages, is built with Go
// (terraform-migration-languages.test.ts runs those programs; here, their syntax and names).
const GO =
  process.env.GO ??
  (spawnSync("go", ["version"], { stdio: "ignore" }).status === 0 ? "go" : "/usr/local/go/bin/go");
const GOFMT = GO === "go" ? "gofmt" : path.join(path.dirname(GO), "gofmt");
const PYTHON = process.env.PYTHON ?? "python3";
const hasGoAndPython =
  spawnSync(GO, ["version"], { stdio: "ignore" }).status === 0 &&
  spawnSync(PYTHON, ["--version"], { stdio: "ignore" }).status === 0;
if (!missing && !hasGoAndPython)
  console.warn("terraform-migration-awkward: the other languages skipped: no Go toolchain or no python3");

/** The first argument of each `new observability.<Type>(…)` of a TypeScript program, and its syntax errors. */
async function typescriptNames(source: string): Promise<{ names: string[]; errors: string[] }> {
  const ts = await import("typescript");
  const { diagnostics } = ts.transpileModule(source, { reportDiagnostics: true });
  const file = ts.createSourceFile("index.ts", source, ts.ScriptTarget.ES2022, true);
  const names: string[] = [];
  const visit = (node: import("typescript").Node): void => {
    if (
      ts.isNewExpression(node) &&
      node.expression.getText(file).startsWith("observability.") &&
      node.arguments?.[0] &&
      ts.isStringLiteral(node.arguments[0])
    )
      names.push(node.arguments[0].text);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return {
    names,
    errors: (diagnostics ?? []).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n")),
  };
}

/** The first argument of each `observability.<Type>(…)` call of a Python program, read by Python's own parser. */
const PYTHON_NAMES = [
  "import ast, json, sys",
  "tree = ast.parse(open(sys.argv[1], encoding='utf-8').read())",
  "print(json.dumps([c.args[0].value for c in ast.walk(tree) if isinstance(c, ast.Call)",
  "  and isinstance(c.func, ast.Attribute) and isinstance(c.func.value, ast.Name)",
  "  and c.func.value.id == 'observability' and c.args and isinstance(c.args[0], ast.Constant)]))",
].join("\n");

interface ImportSpec {
  type: string;
  name: string;
  logicalName: string;
  id: string;
}

maybe(
  "a state with awkward keys, duplicates and deposed objects, through `pulumi import` and the hand-over",
  () => {
    let em: RunningEmulator;
    let client: ObservabilityClient;
    let project: AwkwardProject;
    let baseline: Record<string, string[]>;
    let root: string;
    let cwd: string;
    let env: NodeJS.ProcessEnv;
    let specs: ImportSpec[];
    const rmLog = () => path.join(root, "terraform-state-rm.log");

    const pulumi = (args: string[], input?: string) =>
      mustExec(cli.path!, [...args, "--stack", "dev", "--non-interactive"], { cwd, env, input });

    beforeAll(async () => {
      const token = `xaat-tfa-${Math.random().toString(36).slice(2, 12)}`;
      em = await startEmulator({ port: 0, host: "127.0.0.1", token });
      client = new ObservabilityClient({ url: em.url, token: em.token, orgId: em.orgId });
      project = await makeAwkwardTerraformProject(em, client);
      baseline = await serviceContents(client);

      root = path.join(os.tmpdir(), `tf-awkward-${process.pid}-${Date.now()}`);
      cwd = path.join(root, "project");
      const bin = path.join(root, "bin");
      for (const dir of [cwd, bin, path.join(root, "state"), path.join(root, "pulumi-home")])
        mkdirSync(dir, { recursive: true });
      writeFileSync(
        path.join(bin, "terraform"),
        [
          "#!/bin/sh",
          "# The tests' stand-in for terraform: a record of what it was told to forget.",
          'case "$1 $2" in',
          `  "state rm") shift 2; for a in "$@"; do printf '%s\\0' "$a" >> ${JSON.stringify(rmLog())}; done ;;`,
          '  *) echo "stand-in terraform: $* is not served" >&2; exit 1 ;;',
          "esac",
          "",
        ].join("\n"),
        { mode: 0o755 },
      );
      env = {};
      for (const [k, v] of Object.entries(process.env))
        if (v !== undefined && !k.startsWith("OBSERVABILITY_")) env[k] = v;
      Object.assign(env, {
        PULUMI_HOME: path.join(root, "pulumi-home"),
        PULUMI_BACKEND_URL: `file://${path.join(root, "state")}`,
        PULUMI_CONFIG_PASSPHRASE: "pulumi-observability-local",
        PULUMI_SKIP_UPDATE_CHECK: "true",
        PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
        PATH: [bin, path.dirname(cli.path!), yaml.path!, path.dirname(NODE), process.env.PATH ?? ""].join(
          path.delimiter,
        ),
      });
      await mustExec(
        cli.path!,
        ["plugin", "install", "resource", "observability", VERSION, "--file", PLUGIN],
        {
          env,
        },
      );
      writeFileSync(path.join(cwd, "Pulumi.yaml"), "name: awkward\nruntime: yaml\n");
      writeFileSync(path.join(cwd, "terraform.tfstate"), JSON.stringify(project.state, null, 2));
      await mustExec(cli.path!, ["stack", "init", "dev", "--non-interactive"], { cwd, env });
      await pulumi(["config", "set", "observability:url", em.url]);
      await pulumi(["config", "set", "--secret", "observability:token"], em.token);
    }, 10 * 60_000);

    afterAll(async () => {
      await client?.close();
      await em?.close();
      if (root) rmSync(root, { recursive: true, force: true });
    });

    test("the import file: every name an identifier, unique across types", async () => {
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
          "--rm-script",
          "handover.sh",
        ],
        { cwd, env },
      );
      specs = (JSON.parse(readFileSync(path.join(cwd, "import.json"), "utf8")) as { resources: ImportSpec[] })
        .resources;
      const taken = project.rows.filter((r) => r.outcome === "taken");
      expect(specs.map((s) => [s.logicalName, s.name]).sort()).toEqual(
        taken.map((r) => [r.logicalName ?? r.address, r.name]).sort(),
      );
    });

    test("`pulumi import --file` takes every one, its address in its URN, and writes a program", async () => {
      const r = await exec(
        cli.path!,
        [
          "import",
          "--file",
          "import.json",
          "--yes",
          "--out",
          "imported.yaml",
          "--stack",
          "dev",
          "--non-interactive",
        ],
        { cwd, env },
      );
      expect({ code: r.code, out: r.code === 0 ? "" : `${r.stdout}\n${r.stderr}` }).toEqual({
        code: 0,
        out: "",
      });
      const exported = JSON.parse(await pulumi(["stack", "export"])) as {
        deployment: { resources: { urn: string; type: string; id?: string; protect?: boolean }[] };
      };
      const ours = exported.deployment.resources.filter((x) => x.type.startsWith("observability:index:"));
      expect(ours.map((x) => [x.type, x.id]).sort()).toEqual(specs.map((s) => [s.type, s.id]).sort());
      expect(ours.every((x) => x.protect === true)).toBe(true);
      // The URN's name is the Terraform address, keys as they are (a line break, an emoji, quotes).
      expect(ours.map((x) => x.urn.split("::").at(-1)).sort()).toEqual(
        specs.map((s) => s.logicalName).sort(),
      );
    });

    test("the program added to the project previews with no change", async () => {
      const program = readFileSync(path.join(cwd, "imported.yaml"), "utf8");
      for (const s of specs) expect(program).toContain(`  ${s.name}:\n`);
      writeFileSync(path.join(cwd, "Pulumi.yaml"), `name: awkward\nruntime: yaml\n${program}`);
      await pulumi(["preview", "--expect-no-changes"]);
      expect(await serviceContents(client)).toEqual(baseline);
    });

    (hasGoAndPython ? test : test.skip)(
      "TypeScript, Python and Go: the generated programs parse, and declare each resource under its URN's name",
      async () => {
        const exported = path.join(root, "export.json");
        writeFileSync(exported, await pulumi(["stack", "export", "--show-secrets"]), { mode: 0o600 });
        const generated = path.join(root, "generated");
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
        const logical = specs.map((s) => s.logicalName).sort();
        const typescript = await typescriptNames(
          readFileSync(path.join(generated, "nodejs", "index.ts"), "utf8"),
        );
        expect(typescript.errors).toEqual([]);
        expect(typescript.names.sort()).toEqual(logical);
        const python = await exec(
          PYTHON,
          ["-c", PYTHON_NAMES, path.join(generated, "python", "__main__.py")],
          {
            env,
          },
        );
        expect({ code: python.code, stderr: python.stderr }).toEqual({ code: 0, stderr: "" });
        expect((JSON.parse(python.stdout) as string[]).sort()).toEqual(logical);
        const goFile = path.join(generated, "go", "main.go");
        const gofmt = await exec(GOFMT, ["-l", "-e", goFile], {
          env,
        });
        expect({ code: gofmt.code, stderr: gofmt.stderr }).toEqual({ code: 0, stderr: "" });
        // Go's generator quotes with %q, whose escapes JSON reads alike for these keys.
        const goNames = [
          ...readFileSync(goFile, "utf8").matchAll(/observability\.New\w+\(ctx, ("(?:[^"\\]|\\.)*")/g),
        ].map((m) => JSON.parse(m[1]) as string);
        expect(goNames.sort()).toEqual(logical);
      },
      10 * 60_000,
    );

    test("the hand-over script: every object the service has ends in exactly one tool's state", async () => {
      await mustExec("sh", ["handover.sh"], { cwd, env });
      const removed = readFileSync(rmLog(), "utf8").split("\0").slice(0, -1);
      const expected = project.rows
        .filter((r) => r.outcome !== "kept")
        .map((r) => r.address.replace(/ \(deposed object \w+\)$/, ""));
      expect([...removed].sort()).toEqual([...new Set(expected)].sort());
      const holders = await afterHandover(project.state, specs, removed, client);
      expect(Object.entries(holders).filter(([, h]) => h.length !== 1)).toEqual([]);
      expect(await serviceContents(client)).toEqual(baseline);
    });
  },
);
