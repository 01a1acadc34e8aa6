/** `up --replace` of a Role, of an OrganizationName and of an adopted Monitor. */
import type { EngineStack } from "../../../scripts/lib.mts";
import { enginePath, steps } from "../harness.mts";
import type { ServiceObject } from "../support.mts";
import { obs, urnOf } from "./common.mts";

enginePath("up --replace", "replace", (ctx) => {
  let original: string;
  let existing: ServiceObject;
  let stack: EngineStack;
  let before: Record<string, unknown> = {};
  beforeAll(async () => {
    const { client, em } = ctx;
    original = String((await client.orgs.get(em.orgId)).name);
    existing = await client.monitors.create({
      name: "made by hand",
      type: "MatchEvent",
      aplQuery: "['logs']",
    });
    stack = await ctx.stack("replace", async () => {
      const { Role, OrganizationName, Monitor } = await obs();
      const role = new Role("ops", { name: "ops", description: "operators" });
      const org = new OrganizationName("org", { organizationId: em.orgId, name: "Replaced Org" });
      const monitor = new Monitor("adopted", {
        adopt: existing.id,
        name: "adopted by Pulumi",
        type: "MatchEvent",
        aplQuery: "['app-logs'] | where level == \"fatal\"",
      });
      return { roleId: role.id, previousName: org.previousName, monitorId: monitor.id };
    });
  });
  const step = steps();

  step("up", async () => {
    await stack.stack.up(ctx.out);
    before = await stack.outputs();
    expect(before.monitorId).toBe(existing.id);
  });

  step("up --replace of the Role, the OrganizationName and the adopted Monitor", async () => {
    const urns = await Promise.all(["ops", "org", "adopted"].map((n) => urnOf(stack, n)));
    const up = await stack.stack.up({ ...ctx.out, replace: urns });
    expect(up.summary.resourceChanges?.replace).toBe(3);
  });

  step("Role: a new role holds the name, the old one is gone", async () => {
    const after = await stack.outputs();
    expect(after.roleId).not.toBe(before.roleId);
    const named = (await ctx.client.roles.list()).filter((r) => r.name === "ops").map((r) => r.id);
    expect(named).toEqual([after.roleId]);
  });

  step(
    "OrganizationName: the service holds the declared name, and the original survives in previousName",
    async () => {
      const after = await stack.outputs();
      expect((await ctx.client.orgs.get(ctx.em.orgId)).name).toBe("Replaced Org");
      expect(after.previousName).toBe(original);
    },
  );

  step("the adopted Monitor: the same object, still there, as declared", async () => {
    const after = await stack.outputs();
    expect(after.monitorId).toBe(existing.id);
    expect((await ctx.client.monitors.get(existing.id)).name).toBe("adopted by Pulumi");
  });
});
