/**
 * The lifecycle of every kind under every fault the emulator injects (429, 500, 500 after processing, 502, 503,
 * dropped connections, latency). Idempotent calls are retried by the client; a create whose outcome is unknown
 * is reported, never resent, and reconciled the way its error tells a user to: find the object, then `adopt` it.
 * In the end nothing was created twice and nothing is left behind.
 */
import { ObservabilityClient } from "../../provider/client";
import type { Lifecycle } from "../../provider/resources/lifecycle";
import type { ResourceKind } from "../../provider/resources/shim";
import { checked, useProvider, type Props } from "./support";

const p = useProvider({
  faults: "429=0.04,500=0.04,500after=0.04,502=0.04,503=0.04,drop=0.03,latency=0.1:20,seed=5",
});

interface Case {
  kind: ResourceKind;
  args(round: number): Props;
  change: Props;
  /** Finds the object a create with these args may have made, by its unique name. */
  find?(client: ObservabilityClient, args: Props): Promise<string | undefined>;
}

const byName = (list: { id?: unknown; name?: unknown }[], name: unknown) =>
  list.find((x) => x.name === name)?.id as string | undefined;

const cases: Case[] = [
  {
    kind: "Monitor",
    args: (r) => ({ name: `m${r}`, aplQuery: "x", type: "MatchEvent" }),
    change: { description: "d" },
    find: async (c, a) => byName(await c.monitors.list(), a.name),
  },
  {
    kind: "Notifier",
    args: (r) => ({ name: `n${r}`, properties: { webhook: { url: "https://w.test/k" } } }),
    change: { properties: { webhook: { url: "https://w.test/k2" } } },
    find: async (c, a) => byName(await c.notifiers.list(), a.name),
  },
  {
    kind: "Annotation",
    args: (r) => ({ datasets: ["logs"], type: "deploy", title: `a${r}` }),
    change: { description: "d" },
    find: async (c, a) =>
      (await c.annotations.list({ datasets: ["logs"] })).find((x) => x.title === a.title)?.id,
  },
  {
    kind: "Role",
    args: (r) => ({ name: `role${r}` }),
    change: { members: ["u1"] },
    find: async (c, a) => byName(await c.roles.list(), a.name),
  },
  {
    kind: "StarredQuery",
    args: (r) => ({ kind: "apl", name: `q${r}`, who: "team", query: { apl: "x" }, metadata: {} }),
    change: { metadata: { a: "b" } },
    find: async (c, a) => byName(await c.starredQueries.list({ who: "all" }), a.name),
  },
  {
    kind: "OrganizationName",
    args: (r) => ({ organizationId: p.em.current.orgId, name: `Faulty ${r}` }),
    change: { name: "Faulty again" },
  },
];

let uncertainCreates = 0;

/** check → create; when the create may have happened, find the object and adopt it, as the error advises. */
async function createReconciling(impl: Lifecycle, c: Case, args: Props) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await impl.create(await checked(impl, args));
    } catch (e) {
      const message = (e as Error).message;
      if (!message.includes("may have been created") || attempt >= 5 || !c.find) throw e;
      uncertainCreates++;
      const existing = await c.find(p.client(), args);
      if (existing) args = { ...args, adopt: existing };
    }
  }
}

describe("lifecycle under injected faults of every kind", () => {
  it("creates, reads, updates and deletes every kind; nothing is made twice or left behind", async () => {
    for (let round = 0; round < 4; round++) {
      for (const c of cases) {
        const impl = p.impl(c.kind);
        const args = c.args(round);
        const { id, outs } = await createReconciling(impl, c, args);
        const read = await impl.read(id, outs as Props);
        expect(read.id).toBe(id);
        const news = await checked(impl, { ...args, ...c.change });
        const updated = await impl.update(id, outs as Props, news);
        expect(await impl.diff(id, updated.outs!, news)).toMatchObject({ changes: false });
        await impl.delete(id, updated.outs!);
        expect(await impl.read(id, updated.outs!)).toMatchObject(
          c.kind === "OrganizationName" ? { id } : { id: "" },
        );
      }
    }
    const faults = p.em.current.stats.faults;
    console.log(
      `faults injected: ${JSON.stringify(faults)} over ${p.em.current.stats.requests} requests; ` +
        `${uncertainCreates} creates of unknown outcome reconciled`,
    );
    for (const kind of ["429", "500", "500after", "502", "503", "drop", "latency"]) {
      expect(faults[kind] ?? 0).toBeGreaterThan(0);
    }

    const client = p.client();
    expect(await client.monitors.list()).toEqual([]);
    expect(await client.notifiers.list()).toEqual([]);
    expect(await client.annotations.list({ datasets: ["logs"] })).toEqual([]);
    expect(await client.roles.list()).toEqual([]);
    expect(await client.starredQueries.list({ who: "all" })).toEqual([]);
  }, 60_000);
});
