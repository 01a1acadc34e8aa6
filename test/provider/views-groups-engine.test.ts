/**
 * View and Group through the real dynamic-provider host over gRPC, as `pulumi up`, `refresh` and `destroy` drive
 * them: create; a second apply with the sets reordered plans nothing; an update; a change made elsewhere shows as
 * drift on refresh; replacement (a view's new name is a new view; both kinds delete first); adopt; `get` of a
 * missing id; delete. Engine steps are reproduced in test/helpers/engine-steps.ts, citing pulumi/pulumi.
 */
import * as obs from "../../provider/resources";
import { ObservabilityClient } from "../../provider/client";
import { useEmulator } from "../helpers/emulator";
import {
  forceReplace,
  getRead,
  refresh,
  stripSecrets,
  type EngineState,
  up as upStep,
  plan as planStep,
} from "../helpers/engine-steps";
import { startConfiguredHost, urnOf, type ProviderHost } from "../helpers/host";
import { captureOptions, recordRegistrations, registered, type Registration } from "../helpers/provider-text";

type Props = Record<string, unknown>;

const em = useEmulator();
let host: ProviderHost;
let client: ObservabilityClient;
let seen: Registration[];
// The options each class finally handed to dynamic.Resource.
const { opts, transformations } = captureOptions();
const registration = (name: string) => seen.find((r) => r.name === name)!;
const textOf = (kind: string) => seen.find((r) => r.type.endsWith(`:${kind}`))!.providerText;

beforeAll(async () => {
  seen = await recordRegistrations();
  const t = { transformations };
  await Promise.all(
    [
      new obs.View("view-default", { name: "v", aplQuery: "x" }, t),
      new obs.View("view-explicit", { name: "v", aplQuery: "x" }, { ...t, deleteBeforeReplace: false }),
      new obs.View("view-adopted", { name: "v", aplQuery: "x", adopt: "v" }, t),
      new obs.Group("group-default", { name: "g" }, t),
      new obs.Group("group-explicit", { name: "g" }, { ...t, deleteBeforeReplace: false }),
      new obs.Group("group-adopted", { name: "g", adopt: "group_1" }, t),
      new obs.Role("role-for-group", { name: "r" }, t),
      obs.View.get("get-View", "v"),
      obs.Group.get("get-Group", "group_0"),
    ].map(registered),
  );
  ({ host, client } = await startConfiguredHost(em.current));
});

afterAll(async () => {
  await host?.close();
  await client?.close();
});

/** `pulumi up` of a new resource through this file's host (engine-steps.ts). */
const up = (urn: string, registered: Props) => upStep(host, urn, registered);

/** A later `pulumi up` through this file's host: Check, then Diff (engine-steps.ts). */
const plan = (urn: string, state: EngineState, news: Props) => planStep(host, urn, state, news);

