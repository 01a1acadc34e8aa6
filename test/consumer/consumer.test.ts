/**
 * A fresh user's program, as `pulumi new typescript` makes it, against the packed package: `npm pack`, install
 * the tarball with the peer @pulumi/pulumi, type-check a program written from the README and the typings alone
 * under the template's tsconfig, run it under Pulumi's mocks, count the @pulumi/pulumi copies, and run the
 * installed package through that @pulumi/pulumi's own dynamic-provider host. Done with the newest version the
 * peer range accepts and with its lowest, then with one below the range.
 *
 * It needs the npm registry (or a warm npm cache: installs run with --prefer-offline) and `npm run build`.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { PULUMI_NEEDED, compareVersions } from "../../provider/engines";
import { useEmulator } from "../helpers/emulator";
import { startProviderHost, urnOf, type ProviderHost } from "../helpers/host";

jest.setTimeout(240_000);

const ROOT = path.resolve(__dirname, "..", "..");
const VERSION: string = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")).version;
const PROJECT = "consumer";
const SLACK_URL = "https://hooks.slack.test/services/T0/B0/consumer";

/** The tsconfig.json `pulumi new typescript` writes: no skipLibCheck, no esModuleInterop. */
const TEMPLATE_TSCONFIG = {
  compilerOptions: {
    strict: true,
    outDir: "bin",
    target: "es2020",
    module: "commonjs",
    moduleResolution: "node",
    sourceMap: true,
    experimentalDecorators: true,
    pretty: true,
    noFallthroughCasesInSwitch: true,
    noImplicitReturns: true,
    forceConsistentCasingInFileNames: true,
  },
  files: ["index.ts"],
};

/** The README's program, plus what a user leans on in the typings; every line must type-check as is. */
const PROGRAM = `import * as pulumi from "@pulumi/pulumi";
import * as obs from "pulumi-observability";
import { startEmulator } from "pulumi-observability/emulator";

const config = new pulumi.Config();
const slack = new obs.Notifier("oncall-slack", {
  name: "On-call Slack",
  properties: { slack: { slackUrl: config.requireSecret("slackWebhookUrl") } },
});
const monitor = new obs.Monitor("checkout-5xx", {
  name: "Checkout: 5xx above 50 a minute",
  type: "Threshold", operator: "Above", threshold: 50, rangeMinutes: 5,
  aplQuery: \`['http-logs'] | where status >= 500 | summarize count() by bin(_time, 1m)\`,
  notifierIds: [slack.id],
});

export const monitorId = monitor.id;
export const slackUrl = slack.properties.apply((p) => p.slack?.slackUrl); // a secret output

// Enumerations are their unions, optional outputs say undefined, null only where the service uses it.
export const monitorType: pulumi.Output<"Threshold" | "MatchEvent" | "AnomalyDetection"> = monitor.type;
export const operator: pulumi.Output<obs.MonitorOperator | undefined> = monitor.operator;
export const nextThreshold = monitor.threshold.apply((t) => (t ?? 0) + 1);
export const notifierCount = monitor.notifierIds.apply((ids) => ids?.length ?? 0);
const annotation = new obs.Annotation("deploy", { datasets: ["http-logs"], type: "deploy", title: "Deploy 2024.06.1" });
export const annotationEnd = annotation.endTime.apply((t) => (t === null ? "open" : (t ?? "unset")));
const role = new obs.Role("readers", { name: "readers", orgCapabilities: { datasets: ["read"] } });
export const roleActions = role.orgCapabilities.apply((c) => c?.datasets?.join(",") ?? "");
const starred = new obs.StarredQuery("errors", {
  kind: "apl", name: "errors", who: "team", query: { apl: "['http-logs'] | where status >= 500" }, metadata: {},
});
export const starredApl = starred.query.apply((q) => q.apl);
const org = new obs.OrganizationName("org", { organizationId: "local-org", name: "Consumer" });
export const plan: pulumi.Output<obs.OrganizationPlan> = org.plan;

// The client, its errors and the service's objects.
export function describeFailure(e: unknown): string {
  if (e instanceof obs.NotFoundError) return \`gone: \${e.status} \${e.path}\`;
  if (e instanceof obs.ApiError) return \`\${e.status}: \${e.message}\`;
  return String(e);
}
export async function firstMonitorName(options: obs.ClientOptions): Promise<string | undefined> {
  const client = new obs.ObservabilityClient(options);
  const monitors: obs.api.Monitor[] = await client.monitors.list();
  await client.close();
  return monitors[0]?.name;
}
// The emulator from code, as docs/emulator.md shows it.
export async function listMonitorsOnEmulator(): Promise<number> {
  const em = await startEmulator({ port: 0 }); // a free port: em.url, em.token, em.orgId
  const client = new obs.ObservabilityClient({ url: em.url, token: em.token });
  try {
    return (await client.monitors.list()).length;
  } finally {
    await client.close();
    await em.close();
  }
}

// Datasets exist before anything is ingested: pre-created by the emulator, or through the client.
export async function ingestOnEmulator(): Promise<number> {
  const em = await startEmulator({ port: 0, datasets: ["logs"] });
  const client = new obs.ObservabilityClient({ url: em.url, token: em.token });
  try {
    const dataset: obs.api.Dataset = await client.datasets.get("logs");
    return (await client.ingest(dataset.name ?? "logs", [{ a: 1 }])).ingested;
  } finally {
    await client.close();
    await em.close();
  }
}

// Nothing internal at the root.
// @ts-expect-error the shim is internal
export const shim = obs.providerShim;
// @ts-expect-error the unknown-value sentinel is internal
export const unknown = obs.UNKNOWN;
// @ts-expect-error the schemas are the pulumi-observability/schemas subpath
export const schemas = obs.schemas;
// @ts-expect-error a kind's declaration is internal (stripped from the typings)
export const declaration = obs.Monitor.declaration;
`;

