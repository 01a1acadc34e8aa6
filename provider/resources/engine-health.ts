/**
 * The dynamic-provider host ends when the engine that started it is gone. Pulumi starts the host as
 * `node …/@pulumi/pulumi/cmd/dynamic-provider/index.js <engine address>` (through `pulumi-resource-pulumi-nodejs`),
 * and the host itself never looks at its engine again: after `kill -9` of `pulumi up` it served on with no one to
 * serve, for as long as the machine ran. Pulumi's own Go providers and language hosts do not: they health-check the
 * engine address they were started with and stop when it fails (pulumi/pulumi sdk/go/common/util/rpcutil/health.go,
 * `Healthcheck`, started by sdk/go/pulumi/provider/main.go: the gRPC health service's `Check`, every interval; an
 * error other than Unimplemented means the engine is gone). This module does the same from inside the host, when
 * the provider code is loaded there (provider/resources/dynamic.ts imports it), with a shorter interval than the
 * Go providers' five minutes: a check is one local gRPC call, and a host left behind holds about 130 MB.
 *
 * It watches only in the host: the process's entry is @pulumi/pulumi's `cmd/dynamic-provider` with an address
 * after it. Loaded anywhere else (a program, a test), it does nothing.
 */
import { createRequire } from "node:module";
import * as path from "node:path";
import type * as Grpc from "@grpc/grpc-js";
import { systemClock, type Clock } from "../client/clock";

/** How often the host checks its engine. */
export const ENGINE_CHECK_INTERVAL_MS = 2_000;

/**
 * How long one check waits for an answer. A port that accepts and never answers (reused by another process) must
 * not hold the watch, or `observability recover`, forever; it is far above what a live engine takes on a busy
 * machine, since a host that took a slow engine for a dead one would end in the middle of its run.
 */
export const ENGINE_CHECK_DEADLINE_MS = 30_000;

/** An engine's answer to one check. */
export type EngineState = { alive: true } | { alive: false; reason: string };

/**
 * One gRPC health `Check` of the engine at `address` (`host:port`), as rpcutil.Healthcheck sends it: an answer,
 * or Unimplemented (the engine serves no health service: it still answered), means alive; any other error (the
 * connection refused, above all, or no answer within `deadlineMs`) means gone. Resolved with @pulumi/pulumi's own @grpc/grpc-js, the one the host
 * runs on. `close` releases the channel.
 */
export function grpcEngineCheck(
  address: string,
  deadlineMs = ENGINE_CHECK_DEADLINE_MS,
): { check(): Promise<EngineState>; close(): void } {
  const grpc = grpcOfPulumi();
  const client = new grpc.Client(address, grpc.credentials.createInsecure());
  const empty = Buffer.alloc(0);
  return {
    check: () =>
      new Promise((resolve) => {
        // HealthCheckRequest{} encodes to no bytes; the answer's contents do not matter, only that there is one.
        client.makeUnaryRequest(
          "/grpc.health.v1.Health/Check",
          () => empty,
          (b: Buffer) => b,
          empty,
          new grpc.Metadata(),
          { deadline: Date.now() + deadlineMs },
          (err: Grpc.ServiceError | null) => {
            if (!err || err.code === grpc.status.UNIMPLEMENTED) resolve({ alive: true });
            else resolve({ alive: false, reason: `${grpc.status[err.code] ?? err.code}: ${err.details}` });
          },
        );
      }),
    close: () => client.close(),
  };
}

/** @grpc/grpc-js as @pulumi/pulumi (this package's peer, and the host's own package) resolves it. */
function grpcOfPulumi(): typeof Grpc {
  const pulumiRequire = createRequire(require.resolve("@pulumi/pulumi"));
  return pulumiRequire("@grpc/grpc-js") as typeof Grpc;
}

/** A watch of an engine; `stop` ends it (no check runs after). */
export interface EngineWatch {
  stop(): void;
}

/**
 * Checks the engine every `intervalMs` on `clock`, one check at a time (the next is timed from the end of the
 * last, as rpcutil.Healthcheck resets its timer), and calls `onGone` once, with the reason, at the first check
 * that finds it gone; no check follows. The clock and the check are the test's to give.
 */
export function watchEngine(options: {
  check(): Promise<EngineState>;
  onGone(reason: string): void;
  intervalMs?: number;
  clock?: Clock;
}): EngineWatch {
  const clock = options.clock ?? systemClock;
  const interval = options.intervalMs ?? ENGINE_CHECK_INTERVAL_MS;
  let stopped = false;
  let cancel = () => {};
  const schedule = () => {
    cancel = clock.setTimer(() => {
      options.check().then(
        (state) => {
          if (stopped) return;
          if (state.alive) schedule();
          else {
            stopped = true;
            options.onGone(state.reason);
          }
        },
        (err: unknown) => {
          if (stopped) return;
          stopped = true;
          options.onGone(`the check failed: ${err instanceof Error ? err.message : String(err)}`);
        },
      );
    }, interval);
  };
  schedule();
  return {
    stop() {
      stopped = true;
      cancel();
    },
  };
}

/** The engine address of the dynamic-provider host this process is, from its arguments; undefined if it is not one. */
export function hostEngineAddress(argv: readonly string[]): string | undefined {
  const entry = argv[1];
  if (!entry || argv.length < 3) return undefined;
  const parts = path.resolve(entry).split(path.sep);
  const at = parts.lastIndexOf("dynamic-provider");
  const isHost =
    at >= 2 &&
    parts[at - 1] === "cmd" &&
    parts[at - 2] === "pulumi" &&
    (at === parts.length - 1 || (at === parts.length - 2 && parts[at + 1] === "index.js"));
  return isHost ? argv[2] : undefined;
}

/** The machine's clock with timers that never keep the host alive on their own (its gRPC server does that). */
const unrefClock: Clock = {
  now: () => Date.now(),
  setTimer: (fn, ms) => {
    const timer = setTimeout(fn, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};

let watching: EngineWatch | undefined;
/**
 * In the dynamic-provider host, starts the watch of the engine it was started with (once per process): when the
 * engine is gone, the host exits.
 */
export function watchHostEngine(argv: readonly string[] = process.argv): void {
  const address = hostEngineAddress(argv);
  if (!address || watching) return;
  const engine = grpcEngineCheck(address);
  watching = watchEngine({
    check: engine.check,
    clock: unrefClock,
    onGone: (reason) => {
      engine.close();
      try {
        process.stderr.write(
          `pulumi-observability: the engine at ${address} is gone (${reason}): the dynamic-provider host exits\n`,
        );
      } finally {
        // Exits whatever is in flight: no engine is left to hear how a step ended.
        process.exit(1);
      }
    },
  });
}

watchHostEngine();
