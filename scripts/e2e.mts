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
import { spawn } from "node:child_process";
import {
  INSTALL_HINT,
  REPO_ROOT,
  build,
  findPulumiCli,
  programFromFile,
  type EngineStack,
  type PulumiCli,
} from "./lib.mts";
import { ENGINE_PATHS } from "./e2e-paths.mts";
import {
  Steps,
  assert,
  assertServiceEmpty,
  exportState,
  freshService,
  openStack,
  freshLookups,
  packageResources,
  redact,
  serviceContents,
  type Client,
  type RunningEmulator,
  type StepResult,
} from "./e2e-support.mts";

/** What an example's own steps get: the service, the deployed stack, its outputs and its folder. */
interface ScenarioContext {
  client: Client;
  em: RunningEmulator;
  stack: EngineStack;
  outputs: Record<string, unknown>;
  workDir: string;
}

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
  /** How many resources that drift touches, each updated by `up --refresh` (default 1). */
  driftUpdates?: number;
  /** The example's own steps, run on the deployed stack after the no-change refresh. */
  steps?(ctx: ScenarioContext): [string, () => Promise<void>][];
  /** An edit of the program (text replaced in index.ts) that updates exactly one resource, and its check. */
  edit: { from: string; to: string; check(client: Client, outputs: Record<string, unknown>): Promise<void> };
}

const id = (outputs: Record<string, unknown>, key: string, sub?: string): string =>
  String(sub ? (outputs[key] as Record<string, unknown>)[sub] : outputs[key]);

