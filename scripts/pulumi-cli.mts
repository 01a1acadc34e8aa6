/**
 * The Pulumi CLI built here from Go modules, for machines that have Go but no `pulumi`.
 *
 * engine/pulumi-cli/go.mod requires the CLI's module (`github.com/pulumi/pulumi/pkg/v3`) and the SDK at one
 * version; `go build` of the CLI's package inside that module gives `pulumi`. The build lands outside the
 * repository, keyed by version: `${XDG_CACHE_HOME:-~/.cache}/pulumi-observability/pulumi-cli/v3.X.Y/bin`, beside
 * a copy of the dynamic-provider launcher `pulumi-resource-pulumi-nodejs` from `@pulumi/pulumi`. Go keeps its own
 * module and build caches (GOMODCACHE, GOCACHE), so a rebuild after the folder is removed is quick.
 *
 * The Node.js language host (`pulumi-language-nodejs`) is not built: its module is not served by the Go module
 * proxy these machines reach. Programs therefore run as Automation API inline programs, where the CLI talks to
 * the program in this process and needs no language host.
 */
import { spawn } from "node:child_process";
import {
  accessSync,
  chmodSync,
  constants,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** The wrapper module whose go.mod and go.sum pin the CLI's version and every dependency. */
export const WRAPPER_DIR = path.join(ROOT, "engine", "pulumi-cli");
const CLI_PACKAGE = "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi";
const VERSION_VAR = "github.com/pulumi/pulumi/sdk/v3/go/common/version.Version";
/** Where Go lives on this project's machines when it is not on PATH. */
const GO_FALLBACK = "/usr/local/go/bin/go";
const LAUNCHER = "pulumi-resource-pulumi-nodejs";

/** The CLI version the wrapper module pins: its `require` of github.com/pulumi/pulumi/pkg/v3. */
export function pinnedVersion(): string {
  const goMod = readFileSync(path.join(WRAPPER_DIR, "go.mod"), "utf8");
  const match =
    /^\s*(?:require\s+)?github\.com\/pulumi\/pulumi\/pkg\/v3\s+(v3\.\d+\.\d+)(?:\s*\/\/.*)?$/m.exec(goMod);
  if (!match)
    throw new Error(`${path.join(WRAPPER_DIR, "go.mod")} does not require github.com/pulumi/pulumi/pkg/v3`);
  return match[1];
}

/** The folder of one version's build: `bin/` holds `pulumi` and the launcher, `build.log` the last build's output. */
export function cacheDir(version: string, env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME || path.join(env.HOME || os.homedir(), ".cache");
  return path.join(base, "pulumi-observability", "pulumi-cli", version);
}

/** A built CLI: the folder to put first on PATH, and the `pulumi` in it. */
export interface BuiltCli {
  binDir: string;
  pulumi: string;
  version: string;
  /** Seconds the build took, when this call built it. */
  builtInSeconds?: number;
}

/** The cached build of the pinned version when it answers `pulumi version` with that version, else undefined. */
export async function cachedCli(env: NodeJS.ProcessEnv = process.env): Promise<BuiltCli | undefined> {
  const version = pinnedVersion();
  const binDir = path.join(cacheDir(version, env), "bin");
  const pulumi = path.join(binDir, "pulumi");
  try {
    accessSync(pulumi, constants.X_OK);
  } catch {
    return undefined;
  }
  const answer = await capture(pulumi, ["version"], { ...env, PULUMI_SKIP_UPDATE_CHECK: "true" });
  if (answer.code !== 0 || answer.stdout.trim() !== version) return undefined;
  installLauncher(binDir);
  return { binDir, pulumi, version };
}

/**
 * The `go` to build with: `$GO` when set (as Makefiles name it), else one on PATH, else the machines'
 * /usr/local/go; undefined when there is none.
 */
export function findGo(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.GO !== undefined) return isExecutable(env.GO) ? env.GO : undefined;
  for (const dir of (env.PATH ?? "").split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, "go");
    if (isExecutable(candidate)) return candidate;
  }
  return isExecutable(GO_FALLBACK) ? GO_FALLBACK : undefined;
}

/** Why a build could not be had, in one line; `module` names the Go module that could not be had, if one. */
export class CliBuildError extends Error {
  override readonly name = "CliBuildError";
  readonly module?: string;
  constructor(message: string, module?: string) {
    super(message);
    this.module = module;
  }
}

/**
 * The pinned CLI: the cached build, else a new build (minutes on a cold machine with two cores). Throws
 * {@link CliBuildError} saying in one line why there is none: no Go, or which module could not be had.
 */
