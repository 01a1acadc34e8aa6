/**
 * Benchmark: `pulumi up`, `refresh` and `destroy` by the real engine, this package's resources against the same
 * number of no-op dynamic resources through the same engine, side by side in one run. Cases (by name):
 * - `flagship`: examples/monitors-to-notifiers (13 resources: 2 datasets, a token, a virtual field, 3 notifiers,
 *   3 monitors wired to them, an annotation, a starred query, a dashboard) against 13 no-op resources with the
 *   same dependencies and secrets;
 * - `monitors-<n>`: n monitors against n no-op resources with the same inputs;
 * - `mixed-<n>`: n resources, in turn a monitor, a notifier (its channel a secret input), an annotation, a
 *   starred query and a dataset, against n no-op resources with the same inputs and the same secrets;
 * - `native-monitors-<n>`: n monitors through the native provider (`observability:index:Monitor`, the plugin
 *   `npm run build` writes, first on PATH), through the dynamic resources, and through a no-op native provider
 *   (bench/native-noop.mts) with the same inputs: three sides, the ratios taken against the no-op.
 * The no-op provider answers every call at once, so the ratio is what the provider and the service (the emulator,
 * in this process) add to the engine's own cost. Rounds alternate which side goes first; each run is on a fresh
 * stack against a fresh emulator. Both sides run with the same `--parallel`: by default what the CLI uses when
 * it is not given (pkg/cmd/pulumi/operations/up.go, `defaultParallel`: 4 × GOMAXPROCS, i.e. 4 × the CPUs).
 *
 *   npm run build && node_modules/.bin/node --disable-warning=MODULE_TYPELESS_PACKAGE_JSON bench/engine.mts \
 *     [rounds=3] [cases=flagship,monitors-100] [--parallel=<n>] [--ops=up,preview,refresh,destroy] [--cpu]
 *
 * e.g. `bench/engine.mts 3 monitors-1000,mixed-1000 --ops=up,refresh --cpu` for the thousand-resource cases
 * (about 35 minutes on two cores; a `pulumi up` of 1,000 resources takes 2 to 4 minutes on either side). `--cpu`
 * also prints, per operation, the CPU seconds of each process (this one: the program, the emulator and the
 * Automation API; the engine; the dynamic-provider host), sampled from /proc (Linux), the emulator's requests,
 * and the state file's size after `up`. Most of a large `up` is the engine saving the whole state after each
 * step, so its time follows the state's size (README, Benchmarks).
 *
 * The CLI is a `pulumi` on PATH, else the one built here from Go modules (scripts/pulumi-cli.mts).
 */
import {
  cpSync,
  existsSync,
  writeFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  statSync,
} from "node:fs";
import * as os from "node:os";
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
import { freshService, openStack, projectDir } from "../test/e2e/support.mts";

const positional = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const flags = process.argv.slice(2).filter((a) => a.startsWith("--"));
const rounds = Number(positional[0] ?? 3);
const caseNames = (positional[1] ?? "flagship,monitors-100").split(",").filter(Boolean);
const parallelFlag = flags.find((f) => f.startsWith("--parallel="));
/** What the pulumi CLI uses when --parallel is not given: 4 × GOMAXPROCS (Go's default: the CPUs it may use). */
const parallel = parallelFlag ? Number(parallelFlag.split("=")[1]) : 4 * os.availableParallelism();
const sampleCpu = flags.includes("--cpu");
const opsFlag = flags.find((f) => f.startsWith("--ops="));
for (const f of flags) {
  if (f !== "--cpu" && !/^--(parallel|ops)=/.test(f)) throw new Error(`unknown option ${f}`);
}
if (!(Number.isInteger(rounds) && rounds > 0))
  throw new Error(`rounds must be a positive integer, not ${rounds}`);
if (!(Number.isInteger(parallel) && parallel > 0)) throw new Error(`--parallel must be a positive integer`);

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
  constructor(
    name: string,
    props: Record<string, pulumi.Input<unknown>>,
    opts?: pulumi.CustomResourceOptions,
  ) {
    super(noop, name, props, opts, "bench", "NoOp");
  }
}

/**
 * The flagship's shape in no-op resources, with its dependencies and secrets: 2 datasets, a token and a virtual
 * field on the first, 3 notifiers (secret channels), 3 monitors each wired to two of them, an annotation, a
 * starred query and a dashboard listing the monitors: 13 resources.
 */
