/**
 * What `npm run demo` does without a Pulumi CLI, end to end against a fresh emulator: the flagship's real
 * program through the driver (engine.ts) and the real dynamic-provider host, its state kept in a file between
 * runs as the demo keeps it in `.demo/`. First run creates; second run changes nothing; an edited input
 * updates exactly one resource; destroy deletes everything, dependents first, and leaves the emulator empty.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { ObservabilityClient } from "../../provider/client";
import { useEmulator } from "../helpers/emulator";
import { startProviderHost, type ProviderHost } from "../helpers/host";
import { destroy, loadState, saveState, up, type Step } from "./engine";
import { loadIsolated } from "./harness";

const PROJECT = "monitors-to-notifiers";
const SECRETS = {
  slackWebhookUrl: "https://hooks.slack.com/services/T0TEST/B0TEST/offline-demo",
  pagerdutyRoutingKey: "offline-demo-routing-key",
  incidentWebhookUrl: "https://incident-bot.example.com/hooks/offline-demo",
  incidentWebhookToken: "offline-demo-bot-token",
};

const em = useEmulator();
let host: ProviderHost;
let client: ObservabilityClient;
let dir: string;
let stateFile: string;

beforeAll(async () => {
  const providerConfig = {
    "observability:url": em.current.url,
    "observability:token": em.current.token,
    "observability:orgId": em.current.orgId,
  };
  host = await startProviderHost({
    config: providerConfig,
    secretKeys: ["observability:token"],
    project: PROJECT,
  });
  await host.configure();
  client = new ObservabilityClient({ url: em.current.url, token: em.current.token, orgId: em.current.orgId });
  dir = mkdtempSync(path.join(os.tmpdir(), "obs-offline-demo-"));
  stateFile = path.join(dir, "state.json");
}, 60_000);

afterAll(async () => {
  await host?.close();
  await client?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** One `npm run demo` without a CLI: the state from the file, every step saved back to it. */
function apply(release?: string) {
  const own: Record<string, string> = { ...SECRETS, ...(release ? { release } : {}) };
  const config: Record<string, string> = {
    "observability:url": em.current.url,
    "observability:orgId": em.current.orgId,
    "observability:token": em.current.token,
  };
  for (const [k, v] of Object.entries(own)) config[`${PROJECT}:${k}`] = v;
  const secretKeys = ["observability:token", ...Object.keys(SECRETS).map((k) => `${PROJECT}:${k}`)];
  return up({
    host,
    project: PROJECT,
    state: loadState(stateFile),
    save: (state) => saveState(stateFile, state),
    program: { example: PROJECT, stack: "local", config, secretKeys, load: loadIsolated },
  });
}

const actions = (steps: Step[]) => steps.map((s) => `${s.action} ${s.name}`);
const kind = (type: string) => type.slice(type.lastIndexOf(":") + 1);

/** Everything the flagship could have left in the service. */
async function serviceContents() {
  return {
    monitors: await client.monitors.list(),
    notifiers: await client.notifiers.list(),
    annotations: await client.annotations.list(),
    starredQueries: await client.starredQueries.list({ who: "all" }),
    datasets: await client.datasets.list(),
    tokens: await client.tokens.list(),
    virtualFields: await client.virtualFields.list({ dataset: "http-logs" }),
    dashboards: await client.dashboards.listAll(),
  };
}