const EXAMPLES: ExampleScenario[] = [
  {
    example: "monitors-to-notifiers",
    // The ingest step below fills http-logs; the emulator's data is disposable, so destroy may delete it.
    config: async () => ({
      plain: { datasetsForceDestroy: "true" },
      secret: {
        slackWebhookUrl: "https://hooks.slack.com/services/T00000000/B00000000/e2e-placeholder",
        pagerdutyRoutingKey: "e2e-routing-key-000000000000000000",
        incidentWebhookUrl: "https://incident-bot.example.com/hooks/e2e",
        incidentWebhookToken: "e2e-bot-token",
      },
    }),
    // The 5xx monitor loses its threshold and notifiers, and the dashboard its runbook note, behind Pulumi's back.
    driftUpdates: 2,
    drift: async (client, outputs) => {
      const monitorId = id(outputs, "monitorIds", "errorRate");
      const before = await client.monitors.get(monitorId);
      await client.monitors.update(monitorId, { ...before, threshold: 999, notifierIds: [] });
      const uid = id(outputs, "dashboardUid");
      const board = await client.dashboards.get(uid);
      const note = (charts: unknown) =>
        (charts as { id: string; text?: string }[]).find((c) => c.id === "runbook")?.text;
      const declaredNote = note(board.dashboard.charts);
      await client.dashboards.update(uid, {
        dashboard: {
          ...board.dashboard,
          charts: (board.dashboard.charts as Record<string, unknown>[]).map((c) =>
            c.id === "runbook" ? { ...c, text: "edited in the UI" } : c,
          ),
        },
        overwrite: true,
      });
      return async () => {
        const restored = note((await client.dashboards.get(uid)).dashboard.charts);
        assert(
          restored === declaredNote,
          `dashboard ${uid}: the note is ${JSON.stringify(restored)}, not restored`,
        );
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
    steps: (ctx) => [
      [
        "the ingest token is a secret output: `observability ingest` with it succeeds, `observability query` gets 403",
        async () => {
          const raw = await ctx.stack.stack.outputs();
          assert(raw.ingestToken?.secret === true, "the stack output ingestToken is not secret");
          const token = String(raw.ingestToken.value);
          assert(token.startsWith("xaat-"), "the stack output ingestToken holds no token");
          const events = path.join(ctx.workDir, "events.ndjson");
          writeFileSync(
            events,
            [
              { service: "checkout", route: "/pay", status: 503, duration: 812_000_000 },
              { service: "checkout", route: "/cart", status: 200, duration: 95_000_000 },
            ]
              .map((e) => JSON.stringify(e))
              .join("\n") + "\n",
          );
          const env = { OBSERVABILITY_URL: ctx.em.url, OBSERVABILITY_TOKEN: token };
          const ingest = await observability(["ingest", "http-logs", events], env);
          assert(
            ingest.code === 0 && ingest.stdout.includes("ingested 2 events into http-logs, 0 failed"),
            `observability ingest: exit ${ingest.code}: ${ingest.stdout}${ingest.stderr}`,
          );
          const query = await observability(["query", "['http-logs'] | where status >= 500 | count"], env);
          assert(
            query.code === 1 && query.stderr.includes("403") && query.stdout === "",
            `observability query with the ingest token: exit ${query.code}: ${query.stdout}${query.stderr}`,
          );
          const elsewhere = await observability(["ingest", "app-logs", events], env);
          assert(
            elsewhere.code === 1 && elsewhere.stderr.includes("403"),
            `observability ingest into app-logs: exit ${elsewhere.code}: ${elsewhere.stdout}${elsewhere.stderr}`,
          );
          for (const r of [ingest, query, elsewhere])
            assert(!(r.stdout + r.stderr).includes(token), `the CLI printed ${redact(token)}`);
          // The events did land: the emulator's own token counts them.
          const counted = await observability(
            ["query", "['http-logs'] | where status >= 500 | count", "--format", "json"],
            { OBSERVABILITY_URL: ctx.em.url, OBSERVABILITY_TOKEN: ctx.em.token },
          );
          assert(
            counted.code === 0 && /\b1\b/.test(counted.stdout),
            `the count: ${counted.stdout}${counted.stderr}`,
          );
        },
      ],
    ],
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
    // A role's description edited, and a member taken out of the on-call group, by hand.
    driftUpdates: 2,
    drift: async (client, outputs) => {
      const roleId = id(outputs, "roleIds", "sre");
      const before = await client.roles.get(roleId);
      await client.roles.update(roleId, { ...before, description: "edited by hand" });
      const groupId = id(outputs, "groupId");
      const group = await client.groups.get(groupId);
      const bob = id(outputs, "userIds", "bob");
      await client.groups.update(groupId, {
        name: group.name,
        description: group.description,
        roles: group.roles,
        members: (group.members as string[]).filter((m) => m !== bob),
      });
      return async () => {
        const after = await client.roles.get(roleId);
        assert(after.description === before.description, `role ${roleId}: description not restored`);
        const members = (await client.groups.get(groupId)).members as string[];
        assert(members.includes(bob), `group ${groupId}: ${bob} not put back among its members`);
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
    // Made by hand, under the names the program looks them up by (its defaults), as its README shows with curl.
    config: async (client) => {
      await client.notifiers.create({
        name: "Platform team email",
        properties: { email: { emails: ["ops@example.com"] } },
      });
      await client.monitors.create({
        name: "Hosts: disk above 90%",
        type: "Threshold",
        operator: "Above",
        threshold: 1,
        aplQuery: "['host-metrics'] | where disk_used_pct > 95",
      });
      return { plain: {}, secret: {} };
    },
    // Not the name: the program finds the notifier by it, so a rename by hand fails the lookup (as it should).
    drift: async (client, outputs) => {
      const notifierId = id(outputs, "notifierId");
      const before = await client.notifiers.get(notifierId);
      await client.notifiers.update(notifierId, {
        ...before,
        properties: { email: { emails: ["someone-else@example.com"] } },
      });
      return async () => {
        const after = await client.notifiers.get(notifierId);
        assert(
          JSON.stringify(after.properties) === JSON.stringify(before.properties),
          `notifier ${notifierId}: emails ${JSON.stringify(after.properties)}, not restored`,
        );
      };
    },
    steps: (ctx) => [
      [
        "the lookups found the objects made by hand: their ids are adopted, nothing new exists",
        async () => {
          const notifiers = await ctx.client.notifiers.list();
          const monitors = await ctx.client.monitors.list();
          assert(
            notifiers.length === 1 && notifiers[0].id === ctx.outputs.notifierId,
            `notifiers: ${notifiers.map((n) => n.id).join(", ")}; adopted ${String(ctx.outputs.notifierId)}`,
          );
          assert(
            monitors.length === 1 && monitors[0].id === ctx.outputs.monitorId,
            `monitors: ${monitors.map((m) => m.id).join(", ")}; adopted ${String(ctx.outputs.monitorId)}`,
          );
        },
      ],
    ],
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

/** Runs the `observability` command (the built cli/) with `env` added, as a user would. */
function observability(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(REPO_ROOT, "dist", "cli", "index.js"), ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

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
  const baseline = await serviceContents(client, em.orgId);
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
    program: freshLookups(programFromFile(indexFile)),
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
      ...(scenario.steps?.({
        client,
        em,
        stack,
        get outputs() {
          return outputs;
        },
        workDir,
      }) ?? []),
      [
        "an out-of-band edit, undone by up --refresh",
        async () => {
          const undone = await scenario.drift(client, outputs);
          const up = await stack.stack.up({ ...out, refresh: true });
          assert(
            changes(up.summary).update === (scenario.driftUpdates ?? 1),
            `up --refresh: ${JSON.stringify(changes(up.summary))}`,
          );
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
      await assertServiceEmpty(client, em.orgId, baseline);
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
