/**
 * Stacks run by the real engine, as the demo, the benchmarks and every real-engine test run them: the CLI's
 * environment (a file backend, no network), and an Automation API stack of an inline program (EngineStack), so the
 * CLI needs no language host. Like commands.ts it imports nothing of the repository's but that, so both the .mts
 * scripts (Node's type stripping) and the ts-jest test files load this one copy.
 */
import { lstatSync, mkdirSync, symlinkSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type * as Automation from "@pulumi/pulumi/automation/index.js";
import { mustExec, type CommandOptions } from "./commands.ts";

/** The passphrase that encrypts the local stacks' secrets unless PULUMI_CONFIG_PASSPHRASE is already set. It
 * guards only development placeholders and the emulator's public token, so it is documented, not secret. */
export const LOCAL_PASSPHRASE = "pulumi-observability-local";

/** The program of an inline stack: what it returns becomes the stack's outputs. */
export type InlineProgram = () => Promise<Record<string, unknown> | void>;

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
    /** The project's name; the folder's name unless given. */
    projectName?: string;
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
      {
        stackName: options.stackName,
        projectName: options.projectName ?? path.basename(options.workDir),
        program: options.program,
      },
      { workDir: options.workDir, pulumiCommand, envVars, secretsProvider: "passphrase" },
    );
    return new EngineStack(options.cli, options.workDir, options.stackName, options.env, stack);
  }

  /** Runs `pulumi <args> --stack <stack> --non-interactive` in the project folder, with this stack's env. */
  run(
    args: string[],
    options: Pick<CommandOptions, "input" | "okCodes"> & { capture?: boolean } = {},
  ): Promise<string> {
    return mustExec(this.cli.pulumi, [...args, "--stack", this.name, "--non-interactive"], {
      input: options.input,
      okCodes: options.okCodes,
      // Shown as it comes unless captured; a captured stdout is the answer, and stderr still shows.
      show: options.capture ? "stderr" : "all",
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

/**
 * Environment for the Pulumi CLI with a local file backend at `stateDir`: no network (no update check, no plugin
 * downloads), its own PULUMI_HOME (`<stateDir>/.pulumi-home`), and on PATH: `pathFirst` (the native plugin's
 * folder, for its tests), then `cli.binDir`, so the dynamic-provider launcher beside the CLI is the one found, then
 * the folder of this Node (Node 24 inside npm scripts), which the launcher and the programs run on.
 */
export function pulumiEnv(
  cli: PulumiCli,
  stateDir: string,
  options: { pathFirst?: string[] } = {},
): Record<string, string> {
  const home = path.join(stateDir, ".pulumi-home");
  mkdirSync(home, { recursive: true });
  const inherited = Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined);
  return {
    ...Object.fromEntries(inherited),
    PULUMI_BACKEND_URL: `file://${stateDir}`,
    PULUMI_HOME: home,
    PULUMI_CONFIG_PASSPHRASE: process.env.PULUMI_CONFIG_PASSPHRASE ?? LOCAL_PASSPHRASE,
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    PATH: [
      ...(options.pathFirst ?? []),
      cli.binDir,
      path.dirname(process.execPath),
      process.env.PATH ?? "",
    ].join(path.delimiter),
  };
}

/**
 * The dynamic-provider host loads each resource's shim from a string, where a package's reference to itself does
 * not resolve; the shim's `require("pulumi-observability/dynamic")` then looks in node_modules, as it would in
 * a user's program. So the examples run here see this checkout as the installed package through a link.
 */
export function linkPackageIntoNodeModules(repoRoot: string): void {
  const link = path.join(repoRoot, "node_modules", "pulumi-observability");
  try {
    lstatSync(link);
    return;
  } catch {
    // Not there yet: create it below.
  }
  mkdirSync(path.dirname(link), { recursive: true });
  symlinkSync("..", link, "dir");
}