const flagshipTwin: InlineProgram = async () => {
  const secretly = { additionalSecretOutputs: ["properties"] };
  const [httpLogs, appLogs] = ["http-logs", "app-logs"].map(
    (name) => new NoOp(name, { name, description: name, retentionDays: 30 }),
  );
  const onHttpLogs = { dependsOn: [httpLogs] };
  const token = new NoOp(
    "checkout-ingest",
    { name: "ingest", capabilities: { ingest: ["create"] } },
    onHttpLogs,
  );
  const field = new NoOp("duration-ms", {
    dataset: httpLogs.id,
    name: "duration_ms",
    expression: "duration",
  });
  const notifiers = ["slack", "pagerduty", "incident-bot"].map(
    (n) => new NoOp(n, { name: n, properties: pulumi.secret({ url: `https://example.com/${n}` }) }, secretly),
  );
  const monitors = ["checkout-5xx", "payment-panics", "latency-anomaly"].map(
    (name, i) =>
      new NoOp(
        name,
        {
          name,
          aplQuery: `['http-logs'] | where status >= 500 | summarize count() by bin(_time, 1m)`,
          threshold: 50,
          notifierIds: [notifiers[i].id, notifiers[(i + 1) % 3].id],
          ...(i === 2 ? { field: field.id } : {}),
        },
        { dependsOn: [i === 1 ? appLogs : httpLogs] },
      ),
  );
  new NoOp(
    "deploy",
    { datasets: ["http-logs", "app-logs"], type: "deploy" },
    { dependsOn: [httpLogs, appLogs] },
  );
  new NoOp("oncall-query", { kind: "apl", name: "On-call", query: { apl: "['http-logs']" } }, onHttpLogs);
  new NoOp("checkout-health", { uid: "checkout-health", monitors: monitors.map((m) => m.id) });
  return { token: pulumi.secret(token.id) };
};

type Kind = "Monitor" | "Notifier" | "Annotation" | "StarredQuery" | "Dataset";

/** The i-th resource of a case: its kind and inputs; both sides declare exactly these. */
function declared(kind: Kind, i: number): Record<string, unknown> {
  switch (kind) {
    case "Monitor":
      return {
        name: `monitor ${i}`,
        type: "Threshold",
        operator: "Above",
        threshold: i,
        aplQuery: `['http-logs'] | where status >= 500 | summarize count() by bin(_time, 1m)`,
      };
    case "Notifier":
      return {
        name: `notifier ${i}`,
        properties: { slack: { slackUrl: `https://hooks.slack.test/services/T000/B000/${i}` } },
      };
    case "Annotation":
      return { datasets: ["http-logs"], type: "deploy", title: `deploy ${i}` };
    case "StarredQuery":
      return { kind: "apl", name: `query ${i}`, who: "team", query: { apl: "['http-logs']" }, metadata: {} };
    case "Dataset":
      return { name: `bench-${i}`, description: `dataset ${i}` };
  }
}

const MIXED: Kind[] = ["Monitor", "Notifier", "Annotation", "StarredQuery", "Dataset"];

/** What the programs import: the package installed into the run's node_modules (see installPackage). */
let packageEntry = "pulumi-observability";

/**
 * Installs the package into `root`'s node_modules as npm would: package.json and dist copied (a symlink to this
 * repository makes the module a local one, whose shims @pulumi/pulumi then serializes by value, 2.6 KB instead
 * of a 291-byte require of the kind's shim module), its runtime dependencies linked to this repository's, so that
 * the programs and the package share one @pulumi/pulumi. `--linked` measures the symlinked package instead.
 */
function installPackage(root: string): string {
  const modules = path.join(root, "node_modules");
  const dir = path.join(modules, "pulumi-observability");
  mkdirSync(dir, { recursive: true });
  cpSync(path.join(REPO_ROOT, "package.json"), path.join(dir, "package.json"));
  cpSync(path.join(REPO_ROOT, "dist"), path.join(dir, "dist"), { recursive: true });
  for (const dep of ["@pulumi", "undici", "zod"])
    symlinkSync(path.join(REPO_ROOT, "node_modules", dep), path.join(modules, dep), "dir");
  return path.join(dir, "dist", "provider", "index.js");
}

