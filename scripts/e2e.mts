/**
 * `npm run test:e2e`: every example deployed for real by the Pulumi CLI against a fresh emulator on a free port.
 *
 * Per example: `pulumi preview`, `up`, `preview --expect-no-changes`, `refresh`, `preview --expect-no-changes`,
 * an out-of-band edit through the client followed by `up --refresh` (which must undo it), then `destroy`, which
 * must leave nothing behind. The CLI is a `pulumi` on PATH, else the npm launcher (lib.mts, at most 60 s); where
 * neither gives one (offline, with no CLI cached), it says why it skips and exits 0.
 *
 * Each example is copied into `.demo/e2e-*` inside the repository so `pulumi-observability` resolves to this
 * checkout (package self-reference) and no stack file lands in `examples/`.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import * as path from "node:path";
import {
  INSTALL_HINT,
  PulumiStack,
  REPO_ROOT,
  type PulumiCli,
  build,
  findPulumiCli,
  pulumiEnv,
  requireFromRepo,
} from "./lib.mts";

/** The slice of the built client this script uses. */
interface Client {
  monitors: CrudApi;
  notifiers: CrudApi;
  roles: CrudApi;
  orgs: { get(id: string): Promise<Record<string, unknown>> };
  annotations: CrudApi;
  starredQueries: CrudApi;
  close(): Promise<void>;
}
interface CrudApi {
  list?(): Promise<Record<string, unknown>[]>;
  get(id: string): Promise<Record<string, unknown> & { id: string }>;
  create(body: Record<string, unknown>): Promise<Record<string, unknown> & { id: string }>;
  update(id: string, body: Record<string, unknown>): Promise<Record<string, unknown> & { id: string }>;
}
interface RunningEmulator {
  url: string;
  token: string;
  orgId: string;
  close(): Promise<void>;
}

/** What one example needs beyond the common steps. */
interface Scenario {
  example: string;
  /** Example-specific config; `secret` values go in with `--secret`. */
  config(
    client: Client,
    em: RunningEmulator,
  ): Promise<{ plain: Record<string, string>; secret: Record<string, string> }>;
  /** Changes something the stack manages, behind Pulumi's back; returns the check that it was undone. */
  editOutOfBand(client: Client, outputs: Record<string, unknown>): Promise<() => Promise<void>>;
  /** Asserts that `destroy` left nothing behind. */
  assertGone(client: Client, outputs: Record<string, unknown>): Promise<void>;
}

function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

async function assertNotFound(get: () => Promise<unknown>, what: string): Promise<void> {
  try {
    await get();
  } catch (err) {
    if ((err as { status?: number }).status === 404) return;
    throw err;
  }
  throw new Error(`${what} still exists after destroy`);
}

function idsOf(value: unknown): string[] {
  return Object.values(value as Record<string, string>);
}

