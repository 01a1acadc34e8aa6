/**
 * Ctrl-C: the engine's first interrupt lets the steps in flight finish and record their results, and starts no new
 * step; it tells each provider by the `Cancel` RPC (pulumi/pulumi pkg/resource/deploy/deployment_executor.go,
 * `Execute`, calls `Host.SignalCancellation` when the caller's context is cancelled). From then on this process
 * starts no new service work: an operation that arrives later fails before sending anything, and an operation in
 * flight takes no further step that changes the service (a create whose object has landed returns it as a partial
 * create, lifecycle.ts, instead of going on to its next request; an uncertain create does not send its POST again).
 * Requests already sent run to their end, so their results reach the engine.
 *
 * One flag per process: the native plugin serves one provider per process (provider/native/provider.ts), and the
 * dynamic-provider host answers `Cancel` itself without telling the provider (@pulumi/pulumi
 * cmd/dynamic-provider/index.js, `cancel`), so nothing there ever sets it.
 */

let cancelled = false;

/** Records the engine's `Cancel`: no new service work from now on. */
export function signalCancellation(): void {
  cancelled = true;
}

/** Whether the engine has asked this process to cancel. */
export function cancellationSignalled(): boolean {
  return cancelled;
}

/** Forgets a cancellation; for tests that reuse one process for unrelated runs. */
export function resetCancellation(): void {
  cancelled = false;
}

/** The error of an operation that arrives after the cancellation: nothing was sent. */
export function cancelledBeforeStart(): Error {
  return new Error("not started: the operation was cancelled (Ctrl-C), and nothing was sent to the service");
}
