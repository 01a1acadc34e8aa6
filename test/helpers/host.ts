/**
 * The real @pulumi/pulumi dynamic-provider host, driven over gRPC as the engine drives it (see
 * DYNAMIC-PROVIDERS.md, "The real host over gRPC"). Plain JS objects in, plain JS objects out.
 *
 * The host requires `pulumi-observability/dynamic` from the program's directory. The serialized shim is loaded
 * with an empty file name, so the package's self-reference does not apply: like a user's program, the directory
 * needs `node_modules/pulumi-observability`. By default the harness makes a temporary program directory whose
 * `node_modules/pulumi-observability` links to this repo (so `dist/` is used: run `npm run build` first;
 * `npm test` does, as pretest).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as grpc from "@grpc/grpc-js";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { SECRET_SIG, SECRET_VALUE_SIG } from "./provider-text";
import { ObservabilityClient } from "../../provider/client";
import { grpcFailure } from "./init-failure";

/* eslint-disable @typescript-eslint/no-explicit-any */
const engineGrpc = require("@pulumi/pulumi/proto/engine_grpc_pb");
const providerGrpc = require("@pulumi/pulumi/proto/provider_grpc_pb");
const providerPb = require("@pulumi/pulumi/proto/provider_pb");

/** The repository root: where the host runs, as `pulumi up` runs it in the program's directory. */
export const REPO_ROOT = path.resolve(__dirname, "..", "..");

type Props = Record<string, unknown>;

/** Options of {@link startProviderHost}. */
export interface ProviderHostOptions {
  /** Stack config, full keys (`observability:token`). Sent to Configure and put in PULUMI_CONFIG. */
  config: Record<string, string>;
  /** Config keys sent secret-wrapped, as the engine sends secret config. */
  secretKeys?: string[];
  /** Program directory (must resolve `pulumi-observability`); defaults to a temporary one linked to this repo. */
  cwd?: string;
  /** Project name (PULUMI_NODEJS_PROJECT / PULUMI_PROJECT). */
  project?: string;
  /** The host's entry script; defaults to this repo's @pulumi/pulumi (the consumer test runs other versions'). */
  hostEntry?: string;
  /** Environment of the host, replacing this process's `OBSERVABILITY_*` variables (others are kept). */
  env?: Record<string, string>;
}

/** Check's answer. */
export interface HostCheck {
  inputs: Props;
  failures: { property: string; reason: string }[];
}

/** Diff's answer, with the enum spelled out. */
export interface HostDiff {
  changes: "unknown" | "none" | "some";
  replaces: string[];
  deleteBeforeReplace: boolean;
}

/** A running host and its RPCs. */
export interface ProviderHost {
  /** The host's process id (benchmarks read its CPU time). */
  pid: number;
  /** Configure with the options' config (secret keys wrapped). */
  configure(): Promise<void>;
  check(urn: string, olds: Props, news: Props): Promise<HostCheck>;
  diff(urn: string, id: string, olds: Props, news: Props): Promise<HostDiff>;
  create(urn: string, properties: Props): Promise<{ id: string; properties: Props }>;
  read(
    urn: string,
    id: string,
    properties: Props,
    inputs?: Props,
  ): Promise<{ id: string; properties: Props; inputs?: Props }>;
  update(urn: string, id: string, olds: Props, news: Props): Promise<{ properties: Props }>;
  /** Delete; `oldInputs` is sent too, as the engine sends it (the 3.270 host does not pass it on). */
  delete(urn: string, id: string, properties: Props, oldInputs?: Props): Promise<void>;
  /** Everything the host wrote to stderr so far (tests assert no secret leaks there). */
  stderr(): string;
  /**
   * Everything the host wrote to stderr, once it includes `text`. The host logs on its stderr pipe, which is not
   * ordered with its gRPC replies: a line about a call may arrive after the call's answer.
   */
  stderrIncluding(text: string, timeoutMs?: number): Promise<string>;
  /** Stops the engine stub at once, as `kill -9` of the engine would: its address then refuses connections. */
  stopEngine(): void;
  /** Resolves with the host's exit code (or signal) when it exits. */
  exited: Promise<number | string | null>;
  /** Stops the host and the engine stub. */
  close(): Promise<void>;
}

