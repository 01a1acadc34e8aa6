/**
 * One version everywhere a release publishes it (issue 32, point 6): package.json's `version` is the reference, and
 * checkVersions() throws one error naming every place that says otherwise:
 *
 * - the plugin's GetPluginInfo answer (the built plugin, started and asked over gRPC as the engine asks it);
 * - the schema's `version` (dist/provider/native/schema.json, which the plugin serves and the SDKs are made from);
 * - the Python distribution's version (sdk/python/pyproject.toml) and its plugin metadata (pulumi-plugin.json);
 * - the npm SDK's version (sdk/nodejs/package.json's `version` and `pulumi.version`);
 * - the Go tag `sdk/go/v<version>` as CONTRIBUTING.md's release checklist states it, and the Go module's path
 *   (the repository package.json names + /sdk/go; no /vN suffix below v2, as Go requires).
 *
 * `npm run release` calls it before writing anything. `node scripts/release-versions.mts` runs it alone
 * (`--root <checkout>`, `--plugin <launcher>` to read another copy).
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { GO_MODULE_SUBDIR, goModulePath } from "./sdkgen.mts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);

/** Where the versions are read: a checkout (by default this one) and the plugin launcher to ask. */
export interface VersionSources {
  /** The checkout's root. */
  root?: string;
  /** The plugin's launcher; default `<root>/dist/plugin/pulumi-resource-observability` (`npm run build`). */
  plugin?: string;
}

/** One place that states a version, and what it states (undefined: it states none). */
export interface VersionPlace {
  place: string;
  version: string | undefined;
}

function readJson(file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
}

/** `[project] version = "…"` of a pyproject.toml (the one key this needs; no TOML parser for one string). */
export function pyprojectVersion(text: string): string | undefined {
  const project = /^\s*\[project\]\s*$([\s\S]*?)(?=^\s*\[(?!project\.)|(?![\s\S]))/m.exec(text)?.[1] ?? "";
  return /^\s*version\s*=\s*"([^"]*)"/m.exec(project)?.[1];
}

