/**
 * `npm run demo [-- up | destroy] [--keep] [--port N] [--build-cli]`: the flagship stack
 * (examples/monitors-to-notifiers) on the local emulator.
 *
 * First it looks for the Pulumi CLI (lib.mts): a `pulumi` on PATH, else the one built here from Go modules, if
 * cached. It builds one (minutes, once) only when asked with `--build-cli`, so it starts within seconds on a cold
 * machine. Then it builds the package, and starts the emulator with `--data .demo/emulator.json` on port 8787 (or
 * reuses one already serving there).
 * - With the CLI, the real engine: stack `local` in a file backend under `.pulumi-state/`, the emulator's URL and
 *   token and development placeholders for the example's secrets as config, `up`, the outputs. The program runs
 *   as an Automation API inline program, so the CLI needs no Node.js language host. A second run reports no
 *   changes; `destroy` deletes the resources and removes the stack.
 * - Without it: the same program through Pulumi's Node SDK and the real dynamic-provider host, driven in the
 *   engine's order by test/examples/engine.ts (the example tests' driver), with its state in `.demo/state.json`.
 * `--keep` leaves the emulator running and prints its URL and token; otherwise nothing is left running.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, openSync } from "node:fs";
import * as path from "node:path";
import {
  EngineStack,
  INSTALL_HINT,
  LOCAL_PASSPHRASE,
  REPO_ROOT,
  build,
  findPulumiCli,
  programFromFile,
  pulumiEnv,
  requireFromRepo,
  requireTypeScript,
  type PulumiCli,
} from "./lib.mts";
import type * as Engine from "../test/examples/engine.ts";
import type * as Host from "../test/helpers/host.ts";

const USAGE = "usage: npm run demo [-- [up | destroy] [--keep] [--port N] [--build-cli]]";
const PROJECT = "monitors-to-notifiers";
const FLAGSHIP_DIR = path.join(REPO_ROOT, "examples", PROJECT);
const STATE_DIR = path.join(REPO_ROOT, ".pulumi-state");
const DATA_DIR = path.join(REPO_ROOT, ".demo");
/** Where the demo keeps the stack's state when it runs without the CLI. */
const DRIVER_STATE = path.join(DATA_DIR, "state.json");
const STACK = "local";

/** Development placeholders for the flagship's secret config: shaped like the real thing, valid nowhere. */
const PLACEHOLDER_SECRETS = {
  slackWebhookUrl: "https://hooks.slack.com/services/T00000000/B00000000/local-demo-placeholder",
  pagerdutyRoutingKey: "local-demo-routing-key-0000000000",
  incidentWebhookUrl: "https://incident-bot.example.com/hooks/observability",
  incidentWebhookToken: "local-demo-bot-token",
};

/**
 * The flagship's plain config for the local stack: the emulator's data is disposable, so `destroy` may delete the
 * datasets even after events were sent to them (the flagship README's ingest walkthrough).
 */
const LOCAL_CONFIG = { datasetsForceDestroy: "true" };

interface Options {
  action: "up" | "destroy";
  keep: boolean;
  port?: number;
  /** Build the CLI from Go modules when none is on PATH or cached (minutes on a cold machine). */
  buildCli: boolean;
}

interface EmulatorHandle {
  url: string;
  token: string;
  orgId: string;
  /** The process this script started, or undefined for an emulator that was already serving. */
  pid?: number;
  /** Stops the emulator when this script started it; a no-op for one that was already running. */
  stop(): Promise<void>;
}

/** The command line, or the reason it is not one this script understands. */
function parseArgs(args: string[]): Options | string {
  const options: Options = { action: "up", keep: false, buildCli: false };
  let action: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--keep") options.keep = true;
    else if (arg === "--build-cli") options.buildCli = true;
    else if (arg === "--port" || arg.startsWith("--port=")) {
      const value = arg === "--port" ? args[++i] : arg.slice("--port=".length);
      const port = Number(value);
      if (!/^\d+$/.test(value ?? "") || port < 1 || port > 65535)
        return `--port needs a port number, not ${value}`;
      options.port = port;
    } else if (arg.startsWith("-")) return `unknown flag ${JSON.stringify(arg)}`;
    else if (action !== undefined)
      return `one action only, not ${JSON.stringify(action)} and ${JSON.stringify(arg)}`;
    else if (arg === "up" || arg === "destroy") action = options.action = arg;
    else return `unknown action ${JSON.stringify(arg)}`;
  }
  return options;
}