describe("npm run demo without a CLI (the driver, the real host, a state file)", () => {
  let firstIds: string[] = [];
  let firstIdsByName: Record<string, string | undefined> = {};
  // Independent resources register in whatever order their inputs resolve, so ids are compared by name.
  const idsByName = (steps: { name: string; id?: string }[]) =>
    Object.fromEntries(steps.map((s) => [s.name, s.id]));

  it("first run: creates all thirteen resources, each before what depends on it, and saves the state", async () => {
    const before = await serviceContents();
    expect(Object.values(before).flat()).toEqual([]);

    const first = await apply();
    expect(first.steps.map((s) => s.action)).toEqual(Array(13).fill("create"));
    const dependencies = (name: string) => first.state.resources.find((r) => r.name === name)!.dependencies;
    expect(dependencies("checkout-5xx").sort()).toEqual([
      "pulumi-nodejs:dynamic/observability:Dataset::http-logs",
      "pulumi-nodejs:dynamic/observability:Notifier::oncall-pagerduty",
      "pulumi-nodejs:dynamic/observability:Notifier::oncall-slack",
    ]);
    const order = first.steps.map((s) => s.name);
    for (const monitor of ["checkout-5xx", "payment-panics", "checkout-latency-anomaly"]) {
      for (const notifier of ["oncall-slack", "oncall-pagerduty", "incident-bot"]) {
        const wired = dependencies(monitor).includes(
          `pulumi-nodejs:dynamic/observability:Notifier::${notifier}`,
        );
        if (wired) expect(order.indexOf(notifier)).toBeLessThan(order.indexOf(monitor));
      }
    }
    const now = await serviceContents();
    expect(now.monitors).toHaveLength(3);
    expect(now.notifiers).toHaveLength(3);
    expect(now.annotations).toHaveLength(1);
    expect(now.starredQueries).toHaveLength(1);
    expect(now.datasets.map((d) => d.name).sort()).toEqual(["app-logs", "http-logs"]);
    expect(now.tokens).toHaveLength(1);
    expect(now.virtualFields).toHaveLength(1);
    expect(now.dashboards.map((d) => d.uid)).toEqual(["checkout-health"]);
    // The dashboard lists the monitors by id: it comes after all three.
    for (const monitor of ["checkout-5xx", "payment-panics", "checkout-latency-anomaly"])
      expect(order.indexOf(monitor)).toBeLessThan(order.indexOf("checkout-health"));
    // The datasets come first: every monitor queries one.
    for (const dataset of ["http-logs", "app-logs"])
      for (const monitor of ["checkout-5xx", "payment-panics", "checkout-latency-anomaly"])
        if (dependencies(monitor).includes(`pulumi-nodejs:dynamic/observability:Dataset::${dataset}`))
          expect(order.indexOf(dataset)).toBeLessThan(order.indexOf(monitor));

    // The state file holds provider outputs in plaintext, so only its owner may read it.
    expect(statSync(stateFile).mode & 0o077).toBe(0);
    expect(loadState(stateFile)?.resources.map((r) => r.id)).toEqual(first.steps.map((s) => s.id));
    firstIds = first.steps.map((s) => s.id);
    firstIdsByName = idsByName(first.steps);
    expect(Object.values(first.run.exports.monitorIds as Record<string, string>).sort()).toEqual(
      now.monitors.map((m) => m.id).sort(),
    );
  });

  it("second run: check and diff only, no changes, the same ids", async () => {
    const second = await apply();
    expect(second.steps.map((s) => s.action)).toEqual(Array(13).fill("same"));
    expect(idsByName(second.steps)).toEqual(firstIdsByName);
    expect((await client.monitors.list()).map((m) => m.id).sort()).toEqual(
      second.state.resources
        .filter((r) => kind(r.type) === "Monitor")
        .map((r) => r.id)
        .sort(),
    );
  });

  it("an edited input (the release the deploy annotation names): exactly one update, in place", async () => {
    const edited = await apply("checkout-2024.07.2");
    expect(actions(edited.steps.filter((s) => s.action !== "same"))).toEqual(["update deploy"]);
    const annotationId = edited.run.exports.annotationId as string;
    expect(firstIds).toContain(annotationId);
    expect((await client.annotations.get(annotationId)).title).toBe("Deploy checkout-2024.07.2");

    const again = await apply("checkout-2024.07.2");
    expect(again.steps.every((s) => s.action === "same")).toBe(true);
  });

  it("destroy: deletes every resource, dependents first, removes the state file, leaves the emulator empty", async () => {
    const deleted: Step[] = [];
    const result = await destroy({
      host,
      project: PROJECT,
      state: loadState(stateFile),
      save: (state) => saveState(stateFile, state),
      onStep: (step) => deleted.push(step),
    });
    expect(result.steps).toEqual(deleted);
    expect(deleted.map((s) => s.action)).toEqual(Array(13).fill("delete"));
    expect(deleted.map((s) => s.id).sort()).toEqual([...firstIds].sort());
    const lastMonitor = Math.max(...deleted.flatMap((s, i) => (kind(s.type) === "Monitor" ? [i] : [])));
    const firstNotifier = Math.min(...deleted.flatMap((s, i) => (kind(s.type) === "Notifier" ? [i] : [])));
    expect(lastMonitor).toBeLessThan(firstNotifier);
    const firstDataset = Math.min(...deleted.flatMap((s, i) => (kind(s.type) === "Dataset" ? [i] : [])));
    expect(lastMonitor).toBeLessThan(firstDataset);

    expect(loadState(stateFile)).toBeUndefined();
    const after = await serviceContents();
    expect(after).toEqual({
      monitors: [],
      notifiers: [],
      annotations: [],
      starredQueries: [],
      datasets: [],
      tokens: [],
      virtualFields: [],
      dashboards: [],
    });

    // Nothing left to destroy the second time round.
    expect((await destroy({ host, project: PROJECT })).steps).toEqual([]);
  });
});
