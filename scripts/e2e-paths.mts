/**
 * The engine paths that test/provider/engine-paths.test.ts reproduces around the real dynamic-provider host
 * (test/helpers/engine-steps.ts), here run by the real engine, each on a fresh emulator and its own stack of a
 * small inline program:
 * - refresh after out-of-band changes, a notifier switched to another channel among them; then no credential in
 *   plaintext in the state file, nor in any checkpoint of its history, nor in the CLI's output;
 * - `up --replace` of a Role, of an OrganizationName and of an adopted Monitor;
 * - `Resource.get` of a missing id, for every kind;
 * - `pulumi import`, and the `import` resource option;
 * - a create that fails;
 * - `protect`;
 * - `up --target`;
 * - a preview with no credentials, as for a fork's pull request;
 * - lookups by name (getMonitorOutput) feeding a managed resource, and a preview of them with no credentials.
 */
import { cpSync } from "node:fs";
import * as path from "node:path";
import type * as Obs from "pulumi-observability";
import {
  REPO_ROOT,
  findOnPath,
  programFromFile,
  type EngineStack,
  type InlineProgram,
  type PulumiCli,
} from "./lib.mts";
import {
  Steps,
  assert,
  assertServiceEmpty,
  exportState,
  failureOf,
  filesContaining,
  filesUnder,
  freshLookups,
  freshService,
  openStack,
  packageResources,
  projectDir,
  redact,
  serviceContents,
  type Client,
  type RunningEmulator,
  type StepResult,
} from "./e2e-support.mts";

/** One engine path: runs its steps and returns their results; `deployed` is told each resource type it deployed. */
export type EnginePath = {
  (cli: PulumiCli, workRoot: string, deployed: (type: string) => void): Promise<StepResult[]>;
  /** Its name in the results. */
  group: string;
};

const obs = () => import("pulumi-observability") as Promise<typeof Obs>;
const TYPE = "pulumi-nodejs:dynamic/observability:";
const random = () => Math.random().toString(36).slice(2, 10);

/** What a path's body gets: its steps, the service, and a way to open stacks that are cleaned up afterwards. */
interface PathContext {
  cli: PulumiCli;
  steps: Steps;
  em: RunningEmulator;
  client: Client;
  workDir: string;
  stateDir: string;
  stack(
    name: string,
    program: InlineProgram,
    options?: { credentials?: boolean; workDir?: string },
  ): Promise<EngineStack>;
  /** Output options that stream to ours and keep a copy in `output`. */
  out: { onOutput: (s: string) => void };
  output: string[];
}

/**
 * An engine path named `group`: a fresh emulator, stacks under `<workRoot>/<slug>`; afterwards every stack it
 * opened is destroyed (a step of its own) and the service must be empty again.
 */
function enginePath(group: string, slug: string, body: (ctx: PathContext) => Promise<void>): EnginePath {
  const run = async (cli: PulumiCli, workRoot: string, deployed: (type: string) => void) => {
    const steps = new Steps(group);
    const service = await freshService();
    const { em, client } = service;
    const baseline = await serviceContents(client, em.orgId);
    const workDir = projectDir(
      path.join(workRoot, slug),
      "engine-paths",
      "Small programs for the engine's paths.",
    );
    const stateDir = path.join(workRoot, slug, "state");
    const opened: EngineStack[] = [];
    const output: string[] = [];
    const ctx: PathContext = {
      cli,
      steps,
      em,
      client,
      workDir,
      stateDir,
      output,
      out: {
        onOutput: (s) => {
          output.push(s);
          process.stdout.write(s);
        },
      },
      stack: async (name, program, options = {}) => {
        const stack = await openStack({
          cli,
          workDir: options.workDir ?? workDir,
          stateDir,
          stackName: name,
          program: freshLookups(program),
          em,
          credentials: options.credentials,
        });
        opened.push(stack);
        return stack;
      },
    };
    try {
      await body(ctx);
    } catch (err) {
      steps.results.push({ group, step: "setup", ok: false, ms: 0, detail: (err as Error).message });
    } finally {
      await steps.run("clean up: destroy, after which the emulator is empty", async () => {
        for (const stack of opened) {
          const { resources } = await exportState(stack);
          for (const r of packageResources(resources)) deployed(r.type);
          if (resources.length > 0) await stack.stack.destroy({ ...ctx.out });
          await stack.workspace.removeStack(stack.name);
        }
        await assertServiceEmpty(client, em.orgId, baseline);
      });
      await service.close();
    }
    return steps.results;
  };
  return Object.assign(run, { group });
}

