/**
 * User and VirtualField through the real dynamic-provider host over gRPC (test/helpers/host.ts), step by step as the
 * engine drives them: create, a second apply with no diff, an update, refresh drift, a replacement, adopt,
 * `Resource.get` of a missing id, and delete. The emulator records every request, so the User's role change is
 * asserted as the request the service received: `PUT /v2/users/{id}/role`, where Terraform's provider sends
 * `PUT /v2/users/{id}` and its role change never happens (terraform-provider-axiom axiom/resource_user.go:151).
 */
import * as obs from "../../provider/resources";
import type { ObservabilityClient } from "../../provider/client";
import { api, useEmulator } from "../helpers/emulator";
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

const em = useEmulator({ record: true });
let host: ProviderHost;
let client: ObservabilityClient;
let seen: Registration[];
// The options each class finally handed to dynamic.Resource.
const { opts, transformations } = captureOptions();
const textOf = (kind: string) => seen.find((r) => r.type.endsWith(`:${kind}`))!.providerText;
const registration = (name: string) => seen.find((r) => r.name === name)!;

beforeAll(async () => {
  seen = await recordRegistrations();
  const t = { transformations };
  await Promise.all(
    [
      new obs.User("user-default", { name: "u", email: "u@example.com", role: "user" }, t),
      new obs.User("user-adopted", { name: "u", email: "u@example.com", role: "user", adopt: "x" }, t),
      new obs.VirtualField("vfield-default", { dataset: "d", name: "v", expression: "a" }, t),
      obs.User.get("get-User", "00000000-0000-4000-8000-000000000000"),
      obs.VirtualField.get("get-VirtualField", "vfield_0"),
    ].map(registered),
  );
  ({ host, client } = await startConfiguredHost(em.current));
  // Once datasets are objects of their own, a virtual field's dataset must exist; before, this is a 404.
  for (const name of ["host-logs", "host-traces"]) await api(em.current, "POST", "/v2/datasets", { name });
});

afterAll(async () => {
  await host?.close();
  await client?.close();
});

/** `pulumi up` of a new resource through this file's host (engine-steps.ts). */
const up = (urn: string, registered: Props) => upStep(host, urn, registered);

/** A later `pulumi up` through this file's host: Check, then Diff (engine-steps.ts). */
const plan = (urn: string, state: EngineState, news: Props) => planStep(host, urn, state, news);

/** The requests the emulator received while `fn` ran, as `METHOD path body`. */
async function requestsDuring(fn: () => Promise<unknown>): Promise<string[]> {
  const before = em.current.received.length;
  await fn();
  return em.current.received
    .slice(before)
    .map((r) => `${r.method} ${r.path}${r.body.length > 0 ? ` ${r.body.toString("utf8")}` : ""}`);
}

