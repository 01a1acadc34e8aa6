/**
 * Every resource's full lifecycle through the real @pulumi/pulumi dynamic-provider host over gRPC, with the
 * real `__provider` text and a secret-wrapped token, against a real emulator.
 */
import * as obs from "../../provider/resources";
import { ObservabilityClient, type MonitorUpdate, type NotifierUpdate } from "../../provider/client";
import { useEmulator } from "../helpers/emulator";
import { startConfiguredHost, startProviderHost, urnOf, type ProviderHost } from "../helpers/host";
import { recordRegistrations, registered, type Registration } from "../helpers/provider-text";
import { UNKNOWN } from "../../provider/resources/lifecycle";

const em = useEmulator();
let host: ProviderHost;
let client: ObservabilityClient;
let texts: Record<string, string>;
/** The inputs each kind's `Resource.get` registers: what the engine's Read gets on a user-driven get. */
let getInputs: Record<string, Props>;

type Props = Record<string, unknown>;
interface Case {
  kind: string;
  args: Props;
  bad: Props;
  badProperty: string;
  change: Props;
  replace: Props;
  drift(id: string): Promise<void>;
  /** The id to read after delete; the deleted one, unless the object outlives its resource. */
  goneId?: string;
}

const cases: Case[] = [
  {
    kind: "Annotation",
    args: { datasets: ["logs"], type: "deploy", title: "v1" },
    bad: { datasets: [], type: "Deploy!" },
    badProperty: "type",
    change: { datasets: ["logs"], type: "deploy", title: "v2" },
    replace: { datasets: ["logs"], type: "deploy", title: "v1", adopt: "ann_other" },
    drift: async (id) => void (await client.annotations.update(id, { title: "edited" })),
  },
  {
    kind: "Monitor",
    args: {
      name: "errors",
      aplQuery: "['logs'] | count",
      type: "Threshold",
      operator: "Above",
      threshold: 5,
    },
    bad: { name: "errors", aplQuery: "x", type: "Threshold" },
    badProperty: "threshold",
    change: {
      name: "errors",
      aplQuery: "['logs'] | count",
      type: "Threshold",
      operator: "Above",
      threshold: 6,
    },
    replace: {
      name: "errors",
      aplQuery: "x",
      type: "Threshold",
      operator: "Above",
      threshold: 5,
      adopt: "mon_x",
    },
    drift: async (id) => {
      const m = await client.monitors.get(id);
      // PUT sends the whole monitor: the one just read (a response type, every field optional), changed.
      await client.monitors.update(id, { ...m, threshold: 50 } as MonitorUpdate);
    },
  },
  {
    kind: "Notifier",
    args: { name: "slack", properties: { slack: { slackUrl: "https://hooks.slack.test/T000/SECRETPATH" } } },
    bad: {
      name: "two",
      properties: { slack: { slackUrl: "https://a.test" }, email: { emails: ["a@b.test"] } },
    },
    badProperty: "properties",
    change: {
      name: "slack-2",
      properties: { slack: { slackUrl: "https://hooks.slack.test/T000/SECRETPATH" } },
    },
    replace: { name: "slack", properties: { slack: { slackUrl: "https://a.test" } }, adopt: "notify_x" },
    drift: async (id) => {
      const n = await client.notifiers.get(id);
      await client.notifiers.update(id, { ...n, name: "renamed" } as NotifierUpdate);
    },
  },
  {
    kind: "Role",
    args: { name: "host-readers", members: ["u1", "u2"], orgCapabilities: { datasets: ["read"] } },
    bad: { name: "r", orgCapabilities: { auditLog: ["delete"] } },
    badProperty: "orgCapabilities.auditLog[0]",
    change: { name: "host-readers", members: ["u2", "u1", "u3"], orgCapabilities: { datasets: ["read"] } },
    replace: { name: "host-readers", adopt: "role_x" },
    drift: async (id) => {
      const r = await client.roles.get(id);
      await client.roles.update(id, { ...r, members: ["intruder"] } as never);
    },
  },
  {
    kind: "StarredQuery",
    args: { kind: "apl", name: "top", who: "team", query: { apl: "['logs'] | take 10" }, metadata: {} },
    bad: { kind: "sql", name: "top", who: "team", query: { apl: "x" }, metadata: {} },
    badProperty: "kind",
    change: { kind: "apl", name: "top-2", who: "team", query: { apl: "['logs'] | take 10" }, metadata: {} },
    replace: { kind: "apl", name: "top", who: "team", query: { apl: "x" }, metadata: {}, adopt: "sq_x" },
    drift: async (id) => {
      const q = await client.starredQueries.get(id);
      await client.starredQueries.update(id, { ...q, name: "edited" } as never);
    },
  },
  {
    kind: "OrganizationName",
    args: { organizationId: "local-org", name: "Host Org" },
    bad: { organizationId: "", name: "" },
    badProperty: "name",
    change: { organizationId: "local-org", name: "Host Org 2" },
    replace: { organizationId: "other-org", name: "Host Org" },
    drift: async (id) => void (await client.orgs.update(id, { name: "Edited elsewhere" })),
    // An org outlives the resource (delete restores its name), so "gone" is an id that never existed.
    goneId: "org_missing",
  },
];

