/** A create that fails: the service's answer reaches the user, and the state holds nothing of it. */
import type { EngineStack } from "../../../scripts/lib.mts";
import { enginePath, steps } from "../harness.mts";
import { exportState, packageResources, type ServiceObject } from "../support.mts";
import { obs } from "./common.mts";

enginePath("a create that fails", "failed-create", (ctx) => {
  let taken: ServiceObject;
  let stack: EngineStack;
  beforeAll(async () => {
    // Role names are unique: a role of this name already exists, so the create gets a 409.
    taken = await ctx.client.roles.create({ name: "taken" });
    stack = await ctx.stack("failed-create", async () => {
      const { Role } = await obs();
      new Role("taken", { name: "taken", description: "declared in Pulumi" });
    });
  });
  ctx.afterSteps(async () => {
    if (taken) await ctx.client.roles.delete(taken.id);
  });

  steps()("up fails with the service's answer, and the state holds nothing of it", async () => {
    await expect(stack.stack.up(ctx.out)).rejects.toThrow(/Role create failed: .*409/);
    const { resources, pending } = await exportState(stack);
    expect(packageResources(resources)).toEqual([]);
    expect(pending).toEqual([]);
    expect((await ctx.client.roles.get(taken.id)).description).not.toBe("declared in Pulumi");
  });
});