/** The URN of this package's resource `name` in `stack`'s state. */
async function urnOf(stack: EngineStack, name: string): Promise<string> {
  const found = (await exportState(stack)).resources.find((r) => r.urn.endsWith(`::${name}`));
  assert(found, `no resource ${name} in the state of ${stack.name}`);
  return found.urn;
}

/** A value of `pulumi stack export --show-secrets`: a secret is `{<signature>, plaintext: <its JSON>}`. */
function revealed(v: unknown): unknown {
  const secret = v as { plaintext?: string } | undefined;
  return typeof secret?.plaintext === "string" ? JSON.parse(secret.plaintext) : v;
}

/** The CommandError's text of a failed operation: what the CLI printed. */
function said(err: Error): string {
  return err.message;
}

const refreshAndSecrets = enginePath("refresh after out-of-band changes", "refresh", async (ctx) => {
  const { client, steps } = ctx;
  const slackUrl = `https://hooks.slack.com/services/T0E2E/B0E2E/SLACK-SECRET-${random()}`;
  const webhookUrl = `https://hooks.example.com/WEBHOOK-SECRET-${random()}`;
  const stack = await ctx.stack("refresh", async () => {
    const { Notifier, Monitor } = await obs();
    // The credential as a plain string, as a user may write it: the class makes all of `properties` secret.
    const notifier = new Notifier("alerts", { name: "alerts", properties: { slack: { slackUrl } } });
    const monitor = new Monitor("errors", {
      name: "errors",
      type: "Threshold",
      operator: "Above",
      threshold: 10,
      aplQuery: "['app-logs'] | where level == \"error\" | summarize count() by bin(_time, 1m)",
      notifierIds: [notifier.id],
    });
    const doomed = new Monitor("deleted-by-hand", {
      name: "deleted by hand",
      type: "MatchEvent",
      aplQuery: "['logs']",
    });
    return { notifierId: notifier.id, monitorId: monitor.id, doomedId: doomed.id };
  });
  let ids: Record<string, unknown> = {};
  await steps.sequence([
    [
      "up",
      async () => {
        await stack.stack.up(ctx.out);
        ids = await stack.outputs();
      },
    ],
    [
      "refresh after, out of band, the notifier is switched to a webhook, a monitor edited and another deleted",
      async () => {
        await client.monitors.delete(String(ids.doomedId));
        await client.notifiers.update(String(ids.notifierId), {
          name: "alerts",
          properties: { webhook: { url: webhookUrl } },
        });
        const monitor = await client.monitors.get(String(ids.monitorId));
        await client.monitors.update(monitor.id, { ...monitor, threshold: 99 });
        const refresh = await stack.stack.refresh(ctx.out);
        const changes = refresh.summary.resourceChanges ?? {};
        assert(changes.update === 2 && changes.delete === 1, `refresh: ${JSON.stringify(changes)}`);
        // The deleted monitor's Read returned no id, and the engine dropped it from the state.
        const { resources } = await exportState(stack);
        assert(
          !resources.some((r) => r.urn.endsWith("::deleted-by-hand")),
          "the deleted monitor is still in state",
        );
      },
    ],
    [
      "the refreshed state holds the webhook, encrypted",
      async () => {
        const { resources } = await exportState(stack);
        const notifier = resources.find((r) => r.urn.endsWith("::alerts"))!;
        for (const side of ["inputs", "outputs"] as const) {
          const props = notifier[side]?.properties as Record<string, unknown> | undefined;
          assert(
            props && "ciphertext" in props,
            `the notifier's ${side}.properties is not encrypted in state`,
          );
        }
        const shown = await exportState(stack, true);
        const decrypted = shown.resources.find((r) => r.urn.endsWith("::alerts"))!;
        assert(
          JSON.stringify(revealed(decrypted.inputs?.properties)) ===
            JSON.stringify({ webhook: { url: webhookUrl } }),
          "the refreshed inputs do not hold the webhook the service now has",
        );
        const monitor = shown.resources.find((r) => r.urn.endsWith("::errors"))!;
        assert(
          monitor.outputs?.threshold === 99,
          `the refreshed monitor's threshold is ${monitor.outputs?.threshold}`,
        );
      },
    ],
    [
      "no credential in plaintext: the state file, every checkpoint in its history, the config, the CLI's output",
      async () => {
        const files = filesUnder(ctx.stateDir);
        const history = files.filter(
          (f) => f.includes(`${path.sep}history${path.sep}`) && f.endsWith(".checkpoint.json"),
        );
        assert(
          history.length >= 2,
          `expected the checkpoints of up and refresh in the history, found ${history.length}`,
        );
        // The scan does read the state: it finds what the state holds in plaintext, such as the notifier's type.
        assert(
          filesContaining(ctx.stateDir, [`${TYPE}Notifier`]).length > 0,
          "the scan found nothing at all",
        );
        const needles = [slackUrl, webhookUrl, ctx.em.token];
        const leaks = [...filesContaining(ctx.stateDir, needles), ...filesContaining(ctx.workDir, needles)];
        assert(leaks.length === 0, leaks.join("; "));
        const printed = ctx.output.join("");
        for (const needle of needles) assert(!printed.includes(needle), `the CLI printed ${redact(needle)}`);
      },
    ],
    [
      "up puts the declared Slack channel and threshold back, and creates the deleted monitor again",
      async () => {
        const up = await stack.stack.up(ctx.out);
        const changes = up.summary.resourceChanges ?? {};
        assert(changes.update === 2 && changes.create === 1, `up: ${JSON.stringify(changes)}`);
        const notifier = await client.notifiers.get(String(ids.notifierId));
        assert(
          JSON.stringify(notifier.properties) === JSON.stringify({ slack: { slackUrl } }),
          "the notifier is not back on Slack",
        );
      },
    ],
  ]);
});

