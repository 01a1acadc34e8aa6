/**
 * What the end-to-end runs share (e2e.mts, e2e-paths.mts, bench/engine.mts): a fresh emulator and a client per
 * run, stacks in a project folder under `.demo/`, the service's contents, named steps and their results.
 */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import {
  EngineStack,
  REPO_ROOT,
  pulumiEnv,
  requireFromRepo,
  type InlineProgram,
  type PulumiCli,
} from "./lib.mts";

/** The slice of the built client these runs use. */
export interface Client {
  monitors: CrudApi;
  notifiers: CrudApi;
  roles: CrudApi;
  annotations: CrudApi;
  starredQueries: CrudApi;
  orgs: { get(id: string): Promise<Record<string, unknown>> };
  close(): Promise<void>;
}
export type ServiceObject = Record<string, unknown> & { id: string };
export interface CrudApi {
  list(params?: Record<string, unknown>): Promise<ServiceObject[]>;
  get(id: string): Promise<ServiceObject>;
  create(body: Record<string, unknown>): Promise<ServiceObject>;
  update(id: string, body: Record<string, unknown>): Promise<ServiceObject>;
  delete(id: string): Promise<void>;
}
export interface RunningEmulator {
  url: string;
  token: string;
  orgId: string;
  close(): Promise<void>;
}

/** A fresh in-process emulator with its own random token, and a client for it. */
export async function freshService(): Promise<{
  em: RunningEmulator;
  client: Client;
  close(): Promise<void>;
}> {
  const { startEmulator } = requireFromRepo("./dist/emulator/index.js") as {
    startEmulator(o: { port: number; host: string; token?: string }): Promise<RunningEmulator>;
  };
  const { ObservabilityClient } = requireFromRepo("./dist/provider/client/index.js") as {
    ObservabilityClient: new (o: { url: string; token: string; orgId: string }) => Client;
  };
  // A token no other run uses, so that finding it in a state file means this run's state leaked it.
  const token = `xaat-e2e-${Math.random().toString(36).slice(2, 12)}`;
  const em = await startEmulator({ port: 0, host: "127.0.0.1", token });
  const client = new ObservabilityClient({ url: em.url, token: em.token, orgId: em.orgId });
  return {
    em,
    client,
    close: async () => {
      await client.close();
      await em.close();
    },
  };
}

/** Every object in the service a stack could have left behind, and the organization's name. */
export async function serviceContents(client: Client, orgId: string) {
  return {
    monitors: await client.monitors.list(),
    notifiers: await client.notifiers.list(),
    annotations: await client.annotations.list(),
    roles: await client.roles.list(),
    starredQueries: await client.starredQueries.list({ who: "all" }),
    organizationName: String((await client.orgs.get(orgId)).name),
  };
}

/** Throws unless the service holds no object and the organization has its original name. */
export async function assertServiceEmpty(client: Client, orgId: string, originalName: string): Promise<void> {
  const { organizationName, ...families } = await serviceContents(client, orgId);
  const left = Object.entries(families)
    .filter(([, objects]) => objects.length > 0)
    .map(([family, objects]) => `${family}: ${objects.map((o) => o.id).join(", ")}`);
  assert(left.length === 0, `the service still holds ${left.join("; ")}`);
  assert(
    organizationName === originalName,
    `the organization is named ${JSON.stringify(organizationName)}, not ${JSON.stringify(originalName)}`,
  );
}

export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

/** Resolves when `p` rejects, with the error; throws when it succeeds. */
export async function failureOf(p: Promise<unknown>, what: string): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error(`${what} succeeded; it should have failed`);
}

/** One named step's outcome. */
export interface StepResult {
  group: string;
  step: string;
  ok: boolean;
  ms: number;
  detail?: string;
  /** Not run, for the reason in `detail`. */
  skipped?: boolean;
}

/** Runs named steps of one group, recording each; a failed step's error is kept, not thrown. */
export class Steps {
  readonly results: StepResult[] = [];
  readonly group: string;
  constructor(group: string) {
    this.group = group;
  }

