/**
 * Refresh after out-of-band changes, a notifier switched to another channel among them; then no credential in
 * plaintext in the state file, nor in any checkpoint of its history, nor in the CLI's output; and an up that puts
 * back what is declared.
 */
import * as path from "node:path";
import type { EngineStack } from "../../../scripts/lib.mts";
import { enginePath, steps } from "../harness.mts";
import { exportState, filesContaining, filesUnder, redact } from "../support.mts";
import { TYPE, obs, random, revealed } from "./common.mts";

enginePath("refresh after out-of-band changes", "refresh", (ctx) => {
  const slackUrl = `https://hooks.slack.com/services/T0E2E/B0E2E/SLACK-SECRET-${random()}`;
  const webhookUrl = `https://hooks.example.com/WEBHOOK-SECRET-${random()}`;
  let stack: EngineStack;
  let ids: Record<string, unknown> = {};
  beforeAll(async () => {
    stack = await ctx.stack("refresh", async () => {
      const { Notifier, Monitor } = await obs();
      // The credential as a plain string, as a user may write it: the class makes all of `properties` secret.
      const notifier = new Notifier("alerts", { name: "alerts", properties: { slack: { slackUrl } } });
      const monitor = new Monitor("errors", {
        name: "errors",
        type: "Threshold",
        operator: "Above",
        threshold: 10,
        aplQuery: "['app-logs'] | where level == \"error\" | summarize count() by bin(_time, 1m)",
        notifierIds: [notifier.id],
      });
      const doomed = new Monitor("deleted-by-hand", {
        name: "deleted by hand",
        type: "MatchEvent",
        aplQuery: "['logs']",
      });
      return { notifierId: notifier.id, monitorId: monitor.id, doomedId: doomed.id };
    });
  });
  const step = steps();

  step("up", async () => {
    await stack.stack.up(ctx.out);
    ids = await stack.outputs();
  });

  step(
    "refresh after, out of band, the notifier is switched to a webhook, a monitor edited and another deleted",
    async () => {
      const { client } = ctx;
      await client.monitors.delete(String(ids.doomedId));
      await client.notifiers.update(String(ids.notifierId), {
        name: "alerts",
        properties: { webhook: { url: webhookUrl } },
      });
      const monitor = await client.monitors.get(String(ids.monitorId));
      await client.monitors.update(monitor.id, { ...monitor, threshold: 99 });
      const refresh = await stack.stack.refresh(ctx.out);
      expect(refresh.summary.resourceChanges).toMatchObject({ update: 2, delete: 1 });
      // The deleted monitor's Read returned no id, and the engine dropped it from the state.
      const urns = (await exportState(stack)).resources.map((r) => r.urn);
      expect(urns.filter((urn) => urn.endsWith("::deleted-by-hand"))).toEqual([]);
    },
  );

  step("the refreshed state holds the webhook, encrypted", async () => {
    const { resources } = await exportState(stack);
    const notifier = resources.find((r) => r.urn.endsWith("::alerts"))!;
    for (const side of ["inputs", "outputs"] as const) {
      expect(Object.keys(notifier[side]?.properties as object)).toContain("ciphertext");
    }
    const shown = await exportState(stack, true);
    const decrypted = shown.resources.find((r) => r.urn.endsWith("::alerts"))!;
    expect(revealed(decrypted.inputs?.properties)).toEqual({ webhook: { url: webhookUrl } });
    const monitor = shown.resources.find((r) => r.urn.endsWith("::errors"))!;
    expect(monitor.outputs?.threshold).toBe(99);
  });

  step(
    "no credential in plaintext: the state file, every checkpoint in its history, the config, the CLI's output",
    async () => {
      const history = filesUnder(ctx.stateDir).filter(
        (f) => f.includes(`${path.sep}history${path.sep}`) && f.endsWith(".checkpoint.json"),
      );
      // The checkpoints of up and of refresh, at least.
      expect(history.length).toBeGreaterThanOrEqual(2);
      // The scan does read the state: it finds what the state holds in plaintext, such as the notifier's type.
      expect(filesContaining(ctx.stateDir, [`${TYPE}Notifier`]).length).toBeGreaterThan(0);
      const needles = [slackUrl, webhookUrl, ctx.em.token];
      expect([...filesContaining(ctx.stateDir, needles), ...filesContaining(ctx.workDir, needles)]).toEqual(
        [],
      );
      const printed = ctx.output.join("");
      expect(needles.filter((n) => printed.includes(n)).map(redact)).toEqual([]);
    },
  );

  step(
    "up puts the declared Slack channel and threshold back, and creates the deleted monitor again",
    async () => {
      const up = await stack.stack.up(ctx.out);
      expect(up.summary.resourceChanges).toMatchObject({ update: 2, create: 1 });
      const notifier = await ctx.client.notifiers.get(String(ids.notifierId));
      expect(notifier.properties).toEqual({ slack: { slackUrl } });
    },
  );
});
