/**
 * Sets an Automation API stack's configuration with no secret on any command line. The Automation API passes every
 * value as an argument (`pulumi config set-all --secret key=value`, `config set … -- value`), where any process can
 * read it (`ps`, /proc/<pid>/cmdline). Here the plain values still go through `setAllConfig`; each secret goes to
 * `pulumi config set --secret <key>` on its standard input, which the CLI reads when stdin is not a terminal
 * (pulumi/pulumi pkg/cmd/pulumi/config/config.go, `configSetCmd`: `!term.IsTerminal(stdin)` reads the value from
 * it, trailing newlines trimmed unless `--raw`).
 *
 * Used by the drivers of the examples (test/e2e-native/drivers/inline.mts, with the example's own copy of
 * @pulumi/pulumi) and by the tests that open stacks (test/e2e-native/native-support.ts): so it takes any stack of
 * that shape, and is written in erasable syntax only, so that Node's type stripping runs it as ts-jest does.
 */
import * as path from "node:path";
import { exec } from "../../scripts/shared/commands.ts";

/** A config value as the Automation API takes it. */
export interface ConfigValue {
  value: string;
  secret?: boolean;
}

/** What of an Automation API stack (any copy of @pulumi/pulumi) this needs. */
export interface ConfigurableStack {
  readonly name: string;
  readonly workspace: {
    readonly workDir: string;
    readonly pulumiCommand: { readonly command: string };
    envVars: Record<string, string>;
  };
  setAllConfig(config: Record<string, ConfigValue>): Promise<void>;
}

/** Sets `config` on `stack`: plain values as the Automation API does, each secret on the CLI's stdin. */
export async function setStackConfig(
  stack: ConfigurableStack,
  config: Record<string, ConfigValue>,
): Promise<void> {
  const plain = Object.fromEntries(Object.entries(config).filter(([, v]) => !v.secret));
  if (Object.keys(plain).length > 0) await stack.setAllConfig(plain);
  for (const [key, { value, secret }] of Object.entries(config))
    if (secret) await setSecret(stack, key, value);
}

/** `pulumi config set --secret <key> --stack <name>` with `value` on stdin, as the stack's workspace runs the CLI. */
async function setSecret(stack: ConfigurableStack, key: string, value: string): Promise<void> {
  const { command } = stack.workspace.pulumiCommand;
  const env: NodeJS.ProcessEnv = { ...process.env, ...stack.workspace.envVars };
  // As the Automation API runs it: the CLI's own folder first on PATH, for the plugins bundled beside it.
  if (path.isAbsolute(command)) env.PATH = [path.dirname(command), env.PATH ?? ""].join(path.delimiter);
  const args = ["config", "set", "--secret", key, "--stack", stack.name, "--non-interactive"];
  const r = await exec(command, args, { cwd: stack.workspace.workDir, env, input: value });
  if (r.code !== 0)
    throw new Error(`pulumi ${args.join(" ")} failed (exit code ${r.code}): ${r.stderr.trim()}`);
}
