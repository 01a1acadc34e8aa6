/**
 * Shared by `npm run demo`, `npm run test:e2e` and the benchmarks: getting the Pulumi CLI (from PATH, else built
 * here from Go modules, pulumi-cli.mts) before anything starts, building the package, running commands
 * asynchronously (an in-process emulator must keep serving), and stacks run by the real engine (EngineStack).
 */
import { spawn } from "node:child_process";
import { accessSync, constants, lstatSync, mkdirSync, symlinkSync } from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type * as Automation from "@pulumi/pulumi/automation/index.js";
import type { BuiltCli } from "./pulumi-cli.mts";

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

/** The passphrase that encrypts the local stacks' secrets unless PULUMI_CONFIG_PASSPHRASE is already set. It
 * guards only development placeholders and the emulator's public token, so it is documented, not secret. */
export const LOCAL_PASSPHRASE = "pulumi-observability-local";

/**
 * The executable's full path when `name` is on PATH, else undefined. Folders `node_modules/.bin` are passed
 * over: npm puts them on PATH inside npm scripts, and there `pulumi` is the launcher, not an installed CLI.
 */
export function findOnPath(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const exts = process.platform === "win32" ? (env.PATHEXT ?? ".EXE;.CMD;.BAT").split(";") : [""];
  for (const dir of (env.PATH ?? "").split(path.delimiter)) {
    if (!dir || path.normalize(dir).endsWith(path.join("node_modules", ".bin"))) continue;
    for (const ext of exts) {
      const candidate = path.join(dir, name + ext);
      try {
        accessSync(candidate, constants.X_OK);
        return candidate;
      } catch {
        // not here; keep looking
      }
    }
  }
  return undefined;
}

/** Options of {@link run}. */
export interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Written to the child's stdin, then closed; used for secrets so they never appear in argv. */
  input?: string;
  /** Collect stdout instead of showing it. */
  capture?: boolean;
  /** Exit codes that count as success; defaults to [0]. */
  okCodes?: number[];
}

/** Thrown when a command fails; the message names the command but never its stdin. */
export class CommandError extends Error {
  override readonly name = "CommandError";
  /** The command line, without stdin. */
  readonly command: string;
  /** Exit code, or null when killed by a signal. */
  readonly code: number | null;

  constructor(command: string, code: number | null) {
    super(`\`${command}\` failed with exit code ${code}`);
    this.command = command;
    this.code = code;
  }
}

/** Runs a command to completion without blocking the event loop; stderr always goes to ours. */
export function run(cmd: string, args: string[], options: RunOptions = {}): Promise<string> {
  const shown = [path.basename(cmd), ...args].join(" ");
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd: options.cwd ?? REPO_ROOT,
      env: options.env ?? process.env,
      stdio: [
        options.input === undefined ? "ignore" : "pipe",
        options.capture ? "pipe" : "inherit",
        "inherit",
      ],
    });
    let stdout = "";
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    if (options.input !== undefined) child.stdin?.end(options.input);
    child.once("error", (err) => reject(new Error(`cannot run \`${shown}\`: ${err.message}`)));
    child.once("close", (code) => {
      if ((options.okCodes ?? [0]).includes(code ?? -1)) resolve(stdout);
      else reject(new CommandError(shown, code));
    });
  });
}

/**
 * Compiles the package into dist/ (the examples and the emulator CLI run the built code), and makes it
 * installed for the programs in this repository.
 */
export async function build(): Promise<void> {
  // The package's own build script, not a copy of its steps: a plain tsc would leave dist/ without the plain
  // typings step, and a `npm pack` after the demo would ship typings that reach zod.
  const npmCli = process.env.npm_execpath;
  if (npmCli) await run(process.execPath, [npmCli, "run", "--silent", "build"]);
  else await run("npm", ["run", "--silent", "build"]);
  linkPackageIntoNodeModules();
}

/**
 * The dynamic-provider host loads each resource's shim from a string, where a package's reference to itself does
 * not resolve; the shim's `require("pulumi-observability/dynamic")` then looks in node_modules, as it would in
 * a user's program. So the examples run here see this checkout as the installed package through a link.
 */
export function linkPackageIntoNodeModules(): void {
  const link = path.join(REPO_ROOT, "node_modules", "pulumi-observability");
  try {
    lstatSync(link);
    return;
  } catch {
    // Not there yet: create it below.
  }
  mkdirSync(path.dirname(link), { recursive: true });
  symlinkSync("..", link, "dir");
}

/**
 * Environment for the Pulumi CLI with a local file backend at `stateDir`: no network (no update check, no plugin
 * downloads), its own PULUMI_HOME (`home`, default `<stateDir>/.pulumi-home`), and `cli.binDir` first on PATH, so
 * the dynamic-provider launcher beside the CLI is the one found, then the folder of this Node (Node 24 inside npm
 * scripts), which the launcher and the programs run on.
 */
