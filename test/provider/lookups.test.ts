/**
 * Lookups (getX, getXOutput, getXs) as a program runs them: under Pulumi's mocks, with the stack config the
 * engine would set, against a real emulator. What they return is compared with what the service holds.
 */
import * as pulumi from "@pulumi/pulumi";
import * as obs from "../../provider";
import { ObservabilityClient } from "../../provider/client";
import { resetLookups } from "../../provider/lookups";
import { useEmulator } from "../helpers/emulator";

const em = useEmulator({ record: true });
let client: ObservabilityClient;

/** Installs mocks as `pulumi preview` (`dryRun`) or `pulumi up` would run the program, with `config` set. */
async function program(config: Record<string, string>, dryRun = false, reset = true): Promise<void> {
  if (reset) await resetLookups();
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => ({ id: `${args.name}-id`, state: args.inputs }),
      call: () => ({}),
    },
    "lookups-test",
    "dev",
    dryRun,
  );
  // Each test's stack config replaces the last one's; a key it does not set is unset.
  for (const key of [
    "observability:url",
    "observability:token",
    "observability:orgId",
    "observability:region",
  ])
    pulumi.runtime.setConfig(key, config[key] as string);
}

/**
 * Runs `body` as one run of a program: inside the root stack resource that the Node SDK makes for every run
 * (pulumi/pulumi sdk/nodejs/runtime/stack.ts, `runInPulumiStack`), as `pulumi preview` (`dryRun`) or `pulumi up`.
 * The process stays the same from run to run, as an Automation API process's does.
 */
async function run<T>(config: Record<string, string>, dryRun: boolean, body: () => Promise<T>): Promise<T> {
  await program(config, dryRun, false);
  let result: T | undefined;
  await pulumi.runtime.runInPulumiStack(async () => {
    result = await body();
    return {};
  });
  return result as T;
}

const configured = () => ({ "observability:url": em.current.url, "observability:token": em.current.token });
/** The value, secretness and knownness of an Output, read as the engine would. */
async function settle<T>(out: pulumi.Output<T>): Promise<{ value: T; secret: boolean; known: boolean }> {
  const o = out as unknown as {
    promise(): Promise<T>;
    isSecret: Promise<boolean>;
    isKnown: Promise<boolean>;
  };
  return { value: await o.promise(), secret: await o.isSecret, known: await o.isKnown };
}
const listingsOf = (path: string) =>
  em.current.received.filter((r) => r.method === "GET" && r.path === path).length;

beforeAll(() => {
  client = new ObservabilityClient({ url: em.current.url, token: em.current.token });
});
afterAll(async () => {
  await client.close();
  await resetLookups();
});
afterEach(() => {
  delete process.env.OBSERVABILITY_TOKEN;
  delete process.env.OBSERVABILITY_URL;
});

