/**
 * Shared by the benchmarks that drive the real dynamic-provider host: loading the TypeScript test helpers (the
 * host driver, the recorder of provider texts) from a bench script, the hand-written providers the host loads
 * as the other side of a comparison, and the CPU time a host process has used.
 */
import { existsSync, readFileSync } from "node:fs";
import Module from "node:module";
import * as path from "node:path";
import ts from "typescript";

/**
 * Lets `require` load the test helpers, which are TypeScript written for ts-jest (imports beside `require` and
 * `__dirname`) that Node's type stripping would load as ES modules; compiled to CommonJS here they load as jest
 * loads them. Call it before requiring any of them.
 */
export function requireTypeScriptAsCommonJs(): void {
  const extensions = (Module as unknown as { _extensions: Record<string, unknown> })._extensions;
  extensions[".ts"] = (module: { _compile(code: string, file: string): void }, filename: string) => {
    const out = ts.transpileModule(readFileSync(filename, "utf8"), {
      fileName: filename,
      compilerOptions: {
        module: ts.ModuleKind.CommonJS,
        target: ts.ScriptTarget.ES2022,
        esModuleInterop: true,
      },
    });
    module._compile(out.outputText, filename);
  };
}

/**
 * The floor a provider of one family could reach behind the same host: a provider module written by hand (the
 * host loads it as it loads any `__provider` text), with one undici Pool made at configure, and the same HTTP
 * calls as the package's provider (POST the inputs, GET, PUT the inputs, DELETE) with no validation, no
 * normalization, no retries and no error mapping. `undiciPath` is where undici is installed (the host resolves
 * bare names from the program's directory, which has only the package).
 */
export function floorProviderText(collection: string, undiciPath: string): string {
  return `
const { Pool } = require(${JSON.stringify(undiciPath)});
const collection = ${JSON.stringify(collection)};
let pool;
let headers;
async function call(method, path, inputs) {
  let body;
  let sent = headers;
  if (inputs !== undefined) {
    const { __provider, ...rest } = inputs;
    body = JSON.stringify(rest);
    sent = { ...headers, "content-type": "application/json" };
  }
  const res = await pool.request({ method, path, headers: sent, body });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(method + " " + path + ": " + res.statusCode + " " + text);
  return text === "" ? undefined : JSON.parse(text);
}
const split = (obj) => { const { id, ...outs } = obj; return { id, outs }; };
const provider = {
  async configure(req) {
    pool = new Pool(req.config.get("observability:url"), { connections: 16, keepAliveTimeout: 30000 });
    headers = { authorization: "Bearer " + req.config.get("observability:token"), accept: "application/json" };
  },
  async check(olds, news) { return { inputs: news }; },
  async diff(id, olds, news) { return { changes: false }; },
  async create(inputs) { return split(await call("POST", collection, inputs)); },
  async read(id) { const { outs } = split(await call("GET", collection + "/" + encodeURIComponent(id))); return { id, props: outs }; },
  async update(id, olds, news) { return { outs: split(await call("PUT", collection + "/" + encodeURIComponent(id), news)).outs }; },
  async delete(id) { await call("DELETE", collection + "/" + encodeURIComponent(id)); },
};
exports.handler = () => provider;
`;
}

/** CPU time of a process, from /proc (one helper for every bench). */
export { processCpuMs } from "./client-harness.ts";

/**
 * `kind`'s `__provider` text as a program that installed the package writes it (a require of the kind's shim
 * module: test/fixtures/shims/<version>-installed/, checked against a packed install by the consumer test), or
 * `fallback` when this version has none; `root` is the repository's. The recorder here loads the package from this repository, for which
 * @pulumi/pulumi copies the shim's functions instead; users' states hold the installed form.
 */
export function installedShimText(root: string, kind: string, fallback: string): string {
  const version = (JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { version: string })
    .version;
  const file = path.join(root, "test", "fixtures", "shims", `${version}-installed`, `${kind}.js`);
  return existsSync(file) ? readFileSync(file, "utf8") : fallback;
}