/** This package's program and its no-op twin: `count` resources, the i-th of kind `kinds[i % kinds.length]`. */
function programs(count: number, kinds: Kind[]): { real: InlineProgram; noop: InlineProgram } {
  const each = (fn: (kind: Kind, name: string, props: Record<string, unknown>) => void) => {
    for (let i = 0; i < count; i++) {
      const kind = kinds[i % kinds.length];
      fn(kind, `${kind.toLowerCase()}-${i}`, declared(kind, i));
    }
  };
  return {
    real: async () => {
      const obs = (await import(packageEntry)) as typeof Obs;
      each((kind, name, props) => {
        const Resource = obs[kind] as unknown as new (name: string, args: unknown) => unknown;
        new Resource(name, props);
      });
    },
    // The same secrets as a Notifier: its properties a secret input and a secret output.
    noop: async () =>
      each((kind, name, props) =>
        kind === "Notifier"
          ? new NoOp(
              name,
              { ...props, properties: pulumi.secret(props.properties) },
              { additionalSecretOutputs: ["properties"] },
            )
          : new NoOp(name, props),
      ),
  };
}

type Op = "up" | "preview" | "refresh" | "destroy";
/**
 * The operations timed, in this order; without destroy, the stack is removed with its resources in it. A preview
 * after the up is the no-change preview of a deployed stack.
 */
const OPS = (opsFlag?.split("=")[1] ?? "up,refresh,destroy").split(",") as Op[];
if (OPS[0] !== "up" || OPS.some((op) => !["up", "preview", "refresh", "destroy"].includes(op))) {
  throw new Error(`--ops must start with up and name only up, preview, refresh and destroy`);
}

/** A resource of a native provider, by its type token. */
class NativeResource extends pulumi.CustomResource {
  constructor(type: string, name: string, props: pulumi.Inputs) {
    super(type, name, props);
  }
}

/** n monitors through the native provider, and the same inputs through the no-op native provider. */
function nativePrograms(count: number): { native: InlineProgram; noop: InlineProgram } {
  const each = (type: string) => async () => {
    for (let i = 0; i < count; i++) new NativeResource(type, `monitor-${i}`, declared("Monitor", i));
  };
  return { native: each("observability:index:Monitor"), noop: each("benchnoop:index:Monitor") };
}

/**
 * Puts the native provider's launcher (dist/plugin) and a launcher of the no-op native provider first on PATH,
 * which the CLI's environment keeps (lib.mts pulumiEnv), so the engine finds both as plugins on PATH.
 */
function nativePluginsOnPath(root: string): void {
  const plugin = path.join(REPO_ROOT, "dist", "plugin");
  if (!existsSync(path.join(plugin, "pulumi-resource-observability")))
    throw new Error(`${plugin}/pulumi-resource-observability is missing: run npm run build`);
  const noopDir = path.join(root, "benchnoop-plugin");
  mkdirSync(noopDir, { recursive: true });
  writeFileSync(
    path.join(noopDir, "pulumi-resource-benchnoop"),
    `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} --disable-warning=ExperimentalWarning ` +
      `${JSON.stringify(path.join(REPO_ROOT, "bench", "native-noop.mts"))} "$@"\n`,
    { mode: 0o755 },
  );
  process.env.PATH = [plugin, noopDir, process.env.PATH ?? ""].join(path.delimiter);
}

/** CPU seconds by process over one operation; the descendants' are sampled from /proc while it runs. */
interface Cpu {
  self: number;
  engine: number;
  host: number;
  other: number;
}

/** What one operation took. */
interface Measure {
  seconds: number;
  requests: number;
  cpu?: Cpu;
}

const CLOCK_TICKS = 100; // USER_HZ on Linux

/** Samples the CPU time of this process's descendants every 100 ms until stopped. */
function cpuSampler(): { stop(): Omit<Cpu, "self"> } {
  const seen = new Map<number, { cls: keyof Omit<Cpu, "self">; ticks: number }>();
  const sample = () => {
    const parents = new Map<number, number>();
    const stats = new Map<number, string>();
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        parents.set(Number(entry), Number(fields[1]));
        stats.set(Number(entry), stat);
      } catch {
        // gone meanwhile
      }
    }
    const ours = (pid: number): boolean => {
      for (let p = parents.get(pid); p !== undefined && p > 1; p = parents.get(p))
        if (p === process.pid) return true;
      return false;
    };
    for (const [pid, stat] of stats) {
      if (!ours(pid)) continue;
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime
      let cls = seen.get(pid)?.cls;
      if (!cls) {
        let cmdline = "";
        try {
          cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
        } catch {
          continue;
        }
        const argv0 = path.basename(cmdline.split("\0")[0]);
        cls = cmdline.includes("dynamic-provider") ? "host" : argv0 === "pulumi" ? "engine" : "other";
      }
      seen.set(pid, { cls, ticks });
    }
  };
  const timer = setInterval(sample, 100);
  sample();
  return {
    stop() {
      clearInterval(timer);
      sample();
      const cpu = { engine: 0, host: 0, other: 0 };
      for (const { cls, ticks } of seen.values()) cpu[cls] += ticks / CLOCK_TICKS;
      return cpu;
    },
  };
}

