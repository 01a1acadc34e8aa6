/**
 * Runs a streaming command under a bounded heap. `ingest` keeps about two batches alive (~25 MB), but with
 * Node's default heap limit (gigabytes) V8 defers full collections and the process grows to ~300 MB on a large
 * file. Node cannot lower its heap limit once running (`v8.setFlagsFromString` does not resize a live heap), so
 * the command replaces itself once (execve: same process id, same standard streams, no second process) with a
 * Node started under `--max-old-space-size`, unless the user chose a limit.
 */

/**
 * Old-space limit for streaming. Measured on a 200 MB NDJSON file (`bench/cli-ingest.ts` for the 1 GB run):
 * 128 MB cut the peak RSS to ~180 MB but cost 2.3× the CPU in collections; 192 MB gives ~200 MB for ~1.3×.
 * Batches are capped at 8 MiB, so the live heap stays far below either.
 */
export const STREAMING_HEAP_MB = 192;

/** Set in the replaced process so it never replaces itself again. */
const BOUNDED_MARK = "OBSERVABILITY_BOUNDED_HEAP";

/** True when this process already runs under a limit the user or this module chose. */
function heapLimitChosen(): boolean {
  if (process.env[BOUNDED_MARK] === "1") return true;
  const flags = [...process.execArgv, process.env.NODE_OPTIONS ?? ""].join(" ");
  return /--max-old-space-size/.test(flags);
}

/**
 * Replaces this process with the same command line under {@link STREAMING_HEAP_MB} when the heap is unbounded;
 * returns only when it does not (a limit already chosen, or a platform without execve, such as Windows, where the
 * command runs with Node's default heap).
 */
export function execWithBoundedHeap(argv: readonly string[]): void {
  if (heapLimitChosen() || typeof process.execve !== "function") return;
  process.execve(
    process.execPath,
    [process.execPath, `--max-old-space-size=${STREAMING_HEAP_MB}`, ...process.execArgv, ...argv.slice(1)],
    { ...process.env, [BOUNDED_MARK]: "1" },
  );
}
