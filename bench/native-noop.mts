/**
 * A native resource provider plugin that does nothing, for bench/engine.mts: the baseline of the native
 * provider's cases. It serves the ResourceProvider gRPC service on @pulumi/pulumi's generated stubs, as the
 * native provider does (provider/native/server.ts), and answers every call at once: Check returns the inputs,
 * Diff finds no change, Create returns a fresh id with the inputs as outputs, Read returns what it was given.
 * Its type tokens are `benchnoop:index:<anything>`; the bench starts it through a launcher named
 * `pulumi-resource-benchnoop` on PATH, which prints the port first, as every plugin does.
 */
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
/* eslint-disable @typescript-eslint/no-explicit-any */
const grpc = require("@grpc/grpc-js") as typeof import("@grpc/grpc-js");
const { Empty } = require("google-protobuf/google/protobuf/empty_pb");
const providerGrpc = require("@pulumi/pulumi/proto/provider_grpc_pb");
const providerPb = require("@pulumi/pulumi/proto/provider_pb");
const pluginPb = require("@pulumi/pulumi/proto/plugin_pb");

let ids = 0;
const unary =
  (run: (req: any) => any) => (call: { request: any }, callback: (err: null, resp: any) => void) =>
    callback(null, run(call.request));

const service = {
  getPluginInfo: unary(() => {
    const info = new pluginPb.PluginInfo();
    info.setVersion("0.0.1");
    return info;
  }),
  getSchema: unary(() => {
    const resp = new providerPb.GetSchemaResponse();
    resp.setSchema(JSON.stringify({ name: "benchnoop", version: "0.0.1" }));
    return resp;
  }),
  checkConfig: unary((req) => {
    const resp = new providerPb.CheckResponse();
    resp.setInputs(req.getNews());
    return resp;
  }),
  diffConfig: unary(() => {
    const resp = new providerPb.DiffResponse();
    resp.setChanges(providerPb.DiffResponse.DiffChanges.DIFF_NONE);
    return resp;
  }),
  configure: unary(() => {
    const resp = new providerPb.ConfigureResponse();
    resp.setAcceptsecrets(true);
    return resp;
  }),
  check: unary((req) => {
    const resp = new providerPb.CheckResponse();
    resp.setInputs(req.getNews());
    return resp;
  }),
  diff: unary(() => {
    const resp = new providerPb.DiffResponse();
    resp.setChanges(providerPb.DiffResponse.DiffChanges.DIFF_NONE);
    return resp;
  }),
  create: unary((req) => {
    const resp = new providerPb.CreateResponse();
    resp.setId(`noop-${process.pid}-${++ids}`);
    resp.setProperties(req.getProperties());
    return resp;
  }),
  read: unary((req) => {
    const resp = new providerPb.ReadResponse();
    resp.setId(req.getId());
    resp.setProperties(req.getProperties());
    resp.setInputs(req.getInputs());
    return resp;
  }),
  update: unary((req) => {
    const resp = new providerPb.UpdateResponse();
    resp.setProperties(req.getNews());
    return resp;
  }),
  delete: unary(() => new Empty()),
  cancel: unary(() => new Empty()),
};

const server = new grpc.Server({ "grpc.max_receive_message_length": 400 * 1024 * 1024 });
server.addService(providerGrpc.ResourceProviderService, service as any);
server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, port) => {
  if (err) {
    process.stderr.write(`pulumi-resource-benchnoop: ${err.message}\n`);
    process.exit(1);
  }
  process.stdout.write(`${port}\n`);
});