export function pulumiEnv(
  cli: PulumiCli,
  stateDir: string,
  extra: NodeJS.ProcessEnv = {},
  home = path.join(stateDir, ".pulumi-home"),
): NodeJS.ProcessEnv {
  mkdirSync(home, { recursive: true });
  return {
    ...process.env,
    PULUMI_BACKEND_URL: `file://${stateDir}`,
    PULUMI_HOME: home,
    PULUMI_CONFIG_PASSPHRASE: process.env.PULUMI_CONFIG_PASSPHRASE ?? LOCAL_PASSPHRASE,
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    PATH: [cli.binDir, path.dirname(process.execPath), process.env.PATH ?? ""].join(path.delimiter),
    ...extra,
  };
}

/** The program of an inline stack: what it returns becomes the stack's outputs. */
export type InlineProgram = () => Promise<Record<string, unknown> | void>;

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

/**
 * One stack run by the real engine: the Automation API's LocalWorkspace with an inline program, so the CLI talks
 * to the program in this process and needs no language host. `workDir` holds the project's Pulumi.yaml; `env` is
 * the CLI's environment (pulumiEnv).
 */
export class EngineStack {
  readonly cli: PulumiCli;
  readonly workDir: string;
  readonly name: string;
  readonly env: NodeJS.ProcessEnv;
  readonly stack: AutomationStack;
  readonly workspace: Automation.LocalWorkspace;

  private constructor(
    cli: PulumiCli,
    workDir: string,
    name: string,
    env: NodeJS.ProcessEnv,
    stack: AutomationStack,
  ) {
    this.cli = cli;
    this.workDir = workDir;
    this.name = name;
    this.env = env;
    this.stack = stack;
    this.workspace = stack.workspace as Automation.LocalWorkspace;
  }

  /** Selects the stack, creating it (with the passphrase secrets provider) when it does not exist. */
  static async open(options: {
    cli: PulumiCli;
    workDir: string;
    stackName: string;
    program: InlineProgram;
    env: NodeJS.ProcessEnv;
  }): Promise<EngineStack> {
    const auto = (await import("@pulumi/pulumi/automation/index.js")) as typeof Automation;
    const pulumiCommand = await auto.PulumiCommand.get({
      root: cliRoot(options.cli),
      skipVersionCheck: false,
    });
    const envVars = Object.fromEntries(
      Object.entries(options.env).filter((e): e is [string, string] => e[1] !== undefined),
    );
    const stack = await auto.LocalWorkspace.createOrSelectStack(
      { stackName: options.stackName, projectName: path.basename(options.workDir), program: options.program },
      { workDir: options.workDir, pulumiCommand, envVars, secretsProvider: "passphrase" },
    );
    return new EngineStack(options.cli, options.workDir, options.stackName, options.env, stack);
  }

  /** Runs `pulumi <args> --stack <stack> --non-interactive` in the project folder, with this stack's env. */
  run(args: string[], options: Omit<RunOptions, "cwd" | "env"> = {}): Promise<string> {
    return run(this.cli.pulumi, [...args, "--stack", this.name, "--non-interactive"], {
      ...options,
      cwd: this.workDir,
      env: this.env,
    });
  }

  /** Sets plain config values. */
  async setConfig(values: Record<string, string>): Promise<void> {
    for (const [key, value] of Object.entries(values)) await this.run(["config", "set", key, value]);
  }

  /**
   * Sets secret config values, each on stdin so it never shows in a process list (the Automation API would put
   * it in argv).
   */
  async setSecrets(values: Record<string, string>): Promise<void> {
    for (const [key, value] of Object.entries(values)) {
      await this.run(["config", "set", "--secret", key], { input: value });
    }
  }

  /** The stack outputs' values (secrets included, as the program sees them). */
  async outputs(): Promise<Record<string, unknown>> {
    const out = await this.stack.outputs();
    return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, v.value]));
  }

  /** Options for an Automation API operation that stream its output to ours as it comes. */
  streams(): { onOutput: (s: string) => void } {
    return { onOutput: (s: string) => process.stdout.write(s) };
  }
}

type AutomationStack = Automation.Stack;

/** The folder whose `bin/pulumi` is `cli.pulumi`, as the Automation API's PulumiCommand wants it. */
function cliRoot(cli: PulumiCli): string {
  if (path.basename(cli.binDir) === "bin") return path.dirname(cli.binDir);
  // A `pulumi` in a folder not named bin: a link to it in one that is.
  const root = path.join(os.tmpdir(), `pulumi-observability-cli-${process.pid}`);
  mkdirSync(path.join(root, "bin"), { recursive: true });
  try {
    symlinkSync(cli.pulumi, path.join(root, "bin", "pulumi"));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  return root;
}

/** A Pulumi CLI to run: its path, the folder to put first on PATH, where it came from and its version. */
export interface PulumiCli {
  pulumi: string;
  binDir: string;
  /** For the log: `PATH`, or where the build from Go modules is cached. */
  source: string;
  /** What `pulumi version` printed. */
  version: string;
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

  const onPath = findOnPath("pulumi", env);
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
