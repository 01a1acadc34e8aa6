/**
 * The engine's own paths through the real dynamic-provider host: refresh's secret re-marking, forced
 * replacement (create-before-delete unless `deleteBeforeReplace`), and the Read that `Resource.get` makes.
 * Where the engine's step matters, test/helpers/engine-steps.ts reproduces it, citing pulumi/pulumi's source.
 */
import * as pulumi from "@pulumi/pulumi";
import * as obs from "../../provider/resources";
import { ObservabilityClient } from "../../provider/client";
import { useEmulator } from "../helpers/emulator";
import {
  forceReplace,
  getRead,
  isSecret,
  refresh,
  secret,
  stripSecrets,
  up as upStep,
} from "../helpers/engine-steps";
import { startConfiguredHost, startProviderHost, urnOf, type ProviderHost } from "../helpers/host";
import { captureOptions, recordRegistrations, registered, type Registration } from "../helpers/provider-text";

type Props = Record<string, unknown>;

const em = useEmulator();
let host: ProviderHost;
let client: ObservabilityClient;
let seen: Registration[];
// The options each class finally handed to dynamic.Resource.
const { opts, transformations } = captureOptions();
const SLACK_URL = "https://hooks.slack.test/T000/SLACK-SECRET";
const WEBHOOK_URL = "https://hooks.test/WEBHOOK-SECRET-0123";

const dbrTrue = { deleteBeforeReplace: true };
const registration = (name: string) => seen.find((r) => r.name === name)!;
const textOf = (kind: string) => seen.find((r) => r.type.endsWith(`:${kind}`))!.providerText;

