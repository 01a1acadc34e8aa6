/**
 * The native provider's gRPC service, in process, against a real emulator: configuration through Configure
 * (args and variables, the token secret), CheckConfig and DiffConfig, every verb of a kind by its type token,
 * the detailed diff, secrets in every answer, an import's Read, the lookup functions, and two providers at two
 * organizations.
 */
import { startEmulator, type RunningEmulator } from "../../emulator";
import { ObservabilityClient } from "../../provider/client";
import { MISSING_TOKEN_MESSAGE } from "../../provider/config";
import { DECLARATIONS } from "../../provider/resources/kinds";
import { UNKNOWN } from "../../provider/resources/lifecycle";
import { useEmulator } from "../helpers/emulator";
import { isSecret, secret, startNative, type NativeClient } from "../helpers/native";

type Props = Record<string, unknown>;

const em = useEmulator();
let native: NativeClient;
let client: ObservabilityClient;

const MONITOR = {
  name: "errors",
  aplQuery: "['logs'] | count",
  type: "Threshold",
  operator: "Above",
  threshold: 5,
};
const savedEnv = { ...process.env };

beforeEach(async () => {
  // The environment is the fallback; these tests say where the configuration comes from themselves.
  for (const k of Object.keys(process.env)) if (k.startsWith("OBSERVABILITY_")) delete process.env[k];
  native = await startNative();
  client = new ObservabilityClient({ url: em.current.url, token: em.current.token });
});
afterEach(async () => {
  await native.close();
  await client.close();
  process.env = { ...savedEnv };
});

const configured = () => native.configure({ url: em.current.url, token: secret(em.current.token) });

describe("configuration reaches the plugin through Configure", () => {
  test("the provider's inputs (args), with the token secret, configure the client; Configure accepts secrets", async () => {
    const { acceptSecrets } = await configured();
    expect(acceptSecrets).toBe(true);
    const { id } = await native.create("Monitor", MONITOR);
    expect((await client.monitors.get(id)).name).toBe("errors");
  });

  test("the stack's config variables (observability:config:<key>) configure it when args are empty", async () => {
    await native.configure(
      {},
      { "observability:config:url": em.current.url, "observability:config:token": em.current.token },
    );
    const { id } = await native.create("Monitor", MONITOR);
    expect((await client.monitors.get(id)).id).toBe(id);
  });

  test("a value not known yet (a provider input computed at preview) configures nothing", async () => {
    process.env.OBSERVABILITY_URL = em.current.url;
    await native.configure({ url: UNKNOWN, token: secret(em.current.token) });
    const { id } = await native.create("Monitor", MONITOR);
    expect((await client.monitors.get(id)).id).toBe(id);
  });

  test("the environment variables stay the fallback", async () => {
    process.env.OBSERVABILITY_URL = em.current.url;
    process.env.OBSERVABILITY_TOKEN = em.current.token;
    await native.configure({});
    const { id } = await native.create("Monitor", MONITOR);
    expect((await client.monitors.get(id)).id).toBe(id);
  });

  test("without any token, check and diff still answer (a preview without credentials), and create says how to configure one", async () => {
    await native.configure({});
    const checked = await native.check("Monitor", {}, { ...MONITOR, threshold: UNKNOWN });
    expect(checked.failures).toEqual([]);
    const diff = await native.diff("Monitor", "mon_x", MONITOR, { ...MONITOR, threshold: UNKNOWN });
    expect(diff.changes).toBe("some");
    await expect(native.create("Monitor", MONITOR)).rejects.toThrow(MISSING_TOKEN_MESSAGE.slice(0, 40));
  });

  test("CheckConfig names the key at fault and returns the token marked secret", async () => {
    const bad = await native.checkConfig({ region: "mars", url: "not a url", token: "xaat-abc" });
    expect(bad.failures).toEqual([
      { property: "region", reason: 'must be "us" or "eu", got "mars"' },
      { property: "url", reason: "must be a URL" },
    ]);
    expect(isSecret(bad.inputs.token)).toBe(true);
    const good = await native.checkConfig({ region: "eu", token: secret("xaat-abc") });
    expect(good.failures).toEqual([]);
  });

  test("DiffConfig reports the keys that changed", async () => {
    const same = await native.diffConfig(
      { url: "http://a", token: secret("t") },
      { url: "http://a", token: secret("t") },
    );
    expect(same.changes).toBe("none");
    const changed = await native.diffConfig(
      { url: "http://a", orgId: "o1" },
      { url: "http://a", orgId: "o2" },
    );
    expect(changed).toMatchObject({ changes: "some", diffs: ["orgId"] });
  });

  test("an error never shows the token", async () => {
    const token = "xaat-wrong-token-0123456789";
    await native.configure({ url: em.current.url, token: secret(token) });
    const error = await native.create("Monitor", MONITOR).then(
      () => undefined,
      (e: Error) => e.message,
    );
    expect(error).toMatch(/403: invalid token/);
    expect(error).not.toContain(token);
  });
});