async function main(): Promise<number> {
  const options = parseArgs(process.argv.slice(2));
  if (typeof options === "string") {
    console.error(`${options}\n${USAGE}`);
    return 2;
  }

  // Before anything starts: which of the two ways this demo runs.
  const found = await findPulumiCli({
    build: options.buildCli,
    onBuildStart: (version) =>
      console.log(`» building the Pulumi CLI ${version} from Go modules (minutes, once)`),
  });
  if (!found.cli) {
    if (found.fatal) throw new Error(`--build-cli: ${found.reason}`);
    explainWithoutCli(found.reason);
  } else console.log(`» Pulumi CLI ${found.cli.version} (${found.cli.source})`);

  // Where a build exists to read the emulator's defaults from, a port held by something else is reported now,
  // not after the build; ensureEmulator looks again in any case.
  if (existsSync(path.join(REPO_ROOT, "dist", "emulator", "index.js"))) await emulatorAddress(options);

  console.log("» building the package (tsc)");
  await build();

  const emulator = await ensureEmulator(options);
  try {
    return found.cli ? await withCli(found.cli, options, emulator) : await withoutCli(options, emulator);
  } finally {
    if (options.keep) printKept(emulator);
    else await emulator.stop();
  }
}

/** The first lines without a CLI: why, what this mode runs and what it does not, and how to get the CLI. */
function explainWithoutCli(reason: string): void {
  console.log(
    [
      `The Pulumi CLI could not be had (${reason}).`,
      "So this demo runs without it. What runs is real: the flagship's program (examples/monitors-to-notifiers/",
      "index.ts) on Pulumi's Node.js SDK, each resource through Pulumi's real dynamic-provider host and this",
      "package's real provider code, against the emulator, in the engine's order (check, create; check, diff,",
      "update; delete, dependents first). What does not: Pulumi's engine and state backend (a small driver and",
      "the plain file .demo/state.json stand in), refresh, replacement, previews and `pulumi stack` commands.",
      "`npm run demo -- --build-cli` builds the CLI here from Go modules (minutes, once) and runs the real engine.",
      INSTALL_HINT,
      "",
    ].join("\n"),
  );
}

async function withCli(pulumi: PulumiCli, options: Options, emulator: EmulatorHandle): Promise<number> {
  mkdirSync(STATE_DIR, { recursive: true });
  if (process.env.PULUMI_CONFIG_PASSPHRASE === undefined) {
    console.log(
      `» secrets of the local stack are encrypted with the documented passphrase "${LOCAL_PASSPHRASE}"`,
    );
  }
  if (existsSync(DRIVER_STATE)) {
    // The CLI's stack knows nothing of what the driver created: both sets would live side by side.
    console.log(
      `» note: ${path.relative(REPO_ROOT, DRIVER_STATE)} holds resources applied earlier without the CLI; the CLI ` +
        "does not manage them (remove them with `npm run demo -- destroy` where no CLI can be had, or delete .demo/)",
    );
  }
  console.log(`» stack ${STACK} in ${STATE_DIR}`);
  const stack = await EngineStack.open({
    cli: pulumi,
    workDir: FLAGSHIP_DIR,
    stackName: STACK,
    program: programFromFile(path.join(FLAGSHIP_DIR, "index.ts")),
    env: pulumiEnv(pulumi, STATE_DIR),
  });
  await stack.setConfig({
    "observability:url": emulator.url,
    "observability:orgId": emulator.orgId,
    ...LOCAL_CONFIG,
  });
  await stack.setSecrets({ "observability:token": emulator.token, ...PLACEHOLDER_SECRETS });

  if (options.action === "destroy") {
    await stack.stack.destroy(stack.streams());
    await stack.workspace.removeStack(STACK);
    console.log(
      "\nDestroyed: the flagship's resources are deleted from the emulator and stack `local` is removed.",
    );
    return 0;
  }

  await stack.stack.up(stack.streams());
  const outputs = await stack.stack.outputs();
  console.log("\nStack outputs:");
  for (const [key, { value, secret }] of Object.entries(outputs)) {
    const shown = secret ? '"[secret]"' : JSON.stringify(value, null, 4);
    console.log(`    ${key}: ${shown.replace(/\n/g, "\n    ")}`);
  }
  printNextSteps("Pulumi reports no changes");
  return 0;
}

