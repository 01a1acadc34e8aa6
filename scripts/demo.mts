/**
 * `npm run demo [-- up | destroy] [--keep] [--port N]`: the flagship stack (examples/monitors-to-notifiers) on
 * the local emulator, deployed by the real Pulumi engine.
 *
 * First it gets the Pulumi CLI (lib.mts): a `pulumi` on PATH, else the one built here from Go modules, from its
 * cache or built now (minutes, once; said before it starts). Without a CLI and without Go it stops there, saying
 * how to get one. Then it builds the package, and starts the emulator with `--data .demo/emulator.json` on port
 * 8787 (or reuses one already serving there). The stack `local` lives in a file backend under `.pulumi-state/`,
 * with the emulator's URL and token and development placeholders for the example's secrets as config; `up` prints
 * the outputs. The program runs as an Automation API inline program, so the CLI needs no Node.js language host. A
 * second run reports no changes; `destroy` deletes the resources and removes the stack.
 *
 * Its live console is at the emulator's URL (`http://127.0.0.1:8787/`), printed with the outputs. `--keep` leaves
 * the emulator and its console running and prints their URL and the token; otherwise nothing is left running.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, openSync, readlinkSync } from "node:fs";
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
  type PulumiCli,
} from "./lib.mts";
import { emulatorDataOf } from "./shared/emulator-data.ts";

const USAGE = "usage: npm run demo [-- [up | destroy] [--keep] [--port N]]";
const PROJECT = "monitors-to-notifiers";
const FLAGSHIP_DIR = path.join(REPO_ROOT, "examples", PROJECT);
const STATE_DIR = path.join(REPO_ROOT, ".pulumi-state");
const DATA_DIR = path.join(REPO_ROOT, ".demo");
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
}

interface EmulatorHandle {
  url: string;
  token: string;
  orgId: string;
  /** The process this script started, or undefined for an emulator that was already serving. */
  pid?: number;
  /** Where its data is, in words: the file this script gave it, or what is known of a reused one's. */
  data: string;
  /** Stops the emulator when this script started it; a no-op for one that was already running. */
  stop(): Promise<void>;
}

/** The command line, or the reason it is not one this script understands. */
function parseArgs(args: string[]): Options | string {
  const options: Options = { action: "up", keep: false };
  let action: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--keep") options.keep = true;
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

  // Where a build exists to read the emulator's defaults from, a port held by something else is reported now,
  // before the CLI and the package are built; ensureEmulator looks again in any case.
  if (existsSync(path.join(REPO_ROOT, "dist", "emulator", "index.js"))) await emulatorAddress(options);

  const found = await findPulumiCli({
    build: true,
    onBuildStart: (version) =>
      console.log(
        [
          `» no \`pulumi\` on PATH: building the Pulumi CLI ${version} from Go modules (minutes, once; then cached).`,
          "  To skip this, install the CLI instead and run the demo again:",
          "  `curl -fsSL https://get.pulumi.com | sh` or https://www.pulumi.com/docs/install/",
        ].join("\n"),
      ),
  });
  if (!found.cli) {
    console.error(
      `npm run demo needs the Pulumi CLI, and none could be had: ${found.reason}.\n${INSTALL_HINT}`,
    );
    return 1;
  }
  console.log(`» Pulumi CLI ${found.cli.version} (${found.cli.source})`);

  console.log("» building the package (tsc)");
  await build();

  const emulator = await ensureEmulator(options);
  try {
    return await runStack(found.cli, options, emulator);
  } finally {
    if (options.keep) printKept(emulator);
    else await emulator.stop();
  }
}

async function runStack(pulumi: PulumiCli, options: Options, emulator: EmulatorHandle): Promise<number> {
  mkdirSync(STATE_DIR, { recursive: true });
  if (process.env.PULUMI_CONFIG_PASSPHRASE === undefined) {
    console.log(
      `» secrets of the local stack are encrypted with the documented passphrase "${LOCAL_PASSPHRASE}"`,
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
  printNextSteps(emulator);
  return 0;
}

function printNextSteps(emulator: EmulatorHandle): void {
  console.log(
    [
      "",
      `Emulator data: ${emulator.data}. Run \`npm run demo\` again: Pulumi reports no changes.`,
      `Console: ${emulator.url}/ shows the datasets, monitors, alerts and notifications while the emulator runs.`,
      "`npm run demo -- --keep` leaves the emulator and its console running to look around; `npm run demo -- destroy` tears it all down.",
    ].join("\n"),
  );
}

function printKept(emulator: EmulatorHandle): void {
  console.log(
    [
      "",
      emulator.pid
        ? `The emulator keeps running (pid ${emulator.pid}, data in .demo/emulator.json, log in .demo/emulator.log):`
        : `The emulator that was already running keeps running (data: ${emulator.data}):`,
      `    URL:     ${emulator.url}`,
      `    console: ${emulator.url}/ (open it in a browser)`,
      `    token:   ${emulator.token}`,
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
    const data = reusedEmulatorData(port);
    console.log(`» reusing the emulator already serving ${url}, started outside this demo (data: ${data})`);
    return { ...base, data, stop: async () => undefined };
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
    data: path.relative(REPO_ROOT, dataFile),
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

/**
 * Where an emulator this script did not start keeps its data, from its process's arguments (`--data FILE`, relative
 * to its working folder): the emulator answers nothing about it over HTTP. Never .demo/emulator.json unless it was
 * started with that file.
 */
function reusedEmulatorData(port: number): string {
  const { procArgv, procListeningOn } = requireFromRepo("./dist/cli/recover/proc.js") as {
    procArgv(pid: number): string[];
    procListeningOn(port: number): number | undefined;
  };
  const pid = procListeningOn(port);
  if (pid === undefined)
    return "not known (its process could not be read): the file its --data names, or memory only without one";
  let argv: string[];
  let cwd: string;
  try {
    argv = procArgv(pid);
    cwd = readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return `not known (pid ${pid} ended)`;
  }
  return emulatorDataOf(pid, argv, cwd, REPO_ROOT);
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