beforeAll(async () => {
  const seen: Registration[] = await recordRegistrations();
  const resources = [
    new obs.Annotation("a", { datasets: ["x"], type: "t" }),
    new obs.Monitor("m", { name: "m", aplQuery: "x", type: "MatchEvent" }),
    new obs.Notifier("n", { name: "n", properties: { email: { emails: ["a@b.test"] } } }),
    new obs.Role("r", { name: "r" }),
    new obs.StarredQuery("s", { kind: "apl", name: "s", who: "team", query: { apl: "x" }, metadata: {} }),
    new obs.OrganizationName("o", { organizationId: "local-org", name: "o" }),
  ];
  const gets = [
    obs.Annotation.get("get-Annotation", "ann_0"),
    obs.Monitor.get("get-Monitor", "mon_0"),
    obs.Notifier.get("get-Notifier", "notify_0"),
    obs.Role.get("get-Role", "role_0"),
    obs.StarredQuery.get("get-StarredQuery", "sq_0"),
    obs.OrganizationName.get("get-OrganizationName", "local-org"),
  ];
  await Promise.all([...resources, ...gets].map(registered));
  const made = seen.filter((r) => !r.name.startsWith("get-"));
  texts = Object.fromEntries(made.map((r) => [r.type.split(":").pop()!, r.providerText]));
  getInputs = Object.fromEntries(
    seen.filter((r) => r.name.startsWith("get-")).map((r) => [r.name.slice(4), { ...r.inputs }]),
  );
  ({ host, client } = await startConfiguredHost(em.current));
});

afterAll(async () => {
  await host?.close();
  await client?.close();
});

describe.each(cases)("$kind through the dynamic-provider host", (c) => {
  const urn = () => urnOf(c.kind, `host-${c.kind}`);
  const withProvider = (p: Props) => ({ ...p, __provider: texts[c.kind] });

  it("returns check failures as preview errors naming the property, and accepts unknowns", async () => {
    const bad = await host.check(urn(), {}, withProvider(c.bad));
    expect(bad.failures.map((f) => f.property)).toContain(c.badProperty);
    const unknownName = await host.check(urn(), {}, withProvider({ ...c.args, name: UNKNOWN }));
    expect(unknownName.failures).toEqual([]);
  });

  it("creates, diffs none/some/replace, updates, reads as Resource.get, reads drift, deletes and reads gone", async () => {
    const checked = await host.check(urn(), {}, withProvider(c.args));
    expect(checked.failures).toEqual([]);
    expect(checked.inputs.__provider).toBe(texts[c.kind]);

    const made = await host.create(urn(), checked.inputs);
    expect(made.id).toBeTruthy();
    expect(made.properties.__provider).toBe(texts[c.kind]);
    const outs = made.properties;

    expect(await host.diff(urn(), made.id, outs, checked.inputs)).toMatchObject({
      changes: "none",
      replaces: [],
    });
    const changed = (await host.check(urn(), checked.inputs, withProvider(c.change))).inputs;
    expect(await host.diff(urn(), made.id, outs, changed)).toMatchObject({ changes: "some", replaces: [] });
    const replaced = (await host.check(urn(), checked.inputs, withProvider(c.replace))).inputs;
    const replaceDiff = await host.diff(urn(), made.id, outs, replaced);
    expect(replaceDiff.changes).toBe("some");
    expect(replaceDiff.replaces.length).toBeGreaterThan(0);

    const updated = await host.update(urn(), made.id, outs, changed);
    expect(await host.diff(urn(), made.id, updated.properties, changed)).toMatchObject({ changes: "none" });

    // Resource.get: the engine sends no properties, only the get's inputs (`__provider`, nothing declared).
    expect(Object.keys(getInputs[c.kind]).filter((k) => getInputs[c.kind][k] !== undefined)).toEqual([
      "__provider",
    ]);
    const got = await host.read(urn(), made.id, {}, getInputs[c.kind]);
    expect(got.id).toBe(made.id);
    const { previousName: _recordedByCreateOnly, ...current } = updated.properties;
    expect(got.properties).toMatchObject(current);
    expect(await host.diff(urn(), made.id, got.properties, changed)).toMatchObject({ changes: "none" });

    const fresh = await host.read(urn(), made.id, updated.properties);
    expect(fresh.id).toBe(made.id);
    expect(await host.diff(urn(), made.id, fresh.properties, changed)).toMatchObject({ changes: "none" });
    await c.drift(made.id);
    const drifted = await host.read(urn(), made.id, updated.properties);
    expect(await host.diff(urn(), made.id, drifted.properties, changed)).toMatchObject({ changes: "some" });

    await host.delete(urn(), made.id, drifted.properties);
    expect((await host.read(urn(), c.goneId ?? made.id, drifted.properties)).id).toBe("");
  });
});