const SCENARIOS: Scenario[] = [
  {
    example: "monitors-to-notifiers",
    config: async () => ({
      plain: {},
      secret: {
        slackWebhookUrl: "https://hooks.slack.com/services/T00000000/B00000000/e2e-placeholder",
        pagerdutyRoutingKey: "e2e-routing-key-000000000000000000",
        incidentWebhookUrl: "https://incident-bot.example.com/hooks/e2e",
        incidentWebhookToken: "e2e-bot-token",
      },
    }),
    editOutOfBand: async (client, outputs) => {
      const id = (outputs.monitorIds as Record<string, string>).errorRate;
      const before = await client.monitors.get(id);
      await client.monitors.update(id, { ...before, threshold: 999, notifierIds: [] });
      return async () => {
        const after = await client.monitors.get(id);
        assert(
          after.threshold === before.threshold,
          `monitor ${id}: threshold is ${after.threshold}, not restored`,
        );
        assert(
          JSON.stringify([...(after.notifierIds as string[])].sort()) ===
            JSON.stringify([...(before.notifierIds as string[])].sort()),
          `monitor ${id}: notifierIds not restored`,
        );
      };
    },
    assertGone: async (client, outputs) => {
      for (const id of idsOf(outputs.monitorIds))
        await assertNotFound(() => client.monitors.get(id), `monitor ${id}`);
      for (const id of idsOf(outputs.notifierIds))
        await assertNotFound(() => client.notifiers.get(id), `notifier ${id}`);
      await assertNotFound(
        () => client.annotations.get(String(outputs.annotationId)),
        "the deploy annotation",
      );
      await assertNotFound(
        () => client.starredQueries.get(String(outputs.starredQueryId)),
        "the starred query",
      );
    },
  },
  (() => {
    let originalName = "";
    let orgId = "";
    return {
      example: "team-access",
      config: async (client: Client, em: RunningEmulator) => {
        orgId = em.orgId;
        originalName = String((await client.orgs.get(orgId)).name);
        return { plain: { "observability:orgId": em.orgId, orgName: "E2E Org" }, secret: {} };
      },
      editOutOfBand: async (client: Client, outputs: Record<string, unknown>) => {
        const id = (outputs.roleIds as Record<string, string>).sre;
        const before = await client.roles.get(id);
        await client.roles.update(id, { ...before, description: "edited by hand" });
        return async () => {
          const after = await client.roles.get(id);
          assert(after.description === before.description, `role ${id}: description not restored`);
        };
      },
      assertGone: async (client: Client, outputs: Record<string, unknown>) => {
        for (const id of idsOf(outputs.roleIds))
          await assertNotFound(() => client.roles.get(id), `role ${id}`);
        const name = (await client.orgs.get(orgId)).name;
        assert(
          name === originalName,
          `the organization is named ${String(name)}, not restored to ${originalName}`,
        );
      },
    };
  })(),
  {
    example: "adopt-existing",
    config: async (client) => {
      const notifier = await client.notifiers.create({
        name: "ops mail",
        properties: { email: { emails: ["ops@example.com"] } },
      });
      const monitor = await client.monitors.create({
        name: "disk",
        type: "Threshold",
        operator: "Above",
        threshold: 1,
        aplQuery: "['host-metrics'] | where disk_used_pct > 95",
      });
      return { plain: { existingNotifierId: notifier.id, existingMonitorId: monitor.id }, secret: {} };
    },
    editOutOfBand: async (client, outputs) => {
      const id = String(outputs.notifierId);
      const before = await client.notifiers.get(id);
      await client.notifiers.update(id, { ...before, name: "renamed by hand" });
      return async () => {
        const after = await client.notifiers.get(id);
        assert(after.name === before.name, `notifier ${id}: name is ${String(after.name)}, not restored`);
      };
    },
    assertGone: async (client, outputs) => {
      await assertNotFound(() => client.monitors.get(String(outputs.monitorId)), "the adopted monitor");
      await assertNotFound(() => client.notifiers.get(String(outputs.notifierId)), "the adopted notifier");
    },
  },
];

interface StepResult {
  example: string;
  step: string;
  ok: boolean;
  detail?: string;
}

