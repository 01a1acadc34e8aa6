/**
 * The native provider's gRPC service, served in this process (provider/native/server.ts) and driven over gRPC
 * as the engine drives a plugin: plain JS objects in, plain JS objects out, secrets as the engine marshals them
 * (`{[SIG_KEY]: SECRET_SIG, value}`). The style of host.ts, without a child process.
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";
import * as grpc from "@grpc/grpc-js";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { sourceDocs } from "../../provider/native/docs";
import { packageSchema, type PackageSpec } from "../../provider/native/schema";
import { serve } from "../../provider/native/server";
import { KINDS } from "../../provider/resources/registry";
import { SECRET_SIG, SIG_KEY } from "../../provider/native/values";
import { grpcFailure } from "./init-failure";

/* eslint-disable @typescript-eslint/no-explicit-any */
const providerGrpc = require("@pulumi/pulumi/proto/provider_grpc_pb");
const providerPb = require("@pulumi/pulumi/proto/provider_pb");

type Props = Record<string, unknown>;

export const REPO_ROOT = path.resolve(__dirname, "..", "..");

/** The schema the build writes and the plugin serves. */
export const BUILT_SCHEMA = path.join(REPO_ROOT, "dist", "provider", "native", "schema.json");

let schemaText: string | undefined;
/**
 * The schema as the build wrote it (dist/provider/native/schema.json; `npm test` builds first). Generating it
 * means a TypeScript program over the sources, seconds of CPU, which every file that needed it once paid again;
 * now the build generates it once per run, and test/native/schema.test.ts checks that the build wrote what the
 * sources give ({@link generatedSchema}).
 */
export function schemaJson(): string {
  if (schemaText !== undefined) return schemaText;
  try {
    schemaText = readFileSync(BUILT_SCHEMA, "utf8");
  } catch {
    throw new Error(`${BUILT_SCHEMA} is missing: run npm run build`);
  }
  return schemaText;
}

/** The schema generated afresh from the sources, as the build generates it before adding each kind's examples. */
export function generatedSchema(): PackageSpec {
  return packageSchema(sourceDocs(REPO_ROOT, [...KINDS.keys()]), { version: "0.0.0-test" });
}

/** A value marked secret, as the engine sends one. */
export const secret = (value: unknown) => ({ [SIG_KEY]: SECRET_SIG, value });
/** Whether `v` is marked secret. */
export const isSecret = (v: unknown): boolean =>
  typeof v === "object" && v !== null && (v as Props)[SIG_KEY] === SECRET_SIG;

/** A URN of the shape the engine sends, for a native resource of `kind`. */
export function nativeUrn(kind: string, name: string): string {
  return `urn:pulumi:dev::native-test::observability:index:${kind}::${name}`;
}

const toStruct = (v: Props): any => Struct.fromJavaScript(JSON.parse(JSON.stringify(v)));

export interface NativeDiff {
  changes: "unknown" | "none" | "some";
  replaces: string[];
  stables: string[];
  diffs: string[];
  deleteBeforeReplace: boolean;
  detailedDiff: Record<string, { kind: string; inputDiff: boolean }>;
}

export interface NativeClient {
  configure(args: Props, variables?: Record<string, string>): Promise<{ acceptSecrets: boolean }>;
  checkConfig(news: Props): Promise<{ inputs: Props; failures: { property: string; reason: string }[] }>;
  diffConfig(olds: Props, news: Props): Promise<NativeDiff>;
  check(
    kind: string,
    olds: Props,
    news: Props,
  ): Promise<{ inputs: Props; failures: { property: string; reason: string }[] }>;
  diff(kind: string, id: string, olds: Props, news: Props): Promise<NativeDiff>;
  create(kind: string, properties: Props): Promise<{ id: string; properties: Props }>;
  read(
    kind: string,
    id: string,
    properties?: Props,
    inputs?: Props,
  ): Promise<{ id: string; properties: Props; inputs: Props }>;
  update(kind: string, id: string, olds: Props, news: Props): Promise<{ properties: Props }>;
  delete(kind: string, id: string, properties: Props): Promise<void>;
  invoke(
    tok: string,
    args: Props,
  ): Promise<{ result?: Props; failures: { property: string; reason: string }[] }>;
  getSchema(): Promise<string>;
  /** GetMappings: the source providers the plugin maps for `key`. */
  getMappings(key: string): Promise<string[]>;
  /** GetMapping: the mapping's provider and its data (bytes, as the engine receives them). */
  getMapping(key: string, provider: string): Promise<{ provider: string; data: Uint8Array }>;
  /** The engine's Cancel (Ctrl-C). */
  cancel(): Promise<void>;
  close(): Promise<void>;
}

const KIND_NAMES = Object.fromEntries(
  Object.entries(providerPb.PropertyDiff.Kind).map(([k, v]) => [v as number, k.toLowerCase()]),
);
const CHANGES = ["unknown", "none", "some"] as const;

function diffOf(resp: any): NativeDiff {
  const detailedDiff: NativeDiff["detailedDiff"] = {};
  resp.getDetaileddiffMap().forEach((v: any, k: string) => {
    detailedDiff[k] = { kind: KIND_NAMES[v.getKind()], inputDiff: v.getInputdiff() };
  });
  return {
    changes: CHANGES[resp.getChanges()],
    replaces: resp.getReplacesList(),
    stables: resp.getStablesList(),
    diffs: resp.getDiffsList(),
    deleteBeforeReplace: resp.getDeletebeforereplace(),
    detailedDiff,
  };
}