it("never writes the token to the host's stderr", () => {
  expect(host.stderr()).not.toContain(em.current.token);
});

it("fails with a clear message when the program's directory cannot resolve pulumi-observability", async () => {
  const { mkdtempSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const bare = mkdtempSync(join(tmpdir(), "obs-bare-"));
  const lonely = await startProviderHost({ config: { "observability:token": "t" }, cwd: bare });
  try {
    const urn = urnOf("Monitor", "lonely");
    await expect(lonely.check(urn, {}, { name: "m", __provider: texts.Monitor })).rejects.toThrow(
      `The package pulumi-observability cannot be resolved from the program's directory ${bare}: run npm install pulumi-observability there`,
    );
  } finally {
    await lonely.close();
    rmSync(bare, { recursive: true, force: true });
  }
});

describe("credentials through the host", () => {
  it("without a token anywhere, a create fails naming observability:token and OBSERVABILITY_TOKEN", async () => {
    const bare = await startProviderHost({ config: { "observability:url": em.current.url } });
    try {
      await bare.configure();
      const urn = urnOf("Role", "no-token");
      const checked = await bare.check(urn, {}, { name: "no-token", __provider: texts.Role });
      expect(checked.failures).toEqual([]);
      const error = await bare.create(urn, checked.inputs).then(
        () => new Error("created without a token"),
        (e: Error) => e,
      );
      expect(error.message).toContain("observability Role create failed: observability: no API token");
      expect(error.message).toContain("pulumi config set --secret observability:token");
      expect(error.message).toContain("OBSERVABILITY_TOKEN");
    } finally {
      await bare.close();
    }
  });

  it("with a wrong token from the environment, errors are readable 403s and never show the token", async () => {
    const wrong = "xaat-wrong-token-0123456789abcdef";
    const denied = await startProviderHost({
      config: { "observability:url": em.current.url },
      env: { OBSERVABILITY_TOKEN: wrong },
    });
    try {
      await denied.configure();
      const urn = urnOf("Monitor", "denied");
      const props = { __provider: texts.Monitor, name: "m", aplQuery: "x", type: "MatchEvent" };
      const failures = await Promise.all([
        denied.create(urn, props).then(
          () => "",
          (e: Error) => e.message,
        ),
        denied.read(urn, "mon_1", props).then(
          () => "",
          (e: Error) => e.message,
        ),
        denied.delete(urn, "mon_1", props).then(
          () => "",
          (e: Error) => e.message,
        ),
      ]);
      for (const message of failures) {
        expect(message).toMatch(/failed with 403/);
        expect(message).not.toContain(wrong);
      }
      // The host logs read and delete errors to its stderr, which the engine shows; the log may trail the answer.
      const logged = await denied.stderrIncluding("failed with 403");
      expect(logged).not.toContain(wrong);
    } finally {
      await denied.close();
    }
  });
});
