/**
 * `npm run demo [-- up | destroy]`: the flagship stack (examples/monitors-to-notifiers) on the local emulator.
 *
 * Checks for the Pulumi CLI before anything starts; builds; starts the emulator with `--data .demo/emulator.json`
 * on its default port (or reuses one already serving there); selects stack `local` in a file backend under
 * `.pulumi-state/`; sets the emulator's URL and token and development placeholders for the example's secrets;
 * runs `pulumi up --yes` and prints the outputs. Run it again and Pulumi reports no changes.
 * `destroy` deletes the resources and removes the stack.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync } from "node:fs";
import * as path from "node:path";
import {
  INSTALL_HINT,
  LOCAL_PASSPHRASE,
  PulumiStack,
  REPO_ROOT,
  build,
  findOnPath,
  pulumiEnv,
  requireFromRepo,
} from "./lib.mts";

const USAGE = "usage: npm run demo [-- up | destroy]";
const FLAGSHIP_DIR = path.join(REPO_ROOT, "examples", "monitors-to-notifiers");
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

interface EmulatorHandle {
  url: string;
  token: string;
  orgId: string;
  /** Stops the emulator when this script started it; a no-op for one that was already running. */
  stop(): Promise<void>;
}

async function main(): Promise<number> {
  const action = process.argv[2] ?? "up";
  if (action !== "up" && action !== "destroy") {
    console.error(`unknown action ${JSON.stringify(action)}\n${USAGE}`);
    return 2;
  }

  // Before anything starts: without the CLI there is nothing useful to do, and nothing must be left running.
  const pulumi = findOnPath("pulumi");
  if (!pulumi) {
    console.error(
      [
        "npm run demo needs the Pulumi CLI (`pulumi`), and it is not on PATH.",
        INSTALL_HINT,
        "Nothing was started. To try the resources without the CLI, run `npm test`: it runs every example",
        "through the real dynamic-provider host against an emulator.",
      ].join("\n"),
    );
    return 1;
  }

  console.log("» building the package (tsc)");
  await build();

  const emulator = await ensureEmulator();
  try {
    mkdirSync(STATE_DIR, { recursive: true });
    const env = pulumiEnv(STATE_DIR);
    if (process.env.PULUMI_CONFIG_PASSPHRASE === undefined) {
      console.log(
        `» secrets of the local stack are encrypted with the documented passphrase "${LOCAL_PASSPHRASE}"`,
      );
    }
    const stack = new PulumiStack(pulumi, FLAGSHIP_DIR, STACK, env);
    console.log(`» stack ${STACK} in ${STATE_DIR}`);
    await stack.select();
    await stack.setConfig({ "observability:url": emulator.url, "observability:orgId": emulator.orgId });
    await stack.setSecrets({ "observability:token": emulator.token, ...PLACEHOLDER_SECRETS });

    if (action === "destroy") {
      await stack.cli(["destroy", "--yes"]);
      await stack.cli(["stack", "rm", "--yes"]);
      console.log(
        "\nDestroyed: the flagship's resources are deleted from the emulator and stack `local` is removed.",
      );
      return 0;
    }

    await stack.cli(["up", "--yes"]);
    const outputs = await stack.outputs();
    console.log("\nStack outputs:");
    console.log(JSON.stringify(outputs, null, 2));
    console.log(
      [
        "",
        `Emulator data: ${path.join(DATA_DIR, "emulator.json")}. Serve it again with`,
        "    npx observability emulator --data .demo/emulator.json",
        "Run `npm run demo` again: Pulumi reports no changes. `npm run demo -- destroy` tears it all down.",
      ].join("\n"),
    );
    return 0;
  } finally {
    await emulator.stop();
  }
}

/** Reuses an emulator already serving on the default port, or starts one from the built CLI. */
async function ensureEmulator(): Promise<EmulatorHandle> {
  const { DEFAULT_PORT, DEFAULT_TOKEN, DEFAULT_ORG_ID } = requireFromRepo(
    "pulumi-observability/emulator",
  ) as {
    DEFAULT_PORT: number;
    DEFAULT_TOKEN: string;
    DEFAULT_ORG_ID: string;
  };
  const url = `http://127.0.0.1:${DEFAULT_PORT}`;
  const base = { url, token: DEFAULT_TOKEN, orgId: DEFAULT_ORG_ID };

  const probe = await probeEmulator(url, DEFAULT_TOKEN);
  if (probe === "emulator") {
    console.log(`» reusing the emulator already serving ${url}`);
    return { ...base, stop: async () => undefined };
  }
  if (probe !== "free") {
    throw new Error(
      `port ${DEFAULT_PORT} is in use by something that is not the emulator (${probe}); free it and run again`,
    );
  }

  mkdirSync(DATA_DIR, { recursive: true });
  const dataFile = path.join(DATA_DIR, "emulator.json");
  console.log(`» starting the emulator on ${url} with --data ${path.relative(REPO_ROOT, dataFile)}`);
  const cli = path.join(REPO_ROOT, "dist", "cli", "index.js");
  const child = spawn(process.execPath, [cli, "emulator", "--data", dataFile], {
    cwd: REPO_ROOT,
    stdio: ["ignore", "ignore", "inherit"],
  });
  const stopOnSignal = () => child.kill("SIGTERM");
  process.once("SIGINT", stopOnSignal);
  process.once("SIGTERM", stopOnSignal);
  await waitUntilServing(child, url, DEFAULT_TOKEN);
  return {
    ...base,
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
