/** Lookups by name (getMonitorOutput) feeding a managed resource, and previews of them with no credentials. */
import type { EngineStack } from "../../../scripts/lib.mts";
import { STEP_TIMEOUT_MS, enginePath, steps } from "../harness.mts";
import { exportState, packageResources, type ServiceObject } from "../support.mts";
import { TYPE, obs } from "./common.mts";

const NAME = "Made by hand: 5xx";

/** A dashboard this program manages, listing a monitor it does not manage, found by name. */
async function program() {
  const { Dashboard, getMonitorOutput } = await obs();
  const found = getMonitorOutput({ name: NAME });
  const foundId = found.apply((m) => m.id);
  const board = new Dashboard("board", {
    uid: "lookup-board",
    dashboard: {
      name: "Found by name",
      charts: [
        {
          id: "monitors",
          type: "MonitorList",
          name: "Made elsewhere",
          selectedMonitors: [foundId],
          columns: { status: true, history: true, dataset: true, type: true, notifiers: true },
        },
      ],
      layout: [{ i: "monitors", x: 0, y: 0, w: 12, h: 4 }],
      refreshTime: 60,
      schemaVersion: 2,
      timeWindowStart: "qr-now-1h",
      timeWindowEnd: "qr-now",
    },
  });
  return { monitorId: foundId, monitorQuery: found.apply((m) => m.aplQuery), dashboardUid: board.uid };
}

enginePath("lookups by name under the real engine", "lookups", (ctx) => {
  let made: ServiceObject;
  let stack: EngineStack;
  beforeAll(async () => {
    made = await ctx.client.monitors.create({
      name: NAME,
      type: "MatchEvent",
      aplQuery: "['http-logs'] | where status >= 500",
    });
  });
  ctx.afterSteps(async () => {
    if (made) await ctx.client.monitors.delete(made.id).catch(() => undefined);
  });

  it(
    "a preview with no credentials completes: the lookup is unknown, the dashboard a planned create",
    async () => {
      const fork = await ctx.stack("lookups-fork", program, { credentials: false });
      const preview = await fork.stack.preview({ ...ctx.out, diff: true });
      expect(preview.changeSummary.create).toBe(2);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    "the promise form in a preview with no credentials fails, naming both places to set the token",
    async () => {
      const promised = await ctx.stack(
        "lookups-promise",
        async () => {
          const { getMonitor } = await obs();
          return { id: (await getMonitor({ name: NAME })).id };
        },
        { credentials: false },
      );
      const failure = promised.stack.preview(ctx.out);
      await expect(failure).rejects.toThrow("observability:token");
      await expect(failure).rejects.toThrow("OBSERVABILITY_TOKEN");
    },
    STEP_TIMEOUT_MS,
  );

  it(
    "one process runs preview, the looked-up monitor changes elsewhere, then up: the update's lookups see the change",
    async () => {
      // An inline program runs in this process (pulumi/pulumi sdk/nodejs/automation/server.ts), so the lookups
      // module and any listing it kept live from the preview to the update: the case where a listing kept for
      // the process would answer the update with what the preview saw.
      const fresh = await ctx.client.monitors.create({
        name: "e2e-fresh",
        aplQuery: "['v1']",
        type: "MatchEvent",
      });
      const seen: { promise: string; output?: string }[] = [];
      const stack = await ctx.stack("lookups-fresh", async () => {
        const { getMonitor, getMonitorOutput } = await obs();
        const byName = await getMonitor({ name: "e2e-fresh" });
        const entry: { promise: string; output?: string } = { promise: String(byName.aplQuery) };
        seen.push(entry);
        const viaOutput = getMonitorOutput({ name: "e2e-fresh" }).apply((m) => {
          entry.output = String(m.aplQuery);
          return m.aplQuery;
        });
        return { aplQuery: byName.aplQuery, viaOutput };
      });
      try {
        await stack.stack.preview(ctx.out);
        expect(seen).toEqual([{ promise: "['v1']", output: "['v1']" }]);
        await ctx.client.monitors.update(fresh.id, {
          name: "e2e-fresh",
          aplQuery: "['v2']",
          type: "MatchEvent",
        });
        const result = await stack.stack.up(ctx.out);
        expect(seen).toHaveLength(2);
        expect(seen[1]).toEqual({ promise: "['v2']", output: "['v2']" });
        expect(result.outputs.aplQuery.value).toBe("['v2']");
        expect(result.outputs.viaOutput.value).toBe("['v2']");
      } finally {
        await ctx.client.monitors.delete(fresh.id);
      }
    },
    STEP_TIMEOUT_MS,
  );

  const step = steps();

  step("up: getMonitorOutput by name finds the monitor, and the dashboard lists its id", async () => {
    stack = await ctx.stack("lookups", program);
    await stack.stack.up(ctx.out);
    const outputs = await stack.outputs();
    expect(outputs.monitorId).toBe(made.id);
    expect(outputs.monitorQuery).toBe(made.aplQuery);
    const board = await ctx.client.dashboards.get("lookup-board");
    const charts = board.dashboard.charts as { selectedMonitors?: string[] }[];
    expect(charts[0]?.selectedMonitors).toEqual([made.id]);
  });

  step("preview and up expect no changes; the looked-up monitor is not in the state", async () => {
    await stack.stack.preview({ ...ctx.out, expectNoChanges: true });
    await stack.stack.up({ ...ctx.out, expectNoChanges: true });
    const kinds = packageResources((await exportState(stack)).resources).map((r) => r.type);
    expect(kinds).toEqual([`${TYPE}Dashboard`]);
  });

  step("a second monitor of that name: the lookup fails, naming both ids", async () => {
    const twin = await ctx.client.monitors.create({ name: NAME, type: "MatchEvent", aplQuery: "['logs']" });
    try {
      const failure = stack.stack.preview(ctx.out);
      await expect(failure).rejects.toThrow(made.id);
      await expect(failure).rejects.toThrow(twin.id);
    } finally {
      await ctx.client.monitors.delete(twin.id);
    }
  });
});
