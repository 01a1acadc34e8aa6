/**
 * Dashboard through the real dynamic-provider host over gRPC (test/helpers/host.ts), against a real emulator:
 * create, a second apply with no diff (an exported document too), an update sending the version last read, the
 * 412 after a change made elsewhere and `overwrite: true` winning, refresh drift, replacement on a uid change,
 * adopt, Resource.get of a missing uid, delete.
 */
import * as obs from "../../provider/resources";
import type { ObservabilityClient } from "../../provider/client";
import { useEmulator } from "../helpers/emulator";
import { getRead, refresh, type EngineState } from "../helpers/engine-steps";
import { startConfiguredHost, urnOf, type ProviderHost } from "../helpers/host";
import { captureOptions, recordRegistrations, registered, type Registration } from "../helpers/provider-text";
import { EXPORTED } from "../helpers/dashboard-export";

type Props = Record<string, unknown>;

const em = useEmulator();
let host: ProviderHost;
let client: ObservabilityClient;
let seen: Registration[];
// The options each class finally handed to dynamic.Resource.
const { opts, transformations } = captureOptions();

const doc = (text = "v1", extra: Props = {}): Props => ({
  name: "service health",
  charts: [
    {
      id: "requests",
      type: "TimeSeries",
      name: "Requests",
      query: { apl: "['logs'] | summarize count() by bin_auto(_time)" },
    },
    { id: "note", type: "Note", text },
  ],
  layout: [
    { i: "requests", x: 0, y: 0, w: 8, h: 4 },
    { i: "note", x: 8, y: 0, w: 4, h: 4 },
  ],
  refreshTime: 60,
  schemaVersion: 2,
  timeWindowStart: "qr-now-1h",
  timeWindowEnd: "qr-now",
  ...extra,
});

beforeAll(async () => {
  seen = await recordRegistrations();
  const t = { transformations };
  await Promise.all(
    [
      new obs.Dashboard("with-uid", { uid: "u", dashboard: doc() as never }, t),
      new obs.Dashboard("without-uid", { dashboard: doc() as never }, t),
      new obs.Dashboard("adopting", { adopt: "x", uid: "x", dashboard: doc() as never }, t),
      obs.Dashboard.get("get-Dashboard", "missing"),
    ].map(registered),
  );
  ({ host, client } = await startConfiguredHost(em.current));
});

afterAll(async () => {
  await host?.close();
  await client?.close();
});

const provider = () => seen.find((r) => r.type.endsWith(":Dashboard"))!.providerText;

async function up(name: string, args: Props): Promise<EngineState & { urn: string }> {
  const urn = urnOf("Dashboard", name);
  const checked = await host.check(urn, {}, { __provider: provider(), ...args });
  expect(checked.failures).toEqual([]);
  const made = await host.create(urn, checked.inputs);
  return { urn, id: made.id, inputs: checked.inputs, outputs: made.properties };
}

/** The engine's plan for `args` over `state`: Check, then Diff against the state's outputs. */
async function plan(state: EngineState & { urn: string }, args: Props) {
  const checked = await host.check(state.urn, state.inputs, { __provider: provider(), ...args });
  expect(checked.failures).toEqual([]);
  return { news: checked.inputs, diff: await host.diff(state.urn, state.id, state.outputs, checked.inputs) };
}