/** Runs the program under mocks and prints what the engine would have been sent, and the exported outputs. */
const RUN_UNDER_MOCKS = `const pulumi = require("@pulumi/pulumi");
const registrations = [];
function valueOf(v) {
  return pulumi.Output.isInstance(v) ? new Promise((resolve) => v.apply(resolve)) : Promise.resolve(v);
}
(async () => {
  await pulumi.runtime.setMocks({
    newResource(args) {
      registrations.push({ type: args.type, name: args.name, provider: args.inputs.__provider });
      return { id: args.name + "-id", state: { ...args.inputs, plan: "personal" } };
    },
    call: (args) => args.inputs,
  }, ${JSON.stringify(PROJECT)}, "dev", false);
  pulumi.runtime.setConfig(${JSON.stringify(`${PROJECT}:slackWebhookUrl`)}, ${JSON.stringify(SLACK_URL)});
  const program = require("./bin/index.js");
  const outputs = {};
  for (const [k, v] of Object.entries(program)) {
    if (typeof v !== "function") outputs[k] = await valueOf(v);
  }
  const version = require("@pulumi/pulumi/package.json").version;
  const monitorsOnEmulator = await program.listMonitorsOnEmulator();
  const ingestedOnEmulator = await program.ingestOnEmulator();
  console.log(JSON.stringify({ version, registrations, outputs, monitorsOnEmulator, ingestedOnEmulator }));
})().catch((e) => { console.error(e); process.exit(1); });
`;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command asynchronously (the in-process emulator must keep serving), never rejecting. */
function run(command: string, args: string[], cwd: string): Promise<Run> {
  // The parent `npm test` exports npm_* settings meant for this repository; the program is its own project.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !/^npm_/i.test(k) || /^npm_config_(cache|registry|userconfig)$/i.test(k),
    ),
  );
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

function ok(r: Run, what: string): Run {
  if (r.code !== 0) throw new Error(`${what} exited ${r.code}:\n${r.stdout}\n${r.stderr}`);
  return r;
}

const npmInstall = (dir: string, ...args: string[]) =>
  run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", ...args], dir);

/** Every installed copy of @pulumi/pulumi under `nodeModules`, nested ones included. */
function pulumiCopies(nodeModules: string): string[] {
  const found: string[] = [];
  const visit = (dir: string) => {
    if (fs.existsSync(path.join(dir, "@pulumi", "pulumi", "package.json")))
      found.push(path.join(dir, "@pulumi", "pulumi"));
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
      const packages = entry.name.startsWith("@")
        ? fs.readdirSync(path.join(dir, entry.name)).map((n) => path.join(dir, entry.name, n))
        : [path.join(dir, entry.name)];
      for (const pkg of packages) {
        const nested = path.join(pkg, "node_modules");
        if (fs.existsSync(nested)) visit(nested);
      }
    }
  };
  visit(nodeModules);
  return found;
}

const emulator = useEmulator();
let work: string;
let program: string;
let tarball: string;
const node = path.join(ROOT, "node_modules", ".bin", "node");
const tsc = path.join(ROOT, "node_modules", ".bin", "tsc");
const typesNode = (
  JSON.parse(fs.readFileSync(path.join(ROOT, "node_modules", "@types", "node", "package.json"), "utf8")) as {
    version: string;
  }
).version;

