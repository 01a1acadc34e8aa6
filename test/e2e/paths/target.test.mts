/** `up --target`: of two changed resources, only the targeted one is updated; a preview then plans the other. */
import type { EngineStack } from "../../../scripts/lib.mts";
import { enginePath, steps } from "../harness.mts";
import { obs, urnOf } from "./common.mts";

enginePath("up --target", "target", (ctx) => {
  let threshold = 10;
  let stack: EngineStack;
  let ids: Record<string, unknown> = {};
  beforeAll(async () => {
    stack = await ctx.stack("target", async () => {
      const { Monitor } = await obs();
      const make = (name: string) =>
        new Monitor(name, {
          name,
          type: "Threshold",
          operator: "Above",
          threshold,
          aplQuery: "['http-logs'] | summarize count() by bin(_time, 1m)",
        });
      return { a: make("a").id, b: make("b").id };
    });
  });
  const step = steps();

  step("up", async () => {
    await stack.stack.up(ctx.out);
    ids = await stack.outputs();
  });

  step("with both changed, up --target of one updates only that one", async () => {
    threshold = 20;
    const up = await stack.stack.up({ ...ctx.out, target: [await urnOf(stack, "a")] });
    expect(up.summary.resourceChanges?.update).toBe(1);
    const [a, b] = await Promise.all([
      ctx.client.monitors.get(String(ids.a)),
      ctx.client.monitors.get(String(ids.b)),
    ]);
    expect([a.threshold, b.threshold]).toEqual([20, 10]);
  });

  step("a preview then plans exactly the other one", async () => {
    const preview = await stack.stack.preview(ctx.out);
    expect(preview.changeSummary.update).toBe(1);
  });
});