const replace = enginePath("up --replace", "replace", async (ctx) => {
  const { client, steps, em } = ctx;
  const original = String((await client.orgs.get(em.orgId)).name);
  const existing = await client.monitors.create({
    name: "made by hand",
    type: "MatchEvent",
    aplQuery: "['logs']",
  });
  const stack = await ctx.stack("replace", async () => {
    const { Role, OrganizationName, Monitor } = await obs();
    const role = new Role("ops", { name: "ops", description: "operators" });
    const org = new OrganizationName("org", { organizationId: em.orgId, name: "Replaced Org" });
    const monitor = new Monitor("adopted", {
      adopt: existing.id,
      name: "adopted by Pulumi",
      type: "MatchEvent",
      aplQuery: "['app-logs'] | where level == \"fatal\"",
    });
    return { roleId: role.id, previousName: org.previousName, monitorId: monitor.id };
  });
  let before: Record<string, unknown> = {};
  await steps.sequence([
    [
      "up",
      async () => {
        await stack.stack.up(ctx.out);
        before = await stack.outputs();
        assert(
          before.monitorId === existing.id,
          `the monitor adopted ${String(before.monitorId)}, not ${existing.id}`,
        );
      },
    ],
    [
      "up --replace of the Role, the OrganizationName and the adopted Monitor",
      async () => {
        const urns = await Promise.all(["ops", "org", "adopted"].map((n) => urnOf(stack, n)));
        const up = await stack.stack.up({ ...ctx.out, replace: urns });
        assert(
          up.summary.resourceChanges?.replace === 3,
          `up --replace: ${JSON.stringify(up.summary.resourceChanges)}`,
        );
      },
    ],
    [
      "Role: a new role holds the name, the old one is gone",
      async () => {
        const after = await stack.outputs();
        assert(after.roleId !== before.roleId, "the role kept its id");
        const named = (await client.roles.list()).filter((r) => r.name === "ops").map((r) => r.id);
        assert(
          JSON.stringify(named) === JSON.stringify([after.roleId]),
          `roles named ops: ${named.join(", ")}`,
        );
      },
    ],
    [
      "OrganizationName: the service holds the declared name, and the original survives in previousName",
      async () => {
        const after = await stack.outputs();
        assert(
          (await client.orgs.get(em.orgId)).name === "Replaced Org",
          "the organization lost its declared name",
        );
        assert(
          after.previousName === original,
          `previousName is ${String(after.previousName)}, not ${original}`,
        );
      },
    ],
    [
      "the adopted Monitor: the same object, still there, as declared",
      async () => {
        const after = await stack.outputs();
        assert(
          after.monitorId === existing.id,
          `the replacement holds ${String(after.monitorId)}, not ${existing.id}`,
        );
        const monitor = await client.monitors.get(existing.id);
        assert(monitor.name === "adopted by Pulumi", `the monitor is named ${String(monitor.name)}`);
      },
    ],
  ]);
});

