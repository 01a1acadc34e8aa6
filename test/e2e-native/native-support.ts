/**
 * What the native provider's real-engine test needs besides its steps: the CLI (found by scripts/lib.mts
 * findPulumiCli, in a Node process of its own since jest cannot load the .mts), the built plugin, a stack run by
 * the Automation API with an inline program (no language host needed), and every kind declared by its type
 * token as a `pulumi.CustomResource`.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import type * as Automation from "@pulumi/pulumi/automation";
import { ObservabilityClient } from "../../provider/client";
import { exec } from "./flagship";

export const ROOT = path.resolve(__dirname, "..", "..");
/** The folder of the launcher `npm run build` writes; first on the CLI's PATH, so the engine finds the plugin. */
export const PLUGIN_DIR = path.join(ROOT, "dist", "plugin");
export const PLUGIN = path.join(PLUGIN_DIR, "pulumi-resource-observability");
const NODE = path.join(ROOT, "node_modules", "node", "bin", "node");

export interface Cli {
  pulumi: string;
  binDir: string;
  version: string;
}

/**
 * The CLI and the plugin, or why the test cannot run. Synchronous, so jest can decide at collection time; it runs
 * before any emulator serves.
 */
export function findCliAndPlugin(): { cli: Cli } | { reason: string } {
  if (!existsSync(PLUGIN)) return { reason: `${PLUGIN} is not built: run npm run build` };
  const lib = JSON.stringify(path.join(ROOT, "scripts", "lib.mts"));
  const code = `const { findPulumiCli } = await import(${lib});
    console.log(JSON.stringify(await findPulumiCli({ build: false })));`;
  let out: string;
  try {
    out = execFileSync(existsSync(NODE) ? NODE : process.execPath, ["--input-type=module", "-e", code], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NODE_NO_WARNINGS: "1" },
    });
  } catch (e) {
    return { reason: `looking for the Pulumi CLI failed: ${(e as Error).message.split("\n")[0]}` };
  }
  const found = JSON.parse(out.trim().split("\n").at(-1)!) as { cli?: Cli; reason?: string };
  return found.cli ? { cli: found.cli } : { reason: found.reason ?? "no Pulumi CLI" };
}

