/** The `observability` command tree. Each subcommand lives in its own file under cli/commands/. */
import { Command, CommanderError } from "commander";
import { VERSION } from "../provider/client/version";
import { registerAnnotateCommand } from "./commands/annotate";
import { registerBacktestCommand } from "./commands/backtest";
import { registerEmulatorCommand } from "./commands/emulator";
import { registerIngestCommand } from "./commands/ingest";
import { registerMigrateCommand } from "./commands/migrate";
import { registerQueryCommand } from "./commands/query";
import { registerRecoverCommand } from "./commands/recover";
import { registerSloCommand } from "./commands/slo";
import { registerTestCommand } from "./commands/test-alerts";

/** Builds the command tree; exported so tests and future subcommands share it. */
export function buildProgram(): Command {
  const program = new Command("observability")
    .description("Tools for the observability service: a local emulator of its whole API, and more.")
    .version(VERSION, "-V, --version", "print the version of pulumi-observability")
    .helpOption("-h, --help", "show this help")
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride();
  registerEmulatorCommand(program);
  registerAnnotateCommand(program);
  registerIngestCommand(program);
  registerQueryCommand(program);
  registerRecoverCommand(program);
  registerMigrateCommand(program);
  registerSloCommand(program);
  registerTestCommand(program);
  registerBacktestCommand(program);
  return program;
}

/** Runs the CLI; bad usage exits 2 with a message, a failed command exits 1. */
export async function main(argv: string[] = process.argv): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version output are not errors.
      process.exit(err.exitCode === 0 ? 0 : 2);
    }
    process.stderr.write(`observability: ${(err as Error).message}\n`);
    process.exit(1);
  }
}
