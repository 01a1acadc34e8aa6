/**
 * `npm run sdk:gen`: writes sdk/nodejs, sdk/python and sdk/go from the native provider's package schema (what
 * `npm run --silent schema` prints), through Pulumi's own code generators called by engine/sdkgen (a Go program).
 * Both generate into a temporary folder; `npm run sdk:check` then fails, naming the files, when the committed SDKs
 * differ from what the schema gives (scripts/generated.mts writeOrCheck, as the docs' generators).
 *
 * Options: `--schema <file>` generates from that schema instead of the plugin's; `--sdk <dir>` names the folder
 * holding the SDKs (default sdk/); `--check` compares instead of writing.
 *
 * `--import-program --state <export> --import-file <file> --out <dir>` writes instead the program `pulumi import`
 * generates for an import's resources, in PCL, TypeScript, Python and Go (`<dir>/<language>/`), from the stack's
 * `pulumi stack export --show-secrets` after the import: the CLI's own steps, with the generators its language
 * hosts call (engine/sdkgen/importprogram.go; those hosts are not served here).
 *
 * After the generators, each SDK is made publishable (finishSdks): Python's pyproject gets a README.md beside it
 * and an SPDX license expression, and the Go module a go.sum (`go mod tidy`). The Go module path is the repository
 * package.json names, + /sdk/go (goModulePath).
 *
 * engine/sdkgen is built like the CLI (go-build.mts) into `${XDG_CACHE_HOME:-~/.cache}/pulumi-observability/
 * sdkgen/<hash>/bin`, keyed by a hash of its go.mod, go.sum and sources, so an edit of the generator rebuilds it.
 */
import { createHash } from "node:crypto";
import {
  copyFileSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { exec, npm } from "./shared/commands.ts";
import { writeOrCheck } from "./generated.mts";
import { buildGoPackage, findGo, isExecutable, noGoReason, toolCacheDir } from "./go-build.mts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const SDKGEN_DIR = path.join(ROOT, "engine", "sdkgen");
/** The folder of the committed SDKs. */
export const SDK_DIR = path.join(ROOT, "sdk");
export const LANGUAGES = ["nodejs", "python", "go"] as const;

/** The cache key of the generator: its module files and sources, hashed. */
export function sdkgenKey(): string {
  const hash = createHash("sha256");
  for (const name of readdirSync(SDKGEN_DIR).sort()) {
    if (!/^(go\.mod|go\.sum|.*\.go)$/.test(name) || name.endsWith("_test.go")) continue;
    hash
      .update(name)
      .update("\0")
      .update(readFileSync(path.join(SDKGEN_DIR, name)))
      .update("\0");
  }
  return hash.digest("hex").slice(0, 16);
}

/** The generator's binary: cached, else built now (minutes with cold Go caches), with the seconds it took. */
export async function ensureSdkgen(
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ binary: string; builtInSeconds?: number }> {
  const cacheDir = toolCacheDir("sdkgen", sdkgenKey(), env);
  const binary = path.join(cacheDir, "bin", "sdkgen");
  if (isExecutable(binary)) return { binary };
  const { seconds } = await buildGoPackage(
    {
      what: "the SDK generator (engine/sdkgen)",
      moduleDir: SDKGEN_DIR,
      pkg: ".",
      cacheDir,
      binary: "sdkgen",
    },
    env,
  );
  return { binary, builtInSeconds: seconds };
}

/** The native provider's schema, as `npm run --silent schema` prints it. */
export async function pluginSchema(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
    scripts?: Record<string, string>;
  };
  if (!pkg.scripts?.schema) {
    throw new Error("package.json has no `schema` script (it prints the native provider's package schema)");
  }
  const [cmd, args] = npm(["run", "--silent", "schema"]);
  const result = await exec(cmd, args, { env, cwd: ROOT });
  if (result.code !== 0) {
    const last = result.stderr.trim().split("\n").at(-1) ?? `exit code ${result.code}`;
    throw new Error(`\`npm run schema\` failed: ${last}`);
  }
  try {
    JSON.parse(result.stdout);
  } catch (err) {
    throw new Error(`\`npm run schema\` did not print JSON: ${(err as Error).message}`);
  }
  return result.stdout;
}

