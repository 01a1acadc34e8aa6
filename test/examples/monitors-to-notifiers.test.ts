/**
 * The flagship example's real `index.ts`, run under setMocks with every registration sent through the real
 * dynamic-provider host (gRPC) to a fresh emulator; then the emulator's state, read through the client, must
 * be what the example promises.
 */
import { ForbiddenError, ObservabilityClient } from "../../provider/client";
import { useExampleRun } from "./harness";
import { ofKind } from "./program";

/** Recognizable stand-ins for the example's secret config; none may leak anywhere but secret outputs. */
const SECRETS = {
  slackWebhookUrl: "https://hooks.slack.com/services/T0TEST/B0TEST/slack-secret-3f9a",
  pagerdutyRoutingKey: "pagerduty-routing-secret-7c21",
  incidentWebhookUrl: "https://incident-bot.example.com/hooks/webhook-secret-51d0",
  incidentWebhookToken: "bot-token-secret-0be4",
};

const run = useExampleRun({ example: "monitors-to-notifiers", prepare: () => ({ secret: SECRETS }) });

const sorted = (xs: readonly string[]) => [...xs].sort();
/** Dataset names an APL query reads: every `['name']`. */
const datasetsOf = (apl: string) => [...apl.matchAll(/\['([^']+)'\]/g)].map((m) => m[1]);

describe("examples/monitors-to-notifiers", () => {
  it("creates two datasets, a token, a virtual field, three notifiers, three monitors, a deploy annotation, a starred query and a dashboard in the service", async () => {
    expect(ofKind(run.first, "Dataset")).toHaveLength(2);
    expect(ofKind(run.first, "ApiToken")).toHaveLength(1);
    expect(ofKind(run.first, "VirtualField")).toHaveLength(1);
    expect(ofKind(run.first, "Dashboard")).toHaveLength(1);
    expect(ofKind(run.first, "Notifier")).toHaveLength(3);
    expect(ofKind(run.first, "Monitor")).toHaveLength(3);
    expect(ofKind(run.first, "Annotation")).toHaveLength(1);
    expect(ofKind(run.first, "StarredQuery")).toHaveLength(1);
    expect(run.first.registrations).toHaveLength(13);
    expect(sorted((await run.client.datasets.list()).map((d) => d.name!))).toEqual(["app-logs", "http-logs"]);

    expect(sorted((await run.client.notifiers.list()).map((n) => String(n.id)))).toEqual(
      sorted(ofKind(run.first, "Notifier").map((r) => r.id)),
    );
    const monitors = await run.client.monitors.list();
    expect(sorted(monitors.map((m) => m.id))).toEqual(sorted(ofKind(run.first, "Monitor").map((r) => r.id)));
    expect(monitors.map((m) => m.type).sort()).toEqual(["AnomalyDetection", "MatchEvent", "Threshold"]);
  });

  it("outputs the monitor and notifier ids the service assigned", () => {
    const monitorIds = run.first.exports.monitorIds as Record<string, string>;
    const notifierIds = run.first.exports.notifierIds as Record<string, string>;
    expect(sorted(Object.values(monitorIds))).toEqual(sorted(ofKind(run.first, "Monitor").map((r) => r.id)));
    expect(sorted(Object.values(notifierIds))).toEqual(
      sorted(ofKind(run.first, "Notifier").map((r) => r.id)),
    );
    for (const id of Object.values(monitorIds)) expect(id).toMatch(/^mon_/);
    for (const id of Object.values(notifierIds)) expect(id).toMatch(/^notify_/);
  });

  it("every monitor references the ids of the notifiers the program declared", async () => {
    const declared = new Set(ofKind(run.first, "Notifier").map((r) => r.id));
    const monitors = await run.client.monitors.list();
    const used = new Set<string>();
    for (const m of monitors) {
      expect(m.notifierIds?.length ?? 0).toBeGreaterThan(0);
      for (const id of m.notifierIds ?? []) {
        expect(declared).toContain(id);
        used.add(id);
      }
    }
    expect(used).toEqual(declared);

    // And each monitor gets exactly the channels the program wired to it.
    const n = run.first.exports.notifierIds as Record<string, string>;
    const m = run.first.exports.monitorIds as Record<string, string>;
    const wiring: [string, string[]][] = [
      [m.errorRate, [n.slack, n.pagerduty]],
      [m.paymentPanics, [n.pagerduty, n.incidentBot]],
      [m.latencyAnomaly, [n.slack, n.incidentBot]],
    ];
    for (const [monitorId, notifierIds] of wiring) {
      expect(sorted((await run.client.monitors.get(monitorId)).notifierIds ?? [])).toEqual(
        sorted(notifierIds),
      );
    }
  });

  it("declares every dataset a monitor queries, and each monitor depends on the datasets it queries", async () => {
    const declared = new Map(ofKind(run.first, "Dataset").map((r) => [r.outputs.name as string, r]));
    for (const monitor of ofKind(run.first, "Monitor")) {
      for (const name of datasetsOf(monitor.inputs.aplQuery as string)) {
        const dataset = declared.get(name);
        expect(dataset).toBeDefined();
        expect(monitor.dependencies).toContain(`${dataset!.type}::${dataset!.name}`);
      }
    }
  });

  it("the deploy annotation lists exactly the datasets the monitors watch", async () => {
    const monitors = await run.client.monitors.list();
    const watched = new Set(
      monitors.flatMap((m) => {
        expect(m.aplQuery).toBeDefined();
        return datasetsOf(m.aplQuery!);
      }),
    );
    expect(watched.size).toBeGreaterThan(0);
    const annotation = await run.client.annotations.get(run.first.exports.annotationId as string);
    expect(annotation.type).toBe("deploy");
    expect(sorted(annotation.datasets ?? [])).toEqual(sorted([...watched]));
  });

  it("the monitors' and the starred query's APL runs on the service", async () => {
    const now = Date.now();
    await run.client.ingest("http-logs", [
      {
        _time: new Date(now - 60_000).toISOString(),
        service: "checkout",
        status: 503,
        duration: 812_000_000,
        route: "/pay",
      },
      {
        _time: new Date(now - 30_000).toISOString(),
        service: "checkout",
        status: 200,
        duration: 95_000_000,
        route: "/cart",
      },
    ]);
    await run.client.ingest("app-logs", [
      {
        _time: new Date(now - 10_000).toISOString(),
        service: "payments",
        level: "fatal",
        msg: "card vault down",
      },
    ]);
    const starred = await run.client.starredQueries.get(run.first.exports.starredQueryId as string);
    const queries = [...(await run.client.monitors.list()).map((m) => m.aplQuery), starred.query?.apl];
    for (const apl of queries) {
      expect(apl).toEqual(expect.any(String));
      const result = await run.client.query(apl!, { startTime: "now-1h", endTime: "now" });
      expect(result.status.rowsMatched).toBeGreaterThan(0);
    }
  });

  it("the ingest token is a secret stack output, and may ingest into http-logs and nothing else", async () => {
    expect(run.first.secretExports).toContain("ingestToken");
    const token = run.first.exports.ingestToken as string;
    expect(token).toMatch(/^xaat-/);
    const [declared] = ofKind(run.first, "ApiToken");
    expect(declared.additionalSecretOutputs).toContain("token");
    expect(declared.dependencies).toContain("pulumi-nodejs:dynamic/observability:Dataset::http-logs");
    const stored = await run.client.tokens.get(run.first.exports.ingestTokenId as string);
    expect(stored.datasetCapabilities).toEqual({ "http-logs": { ingest: ["create"] } });
    expect(stored.orgCapabilities ?? {}).toEqual({});

    const service = new ObservabilityClient({ url: run.em.url, token, orgId: run.em.orgId });
    try {
      const ingested = await service.ingest("http-logs", [{ service: "checkout", status: 200, duration: 1 }]);
      expect(ingested.ingested).toBe(1);
      await expect(
        service.query("['http-logs'] | count", { startTime: "now-1h", endTime: "now" }),
      ).rejects.toThrow(ForbiddenError);
      await expect(service.ingest("app-logs", [{ level: "info" }])).rejects.toThrow(ForbiddenError);
      await expect(service.monitors.list()).rejects.toThrow(ForbiddenError);
    } finally {
      await service.close();
    }
  });

  it("a monitor reads the virtual field, which is created after its dataset and before the monitor", async () => {
    const [field] = ofKind(run.first, "VirtualField");
    const stored = await run.client.virtualFields.get(run.first.exports.virtualFieldId as string);
    expect(stored).toMatchObject({
      dataset: "http-logs",
      name: "duration_ms",
      expression: "duration / 1000000",
    });
    expect(field.dependencies).toContain("pulumi-nodejs:dynamic/observability:Dataset::http-logs");
    const readers = ofKind(run.first, "Monitor").filter((m) =>
      (m.inputs.aplQuery as string).includes("duration_ms"),
    );
    expect(readers.map((m) => m.name)).toEqual(["checkout-latency-anomaly"]);
    expect(readers[0].dependencies).toContain(`${field.type}::${field.name}`);
    // The emulator stores virtual fields but does not compute them in queries; the expression itself runs there.
    const now = Date.now();
    await run.client.ingest("http-logs", [
      { _time: new Date(now - 5_000).toISOString(), service: "vf-check", duration: 250_000_000 },
    ]);
    const result = await run.client.query(
      `['http-logs'] | where service == "vf-check" | extend duration_ms = ${stored.expression} | summarize max(duration_ms)`,
      { startTime: "now-1h", endTime: "now" },
    );
    expect(JSON.stringify(result.buckets?.totals)).toContain('"value":250');
  });

  it("the dashboard charts the 5xx monitor's query, lists the three monitors and carries a note, in a full layout", async () => {
    const board = await run.client.dashboards.get(run.first.exports.dashboardUid as string);
    const m = run.first.exports.monitorIds as Record<string, string>;
    const errorRate = await run.client.monitors.get(m.errorRate);
    const doc = board.dashboard as unknown as {
      charts: Record<string, unknown>[];
      layout: { i: string; x: number; w: number }[];
    };
    const byId = Object.fromEntries(doc.charts.map((c) => [c.id as string, c]));
    expect(byId.errors).toMatchObject({ type: "TimeSeries", query: { apl: errorRate.aplQuery } });
    expect(byId.monitors).toMatchObject({ type: "MonitorList" });
    expect(sorted(byId.monitors.selectedMonitors as string[])).toEqual(sorted(Object.values(m)));
    expect(byId.runbook).toMatchObject({ type: "Note" });
    expect(sorted(doc.layout.map((l) => l.i))).toEqual(["errors", "monitors", "runbook"]);
    for (const item of doc.layout) expect(item.x + item.w).toBeLessThanOrEqual(12);
    const [declared] = ofKind(run.first, "Dashboard");
    for (const monitor of ofKind(run.first, "Monitor"))
      expect(declared.dependencies).toContain(`${monitor.type}::${monitor.name}`);
  });

  it("notifier credentials appear only in outputs the resource declares secret", () => {
    const secretValues = Object.values(SECRETS);
    for (const notifier of ofKind(run.first, "Notifier")) {
      const carrying = Object.entries(notifier.outputs)
        .filter(([k]) => k !== "__provider")
        .filter(([, v]) => secretValues.some((s) => JSON.stringify(v ?? null).includes(s)))
        .map(([k]) => k);
      // The credentials do come back (the resource would be useless otherwise)...
      expect(carrying.length).toBeGreaterThan(0);
      // ...and only under names registered in additionalSecretOutputs.
      for (const key of carrying) expect(notifier.additionalSecretOutputs).toContain(key);
    }
  });

  it("no secret reaches a __provider text or the stack outputs", () => {
    const secrets = [...Object.values(SECRETS), run.em.token];
    for (const r of run.first.registrations) {
      const text = r.inputs.__provider;
      expect(typeof text).toBe("string");
      for (const s of secrets) expect(text as string).not.toContain(s);
    }
    // The ingest token is the one secret the program exports on purpose, marked secret (checked above).
    const { ingestToken, ...plainExports } = run.first.exports;
    expect(ingestToken).toEqual(expect.any(String));
    const exported = JSON.stringify(plainExports);
    for (const s of [...secrets, ingestToken as string]) expect(exported).not.toContain(s);
  });

  it("a second pass of check and diff over the same program reports no changes", async () => {
    expect(run.second.registrations).toHaveLength(run.first.registrations.length);
    expect(run.diffs).toHaveLength(run.first.registrations.length);
    expect(run.diffs.filter((d) => d.changed || d.replaces.length > 0)).toEqual([]);
    expect(await run.client.monitors.list()).toHaveLength(3);
    expect(await run.client.notifiers.list()).toHaveLength(3);
  });
});