/** A URN of the shape the engine sends, for a dynamic resource of `kind`. */
export function urnOf(kind: string, name: string, project = "observability-test"): string {
  return `urn:pulumi:dev::${project}::pulumi-nodejs:dynamic/observability:${kind}::${name}`;
}

function toStruct(v: Props): any {
  return Struct.fromJavaScript(JSON.parse(JSON.stringify(v)));
}

/** A stub Engine service: the host insists on an engine address, and only ever logs to it. */
async function startEngineStub(): Promise<{ address: string; server: grpc.Server }> {
  const server = new grpc.Server();
  const reply = (_call: unknown, callback: grpc.sendUnaryData<any>) => callback(null, new Empty());
  const impl: Record<string, grpc.handleUnaryCall<any, any>> = {};
  for (const name of Object.keys(engineGrpc.EngineService)) impl[name] = reply;
  server.addService(engineGrpc.EngineService, impl);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return { address: `127.0.0.1:${port}`, server };
}

/** A fresh program directory in which `require("pulumi-observability/…")` resolves to this repo. */
export function linkedProgramDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "obs-program-"));
  mkdirSync(path.join(dir, "node_modules"));
  symlinkSync(REPO_ROOT, path.join(dir, "node_modules", "pulumi-observability"), "dir");
  return dir;
}

