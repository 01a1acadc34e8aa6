/** `protect`: destroy is refused until `pulumi state unprotect`. */
import type { EngineStack } from "../../../scripts/lib.mts";
import { enginePath, steps } from "../harness.mts";
import { obs, urnOf } from "./common.mts";

enginePath("protect", "protect", (ctx) => {
  let stack: EngineStack;
  let monitorId = "";
  beforeAll(async () => {
    stack = await ctx.stack("protect", async () => {
      const { Monitor } = await obs();
      const m = new Monitor(
        "kept",
        { name: "kept", type: "MatchEvent", aplQuery: "['logs']" },
        { protect: true },
      );
      return { monitorId: m.id };
    });
  });
  const step = steps();

  step("up", async () => {
    await stack.stack.up(ctx.out);
    monitorId = String((await stack.outputs()).monitorId);
  });

  step("destroy is refused, and the monitor stays", async () => {
    await expect(stack.stack.destroy(ctx.out)).rejects.toThrow("protected");
    await ctx.client.monitors.get(monitorId);
  });

  step("after `pulumi state unprotect`, destroy deletes it", async () => {
    await stack.run(["state", "unprotect", await urnOf(stack, "kept"), "--yes"]);
    await stack.stack.destroy(ctx.out);
    await expect(ctx.client.monitors.get(monitorId)).rejects.toThrow();
  });
});
