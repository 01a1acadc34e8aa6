/**
 * `npm run test:e2e`: the real Pulumi engine — the `pulumi` CLI, a file backend and Pulumi's dynamic-provider
 * host — runs every example and the engine paths of e2e-paths.mts against fresh emulators.
 *
 * The CLI is a `pulumi` on PATH, else the one built here from Go modules (pulumi-cli.mts), from its cache or built
 * now. Programs run as Automation API inline programs (lib.mts, EngineStack), so the CLI needs no language host.
 *
 * For every folder in examples/, Pulumi's own integration-test sequence (pkg/testing/integration/program.go,
 * `TestLifeCycleInitAndDestroy`): preview and up; a `stack export`/`import` round trip; preview and up expecting no
 * changes; refresh expecting no changes; then (this project's own) an out-of-band edit that `up --refresh` undoes;
 * an edit of the program that updates exactly one resource; destroy, after which the emulator is empty.
 *
 * Without a CLI and without Go to build one, it skips, saying why in its last line, and exits 0. With Go, a build
 * that fails (a module that could not be had, named) fails the run.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { INSTALL_HINT, REPO_ROOT, build, findPulumiCli, programFromFile, type PulumiCli } from "./lib.mts";
import { ENGINE_PATHS } from "./e2e-paths.mts";
import {
  Steps,
  assert,
  assertServiceEmpty,
  exportState,
  freshService,
  openStack,
  packageResources,
  type Client,
  type RunningEmulator,
  type StepResult,
} from "./e2e-support.mts";

/** What one example needs beyond the common sequence. */
interface ExampleScenario {
  example: string;
  /** The example's own config (`secret` values go in with `--secret`), made against `em`. */
  config(
    client: Client,
    em: RunningEmulator,
  ): Promise<{ plain: Record<string, string>; secret: Record<string, string> }>;
  /** Changes one managed object behind Pulumi's back; returns the check that `up --refresh` undid it. */
  drift(client: Client, outputs: Record<string, unknown>): Promise<() => Promise<void>>;
  /** An edit of the program (text replaced in index.ts) that updates exactly one resource, and its check. */
  edit: { from: string; to: string; check(client: Client, outputs: Record<string, unknown>): Promise<void> };
}

const id = (outputs: Record<string, unknown>, key: string, sub?: string): string =>
  String(sub ? (outputs[key] as Record<string, unknown>)[sub] : outputs[key]);

const EXAMPLES: ExampleScenario[] = [
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
    drift: async (client, outputs) => {
      const monitorId = id(outputs, "monitorIds", "errorRate");
      const before = await client.monitors.get(monitorId);
      await client.monitors.update(monitorId, { ...before, threshold: 999, notifierIds: [] });
      return async () => {
        const after = await client.monitors.get(monitorId);
        assert(
          after.threshold === before.threshold,
          `monitor ${monitorId}: threshold ${after.threshold}, not restored`,
        );
        const sorted = (v: unknown) => JSON.stringify([...(v as string[])].sort());
        assert(
          sorted(after.notifierIds) === sorted(before.notifierIds),
          `monitor ${monitorId}: notifierIds not restored`,
        );
      };
    },
    edit: {
      from: "threshold: 50,",
      to: "threshold: 75,",
      check: async (client, outputs) => {
        const monitor = await client.monitors.get(id(outputs, "monitorIds", "errorRate"));
        assert(monitor.threshold === 75, `the 5xx monitor's threshold is ${monitor.threshold}, not 75`);
      },
    },
  },
  {
    example: "team-access",
    config: async (_client, em) => ({
      plain: { "observability:orgId": em.orgId, orgName: "E2E Org" },
      secret: {},
    }),
    drift: async (client, outputs) => {
      const roleId = id(outputs, "roleIds", "sre");
      const before = await client.roles.get(roleId);
      await client.roles.update(roleId, { ...before, description: "edited by hand" });
      return async () => {
        const after = await client.roles.get(roleId);
        assert(after.description === before.description, `role ${roleId}: description not restored`);
      };
    },
    edit: {
      from: '"Customer support: reads dashboards and the app logs, nothing else."',
      to: '"Customer support: reads dashboards and the app logs (edited)."',
      check: async (client, outputs) => {
        const role = await client.roles.get(id(outputs, "roleIds", "support"));
        assert(
          String(role.description).endsWith("(edited)."),
          `the support role's description is ${role.description}`,
        );
      },
    },
  },
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
    drift: async (client, outputs) => {
      const notifierId = id(outputs, "notifierId");
      const before = await client.notifiers.get(notifierId);
      await client.notifiers.update(notifierId, { ...before, name: "renamed by hand" });
      return async () => {
        const after = await client.notifiers.get(notifierId);
        assert(
          after.name === before.name,
          `notifier ${notifierId}: name ${String(after.name)}, not restored`,
        );
      };
    },
    edit: {
      from: "threshold: 0,",
      to: "threshold: 5,",
      check: async (client, outputs) => {
        const monitor = await client.monitors.get(id(outputs, "monitorId"));
        assert(monitor.threshold === 5, `the adopted monitor's threshold is ${monitor.threshold}, not 5`);
      },
    },
  },
];