/** Each kind's `get` of an id that does not exist. */
const MISSING: [keyof typeof Obs & string, string][] = [
  ["Monitor", "mon_missing"],
  ["Annotation", "ann_missing"],
  ["Notifier", "notify_missing"],
  ["Role", "role_missing"],
  ["StarredQuery", "sq_missing"],
  ["OrganizationName", "org_missing"],
  ["Dataset", "missing-dataset"],
  ["ApiToken", "tok_missing"],
  ["User", "usr_missing"],
  ["VirtualField", "vfield_missing"],
  ["View", "missing-view"],
  ["Group", "grp_missing"],
  ["Dashboard", "missing-dashboard"],
];

const getMissing = enginePath("Resource.get of a missing id", "get", async (ctx) => {
  for (const [kind, missingId] of MISSING) {
    await ctx.steps.run(`${kind}.get fails naming the kind and the id`, async () => {
      const stack = await ctx.stack(`get-${kind}`, async () => {
        const cls = (await obs())[kind] as unknown as { get(name: string, id: string): unknown };
        cls.get(`missing-${kind}`, missingId);
      });
      const err = await failureOf(stack.stack.preview(ctx.out), `preview of ${kind}.get(${missingId})`);
      const expected = `observability ${kind} get failed: no object with id ${missingId} exists`;
      assert(said(err).includes(expected), `the failure does not say "${expected}":\n${said(err)}`);
    });
  }
});