describe("create, second apply, update", () => {
  it("creates under the declared uid: the resource's id is the uid, and the outputs carry the version", async () => {
    const state = await up("create", { uid: "svc-health", dashboard: doc() });
    expect(state.id).toBe("svc-health");
    expect(state.outputs).toMatchObject({
      uid: "svc-health",
      version: 1,
      dashboard: { name: "service health" },
    });
    expect(typeof state.outputs.dashboardId).toBe("string");
    expect((await client.dashboards.get("svc-health")).dashboard).toMatchObject({
      charts: [{ id: "requests" }, { id: "note" }],
    });
  });

  it("a second apply of the same document plans no change, though the service injected uid, overrides and the owner", async () => {
    const state = await up("twice", { uid: "twice", dashboard: doc() });
    expect(state.outputs.dashboard).toMatchObject({ uid: "twice", overrides: {}, owner: "x-axiom-everyone" });
    expect((await plan(state, { uid: "twice", dashboard: doc() })).diff.changes).toBe("none");
    // Charts and layout in another order, the owner spelled out in another case: still no change.
    const reordered = doc("v1", { owner: "X-Axiom-Everyone" });
    reordered.charts = [...(reordered.charts as Props[])].reverse();
    reordered.layout = [...(reordered.layout as Props[])].reverse();
    expect((await plan(state, { uid: "twice", dashboard: reordered })).diff.changes).toBe("none");
    // `message` and `overwrite` say how to write, not what: they alone change nothing.
    expect(
      (await plan(state, { uid: "twice", dashboard: doc(), message: "again", overwrite: true })).diff.changes,
    ).toBe("none");
  });

  it("without a uid the service assigns one, and the next apply plans no change", async () => {
    const state = await up("assigned", { dashboard: doc() });
    expect(state.id).toMatch(/^[A-Za-z0-9_-]{1,128}$/);
    expect(state.outputs.uid).toBe(state.id);
    expect((await plan(state, { dashboard: doc() })).diff.changes).toBe("none");
    // Declaring the assigned uid changes nothing either.
    expect((await plan(state, { uid: state.id, dashboard: doc() })).diff.changes).toBe("none");
  });

  it("an exported document (server keys, extra chart kinds, lower-case owner) applied twice plans no change", async () => {
    const state = await up("exported", { uid: "exported", dashboard: EXPORTED });
    expect(state.outputs.dashboard).toMatchObject({ uid: "exported" });
    expect((await client.dashboards.get("exported")).dashboard).not.toHaveProperty("createdAt");
    expect((await plan(state, { uid: "exported", dashboard: EXPORTED })).diff.changes).toBe("none");
  });

  it("an update sends the version last read, and the service's version moves on", async () => {
    const state = await up("update", { uid: "upd", dashboard: doc("v1") });
    const { news, diff } = await plan(state, { uid: "upd", dashboard: doc("v2"), message: "second" });
    expect(diff).toMatchObject({ changes: "some", replaces: [] });
    const updated = await host.update(state.urn, state.id, state.outputs, news);
    expect(updated.properties).toMatchObject({ version: 2, dashboard: { charts: [{}, { text: "v2" }] } });
    expect((await client.dashboards.get("upd")).version).toBe(2);
  });
});

describe("changes made elsewhere", () => {
  it("an update based on a version changed elsewhere fails saying so, naming overwrite: true; overwrite wins", async () => {
    const state = await up("conflict", { uid: "conflict", dashboard: doc("v1") });
    // Someone edits the dashboard in the UI.
    await client.dashboards.update("conflict", { dashboard: doc("from the UI"), version: 1 });
    const { news } = await plan(state, { uid: "conflict", dashboard: doc("v2") });
    const failed = await host.update(state.urn, state.id, state.outputs, news).catch((e: Error) => e);
    expect(failed).toBeInstanceOf(Error);
    const message = (failed as Error).message;
    expect(message).toContain("observability Dashboard update failed: conflict was changed outside Pulumi");
    expect(message).toContain("based on version 1; the service now holds version 2");
    expect(message).toContain("`overwrite: true`");
    expect(message).toContain("`pulumi refresh`");
    expect((await client.dashboards.get("conflict")).dashboard).toMatchObject({
      charts: [{}, { text: "from the UI" }],
    });

    const forced = await plan(state, { uid: "conflict", dashboard: doc("v2"), overwrite: true });
    const won = await host.update(state.urn, state.id, state.outputs, forced.news);
    expect(won.properties).toMatchObject({ version: 3, dashboard: { charts: [{}, { text: "v2" }] } });
  });

  it("refresh shows a change made in the UI as drift, and then the update applies over it", async () => {
    const state = await up("drift", { uid: "drift", dashboard: doc("v1") });
    await client.dashboards.patchChart("drift", "note", { text: "edited in the UI" }, { version: 1 });
    const after = await refresh(host, state.urn, state);
    expect(after.outputs).toMatchObject({ version: 2 });
    expect(after.inputs.dashboard).toMatchObject({ charts: [{}, { text: "edited in the UI" }] });
    const { news, diff } = await plan({ ...after, urn: state.urn }, { uid: "drift", dashboard: doc("v1") });
    expect(diff.changes).toBe("some");
    // The refresh read version 2, so the update is not refused.
    const updated = await host.update(state.urn, state.id, after.outputs, news);
    expect(updated.properties).toMatchObject({ version: 3, dashboard: { charts: [{}, { text: "v1" }] } });
  });

  it("a refresh of a dashboard deleted elsewhere returns an empty id", async () => {
    const state = await up("gone", { uid: "gone", dashboard: doc() });
    await client.dashboards.delete("gone");
    expect((await refresh(host, state.urn, state)).id).toBe("");
  });
});