describe("by id and by name", () => {
  it("getMonitor finds a monitor by id and by name, as the service holds it", async () => {
    const made = await client.monitors.create({
      name: "lookup-by",
      aplQuery: "['logs']",
      type: "MatchEvent",
    });
    await program(configured());
    await expect(obs.getMonitor({ id: made.id })).resolves.toEqual(await client.monitors.get(made.id));
    await expect(obs.getMonitor({ name: "lookup-by" })).resolves.toMatchObject({ id: made.id });
  });

  it("a name that matches several fails naming the kind once, the name and every id", async () => {
    const a = await client.roles.create({ name: "twin-a" });
    const m1 = await client.monitors.create({ name: "dup", aplQuery: "x", type: "MatchEvent" });
    const m2 = await client.monitors.create({ name: "dup", aplQuery: "x", type: "MatchEvent" });
    await program(configured());
    const err = await obs.getMonitor({ name: "dup" }).catch((e: Error) => e);
    expect(String(err)).toContain(
      `observability: looking up the Monitor named "dup" failed: 2 have that name (${m1.id}, ${m2.id}); ` +
        "look it up by id instead",
    );
    expect(String(err).match(/Monitor/g)).toHaveLength(1);
    await expect(obs.getRole({ name: "twin-a" })).resolves.toMatchObject({ id: a.id });
  });

  it("a name that matches none fails saying so; an id that does not exist fails naming kind and id, the kind once", async () => {
    await program(configured());
    const none = await obs.getNotifier({ name: "nobody" }).catch((e: Error) => e);
    expect(String(none)).toContain('looking up the Notifier named "nobody" failed: nothing has that name');
    expect(String(none).match(/Notifier/g)).toHaveLength(1);
    const missing = await obs.getRole({ id: "role_missing" }).catch((e: Error) => e);
    expect(String(missing)).toContain("looking up the Role with id role_missing failed: it does not exist");
    expect(String(missing).match(/Role/g)).toHaveLength(1);
  });

  it("a virtual field by name without its dataset, and a listing without one, fail naming the kind once", async () => {
    await program(configured());
    const byName = await obs
      .getVirtualField({ name: "v" } as obs.VirtualFieldLookupArgs)
      .catch((e: Error) => e);
    expect(String(byName)).toContain(
      'looking up the VirtualField named "v" failed: a lookup by `name` needs the `dataset` it belongs to',
    );
    expect(String(byName).match(/VirtualField/g)).toHaveLength(1);
    const listing = await obs.getVirtualFields().catch((e: Error) => e);
    expect(String(listing)).toContain("listing every VirtualField failed: a `dataset` is required");
    expect(String(listing).match(/VirtualField/g)).toHaveLength(1);
  });

  it.each([
    ["neither", {}],
    ["both", { id: "x", name: "y" }],
    ["an empty id", { id: "" }],
  ])("%s of id and name is refused, naming both", async (_what, args) => {
    await program(configured());
    await expect(obs.getMonitor(args as obs.LookupArgs)).rejects.toThrow(/exactly one of `id` or `name`/);
  });

  it("one listing of a family serves every lookup by name in a program run, at once or one after another", async () => {
    for (const n of ["l1", "l2", "l3"])
      await client.notifiers.create({ name: n, properties: { email: { emails: ["a@b.test"] } } });
    const before = listingsOf("/v2/notifiers");
    const found = await run(configured(), false, async () => {
      const together = await Promise.all(["l1", "l2", "l3"].map((name) => obs.getNotifier({ name })));
      const after = await obs.getNotifier({ name: "l1" });
      return [...together, after];
    });
    expect(found.map((n) => n.name)).toEqual(["l1", "l2", "l3", "l1"]);
    expect(listingsOf("/v2/notifiers") - before).toBe(1);
  });

  it("every kind's lookup reads its family: organization, annotation (by title), starred query", async () => {
    await program(configured());
    const org = await obs.getOrganization({ id: em.current.orgId });
    expect(org.id).toBe(em.current.orgId);
    await expect(obs.getOrganization({ name: String(org.name) })).resolves.toMatchObject({ id: org.id });
    const ann = await client.annotations.create({ datasets: ["lk"], type: "deploy", title: "Deploy 42" });
    await expect(obs.getAnnotation({ name: "Deploy 42" })).resolves.toMatchObject({ id: ann.id });
    const sq = await client.starredQueries.create({
      kind: "apl",
      name: "saved-lookup",
      who: "team",
      query: { apl: "['logs']" },
      metadata: {},
    });
    await expect(obs.getStarredQuery({ name: "saved-lookup" })).resolves.toMatchObject({ id: sq.id });
  });
});