describe("User through the host", () => {
  const urn = urnOf("User", "host-user");
  const declared = () => ({
    __provider: textOf("User"),
    name: "Host User",
    email: "host@example.com",
    role: "user",
  });
  let state: EngineState;

  it("defaults deleteBeforeReplace to true (emails are unique), but not for an adopted user", () => {
    expect(opts["user-default"].deleteBeforeReplace).toBe(true);
    expect(opts["user-adopted"].deleteBeforeReplace).toBeUndefined();
  });

  it("create, then a second apply with the same inputs has no diff", async () => {
    state = await up(urn, declared());
    expect(state.outputs).toMatchObject({
      name: "Host User",
      email: "host@example.com",
      role: "user",
      roleName: "User",
    });
    expect((await client.users.get(state.id)).role).toEqual({ id: "user", name: "User" });
    expect((await plan(urn, state, declared())).diff).toMatchObject({ changes: "none", replaces: [] });
  });

  it("a role change is an update that sends PUT /v2/users/{id}/role, and the service then holds the role", async () => {
    const { inputs: checked, diff } = await plan(urn, state, { ...declared(), role: "admin" });
    expect(diff).toMatchObject({ changes: "some", replaces: [] });
    let outputs: Props = {};
    const sent = await requestsDuring(async () => {
      outputs = (await host.update(urn, state.id, state.outputs, checked)).properties;
    });
    expect(sent).toEqual([`PUT /v2/users/${state.id}/role {"role":"admin"}`]);
    expect(sent.some((r) => r.startsWith(`PUT /v2/users/${state.id} `))).toBe(false);
    expect(outputs).toMatchObject({ role: "admin", roleName: "Admin" });
    expect((await client.users.get(state.id)).role).toEqual({ id: "admin", name: "Admin" });
    state = { ...state, inputs: checked, outputs };
    expect((await plan(urn, state, { ...declared(), role: "admin" })).diff.changes).toBe("none");
  });

  it("refresh shows a role changed outside Pulumi, by the role's id", async () => {
    await client.users.setRole(state.id, { role: "read-only" });
    const after = await refresh(host, urn, state);
    expect(after.id).toBe(state.id);
    expect(after.inputs).toMatchObject({ role: "read-only" });
    expect(after.outputs).toMatchObject({ role: "read-only", roleName: "Read-only" });
    const { diff } = await plan(urn, after, { ...declared(), role: "admin" });
    expect(diff).toMatchObject({ changes: "some", replaces: [] });
    state = after;
  });

  it("a change of email replaces, deleting first: the new user holds the email, the old one is gone", async () => {
    const news = { ...declared(), email: "host-2@example.com", role: "read-only" };
    const { diff } = await plan(urn, state, news);
    expect(diff).toMatchObject({ changes: "some", replaces: ["email"], deleteBeforeReplace: true });
    const next = await forceReplace(host, urn, state, news, diff.deleteBeforeReplace);
    expect(next.id).not.toBe(state.id);
    await expect(client.users.get(state.id)).rejects.toThrow(/404/);
    expect(await client.users.get(next.id)).toMatchObject({ email: "host-2@example.com" });
    state = next;
  });

  it("delete removes the user from the organization", async () => {
    const sent = await requestsDuring(() => host.delete(urn, state.id, stripSecrets(state.outputs)));
    expect(sent).toEqual([`DELETE /v2/users/${state.id}`]);
    expect((await client.users.list()).map((u) => u.id)).not.toContain(state.id);
    expect((await refresh(host, urn, state)).id).toBe("");
  });

  it("adopts a user made outside Pulumi, setting its role through /role; a later apply has no diff", async () => {
    const existing = await client.users.create({
      name: "Outside",
      email: "outside@example.com",
      role: "none",
    });
    const adoptUrn = urnOf("User", "adopted-user");
    const inputs = {
      __provider: textOf("User"),
      name: "Outside",
      email: "outside@example.com",
      role: "user",
      adopt: existing.id,
    };
    let adopted!: EngineState;
    const sent = await requestsDuring(async () => (adopted = await up(adoptUrn, inputs)));
    expect(adopted.id).toBe(existing.id);
    expect(sent).toContain(`PUT /v2/users/${existing.id}/role {"role":"user"}`);
    expect((await client.users.get(existing.id)).role?.id).toBe("user");
    expect((await plan(adoptUrn, adopted, inputs)).diff.changes).toBe("none");
  });

  it("User.get of a missing id fails naming the kind and the id", async () => {
    const id = "00000000-0000-4000-8000-000000000000";
    await expect(
      getRead(host, urnOf("User", "get-User"), id, registration("get-User").inputs),
    ).rejects.toThrow(`observability User get failed: no object with id ${id} exists`);
  });
});

