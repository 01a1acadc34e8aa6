/**
 * Exit codes every command shares, and the one place where a failure becomes a single line on stderr: no
 * stack trace, and never the token.
 */
import { ApiError, ConfigError, ForbiddenError } from "../provider/client";
import { aplPosition, scrub } from "../provider/client/errors";

/** What a pipeline can rely on: 0 everything worked, 1 the command ran and failed, 2 it was called wrongly. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;
/** One of {@link EXIT}'s codes. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The command was called wrongly (a flag's value, a missing token, an unreadable file): exit 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

/** The command ran and failed on its input or at the service (a broken file, a refused request): exit 1. */
export class CommandError extends Error {
  override readonly name = "CommandError";
}

const secrets: string[] = [];

/** Remembers a secret (the token) so that no line this process prints can contain it. */
export function registerSecret(secret: string): void {
  if (!secrets.includes(secret)) secrets.push(secret);
}

/** `text` with every registered secret replaced. */
export function redact(text: string): string {
  return scrub(text, secrets);
}

/** The one line shown for `err`, and the exit code it earns. */
export function describeFailure(err: unknown): { line: string; code: ExitCode } {
  let line: string;
  let code: ExitCode = EXIT.failed;
  if (err instanceof UsageError || err instanceof ConfigError) {
    line = err.message;
    code = EXIT.usage;
  } else if (err instanceof ForbiddenError) {
    line = `the service refused the token (${err.status}${err.serviceMessage ? `: ${err.serviceMessage}` : ""}); check OBSERVABILITY_TOKEN or --token-file, and --org-id for a personal access token`;
  } else if (err instanceof ApiError) {
    const apl = aplPosition(err.detail);
    if (apl) {
      line = `APL error at line ${apl.line}, column ${apl.column}: ${apl.message ?? err.serviceMessage ?? err.message}`;
    } else if (err.status !== undefined && err.serviceMessage) {
      line = `the service answered ${err.status}: ${err.serviceMessage}`;
    } else {
      line = err.message;
    }
    if (err.traceId) line += ` (trace id ${err.traceId})`;
  } else if (err instanceof Error) {
    line = err.message;
  } else {
    line = String(err);
  }
  // One line: a multi-line message (a zod or system error) is folded rather than cut.
  return { line: redact(line.replace(/\s*\n\s*/g, " ").trim()), code };
}

/**
 * Wraps a command's action: its resolved code (default 0) becomes the exit code, and a thrown error becomes
 * one line on stderr and exit 1 or 2. `process.exitCode` is set rather than `process.exit` called, so pending
 * output (a piped stdout) is flushed before the process ends.
 */
export function action<A extends unknown[]>(
  name: string,
  run: (...args: A) => Promise<ExitCode | void>,
): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      process.exitCode = (await run(...args)) ?? EXIT.ok;
    } catch (err) {
      const { line, code } = describeFailure(err);
      process.stderr.write(`observability ${name}: ${line}\n`);
      process.exitCode = code;
    }
  };
}
