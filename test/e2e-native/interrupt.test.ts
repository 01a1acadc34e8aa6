/**
 * Ctrl-C under the real engine, with the native provider: one SIGINT to `pulumi up` while creates are in flight
 * lets them finish and be recorded. The engine stops starting steps, waits for those in flight, and sends the
 * plugin `Cancel` (pulumi/pulumi pkg/resource/deploy/deployment_executor.go, `Execute`); the plugin then starts no
 * new service work (provider/resources/cancellation.ts), so a dataset whose POST was in flight returns as a
 * partial create instead of sending its map fields' request.
 *
 * No sleeps: a proxy in front of the emulator lets the service store each POST's object and holds its answer;
 * once as many objects are stored as the engine runs steps at once (`--parallel`), the test sends SIGINT, waits for
 * the CLI to say it is cancelling, and only then releases the answers (test/helpers/interrupt.ts, shared with the
 * dynamic resources' test). Then: every object the service holds is in the state, no operation is pending, no
 * plugin of the interrupted run is left running, and the next `pulumi up` makes the rest and finishes the partial
 * creates.
 *
 * Skips, saying why, when there is no CLI or the plugin is not built.
 */
import type * as Automation from "@pulumi/pulumi/automation";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { ObservabilityClient } from "../../provider/client";
import {
  DATASETS,
  declareInterruptProgram,
  holdCreates,
  interruptUp,
  MAP_FIELDS,
  MONITORS,
  PARALLEL,
  type HeldCreates,
} from "../helpers/interrupt";
import type { PulumiCli } from "../../scripts/shared/engine";
import { declare, engineEnv, findCliAndPlugin, openStack, removeTempDirs, tempDir } from "./native-support";
import { setStackConfig } from "../helpers/stack-config";

const found = findCliAndPlugin();
const cli: PulumiCli | undefined = "cli" in found ? found.cli : undefined;
if (!cli) console.warn(`interrupt e2e skipped: ${"reason" in found ? found.reason : ""}`);
const suite = cli ? describe : describe.skip;

interface StateResource {
  type: string;
  id?: string;
  initErrors?: string[];
}

suite("Ctrl-C during `pulumi up` with the native provider", () => {
  jest.setTimeout(600_000);
  let em: RunningEmulator;
  let held: HeldCreates;
  let client: ObservabilityClient;
  let stack: Automation.Stack;

  const program = async () => declareInterruptProgram((kind, name, args) => declare(kind, name, args));

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
    held = await holdCreates(em.url);
    const stateDir = tempDir("interrupt-e2e-state-");
    stack = await openStack({
      cli: cli!,
      workDir: tempDir("interrupt-e2e-work-"),
      stackName: "interrupt",
      program,
      env: engineEnv(cli!, stateDir),
    });
    // The token on the CLI's stdin, never in its arguments (test/helpers/stack-config.ts).
    await setStackConfig(stack, {
      "observability:url": { value: held.proxy.url },
      "observability:token": { value: em.token, secret: true },
    });
  });
  afterAll(async () => {
    held?.release();
    await client?.close();
    await held?.proxy.close();
    await em?.close();
    removeTempDirs();
  });

  test("one SIGINT: the creates in flight finish and are recorded, nothing is orphaned or left running", async () => {
    const { outcome, outlived } = await interruptUp(stack, held);
    expect(outcome).not.toBe("finished");
    expect(outlived).toEqual([]);

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