/** The folder of the Go SDK's module inside the repository, which names its tags (`sdk/go/v<version>`). */
export const GO_MODULE_SUBDIR = "sdk/go";

/**
 * The repository package.json names, as a Go import path prefix (`github.com/<owner>/<name>`), from any form npm
 * accepts: "github:owner/name", "owner/name", "https://github.com/owner/name(.git)", or `{ url: "git+https://…" }`.
 * Undefined when package.json names none.
 */
export function repositoryPath(root = ROOT): string | undefined {
  const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as {
    repository?: string | { url?: string };
  };
  const given = typeof pkg.repository === "string" ? pkg.repository : pkg.repository?.url;
  if (given === undefined) return undefined;
  const short = /^(?:github:)?([\w.-]+)\/([\w.-]+)$/.exec(given);
  if (short) return `github.com/${short[1]}/${short[2]}`;
  const url = /^(?:git\+)?(?:https?|ssh|git):\/\/(?:[^@/]+@)?([^/:]+)\/([^/]+)\/([^/]+?)(?:\.git)?\/?$/.exec(
    given,
  );
  if (url) return `${url[1]}/${url[2]}/${url[3]}`;
  throw new Error(
    `package.json's repository ${JSON.stringify(given)} is not a repository URL this script reads`,
  );
}

/**
 * The Go SDK's module path: the repository's path and the module's folder (a module in a subfolder is fetched
 * by that path, https://go.dev/ref/mod#vcs-find). Before package.json names a repository, the generator's default.
 */
export function goModulePath(root = ROOT): string | undefined {
  const repo = repositoryPath(root);
  return repo === undefined ? undefined : `${repo}/${GO_MODULE_SUBDIR}`;
}

/** Runs the generator on `schemaText`, writing `<out>/<language>` for each language, then {@link finishSdks}. */
export async function generateSdks(
  schemaText: string,
  out: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ builtInSeconds?: number }> {
  const { binary, builtInSeconds } = await ensureSdkgen(env);
  const goModule = goModulePath();
  const args = ["-schema", "-", "-out", out, ...(goModule ? ["-go-module", goModule] : [])];
  const result = await exec(binary, args, { env, cwd: ROOT, input: schemaText });
  if (result.code !== 0)
    throw new Error(result.stderr.trim() || `sdkgen failed with exit code ${result.code}`);
  await finishSdks(out, env);
  return { builtInSeconds };
}

/**
 * What the generators leave unpublishable, put right in `<out>/<language>`:
 * - Python: pyproject's `readme = "README.md"` names a file the generator writes only inside the package, so the
 *   distribution had no description; it is copied beside pyproject.toml. The license is written as a table
 *   (`[project.license] text = …`), which setuptools stops accepting in 2027 (PEP 639): it becomes an SPDX
 *   expression, which needs setuptools 77 or newer to build.
 * - Go: a go.sum, so the module builds and `go vet ./...` runs inside it (`go mod tidy`, which also lists the
 *   indirect requirements in go.mod).
 */
export async function finishSdks(out: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  finishPython(path.join(out, "python"));
  await finishGo(path.join(out, "go"), env);
}