describe("View through the host", () => {
  const withProvider = (args: Props) => ({ __provider: textOf("View"), ...args });
  const declared = {
    name: "engine view",
    aplQuery: "['http-logs'] | where status >= 500",
    datasets: ["http-logs", "app-logs"],
    description: "5xx",
  };

  it("the class deletes first by default (the name is unique); yours wins; an adopted view keeps create-first", () => {
    expect(opts["view-default"].deleteBeforeReplace).toBe(true);
    expect(opts["view-explicit"].deleteBeforeReplace).toBe(false);
    expect(opts["view-adopted"].deleteBeforeReplace).toBeUndefined();
  });

  it("create, a second apply with the datasets reordered plans nothing, update, drift on refresh, delete", async () => {
    const urn = urnOf("View", "engine-view");
    const state = await up(urn, withProvider(declared));
    // The id is the name.
    expect(state.id).toBe("engine view");
    expect(state.outputs).toMatchObject({ ...declared, sharedByOrg: "", sharedByOrgName: "" });
    expect(state.outputs).not.toHaveProperty("id");
    expect(await client.views.get("engine view")).toMatchObject(declared);

    const again = await plan(urn, state, withProvider({ ...declared, datasets: ["app-logs", "http-logs"] }));
    expect(again.diff.changes).toBe("none");

    const changed = await plan(urn, state, withProvider({ ...declared, description: "5xx, all services" }));
    expect(changed.diff).toMatchObject({ changes: "some", replaces: [] });
    const updated = await host.update(urn, state.id, state.outputs, changed.inputs);
    expect(updated.properties).toMatchObject({ description: "5xx, all services" });
    expect((await client.views.get("engine view")).description).toBe("5xx, all services");
    const current: EngineState = { ...state, inputs: changed.inputs, outputs: updated.properties };

    // Someone edits the query in the UI: refresh brings it into the state, and the next plan shows it.
    await client.views.update("engine view", { ...declared, aplQuery: "['http-logs']" });
    const refreshed = await refresh(host, urn, current);
    expect(refreshed.id).toBe("engine view");
    expect(refreshed.inputs.aplQuery).toBe("['http-logs']");
    const drift = await host.diff(urn, refreshed.id, refreshed.outputs, changed.inputs);
    expect(drift).toMatchObject({ changes: "some", replaces: [] });

    await host.delete(urn, refreshed.id, stripSecrets(refreshed.outputs));
    await expect(client.views.get("engine view")).rejects.toMatchObject({ status: 404 });
    // A refresh of a view deleted elsewhere returns an empty id, so the engine drops it.
    expect((await refresh(host, urn, refreshed)).id).toBe("");
  });

  it("a new name replaces, deleting first: the old view is gone and the new one is addressed by its name", async () => {
    const urn = urnOf("View", "renamed-view");
    const old = await up(urn, withProvider({ ...declared, name: "before" }));
    const news = withProvider({ ...declared, name: "after" });
    const planned = await plan(urn, old, news);
    expect(planned.diff).toMatchObject({ changes: "some", replaces: ["name"], deleteBeforeReplace: true });
    // What the engine then does: delete the old resource, create the new (step_generator.go, as forceReplace).
    const next = await forceReplace(host, urn, old, news, true);
    expect(next.id).toBe("after");
    expect(
      (await client.views.list()).map((v) => v.name).filter((n) => n === "before" || n === "after"),
    ).toEqual(["after"]);
    await host.delete(urn, next.id, next.outputs);
  });

  it("a forced replacement with the class default frees the name first; created first it would clash (409)", async () => {
    const urn = urnOf("View", "forced-view");
    const inputs = withProvider({ name: "forced view", aplQuery: "x" });
    const old = await up(urn, inputs);
    const next = await forceReplace(host, urn, old, inputs, opts["view-default"].deleteBeforeReplace!);
    expect(next.id).toBe("forced view");
    await expect(forceReplace(host, urn, next, inputs, false)).rejects.toThrow(/View create failed: .*409/);
    await host.delete(urn, next.id, next.outputs);
  });

  it("adopt takes the view of that name under management; a name other than the adopted one is refused", async () => {
    await client.views.create({ name: "made in the UI", aplQuery: "['logs']", description: "by hand" });
    const urn = urnOf("View", "adopted-view");
    const state = await up(
      urn,
      withProvider({ name: "made in the UI", aplQuery: "['logs'] | count", adopt: "made in the UI" }),
    );
    expect(state.id).toBe("made in the UI");
    expect(state.outputs).toMatchObject({
      adopt: "made in the UI",
      aplQuery: "['logs'] | count",
    });
    // The adopted view's description is the service's default, undeclared: not held.
    expect(state.outputs).not.toHaveProperty("description");
    expect((await client.views.get("made in the UI")).aplQuery).toBe("['logs'] | count");

    const wrong = await host.check(
      urnOf("View", "adopt-wrong"),
      {},
      withProvider({ name: "x", aplQuery: "y", adopt: "made in the UI" }),
    );
    await expect(host.create(urnOf("View", "adopt-wrong"), wrong.inputs)).rejects.toThrow(
      /View adopt failed: PUT \/v2\/views\/made%20in%20the%20UI failed with 422.*name: must be "made in the UI"/,
    );
    await expect(
      host.create(urnOf("View", "adopt-none"), { ...wrong.inputs, adopt: "no such view" }),
    ).rejects.toThrow("no object with id no such view exists (the id in `adopt`)");
  });

  it("View.get of a missing name fails naming the kind and the id; of an existing one reads every output", async () => {
    const getInputs = registration("get-View").inputs;
    await expect(getRead(host, urnOf("View", "get-View"), "no-such-view", getInputs)).rejects.toThrow(
      "observability View get failed: no object with id no-such-view exists",
    );
    await client.views.create({ name: "to get", aplQuery: "x", datasets: ["d"] });
    const got = await getRead(host, urnOf("View", "get-View"), "to get", getInputs);
    expect(got).toMatchObject({
      id: "to get",
      properties: { name: "to get", aplQuery: "x", datasets: ["d"] },
    });
  });
});

