/**
 * What the real-engine runs share with bench/engine.mts, with no test runner in it: a fresh emulator and a client
 * per run, stacks in a project folder, the service's contents and the state's, and scans for leaked secrets.
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
} from "../../scripts/lib.mts";
import { beyondBaseline, serviceContents, type ServiceContents } from "../helpers/service-contents.ts";

/** The slice of the built client these runs use. */
export interface Client {
  monitors: CrudApi & {
    /** Each open and close of the monitor's alerts between two RFC 3339 times (GET /v2/monitors/{id}/history). */
    history(
      id: string,
      window: { startTime: string; endTime: string },
    ): Promise<{ checkId: string; name: string; state: string; timestamp: string }[]>;
  };
  notifiers: CrudApi;
  roles: CrudApi;
  annotations: CrudApi;
  starredQueries: CrudApi;
  datasets: CrudApi;
  views: CrudApi;
  groups: CrudApi;
  virtualFields: CrudApi;
  users: Pick<CrudApi, "list" | "get" | "create" | "delete">;
  tokens: Pick<CrudApi, "list" | "get" | "create" | "delete">;
  dashboards: {
    listAll(): Promise<(Record<string, unknown> & { uid: string })[]>;
    get(uid: string): Promise<Record<string, unknown> & { uid: string; dashboard: Record<string, unknown> }>;
    update(uid: string, body: Record<string, unknown>): Promise<unknown>;
  };
  orgs: { get(id: string): Promise<Record<string, unknown>>; list(): Promise<Record<string, unknown>[]> };
  /** Sends events (each may carry its own `_time`) to a dataset (POST /v1/datasets/{name}/ingest). */
  ingest(dataset: string, events: Record<string, unknown>[]): Promise<{ ingested: number; failed: number }>;
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
  /** Requests served so far. */
  stats: { requests: number };
  /** The emulator's clock; `advance` and `to` move a manual one and answer the monitor runs they made. */
  clock: {
    now(): Date;
    advance(spec: string | number): Promise<MonitorRun[]>;
    to(time: string | Date): Promise<MonitorRun[]>;
  };
  /** Every notification its monitors attempted, oldest first (also `GET /_emulator/notifications`). */
  notifications(): readonly OutboxEntry[];
  close(): Promise<void>;
}

/** The slice of a monitor run (emulator/alerting/types.ts) these runs read. */
export interface MonitorRun {
  monitorId: string;
  monitorName: string;
  time: string;
  windowStart: string;
  windowEnd: string;
  state: "open" | "closed" | "ok" | "error";
  values: { group: Record<string, unknown>; value: number | null }[];
  error?: string;
  notifications: number;
}

/** The slice of an outbox row (emulator/alerting/notify/types.ts) these runs read. */
export interface OutboxEntry {
  time: string;
  monitorId: string;
  monitorName: string;
  notifierId: string;
  notifierName: string;
  channel: string;
  action: "Open" | "Closed";
  value: number | null;
  targetHost: string | null;
  outcome: string;
  status?: number;
  reason?: string;
  request: { method: string; url: string; headers: Record<string, string> } | null;
  body: unknown;
}

/** What a run may ask of its emulator beyond the defaults: a manual clock, where it starts, allowed hosts, a log. */
export interface ServiceOptions {
  /** `"manual"`: time stands still until the run moves it (`em.clock.advance`/`to`); monitors run only then. */
  clock?: "manual";
  /** With a manual clock: where time starts (RFC 3339). */
  now?: string;
  /** Hosts notifications may be sent to besides loopback addresses. */
  deliverTo?: string[];
  /** Receives the emulator's log lines (one per request, one per notification). */
  logger?: (line: string) => void;
}

/** A fresh in-process emulator with its own random token, and a client for it. */
export async function freshService(options: ServiceOptions = {}): Promise<{
  em: RunningEmulator;
  client: Client;
  close(): Promise<void>;
}> {
  const { startEmulator } = requireFromRepo("./dist/emulator/index.js") as {
    startEmulator(
      o: { port: number; host: string; token?: string } & ServiceOptions,
    ): Promise<RunningEmulator>;
  };
  const { ObservabilityClient } = requireFromRepo("./dist/provider/client/index.js") as {
    ObservabilityClient: new (o: { url: string; token: string; orgId: string }) => Client;
  };
  // A token no other run uses, so that finding it in a state file means this run's state leaked it.
  const token = `xaat-e2e-${Math.random().toString(36).slice(2, 12)}`;
  const em = await startEmulator({ ...options, port: 0, host: "127.0.0.1", token });
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

/** Datasets whose virtual fields are listed even when the dataset itself is gone (the examples' and paths'). */
const DATASET_NAMES = ["http-logs", "app-logs", "host-metrics", "logs"];

/** What the service holds now (test/helpers/service-contents.ts), with the virtual fields of the runs' datasets. */
export function currentContents(client: Client): Promise<ServiceContents> {
  return serviceContents(client, { alsoDatasets: DATASET_NAMES });
}

/**
 * Throws unless the service holds no object beyond those of `baseline` (what a fresh emulator has: its own user)
 * and the organization has its original name.
 */
export async function assertServiceEmpty(client: Client, baseline: ServiceContents): Promise<void> {
  const left = beyondBaseline(baseline, await currentContents(client));
  assert(left.length === 0, `the service still holds ${left.join("; ")}`);
}

function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

/**
 * `program`, each of whose runs starts with the lookups' cache empty. The lookups (getXOutput, …) keep one client,
 * built from the first run's stack config, and one listing per family for the life of the process; these runs
 * execute many programs, for many stacks and emulators, in this one process (Automation API inline programs), so
 * without this a run would use the client and the listings of an earlier one.
 */
export function freshLookups(program: InlineProgram): InlineProgram {
  return async () => {
    const { resetLookups } = requireFromRepo("./dist/provider/lookups.js") as {
      resetLookups(): Promise<void>;
    };
    await resetLookups();
    return program();
  };
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

/**
 * The resources of this package in a deployment (not the stack, nor the default provider): the dynamic resources,
 * and the components made of them (`observability:index:Slo`), which the engine creates and deletes as steps too.
 */
export function packageResources(resources: ExportedResource[]): ExportedResource[] {
  return resources.filter(
    (r) =>
      r.type.startsWith("pulumi-nodejs:dynamic/observability:") || r.type.startsWith("observability:index:"),
  );
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