/** The flagship through the shared driver and the real dynamic-provider host, with the state in a file. */
async function withoutCli(options: Options, emulator: EmulatorHandle): Promise<number> {
  const engine = requireTypeScript<typeof Engine>("./test/examples/engine.ts");
  const { startProviderHost } = requireTypeScript<typeof Host>("./test/helpers/host.ts");
  const providerConfig = {
    "observability:url": emulator.url,
    "observability:token": emulator.token,
    "observability:orgId": emulator.orgId,
  };
  const host = await startProviderHost({
    config: providerConfig,
    secretKeys: ["observability:token"],
    project: PROJECT,
  });
  try {
    await host.configure();
    const driver = {
      host,
      project: PROJECT,
      state: engine.loadState(DRIVER_STATE),
      save: (state: Engine.StackState) => engine.saveState(DRIVER_STATE, state),
      onStep: printStep,
    };
    const where = path.relative(REPO_ROOT, DRIVER_STATE);

    if (options.action === "destroy") {
      if (!driver.state) {
        console.log(`Nothing to destroy: there is no ${where}.`);
        return 0;
      }
      console.log(`Destroying (${STACK}, state in ${where}):\n`);
      const { steps } = await engine.destroy(driver);
      console.log(`\nDestroyed: ${steps.length} resources deleted from the emulator; ${where} removed.`);
      return 0;
    }

    const config: Record<string, string> = { ...providerConfig };
    for (const [key, value] of Object.entries({ ...PLACEHOLDER_SECRETS, ...LOCAL_CONFIG }))
      config[`${PROJECT}:${key}`] = value;
    const secretKeys = [
      "observability:token",
      ...Object.keys(PLACEHOLDER_SECRETS).map((k) => `${PROJECT}:${k}`),
    ];
    console.log(`Updating (${STACK}, state in ${where}):\n`);
    const { run, steps } = await engine.up({
      ...driver,
      // One run per process, so a plain require loads the program once, as `pulumi up` does.
      program: {
        example: PROJECT,
        stack: STACK,
        config,
        secretKeys,
        load: (file) => requireTypeScript(file),
      },
    });
    console.log(`\n${summary(steps)}`);
    console.log("\nOutputs:");
    for (const [key, value] of Object.entries(run.exports)) {
      const shown = run.secretExports.includes(key) ? '"[secret]"' : JSON.stringify(value, null, 4);
      console.log(`    ${key}: ${shown.replace(/\n/g, "\n    ")}`);
    }
    printNextSteps("it reports no changes");
    return 0;
  } finally {
    await host.close();
  }
}

const SYMBOLS: Record<Engine.Action, string> = { create: "+", update: "~", delete: "-", same: " " };
const DONE: Record<Engine.Action, string> = {
  create: "created",
  update: "updated",
  delete: "deleted",
  same: "unchanged",
};

/** One line per resource, as `pulumi up` shows it: what was done, the type, the name and the id. */
function printStep(step: Engine.Step): void {
  const kind = `observability:${step.type.slice(step.type.lastIndexOf(":") + 1)}`;
  console.log(
    ` ${SYMBOLS[step.action]} ${DONE[step.action].padEnd(10)} ${kind.padEnd(28)} ${step.name.padEnd(26)} ${step.id}`,
  );
}

function summary(steps: Engine.Step[]): string {
  const counts = new Map<Engine.Action, number>();
  for (const step of steps) counts.set(step.action, (counts.get(step.action) ?? 0) + 1);
  if (steps.every((s) => s.action === "same")) return `No changes: ${steps.length} resources unchanged.`;
  const parts = (["create", "update", "delete", "same"] as const)
    .filter((a) => counts.has(a))
    .map((a) => `${counts.get(a)} ${DONE[a]}`);
  return `Resources: ${parts.join(", ")}.`;
}

function printNextSteps(secondRun: string): void {
  console.log(
    [
      "",
      `Emulator data: ${path.relative(REPO_ROOT, path.join(DATA_DIR, "emulator.json"))}. Run \`npm run demo\` again: ${secondRun}.`,
      "`npm run demo -- --keep` leaves the emulator running to look around; `npm run demo -- destroy` tears it all down.",
    ].join("\n"),
  );
}

