/**
 * Ctrl-C under the real engine, with the dynamic resources: one SIGINT to `pulumi up` while creates are in flight
 * lets them finish and be recorded. The engine stops starting steps and waits for those in flight (pulumi/pulumi
 * pkg/resource/deploy/deployment_executor.go); Pulumi's dynamic-provider host answers the engine's `Cancel` itself
 * and tells the provider nothing (@pulumi/pulumi cmd/dynamic-provider/index.js, `cancel`), so each create in flight
 * runs to its end, map fields included, and reaches the state. (The native provider also stops its own later
 * steps: test/e2e-native/interrupt.test.ts.)
 *
 * No sleeps: a proxy in front of the emulator lets the service store each POST's object and holds its answer; once
 * as many objects are stored as the engine runs steps at once, the test sends SIGINT, waits for the CLI to say it is
 * cancelling, and only then releases the answers (test/helpers/interrupt.ts, shared with the native provider's
 * test). Then every object the service holds is in the state, no operation is pending, no plugin or host of the
 * interrupted run is left running, and the next `pulumi up` makes the rest.
 */
import type { EngineStack } from "../../../scripts/lib.mts";
import {
  DATASETS,
  declareInterruptProgram,
  holdCreates,
  interruptUp,
  MAP_FIELDS,
  MONITORS,
  PARALLEL,
  type HeldCreates,
} from "../../helpers/interrupt.ts";
import { enginePath, steps } from "../harness.mts";
import { exportState, packageResources } from "../support.mts";
import { obs, TYPE } from "./common.mts";

enginePath("Ctrl-C during up", "interrupt", (ctx) => {
  let stack: EngineStack;
  let held: HeldCreates;

  beforeAll(async () => {
    held = await holdCreates(ctx.em.url);
    stack = await ctx.stack("interrupt", async () => {
      const { Dataset, Monitor } = await obs();
      const classes = { Dataset, Monitor };
      declareInterruptProgram((kind, name, args) => new classes[kind](name, args as never));
    });
    await stack.setConfig({ "observability:url": held.proxy.url });
  });
  // The clean-up's destroy still goes through the proxy (the provider's recorded configuration names it), which
  // by then holds nothing; it closes after that.
  ctx.afterSteps(async () => held.release());
  afterAll(async () => held?.proxy.close());

  const onService = async () => ({
    datasets: (await ctx.client.datasets.list())
      .map((d) => String(d.id))
      .filter((id) => id.startsWith("int-")),
    monitors: (await ctx.client.monitors.list()).map((m) => String(m.id)),
  });
  const inState = async () => {
    const { resources, pending } = await exportState(stack);
    const ids = (kind: string) =>
      packageResources(resources)
        .filter((r) => r.type === `${TYPE}${kind}`)
        .map((r) => String(r.id))
        .sort();
    return { datasets: ids("Dataset"), monitors: ids("Monitor"), pending };
  };
  const step = steps();

  step(
    "one SIGINT: the creates in flight finish and are recorded, nothing is orphaned or left running",
    async () => {
      const { outcome, outlived } = await interruptUp(stack.stack, held, ctx.out.onOutput);
      expect(outcome).not.toBe("finished");
      expect(outlived).toEqual([]);

      const service = await onService();
      const state = await inState();
      const made = service.datasets.length + service.monitors.length;
      expect(made).toBeGreaterThanOrEqual(PARALLEL);
      expect(made).toBeLessThan(DATASETS + MONITORS);
      expect(state.datasets).toEqual([...service.datasets].sort());
      expect(state.monitors).toEqual([...service.monitors].sort());
      expect(state.pending).toEqual([]);
      // The dynamic resources' creates in flight ran to their end: their datasets have their map fields.
      for (const id of service.datasets)
        expect([...(((await ctx.client.datasets.get(id)).mapFields as string[]) ?? [])].sort()).toEqual(
          MAP_FIELDS,
        );
    },
  );

  step("the next `pulumi up` makes the rest; then nothing changes", async () => {
    await stack.stack.up({ parallel: PARALLEL, ...ctx.out });
    const service = await onService();
    expect(service.datasets).toHaveLength(DATASETS);
    expect(service.monitors).toHaveLength(MONITORS);
    const state = await inState();
    expect(state.pending).toEqual([]);
    expect(state.monitors).toEqual([...service.monitors].sort());
    await stack.stack.preview({ expectNoChanges: true, ...ctx.out });
  });
});