function finishPython(dir: string): void {
  const pyproject = path.join(dir, "pyproject.toml");
  const text = readFileSync(pyproject, "utf8");
  const table = /^\s*\[project\.license\]\s*\n\s*text\s*=\s*("[^"\n]*")\s*\n/m.exec(text);
  if (!table)
    throw new Error(`${pyproject}: no [project.license] table with text = "…" (the generator changed?)`);
  const buildSystem = /^(\s*requires\s*=\s*\[)"setuptools>=[\d.]+"(\])/m;
  if (!buildSystem.test(text)) throw new Error(`${pyproject}: no build-system requires = ["setuptools>=…"]`);
  const fixed = text
    .replace(table[0], "")
    .replace(/^(\s*)version = ("[^"\n]*")\n/m, `$1version = $2\n$1license = ${table[1]}\n`)
    .replace(buildSystem, `$1"setuptools>=77.0"$2`);
  if (!fixed.includes(`license = ${table[1]}`))
    throw new Error(`${pyproject}: no version line to put the license after`);
  writeFileSync(pyproject, fixed);
  const readme = /^\s*readme\s*=\s*"([^"]+)"/m.exec(fixed)?.[1];
  if (!readme) throw new Error(`${pyproject}: no readme`);
  const packages = readdirSync(dir).filter((f) => statSync(path.join(dir, f)).isDirectory());
  const source = packages
    .map((p) => path.join(dir, p, readme))
    .find((f) => statSync(f, { throwIfNoEntry: false }));
  if (!source) throw new Error(`${dir}: no package holds ${readme} to describe the distribution`);
  copyFileSync(source, path.join(dir, readme));
}

/** Pulumi's Go SDK module, which the generated go.mod requires. */
const PULUMI_GO_SDK = "github.com/pulumi/pulumi/sdk/v3";

/** The version of Pulumi's Go SDK the repository's CLI is built with (engine/pulumi-cli/go.mod). */
export function pinnedPulumiGoSdk(root = ROOT): string {
  const gomod = readFileSync(path.join(root, "engine", "pulumi-cli", "go.mod"), "utf8");
  const version = new RegExp(`^\\s*${PULUMI_GO_SDK.replace(/[./]/g, "\\$&")}\\s+(v\\S+)`, "m").exec(
    gomod,
  )?.[1];
  if (!version) throw new Error(`engine/pulumi-cli/go.mod does not require ${PULUMI_GO_SDK}`);
  return version;
}

async function finishGo(dir: string, env: NodeJS.ProcessEnv): Promise<void> {
  const go = findGo(env);
  if (!go) throw new Error(`the Go SDK needs a go.sum: ${noGoReason(env)}`);
  const goEnv = { ...env, GOTOOLCHAIN: "local", GOFLAGS: "-mod=mod" };
  const run = async (args: string[]) => {
    const result = await exec(go, args, { env: goEnv, cwd: dir });
    if (result.code !== 0) {
      const last = result.stderr.trim().split("\n").at(-1) ?? `exit code ${result.code}`;
      throw new Error(`go ${args.join(" ")} in the Go SDK failed: ${last}`);
    }
  };
  // The generator writes a fixed `require github.com/pulumi/pulumi/sdk/v3 v3.269.0` (pkg/codegen/go, v3.274.1),
  // whose own requirement github.com/pulumi/pulumi-cloud-sdk/go v1.20260918.0 the module proxy does not serve
  // (403), so no one could build the module: it requires the version the CLI is built with instead.
  await run(["mod", "edit", `-require=${PULUMI_GO_SDK}@${pinnedPulumiGoSdk()}`]);
  await run(["mod", "tidy"]);
}

/** What an installed or built SDK leaves in its folder (its own .gitignore files list them): never compared. */
export function sdkLeftover(relative: string): boolean {
  return (
    /^(node_modules|bin|build|dist)\//.test(relative) ||
    /(^|\/)(__pycache__|[^/]*\.egg-info)\//.test(relative)
  );
}

/** The generated SDKs in `dir` (`<language>/<file>` to contents), every file of each language's folder. */
export function sdkFiles(dir: string): Record<string, Buffer> {
  const out: Record<string, Buffer> = {};
  for (const lang of LANGUAGES) {
    const names = readdirSync(path.join(dir, lang), { recursive: true, encoding: "utf8" });
    for (const f of names.sort()) {
      const file = path.join(dir, lang, f);
      if (statSync(file).isFile()) out[`${lang}/${f.split(path.sep).join("/")}`] = readFileSync(file);
    }
  }
  return out;
}

