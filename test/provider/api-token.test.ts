/**
 * ApiToken: its rules at preview (one named row each), and its engine paths through the real dynamic-provider
 * host (test/helpers/host.ts): create (the value a secret output), refresh keeping the value, rotation on a
 * change (the old value working until the grace period ends, the new one at once), delete, `get` of a missing id,
 * adoption refused at preview, and an uncertain create that deletes the orphan it cannot use.
 * Sources: the OpenAPI v2 document's CreateAPIToken and RegenerateAPIToken; axiom-go
 * axiom/tokens.go and tokens_integration_test.go; terraform-provider-axiom resource_tokens.go (48h default grace).
 */
import { startEmulator, type RunningEmulator } from "../../emulator";
import { ObservabilityClient } from "../../provider/client";
import * as obs from "../../provider/resources";
import { ApiToken } from "../../provider/resources/api-token";
import { implementation } from "../../provider/resources/dynamic";
import { UNKNOWN } from "../../provider/resources/lifecycle";
import { api, createDatasets, useEmulator } from "../helpers/emulator";
import { getRead, isSecret, refresh, secret, stripSecrets, up as upStep } from "../helpers/engine-steps";
import { startFaultProxy, type FaultProxy } from "../helpers/fault-proxy";
import { startConfiguredHost, urnOf, type ProviderHost } from "../helpers/host";
import { captureOptions, recordRegistrations, registered, type Registration } from "../helpers/provider-text";

type Props = Record<string, unknown>;

/** [rule, inputs, property, words the reason must contain] */
const rules: [string, Props, string, string][] = [
  ["name is required", {}, "name", "is required"],
  ["name is not empty", { name: "" }, "name", "empty"],
  ["description is a string", { name: "t", description: 1 }, "description", "string"],
  ["expiresAt is an RFC 3339 date-time", { name: "t", expiresAt: "next week" }, "expiresAt", "RFC 3339"],
  [
    "rotationGracePeriod is a duration",
    { name: "t", rotationGracePeriod: "2 days" },
    "rotationGracePeriod",
    "duration",
  ],
  [
    "rotationGracePeriod is not negative",
    { name: "t", rotationGracePeriod: "-1h" },
    "rotationGracePeriod",
    "not negative",
  ],
  [
    "orgCapabilities keys are the Role's",
    { name: "t", orgCapabilities: { everything: ["read"] } },
    "orgCapabilities.everything",
    "not a known field",
  ],
  [
    "orgCapabilities actions are create, read, update, delete",
    { name: "t", orgCapabilities: { views: ["write"] } },
    "orgCapabilities.views[0]",
    "create, read, update, delete",
  ],
  [
    "orgCapabilities auditLog allows only read",
    { name: "t", orgCapabilities: { auditLog: ["update"] } },
    "orgCapabilities.auditLog[0]",
    "read",
  ],
  [
    "orgCapabilities billing allows read and update",
    { name: "t", orgCapabilities: { billing: ["delete"] } },
    "orgCapabilities.billing[0]",
    "read, update",
  ],
  [
    "orgCapabilities sharedAccessKeys allows read and update",
    { name: "t", orgCapabilities: { sharedAccessKeys: ["create"] } },
    "orgCapabilities.sharedAccessKeys[0]",
    "read, update",
  ],
  [
    "orgCapabilities actions do not repeat",
    { name: "t", orgCapabilities: { monitors: ["read", "read"] } },
    "orgCapabilities.monitors",
    "duplicates",
  ],
  [
    "dataset ingest allows only create",
    { name: "t", datasetCapabilities: { logs: { ingest: ["read"] } } },
    "datasetCapabilities.logs.ingest[0]",
    "create",
  ],
  [
    "dataset query allows only read",
    { name: "t", datasetCapabilities: { logs: { query: ["update"] } } },
    "datasetCapabilities.logs.query[0]",
    "read",
  ],
  [
    "dataset data allows only delete",
    { name: "t", datasetCapabilities: { logs: { data: ["read"] } } },
    "datasetCapabilities.logs.data[0]",
    "delete",
  ],
  [
    "dataset trim allows only update",
    { name: "t", datasetCapabilities: { logs: { trim: ["delete"] } } },
    "datasetCapabilities.logs.trim[0]",
    "update",
  ],
  [
    "dataset vacuum allows only update",
    { name: "t", datasetCapabilities: { logs: { vacuum: ["create"] } } },
    "datasetCapabilities.logs.vacuum[0]",
    "update",
  ],
  [
    "dataset share allows create, read, delete",
    { name: "t", datasetCapabilities: { logs: { share: ["update"] } } },
    "datasetCapabilities.logs.share[0]",
    "create, read, delete",
  ],
  [
    "dataset starredQueries allows create, read, update, delete",
    { name: "t", datasetCapabilities: { logs: { starredQueries: ["own"] } } },
    "datasetCapabilities.logs.starredQueries[0]",
    "create, read, update, delete",
  ],
  [
    "dataset virtualFields allows create, read, update, delete",
    { name: "t", datasetCapabilities: { logs: { virtualFields: ["own"] } } },
    "datasetCapabilities.logs.virtualFields[0]",
    "create, read, update, delete",
  ],
  [
    "dataset capability keys are the eight the service knows",
    { name: "t", datasetCapabilities: { logs: { export: ["read"] } } },
    "datasetCapabilities.logs.export",
    "not a known field",
  ],
  [
    "view query allows only read",
    { name: "t", viewCapabilities: { v: { query: ["create"] } } },
    "viewCapabilities.v.query[0]",
    "read",
  ],
  [
    "view share allows create, read, delete",
    { name: "t", viewCapabilities: { v: { share: ["update"] } } },
    "viewCapabilities.v.share[0]",
    "create, read, delete",
  ],
  ["an unknown field is refused", { name: "t", value: "x" }, "value", "not a known field"],
  [
    "adopt is refused: the value of an existing token cannot be known",
    { name: "t", adopt: "tok_1" },
    "adopt",
    "cannot be adopted",
  ],
];