describe("every verb of a kind by its type token", () => {
  test("check names the property path of a validation failure, and returns what was declared, no default", async () => {
    await configured();
    const bad = await native.check(
      "Notifier",
      {},
      { name: "n", properties: { slack: { slackUrl: "ftp://x" } } },
    );
    expect(bad.failures).toEqual([
      { property: "properties.slack.slackUrl", reason: "must be an http(s) URL" },
    ]);
    const good = await native.check("Monitor", {}, MONITOR);
    expect(good.failures).toEqual([]);
    expect(good.inputs).toEqual(MONITOR);
  });

  test("check holds a dashboard's charts to their kinds, as the SDKs' chart types say, naming the field", async () => {
    await configured();
    const dashboard = (charts: unknown[]) => ({
      dashboard: {
        name: "d",
        charts,
        layout: charts.map((c) => ({ i: (c as { id: string }).id, x: 0, y: 0, w: 12, h: 2 })),
        refreshTime: 60,
        schemaVersion: 2,
        timeWindowStart: "qr-now-1h",
        timeWindowEnd: "qr-now",
      },
    });
    const note = { id: "n", type: "Note", text: "hello" };
    const good = await native.check("Dashboard", {}, dashboard([note]));
    expect(good.failures).toEqual([]);
    // A Note has no query, a time series needs one: what NoteChart and TimeSeriesChart declare in the schema.
    const bad = await native.check(
      "Dashboard",
      {},
      dashboard([note, { id: "t", type: "TimeSeries", query: { apl: "" } }, { id: "x", type: "Bar" }]),
    );
    expect(bad.failures.map((f) => f.property)).toEqual(
      expect.arrayContaining(["dashboard.charts[1].query.apl", "dashboard.charts[2].type"]),
    );
  });

  test("create, read, update, delete; diff with a detailed diff, replacements and delete-before-replace", async () => {
    await configured();
    const created = await native.create("Monitor", MONITOR);
    expect(created.id).toMatch(/^mon_/);
    expect(created.properties).toMatchObject({ name: "errors", threshold: 5 });

    const edit = await native.diff("Monitor", created.id, created.properties, { ...MONITOR, threshold: 6 });
    expect(edit).toMatchObject({
      changes: "some",
      diffs: ["threshold"],
      replaces: [],
      deleteBeforeReplace: false,
    });
    expect(edit.detailedDiff).toEqual({ threshold: { kind: "update", inputDiff: true } });
    const none = await native.diff("Monitor", created.id, created.properties, MONITOR);
    expect(none).toMatchObject({ changes: "none", diffs: [], detailedDiff: {} });

    const updated = await native.update("Monitor", created.id, created.properties, {
      ...MONITOR,
      threshold: 6,
    });
    expect(updated.properties.threshold).toBe(6);
    expect((await client.monitors.get(created.id)).threshold).toBe(6);

    const read = await native.read("Monitor", created.id, updated.properties, MONITOR);
    expect(read.id).toBe(created.id);
    expect(read.inputs).toMatchObject({ ...MONITOR, threshold: 6 });

    await native.delete("Monitor", created.id, updated.properties);
    const gone = await native.read("Monitor", created.id, updated.properties, MONITOR);
    expect(gone.id).toBe("");
  });

  test("a unique name's change replaces, deleting first, as the dynamic resources decide (Dataset)", async () => {
    await configured();
    const olds = { name: "logs-a", kind: "axiom:events:v1" };
    const diff = await native.diff("Dataset", "logs-a", olds, { ...olds, name: "logs-b" });
    expect(diff).toMatchObject({ changes: "some", replaces: ["name"], deleteBeforeReplace: true });
    expect(diff.detailedDiff.name).toEqual({ kind: "update_replace", inputDiff: true });
  });

  // The kinds whose identity the service holds unique (a clash is a 409: emulator/routes, the API's document):
  // a dataset's, view's, group's and role's name, a user's email, a declared dashboard uid.
  test.each([
    ["Dataset", { name: "logs-a", kind: "axiom:events:v1" }, { name: "logs-b" }, "name"],
    ["View", { name: "v-a", aplQuery: "['logs']" }, { name: "v-b" }, "name"],
    ["User", { name: "Ann", email: "ann@example.com", role: "user" }, { email: "ann2@example.com" }, "email"],
    ["Dashboard", { uid: "uid-a", dashboard: { name: "d" } }, { uid: "uid-b" }, "uid"],
    ["Group", { name: "g" }, { adopt: "grp_other" }, "adopt"],
    ["Role", { name: "r" }, { adopt: "role_other" }, "adopt"],
  ] as const)(
    "a replacement the diff decides deletes first where the identity is unique: %s (%s)",
    async (kind, olds, change, key) => {
      await configured();
      const diff = await native.diff(kind, "id-1", olds, { ...olds, ...change });
      expect(diff).toMatchObject({ changes: "some", replaces: [key], deleteBeforeReplace: true });
    },
  );

  test("exactly those kinds declare delete-before-replace (docs/native-provider.md lists them)", () => {
    const kinds = [...DECLARATIONS.values()].filter((d) => d.rules.deleteBeforeReplace).map((d) => d.kind);
    expect(kinds.sort()).toEqual(["Dashboard", "Dataset", "Group", "Role", "User", "View"]);
  });

  test("a type this provider does not serve is refused, naming it", async () => {
    await configured();
    await expect(native.check("Nope", {}, {})).rejects.toThrow(
      /serves no resource of type observability:index:Nope/,
    );
  });
});