/** Spawns the host (asynchronously: the in-process emulator must keep serving), configures nothing yet. */
export async function startProviderHost(options: ProviderHostOptions): Promise<ProviderHost> {
  const dynamicEntry = path.join(REPO_ROOT, "dist", "provider", "resources", "dynamic.js");
  if (!existsSync(dynamicEntry)) {
    throw new Error(`startProviderHost: ${dynamicEntry} is missing; run \`npm run build\` first`);
  }
  const project = options.project ?? "observability-test";
  const tempDir = options.cwd ? undefined : linkedProgramDir();
  const engine = await startEngineStub();
  const nodeBin = path.join(REPO_ROOT, "node_modules", ".bin", "node");
  const child: ChildProcess = spawn(
    existsSync(nodeBin) ? nodeBin : process.execPath,
    [options.hostEntry ?? require.resolve("@pulumi/pulumi/cmd/dynamic-provider"), engine.address],
    {
      cwd: options.cwd ?? tempDir,
      env: {
        ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("OBSERVABILITY_"))),
        ...options.env,
        PULUMI_NODEJS_PROJECT: project,
        PULUMI_PROJECT: project,
        PULUMI_CONFIG: JSON.stringify(options.config),
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  let engineStopped = false;
  const exited = new Promise<number | string | null>((resolve) =>
    child.once("exit", (code, signal) => resolve(code ?? signal)),
  );
  const port = await new Promise<number>((resolve, reject) => {
    let out = "";
    const onData = (d: Buffer) => {
      out += d.toString();
      const line = out.split("\n")[0];
      if (out.includes("\n") && /^\d+$/.test(line.trim())) {
        child.stdout!.off("data", onData);
        resolve(Number(line.trim()));
      }
    };
    child.stdout!.on("data", onData);
    child.once("exit", (code) => reject(new Error(`dynamic-provider host exited (${code}): ${stderr}`)));
    setTimeout(
      () => reject(new Error(`dynamic-provider host did not report a port: ${stderr}`)),
      30_000,
    ).unref();
  });
  const client = new providerGrpc.ResourceProviderClient(
    `127.0.0.1:${port}`,
    grpc.credentials.createInsecure(),
  );
  const call = <T>(method: string, req: unknown): Promise<T> =>
    new Promise((resolve, reject) =>
      client[method](req, (err: grpc.ServiceError | null, resp: T) =>
        err ? reject(grpcFailure(err)) : resolve(resp),
      ),
    );

  return {
    pid: child.pid!,
    async configure() {
      const args: Props = {};
      for (const [k, v] of Object.entries(options.config)) {
        args[k] = options.secretKeys?.includes(k) ? { [SECRET_SIG]: SECRET_VALUE_SIG, value: v } : v;
      }
      const req = new providerPb.ConfigureRequest();
      req.setArgs(toStruct(args));
      req.setAcceptsecrets(true);
      await call("configure", req);
    },
    async check(urn, olds, news) {
      const req = new providerPb.CheckRequest();
      req.setUrn(urn);
      req.setOlds(toStruct(olds));
      req.setNews(toStruct(news));
      const resp: any = await call("check", req);
      return {
        inputs: resp.getInputs()?.toJavaScript() ?? {},
        failures: resp
          .getFailuresList()
          .map((f: any) => ({ property: f.getProperty(), reason: f.getReason() })),
      };
    },
    async diff(urn, id, olds, news) {
      const req = new providerPb.DiffRequest();
      req.setUrn(urn);
      req.setId(id);
      req.setOlds(toStruct(olds));
      req.setNews(toStruct(news));
      const resp: any = await call("diff", req);
      const kinds = { 0: "unknown", 1: "none", 2: "some" } as const;
      return {
        changes: kinds[resp.getChanges() as 0 | 1 | 2],
        replaces: resp.getReplacesList(),
        deleteBeforeReplace: resp.getDeletebeforereplace(),
      };
    },
    async create(urn, properties) {
      const req = new providerPb.CreateRequest();
      req.setUrn(urn);
      req.setProperties(toStruct(properties));
      const resp: any = await call("create", req);
      return { id: resp.getId(), properties: resp.getProperties()?.toJavaScript() ?? {} };
    },
    async read(urn, id, properties, inputs) {
      const req = new providerPb.ReadRequest();
      req.setUrn(urn);
      req.setId(id);
      req.setProperties(toStruct(properties));
      if (inputs) req.setInputs(toStruct(inputs));
      const resp: any = await call("read", req);
      return {
        id: resp.getId(),
        properties: resp.getProperties()?.toJavaScript() ?? {},
        inputs: resp.getInputs()?.toJavaScript(),
      };
    },
    async update(urn, id, olds, news) {
      const req = new providerPb.UpdateRequest();
      req.setUrn(urn);
      req.setId(id);
      req.setOlds(toStruct(olds));
      req.setNews(toStruct(news));
      const resp: any = await call("update", req);
      return { properties: resp.getProperties()?.toJavaScript() ?? {} };
    },
    async delete(urn, id, properties, oldInputs) {
      const req = new providerPb.DeleteRequest();
      req.setUrn(urn);
      req.setId(id);
      req.setProperties(toStruct(properties));
      if (oldInputs) req.setOldInputs(toStruct(oldInputs));
      await call("delete", req);
    },
    stderr: () => stderr,
    async stderrIncluding(text, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!stderr.includes(text)) {
        if (Date.now() > deadline)
          throw new Error(`the host's stderr did not include ${JSON.stringify(text)}: ${stderr}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return stderr;
    },
    stopEngine() {
      engineStopped = true;
      engine.server.forceShutdown();
    },
    exited,
    async close() {
      client.close();
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        await exited;
      }
      if (!engineStopped) await new Promise<void>((resolve) => engine.server.tryShutdown(() => resolve()));
      if (tempDir) rmSync(tempDir, { recursive: true, force: true });
    },
  };
}

/**
 * A host configured with the emulator's url and token (the token secret, as the engine sends stack secrets), and
 * a client to look at the service directly: the set-up every host-driven test file shares.
 */
export async function startConfiguredHost(em: {
  url: string;
  token: string;
}): Promise<{ host: ProviderHost; client: ObservabilityClient }> {
  const host = await startProviderHost({
    config: { "observability:token": em.token, "observability:url": em.url },
    secretKeys: ["observability:token"],
  });
  await host.configure();
  return { host, client: new ObservabilityClient({ url: em.url, token: em.token }) };
}
