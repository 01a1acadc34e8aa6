/**
 * Runs a language example (examples/<language>-flagship) the way the tests do: its own program file as an
 * Automation API inline program, so the `pulumi` CLI talks to the program's process and needs no language host
 * (none is served to the machines these tests run on). A user runs the same files with `pulumi up` in the folder.
 *
 *     node test/e2e-native/drivers/inline.mts <example folder> preview|up|refresh|destroy
 *
 * The folder's Pulumi.yaml says the language (`runtime`), and is the project the stack belongs to:
 * - python: `__main__.py`, run by drivers/inline.py with the folder's `venv` (as `pulumi install` makes it), else
 *   $PYTHON, else python3;
 * - go: the function main.go gives `pulumi.Run`, called by drivers/inline_test.go (a copy naming that function),
 *   which `go test -overlay` adds to the example's package for the build (the folder is not written to; the binary
 *   goes to a temporary folder);
 * - nodejs: `index.ts`, imported in this process with the folder's own @pulumi/pulumi (a second copy would not see
 *   the program's resources); its exports are the stack's outputs.
 *
 * The stack `dev` lives in the backend PULUMI_BACKEND_URL names (else `.pulumi-state/` in the folder), encrypted
 * with PULUMI_CONFIG_PASSPHRASE (default `pulumi-observability-local`). Its configuration comes from the
 * environment: OBSERVABILITY_URL (default: the emulator, http://127.0.0.1:8787), OBSERVABILITY_TOKEN (default: the
 * emulator's development token; a secret), OBSERVABILITY_ORG_ID, SLACK_WEBHOOK_URL (the notifier's secret URL) and
 * IMPORT_DATASET_ID (when set, the program imports that existing dataset). The secrets reach the stack on the
 * CLI's standard input (test/helpers/stack-config.ts; Python and Go do the same), never on a command line. With
 * INLINE_KEEP_CONFIG=1 it sets none: the stack's configuration was set beforehand.
 *
 * stdout's last line is JSON: the operation, the count of resources per change and the stack outputs (secrets as
 * "[secret]"); the engine's output goes to stderr.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { mustExec } from "../../../scripts/shared/commands.ts";
import { setStackConfig } from "../../helpers/stack-config.ts";

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** The emulator's development token: not a secret, it is accepted only by the emulator. */
const EMULATOR_TOKEN = "xaat-local-development-token";
const OPERATIONS = ["preview", "up", "refresh", "destroy"] as const;
type Operation = (typeof OPERATIONS)[number];

/** The stack's configuration, from the environment: key to value, and whether it is a secret. */
export function stackConfig(env: NodeJS.ProcessEnv): Record<string, { value: string; secret: boolean }> {
  if (env.INLINE_KEEP_CONFIG === "1") return {};
  const config: Record<string, { value: string; secret: boolean }> = {
    "observability:url": { value: env.OBSERVABILITY_URL || "http://127.0.0.1:8787", secret: false },
    "observability:token": { value: env.OBSERVABILITY_TOKEN || EMULATOR_TOKEN, secret: true },
    slackWebhookUrl: {
      value: env.SLACK_WEBHOOK_URL || "https://hooks.slack.com/services/T000/B000/XXXX",
      secret: true,
    },
  };
  if (env.OBSERVABILITY_ORG_ID)
    config["observability:orgId"] = { value: env.OBSERVABILITY_ORG_ID, secret: false };
  if (env.IMPORT_DATASET_ID) config.importDatasetId = { value: env.IMPORT_DATASET_ID, secret: false };
  return config;
}

/** The `runtime` of the folder's Pulumi.yaml: `runtime: go`, or `runtime:` with a `name:` under it. */
export function runtimeOf(folder: string): string {
  const project = readFileSync(path.join(folder, "Pulumi.yaml"), "utf8");
  const runtime = /^runtime:[ \t]*(\S+)?[ \t]*$(?:\n[ \t]+name:[ \t]*(\S+))?/m.exec(project);
  const name = runtime?.[1] ?? runtime?.[2];
  if (!name) throw new Error(`${path.join(folder, "Pulumi.yaml")} names no runtime`);
  return name;
}

/** Runs `cmd`, its stdout and stderr passed on to ours; rejects naming the command when it fails. */
const run = (cmd: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) =>
  mustExec(cmd, args, { ...options, show: "all" });

async function runPython(folder: string, op: Operation, env: NodeJS.ProcessEnv): Promise<void> {
  const venv = path.join(folder, "venv", "bin", "python");
  const python = existsSync(venv) ? venv : (env.PYTHON ?? "python3");
  await run(python, [path.join(HERE, "inline.py"), folder, op], { cwd: folder, env });
}

/** The function main.go passes to `pulumi.Run`: the program the driver runs inline. */
export function goProgramFunction(folder: string): string {
  const main = readFileSync(path.join(folder, "main.go"), "utf8");
  const run = /\bpulumi\.Run\(\s*([A-Za-z_]\w*)\s*[,)]/.exec(main);
  if (!run) throw new Error(`${path.join(folder, "main.go")} passes no function to pulumi.Run`);
  return run[1];
}