describe("secrets stay secret in every answer", () => {
  const SLACK = {
    name: "oncall",
    properties: { slack: { slackUrl: "https://hooks.example.com/T0/B0/secret" } },
  };

  test("a notifier's channel is secret in create, read (refresh) and import, inputs and outputs", async () => {
    await configured();
    const checked = await native.check("Notifier", {}, { ...SLACK, properties: secret(SLACK.properties) });
    expect(isSecret(checked.inputs.properties)).toBe(true);
    // Even when the program passed it in plaintext: the schema declares it secret and the answer says so.
    const created = await native.create("Notifier", SLACK);
    expect(isSecret(created.properties.properties)).toBe(true);
    const refreshed = await native.read("Notifier", created.id, created.properties, SLACK);
    expect(isSecret(refreshed.properties.properties)).toBe(true);
    expect(isSecret(refreshed.inputs.properties)).toBe(true);
    const imported = await native.read("Notifier", created.id);
    expect(isSecret(imported.properties.properties)).toBe(true);
    expect(isSecret(imported.inputs.properties)).toBe(true);
    expect(JSON.stringify(imported.inputs.properties)).toContain("hooks.example.com");
  });

  test("an API token's value is a secret output", async () => {
    await configured();
    const created = await native.create("ApiToken", { name: "ci" });
    expect(isSecret(created.properties.token)).toBe(true);
    expect(String((created.properties.token as { value: string }).value)).toMatch(/^xaat-/);
  });
});

