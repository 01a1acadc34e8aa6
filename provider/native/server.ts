/**
 * The ResourceProvider gRPC service (pulumi/pulumi proto/pulumi/provider.proto), served on the stubs generated
 * into @pulumi/pulumi (proto/provider_grpc_pb.js). Served here rather than through @pulumi/pulumi/provider's
 * `main()`, whose server answers CheckConfig and DiffConfig with UNIMPLEMENTED and drops the configuration that
 * Configure carries, and whose Diff has no detailed diff.
 *
 * Secrets: Configure answers `acceptSecrets`, so values arrive marked secret (values.ts) and the engine does not
 * mark anything secret on the way back (pulumi/pulumi pkg/resource/plugin/provider_plugin.go): every answer marks
 * the kind's credential keys secret itself, and any key that held a secret in the request.
 */
import * as grpc from "@grpc/grpc-js";
import { Any } from "google-protobuf/google/protobuf/any_pb";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { PartialCreateError } from "../resources/partial-create";
import type * as Terraform from "../terraform";
import { TERRAFORM_KEY, TERRAFORM_PROVIDER } from "../terraform/name";
import type { ResourceKind } from "../resources/registry";
import { sameJson } from "../resources/values";
import {
  CONFIG_NAMES,
  NativeProvider,
  configFailures,
  configFromRequest,
  kindOfType,
  kindOfUrn,
} from "./provider";
import { unwrapProps, wrapProps } from "./values";

/* eslint-disable @typescript-eslint/no-explicit-any */
const providerGrpc = require("@pulumi/pulumi/proto/provider_grpc_pb");
const providerPb = require("@pulumi/pulumi/proto/provider_pb");
const pluginPb = require("@pulumi/pulumi/proto/plugin_pb");
const statusPb = require("@pulumi/pulumi/proto/status_pb");

type Props = Record<string, unknown>;

/** A Struct of an answer; every answer comes through wrapProps, whose copy is plain JSON already (no undefined). */
const toStruct = (v: Props): any => Struct.fromJavaScript(v as Parameters<typeof Struct.fromJavaScript>[0]);
const fromStruct = (s: any): Props => (s ? (s.toJavaScript() as Props) : {});

/** What the server needs besides the provider: its version and its schema's text. */
export interface ServerOptions {
  version: string;
  schema: string;
  /** The provider; a new one by default. */
  provider?: NativeProvider;
  /** The engine's gRPC address, which the engine passes as the plugin's first argument: Construct registers with it. */
  engineAddress?: string;
}

/** A gRPC error the engine shows as the message. */
function failure(message: string): Partial<grpc.StatusObject> {
  return { code: grpc.status.UNKNOWN, details: message };
}

/**
 * The gRPC error of a create that made its object and then failed: a `google.rpc.Status` whose detail is a
 * `pulumirpc.ErrorResourceInitFailed` with the object's id, outputs and inputs, sent in the
 * `grpc-status-details-bin` trailer, as @pulumi/pulumi's own provider server does (provider/server.js,
 * `grpcResponseFromError`). The engine reads it as a partial failure and records the object with the reasons as
 * its initialization errors (pulumi/pulumi pkg/resource/plugin/provider_plugin.go, `parseError`).
 */
export function partialCreateStatus(
  message: string,
  e: PartialCreateError,
  properties: Props,
  inputs: Props,
): Partial<grpc.StatusObject> {
  const detail = new providerPb.ErrorResourceInitFailed();
  detail.setId(e.id);
  detail.setProperties(toStruct(properties));
  detail.setInputs(toStruct(inputs));
  detail.setReasonsList([message]);
  const any = new Any();
  any.pack(detail.serializeBinary(), "pulumirpc.ErrorResourceInitFailed");
  const status = new statusPb.Status();
  status.setCode(grpc.status.UNKNOWN);
  status.setMessage(message);
  status.addDetails(any);
  const metadata = new grpc.Metadata();
  metadata.add("grpc-status-details-bin", Buffer.from(status.serializeBinary()));
  return { code: grpc.status.UNKNOWN, details: message, metadata };
}

