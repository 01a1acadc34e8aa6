/**
 * The refusal of a service token given as a flag. It runs before the command tree loads: commander's own
 * "unknown option '--token=…'" error would echo the value into the terminal and CI logs.
 */

/** The commands that talk to the service, each with `--token-file` (see connection.ts); a test keeps them equal.
 * The emulator's own `--token` is the development token it accepts, not a credential, and is not refused. */
export const SERVICE_COMMANDS: readonly string[] = ["annotate", "ingest", "query", "migrate", "backtest"];

/** The one-line refusal when `args` (argv without node and the script) put a token on the command line. */
export function tokenFlagProblem(args: readonly string[]): string | undefined {
  if (!SERVICE_COMMANDS.includes(args[0])) return undefined;
  if (!args.some((a) => a === "--token" || a.startsWith("--token="))) return undefined;
  return (
    "--token is not accepted (a command line shows in ps and in logs); set OBSERVABILITY_TOKEN, " +
    "or use --token-file FILE, or --token-file - to read it from standard input"
  );
}