/** The changes an operation reported, e.g. `{ create: 8 }`, without the unchanged ones. */
function changes(summary: { resourceChanges?: Record<string, number> } | undefined): Record<string, number> {
  return Object.fromEntries(
    Object.entries(summary?.resourceChanges ?? {}).filter(([op, n]) => op !== "same" && n > 0),
  );
}

/** Every resource type the runs deployed, to check that each resource class of the package took part. */
const typesDeployed = new Set<string>();

async function runExample(
  cli: PulumiCli,
  scenario: ExampleScenario,
  workRoot: string,
): Promise<StepResult[]> {
  const steps = new Steps(scenario.example);
  const service = await freshService();
  const { em, client } = service;
  const originalName = String((await client.orgs.get(em.orgId)).name);
  const workDir = path.join(workRoot, scenario.example);
  cpSync(path.join(REPO_ROOT, "examples", scenario.example), workDir, {
    recursive: true,
    filter: (src) => !/Pulumi\.[^/]+\.yaml$|node_modules/.test(src),
  });
  const indexFile = path.join(workDir, "index.ts");
  const stack = await openStack({
    cli,
    workDir,
    stateDir: path.join(workRoot, `${scenario.example}-state`),
    stackName: "e2e",
    program: programFromFile(indexFile),
    em,
  });
  const out = stack.streams();
  let outputs: Record<string, unknown> = {};
  let resourceCount = 0;
  try {
    await steps.sequence([
      [
        "config",
        async () => {
          const extra = await scenario.config(client, em);
          await stack.setConfig(extra.plain);
          await stack.setSecrets(extra.secret);
        },
      ],
      [
        "preview",
        async () => {
          const preview = await stack.stack.preview({ ...out, diff: true });
          assert(
            (preview.changeSummary.create ?? 0) > 1,
            `preview plans ${JSON.stringify(preview.changeSummary)}`,
          );
        },
      ],
      [
        "up",
        async () => {
          const up = await stack.stack.up(out);
          assert(up.summary.result === "succeeded", `up: ${up.summary.result}`);
          outputs = await stack.outputs();
          const deployed = packageResources((await exportState(stack)).resources);
          resourceCount = deployed.length;
          for (const r of deployed) typesDeployed.add(r.type);
          assert(
            changes(up.summary).create === resourceCount + 1,
            `up: ${JSON.stringify(changes(up.summary))}`,
          );
        },
      ],
      [
        "stack export, then stack import of the same file",
        async () => {
          const file = path.join(workDir, "stack.json");
          await stack.run(["stack", "export", "--file", file]);
          const exported = readFileSync(file, "utf8");
          assert(exported.includes('"ciphertext"'), "the export holds no encrypted secret");
          await stack.run(["stack", "import", "--file", file]);
          rmSync(file);
        },
      ],
      [
        "preview and up, expecting no changes",
        async () => {
          await stack.stack.preview({ ...out, expectNoChanges: true });
          await stack.stack.up({ ...out, expectNoChanges: true });
        },
      ],
      [
        "refresh, expecting no changes",
        async () => void (await stack.stack.refresh({ ...out, expectNoChanges: true })),
      ],
      [
        "an out-of-band edit, undone by up --refresh",
        async () => {
          const undone = await scenario.drift(client, outputs);
          const up = await stack.stack.up({ ...out, refresh: true });
          assert(changes(up.summary).update === 1, `up --refresh: ${JSON.stringify(changes(up.summary))}`);
          await undone();
        },
      ],
      [
        "an edit of the program updates exactly one resource",
        async () => {
          const source = readFileSync(indexFile, "utf8");
          assert(source.includes(scenario.edit.from), `index.ts no longer contains ${scenario.edit.from}`);
          writeFileSync(indexFile, source.replace(scenario.edit.from, scenario.edit.to));
          const preview = await stack.stack.preview({ ...out, diff: true });
          assert(preview.changeSummary.update === 1, `preview: ${JSON.stringify(preview.changeSummary)}`);
          const up = await stack.stack.up(out);
          assert(
            JSON.stringify(changes(up.summary)) === '{"update":1}',
            `up: ${JSON.stringify(changes(up.summary))}`,
          );
          await scenario.edit.check(client, outputs);
        },
      ],
    ]);
    // Destroy whatever got created, even after a failed step, so the emulator is left clean either way.
    await steps.run("destroy, after which the emulator is empty", async () => {
      const destroyed = await stack.stack.destroy(out);
      assert(
        resourceCount === 0 || changes(destroyed.summary).delete === resourceCount + 1,
        `destroy: ${JSON.stringify(changes(destroyed.summary))}`,
      );
      assert((await exportState(stack)).resources.length === 0, "the state still holds resources");
      await assertServiceEmpty(client, em.orgId, originalName);
      await stack.workspace.removeStack("e2e");
    });
  } finally {
    await service.close();
  }
  return steps.results;
}

