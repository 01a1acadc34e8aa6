/**
 * Runs the flagship (flagship.ts) with Pulumi's Automation API as an inline program: the CLI talks to this
 * process, so no Node.js language host is needed. Node ≥ 22.18 runs it as it is (type stripping):
 *
 *     node main.ts preview|up|refresh|destroy
 *
 * The stack `dev` of project `typescript-flagship` lives in the backend PULUMI_BACKEND_URL names, else in a file
 * backend in ./.pulumi-state. Where the service is comes from the environment and becomes the stack's provider
 * configuration (the token as a secret): OBSERVABILITY_URL (default: the emulator, http://127.0.0.1:8787),
 * OBSERVABILITY_TOKEN (default: the emulator's development token) and OBSERVABILITY_ORG_ID. SLACK_WEBHOOK_URL is
 * the notifier's secret URL; IMPORT_DATASET_ID, when set, imports that existing dataset.
 *
 * The engine's output goes to stderr; stdout's last line is JSON: the operation, the count of resources per
 * change and the stack outputs (secrets as "[secret]").
 */
import { mkdirSync } from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { LocalWorkspace, type ConfigMap } from "@pulumi/pulumi/automation/index.js";
import { flagship } from "./flagship.ts";

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** The emulator's development token: not a secret, it is accepted only by the emulator. */
const EMULATOR_TOKEN = "xaat-local-development-token";
const env = process.env;

async function openStack() {
  const stateDir = path.join(HERE, ".pulumi-state");
  mkdirSync(stateDir, { recursive: true });
  const stack = await LocalWorkspace.createOrSelectStack(
    { stackName: "dev", projectName: "typescript-flagship", program: async () => flagship() },
    {
      workDir: HERE,
      projectSettings: {
        name: "typescript-flagship",
        runtime: "nodejs",
        backend: { url: env.PULUMI_BACKEND_URL || `file://${stateDir}` },
      },
      secretsProvider: "passphrase",
      envVars: { PULUMI_CONFIG_PASSPHRASE: env.PULUMI_CONFIG_PASSPHRASE ?? "pulumi-observability-local" },
    },
  );
  const config: ConfigMap = {
    "observability:url": { value: env.OBSERVABILITY_URL || "http://127.0.0.1:8787" },
    "observability:token": { value: env.OBSERVABILITY_TOKEN || EMULATOR_TOKEN, secret: true },
    slackWebhookUrl: {
      value: env.SLACK_WEBHOOK_URL || "https://hooks.slack.com/services/T000/B000/XXXX",
      secret: true,
    },
  };
  if (env.OBSERVABILITY_ORG_ID) config["observability:orgId"] = { value: env.OBSERVABILITY_ORG_ID };
  if (env.IMPORT_DATASET_ID) config.importDatasetId = { value: env.IMPORT_DATASET_ID };
  else await stack.removeConfig("importDatasetId");
  await stack.setAllConfig(config);
  return stack;
}

async function main(operation: string): Promise<void> {
  const stack = await openStack();
  const onOutput = (s: string) => process.stderr.write(s);
  let changes: Record<string, number> | undefined;
  if (operation === "preview") changes = (await stack.preview({ onOutput })).changeSummary;
  else if (operation === "up") changes = (await stack.up({ onOutput })).summary.resourceChanges;
  else if (operation === "refresh") changes = (await stack.refresh({ onOutput })).summary.resourceChanges;
  else if (operation === "destroy") changes = (await stack.destroy({ onOutput })).summary.resourceChanges;
  else throw new Error(`usage: node main.ts preview|up|refresh|destroy (not ${JSON.stringify(operation)})`);
  const result: Record<string, unknown> = { operation, changes: changes ?? {} };
  if (operation !== "destroy") {
    const outputs = await stack.outputs();
    result.outputs = Object.fromEntries(
      Object.entries(outputs).map(([k, v]) => [k, v.secret ? "[secret]" : v.value]),
    );
  }
  console.log(JSON.stringify(result));
}

main(process.argv[2] ?? "").catch((err: Error) => {
  console.error(err.message);
  process.exit(1);
});
