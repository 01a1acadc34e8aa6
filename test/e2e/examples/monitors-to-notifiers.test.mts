/** examples/monitors-to-notifiers, the flagship, deployed by the real engine (lifecycle.mts). */
import { writeFileSync } from "node:fs";
import * as path from "node:path";
import { exec, type Outcome } from "../../../scripts/shared/commands.ts";
import { REPO_ROOT } from "../../../scripts/lib.mts";
import { exampleLifecycle, id } from "../lifecycle.mts";
import { redact } from "../support.mts";

/** Runs the `observability` command (the built cli/) with `env` added, as a user would. */
function observability(args: string[], env: Record<string, string>): Promise<Outcome> {
  return exec(process.execPath, [path.join(REPO_ROOT, "dist", "cli", "index.js"), ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
  });
}

const COUNT_5XX = "['http-logs'] | where status >= 500 | count";

exampleLifecycle({
  example: "monitors-to-notifiers",
  // The ingest step below fills http-logs; the emulator's data is disposable, so destroy may delete it.
  config: async () => ({
    plain: { datasetsForceDestroy: "true" },
    secret: {
      slackWebhookUrl: "https://hooks.slack.com/services/T00000000/B00000000/e2e-placeholder",
      pagerdutyRoutingKey: "e2e-routing-key-000000000000000000",
      incidentWebhookUrl: "https://incident-bot.example.com/hooks/e2e",
      incidentWebhookToken: "e2e-bot-token",
    },
  }),
  // The 5xx monitor loses its threshold and notifiers, and the dashboard its runbook note, behind Pulumi's back.
  driftUpdates: 2,
  drift: async (client, outputs) => {
    const monitorId = id(outputs, "monitorIds", "errorRate");
    const before = await client.monitors.get(monitorId);
    await client.monitors.update(monitorId, { ...before, threshold: 999, notifierIds: [] });
    const uid = id(outputs, "dashboardUid");
    const board = await client.dashboards.get(uid);
    const note = (charts: unknown) =>
      (charts as { id: string; text?: string }[]).find((c) => c.id === "runbook")?.text;
    const declaredNote = note(board.dashboard.charts);
    await client.dashboards.update(uid, {
      dashboard: {
        ...board.dashboard,
        charts: (board.dashboard.charts as Record<string, unknown>[]).map((c) =>
          c.id === "runbook" ? { ...c, text: "edited in the UI" } : c,
        ),
      },
      overwrite: true,
    });
    return async () => {
      expect(note((await client.dashboards.get(uid)).dashboard.charts)).toBe(declaredNote);
      const after = await client.monitors.get(monitorId);
      expect(after.threshold).toBe(before.threshold);
      expect([...(after.notifierIds as string[])].sort()).toEqual(
        [...(before.notifierIds as string[])].sort(),
      );
    };
  },
  steps: [
    [
      "the ingest token is a secret output: `observability ingest` with it succeeds, `observability query` gets 403",
      async (ctx) => {
        const raw = await ctx.stack.stack.outputs();
        expect(raw.ingestToken?.secret).toBe(true);
        const token = String(raw.ingestToken.value);
        expect(token).toMatch(/^xaat-/);
        const events = path.join(ctx.workDir, "events.ndjson");
        writeFileSync(
          events,
          [
            { service: "checkout", route: "/pay", status: 503, duration: 812_000_000 },
            { service: "checkout", route: "/cart", status: 200, duration: 95_000_000 },
          ]
            .map((e) => JSON.stringify(e))
            .join("\n") + "\n",
        );
        const env = { OBSERVABILITY_URL: ctx.em.url, OBSERVABILITY_TOKEN: token };
        const ingest = await observability(["ingest", "http-logs", events], env);
        expect(ingest).toMatchObject({
          code: 0,
          stdout: expect.stringContaining("ingested 2 events into http-logs, 0 failed"),
        });
        const query = await observability(["query", COUNT_5XX], env);
        expect(query).toMatchObject({ code: 1, stdout: "", stderr: expect.stringContaining("403") });
        const elsewhere = await observability(["ingest", "app-logs", events], env);
        expect(elsewhere).toMatchObject({ code: 1, stderr: expect.stringContaining("403") });
        const printed = [ingest, query, elsewhere].map((r) => r.stdout + r.stderr).join("");
        expect(printed.includes(token) ? redact(token) : "no token").toBe("no token");
        // The events did land: the emulator's own token counts them.
        const counted = await observability(["query", COUNT_5XX, "--format", "json"], {
          OBSERVABILITY_URL: ctx.em.url,
          OBSERVABILITY_TOKEN: ctx.em.token,
        });
        expect(counted.code).toBe(0);
        expect(counted.stdout).toMatch(/\b1\b/);
      },
    ],
  ],
  // The release marks the deploy annotation's title, and nothing else.
  edit: {
    config: { release: "checkout-e2e.1" },
    check: async (client, outputs) => {
      const annotation = await client.annotations.get(id(outputs, "annotationId"));
      expect(annotation.title).toBe("Deploy checkout-e2e.1");
    },
  },
});