/** The service's implementation for one provider. */
export function resourceProviderService(options: ServerOptions): grpc.UntypedServiceImplementation {
  const provider = options.provider ?? new NativeProvider();

  // Every unary method: errors become a gRPC error whose text is scrubbed of the token.
  const unary =
    (run: (req: any) => Promise<any>) =>
    (call: grpc.ServerUnaryCall<any, any>, callback: grpc.sendUnaryData<any>) => {
      run(call.request).then(
        (resp) => callback(null, resp),
        (e: unknown) => callback(failure(provider.message(e)), null),
      );
    };

  const kindOf = (req: any): ResourceKind => {
    const type: string = typeof req.getType === "function" ? req.getType() : "";
    const kind = (type ? kindOfType(type) : undefined) ?? kindOfUrn(req.getUrn());
    if (!kind)
      throw new Error(`observability: this provider serves no resource of type ${type || req.getUrn()}`);
    return kind;
  };
  // The keys answered secret: the kind's credentials, and those that held a secret in the request.
  const secretOutputs = (kind: ResourceKind, ...held: Set<string>[]) => [
    ...provider.secretKeys(kind).outputs,
    ...provider.secretKeys(kind).inputs,
    ...held.flatMap((s) => [...s]),
  ];
  const secretInputs = (kind: ResourceKind, ...held: Set<string>[]) => [
    ...provider.secretKeys(kind).inputs,
    ...held.flatMap((s) => [...s]),
  ];

  return {
    getPluginInfo: unary(async () => {
      const info = new pluginPb.PluginInfo();
      info.setVersion(options.version);
      return info;
    }),

    getSchema: unary(async () => {
      const resp = new providerPb.GetSchemaResponse();
      resp.setSchema(options.schema);
      return resp;
    }),

    checkConfig: unary(async (req) => {
      const news = fromStruct(req.getNews());
      const { plain, secretKeys } = unwrapProps(news);
      const resp = new providerPb.CheckResponse();
      resp.setInputs(toStruct(wrapProps(plain, ["token", ...secretKeys])));
      for (const f of configFailures(plain)) {
        const failure = new providerPb.CheckFailure();
        failure.setProperty(f.property);
        failure.setReason(f.reason);
        resp.addFailures(failure);
      }
      return resp;
    }),

    diffConfig: unary(async (req) => {
      const olds = unwrapProps(fromStruct(req.getOldInputs?.() ?? req.getOlds())).plain;
      const news = unwrapProps(fromStruct(req.getNews())).plain;
      const diffs = CONFIG_NAMES.filter((k) => !sameJson(olds[k] ?? null, news[k] ?? null));
      const resp = new providerPb.DiffResponse();
      resp.setChanges(
        diffs.length > 0
          ? providerPb.DiffResponse.DiffChanges.DIFF_SOME
          : providerPb.DiffResponse.DiffChanges.DIFF_NONE,
      );
      resp.setDiffsList(diffs);
      resp.setStablesList(CONFIG_NAMES.filter((k) => !diffs.includes(k)));
      return resp;
    }),

    configure: unary(async (req) => {
      const args = unwrapProps(fromStruct(req.getArgs())).plain;
      const variables: Record<string, string> = {};
      req.getVariablesMap().forEach((value: string, key: string) => (variables[key] = value));
      await provider.configure(configFromRequest(args, variables));
      const resp = new providerPb.ConfigureResponse();
      resp.setAcceptsecrets(true);
      resp.setAcceptresources(false);
      // Create and Update are not called at preview: the engine shows the inputs as the outputs to come.
      resp.setSupportspreview(false);
      return resp;
    }),

    check: unary(async (req) => {
      const kind = kindOf(req);
      const olds = unwrapProps(fromStruct(req.getOlds()));
      const news = unwrapProps(fromStruct(req.getNews()));
      const result = await provider.check(kind, olds.plain, news.plain);
      const resp = new providerPb.CheckResponse();
      resp.setInputs(toStruct(wrapProps(result.inputs ?? {}, secretInputs(kind, news.secretKeys))));
      for (const f of result.failures ?? []) {
        const failure = new providerPb.CheckFailure();
        failure.setProperty(f.property);
        failure.setReason(f.reason);
        resp.addFailures(failure);
      }
      return resp;
    }),

    diff: unary(async (req) => {
      const kind = kindOf(req);
      const olds = unwrapProps(fromStruct(req.getOlds())).plain;
      const news = unwrapProps(fromStruct(req.getNews())).plain;
      const result = await provider.diff(kind, req.getId(), olds, news);
      const Kind = providerPb.PropertyDiff.Kind;
      const resp = new providerPb.DiffResponse();
      resp.setChanges(
        result.changes
          ? providerPb.DiffResponse.DiffChanges.DIFF_SOME
          : providerPb.DiffResponse.DiffChanges.DIFF_NONE,
      );
      resp.setReplacesList(result.replaces ?? []);
      resp.setStablesList(result.stables ?? []);
      resp.setDeletebeforereplace(result.deleteBeforeReplace === true);
      resp.setDiffsList(result.diffs);
      // One entry per changed input, so the CLI shows what changed and what replaces, and the user's
      // `replaceOnChanges` has something to act on.
      const detailed = resp.getDetaileddiffMap();
      for (const key of result.diffs) {
        const replaces = (result.replaces ?? []).includes(key);
        const had = olds[key] !== undefined && olds[key] !== null;
        const has = news[key] !== undefined && news[key] !== null;
        const entry = new providerPb.PropertyDiff();
        entry.setKind(
          !had && has
            ? replaces
              ? Kind.ADD_REPLACE
              : Kind.ADD
            : had && !has
              ? replaces
                ? Kind.DELETE_REPLACE
                : Kind.DELETE
              : replaces
                ? Kind.UPDATE_REPLACE
                : Kind.UPDATE,
        );
        entry.setInputdiff(true);
        detailed.set(key, entry);
      }
      resp.setHasdetaileddiff(true);
      return resp;
    }),

    create: (call: grpc.ServerUnaryCall<any, any>, callback: grpc.sendUnaryData<any>) => {
      let answer: ((e: PartialCreateError) => Partial<grpc.StatusObject>) | undefined;
      const run = async () => {
        const kind = kindOf(call.request);
        const news = unwrapProps(fromStruct(call.request.getProperties()));
        // A create that made its object and failed after: the object goes to the engine with the error.
        answer = (e) =>
          partialCreateStatus(
            provider.message(e),
            e,
            wrapProps(e.properties, secretOutputs(kind, news.secretKeys)),
            wrapProps(e.inputs, secretInputs(kind, news.secretKeys)),
          );
        const result = await provider.lifecycle(kind).create(news.plain);
        const resp = new providerPb.CreateResponse();
        resp.setId(result.id);
        resp.setProperties(toStruct(wrapProps(result.outs ?? {}, secretOutputs(kind, news.secretKeys))));
        return resp;
      };
      run().then(
        (resp) => callback(null, resp),
        (e: unknown) =>
          callback(
            e instanceof PartialCreateError && answer ? answer(e) : failure(provider.message(e)),
            null,
          ),
      );
    },

    read: unary(async (req) => {
      const kind = kindOf(req);
      const props = unwrapProps(fromStruct(req.getProperties()));
      const inputs = unwrapProps(fromStruct(req.getInputs()));
      const result = await provider.lifecycle(kind).read(req.getId(), props.plain);
      const resp = new providerPb.ReadResponse();
      if (!result.id) return resp; // gone: the engine drops the resource (refresh) or fails the import
      resp.setId(result.id);
      resp.setProperties(
        toStruct(wrapProps(result.props ?? {}, secretOutputs(kind, props.secretKeys, inputs.secretKeys))),
      );
      resp.setInputs(toStruct(wrapProps(result.inputs ?? {}, secretInputs(kind, inputs.secretKeys))));
      return resp;
    }),

    update: unary(async (req) => {
      const kind = kindOf(req);
      const olds = unwrapProps(fromStruct(req.getOlds()));
      const news = unwrapProps(fromStruct(req.getNews()));
      const result = await provider.lifecycle(kind).update(req.getId(), olds.plain, news.plain);
      const resp = new providerPb.UpdateResponse();
      resp.setProperties(
        toStruct(wrapProps(result.outs ?? {}, secretOutputs(kind, olds.secretKeys, news.secretKeys))),
      );
      return resp;
    }),

    delete: unary(async (req) => {
      const kind = kindOf(req);
      const props = unwrapProps(fromStruct(req.getProperties())).plain;
      await provider.lifecycle(kind).delete(req.getId(), props);
      return new Empty();
    }),

    invoke: unary(async (req) => {
      const args = unwrapProps(fromStruct(req.getArgs())).plain;
      const { result, failures, secretKeys } = await provider.invoke(req.getTok(), args);
      const resp = new providerPb.InvokeResponse();
      if (result) {
        const items = result.items as Props[] | undefined;
        const wrapped = items
          ? { items: items.map((item) => wrapProps(item, secretKeys)) }
          : wrapProps(result, secretKeys);
        resp.setReturn(toStruct(wrapped));
      }
      for (const f of failures) {
        const failure = new providerPb.CheckFailure();
        failure.setProperty(f.property);
        failure.setReason(f.reason);
        resp.addFailures(failure);
      }
      return resp;
    }),

    // Conversion from Terraform (`pulumi import --from terraform`, `pulumi convert --from terraform`): the engine's
    // mapper (pulumi/pulumi pkg/codegen/convert/base_plugin_mapper.go) asks every installed plugin which source
    // providers it maps, then for the mapping of the one it needs, or blindly with an empty provider. A key or
    // provider not ours gets an empty answer, not an error: an error would fail the conversion of every other
    // provider while this plugin is installed (provider.proto: "an empty response (not an error)").
    getMappings: unary(async (req) => {
      const resp = new providerPb.GetMappingsResponse();
      resp.setProvidersList(req.getKey() === TERRAFORM_KEY ? [TERRAFORM_PROVIDER] : []);
      return resp;
    }),

    getMapping: unary(async (req) => {
      const resp = new providerPb.GetMappingResponse();
      const asked: string = req.getProvider();
      if (req.getKey() === TERRAFORM_KEY && (asked === TERRAFORM_PROVIDER || asked === "")) {
        // The table is loaded here, at the first ask, not with the plugin: most runs never convert.
        const { terraformMapping } = require("../terraform") as typeof Terraform;
        resp.setProvider(TERRAFORM_PROVIDER);
        resp.setData(Buffer.from(JSON.stringify(terraformMapping(options.version))));
      }
      return resp;
    }),

    // Ctrl-C: no new service work from now on; the requests in flight finish and reach the engine
    // (resources/cancellation.ts).
    cancel: unary(async () => {
      provider.cancel();
      return new Empty();
    }),

    // A component (the Slo) made for a program in any language (construct.ts), loaded at its first use: it
    // loads @pulumi/pulumi's runtime, which no other call needs, so the plugin's start does not pay for it.
    construct: unary(async (req) =>
      (require("./construct") as typeof import("./construct")).construct(req, options.engineAddress),
    ),
  };
}

/** Serves the provider on 127.0.0.1 at a free port; resolves to the port and a way to stop. */
export async function serve(options: ServerOptions): Promise<{ port: number; close(): Promise<void> }> {
  const server = new grpc.Server({
    // The engine sends whole states in one message; the default 4 MB is too small for a large dashboard.
    "grpc.max_receive_message_length": 400 * 1024 * 1024,
    "grpc.max_send_message_length": 400 * 1024 * 1024,
  });
  server.addService(providerGrpc.ResourceProviderService, resourceProviderService(options));
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.tryShutdown(() => resolve());
      }),
  };
}
