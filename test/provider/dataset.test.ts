/**
 * Dataset through the real dynamic-provider host over gRPC (test/helpers/host.ts), as the engine drives it:
 * create, a second apply with no diff, update, refresh drift, replacement on a name change (delete first),
 * adopt, get of a missing id, and a delete refused while the dataset holds data unless `forceDestroy`.
 */
import * as obs from "../../provider/resources";
import { ObservabilityClient } from "../../provider/client";
import { useEmulator } from "../helpers/emulator";
import { getRead, refresh, stripSecrets, type EngineState } from "../helpers/engine-steps";
import { startConfiguredHost, urnOf, type ProviderHost } from "../helpers/host";
import { captureOptions, recordRegistrations, registered, type Registration } from "../helpers/provider-text";

type Props = Record<string, unknown>;

const em = useEmulator();
let host: ProviderHost;
let client: ObservabilityClient;
let seen: Registration[];
// The options each class finally handed to dynamic.Resource.
const { opts, transformations } = captureOptions();

let provider: string;
const urn = (name: string) => urnOf("Dataset", name);

beforeAll(async () => {
  seen = await recordRegistrations();
  const t = { transformations };
  await Promise.all(
    [
      new obs.Dataset("ds-default", { name: "d" }, t),
      new obs.Dataset("ds-explicit", { name: "d" }, { ...t, deleteBeforeReplace: false }),
      new obs.Dataset("ds-adopted", { name: "d", adopt: "d" }, t),
      obs.Dataset.get("get-Dataset", "never-created"),
    ].map(registered),
  );
  provider = seen.find((r) => r.type.endsWith(":Dataset"))!.providerText;
  ({ host, client } = await startConfiguredHost(em.current));
});

afterAll(async () => {
  await host?.close();
  await client?.close();
});

/** `pulumi up` of a new resource: Check, then Create. */
async function up(name: string, inputs: Props): Promise<EngineState> {
  const checked = await host.check(urn(name), {}, { __provider: provider, ...inputs });
  expect(checked.failures).toEqual([]);
  const made = await host.create(urn(name), checked.inputs);
  return { id: made.id, inputs: checked.inputs, outputs: made.properties };
}

/** A later `pulumi up` with `inputs`: Check against the old inputs, then Diff against the old outputs. */
async function plan(name: string, state: EngineState, inputs: Props) {
  const checked = await host.check(urn(name), state.inputs, { __provider: provider, ...inputs });
  expect(checked.failures).toEqual([]);
  const diff = await host.diff(urn(name), state.id, state.outputs, checked.inputs);
  return { checked: checked.inputs, diff };
}