const importPath = enginePath("import", "import", async (ctx) => {
  const { client, steps } = ctx;
  const existing = await client.monitors.create({
    name: "to import",
    type: "MatchEvent",
    aplQuery: "['logs']",
  });
  await steps.run(
    "the `import` resource option fails pointing to adopt, and leaves nothing in state",
    async () => {
      const stack = await ctx.stack("import-option", async () => {
        const { Monitor } = await obs();
        new Monitor(
          "imported",
          { name: "to import", type: "MatchEvent", aplQuery: "['logs']" },
          { import: existing.id },
        );
      });
      const err = await failureOf(stack.stack.up(ctx.out), "up with the import option");
      assert(
        said(err).includes(`adopt: "${existing.id}"`),
        `the failure does not point to adopt:\n${said(err)}`,
      );
      assert(
        packageResources((await exportState(stack)).resources).length === 0,
        "the state holds the import",
      );
    },
  );

  // `pulumi import` runs no program, so it cannot be handed one in process as the other commands are: the CLI
  // starts the project's language host, which the CLI built here from Go modules does not have.
  const name = "`pulumi import` fails and leaves nothing in state";
  const languageHost = findOnPath("pulumi-language-nodejs", {
    PATH: [ctx.cli.binDir, process.env.PATH].join(path.delimiter),
  });
  if (!languageHost) {
    steps.skip(
      name,
      `it needs the Node.js language host: no pulumi-language-nodejs beside ${ctx.cli.pulumi} or on PATH`,
    );
  } else {
    await steps.run(name, async () => {
      const stack = await ctx.stack("import", async () => undefined);
      await stack.stack.up(ctx.out);
      const err = await failureOf(
        stack.run(["import", `${TYPE}Monitor`, "imported", existing.id, "--yes", "--generate-code=false"]),
        "pulumi import",
      );
      console.log(`(as expected: ${said(err)})`);
      assert(
        packageResources((await exportState(stack)).resources).length === 0,
        "the state holds the import",
      );
    });
  }
  await client.monitors.delete(existing.id);
});

const failedCreate = enginePath("a create that fails", "failed-create", async (ctx) => {
  const { client, steps } = ctx;
  // Role names are unique: a role of this name already exists, so the create gets a 409.
  const taken = await client.roles.create({ name: "taken" });
  const stack = await ctx.stack("failed-create", async () => {
    const { Role } = await obs();
    new Role("taken", { name: "taken", description: "declared in Pulumi" });
  });
  await steps.sequence([
    [
      "up fails with the service's answer, and the state holds nothing of it",
      async () => {
        const err = await failureOf(stack.stack.up(ctx.out), "up of a role whose name is taken");
        assert(
          /Role create failed: .*409/.test(said(err)),
          `the failure does not give the 409:\n${said(err)}`,
        );
        const { resources, pending } = await exportState(stack);
        assert(packageResources(resources).length === 0, "the state holds the role");
        assert(pending.length === 0, `the state holds pending operations: ${JSON.stringify(pending)}`);
        const role = await client.roles.get(taken.id);
        assert(
          role.description === undefined || role.description !== "declared in Pulumi",
          "the existing role was changed",
        );
      },
    ],
  ]);
  await client.roles.delete(taken.id);
});

const protect = enginePath("protect", "protect", async (ctx) => {
  const { client, steps } = ctx;
  const stack = await ctx.stack("protect", async () => {
    const { Monitor } = await obs();
    const m = new Monitor(
      "kept",
      { name: "kept", type: "MatchEvent", aplQuery: "['logs']" },
      { protect: true },
    );
    return { monitorId: m.id };
  });
  let monitorId = "";
  await steps.sequence([
    [
      "up",
      async () =>
        void (await stack.stack.up(ctx.out), (monitorId = String((await stack.outputs()).monitorId))),
    ],
    [
      "destroy is refused, and the monitor stays",
      async () => {
        const err = await failureOf(stack.stack.destroy(ctx.out), "destroy of a protected resource");
        assert(
          said(err).includes("protected"),
          `the failure does not say the resource is protected:\n${said(err)}`,
        );
        await client.monitors.get(monitorId);
      },
    ],
    [
      "after `pulumi state unprotect`, destroy deletes it",
      async () => {
        await stack.run(["state", "unprotect", await urnOf(stack, "kept"), "--yes"]);
        await stack.stack.destroy(ctx.out);
        await failureOf(client.monitors.get(monitorId), "get of the destroyed monitor");
      },
    ],
  ]);
});

