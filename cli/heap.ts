/**
 * Runs a streaming command under a bounded heap. `ingest` keeps about two batches alive (~25 MB), but with
 * Node's default heap limit (gigabytes) V8 defers full collections and the process grows to ~290 MB on a 1 GB
 * file. Node cannot lower its heap limit once running (`v8.setFlagsFromString` does not resize a live heap), so
 * the command re-runs itself once in a child with `--max-old-space-size`, unless the user chose a limit.
 */
import { spawn } from "node:child_process";

/** Old-space limit for the streaming child: batches are capped at 8 MiB, so this leaves ample room. */
export const STREAMING_HEAP_MB = 128;

/** Set in the child so it never re-runs itself again. */
const CHILD_MARK = "OBSERVABILITY_BOUNDED_HEAP";

/** True when this process already runs under a limit the user or this module chose. */
function heapLimitChosen(): boolean {
  if (process.env[CHILD_MARK] === "1") return true;
  const flags = [...process.execArgv, process.env.NODE_OPTIONS ?? ""].join(" ");
  return /--max-old-space-size/.test(flags);
}

/**
 * When the heap is unbounded, runs this same command line in a child under {@link STREAMING_HEAP_MB} and resolves
 * with its exit code; resolves `undefined` when this process should do the work itself.
 */
export function rerunWithBoundedHeap(argv: readonly string[]): Promise<number> | undefined {
  if (heapLimitChosen()) return undefined;
  const child = spawn(
    process.execPath,
    [`--max-old-space-size=${STREAMING_HEAP_MB}`, ...process.execArgv, ...argv.slice(1)],
    { stdio: "inherit", env: { ...process.env, [CHILD_MARK]: "1" } },
  );
  // A terminal's Ctrl-C reaches both processes; a signal sent to this process alone (a CI runner's SIGTERM)
  // is passed on, and this process stays until the child has finished its summary.
  const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
  const signals: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
  const handlers = signals.map((s) => [s, forward(s)] as const);
  for (const [s, h] of handlers) process.on(s, h);
  return new Promise((resolve) => {
    child.once("error", (err) => {
      process.stderr.write(`observability: cannot start a bounded-heap child (${err.message})\n`);
      resolve(1);
    });
    child.once("exit", (code, signal) => {
      for (const [s, h] of handlers) process.off(s, h);
      resolve(code ?? (signal === "SIGINT" ? 130 : 1));
    });
  });
}