/** Each resource class the package exports must have been deployed by some run above. */
async function everyKindDeployed(): Promise<StepResult[]> {
  const steps = new Steps("coverage");
  await steps.run("every resource class of the package was deployed by the real engine", async () => {
    const obs = (await import("pulumi-observability")) as Record<string, unknown>;
    const { dynamic } = (await import("@pulumi/pulumi")) as typeof import("@pulumi/pulumi");
    const kinds = Object.entries(obs)
      .filter(
        ([, v]) =>
          typeof v === "function" && (v as { prototype: unknown }).prototype instanceof dynamic.Resource,
      )
      .map(([name]) => name);
    assert(kinds.length > 0, "the package exports no dynamic resource");
    const missing = kinds.filter((k) => ![...typesDeployed].some((t) => t.endsWith(`:${k}`)));
    assert(
      missing.length === 0,
      `never deployed: ${missing.join(", ")}; add it to an example or to an engine path in scripts/e2e-paths.mts`,
    );
  });
  return steps.results;
}

/** `npm run test:e2e -- <text>` runs only the examples and engine paths whose name contains the text. */
const only = process.argv[2];
const selected = (name: string) => !only || name.includes(only);

async function main(): Promise<number> {
  // The provider falls back to these; a run must see only what each stack sets.
  for (const key of Object.keys(process.env)) if (key.startsWith("OBSERVABILITY_")) delete process.env[key];
  const t0 = Date.now();
  const found = await findPulumiCli({
    build: true,
    onBuildStart: (version) =>
      console.log(`» building the Pulumi CLI ${version} from Go modules (minutes, once)`),
  });
  if (!found.cli) {
    if (found.fatal) {
      console.error(`test:e2e failed: no Pulumi CLI: ${found.reason}`);
      return 1;
    }
    console.log(
      [
        "`npm test` still runs every example through the real dynamic-provider host against an emulator.",
        INSTALL_HINT,
        `test:e2e skipped: no Pulumi CLI can be had here, so the examples cannot be deployed for real (${found.reason}).`,
      ].join("\n"),
    );
    return 0;
  }
  const cli = found.cli;
  console.log(`» Pulumi CLI ${cli.version} (${cli.source}) in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  console.log("» building the package (tsc)");
  await build();

  const onDisk = readdirSync(path.join(REPO_ROOT, "examples"), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);
  mkdirSync(path.join(REPO_ROOT, ".demo"), { recursive: true });
  const workRoot = mkdtempSync(path.join(REPO_ROOT, ".demo", "e2e-"));
  const results: StepResult[] = [];
  try {
    const unscripted = onDisk.filter((name) => !EXAMPLES.some((s) => s.example === name));
    const examples = new Steps("examples");
    await examples.run("every folder in examples/ has a scenario here", async () =>
      assert(
        unscripted.length === 0,
        `no scenario in scripts/e2e.mts for examples/${unscripted.join(", examples/")}`,
      ),
    );
    results.push(...examples.results);
    for (const scenario of EXAMPLES.filter((s) => selected(s.example))) {
      results.push(...(await runExample(cli, scenario, workRoot)));
    }
    for (const enginePath of ENGINE_PATHS.filter((p) => selected(p.group))) {
      results.push(...(await enginePath(cli, workRoot, (t) => typesDeployed.add(t))));
    }
    if (!only) results.push(...(await everyKindDeployed()));
  } finally {
    rmSync(workRoot, { recursive: true, force: true });
  }

  console.log("\nEnd-to-end results (the real Pulumi engine):");
  for (const r of results) {
    const mark = r.skipped ? "-" : r.ok ? "✔" : "✘";
    const line = `  ${mark} ${r.group}: ${r.step} (${r.skipped ? "skipped" : `${(r.ms / 1000).toFixed(1)} s`})`;
    console.log(r.detail ? `${line}\n      ${r.detail}` : line);
  }
  const failed = results.filter((r) => !r.ok).length;
  const skipped = results.filter((r) => r.skipped).length;
  const passed = results.length - failed - skipped;
  console.log(
    `\ntest:e2e took ${((Date.now() - t0) / 1000).toFixed(0)} s with the Pulumi CLI ${cli.version}`,
  );
  console.log(`e2e: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
  return failed === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    console.error(`test:e2e: ${err.message}`);
    process.exit(1);
  },
);