/** An executable named `name` in `dirs` or on PATH, or undefined. */
export function findOnPath(name: string, dirs: string[] = []): string | undefined {
  const { accessSync, constants } = require("node:fs") as typeof import("node:fs");
  for (const dir of [...dirs, ...(process.env.PATH ?? "").split(path.delimiter)]) {
    if (!dir) continue;
    try {
      accessSync(path.join(dir, name), constants.X_OK);
      return path.join(dir, name);
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * A language host: on PATH, beside the CLI, or where this project caches the ones it builds
 * (`${XDG_CACHE_HOME:-~/.cache}/pulumi-observability/<name>/<version>/bin`).
 */
export function findLanguageHost(name: string, cli?: Cli): string | undefined {
  const onPath = findOnPath(name, cli ? [cli.binDir] : []);
  if (onPath) return onPath;
  const cache = path.join(
    process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache"),
    "pulumi-observability",
    name,
  );
  const { readdirSync } = require("node:fs") as typeof import("node:fs");
  const versions = existsSync(cache) ? readdirSync(cache).sort().reverse() : [];
  for (const version of versions) {
    const file = findOnPath(name, [path.join(cache, version, "bin")]);
    if (file?.startsWith(cache)) return file;
  }
  return undefined;
}

/** The environment of the CLI: a file backend, its own PULUMI_HOME, no network, the plugin's folder first. */
export function engineEnv(cli: Cli, stateDir: string): Record<string, string> {
  const home = path.join(stateDir, ".pulumi-home");
  mkdirSync(home, { recursive: true });
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith("OBSERVABILITY_")) env[k] = v;
  }
  return {
    ...env,
    PULUMI_BACKEND_URL: `file://${stateDir}`,
    PULUMI_HOME: home,
    PULUMI_CONFIG_PASSPHRASE: "pulumi-observability-local",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    PATH: [PLUGIN_DIR, cli.binDir, path.dirname(NODE), process.env.PATH ?? ""].join(path.delimiter),
  };
}

const made: string[] = [];
/** A fresh folder for a state backend or a project, removed by {@link removeTempDirs}. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}
/** Removes every folder {@link tempDir} made. */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** A stack of an inline program, run by `cli` with `env`. */
export async function openStack(options: {
  cli: Cli;
  workDir: string;
  stackName: string;
  program: () => Promise<Record<string, unknown> | void>;
  env: Record<string, string>;
}): Promise<Automation.Stack> {
  const auto = require("@pulumi/pulumi/automation") as typeof Automation;
  const root =
    path.basename(options.cli.binDir) === "bin"
      ? path.dirname(options.cli.binDir)
      : linkedCliRoot(options.cli);
  const pulumiCommand = await auto.PulumiCommand.get({ root, skipVersionCheck: true });
  return auto.LocalWorkspace.createOrSelectStack(
    { stackName: options.stackName, projectName: "native-e2e", program: options.program },
    { workDir: options.workDir, pulumiCommand, envVars: options.env, secretsProvider: "passphrase" },
  );
}

/** A folder `<root>/bin/pulumi` linking to the CLI, as PulumiCommand wants it. */
function linkedCliRoot(cli: Cli): string {
  const root = path.join(os.tmpdir(), `native-e2e-cli-${process.pid}`);
  mkdirSync(path.join(root, "bin"), { recursive: true });
  try {
    require("node:fs").symlinkSync(cli.pulumi, path.join(root, "bin", "pulumi"));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  return root;
}

/**
 * Runs the CLI in `cwd` with `env`, through the suite's one process runner (flagship.ts `exec`); resolves to
 * stdout and stderr, rejects with both. A secret goes in on stdin, never in argv.
 */
export async function runCli(
  cli: Cli,
  args: string[],
  cwd: string,
  env: Record<string, string>,
  input?: string,
): Promise<string> {
  const r = await exec(cli.pulumi, args, { cwd, env, input: input ?? "" });
  if (r.code !== 0)
    throw new Error(`pulumi ${args.join(" ")} failed: ${r.stderr || `exit code ${r.code}`}\n${r.stdout}`);
  return `${r.stdout}\n${r.stderr}`;
}

/** A resource of this package by its type token (CustomResource is abstract in its typings only). */
class NativeResource extends pulumi.CustomResource {
  constructor(type: string, name: string, args: pulumi.Inputs, opts?: pulumi.CustomResourceOptions) {
    super(type, name, args, opts);
  }
}

/** An explicit provider of this package: `observability` with its configuration as inputs. */
export class ObservabilityProvider extends pulumi.ProviderResource {
  constructor(name: string, args: pulumi.Inputs, opts?: pulumi.ResourceOptions) {
    super("observability", name, args, opts);
  }
}

/** A resource by its type token. */
export function declare(
  kind: string,
  name: string,
  args: Record<string, unknown>,
  opts?: pulumi.CustomResourceOptions,
): pulumi.CustomResource {
  return new NativeResource(`observability:index:${kind}`, name, args, opts);
}

/** What the program varies between runs. */
export interface Variant {
  threshold: number;
  /** An object made out of band, taken by the `import` option. */
  importMonitor?: { id: string; args: Record<string, unknown> };
}

export const SLACK_URL = "https://hooks.slack.test/T000/NATIVE-SECRET-PATH";
export const DATASET = "native-logs";

/** The monitor every run declares, with the variant's threshold. */
export const monitorArgs = (threshold: number) => ({
  name: "native errors",
  aplQuery: `['${DATASET}'] | count`,
  type: "Threshold",
  operator: "Above",
  threshold,
});

/** Every kind, by its type token. `orgId` is the organization the OrganizationName renames. */
export function everyKind(orgId: string, variant: Variant, opts?: pulumi.CustomResourceOptions) {
  const ds = declare("Dataset", "logs", { name: DATASET, description: "native", forceDestroy: true }, opts);
  const resources: Record<string, pulumi.CustomResource> = {
    Dataset: ds,
    Annotation: declare("Annotation", "deploy", { datasets: [ds.id], type: "deploy", title: "v1" }, opts),
    Monitor: declare("Monitor", "errors", monitorArgs(variant.threshold), opts),
    Notifier: declare(
      "Notifier",
      "slack",
      { name: "oncall", properties: { slack: { slackUrl: SLACK_URL } } },
      opts,
    ),
    Role: declare(
      "Role",
      "readers",
      { name: "native-readers", orgCapabilities: { datasets: ["read"] } },
      opts,
    ),
    StarredQuery: declare(
      "StarredQuery",
      "top",
      { kind: "apl", name: "top", who: "team", query: { apl: `['${DATASET}'] | take 10` }, metadata: {} },
      opts,
    ),
    OrganizationName: declare(
      "OrganizationName",
      "org",
      { organizationId: orgId, name: "Native Org" },
      {
        ...opts,
        deleteBeforeReplace: true,
      },
    ),
    View: declare("View", "view", { name: "native-view", aplQuery: `['${DATASET}'] | take 1` }, opts),
    Group: declare("Group", "group", { name: "native-group" }, opts),
    User: declare("User", "user", { name: "Native User", email: "native@example.com", role: "user" }, opts),
    VirtualField: declare("VirtualField", "vf", { dataset: ds.id, name: "dur", expression: "a + b" }, opts),
    ApiToken: declare(
      "ApiToken",
      "ci",
      { name: "native-ci", datasetCapabilities: { [DATASET]: { ingest: ["create"] } } },
      { ...opts, dependsOn: [ds] },
    ),
    Dashboard: declare(
      "Dashboard",
      "board",
      {
        uid: "native-board",
        dashboard: {
          name: "Native board",
          charts: [{ id: "note", type: "Note", text: "hello" }],
          layout: [{ i: "note", x: 0, y: 0, w: 12, h: 2 }],
          refreshTime: 60,
          schemaVersion: 2,
          timeWindowStart: "qr-now-1h",
          timeWindowEnd: "qr-now",
        },
      },
      opts,
    ),
  };
  if (variant.importMonitor) {
    resources.Imported = declare("Monitor", "imported", variant.importMonitor.args, {
      ...opts,
      import: variant.importMonitor.id,
    });
  }
  return resources;
}

/** Every object the service holds, by family: ids only, sorted. */
export async function serviceContents(client: ObservabilityClient): Promise<Record<string, string[]>> {
  const ids = (xs: { id?: string }[]) => xs.map((x) => String(x.id)).sort();
  const datasets = await client.datasets.list();
  const vfields = (
    await Promise.all(datasets.map((d) => client.virtualFields.list({ dataset: String(d.name) })))
  ).flat();
  return {
    datasets: ids(datasets),
    annotations: ids(await client.annotations.list()),
    monitors: ids(await client.monitors.list()),
    notifiers: ids(await client.notifiers.list()),
    roles: ids(await client.roles.list()),
    starredQueries: ids(await client.starredQueries.list({ who: "all", limit: 1000 })),
    views: ids(await client.views.list()),
    groups: ids(await client.groups.list()),
    users: ids(await client.users.list()),
    virtualFields: ids(vfields),
    tokens: ids(await client.tokens.list()),
    dashboards: (await client.dashboards.listAll()).map((d) => String(d.uid)).sort(),
    orgNames: (await client.orgs.list()).map((o) => `${o.id}=${o.name}`).sort(),
  };
}
