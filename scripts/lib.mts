/**
 * Shared by `npm run demo` and `npm run test:e2e`: getting the Pulumi CLI (from PATH, else the npm launcher)
 * before anything starts, building, running commands asynchronously (an in-process emulator must keep
 * serving), the file-backend env, and loading the TypeScript driver that test/examples shares with the demo.
 */
import { spawn } from "node:child_process";
import { accessSync, constants, lstatSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import Module, { createRequire } from "node:module";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root (this file lives in `<root>/scripts`). */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** `require` anchored at the repository, so `pulumi-observability/…` resolves to the built package. */
export const requireFromRepo = createRequire(path.join(REPO_ROOT, "package.json"));

/** How to get the CLI; printed whenever it is missing. */
export const INSTALL_HINT = [
  "Install it with:",
  "    curl -fsSL https://get.pulumi.com | sh",
  "or see https://www.pulumi.com/docs/install/ (Homebrew, winget, Chocolatey, a zip), then open a new shell",
  "so that `pulumi` is on PATH.",
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

/** Environment for the Pulumi CLI with a local file backend at `stateDir`. */
export function pulumiEnv(stateDir: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PULUMI_BACKEND_URL: `file://${stateDir}`,
    PULUMI_CONFIG_PASSPHRASE: process.env.PULUMI_CONFIG_PASSPHRASE ?? LOCAL_PASSPHRASE,
    PULUMI_SKIP_UPDATE_CHECK: "true",
    // The programs run on the same Node as this script (Node 24 inside npm scripts).
    PATH: [path.dirname(process.execPath), process.env.PATH ?? ""].join(path.delimiter),
    ...extra,
  };
}

/** A thin wrapper over the `pulumi` CLI for one project folder and one stack. */
export class PulumiStack {
  readonly pulumi: PulumiCli;
  readonly cwd: string;
  readonly stack: string;
  readonly env: NodeJS.ProcessEnv;

  /** `pulumi` is how to run the CLI, `cwd` the project folder (holding Pulumi.yaml). */
  constructor(pulumi: PulumiCli, cwd: string, stack: string, env: NodeJS.ProcessEnv) {
    this.pulumi = pulumi;
    this.cwd = cwd;
    this.stack = stack;
    this.env = env;
  }

  /** Runs `pulumi <args> --stack <stack> --non-interactive`. */
  cli(args: string[], options: Omit<RunOptions, "cwd" | "env"> = {}): Promise<string> {
    const [cmd, ...pre] = this.pulumi.argv;
    return run(cmd, [...pre, ...args, "--stack", this.stack, "--non-interactive"], {
      ...options,
      cwd: this.cwd,
      env: this.env,
    });
  }

  /** Selects the stack, creating it (with the passphrase secrets provider) when it does not exist. */
  async select(): Promise<void> {
    const [cmd, ...pre] = this.pulumi.argv;
    await run(cmd, [...pre, "stack", "select", "--create", this.stack, "--secrets-provider", "passphrase"], {
      cwd: this.cwd,
      env: this.env,
    });
  }

  /** Sets plain config values. */
  async setConfig(values: Record<string, string>): Promise<void> {
    for (const [key, value] of Object.entries(values)) await this.cli(["config", "set", key, value]);
  }

  /** Sets secret config values, passing each on stdin so it never shows in a process list. */
  async setSecrets(values: Record<string, string>): Promise<void> {
    for (const [key, value] of Object.entries(values)) {
      await this.cli(["config", "set", "--secret", key], { input: value });
    }
  }

  /** The stack outputs as JSON (secrets stay masked). */
  async outputs(): Promise<Record<string, unknown>> {
    return JSON.parse(await this.cli(["stack", "output", "--json"], { capture: true })) as Record<
      string,
      unknown
    >;
  }
}

/** How to run the Pulumi CLI: the command line before the CLI's own arguments, and what it is. */
export interface PulumiCli {
  /** E.g. `["/usr/local/bin/pulumi"]`, or `[node, ".../node_modules/pulumi/run.js"]` for the launcher. */
  argv: string[];
  /** Where it came from, for the log: `PATH` or `npm launcher`. */
  source: string;
  /** What `pulumi version` printed. */
  version: string;
}

/** How long getting the CLI may take before the scripts go on without it. */
export const CLI_TIMEOUT_MS = 60_000;

/**
 * The Pulumi CLI: a `pulumi` already on PATH, else the npm package `pulumi` (a devDependency), a launcher that
 * downloads the CLI of its own version on first use (it runs get.pulumi.com's install script) and caches it
 * under `$PULUMI_HOME/versions` (default `~/.pulumi/versions`). Each candidate must answer `pulumi version`
 * within `timeoutMs`. Otherwise `reason` says in one line why there is no CLI (offline, most often).
 */
export async function findPulumiCli(
  options: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<{ cli: PulumiCli; reason?: undefined } | { cli?: undefined; reason: string }> {
  const env = options.env ?? process.env;
  const timeoutMs = options.timeoutMs ?? CLI_TIMEOUT_MS;
  const reasons: string[] = [];

  const onPath = findOnPath("pulumi", env);
  if (onPath) {
    const probed = await probe([onPath, "version"], env, timeoutMs);
    if (probed.ok) return { cli: { argv: [onPath], source: "PATH", version: probed.output } };
    reasons.push(`\`${onPath} version\` ${probed.output}`);
  } else {
    reasons.push("no `pulumi` on PATH");
  }

  let launcher: string | undefined;
  try {
    launcher = requireFromRepo.resolve("pulumi/run.js");
  } catch {
    reasons.push("the npm launcher `pulumi` is not installed (run npm ci)");
  }
  if (launcher) {
    const version = (requireFromRepo("pulumi/package.json") as { version: string }).version;
    const argv = [process.execPath, launcher];
    const probed = await probe([...argv, "version"], env, timeoutMs);
    if (probed.ok) return { cli: { argv, source: "npm launcher", version: probed.output } };
    reasons.push(
      `the npm launcher \`pulumi\` ${version} could not get the CLI v${version}: ${probed.output}`,
    );
  }
  return { reason: reasons.join("; ") };
}

/** Runs `argv` with stdio captured, killing it (and whatever it started) after `timeoutMs`. */
function probe(
  argv: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<{ ok: boolean; output: string }> {
  return new Promise((resolve) => {
    // Its own process group, so a timeout also ends the shell and curl the launcher's install script starts.
    const child = spawn(argv[0], argv.slice(1), {
      env,
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
      // The launcher's own error is its last line, `pulumi: <message>`; keep only that.
      const last = stderr
        .trim()
        .split("\n")
        .at(-1)
        ?.replace(/^pulumi: /, "")
        .trim();
      resolve({ ok: false, output: last || `failed with exit code ${code}` });
    });
  });
}

/**
 * Loads a TypeScript module of this repository written for ts-jest (CommonJS: `require`, `__dirname`,
 * extensionless imports), which Node's type stripping cannot run as it is. It is transpiled to CommonJS with the
 * TypeScript compiler, as ts-jest does, so the demo runs the very code the tests run (test/examples/engine.ts).
 */
export function requireTypeScript<T>(file: string): T {
  const extensions = (Module as unknown as { _extensions: Record<string, unknown> })._extensions;
  if (!transpilerInstalled) {
    const ts = requireFromRepo("typescript") as typeof import("typescript");
    // Registering `.ts` here also lets `require("./x")` find `x.ts`, as ts-jest's resolver does.
    extensions[".ts"] = (module: { _compile(code: string, file: string): void }, filename: string) => {
      const { outputText } = ts.transpileModule(readFileSync(filename, "utf8"), {
        fileName: filename,
        compilerOptions: {
          module: ts.ModuleKind.CommonJS,
          target: ts.ScriptTarget.ES2022,
          esModuleInterop: true,
          inlineSourceMap: true,
        },
      });
      module._compile(outputText, filename);
    };
    transpilerInstalled = true;
  }
  return requireFromRepo(file) as T;
}
let transpilerInstalled = false;
