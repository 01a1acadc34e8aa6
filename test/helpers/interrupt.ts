/**
 * What the two Ctrl-C tests under the real engine share: test/e2e/paths/interrupt.test.mts (the dynamic resources)
 * and test/e2e-native/interrupt.test.ts (the native provider). The program: two datasets with map fields, then
 * eight monitors, run with `--parallel 4`. The timing, without sleeps: a proxy in front of the emulator lets the
 * service store each POST's object and holds its answer; once as many objects are stored as the engine runs steps
 * at once, one SIGINT goes to `pulumi up`; once the CLI says it is cancelling, the answers are released.
 *
 * Imports without extensions: loaded by ts-jest and, in test/e2e, by jest's resolver for Node's type stripping.
 */
import { gate, startFaultProxy, type FaultProxy } from "./fault-proxy-server";
import { endMarkedPlugins, markOf, PROCESS_MARK, type MarkedProcess } from "./run-processes";

/** Steps the engine runs at once (`--parallel`): the creates in flight when the SIGINT goes. */
export const PARALLEL = 4;
export const DATASETS = 2;
export const MONITORS = 8;
export const MAP_FIELDS = ["attrs", "labels"];

/**
 * How long the plugins and hosts of a run that ended may take to end by themselves: the engine's own shutdown, or
 * a dynamic-provider host's next health check of its engine (every 2 s) and its exit, on a loaded machine.
 */
export const PLUGINS_END_MS = 10_000;

/** The program's resources, declared through `declare` (a dynamic resource's class, or a native type token). */
export function declareInterruptProgram(
  declare: (kind: "Dataset" | "Monitor", name: string, args: Record<string, unknown>) => void,
): void {
  // Datasets first, so that they are among the first steps the engine starts.
  for (let i = 0; i < DATASETS; i++)
    declare("Dataset", `ds-${i}`, { name: `int-ds-${i}`, mapFields: MAP_FIELDS, forceDestroy: true });
  for (let i = 0; i < MONITORS; i++)
    declare("Monitor", `m-${i}`, { name: `int-m-${i}`, aplQuery: "['x'] | count", type: "MatchEvent" });
}

/** The proxy that holds the creates' answers, and its two moments. */
export interface HeldCreates {
  proxy: FaultProxy;
  /** Resolves once {@link PARALLEL} creates are stored by the service, their answers held. */
  inFlight: Promise<void>;
  /** Lets every held answer (and every later one) through. */
  release(): void;
}

/** Starts the proxy to `serviceUrl`: each POST is forwarded at once, its answer held until {@link HeldCreates.release}. */
export async function holdCreates(serviceUrl: string): Promise<HeldCreates> {
  const released = gate();
  const enough = gate();
  let stored = 0;
  const proxy = await startFaultProxy(serviceUrl, (method) =>
    method === "POST"
      ? {
          answerAfter: released.done,
          answered: () => {
            if (++stored === PARALLEL) enough.open();
          },
        }
      : undefined,
  );
  return { proxy, inFlight: enough.done, release: released.open };
}

/** An Automation API stack, of whichever copy of @pulumi/pulumi (what {@link interruptUp} needs of it). */
export interface UpStack {
  workspace: { envVars: Record<string, string> };
  up(options: { parallel: number; signal: AbortSignal; onOutput: (text: string) => void }): Promise<unknown>;
}

/**
 * `pulumi up` of `stack`, interrupted: one SIGINT once the creates are in flight, their answers released once the
 * CLI says it is cancelling. Resolves to how the run ended (`"finished"`, else its error) and the plugins and hosts
 * of that run that had not ended by themselves within {@link PLUGINS_END_MS} of its end (then killed here): the
 * engine ends the plugins it started, and a dynamic-provider host whose engine is gone ends within seconds
 * (provider/resources/engine-health.ts), so a test expects none. The run's processes are marked
 * (test/helpers/run-processes.ts) through the workspace's environment for the time of the run.
 */
export async function interruptUp(
  stack: UpStack,
  held: HeldCreates,
  onOutput: (text: string) => void = () => {},
): Promise<{ outcome: string; outlived: MarkedProcess[] }> {
  const mark = `interrupt-${process.pid}-${Date.now()}`;
  const envVars = stack.workspace.envVars;
  const before = envVars[PROCESS_MARK];
  envVars[PROCESS_MARK] = markOf(mark);
  try {
    const interrupt = new AbortController();
    const cancelling = gate();
    let output = "";
    const up = stack
      .up({
        parallel: PARALLEL,
        signal: interrupt.signal,
        onOutput: (text: string) => {
          output += text;
          onOutput(text);
          if (/received; cancelling/.test(output)) cancelling.open();
        },
      })
      .then(
        () => "finished",
        (e: Error) => e.message,
      );
    await held.inFlight;
    interrupt.abort();
    await cancelling.done;
    held.release();
    const outcome = await up;
    return { outcome, outlived: await endMarkedPlugins(markOf(mark), { graceMs: PLUGINS_END_MS }) };
  } finally {
    if (before === undefined) delete envVars[PROCESS_MARK];
    else envVars[PROCESS_MARK] = before;
  }
}
