/** How a served emulator ends: on SIGINT or SIGTERM, it stops (see RunningEmulator.close) and saves its data. */

/** What the signal stops: a running emulator (./index.ts RunningEmulator) needs only its `close`, named here. */
export interface Stoppable {
  close(): Promise<void>;
}

/**
 * Resolves once the first SIGINT or SIGTERM has stopped `em`: running queries stop at their next checkpoint and
 * answer 503, requests in flight get a short grace, and the data file is saved. A second signal is left to Node's
 * default (the process ends at once). `log` gets one line naming the signal; a failed save is written to stderr
 * and sets the exit code to 1.
 */
export function serveUntilSignal(em: Stoppable, log: (line: string) => void, saving?: string): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      log(`${signal}: stopping${saving ? ` and saving ${saving}` : ""}`);
      process.off("SIGINT", onInt);
      process.off("SIGTERM", onTerm);
      em.close().then(resolve, (err: Error) => {
        process.stderr.write(`observability: could not save state: ${err.message}\n`);
        process.exitCode = 1;
        resolve();
      });
    };
    const onInt = () => stop("SIGINT");
    const onTerm = () => stop("SIGTERM");
    process.on("SIGINT", onInt);
    process.on("SIGTERM", onTerm);
  });
}