/** The state file's size in bytes (the file backend's `<stack>.json`), or 0. */
function stateBytes(stateDir: string, stackName: string): number {
  const stacks = path.join(stateDir, ".pulumi", "stacks");
  if (!existsSync(stacks)) return 0;
  for (const project of readdirSync(stacks)) {
    const file = path.join(stacks, project, `${stackName}.json`);
    if (existsSync(file)) return statSync(file).size;
  }
  return 0;
}

/** Times up, refresh and destroy of `program` on a fresh stack against a fresh emulator. */
async function timeOnce(
  cli: PulumiCli,
  { dir: workDir, program }: Side,
  stackName: string,
  datasets: string[],
) {
  const service = await freshService();
  try {
    const stateDir = path.join(workDir, "..", `${stackName}-state`);
    const stack = await openStack({ cli, workDir, stateDir, stackName, program, em: service.em });
    await stack.setSecrets({
      slackWebhookUrl: "https://hooks.slack.com/services/T00000000/B00000000/bench",
      pagerdutyRoutingKey: "bench-routing-key-0000000000000000",
      incidentWebhookUrl: "https://incident-bot.example.com/hooks/bench",
      incidentWebhookToken: "bench-bot-token",
    });
    for (const name of datasets) await service.client.datasets.create({ name });
    const measures = {} as Record<Op, Measure>;
    let state = 0;
    for (const op of OPS) {
      const requests0 = service.em.stats.requests;
      const sampler = sampleCpu ? cpuSampler() : undefined;
      const self0 = process.cpuUsage();
      const t0 = performance.now();
      if (op === "up") await stack.stack.up({ parallel });
      else if (op === "preview") await stack.stack.preview({ parallel });
      else if (op === "refresh") await stack.stack.refresh({ parallel });
      else await stack.stack.destroy({ parallel });
      const seconds = (performance.now() - t0) / 1000;
      const self = process.cpuUsage(self0);
      const others = sampler?.stop();
      measures[op] = {
        seconds,
        requests: service.em.stats.requests - requests0,
        cpu: others && { self: (self.user + self.system) / 1e6, ...others },
      };
      if (op === "up") state = stateBytes(stateDir, stackName);
    }
    await stack.workspace.removeStack(stackName, { force: !OPS.includes("destroy") });
    rmSync(stateDir, { recursive: true, force: true });
    return { measures, state };
  } finally {
    await service.close();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

interface Side {
  dir: string;
  program: InlineProgram;
}

interface Case {
  name: string;
  /** How many resources the stack holds (for the state's bytes per resource). */
  count: number;
  /** The sides measured, by label; the last one is the baseline every ratio is taken against. */
  sides: [string, Side][];
  /** Datasets the service holds before the stack is applied. */
  datasets: string[];
}

function makeCases(root: string): Case[] {
  const benchDir = projectDir(root, "bench-engine", "Engine benchmark programs.");
  return caseNames.map((name): Case => {
    if (name === "flagship") {
      const flagshipDir = path.join(root, "monitors-to-notifiers");
      cpSync(path.join(REPO_ROOT, "examples", "monitors-to-notifiers"), flagshipDir, {
        recursive: true,
        filter: (src) => !/Pulumi\.[^/]+\.yaml$|node_modules/.test(src),
      });
      return {
        name: "flagship (13)",
        count: 13,
        sides: [
          ["package", { dir: flagshipDir, program: programFromFile(path.join(flagshipDir, "index.ts")) }],
          ["no-op", { dir: benchDir, program: flagshipTwin }],
        ],
        datasets: [],
      };
    }
    const native = /^native-monitors-(\d+)$/.exec(name);
    if (native) {
      const count = Number(native[1]);
      nativePluginsOnPath(root);
      const n = nativePrograms(count);
      return {
        name: `native monitors (${count})`,
        count,
        sides: [
          ["native", { dir: benchDir, program: n.native }],
          ["dynamic", { dir: benchDir, program: programs(count, ["Monitor"]).real }],
          ["native no-op", { dir: benchDir, program: n.noop }],
        ],
        datasets: [],
      };
    }
    const m = /^(monitors|mixed)-(\d+)$/.exec(name);
    if (!m) throw new Error(`unknown case ${name}: flagship, monitors-<n>, mixed-<n> or native-monitors-<n>`);
    const count = Number(m[2]);
    const p = programs(count, m[1] === "monitors" ? ["Monitor"] : MIXED);
    return {
      name: `${m[1]} (${count})`,
      count,
      sides: [
        ["package", { dir: benchDir, program: p.real }],
        ["no-op", { dir: benchDir, program: p.noop }],
      ],
      // The annotations are on it.
      datasets: m[1] === "mixed" ? ["http-logs"] : [],
    };
  });
}

async function main(): Promise<void> {
  const found = await findPulumiCli({
    build: true,
    onBuildStart: (v) => console.log(`building the Pulumi CLI ${v} from Go modules (minutes, once)`),
  });
  if (!found.cli) throw new Error(`no Pulumi CLI: ${found.reason}`);
  const cli = found.cli;
  linkPackageIntoNodeModules(REPO_ROOT);
  mkdirSync(path.join(REPO_ROOT, ".demo"), { recursive: true });
  const root = mkdtempSync(path.join(REPO_ROOT, ".demo", "bench-engine-"));
  if (!flags.includes("--linked")) packageEntry = installPackage(root);
  try {
    const cases = makeCases(root);
    console.log(
      `Pulumi CLI ${cli.version} (${cli.source}); --parallel ${parallel} on both sides; ${rounds} rounds, ` +
        `medians in seconds\n`,
    );
    console.log("case                      op        side            seconds   ratio to the last side");
    const profiles: string[] = [];
    const stateLines: string[] = [];
    for (const c of cases) {
      const runs = new Map(c.sides.map(([label]) => [label, [] as Record<Op, Measure>[]]));
      const states = new Map(c.sides.map(([label]) => [label, [] as number[]]));
      for (let r = 0; r < rounds; r++) {
        // Each round starts with a different side, so no side always runs on a cold or a warm machine.
        const order = c.sides.map((_, i) => c.sides[(i + r) % c.sides.length]);
        for (const [label, side] of order) {
          const stackName = `${label.replace(/\W+/g, "-")}-${r}`;
          const { measures, state } = await timeOnce(cli, side, stackName, c.datasets);
          runs.get(label)!.push(measures);
          states.get(label)!.push(state);
        }
      }
      const baseline = c.sides[c.sides.length - 1][0];
      for (const op of OPS) {
        const base = median(runs.get(baseline)!.map((t) => t[op].seconds));
        for (const [label] of c.sides) {
          const secs = median(runs.get(label)!.map((t) => t[op].seconds));
          const ratio = label === baseline ? "" : `${(secs / base).toFixed(2)}×`;
          console.log(
            `${c.name.padEnd(26)}${op.padEnd(10)}${label.padEnd(14)}${secs.toFixed(2).padStart(9)}${ratio.padStart(9)}`,
          );
        }
        if (c.sides.length > 2) {
          // The subject against every other side, not only the baseline.
          const subject = c.sides[0][0];
          const mine = median(runs.get(subject)!.map((t) => t[op].seconds));
          for (const [label] of c.sides.slice(1, -1)) {
            const theirs = median(runs.get(label)!.map((t) => t[op].seconds));
            console.log(
              `${c.name.padEnd(26)}${op.padEnd(10)}${`${subject} / ${label}`.padEnd(23)}${`${(mine / theirs).toFixed(2)}×`.padStart(9)}`,
            );
          }
        }
        if (!sampleCpu) continue;
        for (const [label] of c.sides) {
          const of = (k: keyof Cpu) =>
            median(runs.get(label)!.map((t) => t[op].cpu![k]))
              .toFixed(1)
              .padStart(7);
          profiles.push(
            `${c.name.padEnd(26)}${op.padEnd(9)}${label.padEnd(14)}` +
              `${of("self")}${of("engine")}${of("host")}${of("other")}` +
              `${String(median(runs.get(label)!.map((t) => t[op].requests))).padStart(10)}`,
          );
        }
      }
      for (const [label] of c.sides) {
        const bytes = median(states.get(label)!);
        stateLines.push(
          `${c.name.padEnd(26)}${label.padEnd(14)}${(bytes / 1024).toFixed(0).padStart(9)} KB` +
            `${(bytes / c.count).toFixed(0).padStart(9)} bytes per resource`,
        );
      }
    }
    console.log("\nThe state file after up (medians)");
    for (const line of stateLines) console.log(line);
    if (sampleCpu) {
      console.log(
        "\nCPU seconds (medians): this process (program, emulator, Automation API), the engine, the",
      );
      console.log(
        "dynamic-provider host, other descendants (a native plugin among them); the emulator's requests",
      );
      console.log("case                      op       side             self engine   host  other  requests");
      for (const line of profiles) console.log(line);
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