describe("freshness: a listing lives no longer than one program run", () => {
  it("a preview, then a change made elsewhere, then an update in the same process: the update sees the change", async () => {
    const made = await client.monitors.create({
      name: "fresh-by-name",
      aplQuery: "['v1']",
      type: "MatchEvent",
    });
    const before = listingsOf("/v2/monitors");
    const lookup = () => obs.getMonitor({ name: "fresh-by-name" });
    const previewed = await run(configured(), true, lookup);
    expect(previewed.aplQuery).toBe("['v1']");
    await client.monitors.update(made.id, { name: "fresh-by-name", aplQuery: "['v2']", type: "MatchEvent" });
    const updated = await run(configured(), false, lookup);
    expect(updated.aplQuery).toBe("['v2']");
    // And a third run after another change: each run lists once, whatever the runs before it listed.
    await client.monitors.update(made.id, { name: "fresh-by-name", aplQuery: "['v3']", type: "MatchEvent" });
    const third = await run(configured(), false, async () => [await lookup(), await lookup()]);
    expect(third.map((m) => m.aplQuery)).toEqual(["['v3']", "['v3']"]);
    expect(listingsOf("/v2/monitors") - before).toBe(3);
  });

  it("the Output form follows the same rule: a renamed object is found by its new name in the next run", async () => {
    const made = await client.roles.create({ name: "before-rename" });
    const first = await run(configured(), true, () =>
      settle(obs.getRoleOutput({ name: "before-rename" })).then((r) => r.value.id),
    );
    expect(first).toBe(made.id);
    await client.roles.update(made.id, { name: "after-rename" });
    const second = await run(configured(), false, async () => {
      const gone = await obs.getRole({ name: "before-rename" }).catch((e: Error) => e);
      return {
        gone: String(gone),
        found: (await settle(obs.getRoleOutput({ name: "after-rename" }))).value.id,
      };
    });
    expect(second.gone).toContain("nothing has that name");
    expect(second.found).toBe(made.id);
  });

  it("outside a program run (a script, a test under mocks), a listing serves only the lookups that arrive while it is in flight", async () => {
    await client.groups.create({ name: "no-run-group" });
    await program(configured());
    const before = listingsOf("/v2/rbac/groups");
    await Promise.all([obs.getGroup({ name: "no-run-group" }), obs.getGroup({ name: "no-run-group" })]);
    expect(listingsOf("/v2/rbac/groups") - before).toBe(1);
    await obs.getGroup({ name: "no-run-group" });
    expect(listingsOf("/v2/rbac/groups") - before).toBe(2);
  });
});

describe("plural lookups take the filters the service offers", () => {
  it("getAnnotations filters by dataset; getMonitors lists every monitor", async () => {
    await client.annotations.create({ datasets: ["only-here"], type: "deploy", title: "here" });
    await client.annotations.create({ datasets: ["elsewhere"], type: "deploy", title: "there" });
    await program(configured());
    const here = await obs.getAnnotations({ datasets: ["only-here"] });
    expect(here.map((a) => a.title)).toEqual(["here"]);
    const monitors = await obs.getMonitors();
    expect(monitors.map((m) => m.id).sort()).toEqual((await client.monitors.list()).map((m) => m.id).sort());
  });
});

describe("credentials: the promise forms leave a notifier's credentials out, the Output form keeps them secret", () => {
  /** One notifier per channel, each credential a string that shows wherever it lands. */
  const CHANNELS = {
    customWebhook: {
      url: "https://hooks.test/CRED-custom-url",
      body: "{}",
      headers: { "X-Key": "CRED-custom-header" },
      secretHeaders: { Authorization: "Bearer CRED-custom-secret-header" },
    },
    discord: { discordChannel: "alerts-channel", discordToken: "CRED-discord-token" },
    discordWebhook: { discordWebhookUrl: "https://discord.test/CRED-discord-webhook" },
    email: { emails: ["oncall@example.com"] },
    microsoftTeams: { microsoftTeamsUrl: "https://teams.test/CRED-teams" },
    opsgenie: { apiKey: "CRED-opsgenie-key", isEU: true },
    pagerduty: { routingKey: "CRED-pagerduty-routing", token: "CRED-pagerduty-token" },
    slack: { slackUrl: "https://hooks.slack.test/CRED-slack" },
    webhook: { url: "https://hooks.test/CRED-webhook" },
  };
  /** What each channel keeps in the promise forms: its fields that are not credentials. */
  const KEPT = {
    customWebhook: { body: "{}" },
    discord: { discordChannel: "alerts-channel" },
    discordWebhook: {},
    email: { emails: ["oncall@example.com"] },
    microsoftTeams: {},
    opsgenie: { isEU: true },
    pagerduty: {},
    slack: {},
    webhook: {},
  };
  const ids = new Map<string, string>();

  beforeAll(async () => {
    for (const [channel, config] of Object.entries(CHANNELS)) {
      const made = await client.notifiers.create({
        name: `cred-${channel}`,
        properties: { [channel]: config },
      });
      ids.set(channel, made.id);
    }
  });

  it.each(Object.keys(CHANNELS))(
    "getNotifier of a %s notifier, by id and by name, holds no credential and keeps the rest",
    async (channel) => {
      await program(configured());
      for (const found of [
        await obs.getNotifier({ id: ids.get(channel)! }),
        await obs.getNotifier({ name: `cred-${channel}` }),
      ]) {
        expect(JSON.stringify(found)).not.toContain("CRED-");
        expect(found).toMatchObject({ id: ids.get(channel), name: `cred-${channel}` });
        expect(found.properties?.[channel]).toEqual(KEPT[channel as keyof typeof KEPT]);
      }
    },
  );

  it("getNotifiers lists every notifier, none with a credential", async () => {
    await program(configured());
    const all = await obs.getNotifiers();
    expect(all.filter((n) => String(n.name).startsWith("cred-"))).toHaveLength(Object.keys(CHANNELS).length);
    expect(JSON.stringify(all)).not.toContain("CRED-");
  });

  it("getNotifierOutput holds the credentials, as a secret", async () => {
    await program(configured());
    const out = await settle(obs.getNotifierOutput({ name: "cred-pagerduty" }));
    expect(out.secret).toBe(true);
    expect(out.value.properties?.pagerduty).toEqual(CHANNELS.pagerduty);
  });
});