beforeAll(async () => {
  seen = await recordRegistrations();
  const t = { transformations };
  await Promise.all(
    [
      // A credential passed as a plain string, as a user may.
      new obs.Notifier("plain-slack", { name: "n", properties: { slack: { slackUrl: SLACK_URL } } }, t),
      new obs.Role("role-default", { name: "r" }, t),
      new obs.Role("role-explicit", { name: "r" }, { ...t, deleteBeforeReplace: false }),
      new obs.Role("role-adopted", { name: "r", adopt: "role_1" }, t),
      new obs.OrganizationName("org-default", { organizationId: "local-org", name: "o" }, t),
      new obs.OrganizationName(
        "org-explicit",
        { organizationId: "o", name: "o" },
        { ...t, deleteBeforeReplace: true },
      ),
      new obs.Monitor("monitor", { name: "m", aplQuery: "x", type: "MatchEvent" }, t),
      obs.Monitor.get("get-Monitor", "mon_0"),
      obs.Annotation.get("get-Annotation", "ann_0"),
      obs.Notifier.get("get-Notifier", "notify_0"),
      obs.Role.get("get-Role", "role_0"),
      obs.StarredQuery.get("get-StarredQuery", "sq_0"),
      obs.OrganizationName.get("get-OrganizationName", "local-org"),
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

/** Every string in `v` that is not under a secret marker: what state would hold in plaintext. */
function plaintext(v: unknown): string[] {
  if (isSecret(v)) return [];
  if (typeof v === "string") return [v];
  if (Array.isArray(v)) return v.flatMap(plaintext);
  if (v && typeof v === "object") return Object.values(v).flatMap(plaintext);
  return [];
}

describe("1. refresh never stores a credential in plaintext", () => {
  it("the Notifier class registers all of properties as a secret input, even from a plain string", () => {
    expect(isSecret(registration("plain-slack").inputs.properties)).toBe(true);
    expect(opts["plain-slack"].additionalSecretOutputs).toEqual(["properties"]);
  });

  it("after the channel is switched to a webhook out of band, the refreshed inputs keep the new URL secret", async () => {
    const urn = urnOf("Notifier", "plain-slack");
    const state = await up(urn, registration("plain-slack").inputs);
    expect(plaintext(state.inputs)).not.toContain(SLACK_URL);
    await client.notifiers.update(state.id, { name: "n", properties: { webhook: { url: WEBHOOK_URL } } });

    const after = await refresh(host, urn, state);
    expect(after.id).toBe(state.id);
    expect(stripSecrets(after.inputs).properties).toEqual({ webhook: { url: WEBHOOK_URL } });
    expect(isSecret(after.inputs.properties)).toBe(true);
    expect(plaintext(after.inputs).join("\n")).not.toContain("WEBHOOK-SECRET");
    expect(host.stderr()).not.toContain("WEBHOOK-SECRET");

    // What a registration with only the Slack URL secret would have stored: the helper does catch the leak.
    const onlyUrlSecret = {
      ...state,
      inputs: { ...state.inputs, properties: { slack: { slackUrl: secret(SLACK_URL) } } },
    };
    const leaked = await refresh(host, urn, onlyUrlSecret);
    expect(plaintext(leaked.inputs)).toContain(WEBHOOK_URL);
    await host.delete(urn, state.id, stripSecrets(after.outputs));
  });
});

describe("2. a forced replacement neither fails nor loses data", () => {
  it("Role and OrganizationName default deleteBeforeReplace to true; the user's explicit option wins for Role", () => {
    expect(opts["role-default"].deleteBeforeReplace).toBe(true);
    expect(opts["role-explicit"].deleteBeforeReplace).toBe(false);
    expect(opts["org-default"].deleteBeforeReplace).toBe(true);
    expect(opts["org-explicit"].deleteBeforeReplace).toBe(true);
    // Deleting first would destroy the object the adopted role's replacement adopts (see below).
    expect(opts["role-adopted"].deleteBeforeReplace).toBeUndefined();
    expect(opts.monitor.deleteBeforeReplace).toBeUndefined();
  });

  it("Role: replaced with the class's default, the name moves to the new role; created first it would clash", async () => {
    const urn = urnOf("Role", "forced-role");
    const inputs = { __provider: textOf("Role"), name: "forced-role", members: ["u1"] };
    const old = await up(urn, inputs);
    const dbr = opts["role-default"].deleteBeforeReplace!;
    const next = await forceReplace(host, urn, old, inputs, dbr);
    expect(next.id).not.toBe(old.id);
    const roles = (await client.roles.list()).filter((r) => r.name === "forced-role");
    expect(roles.map((r) => r.id)).toEqual([next.id]);

    // The engine's default order, which the class default avoids: the name is still taken.
    await expect(forceReplace(host, urn, next, inputs, false)).rejects.toThrow(/Role create failed: .*409/);
    await host.delete(urn, next.id, stripSecrets(next.outputs));
  });

  it("OrganizationName refuses an explicit deleteBeforeReplace: false, saying why and what to do", () => {
    const make = () =>
      new obs.OrganizationName(
        "org-false",
        { organizationId: "local-org", name: "o" },
        { deleteBeforeReplace: false },
      );
    expect(make).toThrow(pulumi.ResourceError);
    expect(make).toThrow(
      'OrganizationName "org-false": `deleteBeforeReplace: false` is not supported. A replacement created ' +
        "before the old resource is deleted would lose the organization's original name",
    );
    expect(make).toThrow("Remove the option: replacements delete first.");
  });

  it("OrganizationName created first (what `false` would do) does lose the original name: why it is refused", async () => {
    const original = (await client.orgs.get("local-org")).name;
    const urn = urnOf("OrganizationName", "forced-org-cbd");
    const inputs = { __provider: textOf("OrganizationName"), organizationId: "local-org", name: "CBD Org" };
    const old = await up(urn, inputs);
    const next = await forceReplace(host, urn, old, inputs, false);
    expect((await client.orgs.get("local-org")).name).toBe(original);
    expect(next.outputs).toMatchObject({ name: "CBD Org", previousName: "CBD Org" });
  });

  it("OrganizationName: the service holds the declared name, and the original name survives in previousName", async () => {
    const original = (await client.orgs.get("local-org")).name;
    const urn = urnOf("OrganizationName", "forced-org");
    const inputs = {
      __provider: textOf("OrganizationName"),
      organizationId: "local-org",
      name: "Forced Org",
    };
    const old = await up(urn, inputs);
    const next = await forceReplace(host, urn, old, inputs, opts["org-default"].deleteBeforeReplace!);
    expect((await client.orgs.get("local-org")).name).toBe("Forced Org");
    expect(next.outputs).toMatchObject({ name: "Forced Org", previousName: original });
    await host.delete(urn, next.id, stripSecrets(next.outputs), stripSecrets(next.inputs));
    expect((await client.orgs.get("local-org")).name).toBe(original);
  });

  it.each([
    ["Annotation", () => new obs.Annotation("a", { datasets: ["d"], type: "t", adopt: "ann_1" }, dbrTrue)],
    [
      "Monitor",
      () => new obs.Monitor("m", { name: "m", aplQuery: "x", type: "MatchEvent", adopt: "mon_1" }, dbrTrue),
    ],
    [
      "Notifier",
      () =>
        new obs.Notifier(
          "n",
          { name: "n", properties: { email: { emails: ["a@b.test"] } }, adopt: "n_1" },
          dbrTrue,
        ),
    ],
    ["Role", () => new obs.Role("r", { name: "r", adopt: "role_1" }, dbrTrue)],
    [
      "StarredQuery",
      () =>
        new obs.StarredQuery(
          "s",
          { kind: "apl", name: "s", who: "team", query: { apl: "x" }, metadata: {}, adopt: "sq_1" },
          dbrTrue,
        ),
    ],
  ])(
    "%s refuses adopt with an explicit deleteBeforeReplace: true, naming both and what to do",
    (kind, make) => {
      expect(make).toThrow(pulumi.ResourceError);
      expect(make).toThrow(`${kind} `);
      expect(make).toThrow("`adopt` cannot be combined with `deleteBeforeReplace: true`");
      expect(make).toThrow("Remove `deleteBeforeReplace`");
    },
  );

  it.each(["Monitor", "Role"])(
    "an adopted %s survives a forced replacement run by a fresh host process: the old resource's delete leaves it to the new one",
    async (kind) => {
      const existing =
        kind === "Monitor"
          ? (await client.monitors.create({ name: "adoptee", aplQuery: "x", type: "MatchEvent" })).id
          : (await client.roles.create({ name: "adoptee-role" } as never)).id;
      const declared =
        kind === "Monitor"
          ? { name: "adopted", aplQuery: "['logs'] | count", type: "MatchEvent" }
          : { name: "adoptee-role", members: ["u9"] };
      const urn = urnOf(kind, `adopted-${kind}`);
      const inputs = { __provider: textOf(kind), ...declared, adopt: existing };
      const old = await up(urn, inputs);
      expect(old.id).toBe(existing);
      const dbr = (kind === "Role" ? opts["role-adopted"] : opts.monitor).deleteBeforeReplace ?? false;
      // The replacement is a later `pulumi up`: a new host process, which never saw the first adoption. Both of
      // its steps run in that one process (the engine starts one host per deployment and sends it every step).
      const fresh = await startProviderHost({
        config: { "observability:token": em.current.token, "observability:url": em.current.url },
        secretKeys: ["observability:token"],
      });
      try {
        await fresh.configure();
        const next = await forceReplace(fresh, urn, old, inputs, dbr);
        expect(next.id).toBe(existing);
        const family = kind === "Monitor" ? client.monitors : client.roles;
        await expect(family.get(existing)).resolves.toMatchObject({ id: existing, name: declared.name });
        expect((await refresh(fresh, urn, next)).id).toBe(existing);
      } finally {
        await fresh.close();
      }
    },
  );
});

describe("3. Resource.get of a missing id fails; a refresh of a deleted object reports it gone", () => {
  it.each([
    ["Monitor", "mon_missing"],
    ["Annotation", "ann_missing"],
    ["Notifier", "notify_missing"],
    ["Role", "role_missing"],
    ["StarredQuery", "sq_missing"],
    ["OrganizationName", "org_missing"],
  ])("%s.get(%s) fails naming the kind and the id", async (kind, id) => {
    const getInputs = registration(`get-${kind}`).inputs;
    await expect(getRead(host, urnOf(kind, `get-${kind}`), id, getInputs)).rejects.toThrow(
      `observability ${kind} get failed: no object with id ${id} exists`,
    );
  });

  it("Monitor.get of an existing id reads every output", async () => {
    const m = await client.monitors.create({ name: "got", aplQuery: "x", type: "MatchEvent" });
    const got = await getRead(
      host,
      urnOf("Monitor", "get-Monitor"),
      m.id,
      registration("get-Monitor").inputs,
    );
    expect(got).toMatchObject({ id: m.id, properties: { name: "got", aplQuery: "x", type: "MatchEvent" } });
  });

  it("a refresh of a monitor deleted out of band returns an empty id, so the engine drops it", async () => {
    const urn = urnOf("Monitor", "refresh-gone");
    const state = await up(urn, {
      __provider: textOf("Monitor"),
      name: "gone",
      aplQuery: "x",
      type: "MatchEvent",
    });
    await client.monitors.delete(state.id);
    expect((await refresh(host, urn, state)).id).toBe("");
  });
});
