/**
 * What the native provider's real-engine tests need besides their steps: the CLI (the run's global setup found it),
 * the built plugin, a stack run by the Automation API with an inline program (no language host needed), and every
 * kind declared by its type token as a `pulumi.CustomResource`.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import type * as Automation from "@pulumi/pulumi/automation";
import { exec, findOnPath } from "../../scripts/shared/commands";
import { EngineStack, pulumiEnv, type PulumiCli } from "../../scripts/shared/engine";
import { cliOfRun, SKIP_ENV } from "../e2e/run-env";

export const ROOT = path.resolve(__dirname, "..", "..");
/** The folder of the launcher `npm run build` writes; first on the CLI's PATH, so the engine finds the plugin. */
export const PLUGIN_DIR = path.join(ROOT, "dist", "plugin");
export const PLUGIN = path.join(PLUGIN_DIR, "pulumi-resource-observability");

/**
 * The CLI and the plugin, or why the test cannot run. The CLI is the one the run's global setup found or built
 * (test/e2e/global-setup.mts); synchronous, so jest can decide at collection time.
 */
export function findCliAndPlugin(): { cli: PulumiCli } | { reason: string } {
  if (!existsSync(PLUGIN)) return { reason: `${PLUGIN} is not built: run npm run build` };
  const cli = cliOfRun();
  if (cli) return { cli };
  return { reason: process.env[SKIP_ENV] ?? "no Pulumi CLI: run these tests with `npm run test:e2e`" };
}

/**
 * A language host: on PATH, beside the CLI, or where this project caches the ones it builds
 * (`${XDG_CACHE_HOME:-~/.cache}/pulumi-observability/<name>/<version>/bin`).
 */
export function findLanguageHost(name: string, cli?: PulumiCli): string | undefined {
  const onPath = findOnPath(name, { dirs: cli ? [cli.binDir] : [] });
  if (onPath) return onPath;
  const cache = path.join(
    process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache"),
    "pulumi-observability",
    name,
  );
  const versions = existsSync(cache) ? readdirSync(cache).sort().reverse() : [];
  for (const version of versions) {
    const file = findOnPath(name, { dirs: [path.join(cache, version, "bin")] });
    if (file?.startsWith(cache)) return file;
  }
  return undefined;
}

/** The CLI's environment (scripts/shared/engine.ts pulumiEnv) with the plugin's folder first on PATH, so the engine finds it. */
export function engineEnv(cli: PulumiCli, stateDir: string): Record<string, string> {
  return pulumiEnv(cli, stateDir, { pathFirst: [PLUGIN_DIR] });
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

/** A stack of an inline program, run by `cli` with `env` (scripts/shared/engine.ts, as the dynamic resources' runs open theirs). */
export async function openStack(options: {
  cli: PulumiCli;
  workDir: string;
  stackName: string;
  program: () => Promise<Record<string, unknown> | void>;
  env: Record<string, string>;
}): Promise<Automation.Stack> {
  return (await EngineStack.open({ ...options, projectName: "native-e2e" })).stack;
}

/**
 * Runs the CLI in `cwd` with `env`, through the suite's one process runner (flagship.ts `exec`); resolves to
 * stdout and stderr, rejects with both. A secret goes in on stdin, never in argv.
 */
export async function runCli(
  cli: PulumiCli,
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