describe("Group through the host", () => {
  const withProvider = (args: Props) => ({ __provider: textOf("Group"), ...args });
  let roleA: string;
  let roleB: string;
  beforeAll(async () => {
    // What `roles: [sre.id, readers.id]` resolves to: Role outputs, created through the same host.
    const role = (name: string) => up(urnOf("Role", name), { __provider: textOf("Role"), name });
    roleA = (await role("group-role-a")).id;
    roleB = (await role("group-role-b")).id;
  });

  it("the class deletes first by default (names are unique); yours wins; an adopted group keeps create-first", () => {
    expect(opts["group-default"].deleteBeforeReplace).toBe(true);
    expect(opts["group-explicit"].deleteBeforeReplace).toBe(false);
    expect(opts["group-adopted"].deleteBeforeReplace).toBeUndefined();
  });

  it("create wired to roles, a second apply with members and roles reordered plans nothing, update, drift, delete", async () => {
    const urn = urnOf("Group", "engine-group");
    const declared = { name: "sre", members: ["u-ana", "u-bo"], roles: [roleA, roleB] };
    const state = await up(urn, withProvider(declared));
    expect(state.id).toMatch(/^group_/);
    expect(state.outputs).toMatchObject({ ...declared, isManaged: false });
    expect(state.outputs).not.toHaveProperty("description");
    expect(await client.groups.get(state.id)).toMatchObject(declared);

    const again = await plan(
      urn,
      state,
      withProvider({ ...declared, members: ["u-bo", "u-ana"], roles: [roleB, roleA] }),
    );
    expect(again.diff.changes).toBe("none");

    const changed = await plan(urn, state, withProvider({ ...declared, members: ["u-ana", "u-bo", "u-cy"] }));
    expect(changed.diff).toMatchObject({ changes: "some", replaces: [] });
    const updated = await host.update(urn, state.id, state.outputs, changed.inputs);
    expect((updated.properties.members as string[]).sort()).toEqual(["u-ana", "u-bo", "u-cy"]);
    const current: EngineState = { ...state, inputs: changed.inputs, outputs: updated.properties };

    // A role removed from the group in the UI shows as drift.
    await client.groups.update(state.id, { name: "sre", members: ["u-ana", "u-bo", "u-cy"], roles: [roleA] });
    const refreshed = await refresh(host, urn, current);
    expect(refreshed.inputs.roles).toEqual([roleA]);
    expect(await host.diff(urn, refreshed.id, refreshed.outputs, changed.inputs)).toMatchObject({
      changes: "some",
    });

    // A rename is an update in place: the group keeps its id.
    const renamed = await plan(urn, refreshed, withProvider({ ...declared, name: "sre-team" }));
    expect(renamed.diff).toMatchObject({ changes: "some", replaces: [] });
    await host.update(urn, state.id, refreshed.outputs, renamed.inputs);
    expect((await client.groups.get(state.id)).name).toBe("sre-team");

    await host.delete(urn, state.id, refreshed.outputs);
    await expect(client.groups.get(state.id)).rejects.toMatchObject({ status: 404 });
    expect((await refresh(host, urn, refreshed)).id).toBe("");
  });

  it("an unknown role id fails the create with the service's 422 naming roles[i]", async () => {
    const checked = await host.check(
      urnOf("Group", "bad-roles"),
      {},
      withProvider({ name: "bad", roles: [roleA, "role_nope"] }),
    );
    expect(checked.failures).toEqual([]);
    await expect(host.create(urnOf("Group", "bad-roles"), checked.inputs)).rejects.toThrow(
      /Group create failed: POST \/v2\/rbac\/groups failed with 422.*roles\[1\]: no role with id "role_nope" exists/,
    );
  });

  it("a forced replacement with the class default moves the name to the new group; created first it would clash", async () => {
    const urn = urnOf("Group", "forced-group");
    const inputs = withProvider({ name: "forced-group", members: ["u1"] });
    const old = await up(urn, inputs);
    const next = await forceReplace(host, urn, old, inputs, opts["group-default"].deleteBeforeReplace!);
    expect(next.id).not.toBe(old.id);
    expect((await client.groups.list()).filter((g) => g.name === "forced-group").map((g) => g.id)).toEqual([
      next.id,
    ]);
    await expect(forceReplace(host, urn, next, inputs, false)).rejects.toThrow(/Group create failed: .*409/);
    await host.delete(urn, next.id, next.outputs);
  });

  it("adopt takes an existing group under management and updates it; changing adopt replaces, deleting first", async () => {
    const existing = await client.groups.create({
      name: "ui-group",
      description: "by hand",
      members: ["u1"],
    });
    const urn = urnOf("Group", "adopted-group");
    const state = await up(
      urn,
      withProvider({ name: "ui-group", members: ["u1", "u2"], adopt: existing.id }),
    );
    expect(state.id).toBe(existing.id);
    expect(state.outputs).toMatchObject({ adopt: existing.id });
    expect(state.outputs).not.toHaveProperty("description");
    expect((await client.groups.get(existing.id)).members).toEqual(["u1", "u2"]);
    const other = await plan(urn, state, withProvider({ name: "ui-group", adopt: "group_other" }));
    expect(other.diff).toMatchObject({ replaces: ["adopt"], deleteBeforeReplace: true });
    // Removing adopt afterwards changes nothing.
    expect(
      (await plan(urn, state, withProvider({ name: "ui-group", members: ["u1", "u2"] }))).diff.changes,
    ).toBe("none");
  });

  it("Group.get of a missing id fails naming the kind and the id", async () => {
    await expect(
      getRead(host, urnOf("Group", "get-Group"), "group_missing", registration("get-Group").inputs),
    ).rejects.toThrow("observability Group get failed: no object with id group_missing exists");
  });
});