describe("Output forms", () => {
  it("take Inputs; a notifier, which holds credentials, comes back secret; a monitor does not", async () => {
    const n = await client.notifiers.create({
      name: "secret-hook",
      properties: { slack: { slackUrl: "https://hooks.slack.test/T0/B0/SECRET-PART" } },
    });
    await program(configured());
    const notifier = await settle(obs.getNotifierOutput({ name: pulumi.output("secret-hook") }));
    expect(notifier).toMatchObject({ secret: true, known: true, value: { id: n.id } });
    const org = await settle(obs.getOrganizationOutput({ id: em.current.orgId }));
    expect(org.secret).toBe(false);
  });

  it("a lookup error never carries the token", async () => {
    await program({ "observability:url": em.current.url, "observability:token": "xaat-not-the-right-token" });
    const err = await obs.getMonitors().catch((e: Error) => e);
    expect(String(err)).toMatch(/403/);
    expect(String(err)).not.toContain("xaat-not-the-right-token");
  });
});

describe("configuration, as the resources have it", () => {
  it("each lookup uses the configuration in force: a later program in the same process never gets an earlier one's service or listings", async () => {
    await client.roles.create({ name: "seen-by-first" });
    await program(configured());
    await expect(obs.getRole({ name: "seen-by-first" })).resolves.toMatchObject({ name: "seen-by-first" });
    // Another stack in the same process (Automation API inline programs), whose token the service refuses.
    await program(
      { "observability:url": em.current.url, "observability:token": "xaat-another-stack" },
      false,
      false,
    );
    await expect(obs.getRole({ name: "seen-by-first" })).rejects.toThrow(/403/);
    await program(configured(), false, false);
    await expect(obs.getRole({ name: "seen-by-first" })).resolves.toMatchObject({ name: "seen-by-first" });
  });

  it("falls back to the OBSERVABILITY_* environment variables", async () => {
    process.env.OBSERVABILITY_URL = em.current.url;
    process.env.OBSERVABILITY_TOKEN = em.current.token;
    await program({});
    await expect(obs.getOrganization({ id: em.current.orgId })).resolves.toMatchObject({
      id: em.current.orgId,
    });
  });

  it("a preview without credentials (a fork's pull request) completes: the Output form is unknown", async () => {
    await program({ "observability:url": em.current.url }, true);
    const out = await settle(obs.getMonitorOutput({ name: "anything" }));
    expect(out.known).toBe(false);
  });

  it("without credentials the promise form fails naming both places to set the token", async () => {
    await program({ "observability:url": em.current.url }, true);
    const err = await obs.getMonitor({ name: "anything" }).catch((e: Error) => e);
    expect(String(err)).toContain("pulumi config set --secret observability:token");
    expect(String(err)).toContain("OBSERVABILITY_TOKEN");
  });
});