describe("identity", () => {
  it("a uid change replaces; a declared uid makes replacements delete first", async () => {
    const state = await up("rename", { uid: "old-uid", dashboard: doc() });
    const { diff } = await plan(state, { uid: "new-uid", dashboard: doc() });
    expect(diff).toMatchObject({ changes: "some", replaces: ["uid"] });
    expect(opts["with-uid"].deleteBeforeReplace).toBe(true);
    expect(opts["without-uid"].deleteBeforeReplace).toBeUndefined();
    expect(opts.adopting.deleteBeforeReplace).toBeUndefined();
  });

  it("adopt takes an existing dashboard by uid, writing the declared document over it with its version", async () => {
    await client.dashboards.create({ uid: "made-in-ui", dashboard: doc("hand made") });
    await client.dashboards.update("made-in-ui", { dashboard: doc("edited"), version: 1 });
    const state = await up("adopted", { adopt: "made-in-ui", dashboard: doc("declared") });
    expect(state.id).toBe("made-in-ui");
    expect(state.outputs).toMatchObject({ adopt: "made-in-ui", uid: "made-in-ui", version: 3 });
    expect((await client.dashboards.get("made-in-ui")).dashboard).toMatchObject({
      charts: [{}, { text: "declared" }],
    });
    const missing = await up("adopt-missing", { adopt: "no-such-uid", dashboard: doc() }).catch(
      (e: Error) => e,
    );
    expect((missing as Error).message).toContain("no object with id no-such-uid exists (the id in `adopt`)");
  });

  it("Dashboard.get of a missing uid fails naming the kind and the uid; of an existing one reads it", async () => {
    const getInputs = seen.find((r) => r.name === "get-Dashboard")!.inputs;
    await expect(getRead(host, urnOf("Dashboard", "get-Dashboard"), "missing", getInputs)).rejects.toThrow(
      "observability Dashboard get failed: no object with id missing exists",
    );
    await client.dashboards.create({ uid: "to-get", dashboard: doc("got") });
    const got = await getRead(host, urnOf("Dashboard", "get-Dashboard"), "to-get", getInputs);
    expect(got).toMatchObject({
      id: "to-get",
      properties: { uid: "to-get", version: 1, dashboard: { name: "service health" } },
    });
  });

  it("delete removes the dashboard; a dashboard already gone is not an error", async () => {
    const state = await up("delete", { uid: "to-delete", dashboard: doc() });
    await host.delete(state.urn, state.id, state.outputs);
    await expect(client.dashboards.get("to-delete")).rejects.toThrow(/404/);
    await host.delete(state.urn, state.id, state.outputs);
  });

  it("check at preview reports a bad layout width on its path, through the host", async () => {
    const bad = doc();
    bad.layout = [(bad.layout as Props[])[0], { ...(bad.layout as Props[])[1], w: 13 }];
    const checked = await host.check(
      urnOf("Dashboard", "bad"),
      {},
      { __provider: provider(), dashboard: bad },
    );
    expect(checked.failures).toEqual([{ property: "dashboard.layout[1].w", reason: "must be at most 12" }]);
  });
});