async function runGo(folder: string, op: Operation, env: NodeJS.ProcessEnv): Promise<void> {
  const go = env.GO ?? (existsSync("/usr/local/go/bin/go") ? "/usr/local/go/bin/go" : "go");
  const tmp = mkdtempSync(path.join(os.tmpdir(), "obs-inline-go-"));
  try {
    // The driver joins the example's package as one of its test files, for this build only, calling the
    // example's own program function.
    const driver = readFileSync(path.join(HERE, "inline_test.go"), "utf8");
    const call = 'auto.UpsertStackInlineSource(ctx, "dev", "", flagship,';
    if (!driver.includes(call))
      throw new Error(`${path.join(HERE, "inline_test.go")} no longer holds ${call}`);
    const named = path.join(tmp, "inline_test.go");
    writeFileSync(named, driver.replace(call, call.replace("flagship", goProgramFunction(folder))));
    const overlay = path.join(tmp, "overlay.json");
    writeFileSync(overlay, JSON.stringify({ Replace: { [path.join(folder, "inline_test.go")]: named } }));
    const binary = path.join(tmp, "inline.test");
    const goEnv = { ...env, GOTOOLCHAIN: "local" };
    await run(go, ["test", "-mod=readonly", "-overlay", overlay, "-c", "-o", binary, "."], {
      cwd: folder,
      env: goEnv,
    });
    await run(binary, ["-test.run", "^TestInline$"], {
      cwd: folder,
      env: { ...goEnv, INLINE_OPERATION: op },
    });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

async function runNode(folder: string, op: Operation, env: NodeJS.ProcessEnv): Promise<void> {
  // The example's own @pulumi/pulumi: the one its program's resources register with.
  const require = createRequire(path.join(folder, "package.json"));
  const { LocalWorkspace } =
    require("@pulumi/pulumi/automation/index.js") as typeof import("@pulumi/pulumi/automation/index.js");
  const program = async () => ({
    ...((await import(pathToFileURL(path.join(folder, "index.ts")).href)) as object),
  });
  // No projectSettings: the workspace reads the example's own Pulumi.yaml from workDir.
  const stack = await LocalWorkspace.createOrSelectStack(
    { stackName: "dev", projectName: "", program },
    { workDir: folder, secretsProvider: "passphrase", envVars: {} },
  );
  const config = stackConfig(env);
  if (!config.importDatasetId) await stack.removeConfig("importDatasetId");
  // The secrets on the CLI's stdin, never in its arguments (the Automation API's setAllConfig puts them there).
  await setStackConfig(stack, config);
  const onOutput = (s: string) => process.stderr.write(s);
  let changes: Record<string, number> | undefined;
  if (op === "preview") changes = (await stack.preview({ onOutput })).changeSummary;
  else if (op === "up") changes = (await stack.up({ onOutput })).summary.resourceChanges;
  else if (op === "refresh") changes = (await stack.refresh({ onOutput })).summary.resourceChanges;
  else changes = (await stack.destroy({ onOutput })).summary.resourceChanges;
  const result: Record<string, unknown> = { operation: op, changes: changes ?? {} };
  if (op !== "destroy") {
    const outputs = await stack.outputs();
    result.outputs = Object.fromEntries(
      Object.entries(outputs).map(([k, v]) => [k, v.secret ? "[secret]" : v.value]),
    );
  }
  console.log(JSON.stringify(result));
}

async function main(argv: string[]): Promise<void> {
  const [folderArg, op] = argv;
  if (!folderArg || !OPERATIONS.includes(op as Operation))
    throw new Error(
      "usage: node test/e2e-native/drivers/inline.mts <example folder> preview|up|refresh|destroy",
    );
  const folder = path.resolve(folderArg);
  const stateDir = path.join(folder, ".pulumi-state");
  if (!process.env.PULUMI_BACKEND_URL) mkdirSync(stateDir, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PULUMI_BACKEND_URL: process.env.PULUMI_BACKEND_URL || `file://${stateDir}`,
    PULUMI_CONFIG_PASSPHRASE: process.env.PULUMI_CONFIG_PASSPHRASE ?? "pulumi-observability-local",
  };
  Object.assign(process.env, env);
  env.INLINE_CONFIG = JSON.stringify(stackConfig(env));
  const runtime = runtimeOf(folder);
  if (runtime === "python") await runPython(folder, op as Operation, env);
  else if (runtime === "go") await runGo(folder, op as Operation, env);
  else if (runtime === "nodejs") await runNode(folder, op as Operation, env);
  else throw new Error(`${folder}: runtime ${runtime} has no inline driver (python, go, nodejs)`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((err: Error) => {
    console.error(`inline: ${err.message}`);
    process.exit(1);
  });
}
