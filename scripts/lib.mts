/**
 * Shared by `npm run demo`, `npm run test:e2e` and the benchmarks: getting the Pulumi CLI (from PATH, else built
 * here from Go modules, pulumi-cli.mts) before anything starts, building the package, and loading programs. How
 * commands run (shared/commands.ts) and stacks run by the real engine (shared/engine.ts) have files of their own, which the
 * ts-jest test files load too.
 */
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { findOnPath, mustExec, npm } from "./shared/commands.ts";
import { linkPackageIntoNodeModules, type InlineProgram, type PulumiCli } from "./shared/engine.ts";
import type { BuiltCli } from "./pulumi-cli.mts";

// What the scripts, bench/ and test/e2e take from here; shared/ holds them because the ts-jest
// test files load those too.
export { findOnPath } from "./shared/commands.ts";
export {
  EngineStack,
  LOCAL_PASSPHRASE,
  linkPackageIntoNodeModules,
  pulumiEnv,
  type InlineProgram,
  type PulumiCli,
} from "./shared/engine.ts";

/** The repository root (this file lives in `<root>/scripts`). */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** `require` anchored at the repository, so `pulumi-observability/…` resolves to the built package. */
export const requireFromRepo = createRequire(path.join(REPO_ROOT, "package.json"));

/** How to get a CLI; printed whenever none can be had. */
export const INSTALL_HINT = [
  "Get one with `npm run pulumi:path` where Go is installed (it builds the CLI from Go modules, minutes once,",
  "then cached), or install it: `curl -fsSL https://get.pulumi.com | sh` or see https://www.pulumi.com/docs/install/,",
  "then open a new shell so that `pulumi` is on PATH.",
].join("\n");

/**
 * Compiles the package into dist/ (the examples and the emulator CLI run the built code), and makes it
 * installed for the programs in this repository.
 */
export async function build(): Promise<void> {
  // The package's own build script, not a copy of its steps: a plain tsc would leave dist/ without the plain
  // typings step, and a `npm pack` after the demo would ship typings that reach zod.
  const [cmd, args] = npm(["run", "--silent", "build"]);
  await mustExec(cmd, args, { cwd: REPO_ROOT, show: "all" });
  linkPackageIntoNodeModules(REPO_ROOT);
}

/**
 * A program that imports `file` (a Pulumi program such as examples/<name>/index.ts, run by Node's type stripping)
 * afresh on every run, as `pulumi up` runs it in a new process each time, and returns its exports as outputs.
 */
export function programFromFile(file: string): InlineProgram {
  let runs = 0;
  return async () => {
    const url = `${pathToFileURL(file).href}?run=${++runs}`;
    return { ...((await import(url)) as Record<string, unknown>) };
  };
}

/** How long a `pulumi` on PATH may take to answer `pulumi version`. */
export const CLI_TIMEOUT_MS = 20_000;

/** Why no CLI was had, in one line; `fatal` when a build was tried and failed (rather than impossible). */
export interface NoCli {
  cli?: undefined;
  reason: string;
  fatal: boolean;
}

/**
 * The Pulumi CLI: a `pulumi` on PATH that answers `pulumi version` within `timeoutMs`; else the build from Go
 * modules in its cache (pulumi-cli.mts); else, when `build` is set, a new build of it (minutes on a cold
 * machine). Otherwise `reason` says in one line why there is none: `fatal` when Go is there and the build failed
 * (a module that could not be had, named), not fatal when there is nothing to build with, or building was not
 * asked for.
 */
export async function findPulumiCli(
  options: {
    build?: boolean;
    timeoutMs?: number;
    env?: NodeJS.ProcessEnv;
    onBuildStart?: (version: string) => void;
  } = {},
): Promise<{ cli: PulumiCli; reason?: undefined } | NoCli> {
  const env = options.env ?? process.env;
  const timeoutMs = options.timeoutMs ?? CLI_TIMEOUT_MS;
  const reasons: string[] = [];

  const onPath = findOnPath("pulumi", { env });
  if (onPath) {
    const probed = await probe([onPath, "version"], env, timeoutMs);
    if (probed.ok) {
      return {
        cli: { pulumi: onPath, binDir: path.dirname(onPath), source: "PATH", version: probed.output },
      };
    }
    reasons.push(`\`${onPath} version\` ${probed.output}`);
  } else {
    reasons.push("no `pulumi` on PATH");
  }

  const goBuild = await import("./pulumi-cli.mts");
  const fromGo = (built: BuiltCli, how: string): { cli: PulumiCli } => ({
    cli: {
      pulumi: built.pulumi,
      binDir: built.binDir,
      source: `${how}, in ${built.binDir}`,
      version: built.version,
    },
  });
  const cached = await goBuild.cachedCli(env);
  if (cached) return fromGo(cached, "built here from Go modules");
  const version = goBuild.pinnedVersion();

  if (!options.build) {
    reasons.push(
      goBuild.findGo(env)
        ? `the CLI ${version} is not built here yet (\`npm run pulumi:path\` builds it from Go modules, minutes once)`
        : `no CLI ${version} built here, and no Go toolchain to build one`,
    );
    return { reason: reasons.join("; "), fatal: false };
  }
  try {
    const built = await goBuild.ensureCli({ env, onBuildStart: options.onBuildStart });
    return fromGo(built, `built here from Go modules in ${built.builtInSeconds} s`);
  } catch (err) {
    if (!(err instanceof goBuild.CliBuildError)) throw err;
    const noGo = goBuild.findGo(env) === undefined;
    reasons.push(noGo ? `no CLI ${version} built here, and ${err.message} to build one` : err.message);
    return { reason: reasons.join("; "), fatal: !noGo };
  }
}

/** Runs `argv` with stdio captured, killing it (and whatever it started) after `timeoutMs`. */
function probe(
  argv: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<{ ok: boolean; output: string }> {
  return new Promise((resolve) => {
    // Its own process group, so a timeout also ends whatever it started.
    const child = spawn(argv[0], argv.slice(1), {
      env: { ...env, PULUMI_SKIP_UPDATE_CHECK: "true" },
      stdio: ["ignore", "pipe", "pipe"],
      detached: process.platform !== "win32",
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(process.platform === "win32" ? child.pid! : -child.pid!, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    }, timeoutMs);
    child.once("error", (err) => {
      clearTimeout(timer);
      resolve({ ok: false, output: `could not start: ${err.message}` });
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      if (code === 0 && !timedOut) return resolve({ ok: true, output: stdout.trim() });
      if (timedOut) return resolve({ ok: false, output: `gave no answer within ${timeoutMs / 1000} s` });
      const last = stderr.trim().split("\n").at(-1)?.trim();
      resolve({ ok: false, output: last || `failed with exit code ${code}` });
    });
  });
}
