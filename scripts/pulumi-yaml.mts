/**
 * The YAML language host, `pulumi-language-yaml`, built here from Go modules as the CLI is (pulumi-cli.mts):
 * the Pulumi CLI runs a `runtime: yaml` program through it, and no host for it is served to these machines.
 *
 * engine/pulumi-yaml/go.mod requires `github.com/pulumi/pulumi-yaml` at one version and keeps the host's package
 * as a `tool` (so `go mod tidy` keeps every module the build needs). It is a module of its own: pulumi-yaml pins
 * `github.com/pulumi/pulumi/pkg/v3` at its own version (v3.206.0 for v1.25.0, its go.mod), which the CLI's
 * wrapper cannot share. The build lands in `${XDG_CACHE_HOME:-~/.cache}/pulumi-observability/pulumi-language-yaml/
 * <version>/bin`; put that folder on PATH (or beside `pulumi`) and the CLI finds the host there.
 *
 * `npm run --silent yaml:dir` (`node scripts/pulumi-yaml.mts`) prints that folder (building it when needed) or one
 * line saying why there is none.
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import {
  CliBuildError,
  buildGoPackage,
  findGo,
  isExecutable,
  noGoReason,
  toolCacheDir,
} from "./go-build.mts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** The wrapper module pinning pulumi-yaml and every dependency of its host. */
export const YAML_WRAPPER_DIR = path.join(ROOT, "engine", "pulumi-yaml");
const HOST_PACKAGE = "github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml";
export const YAML_HOST = "pulumi-language-yaml";
/** Where pulumi-yaml's build stamps its version (its Makefile's `-X`). */
const VERSION_VAR = "github.com/pulumi/pulumi-yaml/pkg/version.Version";

/** The pulumi-yaml version the wrapper module pins. */
export function pinnedYamlVersion(): string {
  const goMod = readFileSync(path.join(YAML_WRAPPER_DIR, "go.mod"), "utf8");
  const match = /^\s*(?:require\s+)?github\.com\/pulumi\/pulumi-yaml\s+(v\d+\.\d+\.\d+)(?:\s*\/\/.*)?$/m.exec(
    goMod,
  );
  if (!match)
    throw new Error(
      `${path.join(YAML_WRAPPER_DIR, "go.mod")} does not require github.com/pulumi/pulumi-yaml`,
    );
  return match[1];
}

/** A built YAML host: the folder to put on PATH, and the host in it. */
export interface BuiltYamlHost {
  binDir: string;
  host: string;
  version: string;
  /** Seconds the build took, when this call built it. */
  builtInSeconds?: number;
}

/**
 * The cached build of the pinned version, else undefined. The host has no flag that prints its version and exits
 * (pulumi-yaml cmd/pulumi-language-yaml/main.go: it serves until stopped), so the folder's key is what says it:
 * `bin/` appears only when a build of that version completed (go-build.mts moves it into place).
 */
export function cachedYamlHost(env: NodeJS.ProcessEnv = process.env): BuiltYamlHost | undefined {
  const version = pinnedYamlVersion();
  const binDir = path.join(toolCacheDir(YAML_HOST, version, env), "bin");
  const host = path.join(binDir, YAML_HOST);
  return isExecutable(host) ? { binDir, host, version } : undefined;
}

/** The pinned YAML host: cached, else built now (minutes on a cold machine). Throws CliBuildError saying why not. */
export async function ensureYamlHost(env: NodeJS.ProcessEnv = process.env): Promise<BuiltYamlHost> {
  const cached = cachedYamlHost(env);
  if (cached) return cached;
  if (!findGo(env)) throw new CliBuildError(noGoReason(env));
  const version = pinnedYamlVersion();
  const { seconds } = await buildGoPackage(
    {
      what: `the YAML language host ${version}`,
      moduleDir: YAML_WRAPPER_DIR,
      pkg: HOST_PACKAGE,
      cacheDir: toolCacheDir(YAML_HOST, version, env),
      ldflags: `-X ${VERSION_VAR}=${version}`,
      binary: YAML_HOST,
    },
    env,
  );
  const built = cachedYamlHost(env);
  if (!built) throw new CliBuildError(`the YAML language host ${version} was built but is not in its folder`);
  return { ...built, builtInSeconds: seconds };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  ensureYamlHost().then(
    (built) => {
      if (built.builtInSeconds !== undefined)
        console.error(`built ${YAML_HOST} ${built.version} in ${built.builtInSeconds} s`);
      console.log(built.binDir);
    },
    (err: Error) => {
      console.error(`yaml:dir: ${err.message.split("\n")[0]}`);
      process.exit(1);
    },
  );
}