function printKept(emulator: EmulatorHandle): void {
  console.log(
    [
      "",
      emulator.pid
        ? `The emulator keeps running (pid ${emulator.pid}, data in .demo/emulator.json, log in .demo/emulator.log):`
        : "The emulator that was already running keeps running:",
      `    URL:   ${emulator.url}`,
      `    token: ${emulator.token}`,
      `    curl -H 'authorization: Bearer ${emulator.token}' ${emulator.url}/v2/monitors`,
      // The flagship created the dataset its monitors query, so events can be sent to it.
      `    curl -H 'authorization: Bearer ${emulator.token}' -d '[{"service":"checkout","status":502}]' ${emulator.url}/v1/datasets/http-logs/ingest`,
      ...(emulator.pid ? [`Stop it with: kill ${emulator.pid}`] : []),
    ].join("\n"),
  );
}

/** The emulator's address and credentials, and whether it is already serving; throws when another server is. */
async function emulatorAddress(options: Options) {
  const { DEFAULT_PORT, DEFAULT_TOKEN, DEFAULT_ORG_ID } = requireFromRepo(
    "pulumi-observability/emulator",
  ) as {
    DEFAULT_PORT: number;
    DEFAULT_TOKEN: string;
    DEFAULT_ORG_ID: string;
  };
  const port = options.port ?? DEFAULT_PORT;
  const url = `http://127.0.0.1:${port}`;
  const probe = await probeEmulator(url, DEFAULT_TOKEN);
  if (probe !== "free" && probe !== "emulator") {
    throw new Error(
      `port ${port} is in use by something that is not the emulator (${probe}); free it, or choose another ` +
        "port with --port N",
    );
  }
  return { port, url, token: DEFAULT_TOKEN, orgId: DEFAULT_ORG_ID, serving: probe === "emulator" };
}

/** Reuses an emulator already serving on the port, or starts one from the built CLI. */
async function ensureEmulator(options: Options): Promise<EmulatorHandle> {
  const { port, serving, ...base } = await emulatorAddress(options);
  const { url, token } = base;
  if (serving) {
    console.log(`» reusing the emulator already serving ${url}`);
    return { ...base, stop: async () => undefined };
  }

  mkdirSync(DATA_DIR, { recursive: true });
  const dataFile = path.join(DATA_DIR, "emulator.json");
  console.log(`» starting the emulator on ${url} with --data ${path.relative(REPO_ROOT, dataFile)}`);
  const cli = path.join(REPO_ROOT, "dist", "cli", "index.js");
  // A kept emulator outlives this script: its own process group, and its stderr in a file rather than ours.
  const child = spawn(process.execPath, [cli, "emulator", "--port", String(port), "--data", dataFile], {
    cwd: REPO_ROOT,
    detached: options.keep,
    stdio: [
      "ignore",
      "ignore",
      options.keep ? openSync(path.join(DATA_DIR, "emulator.log"), "a") : "inherit",
    ],
  });
  const stopOnSignal = () => child.kill("SIGTERM");
  process.once("SIGINT", stopOnSignal);
  process.once("SIGTERM", stopOnSignal);
  await waitUntilServing(child, url, token);
  if (options.keep) {
    process.off("SIGINT", stopOnSignal);
    process.off("SIGTERM", stopOnSignal);
    child.unref();
  }
  return {
    ...base,
    pid: child.pid,
    stop: async () => {
      process.off("SIGINT", stopOnSignal);
      process.off("SIGTERM", stopOnSignal);
      if (child.exitCode !== null || child.signalCode !== null) return;
      // SIGTERM lets the emulator flush its data file before it exits.
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** "emulator" when our emulator answers with this token, "free" when nothing listens, else what answered. */
async function probeEmulator(url: string, token: string): Promise<string> {
  try {
    const res = await fetch(`${url}/v2/orgs`, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(2000),
    });
    await res.body?.cancel();
    return res.status === 200 ? "emulator" : `HTTP ${res.status} on GET /v2/orgs`;
  } catch (err) {
    const code = (err as { cause?: { code?: string } }).cause?.code;
    return code === "ECONNREFUSED" ? "free" : `unreachable: ${code ?? (err as Error).message}`;
  }
}

async function waitUntilServing(child: ChildProcess, url: string, token: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`the emulator exited with code ${child.exitCode} before serving`);
    if ((await probeEmulator(url, token)) === "emulator") return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill("SIGTERM");
  throw new Error(`the emulator did not start serving ${url} within 15 s`);
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    console.error(`npm run demo: ${err.message}`);
    process.exit(1);
  },
);
