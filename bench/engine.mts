/**
 * Benchmark: `pulumi up`, `refresh` and `destroy` by the real engine, this package's resources against the same
 * number of no-op dynamic resources through the same engine, side by side in one run:
 * (a) the flagship (examples/monitors-to-notifiers: 3 notifiers, 3 monitors wired to them, an annotation and a
 *     starred query) against 8 no-op resources with the same dependencies;
 * (b) 100 monitors against 100 no-op resources.
 * The no-op provider answers every call at once, so the ratio is what the provider and the service (the emulator,
 * in this process) add to the engine's own cost. Rounds alternate which side goes first.
 *
 *   npm run build && node_modules/.bin/node --disable-warning=MODULE_TYPELESS_PACKAGE_JSON bench/engine.mts [rounds=3]
 *
 * The CLI is a `pulumi` on PATH, else the one built here from Go modules (scripts/pulumi-cli.mts).
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import type * as Obs from "pulumi-observability";
import {
  REPO_ROOT,
  findPulumiCli,
  linkPackageIntoNodeModules,
  programFromFile,
  type InlineProgram,
  type PulumiCli,
} from "../scripts/lib.mts";
import { freshService, openStack, projectDir } from "../scripts/e2e-support.mts";

const rounds = Number(process.argv[2] ?? 3);
const MONITORS = 100;

/** A dynamic provider that does nothing: creates get a counter id, everything else answers at once. */
const noop: pulumi.dynamic.ResourceProvider = {
  async create(inputs: Record<string, unknown>) {
    return { id: `noop-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`, outs: inputs };
  },
  async read(id: string, props: Record<string, unknown>) {
    return { id, props };
  },
  async diff() {
    return { changes: false };
  },
  async delete() {},
};

class NoOp extends pulumi.dynamic.Resource {
  constructor(name: string, props: Record<string, pulumi.Input<unknown>>) {
    super(noop, name, props, undefined, "bench", "NoOp");
  }
}

/** The flagship's shape in no-op resources: 3 notifiers, 3 monitors each wired to two of them, 2 more. */
const flagshipTwin: InlineProgram = async () => {
  const notifiers = ["slack", "pagerduty", "incident-bot"].map(
    (n) => new NoOp(n, { name: n, properties: { url: `https://example.com/${n}` } }),
  );
  for (const [i, name] of ["checkout-5xx", "payment-panics", "latency-anomaly"].entries()) {
    new NoOp(name, {
      name,
      aplQuery: `['http-logs'] | where status >= 500 | summarize count() by bin(_time, 1m)`,
      threshold: 50,
      notifierIds: [notifiers[i].id, notifiers[(i + 1) % 3].id],
    });
  }
  new NoOp("deploy", { datasets: ["http-logs", "app-logs"], type: "deploy", title: "Deploy" });
  new NoOp("oncall-query", { kind: "apl", name: "On-call", query: { apl: "['http-logs']" } });
};

const monitors: InlineProgram = async () => {
  const { Monitor } = (await import("pulumi-observability")) as typeof Obs;
  for (let i = 0; i < MONITORS; i++) {
    new Monitor(`m-${i}`, {
      name: `monitor ${i}`,
      type: "Threshold",
      operator: "Above",
      threshold: i,
      aplQuery: `['http-logs'] | where status >= 500 | summarize count() by bin(_time, 1m)`,
    });
  }
};

const noops: InlineProgram = async () => {
  for (let i = 0; i < MONITORS; i++) {
    new NoOp(`m-${i}`, {
      name: `monitor ${i}`,
      type: "Threshold",
      operator: "Above",
      threshold: i,
      aplQuery: `['http-logs'] | where status >= 500 | summarize count() by bin(_time, 1m)`,
    });
  }
};

type Op = "up" | "refresh" | "destroy";
const OPS: Op[] = ["up", "refresh", "destroy"];

/** Times up, refresh and destroy of `program` on a fresh stack against a fresh emulator. */
async function timeOnce(cli: PulumiCli, workDir: string, stackName: string, program: InlineProgram) {
  const service = await freshService();
  try {
    const stack = await openStack({
      cli,
      workDir,
      stateDir: path.join(workDir, "..", `${stackName}-state`),
      stackName,
      program,
      em: service.em,
    });
    await stack.setSecrets({
      slackWebhookUrl: "https://hooks.slack.com/services/T00000000/B00000000/bench",
      pagerdutyRoutingKey: "bench-routing-key-0000000000000000",
      incidentWebhookUrl: "https://incident-bot.example.com/hooks/bench",
      incidentWebhookToken: "bench-bot-token",
    });
    const seconds: Record<Op, number> = { up: 0, refresh: 0, destroy: 0 };
    for (const op of OPS) {
      const t0 = performance.now();
      if (op === "up") await stack.stack.up();
      else if (op === "refresh") await stack.stack.refresh();
      else await stack.stack.destroy();
      seconds[op] = (performance.now() - t0) / 1000;
    }
    await stack.workspace.removeStack(stackName);
    return seconds;
  } finally {
    await service.close();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const found = await findPulumiCli({
    build: true,
    onBuildStart: (v) => console.log(`building the Pulumi CLI ${v} from Go modules (minutes, once)`),
  });
  if (!found.cli) throw new Error(`no Pulumi CLI: ${found.reason}`);
  const cli = found.cli;
  linkPackageIntoNodeModules();
  mkdirSync(path.join(REPO_ROOT, ".demo"), { recursive: true });
  const root = mkdtempSync(path.join(REPO_ROOT, ".demo", "bench-engine-"));
  try {
    const flagshipDir = path.join(root, "monitors-to-notifiers");
    cpSync(path.join(REPO_ROOT, "examples", "monitors-to-notifiers"), flagshipDir, {
      recursive: true,
      filter: (src) => !/Pulumi\.[^/]+\.yaml$|node_modules/.test(src),
    });
    const benchDir = projectDir(root, "bench-engine", "Engine benchmark programs.");
    const cases = [
      {
        name: "(a) flagship, 8 resources",
        real: { dir: flagshipDir, program: programFromFile(path.join(flagshipDir, "index.ts")) },
        noop: { dir: benchDir, program: flagshipTwin },
      },
      {
        name: `(b) ${MONITORS} monitors`,
        real: { dir: benchDir, program: monitors },
        noop: { dir: benchDir, program: noops },
      },
    ];
    console.log(`Pulumi CLI ${cli.version} (${cli.source}); ${rounds} rounds, medians in seconds\n`);
    console.log("case                      op        this package   no-op    ratio");
    for (const c of cases) {
      const times = { real: [] as Record<Op, number>[], noop: [] as Record<Op, number>[] };
      for (let r = 0; r < rounds; r++) {
        const order = r % 2 === 0 ? (["real", "noop"] as const) : (["noop", "real"] as const);
        for (const side of order) {
          times[side].push(await timeOnce(cli, c[side].dir, `${side}-${r}`, c[side].program));
        }
      }
      for (const op of OPS) {
        const real = median(times.real.map((t) => t[op]));
        const base = median(times.noop.map((t) => t[op]));
        console.log(
          `${c.name.padEnd(26)}${op.padEnd(10)}${real.toFixed(2).padStart(12)}${base.toFixed(2).padStart(9)}` +
            `${(real / base).toFixed(2).padStart(8)}×`,
        );
      }
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    console.error(`bench/engine: ${err.message}`);
    process.exit(1);
  },
);