describe("VirtualField through the host", () => {
  const urn = urnOf("VirtualField", "host-vfield");
  const declared = () => ({
    __provider: textOf("VirtualField"),
    dataset: "host-logs",
    name: "duration_ms",
    expression: "duration / 1000000",
  });
  let state: EngineState;

  it("replacements create first: names are not unique", () => {
    expect(opts["vfield-default"].deleteBeforeReplace).toBeUndefined();
  });

  it("create, then a second apply with the same inputs has no diff", async () => {
    state = await up(urn, declared());
    expect(state.outputs).toMatchObject({ dataset: "host-logs", name: "duration_ms" });
    expect(state.outputs).not.toHaveProperty("type");
    expect((await plan(urn, state, declared())).diff).toMatchObject({ changes: "none" });
  });

  it("an update sends the whole field with PUT /v2/vfields/{id}", async () => {
    const news = { ...declared(), unit: "ms", type: "number" };
    const { inputs: checked, diff } = await plan(urn, state, news);
    expect(diff).toMatchObject({ changes: "some", replaces: [] });
    let outputs: Props = {};
    const sent = await requestsDuring(async () => {
      outputs = (await host.update(urn, state.id, state.outputs, checked)).properties;
    });
    expect(sent.map((r) => r.split(" ").slice(0, 2).join(" "))).toEqual([`PUT /v2/vfields/${state.id}`]);
    expect(JSON.parse(sent[0].slice(sent[0].indexOf("{")))).toEqual({
      dataset: "host-logs",
      name: "duration_ms",
      expression: "duration / 1000000",
      description: "",
      type: "number",
      unit: "ms",
    });
    expect(outputs).toMatchObject({ unit: "ms", type: "number" });
    state = { ...state, inputs: checked, outputs };
  });

  it("refresh shows an expression changed outside Pulumi", async () => {
    const current = await client.virtualFields.get(state.id);
    await client.virtualFields.update(state.id, { ...current, expression: "duration" } as never);
    const after = await refresh(host, urn, state);
    expect(after.inputs).toMatchObject({ expression: "duration" });
    const { diff } = await plan(urn, after, { ...declared(), unit: "ms", type: "number" });
    expect(diff).toMatchObject({ changes: "some", replaces: [] });
    state = after;
  });

  it("a change of dataset replaces the field, creating the new one first", async () => {
    const news = { ...declared(), dataset: "host-traces" };
    const { diff } = await plan(urn, state, news);
    expect(diff).toMatchObject({ changes: "some", replaces: ["dataset"], deleteBeforeReplace: false });
    const next = await forceReplace(host, urn, state, news, diff.deleteBeforeReplace);
    expect(next.id).not.toBe(state.id);
    expect(await client.virtualFields.list({ dataset: "host-traces" })).toContainEqual(
      expect.objectContaining({ id: next.id }),
    );
    expect((await client.virtualFields.list({ dataset: "host-logs" })).map((f) => f.id)).not.toContain(
      state.id,
    );
    state = next;
  });

  it("delete removes the field; a refresh then reports it gone", async () => {
    await host.delete(urn, state.id, stripSecrets(state.outputs));
    await expect(client.virtualFields.get(state.id)).rejects.toThrow(/404/);
    expect((await refresh(host, urn, state)).id).toBe("");
  });

  it("adopts a field made outside Pulumi; a later apply has no diff", async () => {
    const existing = await client.virtualFields.create({
      dataset: "host-logs",
      name: "outside",
      expression: "a",
    });
    const adoptUrn = urnOf("VirtualField", "adopted-vfield");
    const inputs = {
      __provider: textOf("VirtualField"),
      dataset: "host-logs",
      name: "outside",
      expression: "a + 1",
      adopt: existing.id,
    };
    const adopted = await up(adoptUrn, inputs);
    expect(adopted.id).toBe(existing.id);
    expect((await client.virtualFields.get(existing.id)).expression).toBe("a + 1");
    expect((await plan(adoptUrn, adopted, inputs)).diff.changes).toBe("none");
  });

  it("VirtualField.get of a missing id fails naming the kind and the id", async () => {
    await expect(
      getRead(
        host,
        urnOf("VirtualField", "get-VirtualField"),
        "vfield_missing",
        registration("get-VirtualField").inputs,
      ),
    ).rejects.toThrow("observability VirtualField get failed: no object with id vfield_missing exists");
  });
});
