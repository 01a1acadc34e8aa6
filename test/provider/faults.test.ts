/**
 * The lifecycle of every kind under every fault the emulator injects (429, 500, 500 after processing, 502, 503,
 * dropped connections, latency). Idempotent calls are retried by the client; a create whose outcome is unknown
 * is reconciled by the provider itself (provider/resources/reconcile.ts). In the end nothing was created twice
 * and nothing is left behind.
 */
import type { ResourceKind } from "../../provider/resources/registry";
import { checked, useProvider, type Props } from "./support";

const p = useProvider({
  faults: "429=0.04,500=0.04,500after=0.04,502=0.04,503=0.04,drop=0.03,latency=0.1:20,seed=5",
});

interface Case {
  kind: ResourceKind;
  args(round: number): Props;
  change: Props;
}

const cases: Case[] = [
  {
    kind: "Monitor",
    args: (r) => ({ name: `m${r}`, aplQuery: "x", type: "MatchEvent" }),
    change: { description: "d" },
  },
  {
    kind: "Notifier",
    args: (r) => ({ name: `n${r}`, properties: { webhook: { url: "https://w.test/k" } } }),
    change: { properties: { webhook: { url: "https://w.test/k2" } } },
  },
  {
    kind: "Annotation",
    args: (r) => ({ datasets: ["logs"], type: "deploy", title: `a${r}` }),
    change: { description: "d" },
  },
  {
    kind: "Role",
    args: (r) => ({ name: `role${r}` }),
    change: { members: ["u1"] },
  },
  {
    kind: "StarredQuery",
    args: (r) => ({ kind: "apl", name: `q${r}`, who: "team", query: { apl: "x" }, metadata: {} }),
    change: { metadata: { a: "b" } },
  },
  {
    kind: "OrganizationName",
    args: (r) => ({ organizationId: p.em.current.orgId, name: `Faulty ${r}` }),
    change: { name: "Faulty again" },
  },
];

describe("lifecycle under injected faults of every kind", () => {
  it("creates, reads, updates and deletes every kind; nothing is made twice or left behind", async () => {
    for (let round = 0; round < 4; round++) {
      for (const c of cases) {
        const impl = p.impl(c.kind);
        const args = c.args(round);
        const { id, outs } = await impl.create(await checked(impl, args));
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
    console.log(`faults injected: ${JSON.stringify(faults)} over ${p.em.current.stats.requests} requests`);
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
