/** examples/adopt-existing, deployed by the real engine (lifecycle.mts). */
import { exampleLifecycle, id } from "../lifecycle.mts";

exampleLifecycle({
  example: "adopt-existing",
  // Made by hand, under the names the program looks them up by (its defaults), as its README shows with curl.
  config: async (client) => {
    await client.notifiers.create({
      name: "Platform team email",
      properties: { email: { emails: ["ops@example.com"] } },
    });
    await client.monitors.create({
      name: "Hosts: disk above 90%",
      type: "Threshold",
      operator: "Above",
      threshold: 1,
      aplQuery: "['host-metrics'] | where disk_used_pct > 95",
    });
    return { plain: {}, secret: {} };
  },
  // Not the name: the program finds the notifier by it, so a rename by hand fails the lookup (as it should).
  drift: async (client, outputs) => {
    const notifierId = id(outputs, "notifierId");
    const before = await client.notifiers.get(notifierId);
    await client.notifiers.update(notifierId, {
      ...before,
      properties: { email: { emails: ["someone-else@example.com"] } },
    });
    return async () => {
      expect((await client.notifiers.get(notifierId)).properties).toEqual(before.properties);
    };
  },
  steps: [
    [
      "the lookups found the objects made by hand: their ids are adopted, nothing new exists",
      async (ctx) => {
        expect((await ctx.client.notifiers.list()).map((n) => n.id)).toEqual([ctx.outputs.notifierId]);
        expect((await ctx.client.monitors.list()).map((m) => m.id)).toEqual([ctx.outputs.monitorId]);
      },
    ],
  ],
  // How many disk events the monitor lets pass comes from the stack's config; only the monitor changes.
  edit: {
    config: { diskEventsAllowed: "5" },
    check: async (client, outputs) => {
      expect((await client.monitors.get(id(outputs, "monitorId"))).threshold).toBe(5);
    },
  },
});