async function runScenario(pulumi: PulumiCli, scenario: Scenario, workRoot: string): Promise<StepResult[]> {
  const results: StepResult[] = [];
  const { startEmulator } = requireFromRepo("./dist/emulator/index.js") as {
    startEmulator(o: { port: number; host: string }): Promise<RunningEmulator>;
  };
  const { ObservabilityClient } = requireFromRepo("./dist/provider/client/index.js") as {
    ObservabilityClient: new (o: { url: string; token: string; orgId: string }) => Client;
  };

  const em = await startEmulator({ port: 0, host: "127.0.0.1" });
  const client = new ObservabilityClient({ url: em.url, token: em.token, orgId: em.orgId });
  const projectDir = path.join(workRoot, scenario.example);
  cpSync(path.join(REPO_ROOT, "examples", scenario.example), projectDir, {
    recursive: true,
    filter: (src) => !/Pulumi\.[^/]+\.yaml$|node_modules/.test(src),
  });
  const stateDir = path.join(workRoot, `${scenario.example}-state`);
  mkdirSync(stateDir, { recursive: true });
  const stack = new PulumiStack(pulumi, projectDir, "e2e", pulumiEnv(stateDir));

  let outputs: Record<string, unknown> = {};
  let verifyUndone: (() => Promise<void>) | undefined;
  const step = async (name: string, fn: () => Promise<void>): Promise<boolean> => {
    console.log(`\n━━ ${scenario.example}: ${name}`);
    try {
      await fn();
      results.push({ example: scenario.example, step: name, ok: true });
      return true;
    } catch (err) {
      results.push({ example: scenario.example, step: name, ok: false, detail: (err as Error).message });
      return false;
    }
  };

  try {
    const ok =
      (await step("stack and config", async () => {
        const extra = await scenario.config(client, em);
        await stack.select();
        await stack.setConfig({
          "observability:url": em.url,
          "observability:orgId": em.orgId,
          ...extra.plain,
        });
        await stack.setSecrets({ "observability:token": em.token, ...extra.secret });
      })) &&
      (await step("preview", () => stack.cli(["preview"]).then(() => undefined))) &&
      (await step("up", async () => {
        await stack.cli(["up", "--yes"]);
        outputs = await stack.outputs();
      })) &&
      (await step("preview, expecting no changes", () =>
        stack.cli(["preview", "--expect-no-changes"]).then(() => undefined),
      )) &&
      (await step("refresh", () => stack.cli(["refresh", "--yes"]).then(() => undefined))) &&
      (await step("preview after refresh, expecting no changes", () =>
        stack.cli(["preview", "--expect-no-changes"]).then(() => undefined),
      )) &&
      (await step("out-of-band edit through the client", async () => {
        verifyUndone = await scenario.editOutOfBand(client, outputs);
      })) &&
      (await step("up --refresh undoes the edit", async () => {
        await stack.cli(["up", "--yes", "--refresh"]);
        await verifyUndone!();
      }));
    // Destroy whatever got created, even after a failed step, so the emulator is left clean either way.
    await step("destroy", async () => {
      await stack.cli(["destroy", "--yes"]);
      if (ok) await scenario.assertGone(client, outputs);
    });
  } finally {
    await stack.cli(["stack", "rm", "--yes", "--force"]).catch(() => undefined);
    await client.close();
    await em.close();
  }
  return results;
}

async function main(): Promise<number> {
  const found = await findPulumiCli();
  const pulumi = found.cli;
  if (!pulumi) {
    console.log(
      [
        `test:e2e skipped: the Pulumi CLI could not be had (${found.reason}), so the examples cannot be deployed for real.`,
        "`npm test` still runs every example through the real dynamic-provider host against an emulator.",
        INSTALL_HINT,
      ].join("\n"),
    );
    return 0;
  }

  console.log(`» Pulumi CLI ${pulumi.version} (${pulumi.source})`);
  console.log("» building the package (tsc)");
  await build();
  mkdirSync(path.join(REPO_ROOT, ".demo"), { recursive: true });
  const workRoot = mkdtempSync(path.join(REPO_ROOT, ".demo", "e2e-"));
  const results: StepResult[] = [];
  try {
    for (const scenario of SCENARIOS) results.push(...(await runScenario(pulumi, scenario, workRoot)));
  } finally {
    rmSync(workRoot, { recursive: true, force: true });
  }

  console.log("\nEnd-to-end results:");
  for (const r of results)
    console.log(`  ${r.ok ? "✔" : "✘"} ${r.example}: ${r.step}${r.detail ? ` — ${r.detail}` : ""}`);
  const failed = results.filter((r) => !r.ok).length;
  console.log(
    failed === 0 ? `\nall ${results.length} steps passed` : `\n${failed} of ${results.length} steps failed`,
  );
  return failed === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    console.error(`test:e2e: ${err.message}`);
    process.exit(1);
  },
);
