/**
 * The dynamic-provider host exits when its engine is gone (provider/resources/engine-health.ts), as Pulumi's own
 * Go providers do with pulumi/pulumi sdk/go/common/util/rpcutil/health.go `Healthcheck`: a gRPC health `Check` of
 * the engine's address every interval, Unimplemented counted as alive, any other error as gone. The watch runs on
 * a hand-driven clock against real gRPC servers; then the real host, started by @pulumi/pulumi's
 * cmd/dynamic-provider as the engine starts it, exits by itself once its engine stops answering.
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";
import * as net from "node:net";
import * as grpc from "@grpc/grpc-js";
import {
  ENGINE_CHECK_INTERVAL_MS,
  grpcEngineCheck,
  hostEngineAddress,
  watchEngine,
  type EngineState,
} from "../../provider/resources/engine-health";
import { REPO_ROOT, startProviderHost, urnOf } from "../helpers/host";
import { ManualClock, settle } from "../helpers/manual-clock";

/** A gRPC server on a free port; with `health`, it serves grpc.health.v1.Health/Check (an empty answer). */
async function grpcServer(options: { health: boolean }): Promise<{ address: string; server: grpc.Server }> {
  const server = new grpc.Server();
  if (options.health) {
    const identity = (b: Buffer) => b;
    server.addService(
      {
        Check: {
          path: "/grpc.health.v1.Health/Check",
          requestStream: false,
          responseStream: false,
          requestSerialize: identity,
          requestDeserialize: identity,
          responseSerialize: identity,
          responseDeserialize: identity,
        },
      },
      { Check: (_call: unknown, callback: grpc.sendUnaryData<Buffer>) => callback(null, Buffer.alloc(0)) },
    );
  }
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return { address: `127.0.0.1:${port}`, server };
}

/** A check that records each answer and lets the test await the next one. */
function observedCheck(check: () => Promise<EngineState>) {
  const answers: EngineState[] = [];
  let waiting: ((s: EngineState) => void) | undefined;
  return {
    answers,
    check: async () => {
      const state = await check();
      answers.push(state);
      waiting?.(state);
      return state;
    },
    /** The answer of the check that the clock's next timer starts, once the watch has taken it in. */
    async next(clock: ManualClock): Promise<EngineState> {
      await settle();
      const answered = new Promise<EngineState>((resolve) => (waiting = resolve));
      expect(clock.nextDueIn()).toBe(ENGINE_CHECK_INTERVAL_MS);
      clock.advance();
      const state = await answered;
      await settle();
      return state;
    },
  };
}

describe("hostEngineAddress: only in the dynamic-provider host", () => {
  const host = path.join("/p", "node_modules", "@pulumi", "pulumi", "cmd", "dynamic-provider");
  test.each([
    [["node", path.join(host, "index.js"), "127.0.0.1:4567"], "127.0.0.1:4567"],
    [["node", host, "127.0.0.1:4567"], "127.0.0.1:4567"],
    [["node", path.join(host, "index.js")], undefined],
    [["node", "/p/program/index.js", "127.0.0.1:4567"], undefined],
    [["node", "/p/node_modules/jest/bin/jest.js", "dynamic-provider"], undefined],
    [["node", "/p/other/cmd/dynamic-provider/index.js", "127.0.0.1:4567"], undefined],
  ])("%j → %s", (argv, address) => {
    expect(hostEngineAddress(argv)).toBe(address);
  });
});

describe("watchEngine with the gRPC health check", () => {
  test.each([
    ["an engine that serves no health service (Unimplemented: it answered)", false],
    ["an engine that serves grpc.health.v1.Health", true],
  ])(
    "%s is alive at every check; once stopped, the next check finds it gone, and no check follows",
    async (_, health) => {
      const engine = await grpcServer({ health });
      const grpcCheck = grpcEngineCheck(engine.address);
      const clock = new ManualClock(0);
      const observed = observedCheck(grpcCheck.check);
      const gone: string[] = [];
      watchEngine({ check: observed.check, clock, onGone: (reason) => gone.push(reason) });
      try {
        for (let i = 0; i < 3; i++) expect(await observed.next(clock)).toEqual({ alive: true });
        expect(gone).toEqual([]);
        engine.server.forceShutdown();
        const last = await observed.next(clock);
        expect(last).toEqual({ alive: false, reason: expect.stringMatching(/^UNAVAILABLE: /) });
        expect(gone).toEqual([(last as { reason: string }).reason]);
        expect(clock.pending).toBe(0);
      } finally {
        grpcCheck.close();
        engine.server.forceShutdown();
      }
    },
  );

  test("a port that accepts and never answers is gone at the check's deadline, not waited on for ever", async () => {
    const silent = net.createServer(() => {
      // Accepts, and never says a word: a port some other process took after the engine died.
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as net.AddressInfo;
    const check = grpcEngineCheck(`127.0.0.1:${port}`, 200);
    try {
      expect(await check.check()).toEqual({
        alive: false,
        reason: expect.stringMatching(/^DEADLINE_EXCEEDED: /),
      });
    } finally {
      check.close();
      silent.close();
    }
  });

  test("a check that throws counts as gone, naming why", async () => {
    const clock = new ManualClock(0);
    const gone = new Promise<string>((resolve) =>
      watchEngine({ check: () => Promise.reject(new Error("no channel")), clock, onGone: resolve }),
    );
    clock.advance();
    expect(await gone).toBe("the check failed: no channel");
    expect(clock.pending).toBe(0);
  });

  test("the interval is the caller's, and stop ends the watch: no check runs after", async () => {
    const clock = new ManualClock(0);
    let checks = 0;
    const watch = watchEngine({
      check: async () => {
        checks++;
        return { alive: true };
      },
      clock,
      intervalMs: 50,
      onGone: () => {
        throw new Error("not gone");
      },
    });
    expect(clock.nextDueIn()).toBe(50);
    clock.advance();
    await new Promise((r) => setImmediate(r));
    expect(checks).toBe(1);
    expect(clock.nextDueIn()).toBe(50);
    watch.stop();
    expect(clock.pending).toBe(0);
  });
});

test("the real dynamic-provider host exits by itself once its engine is gone", async () => {
  const host = await startProviderHost({ config: { "observability:url": "http://127.0.0.1:9" } });
  try {
    await host.configure();
    // The shim a released version serialized into state: the host requires it, and it the provider code.
    const shim = readFileSync(path.join(REPO_ROOT, "test", "fixtures", "shims", "0.4.0", "Role.js"), "utf8");
    const checked = await host.check(urnOf("Role", "r"), {}, { name: "r", __provider: shim });
    expect(checked.failures).toEqual([]);
    host.stopEngine();
    expect(await host.exited).toBe(1);
    expect(host.stderr()).toMatch(
      /pulumi-observability: the engine at 127\.0\.0\.1:\d+ is gone \(UNAVAILABLE: .*\): the dynamic-provider host exits/,
    );
  } finally {
    await host.close();
  }
});