/** The Go tags `sdk/go/v…` the release checklist (CONTRIBUTING.md, section "Release checklist") names. */
export function checklistGoTags(contributing: string): string[] {
  const start = contributing.search(/^#+ Release checklist/m);
  if (start < 0) return [];
  const rest = contributing.slice(start);
  const body = rest.indexOf("\n") + 1;
  const next = rest.slice(body).search(/^#{1,3} /m);
  const section = next < 0 ? rest : rest.slice(0, body + next);
  const tag = new RegExp(`\\b${GO_MODULE_SUBDIR.replace("/", "\\/")}\\/(v[0-9][^\\s\`'"]*)`, "g");
  return [...section.matchAll(tag)].map((m) => m[1]);
}

/** The plugin's answer to GetPluginInfo: starts the launcher, reads its port, asks, stops it. */
export async function pluginVersion(launcher: string): Promise<string> {
  if (!existsSync(launcher)) throw new Error(`${launcher} is not built (npm run build)`);
  const grpc = require("@grpc/grpc-js") as typeof import("@grpc/grpc-js");
  const { Empty } = require("google-protobuf/google/protobuf/empty_pb") as { Empty: new () => unknown };
  const { ResourceProviderClient } = require("@pulumi/pulumi/proto/provider_grpc_pb") as {
    ResourceProviderClient: new (
      address: string,
      credentials: unknown,
    ) => {
      getPluginInfo(req: unknown, cb: (err: Error | null, info?: { getVersion(): string }) => void): void;
      close(): void;
    };
  };
  const child = spawn(launcher, [], { stdio: ["ignore", "pipe", "pipe"] });
  try {
    const port = await new Promise<string>((resolve, reject) => {
      let out = "";
      let err = "";
      child.stdout.setEncoding("utf8").on("data", (c: string) => {
        out += c;
        if (out.includes("\n")) resolve(out.split("\n")[0].trim());
      });
      child.stderr.setEncoding("utf8").on("data", (c: string) => (err += c));
      child.once("error", reject);
      child.once("exit", (code) =>
        reject(new Error(`${launcher} exited (${code}) before printing its port: ${err.trim()}`)),
      );
    });
    const client = new ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    try {
      return await new Promise<string>((resolve, reject) =>
        client.getPluginInfo(new Empty(), (e, info) => (e ? reject(e) : resolve(info!.getVersion()))),
      );
    } finally {
      client.close();
    }
  } finally {
    child.kill();
  }
}

/** Every place of the list, with what it states. */
export async function versionPlaces(sources: VersionSources = {}): Promise<VersionPlace[]> {
  const root = sources.root ?? ROOT;
  const at = (...parts: string[]) => path.join(root, ...parts);
  const places: VersionPlace[] = [];
  const add = (place: string, read: () => string | undefined) => {
    try {
      places.push({ place, version: read() });
    } catch (err) {
      places.push({ place: `${place} (${(err as Error).message.split("\n")[0]})`, version: undefined });
    }
  };
  const plugin = sources.plugin ?? at("dist", "plugin", "pulumi-resource-observability");
  let fromPlugin: string | undefined;
  let pluginError = "";
  try {
    fromPlugin = await pluginVersion(plugin);
  } catch (err) {
    pluginError = ` (${(err as Error).message.split("\n")[0]})`;
  }
  places.push({ place: `the plugin's GetPluginInfo${pluginError}`, version: fromPlugin });
  add(
    "the schema's version (dist/provider/native/schema.json)",
    () => readJson(at("dist", "provider", "native", "schema.json")).version as string | undefined,
  );
  add("the Python distribution's version (sdk/python/pyproject.toml)", () =>
    pyprojectVersion(readFileSync(at("sdk", "python", "pyproject.toml"), "utf8")),
  );
  add("the Python SDK's plugin version (sdk/python/pulumi_observability/pulumi-plugin.json)", () => {
    return readJson(at("sdk", "python", "pulumi_observability", "pulumi-plugin.json")).version as string;
  });
  const npmSdk = () => readJson(at("sdk", "nodejs", "package.json"));
  add("the npm SDK's version (sdk/nodejs/package.json)", () => npmSdk().version as string | undefined);
  add("the npm SDK's plugin version (sdk/nodejs/package.json pulumi.version)", () => {
    return (npmSdk().pulumi as { version?: string } | undefined)?.version;
  });
  add("the Go tag of CONTRIBUTING.md's release checklist", () => {
    const tags = [...new Set(checklistGoTags(readFileSync(at("CONTRIBUTING.md"), "utf8")))];
    if (tags.length > 1) throw new Error(`it names several: ${tags.map((t) => `sdk/go/${t}`).join(", ")}`);
    return tags[0]?.replace(/^v/, "");
  });
  return places;
}

/**
 * Throws one error naming every place whose version is not package.json's, and whatever else stops the Go tag
 * from publishing the module (its path is not the repository's + /sdk/go, or lacks the /vN a v2+ needs).
 */
export async function checkVersions(sources: VersionSources = {}): Promise<string> {
  const root = sources.root ?? ROOT;
  const version = readJson(path.join(root, "package.json")).version;
  if (typeof version !== "string" || !/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version))
    throw new Error(`package.json's version ${JSON.stringify(version)} is not a semantic version (1.2.3)`);
  const problems = (await versionPlaces(sources))
    .filter((p) => p.version !== version)
    .map((p) => `${p.place} is ${p.version === undefined ? "missing" : JSON.stringify(p.version)}`);
  const goMod = readFileSync(path.join(root, GO_MODULE_SUBDIR, "go.mod"), "utf8");
  const module = /^module\s+(\S+)/m.exec(goMod)?.[1];
  const expected = goModulePath(root);
  if (!module) problems.push(`${GO_MODULE_SUBDIR}/go.mod names no module`);
  else {
    if (expected !== undefined && module !== expected)
      problems.push(
        `${GO_MODULE_SUBDIR}/go.mod's module is ${module}, not ${expected} (package.json's repository)`,
      );
    if (!module.endsWith(`/${GO_MODULE_SUBDIR}`) && !/\/v\d+$/.test(module))
      problems.push(`${GO_MODULE_SUBDIR}/go.mod's module ${module} does not end in /${GO_MODULE_SUBDIR}`);
    const major = Number(version.split(".")[0]);
    if (major >= 2 && !module.endsWith(`/v${major}`))
      problems.push(
        `${GO_MODULE_SUBDIR}/go.mod's module ${module} needs the suffix /v${major} for v${version}`,
      );
  }
  if (problems.length > 0)
    throw new Error(`versions disagree with package.json's ${version}: ${problems.join("; ")}`);
  return version;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  // `--root <checkout>` and `--plugin <launcher>` read another copy (the tests' tampered ones).
  const args = process.argv.slice(2);
  const option = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
  checkVersions({ root: option("--root"), plugin: option("--plugin") }).then(
    (version) => console.error(`release-versions: every place says ${version}`),
    (err: Error) => {
      console.error(`release-versions: ${err.message}`);
      process.exit(1);
    },
  );
}