describe("ApiToken rules at preview", () => {
  it.each(rules)("%s", async (_rule, inputs, property, words) => {
    const { failures } = await implementation("ApiToken").check({}, inputs);
    expect(failures).toContainEqual({ property, reason: expect.stringContaining(words) });
    expect(failures!.filter((f) => f.property === property)).toHaveLength(1);
  });

  it.each([
    [
      "every org capability with its actions",
      {
        orgCapabilities: {
          views: ["create", "read", "update", "delete"],
          auditLog: ["read"],
          billing: ["read", "update"],
        },
      },
    ],
    ['the "*" dataset key', { datasetCapabilities: { "*": { ingest: ["create"], query: ["read"] } } }],
    ["a grace period of 0s and of 1h30m", { rotationGracePeriod: "0s" }],
    ["a grace period of 1h30m", { rotationGracePeriod: "1h30m" }],
    ["an expiry with an offset", { expiresAt: "2030-01-01T10:00:00+02:00" }],
    [
      "unknown values at preview",
      { datasetCapabilities: { logs: UNKNOWN }, expiresAt: UNKNOWN, rotationGracePeriod: UNKNOWN },
    ],
  ])("accepts %s", async (_case, extra) => {
    expect((await implementation("ApiToken").check({}, { name: "t", ...extra })).failures).toEqual([]);
  });

  it("an unknown adopt is refused as well: whatever it resolves to, the value could not be known", async () => {
    const { failures } = await implementation("ApiToken").check({}, { name: "t", adopt: UNKNOWN });
    expect(failures).toEqual([{ property: "adopt", reason: expect.stringContaining("cannot be adopted") }]);
  });

  it("the default grace period is 48 hours (terraform-provider-axiom resource_tokens.go:38-40)", async () => {
    const token = implementation("ApiToken");
    const { inputs } = await token.check({}, { name: "t" });
    expect(inputs).toEqual({ name: "t" });
    // Absent compares equal to 48h, and to no other period.
    const held = { name: "t", rotationGracePeriod: "48h", description: "", orgCapabilities: {} };
    expect(await token.diff("x", held, inputs)).toMatchObject({ changes: false });
    expect(await token.diff("x", { ...held, rotationGracePeriod: "24h" }, inputs)).toMatchObject({
      diffs: ["rotationGracePeriod"],
    });
  });
});