  /** Runs `fn` as the step `name`; resolves to whether it passed. */
  async run(name: string, fn: () => Promise<void>): Promise<boolean> {
    console.log(`\n━━ ${this.group}: ${name}`);
    const t0 = Date.now();
    try {
      await fn();
      this.results.push({ group: this.group, step: name, ok: true, ms: Date.now() - t0 });
      return true;
    } catch (err) {
      const detail = (err as Error).message.trim().split("\n").slice(0, 12).join("\n      ");
      console.log(`✘ ${name}: ${detail}`);
      this.results.push({ group: this.group, step: name, ok: false, ms: Date.now() - t0, detail });
      return false;
    }
  }

  /** Records the step `name` as not run, saying why. */
  skip(name: string, reason: string): void {
    console.log(`\n━━ ${this.group}: ${name}\n- skipped: ${reason}`);
    this.results.push({ group: this.group, step: name, ok: true, ms: 0, detail: reason, skipped: true });
  }

  /** Runs steps in order, stopping at the first that fails; resolves to whether all passed. */
  async sequence(steps: [string, () => Promise<void>][]): Promise<boolean> {
    for (const [name, fn] of steps) if (!(await this.run(name, fn))) return false;
    return true;
  }
}

/** A project folder `<root>/<name>` with a Pulumi.yaml, for stacks of inline programs. */
export function projectDir(root: string, name: string, description: string): string {
  const dir = path.join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, "Pulumi.yaml"),
    `name: ${name}\ndescription: ${description}\nruntime:\n  name: nodejs\n  options:\n    typescript: true\n`,
  );
  return dir;
}

/**
 * A stack of `program` in `workDir`, its state in a file backend at `stateDir`, with the provider configured for
 * `em` (the token as a secret) unless `credentials` is false.
 */
export async function openStack(options: {
  cli: PulumiCli;
  workDir: string;
  stateDir: string;
  stackName: string;
  program: InlineProgram;
  em: RunningEmulator;
  credentials?: boolean;
}): Promise<EngineStack> {
  mkdirSync(options.stateDir, { recursive: true });
  const stack = await EngineStack.open({
    cli: options.cli,
    workDir: options.workDir,
    stackName: options.stackName,
    program: options.program,
    env: pulumiEnv(options.cli, options.stateDir),
  });
  await stack.setConfig({ "observability:url": options.em.url, "observability:orgId": options.em.orgId });
  if (options.credentials !== false) await stack.setSecrets({ "observability:token": options.em.token });
  return stack;
}

/** The resources of an exported deployment, as `pulumi stack export` writes them. */
export interface ExportedResource {
  urn: string;
  type: string;
  id?: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
  protect?: boolean;
}

/**
 * `pulumi stack export`: the deployment's resources and pending operations, with secrets encrypted unless
 * `showSecrets` (never printed either way).
 */
export async function exportState(
  stack: EngineStack,
  showSecrets = false,
): Promise<{ resources: ExportedResource[]; pending: unknown[] }> {
  const args = ["stack", "export", ...(showSecrets ? ["--show-secrets"] : [])];
  const exported = JSON.parse(await stack.run(args, { capture: true })) as {
    deployment: { resources?: ExportedResource[]; pending_operations?: unknown[] };
  };
  return {
    resources: exported.deployment.resources ?? [],
    pending: exported.deployment.pending_operations ?? [],
  };
}

/** The resources of this package in a deployment (not the stack, nor the default provider). */
export function packageResources(resources: ExportedResource[]): ExportedResource[] {
  return resources.filter((r) => r.type.startsWith("pulumi-nodejs:dynamic/observability:"));
}

/** Every file under `dir`, recursively. */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((f) => path.join(dir, f))
    .filter((f) => statSync(f).isFile());
}

/** The files under `dir` that contain any of `needles`, with which. */
export function filesContaining(dir: string, needles: string[]): string[] {
  const hits: string[] = [];
  for (const file of filesUnder(dir)) {
    const text = readFileSync(file, "utf8");
    for (const needle of needles)
      if (text.includes(needle)) hits.push(`${path.relative(REPO_ROOT, file)} holds ${redact(needle)}`);
  }
  return hits;
}

/** A secret named without being printed: its first characters and its length. */
export function redact(secret: string): string {
  return `${secret.slice(0, 6)}… (${secret.length} characters)`;
}