/**
 * The program `pulumi import` writes for the resources of `importFile`, from `stateFile` (the stack's export with
 * --show-secrets, after the import), into `<out>/pcl/main.pp`, `<out>/nodejs/index.ts`, `<out>/python/__main__.py`
 * and `<out>/go/main.go`, on the plugin's schema (or `schemaText`).
 */
export async function generateImportPrograms(
  options: { stateFile: string; importFile: string; out: string; schemaText?: string },
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const { binary } = await ensureSdkgen(env);
  const schemaText = options.schemaText ?? (await pluginSchema(env));
  const goModule = goModulePath();
  const args = [
    "-import-program",
    "-schema",
    "-",
    "-state",
    options.stateFile,
    "-import-file",
    options.importFile,
    "-out",
    options.out,
    ...(goModule ? ["-go-module", goModule] : []),
  ];
  const result = await exec(binary, args, { env, cwd: ROOT, input: schemaText });
  if (result.code !== 0)
    throw new Error(result.stderr.trim() || `sdkgen -import-program failed with exit code ${result.code}`);
}

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const value = args[i + 1];
  if (value === undefined || value.startsWith("--")) throw new Error(`${name} needs a value`);
  return value;
}

async function main(args: string[]): Promise<number> {
  const known = new Set([
    "--schema",
    "--sdk",
    "--check",
    "--import-program",
    "--state",
    "--import-file",
    "--out",
  ]);
  for (const a of args) {
    if (a.startsWith("--") && !known.has(a))
      throw new Error(`unknown option ${a} (known: ${[...known].join(", ")})`);
  }
  const schemaFile = option(args, "--schema");
  if (args.includes("--import-program")) {
    const need = (name: string) => {
      const value = option(args, name);
      if (value === undefined) throw new Error(`--import-program needs ${name}`);
      return path.resolve(value);
    };
    const out = need("--out");
    await generateImportPrograms({
      stateFile: need("--state"),
      importFile: need("--import-file"),
      out,
      schemaText: schemaFile ? readFileSync(schemaFile, "utf8") : undefined,
    });
    console.error(`sdk:gen: wrote the imported program into ${out}/{pcl,nodejs,python,go}`);
    return 0;
  }
  const sdkDir = path.resolve(option(args, "--sdk") ?? SDK_DIR);
  const check = args.includes("--check");
  const t0 = Date.now();
  const schemaText = schemaFile ? readFileSync(schemaFile, "utf8") : await pluginSchema();
  const tSchema = Date.now();
  // Generated aside, then written or compared file by file: an SDK's installed leftovers (node_modules, bin) stay.
  const fresh = mkdtempSync(path.join(os.tmpdir(), "obs-sdk-"));
  try {
    const { builtInSeconds } = await generateSdks(schemaText, fresh);
    const code = writeOrCheck(sdkFiles(fresh), {
      check,
      label: "sdk:check",
      fix: "npm run sdk:gen",
      root: sdkDir,
      shownRoot: "sdk",
      owns: [...LANGUAGES],
      ignore: sdkLeftover,
    });
    if (check) {
      if (code === 0)
        console.error(`sdk:check: ${path.relative(ROOT, sdkDir) || "."} is what the schema gives`);
      return code;
    }
    const built =
      builtInSeconds === undefined ? "cached generator" : `generator built in ${builtInSeconds} s`;
    console.error(
      `sdk:gen: wrote ${LANGUAGES.map((l) => path.relative(ROOT, path.join(sdkDir, l))).join(", ")} ` +
        `(schema ${((tSchema - t0) / 1000).toFixed(1)} s, ${built}, total ${((Date.now() - t0) / 1000).toFixed(1)} s)`,
    );
    return 0;
  } finally {
    rmSync(fresh, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: Error) => {
      console.error(`sdk:gen: ${err.message.split("\n")[0]}`);
      process.exit(1);
    },
  );
}
