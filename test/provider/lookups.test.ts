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

  it("a name that matches several fails naming the kind, the name and every id", async () => {
    const a = await client.roles.create({ name: "twin-a" });
    const m1 = await client.monitors.create({ name: "dup", aplQuery: "x", type: "MatchEvent" });
    const m2 = await client.monitors.create({ name: "dup", aplQuery: "x", type: "MatchEvent" });
    await program(configured());
    const err = await obs.getMonitor({ name: "dup" }).catch((e: Error) => e);
    expect(String(err)).toMatch(/Monitor/);
    expect(String(err)).toContain('"dup"');
    expect(String(err)).toContain(m1.id);
    expect(String(err)).toContain(m2.id);
    await expect(obs.getRole({ name: "twin-a" })).resolves.toMatchObject({ id: a.id });
  });

  it("a name that matches none fails saying so; an id that does not exist fails naming kind and id", async () => {
    await program(configured());
    await expect(obs.getNotifier({ name: "nobody" })).rejects.toThrow(/Notifier.*"nobody".*matched none/);
    await expect(obs.getRole({ id: "role_missing" })).rejects.toThrow(/no Role with id role_missing exists/);
  });

  it.each([
    ["neither", {}],
    ["both", { id: "x", name: "y" }],
    ["an empty id", { id: "" }],
  ])("%s of id and name is refused, naming both", async (_what, args) => {
    await program(configured());
    await expect(obs.getMonitor(args as obs.LookupArgs)).rejects.toThrow(/exactly one of `id` or `name`/);
  });

  it("one listing of a family serves every lookup by name in a program run", async () => {
    for (const n of ["l1", "l2", "l3"])
      await client.notifiers.create({ name: n, properties: { email: { emails: ["a@b.test"] } } });
    await program(configured());
    const before = listingsOf("/v2/notifiers");
    const found = await Promise.all(["l1", "l2", "l3", "l1"].map((name) => obs.getNotifier({ name })));
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