const target = enginePath("up --target", "target", async (ctx) => {
  const { client, steps } = ctx;
  let threshold = 10;
  const stack = await ctx.stack("target", async () => {
    const { Monitor } = await obs();
    const make = (name: string) =>
      new Monitor(name, {
        name,
        type: "Threshold",
        operator: "Above",
        threshold,
        aplQuery: "['http-logs'] | summarize count() by bin(_time, 1m)",
      });
    return { a: make("a").id, b: make("b").id };
  });
  let ids: Record<string, unknown> = {};
  await steps.sequence([
    ["up", async () => void (await stack.stack.up(ctx.out), (ids = await stack.outputs()))],
    [
      "with both changed, up --target of one updates only that one",
      async () => {
        threshold = 20;
        const up = await stack.stack.up({ ...ctx.out, target: [await urnOf(stack, "a")] });
        assert(
          up.summary.resourceChanges?.update === 1,
          `up --target: ${JSON.stringify(up.summary.resourceChanges)}`,
        );
        const [a, b] = await Promise.all([
          client.monitors.get(String(ids.a)),
          client.monitors.get(String(ids.b)),
        ]);
        assert(a.threshold === 20 && b.threshold === 10, `thresholds a=${a.threshold} b=${b.threshold}`);
      },
    ],
    [
      "a preview then plans exactly the other one",
      async () => {
        const preview = await stack.stack.preview(ctx.out);
        assert(preview.changeSummary.update === 1, `preview: ${JSON.stringify(preview.changeSummary)}`);
      },
    ],
  ]);
});

const forkPreview = enginePath(
  "a preview with no credentials (a fork's pull request)",
  "fork",
  async (ctx) => {
    const { steps } = ctx;
    const example = "monitors-to-notifiers";
    const workDir = path.join(path.dirname(ctx.workDir), example);
    cpSync(path.join(REPO_ROOT, "examples", example), workDir, {
      recursive: true,
      filter: (src) => !/Pulumi\.[^/]+\.yaml$|node_modules/.test(src),
    });
    const program = programFromFile(path.join(workDir, "index.ts"));
    const placeholders = {
      slackWebhookUrl: "https://hooks.slack.com/services/T00000000/B00000000/fork-placeholder",
      pagerdutyRoutingKey: "fork-routing-key-0000000000000000",
      incidentWebhookUrl: "https://incident-bot.example.com/hooks/fork",
      incidentWebhookToken: "fork-bot-token",
    };
    await steps.run(
      "preview of a new stack, no token in config or environment, plans every create",
      async () => {
        const stack = await ctx.stack("fork-new", program, { credentials: false, workDir });
        await stack.setSecrets(placeholders);
        const preview = await stack.stack.preview({ ...ctx.out, diff: true });
        assert(
          (preview.changeSummary.create ?? 0) >= 14,
          `preview: ${JSON.stringify(preview.changeSummary)}`,
        );
      },
    );
    await steps.run("preview of a deployed stack whose token is removed plans the change", async () => {
      const stack = await ctx.stack("fork-deployed", program, { workDir });
      await stack.setSecrets(placeholders);
      await stack.stack.up(ctx.out);
      await stack.run(["config", "rm", "observability:token"]);
      await stack.setConfig({ release: "fork-pr-release" });
      const preview = await stack.stack.preview({ ...ctx.out, diff: true });
      assert(preview.changeSummary.update === 1, `preview: ${JSON.stringify(preview.changeSummary)}`);
      // Cleaning up needs the token again.
      await stack.setSecrets({ "observability:token": ctx.em.token });
    });
  },
);