/** Serves a fresh provider in this process and connects to it. */
export async function startNative(): Promise<NativeClient> {
  const server = await serve({ version: "0.0.0-test", schema: schemaJson() });
  const client = new providerGrpc.ResourceProviderClient(
    `127.0.0.1:${server.port}`,
    grpc.credentials.createInsecure(),
  );
  const call = <T>(method: string, req: unknown): Promise<T> =>
    new Promise((resolve, reject) =>
      client[method](req, (err: grpc.ServiceError | null, resp: T) =>
        err ? reject(grpcFailure(err)) : resolve(resp),
      ),
    );
  const failuresOf = (resp: any) =>
    resp.getFailuresList().map((f: any) => ({ property: f.getProperty(), reason: f.getReason() }));
  return {
    async configure(args, variables = {}) {
      const req = new providerPb.ConfigureRequest();
      req.setArgs(toStruct(args));
      for (const [k, v] of Object.entries(variables)) req.getVariablesMap().set(k, v);
      req.setAcceptsecrets(true);
      const resp: any = await call("configure", req);
      return { acceptSecrets: resp.getAcceptsecrets() };
    },
    async checkConfig(news) {
      const req = new providerPb.CheckRequest();
      req.setUrn("urn:pulumi:dev::native-test::pulumi:providers:observability::p");
      req.setOlds(toStruct({}));
      req.setNews(toStruct(news));
      const resp: any = await call("checkConfig", req);
      return { inputs: resp.getInputs()?.toJavaScript() ?? {}, failures: failuresOf(resp) };
    },
    async diffConfig(olds, news) {
      const req = new providerPb.DiffRequest();
      req.setUrn("urn:pulumi:dev::native-test::pulumi:providers:observability::p");
      req.setOlds(toStruct(olds));
      req.setOldInputs(toStruct(olds));
      req.setNews(toStruct(news));
      return diffOf(await call("diffConfig", req));
    },
    async check(kind, olds, news) {
      const req = new providerPb.CheckRequest();
      req.setUrn(nativeUrn(kind, "r"));
      req.setType(`observability:index:${kind}`);
      req.setOlds(toStruct(olds));
      req.setNews(toStruct(news));
      const resp: any = await call("check", req);
      return { inputs: resp.getInputs()?.toJavaScript() ?? {}, failures: failuresOf(resp) };
    },
    async diff(kind, id, olds, news) {
      const req = new providerPb.DiffRequest();
      req.setUrn(nativeUrn(kind, "r"));
      req.setId(id);
      req.setOlds(toStruct(olds));
      req.setNews(toStruct(news));
      return diffOf(await call("diff", req));
    },
    async create(kind, properties) {
      const req = new providerPb.CreateRequest();
      req.setUrn(nativeUrn(kind, "r"));
      req.setProperties(toStruct(properties));
      const resp: any = await call("create", req);
      return { id: resp.getId(), properties: resp.getProperties()?.toJavaScript() ?? {} };
    },
    async read(kind, id, properties = {}, inputs = {}) {
      const req = new providerPb.ReadRequest();
      req.setUrn(nativeUrn(kind, "r"));
      req.setId(id);
      req.setProperties(toStruct(properties));
      req.setInputs(toStruct(inputs));
      const resp: any = await call("read", req);
      return {
        id: resp.getId(),
        properties: resp.getProperties()?.toJavaScript() ?? {},
        inputs: resp.getInputs()?.toJavaScript() ?? {},
      };
    },
    async update(kind, id, olds, news) {
      const req = new providerPb.UpdateRequest();
      req.setUrn(nativeUrn(kind, "r"));
      req.setId(id);
      req.setOlds(toStruct(olds));
      req.setNews(toStruct(news));
      const resp: any = await call("update", req);
      return { properties: resp.getProperties()?.toJavaScript() ?? {} };
    },
    async delete(kind, id, properties) {
      const req = new providerPb.DeleteRequest();
      req.setUrn(nativeUrn(kind, "r"));
      req.setId(id);
      req.setProperties(toStruct(properties));
      await call("delete", req);
    },
    async invoke(tok, args) {
      const req = new providerPb.InvokeRequest();
      req.setTok(tok);
      req.setArgs(toStruct(args));
      const resp: any = await call("invoke", req);
      return { result: resp.getReturn()?.toJavaScript(), failures: failuresOf(resp) };
    },
    async cancel() {
      await call("cancel", new Empty());
    },
    async getSchema() {
      const req = new providerPb.GetSchemaRequest();
      const resp: any = await call("getSchema", req);
      return resp.getSchema();
    },
    async getMappings(key) {
      const req = new providerPb.GetMappingsRequest();
      req.setKey(key);
      const resp: any = await call("getMappings", req);
      return resp.getProvidersList();
    },
    async getMapping(key, provider) {
      const req = new providerPb.GetMappingRequest();
      req.setKey(key);
      req.setProvider(provider);
      const resp: any = await call("getMapping", req);
      return { provider: resp.getProvider(), data: resp.getData_asU8() };
    },
    async close() {
      client.close();
      await server.close();
    },
  };
}
