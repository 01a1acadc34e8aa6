/** examples/slo, two Slo components, deployed by the real engine (lifecycle.mts). */
import { exampleLifecycle, id } from "../lifecycle.mts";

exampleLifecycle({
  example: "slo",
  config: async () => ({
    plain: { datasetsForceDestroy: "true" },
    secret: { slackWebhookUrl: "https://hooks.slack.com/services/T00000000/B00000000/e2e-slo-placeholder" },
  }),
  // The fast page pair's threshold is raised by hand, as if someone silenced it in the UI.
  drift: async (client, outputs) => {
    const monitorId = id(outputs, "availabilityMonitorIds", "pageFast");
    const before = await client.monitors.get(monitorId);
    await client.monitors.update(monitorId, { ...before, threshold: 1000 });
    return async () => {
      expect((await client.monitors.get(monitorId)).threshold).toBe(14.4);
    };
  },
  // The ticket notifier's address comes from the stack's config; only that notifier changes.
  edit: {
    config: { ticketEmail: "slo-tickets@example.com" },
    check: async (client, outputs) => {
      const notifier = await client.notifiers.get(id(outputs, "notifierIds", "tickets"));
      expect(notifier.properties).toEqual({ email: { emails: ["slo-tickets@example.com"] } });
    },
  },
});