const lookups = enginePath("lookups by name under the real engine", "lookups", async (ctx) => {
  const { client, steps } = ctx;
  const made = await client.monitors.create({
    name: "Made by hand: 5xx",
    type: "MatchEvent",
    aplQuery: "['http-logs'] | where status >= 500",
  });
  // The program manages a dashboard that lists a monitor it does not manage, found by name.
  const program = async () => {
    const { Dashboard, getMonitorOutput } = await obs();
    const found = getMonitorOutput({ name: "Made by hand: 5xx" });
    const foundId = found.apply((m) => m.id);
    const board = new Dashboard("board", {
      uid: "lookup-board",
      dashboard: {
        name: "Found by name",
        charts: [
          {
            id: "monitors",
            type: "MonitorList",
            name: "Made elsewhere",
            selectedMonitors: [foundId],
            columns: { status: true, history: true, dataset: true, type: true, notifiers: true },
          },
        ],
        layout: [{ i: "monitors", x: 0, y: 0, w: 12, h: 4 }],
        refreshTime: 60,
        schemaVersion: 2,
        timeWindowStart: "qr-now-1h",
        timeWindowEnd: "qr-now",
      },
    });
    return { monitorId: foundId, monitorQuery: found.apply((m) => m.aplQuery), dashboardUid: board.uid };
  };
  await steps.run(
    "a preview with no credentials completes: the lookup is unknown, the dashboard a planned create",
    async () => {
      const stack = await ctx.stack("lookups-fork", program, { credentials: false });
      const preview = await stack.stack.preview({ ...ctx.out, diff: true });
      assert(preview.changeSummary.create === 2, `preview: ${JSON.stringify(preview.changeSummary)}`);
    },
  );
  await steps.run(
    "the promise form in a preview with no credentials fails, naming both places to set the token",
    async () => {
      const stack = await ctx.stack(
        "lookups-promise",
        async () => {
          const { getMonitor } = await obs();
          return { id: (await getMonitor({ name: "Made by hand: 5xx" })).id };
        },
        { credentials: false },
      );
      const err = await failureOf(stack.stack.preview(ctx.out), "preview of getMonitor without a token");
      assert(
        said(err).includes("observability:token") && said(err).includes("OBSERVABILITY_TOKEN"),
        `the failure does not name both places:\n${said(err)}`,
      );
    },
  );
  const stack = await ctx.stack("lookups", program);
  await steps.sequence([
    [
      "up: getMonitorOutput by name finds the monitor, and the dashboard lists its id",
      async () => {
        await stack.stack.up(ctx.out);
        const outputs = await stack.outputs();
        assert(
          outputs.monitorId === made.id,
          `the lookup found ${String(outputs.monitorId)}, not ${made.id}`,
        );
        assert(outputs.monitorQuery === made.aplQuery, "the lookup's aplQuery is not the monitor's");
        const board = await client.dashboards.get("lookup-board");
        const charts = board.dashboard.charts as { selectedMonitors?: string[] }[];
        assert(
          JSON.stringify(charts[0]?.selectedMonitors) === JSON.stringify([made.id]),
          `the dashboard lists ${JSON.stringify(charts[0]?.selectedMonitors)}`,
        );
      },
    ],
    [
      "preview and up expect no changes; the looked-up monitor is not in the state",
      async () => {
        await stack.stack.preview({ ...ctx.out, expectNoChanges: true });
        await stack.stack.up({ ...ctx.out, expectNoChanges: true });
        const kinds = packageResources((await exportState(stack)).resources).map((r) => r.type);
        assert(
          JSON.stringify(kinds) === JSON.stringify([`${TYPE}Dashboard`]),
          `the state holds ${kinds.join(", ")}`,
        );
      },
    ],
    [
      "a second monitor of that name: the lookup fails, naming both ids",
      async () => {
        const twin = await client.monitors.create({
          name: "Made by hand: 5xx",
          type: "MatchEvent",
          aplQuery: "['logs']",
        });
        const err = await failureOf(stack.stack.preview(ctx.out), "preview with two monitors of the name");
        await client.monitors.delete(twin.id);
        assert(
          said(err).includes(made.id) && said(err).includes(twin.id),
          `the failure does not name both ids:\n${said(err)}`,
        );
      },
    ],
  ]);
  await client.monitors.delete(made.id).catch(() => undefined);
});

/** Every engine path, in the order they run. */
export const ENGINE_PATHS: EnginePath[] = [
  refreshAndSecrets,
  replace,
  getMissing,
  importPath,
  failedCreate,
  protect,
  target,
  forkPreview,
  lookups,
];