describe("ApiToken through the real host", () => {
  const em = useEmulator();
  let host: ProviderHost;
  let client: ObservabilityClient;
  let seen: Registration[];
  // The options each class finally handed to dynamic.Resource.
  const { opts, transformations } = captureOptions();
  const registration = (name: string) => seen.find((r) => r.name === name)!;
  const textOf = () => registration("ingest-token").providerText;
  const monitorsWith = (token: string) =>
    api(em.current, "GET", "/v2/monitors", undefined, { authorization: `Bearer ${token}` });

  beforeAll(async () => {
    seen = await recordRegistrations();
    await Promise.all(
      [
        new obs.ApiToken(
          "ingest-token",
          { name: "svc", datasetCapabilities: { "svc-logs": { ingest: ["create"] } } },
          { transformations },
        ),
        obs.ApiToken.get("get-ApiToken", "tok_0"),
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

  it("the class marks `token` a secret output", () => {
    expect(opts["ingest-token"].additionalSecretOutputs).toEqual(["token"]);
    expect(ApiToken.secretKeys.outputs).toEqual(["token"]);
  });

  it("create: the value is an output, works for exactly what was declared, and never reaches the host's log", async () => {
    const urn = urnOf("ApiToken", "create");
    const state = await up(urn, {
      __provider: textOf(),
      name: "svc",
      datasetCapabilities: { "svc-logs": { ingest: ["create"] } },
    });
    const value = state.outputs.token as string;
    expect(value).toMatch(/^xaat-/);
    await createDatasets(em.current, "svc-logs");
    expect(state.outputs.tokenId).toBe(state.id);
    const ingest = await api(em.current, "POST", "/v1/datasets/svc-logs/ingest", [{ a: 1 }], {
      authorization: `Bearer ${value}`,
    });
    expect(ingest.status).toBe(200);
    expect((await monitorsWith(value)).status).toBe(403);
    expect(host.stderr()).not.toContain(value);
    // A second apply with the same inputs changes nothing.
    const diff = await host.diff(urn, state.id, stripSecrets(state.outputs), stripSecrets(state.inputs));
    expect(diff.changes).toBe("none");
  });

  it("refresh keeps the value (the service never returns it) and shows drift as a change", async () => {
    const urn = urnOf("ApiToken", "refresh");
    const state = await up(urn, { __provider: textOf(), name: "refreshed", rotationGracePeriod: "1h" });
    const after = await refresh(host, urn, {
      ...state,
      outputs: { ...state.outputs, token: secret(state.outputs.token) },
    });
    expect(after.id).toBe(state.id);
    expect(isSecret(after.outputs.token)).toBe(true);
    expect(stripSecrets(after.outputs).token).toBe(state.outputs.token);
    expect(stripSecrets(after.inputs)).toMatchObject({ name: "refreshed", rotationGracePeriod: "1h" });
    const diff = await host.diff(urn, after.id, stripSecrets(after.outputs), stripSecrets(state.inputs));
    expect(diff.changes).toBe("none");
    // Out of band, a regenerate gives this token an expiry: refresh shows it, and the next apply rotates.
    await client.tokens.regenerate(state.id, { existingTokenExpiresAt: "2099-01-01T00:00:00Z" });
    const drifted = await refresh(host, urn, after);
    expect(stripSecrets(drifted.inputs).expiresAt).toBe("2099-01-01T00:00:00Z");
    expect(stripSecrets(drifted.outputs).token).toBe(state.outputs.token);
    const again = await host.diff(urn, after.id, stripSecrets(drifted.outputs), stripSecrets(state.inputs));
    expect(again.changes).toBe("some");
  });

  it("a change rotates: new id and value, the old value works until now + the grace period; destroy ends both", async () => {
    const urn = urnOf("ApiToken", "rotate");
    const declared = {
      __provider: textOf(),
      name: "rot",
      orgCapabilities: { monitors: ["read"] },
      // Long enough that no pace of the machine lets it run out during the test: the expiry is checked as the
      // time stored (bracketed by the update), and the emulator's refusal of an expired value has its own test.
      rotationGracePeriod: "1h",
    };
    const state = await up(urn, declared);
    const oldValue = state.outputs.token as string;
    const news = (await host.check(urn, stripSecrets(state.inputs), { ...declared, description: "rotated" }))
      .inputs;
    const diff = await host.diff(urn, state.id, stripSecrets(state.outputs), news);
    expect(diff).toMatchObject({ changes: "some", replaces: [] });
    const before = Date.now();
    const { properties } = await host.update(urn, state.id, stripSecrets(state.outputs), news);
    const after = Date.now();
    const newValue = properties.token as string;
    expect(newValue).toMatch(/^xaat-/);
    expect(newValue).not.toBe(oldValue);
    expect(properties.tokenId).not.toBe(state.id);
    expect(properties.retiredTokenIds).toEqual([state.id]);
    expect(properties.description).toBe("rotated");
    expect((await monitorsWith(oldValue)).status).toBe(200);
    expect((await monitorsWith(newValue)).status).toBe(200);

    // Refresh, diff and get follow the current token; the resource keeps its id.
    const refreshed = await refresh(host, urn, { id: state.id, inputs: news, outputs: properties });
    expect(refreshed.id).toBe(state.id);
    expect(stripSecrets(refreshed.outputs)).toMatchObject({
      tokenId: properties.tokenId,
      token: newValue,
      description: "rotated",
    });
    expect((await host.diff(urn, state.id, stripSecrets(refreshed.outputs), news)).changes).toBe("none");

    // The old value expires an hour after the update, by the host's clock (the same machine's).
    const retiredUntil = Date.parse(String((await client.tokens.get(state.id)).expiresAt));
    expect(retiredUntil).toBeGreaterThanOrEqual(before + 3_600_000 - 1_000);
    expect(retiredUntil).toBeLessThanOrEqual(after + 3_600_000);

    // A new grace period alone rotates nothing.
    const graceOnly = (
      await host.check(urn, news, { ...declared, description: "rotated", rotationGracePeriod: "1m" })
    ).inputs;
    const kept = await host.update(urn, state.id, stripSecrets(refreshed.outputs), graceOnly);
    expect(kept.properties).toMatchObject({
      token: newValue,
      tokenId: properties.tokenId,
      rotationGracePeriod: "1m",
    });

    await host.delete(urn, state.id, stripSecrets(kept.properties));
    expect((await monitorsWith(newValue)).status).toBe(403);
    await expect(client.tokens.get(String(properties.tokenId))).rejects.toThrow(/404/);
    await expect(client.tokens.get(state.id)).rejects.toThrow(/404/);
    // A refresh after the current token was deleted reports the resource gone.
    expect((await refresh(host, urn, { id: state.id, inputs: news, outputs: kept.properties })).id).toBe("");
  });

  it("destroy within the grace period deletes the retired token too: no value outlives the resource", async () => {
    const urn = urnOf("ApiToken", "destroy-in-grace");
    const declared = { __provider: textOf(), name: "dig", orgCapabilities: { monitors: ["read"] } };
    const state = await up(urn, declared);
    const news = (await host.check(urn, stripSecrets(state.inputs), { ...declared, name: "dig-2" })).inputs;
    const { properties } = await host.update(urn, state.id, stripSecrets(state.outputs), news);
    expect((await monitorsWith(state.outputs.token as string)).status).toBe(200);
    await host.delete(urn, state.id, properties);
    expect((await monitorsWith(state.outputs.token as string)).status).toBe(403);
    expect((await monitorsWith(properties.token as string)).status).toBe(403);
  });

  it("ApiToken.get reads a token without its value; a missing id fails naming the kind and the id", async () => {
    const made = await client.tokens.create({ name: "looked-up" });
    const got = await getRead(
      host,
      urnOf("ApiToken", "get-ApiToken"),
      made.id,
      registration("get-ApiToken").inputs,
    );
    expect(got).toMatchObject({ id: made.id, properties: { name: "looked-up", tokenId: made.id } });
    expect(got.properties.token).toBeUndefined();
    await expect(
      getRead(host, urnOf("ApiToken", "get-ApiToken"), "tok_missing", registration("get-ApiToken").inputs),
    ).rejects.toThrow("observability ApiToken get failed: no object with id tok_missing exists");
  });

  it("adopt is refused at preview with the reason", async () => {
    const checked = await host.check(
      urnOf("ApiToken", "adopt"),
      {},
      { __provider: textOf(), name: "t", adopt: "tok_1" },
    );
    expect(checked.failures).toEqual([
      { property: "adopt", reason: expect.stringContaining("never returns an existing token's value") },
    ]);
  });
});

describe("an uncertain create deletes the orphan it cannot use and makes a new token", () => {
  let em: RunningEmulator | undefined;
  let proxy: FaultProxy | undefined;
  let client: ObservabilityClient | undefined;
  afterEach(async () => {
    await client?.close();
    await proxy?.close();
    await em?.close();
  });

  it("the first POST is processed but answered 500: the orphan is deleted, the resend's token kept with its value", async () => {
    em = await startEmulator({ port: 0, host: "127.0.0.1" });
    proxy = await startFaultProxy(em.url, (method, path, nth) =>
      method === "POST" && path === "/v2/tokens" && nth === 0 ? "500after" : undefined,
    );
    client = new ObservabilityClient({ url: proxy.url, token: em.token, maxRetries: 1 });
    const lc = ApiToken.declaration.lifecycle({ client: () => client!, secrets: () => [em!.token] });
    const { inputs } = await lc.check({}, { name: "uncertain", orgCapabilities: { monitors: ["read"] } });
    const made = await lc.create(inputs);
    const value = made.outs.token as string;
    expect(value).toMatch(/^xaat-/);
    const listed = (await api(em, "GET", "/v2/tokens")).body as { id: string; name: string }[];
    expect(listed.filter((t) => t.name === "uncertain").map((t) => t.id)).toEqual([made.id]);
    expect(proxy.seen.filter((r) => r === "POST /v2/tokens")).toHaveLength(2);
    expect(proxy.seen.filter((r) => r.startsWith("DELETE /v2/tokens/"))).toHaveLength(1);
    expect(
      (await api(em, "GET", "/v2/monitors", undefined, { authorization: `Bearer ${value}` })).status,
    ).toBe(200);
  });

  /** A token created through the proxy, then its rotation to `description: "rotated"` with `fault` planned. */
  async function rotateWith(
    fault: (nth: number) => "500" | "500after" | undefined,
    before?: () => Promise<void>,
  ) {
    em = await startEmulator({ port: 0, host: "127.0.0.1" });
    let regenerates = 0;
    proxy = await startFaultProxy(em.url, async (method, path) => {
      if (method !== "POST" || !path.endsWith("/regenerate")) return undefined;
      if (regenerates === 0) await before?.();
      return fault(regenerates++);
    });
    client = new ObservabilityClient({ url: proxy.url, token: em.token, maxRetries: 1 });
    const lc = ApiToken.declaration.lifecycle({ client: () => client!, secrets: () => [em!.token] });
    const args = { name: "rotating", orgCapabilities: { monitors: ["read"] }, rotationGracePeriod: "0s" };
    const { inputs: olds } = await lc.check({}, args);
    const made = await lc.create(olds);
    const { inputs: news } = await lc.check({}, { ...args, description: "rotated" });
    const update = lc.update(made.id, { ...made.outs, ...olds }, news);
    return { made, update };
  }
  const listedNamed = async (name: string) =>
    ((await api(em!, "GET", "/v2/tokens")).body as { id: string; name: string }[]).filter(
      (t) => t.name === name,
    );

  it("a rotation processed but answered 500: the token it made is deleted and the regenerate sent again", async () => {
    const { made, update } = await rotateWith((nth) => (nth === 0 ? "500after" : undefined));
    const { outs } = await update;
    expect(outs.tokenId).not.toBe(made.id);
    expect(proxy!.seen.filter((r) => r.endsWith("/regenerate"))).toHaveLength(2);
    // The first regenerate's token (its value lost) was deleted; only the resend's is listed as "rotated".
    expect(proxy!.seen.filter((r) => r.startsWith("DELETE /v2/tokens/"))).toHaveLength(1);
    const rotated = (await listedNamed("rotating")).map((t) => t.id);
    expect(rotated).toContain(outs.tokenId);
    expect(
      (await api(em!, "GET", "/v2/monitors", undefined, { authorization: `Bearer ${outs.token}` })).status,
    ).toBe(200);
  });

  it("a rotation whose outcome is unknown never deletes more matching tokens than it sent: it fails, naming them", async () => {
    const foreign: string[] = [];
    const { update } = await rotateWith(
      (nth) => (nth === 0 ? "500" : undefined),
      async () => {
        // Two identical tokens someone else makes while our regenerate is on its way (not in our baseline).
        for (let i = 0; i < 2; i++) {
          const made = await api(em!, "POST", "/v2/tokens", {
            name: "rotating",
            description: "rotated",
            orgCapabilities: { monitors: ["read"] },
          });
          foreign.push((made.body as { id: string }).id);
        }
      },
    );
    await expect(update).rejects.toThrow(/2 objects matching the declared body/);
    expect(proxy!.seen.filter((r) => r.startsWith("DELETE"))).toHaveLength(0);
    const ids = (await listedNamed("rotating")).map((t) => t.id);
    for (const id of foreign) expect(ids).toContain(id);
  });
});
