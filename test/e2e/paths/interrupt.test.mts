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
 * cancelling, and only then releases the answers. Then every object the service holds is in the state, no operation
 * is pending, and the next `pulumi up` makes the rest.
 */
import type { EngineStack } from "../../../scripts/lib.mts";
import { gate, startFaultProxy, type FaultProxy } from "../../helpers/fault-proxy-server.ts";
import { enginePath, steps } from "../harness.mts";
import { exportState, packageResources } from "../support.mts";
import { obs, TYPE } from "./common.mts";

const PARALLEL = 4;
const DATASETS = 2;
const MONITORS = 8;
const MAP_FIELDS = ["attrs", "labels"];

enginePath("Ctrl-C during up", "interrupt", (ctx) => {
  let stack: EngineStack;
  let proxy: FaultProxy;
  const release = gate();
  const enough = gate();
  let stored = 0;

  beforeAll(async () => {
    proxy = await startFaultProxy(ctx.em.url, (method) =>
      method === "POST"
        ? {
            answerAfter: release.done,
            answered: () => {
              if (++stored === PARALLEL) enough.open();
            },
          }
        : undefined,
    );
    stack = await ctx.stack("interrupt", async () => {
      const { Dataset, Monitor } = await obs();
      // Datasets first, so that they are among the first steps the engine starts.
      for (let i = 0; i < DATASETS; i++)
        new Dataset(`ds-${i}`, { name: `int-ds-${i}`, mapFields: MAP_FIELDS, forceDestroy: true });
      for (let i = 0; i < MONITORS; i++)
        new Monitor(`m-${i}`, { name: `int-m-${i}`, aplQuery: "['x'] | count", type: "MatchEvent" });
    });
    await stack.setConfig({ "observability:url": proxy.url });
  });
  // The clean-up's destroy still goes through the proxy (the provider's recorded configuration names it), which
  // by then holds nothing; it closes after that.
  ctx.afterSteps(async () => release.open());
  afterAll(async () => proxy?.close());

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

  step("one SIGINT: the creates in flight finish and are recorded, nothing is orphaned", async () => {
    const interrupt = new AbortController();
    const cancelling = gate();
    let output = "";
    const up = stack.stack
      .up({
        parallel: PARALLEL,
        signal: interrupt.signal,
        onOutput: (text: string) => {
          output += text;
          ctx.out.onOutput(text);
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
    expect(await up).not.toBe("finished");

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
  });

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
