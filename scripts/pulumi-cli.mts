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
import { chmodSync, copyFileSync, existsSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { exec } from "./shared/commands.ts";
import {
  CliBuildError,
  buildGoPackage,
  describeGoFailure as describeBuildFailure,
  findGo,
  isExecutable,
  noGoReason,
  toolCacheDir,
} from "./go-build.mts";

export { CliBuildError, findGo };

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** The wrapper module whose go.mod and go.sum pin the CLI's version and every dependency. */
export const WRAPPER_DIR = path.join(ROOT, "engine", "pulumi-cli");
const CLI_PACKAGE = "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi";
const VERSION_VAR = "github.com/pulumi/pulumi/sdk/v3/go/common/version.Version";
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
  return toolCacheDir("pulumi-cli", version, env);
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
  if (!isExecutable(pulumi)) return undefined;
  const answer = await exec(pulumi, ["version"], { env: { ...env, PULUMI_SKIP_UPDATE_CHECK: "true" } });
  if (answer.code !== 0 || answer.stdout.trim() !== version) return undefined;
  installLauncher(binDir);
  return { binDir, pulumi, version };
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
  if (!findGo(env)) throw new CliBuildError(noGoReason(env));
  options.onBuildStart?.(version);
  const { seconds } = await buildGoPackage(
    {
      what: `the Pulumi CLI ${version}`,
      moduleDir: WRAPPER_DIR,
      pkg: CLI_PACKAGE,
      cacheDir: cacheDir(version, env),
      ldflags: `-X ${VERSION_VAR}=${version}`,
      binary: "pulumi",
    },
    env,
  );
  const built = await cachedCli(env);
  if (!built) {
    throw new CliBuildError(
      `the Pulumi CLI ${version} was built but \`pulumi version\` did not answer ${version}`,
    );
  }
  return { ...built, builtInSeconds: seconds };
}

/** One line from `go build`'s output of the CLI (go-build.mts, describeGoFailure). */
export function describeGoFailure(output: string, version: string, logFile: string): CliBuildError {
  return describeBuildFailure(output, `the Pulumi CLI ${version}`, logFile, WRAPPER_DIR);
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
