/**
 * A stand-in for the Node.js, Python and Go language hosts (`pulumi-language-nodejs`, `-python`, `-go`) in the one
 * command that needs them here: `pulumi new <template> --generate-only`. None of those hosts is served to the
 * machines these tests run on (docs/languages.md), and `pulumi new` loads the project's host even when it generates
 * files only (pulumi/pulumi pkg/cmd/pulumi/project/newcmd/new.go, runNew: LanguageRuntime, then
 * promptRuntimeOptions and languageTemplate).
 *
 * It answers those two calls as the real hosts do for the options this repository's templates set, read at the
 * source (pulumi/pulumi sdk/nodejs/cmd/pulumi-language-nodejs/main.go, sdk/python/cmd/pulumi-language-python/
 * main.go with sdk/python/toolchain/pip.go, sdk/go/pulumi-language-go/main.go):
 * - RuntimeOptionsPrompts: Node.js asks for `packagemanager` when the project does not set it; Python for
 *   `toolchain` when unset, then for `virtualenv` under pip; Go asks nothing. Where the real host would ask, this
 *   one fails naming the option, so a template that would make `pulumi new --yes` guess fails here.
 * - Template: nothing to do for Node.js, Go, and Python under pip (requirements.txt is already pip's form); for
 *   another Python toolchain the real host rewrites the project, which this one cannot, so it fails saying so.
 * - GetPluginInfo, which the engine asks of every plugin it loads: version 0.0.0-stand-in.
 * Every other call (Run, InstallDependencies, …) is left unimplemented: no program ever runs on this stand-in.
 *
 *     node new-host.mts <nodejs|python|go>      (the engine's address, its first argument, is not used)
 *
 * It prints its port, as a language host does, and serves until the engine stops it. When NEW_HOST_LOG names a
 * file, each call served is appended to it, one line each: the tests check what `pulumi new` asked.
 */
import { appendFileSync } from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import type * as grpcTypes from "@grpc/grpc-js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const require = createRequire(path.join(ROOT, "package.json"));
const grpc = require("@grpc/grpc-js") as typeof grpcTypes;
const languageGrpc = require("@pulumi/pulumi/proto/language_grpc_pb.js");
const languagePb = require("@pulumi/pulumi/proto/language_pb.js");
const pluginPb = require("@pulumi/pulumi/proto/plugin_pb.js");
/** What GetPluginInfo answers: a version that names itself, never mistaken for a host Pulumi released. */
const STAND_IN_VERSION = "0.0.0-stand-in";

const RUNTIMES = ["nodejs", "python", "go"] as const;
type Runtime = (typeof RUNTIMES)[number];

/** The option the real host would prompt for, given the project's runtime options, or undefined. */
export function wouldPrompt(runtime: Runtime, options: Record<string, unknown>): string | undefined {
  if (runtime === "nodejs" && !("packagemanager" in options)) return "packagemanager";
  if (runtime === "python") {
    if (!("toolchain" in options)) return "toolchain";
    if (options.toolchain === "pip" && !("virtualenv" in options)) return "virtualenv";
  }
  return undefined;
}

/** Why the real host's Template would change the project where this one cannot, or undefined. */
export function wouldRewrite(runtime: Runtime, options: Record<string, unknown>): string | undefined {
  if (runtime === "python" && options.toolchain !== "pip")
    return `toolchain ${String(options.toolchain)}: the real host converts requirements.txt for it`;
  return undefined;
}

type Call = {
  request: { getInfo(): { getOptions(): { toJavaScript(): Record<string, unknown> } | undefined } };
};
type Callback = (err: Partial<grpcTypes.ServiceError> | null, response?: unknown) => void;

function log(line: string): void {
  if (process.env.NEW_HOST_LOG) appendFileSync(process.env.NEW_HOST_LOG, `${line}\n`);
}

function refuse(runtime: Runtime, reason: string, callback: Callback): void {
  log(`refused: ${reason}`);
  callback({
    code: grpc.status.FAILED_PRECONDITION,
    details: `pulumi-language-${runtime} (stand-in): ${reason}`,
  });
}

function main(): void {
  const runtime = process.argv[2] as Runtime;
  if (!RUNTIMES.includes(runtime)) {
    console.error(`usage: node new-host.mts <${RUNTIMES.join("|")}>`);
    process.exit(2);
  }
  const options = (call: Call) => call.request.getInfo()?.getOptions()?.toJavaScript() ?? {};
  const server = new grpc.Server();
  server.addService(languageGrpc.LanguageRuntimeService, {
    // Asked as the engine loads any plugin.
    getPluginInfo: (_call: unknown, callback: Callback) => {
      log("GetPluginInfo");
      callback(null, new pluginPb.PluginInfo().setVersion(STAND_IN_VERSION));
    },
    runtimeOptionsPrompts: (call: Call, callback: Callback) => {
      const option = wouldPrompt(runtime, options(call));
      if (option)
        return refuse(runtime, `the real host would prompt for the runtime option ${option}`, callback);
      log("RuntimeOptionsPrompts");
      callback(null, new languagePb.RuntimeOptionsResponse());
    },
    template: (call: Call, callback: Callback) => {
      const rewrite = wouldRewrite(runtime, options(call));
      if (rewrite) return refuse(runtime, rewrite, callback);
      log("Template");
      callback(null, new languagePb.TemplateResponse());
    },
  });
  server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, port) => {
    if (err) {
      console.error(`new-host: ${err.message}`);
      process.exit(1);
    }
    console.log(port);
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