export async function ensureCli(
  options: { env?: NodeJS.ProcessEnv; onBuildStart?: (version: string) => void } = {},
): Promise<BuiltCli> {
  const env = options.env ?? process.env;
  const cached = await cachedCli(env);
  if (cached) return cached;

  const version = pinnedVersion();
  const go = findGo(env);
  if (!go) {
    throw new CliBuildError(
      env.GO !== undefined
        ? `no Go toolchain (GO=${env.GO} is not an executable)`
        : `no Go toolchain (no \`go\` on PATH, nor ${GO_FALLBACK})`,
    );
  }
  options.onBuildStart?.(version);
  const dir = cacheDir(version, env);
  mkdirSync(dir, { recursive: true });
  // A fresh folder per build, moved into place when complete, so a concurrent or interrupted build never leaves
  // a half-written `pulumi` where the cache is looked up.
  const staging = path.join(dir, `bin.building-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging);
  const logFile = path.join(dir, "build.log");
  const started = Date.now();
  const args = [
    "build",
    // go.sum in the repository is complete; a build never rewrites it.
    "-mod=readonly",
    "-trimpath",
    "-ldflags",
    `-X ${VERSION_VAR}=${version}`,
    "-o",
    staging + path.sep,
    CLI_PACKAGE,
  ];
  const result = await capture(
    go,
    args,
    {
      ...env,
      CGO_ENABLED: "0",
      // The go.mod's own go line decides; a newer toolchain must not be downloaded instead.
      GOTOOLCHAIN: "local",
    },
    WRAPPER_DIR,
  );
  writeFileSync(logFile, `$ ${go} ${args.join(" ")}\n${result.stdout}${result.stderr}`);
  if (result.code !== 0) {
    rmSync(staging, { recursive: true, force: true });
    throw describeGoFailure(result.stderr || result.stdout, version, logFile);
  }
  const binDir = path.join(dir, "bin");
  rmSync(binDir, { recursive: true, force: true });
  try {
    renameSync(staging, binDir);
  } catch (err) {
    // Another build finished first: keep its folder.
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(path.join(binDir, "pulumi"))) throw err;
  }
  const seconds = Math.round((Date.now() - started) / 100) / 10;
  const built = await cachedCli(env);
  if (!built) {
    throw new CliBuildError(
      `the Pulumi CLI ${version} was built but \`pulumi version\` did not answer ${version}`,
    );
  }
  return { ...built, builtInSeconds: seconds };
}

/**
 * One line from `go build`'s output: the module it could not download or verify when it names one (go prints
 * `go: <module>@<version>: <what went wrong>`), else its last line.
 */
export function describeGoFailure(output: string, version: string, logFile: string): CliBuildError {
  const lines = output
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  const where = `(the build's output: ${logFile})`;
  for (const line of lines) {
    const m = /(?:^go: |: )((?:[a-z0-9.-]+\.[a-z]+\/)[^\s@:]+)@(v[^\s:]+): (.*)$/i.exec(line);
    if (m) {
      const reason = m[3]
        .replace(/reading https?:\/\/\S+: /, "")
        .replace(/\s+/g, " ")
        .trim();
      return new CliBuildError(
        `building the Pulumi CLI ${version}: module ${m[1]}@${m[2]} could not be had: ${reason} ${where}`,
        `${m[1]}@${m[2]}`,
      );
    }
    const missing = /missing go\.sum entry for module providing package (\S+)/.exec(line);
    if (missing) {
      return new CliBuildError(
        `building the Pulumi CLI ${version}: engine/pulumi-cli/go.sum has no entry for the module of ${missing[1]} ${where}`,
        missing[1],
      );
    }
  }
  return new CliBuildError(
    `building the Pulumi CLI ${version} failed: ${lines.at(-1) ?? "no output"} ${where}`,
  );
}

/** Copies `@pulumi/pulumi`'s dynamic-provider launcher beside `pulumi`, where the engine looks for it first. */
function installLauncher(binDir: string): void {
  const source = path.join(ROOT, "node_modules", "@pulumi", "pulumi", LAUNCHER);
  const target = path.join(binDir, LAUNCHER);
  if (!existsSync(source)) return;
  if (existsSync(target) && readFileSync(target, "utf8") === readFileSync(source, "utf8")) return;
  copyFileSync(source, target);
  chmodSync(target, 0o755);
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function capture(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd?: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { env, cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    child.once("error", (err) => resolve({ code: null, stdout, stderr: `${stderr}${err.message}\n` }));
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}
