/**
 * The one way this repository runs a command and waits for it: the scripts and the demo, the benchmarks, and both
 * kinds of real-engine test files (the ES modules of test/e2e and the ts-jest files of test/e2e-native, one jest
 * run). It imports nothing of the repository's, so Node's type stripping (the .mts scripts) and ts-jest (the
 * CommonJS test files) both load it as it is. Its folder's package.json says `"type": "module"`: Node then loads
 * these .ts files as the ES modules they are, without a warning on every script's stderr, and ts-jest, which
 * decides by the extension alone, still compiles them to CommonJS for its files.
 *
 * Asynchronous, never spawnSync: an emulator served from the same process must keep answering while the command
 * runs. A secret goes in on stdin (`input`), never in argv, where any process could read it.
 */
import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import * as path from "node:path";

/** A finished command: its exit code (null when a signal ended it, or it never started) and both streams. */
export interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CommandOptions {
  /** Defaults to the current folder (the repository's root inside npm scripts and jest). */
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Written to the command's stdin, which is then closed. */
  input?: string;
  /**
   * Also pass the command's output on to ours as it comes: "all" both streams, "stderr" only stderr. The outcome
   * holds both streams either way.
   */
  show?: "all" | "stderr";
  /** Exit codes {@link mustExec} takes for success; [0] unless given. */
  okCodes?: number[];
}

/** The command as a message names it: the executable's base name and the arguments, never stdin. */
export function commandLine(cmd: string, args: string[]): string {
  return [path.basename(cmd), ...args].join(" ");
}

/** Runs a command to its end; never rejects (a command that cannot start has code null and says why in stderr). */
export function exec(cmd: string, args: string[], options: CommandOptions = {}): Promise<Outcome> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, {
      cwd: options.cwd ?? process.cwd(),
      env: options.env ?? process.env,
      stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout!.setEncoding("utf8").on("data", (c: string) => {
      stdout += c;
      if (options.show === "all") process.stdout.write(c);
    });
    child.stderr!.setEncoding("utf8").on("data", (c: string) => {
      stderr += c;
      if (options.show) process.stderr.write(c);
    });
    // A command that exits before reading its stdin closes the pipe under us; its exit code tells what happened.
    child.stdin?.on("error", () => undefined);
    if (options.input !== undefined) child.stdin!.end(options.input);
    child.once("error", (err) => resolve({ code: null, stdout, stderr: `${stderr}${err.message}\n` }));
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** A command that failed: the message names it and its exit code, then the tail of what it printed unless shown. */
export class CommandError extends Error {
  override readonly name = "CommandError";
  /** The command line, without stdin. */
  readonly command: string;
  /** Exit code, or null when a signal ended it or it could not start. */
  readonly code: number | null;
  readonly outcome: Outcome;

  constructor(command: string, outcome: Outcome, shown: boolean) {
    const tail = `${outcome.stdout}\n${outcome.stderr}`.trim().split("\n").slice(-25).join("\n");
    super(`\`${command}\` failed with exit code ${outcome.code}${shown || !tail ? "" : `:\n${tail}`}`);
    this.command = command;
    this.code = outcome.code;
    this.outcome = outcome;
  }
}

/** Like {@link exec}, but resolves to stdout only when the exit code is one of `okCodes`; else a CommandError. */
export async function mustExec(cmd: string, args: string[], options: CommandOptions = {}): Promise<string> {
  const outcome = await exec(cmd, args, options);
  if (!(options.okCodes ?? [0]).includes(outcome.code ?? -1))
    throw new CommandError(commandLine(cmd, args), outcome, options.show === "all");
  return outcome.stdout;
}

/** npm as the process was started with it (npm_execpath inside npm scripts), else the one on PATH: command, args. */
export function npm(args: string[]): [string, string[]] {
  const cli = process.env.npm_execpath;
  return cli && /\.c?js$/.test(cli) ? [process.execPath, [cli, ...args]] : ["npm", args];
}

/**
 * The executable's full path when `name` is in one of `dirs` or on the PATH of `env`, else undefined. Folders
 * `node_modules/.bin` on PATH are passed over: npm puts them there inside npm scripts, and there `pulumi` is this
 * package's launcher, not an installed CLI.
 */
export function findOnPath(
  name: string,
  options: { env?: NodeJS.ProcessEnv; dirs?: string[] } = {},
): string | undefined {
  const env = options.env ?? process.env;
  const exts = process.platform === "win32" ? (env.PATHEXT ?? ".EXE;.CMD;.BAT").split(";") : [""];
  const onPath = (env.PATH ?? "")
    .split(path.delimiter)
    .filter((dir) => dir && !path.normalize(dir).endsWith(path.join("node_modules", ".bin")));
  for (const dir of [...(options.dirs ?? []), ...onPath]) {
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