describe("import: a Read with nothing but the id", () => {
  test("fills the inputs, so the program's declaration then diffs as no change", async () => {
    await configured();
    const made = await client.monitors.create({ ...MONITOR, type: "Threshold", operator: "Above" } as never);
    const imported = await native.read("Monitor", made.id);
    expect(imported.id).toBe(made.id);
    expect(imported.inputs).toMatchObject(MONITOR);
    const checked = await native.check("Monitor", imported.inputs, MONITOR);
    const diff = await native.diff("Monitor", made.id, imported.properties, checked.inputs);
    expect(diff.changes).toBe("none");
  });

  test("of an id that does not exist fails, naming the kind and the id", async () => {
    await configured();
    await expect(native.read("Monitor", "mon_missing")).rejects.toThrow(
      "observability Monitor get failed: no object with id mon_missing exists",
    );
  });
});

describe("lookups are functions", () => {
  test("getMonitor by id and by name, getMonitors; bad arguments are failures naming the argument", async () => {
    await configured();
    const made = await client.monitors.create({ ...MONITOR, name: "lookup-me" } as never);
    const byId = await native.invoke("observability:index:getMonitor", { id: made.id });
    expect(byId.result).toMatchObject({ id: made.id, name: "lookup-me", threshold: 5 });
    const byName = await native.invoke("observability:index:getMonitor", { name: "lookup-me" });
    expect(byName.result?.id).toBe(made.id);
    const all = await native.invoke("observability:index:getMonitors", {});
    expect((all.result?.items as Props[]).map((m) => m.id)).toContain(made.id);
    const bad = await native.invoke("observability:index:getMonitor", { id: 5 });
    expect(bad.failures).toEqual([{ property: "id", reason: "must be a string" }]);
    const unknownArg = await native.invoke("observability:index:getMonitors", { colour: "red" });
    expect(unknownArg.failures).toEqual([{ property: "colour", reason: "is not a known field" }]);
  });

  test("getNotifier's channel comes back secret", async () => {
    await configured();
    const made = await client.notifiers.create({
      name: "hook",
      properties: { webhook: { url: "https://example.com/hook-secret" } },
    });
    const found = await native.invoke("observability:index:getNotifier", { id: made.id });
    expect(isSecret(found.result?.properties)).toBe(true);
    const all = await native.invoke("observability:index:getNotifiers", {});
    const item = (all.result?.items as Props[]).find((n) => n.id === made.id)!;
    expect(isSecret(item.properties)).toBe(true);
  });

  test("an unknown function is refused, listing the ones served", async () => {
    await configured();
    await expect(native.invoke("observability:index:getNothing", {})).rejects.toThrow(
      /getMonitor, getMonitors/,
    );
  });
});

describe("two providers, two organizations", () => {
  let other: RunningEmulator;
  beforeAll(async () => {
    other = await startEmulator({
      port: 0,
      host: "127.0.0.1",
      token: "xaat-second-org-token",
      orgId: "second-org",
    });
  });
  afterAll(async () => other.close());

  test("each provider creates in its own organization, with its own token", async () => {
    const second = await startNative();
    try {
      await configured();
      await second.configure({ url: other.url, token: secret(other.token), orgId: "second-org" });
      const a = await native.create("Monitor", { ...MONITOR, name: "first" });
      const b = await second.create("Monitor", { ...MONITOR, name: "second" });
      const otherClient = new ObservabilityClient({ url: other.url, token: other.token });
      try {
        expect((await client.monitors.list()).map((m) => m.id)).toContain(a.id);
        expect((await client.monitors.list()).map((m) => m.id)).not.toContain(b.id);
        expect((await otherClient.monitors.list()).map((m) => m.id)).toEqual([b.id]);
      } finally {
        await otherClient.close();
      }
    } finally {
      await second.close();
    }
  });
});
