/**
 * Ctrl-C under the real engine, with the native provider: one SIGINT to `pulumi up` while creates are in flight
 * lets them finish and be recorded. The engine stops starting steps, waits for those in flight, and sends the
 * plugin `Cancel` (pulumi/pulumi pkg/resource/deploy/deployment_executor.go, `Execute`); the plugin then starts no
 * new service work (provider/resources/cancellation.ts), so a dataset whose POST was in flight returns as a
 * partial create instead of sending its map fields' request.
 *
 * No sleeps: a proxy in front of the emulator lets the service store each POST's object and holds its answer;
 * once as many objects are stored as the engine runs steps at once (`--parallel`), the test sends SIGINT, waits for
 * the CLI to say it is cancelling, and only then releases the answers. Then: every object the service holds is in
 * the state, no operation is pending, and the next `pulumi up` makes the rest and finishes the partial creates.
 *
 * Skips, saying why, when there is no CLI or the plugin is not built.
 */
import type * as Automation from "@pulumi/pulumi/automation";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { ObservabilityClient } from "../../provider/client";
import { gate, startFaultProxy, type FaultProxy } from "../helpers/fault-proxy";
import {
  declare,
  engineEnv,
  findCliAndPlugin,
  openStack,
  removeTempDirs,
  tempDir,
  type Cli,
} from "./native-support";

const found = findCliAndPlugin();
const cli: Cli | undefined = "cli" in found ? found.cli : undefined;
if (!cli) console.warn(`interrupt e2e skipped: ${"reason" in found ? found.reason : ""}`);
const suite = cli ? describe : describe.skip;

const PARALLEL = 4;
const DATASETS = 2;
const MONITORS = 8;
const MAP_FIELDS = ["attrs", "labels"];

interface StateResource {
  type: string;
  id?: string;
  initErrors?: string[];
}

suite("Ctrl-C during `pulumi up` with the native provider", () => {
  jest.setTimeout(600_000);
  let em: RunningEmulator;
  let proxy: FaultProxy;
  let client: ObservabilityClient;
  let stack: Automation.Stack;
  const release = gate();
  let stored = 0;
  const enough = gate();

  const program = async () => {
    // Datasets first, so that they are among the first steps the engine starts.
    for (let i = 0; i < DATASETS; i++)
      declare("Dataset", `ds-${i}`, { name: `int-ds-${i}`, mapFields: MAP_FIELDS, forceDestroy: true });
    for (let i = 0; i < MONITORS; i++)
      declare("Monitor", `m-${i}`, { name: `int-m-${i}`, aplQuery: "['x'] | count", type: "MatchEvent" });
  };

  /** The service's objects of this program: dataset names and monitor ids. */
  const onService = async () => ({
    datasets: (await client.datasets.list()).map((d) => String(d.id)).sort(),
    monitors: (await client.monitors.list()).map((m) => String(m.id)).sort(),
  });
  const inState = async () => {
    const { deployment } = await stack.exportStack();
    const resources = (deployment.resources ?? []) as StateResource[];
    const ids = (kind: string) =>
      resources
        .filter((r) => r.type === `observability:index:${kind}`)
        .map((r) => String(r.id))
        .sort();
    return {
      datasets: ids("Dataset"),
      monitors: ids("Monitor"),
      pending: (deployment.pending_operations ?? []) as unknown[],
      initErrors: resources.filter((r) => (r.initErrors ?? []).length > 0).map((r) => r.id),
    };
  };

  beforeAll(async () => {
    em = await startEmulator({ port: 0, host: "127.0.0.1" });
    client = new ObservabilityClient({ url: em.url, token: em.token });
    // Each create's POST reaches the service at once; its answer waits for the release.
    proxy = await startFaultProxy(em.url, (method) =>
      method === "POST"
        ? {
            answerAfter: release.done,
            answered: () => {
              if (++stored === PARALLEL) enough.open();
            },
          }
        : undefined,
    );
    const stateDir = tempDir("interrupt-e2e-state-");
    stack = await openStack({
      cli: cli!,
      workDir: tempDir("interrupt-e2e-work-"),
      stackName: "interrupt",
      program,
      env: engineEnv(cli!, stateDir),
    });
    await stack.setConfig("observability:url", { value: proxy.url });
    await stack.setConfig("observability:token", { value: em.token, secret: true });
  });
  afterAll(async () => {
    release.open();
    await client?.close();
    await proxy?.close();
    await em?.close();
    removeTempDirs();
  });

  test("one SIGINT: the creates in flight finish and are recorded, nothing is orphaned", async () => {
    const interrupt = new AbortController();
    const cancelling = gate();
    let output = "";
    const up = stack
      .up({
        parallel: PARALLEL,
        signal: interrupt.signal,
        onOutput: (text) => {
          output += text;
          if (/received; cancelling/.test(output)) cancelling.open();
        },
      })
      .then(
        () => "finished",
        (e: Error) => e.message,
      );
    await enough.done;
    interrupt.abort();
    await cancelling.done;
    release.open();
    const outcome = await up;
    expect(outcome).not.toBe("finished");

    const service = await onService();
    const state = await inState();
    // Every object whose create landed is in the state: the ones in flight at the interrupt at least.
    expect(service.datasets.length + service.monitors.length).toBeGreaterThanOrEqual(PARALLEL);
    expect(state.datasets).toEqual(service.datasets);
    expect(state.monitors).toEqual(service.monitors);
    expect(state.pending).toEqual([]);
    // The interrupt stopped the run: not every declared object was made.
    expect(service.datasets.length + service.monitors.length).toBeLessThan(DATASETS + MONITORS);
  });

  test("the next `pulumi up` makes the rest and finishes any partial create; then nothing changes", async () => {
    await stack.up({ parallel: PARALLEL });
    const service = await onService();
    expect(service.datasets).toHaveLength(DATASETS);
    expect(service.monitors).toHaveLength(MONITORS);
    for (const id of service.datasets)
      expect([...((await client.datasets.get(id)).mapFields ?? [])].sort()).toEqual(MAP_FIELDS);
    const state = await inState();
    expect(state.pending).toEqual([]);
    expect(state.initErrors).toEqual([]);
    expect(state.monitors).toEqual(service.monitors);
    await stack.preview({ expectNoChanges: true });
  });
});
