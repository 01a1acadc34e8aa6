/**
 * Connection settings shared by every command that talks to the service: the same OBSERVABILITY_* variables
 * as the provider, or flags. The token is never a flag's value (a command line shows in `ps` and in CI logs):
 * it comes from OBSERVABILITY_TOKEN, a file, or standard input.
 */
import { readFile } from "node:fs/promises";
import { Command, InvalidArgumentError } from "commander";
import { ObservabilityClient } from "../provider/client";
import { ENV_NAMES, fromEnv } from "../provider/client/env";
import { UsageError, registerSecret } from "./exit";

/** The settings {@link addConnectionOptions} adds. A command whose `--url` means something else passes its
 * `--api-url` here as `url`. */
export interface ConnectionFlags {
  /** Service URL. */
  url?: string;
  orgId?: string;
  region?: "us" | "eu";
  tokenFile?: string;
}

function region(value: string): "us" | "eu" {
  if (value !== "us" && value !== "eu") throw new InvalidArgumentError("must be us or eu.");
  return value;
}

/**
 * Adds `--url` (or `--api-url`, for `annotate`, whose `--url` is the annotation's link), `--org-id`,
 * `--region` and `--token-file` to `command`.
 */
export function addConnectionOptions(command: Command, urlFlag: "--url" | "--api-url" = "--url"): Command {
  return command
    .option(
      `${urlFlag} <url>`,
      `service URL, e.g. the emulator's http://127.0.0.1:8787 (default: $${ENV_NAMES.url}, else the region's)`,
    )
    .option(
      "--org-id <id>",
      `organization id, needed with a personal access token (default: $${ENV_NAMES.orgId})`,
    )
    .option("--region <region>", `us or eu (default: $${ENV_NAMES.region}, else us)`, region)
    .option(
      "--token-file <file>",
      `read the token from FILE, or from standard input with "-" (default: $${ENV_NAMES.token})`,
    );
}

/** Help text shared by the commands: where the token comes from. */
export const TOKEN_HELP = `
The token is never taken as a flag's value, which would show in \`ps\`: set ${ENV_NAMES.token}, or pass
--token-file FILE, or pipe it in with --token-file -.`;

/** Reads all of standard input as text. */
async function readStdin(): Promise<string> {
  let text = "";
  process.stdin.setEncoding("utf8");
  for await (const chunk of process.stdin) text += chunk as string;
  return text;
}

/** The token: from `--token-file` (a path, or `-` for standard input), else OBSERVABILITY_TOKEN. */
export async function readToken(
  flags: ConnectionFlags,
  env: NodeJS.ProcessEnv = process.env,
  stdinInUse = false,
): Promise<string> {
  let token: string;
  let from: string;
  if (flags.tokenFile === "-") {
    if (stdinInUse) {
      throw new UsageError(
        "--token-file - reads the token from standard input, which already carries the events; use a file",
      );
    }
    token = (await readStdin()).trim();
    from = "standard input";
  } else if (flags.tokenFile !== undefined) {
    try {
      token = (await readFile(flags.tokenFile, "utf8")).trim();
    } catch (err) {
      throw new UsageError(
        `cannot read the token file ${flags.tokenFile}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      );
    }
    from = `the token file ${flags.tokenFile}`;
  } else {
    token = fromEnv("token", env) ?? "";
    from = ENV_NAMES.token;
    if (token === "") {
      throw new UsageError(
        `no token: set ${ENV_NAMES.token}, or pass --token-file FILE (or --token-file - to read it from standard input)`,
      );
    }
  }
  if (token === "") throw new UsageError(`no token: ${from} is empty`);
  if (/\s/.test(token)) throw new UsageError(`${from} must hold the token alone, on one line`);
  registerSecret(token);
  return token;
}

/** A client for the settings in `flags` and the environment; the caller closes it. */
export async function connect(
  flags: ConnectionFlags,
  options: { stdinInUse?: boolean } = {},
): Promise<ObservabilityClient> {
  const token = await readToken(flags, process.env, options.stdinInUse);
  // url, region and org id fall back to the environment inside the client, which names the variable
  // when one of them is invalid.
  return new ObservabilityClient({
    token,
    url: flags.url,
    region: flags.region,
    orgId: flags.orgId,
  });
}
