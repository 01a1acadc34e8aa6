/**
 * Shared by `npm run demo` and `npm run test:e2e`: finding the Pulumi CLI before anything starts, building,
 * running commands asynchronously (an in-process emulator must keep serving), and the file-backend env.
 */
import { spawn } from "node:child_process";
import { accessSync, constants, lstatSync, mkdirSync, symlinkSync } from "node:fs";
import { createRequire } from "node:module";
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

/** The executable's full path when `name` is on PATH, else undefined. */
export function findOnPath(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const exts = process.platform === "win32" ? (env.PATHEXT ?? ".EXE;.CMD;.BAT").split(";") : [""];
  for (const dir of (env.PATH ?? "").split(path.delimiter)) {
    if (!dir) continue;
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
  const tsc = requireFromRepo.resolve("typescript/bin/tsc");
  await run(process.execPath, [tsc, "-p", "tsconfig.json"]);
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
  readonly pulumi: string;
  readonly cwd: string;
  readonly stack: string;
  readonly env: NodeJS.ProcessEnv;

  /** `pulumi` is the CLI's path, `cwd` the project folder (holding Pulumi.yaml). */
  constructor(pulumi: string, cwd: string, stack: string, env: NodeJS.ProcessEnv) {
    this.pulumi = pulumi;
    this.cwd = cwd;
    this.stack = stack;
    this.env = env;
  }

  /** Runs `pulumi <args> --stack <stack> --non-interactive`. */
  cli(args: string[], options: Omit<RunOptions, "cwd" | "env"> = {}): Promise<string> {
    return run(this.pulumi, [...args, "--stack", this.stack, "--non-interactive"], {
      ...options,
      cwd: this.cwd,
      env: this.env,
    });
  }

  /** Selects the stack, creating it (with the passphrase secrets provider) when it does not exist. */
  async select(): Promise<void> {
    await run(this.pulumi, ["stack", "select", "--create", this.stack, "--secrets-provider", "passphrase"], {
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