describe("Dataset through the real host", () => {
  it("replacements delete first by default (names are unique); the user's option wins; adopt keeps create-first", () => {
    expect(opts["ds-default"].deleteBeforeReplace).toBe(true);
    expect(opts["ds-explicit"].deleteBeforeReplace).toBe(false);
    expect(opts["ds-adopted"].deleteBeforeReplace).toBeUndefined();
  });

  it("create; a second apply has no diff, map fields in any order, edgeDeployment left to the license", async () => {
    const inputs = { name: "host-logs", description: "app logs", mapFields: ["attrs", "labels"] };
    const state = await up("host-logs", inputs);
    expect(state.id).toBe("host-logs");
    expect(state.outputs).toMatchObject({
      name: "host-logs",
      description: "app logs",
      mapFields: ["attrs", "labels"],
      // The license's default (emulator/routes/orgs.ts), not declared, so never diffed.
      edgeDeployment: "cloud.us-east-1.aws",
    });
    // The kind's defaults, undeclared, are not held: a diff reads them in.
    expect(state.outputs).not.toHaveProperty("kind");
    expect(state.outputs).not.toHaveProperty("forceDestroy");
    expect((await client.datasets.listMapFields("host-logs")).sort()).toEqual(["attrs", "labels"]);
    const again = await plan("host-logs", state, { ...inputs, mapFields: ["labels", "attrs"] });
    expect(again.diff).toMatchObject({ changes: "none", replaces: [] });

    // Declaring the edge deployment the dataset already has is no change either: Terraform omits it from its
    // update and diff logic, and its users see the same change on every plan; ours compares what was read.
    const declared = await plan("host-logs", state, { ...inputs, edgeDeployment: "cloud.us-east-1.aws" });
    expect(declared.diff).toMatchObject({ changes: "none" });
  });

  it("update sends description, retention and map fields in place; refresh shows drift made elsewhere", async () => {
    const state = await up("host-upd", { name: "host-upd" });
    const news = { name: "host-upd", description: "kept 7 days", retentionDays: 7, useRetentionPeriod: true };
    const { checked, diff } = await plan("host-upd", state, { ...news, mapFields: ["m1"] });
    expect(diff).toMatchObject({ changes: "some", replaces: [] });
    const updated = await host.update(urn("host-upd"), state.id, state.outputs, checked);
    expect(updated.properties).toMatchObject({ ...news, mapFields: ["m1"] });
    expect(await client.datasets.get("host-upd")).toMatchObject({ ...news, mapFields: ["m1"] });

    await client.datasets.update("host-upd", { description: "changed by hand", retentionDays: 7 });
    await client.datasets.putMapFields("host-upd", []);
    const after = await refresh(host, urn("host-upd"), {
      id: state.id,
      inputs: checked,
      outputs: updated.properties,
    });
    expect(after.inputs).toMatchObject({ description: "changed by hand", mapFields: [] });
    const drift = await host.diff(urn("host-upd"), state.id, after.outputs, checked);
    expect(drift.changes).toBe("some");
  });

  it.each([
    ["name", { name: "host-rep-2" }],
    ["kind", { name: "host-rep", kind: "otel:logs:v1" }],
    ["edgeDeployment", { name: "host-rep", edgeDeployment: "cloud.eu-central-1.aws" }],
  ])("a change of %s replaces, deleting first", async (_key, change) => {
    await client.datasets.delete("host-rep").catch(() => undefined);
    const state = await up("host-rep", { name: "host-rep" });
    const { diff } = await plan("host-rep", state, change);
    expect(diff).toMatchObject({ changes: "some", replaces: [_key], deleteBeforeReplace: true });
    await host.delete(urn("host-rep"), state.id, state.outputs);
    const next = await up("host-rep", change);
    expect(next.id).toBe(change.name);
    await host.delete(urn("host-rep"), next.id, next.outputs);
  });

  it("a name change with the same name kept would clash: a second create of the name is the service's 409", async () => {
    await up("host-clash", { name: "host-clash" });
    const checked = await host.check(urn("host-clash-2"), {}, { __provider: provider, name: "host-clash" });
    await expect(host.create(urn("host-clash-2"), checked.inputs)).rejects.toThrow(
      /Dataset create failed: POST \/v2\/datasets failed with 409/,
    );
  });

  it("delete of a dataset holding data fails naming forceDestroy; with forceDestroy it deletes data and all", async () => {
    const state = await up("host-data", { name: "host-data" });
    await client.ingest("host-data", [{ msg: "kept" }]);
    await expect(host.delete(urn("host-data"), state.id, state.outputs)).rejects.toThrow(
      /Dataset delete failed: host-data holds data .*`forceDestroy: true` on this resource/,
    );
    expect((await client.datasets.get("host-data")).name).toBe("host-data");

    // Setting forceDestroy is an update the state records; the service is not told.
    const { checked, diff } = await plan("host-data", state, { name: "host-data", forceDestroy: true });
    expect(diff).toMatchObject({ changes: "some", replaces: [] });
    const updated = await host.update(urn("host-data"), state.id, state.outputs, checked);
    expect(updated.properties.forceDestroy).toBe(true);
    // A refresh keeps it (the service does not know it).
    const after = await refresh(host, urn("host-data"), {
      id: state.id,
      inputs: checked,
      outputs: updated.properties,
    });
    expect(after.inputs.forceDestroy).toBe(true);
    await host.delete(urn("host-data"), state.id, after.outputs);
    await expect(client.datasets.get("host-data")).rejects.toMatchObject({ status: 404 });
    // Its events went with it: a dataset created again under the name is empty.
    await client.datasets.create({ name: "host-data" });
    expect(await client.datasets.listFields("host-data")).toEqual([]);
  });

  it("delete of an empty dataset needs no forceDestroy", async () => {
    const state = await up("host-empty", { name: "host-empty" });
    await host.delete(urn("host-empty"), state.id, state.outputs);
    await expect(client.datasets.get("host-empty")).rejects.toMatchObject({ status: 404 });
  });

  it("adopt takes an existing dataset under management and updates it; a fixed field that differs is refused", async () => {
    await client.datasets.create({ name: "host-adopt", description: "made by hand" });
    const state = await up("host-adopt", { name: "host-adopt", description: "managed", adopt: "host-adopt" });
    expect(state.id).toBe("host-adopt");
    expect(state.outputs).toMatchObject({ description: "managed", adopt: "host-adopt" });
    expect((await client.datasets.get("host-adopt")).description).toBe("managed");

    await client.datasets.create({ name: "host-adopt-k", kind: "otel:traces:v1" });
    const checked = await host.check(
      urn("host-adopt-k"),
      {},
      {
        __provider: provider,
        name: "host-adopt-k",
        adopt: "host-adopt-k",
      },
    );
    await expect(host.create(urn("host-adopt-k"), checked.inputs)).rejects.toThrow(
      /Dataset adopt failed: kind: the object has "otel:traces:v1", declared "axiom:events:v1"; its kind never changes/,
    );
  });

  it("Resource.get of a dataset never created fails naming the kind and the id", async () => {
    const get = seen.find((r) => r.name === "get-Dataset")!;
    await expect(getRead(host, urn("get-Dataset"), "never-created", get.inputs)).rejects.toThrow(
      /no object with id never-created exists/,
    );
  });

  it("Resource.get of an existing dataset reads it", async () => {
    await client.datasets.create({ name: "host-get" });
    const get = seen.find((r) => r.name === "get-Dataset")!;
    const read = await getRead(host, urn("get-Dataset"), "host-get", get.inputs);
    expect(read.id).toBe("host-get");
    expect(stripSecrets(read.properties)).toMatchObject({ name: "host-get", kind: "axiom:events:v1" });
  });

  it("a refresh of a dataset deleted elsewhere answers that it is gone", async () => {
    const state = await up("host-gone", { name: "host-gone" });
    await client.datasets.delete("host-gone");
    expect((await refresh(host, urn("host-gone"), state)).id).toBe("");
  });

  it("bad input fails at check, naming the field, with no request", async () => {
    const checked = await host.check(
      urn("bad"),
      {},
      { __provider: provider, name: "axiom-logs", retentionDays: -1 },
    );
    expect(checked.failures.map((f) => f.property).sort()).toEqual(["name", "retentionDays"]);
  });
});