beforeAll(async () => {
  if (!fs.existsSync(path.join(ROOT, "dist", "provider", "index.js")))
    throw new Error("run `npm run build` first");
  work = fs.mkdtempSync(path.join(os.tmpdir(), "obs-consumer-"));
  const packed = ok(
    // The suite's own build is packed as is: prepack's rebuild would empty dist/ under the other test files.
    await run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", work], ROOT),
    "npm pack",
  );
  tarball = path.join(work, (JSON.parse(packed.stdout) as { filename: string }[])[0].filename);
  program = path.join(work, "program");
  fs.mkdirSync(program);
  fs.writeFileSync(
    path.join(program, "package.json"),
    JSON.stringify({ name: PROJECT, private: true, main: "bin/index.js" }, null, 2),
  );
  fs.writeFileSync(path.join(program, "Pulumi.yaml"), `name: ${PROJECT}\nruntime: nodejs\n`);
  fs.writeFileSync(path.join(program, "tsconfig.json"), JSON.stringify(TEMPLATE_TSCONFIG, null, 2));
  fs.writeFileSync(path.join(program, "index.ts"), PROGRAM);
  fs.writeFileSync(path.join(program, "run-under-mocks.js"), RUN_UNDER_MOCKS);
});

afterAll(() => {
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

/** What the program did under mocks. */
interface MockRun {
  version: string;
  registrations: { type: string; provider: string }[];
  outputs: Record<string, unknown>;
  /** What docs/emulator.md's example from code returned: the installed emulator's monitors. */
  monitorsOnEmulator: number;
  ingestedOnEmulator: number;
}

async function runUnderMocks(): Promise<MockRun> {
  return JSON.parse(
    ok(await run(node, ["run-under-mocks.js"], program), "the program under mocks").stdout,
  ) as MockRun;
}

/** Create, read (which must hand the inputs back), delete and read again, through the installed host. */
async function throughInstalledHost(mocks: MockRun): Promise<{ readInputs: unknown; goneId: string }> {
  const provider = mocks.registrations.find((r) => r.type.endsWith(":Annotation"))!.provider;
  const host: ProviderHost = await startProviderHost({
    cwd: program,
    project: PROJECT,
    hostEntry: path.join(program, "node_modules", "@pulumi", "pulumi", "cmd", "dynamic-provider", "index.js"),
    config: { "observability:url": emulator.current.url, "observability:token": emulator.current.token },
    secretKeys: ["observability:token"],
  });
  try {
    await host.configure();
    const urn = urnOf("Annotation", "deploy", PROJECT);
    const news = { __provider: provider, datasets: ["http-logs"], type: "deploy", title: "consumer" };
    const checked = await host.check(urn, {}, news);
    expect(checked.failures).toEqual([]);
    const created = await host.create(urn, checked.inputs);
    expect(created.id).toMatch(/^ann_/);
    const read = await host.read(urn, created.id, created.properties, checked.inputs);
    await host.delete(urn, created.id, read.properties);
    const gone = await host.read(urn, created.id, read.properties, read.inputs);
    return { readInputs: read.inputs, goneId: gone.id };
  } finally {
    await host.close();
  }
}

describe.each([
  ["the newest version in the peer range", `^${PULUMI_NEEDED}`],
  ["the lowest version in the peer range", PULUMI_NEEDED],
])("with %s (@pulumi/pulumi@%s)", (_what, spec) => {
  let installed: string;
  let mocks: Promise<MockRun> | undefined;
  // The program runs once per version (after it compiled); two tests read what it did.
  const ranUnderMocks = () => (mocks ??= runUnderMocks());

  beforeAll(async () => {
    ok(
      await npmInstall(program, tarball, `@pulumi/pulumi@${spec}`, `@types/node@${typesNode}`),
      "npm install",
    );
    installed = (
      JSON.parse(
        fs.readFileSync(path.join(program, "node_modules", "@pulumi", "pulumi", "package.json"), "utf8"),
      ) as {
        version: string;
      }
    ).version;
    console.log(`consumer: @pulumi/pulumi ${installed} installed for ${spec}`);
  });

  it("installs the version asked for", () => {
    if (spec === PULUMI_NEEDED) expect(installed).toBe(PULUMI_NEEDED);
    else expect(compareVersions(installed, PULUMI_NEEDED)).toBeGreaterThan(0);
  });

  it("has exactly one copy of @pulumi/pulumi", () => {
    expect(pulumiCopies(path.join(program, "node_modules"))).toEqual([
      path.join(program, "node_modules", "@pulumi", "pulumi"),
    ]);
  });

  it("type-checks the program with the template's tsconfig, with zero errors, and compiles it", async () => {
    const result = await run(tsc, ["-p", "."], program);
    expect(result.stdout + result.stderr).toBe("");
    expect(result.code).toBe(0);
  });

  it("runs the program under Pulumi's mocks", async () => {
    const result = await ranUnderMocks();
    expect(result.version).toBe(installed);
    expect(result.registrations.map((r) => r.type).sort()).toEqual(
      ["Annotation", "Monitor", "Notifier", "OrganizationName", "Role", "StarredQuery"].map(
        (kind) => `pulumi-nodejs:dynamic/observability:${kind}`,
      ),
    );
    // Installed, each kind's shim is its module's exports, which @pulumi/pulumi serializes as a require of that
    // module (scripts/build-shims.mts; pulumi/pulumi sdk/nodejs/runtime/closure/createClosure.ts,
    // captureModuleAsync: a module under node_modules is captured by name): exactly the golden copy of this
    // version's installed form.
    for (const r of result.registrations) {
      const kind = r.type.split(":").pop()!;
      const golden = path.join(ROOT, "test", "fixtures", "shims", `${VERSION}-installed`, `${kind}.js`);
      expect(r.provider).toBe(fs.readFileSync(golden, "utf8"));
      expect(r.provider).toContain(`require("pulumi-observability/dist/provider/shims/${kind}.js")`);
    }
    expect(result.outputs).toMatchObject({
      monitorId: "checkout-5xx-id",
      slackUrl: SLACK_URL,
      monitorType: "Threshold",
      operator: "Above",
      nextThreshold: 51,
      notifierCount: 1,
      annotationEnd: "unset",
      roleActions: "read",
      starredApl: "['http-logs'] | where status >= 500",
      plan: "personal",
    });
    expect(result.monitorsOnEmulator).toBe(0);
    expect(result.ingestedOnEmulator).toBe(1);
  });

  it("works through this version's own dynamic-provider host: read hands the inputs back, delete removes", async () => {
    const { readInputs, goneId } = await throughInstalledHost(await ranUnderMocks());
    expect(readInputs).toMatchObject({ datasets: ["http-logs"], type: "deploy", title: "consumer" });
    expect(goneId).toBe("");
  });
});

describe("with a version below the peer range", () => {
  const below = "3.215.0";

  it(`a program that pins @pulumi/pulumi@${below} cannot install the package: npm stops with ERESOLVE`, async () => {
    const pinned = path.join(work, "pinned");
    fs.mkdirSync(pinned);
    const dependencies = { "@pulumi/pulumi": below, "pulumi-observability": `file:${tarball}` };
    fs.writeFileSync(
      path.join(pinned, "package.json"),
      JSON.stringify({ name: "pinned", private: true, dependencies }),
    );
    const result = await npmInstall(pinned);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("ERESOLVE");
    expect(result.stderr).toContain(`peer @pulumi/pulumi@"^${PULUMI_NEEDED}" from pulumi-observability`);
    expect(fs.existsSync(path.join(pinned, "node_modules", "@pulumi", "pulumi"))).toBe(false);
  });

  it(`downgraded to ${below} after the package, there is still one copy, and the first import names both versions`, async () => {
    // npm lets an explicit request override the peer range (marking the peer invalid); older npm releases
    // answer ERESOLVE instead, which --legacy-peer-deps overrides. Either way one copy is left.
    let result = await npmInstall(program, `@pulumi/pulumi@${below}`);
    if (result.code !== 0) {
      expect(result.stderr).toContain("ERESOLVE");
      result = ok(await npmInstall(program, `@pulumi/pulumi@${below}`, "--legacy-peer-deps"), "npm install");
    }
    expect(pulumiCopies(path.join(program, "node_modules"))).toEqual([
      path.join(program, "node_modules", "@pulumi", "pulumi"),
    ]);
    const imported = await run(node, ["-e", 'require("pulumi-observability")'], program);
    expect(imported.code).not.toBe(0);
    expect(imported.stderr).toContain(
      `pulumi-observability needs @pulumi/pulumi ${PULUMI_NEEDED} or later (its peer range is ^${PULUMI_NEEDED}), but found ${below}`,
    );
  });
});
