/** The lifecycle succeeds while the emulator injects 429s, 5xx and dropped connections: the client retries. */
import { checked, created, useProvider } from "./support";

// No 503 here: the client currently waits for X-RateLimit-Reset (up to a minute) after a 503, which the
// emulator sends on every response; 429 (Retry-After: 1), 500 and dropped connections keep the file fast.
const p = useProvider({ faults: "429=0.05,500=0.05,drop=0.03,seed=7" });

describe("lifecycle under injected faults", () => {
  it("creates, reads, updates and deletes every kind, and the faults really happened", async () => {
    const cases: [Parameters<typeof p.impl>[0], Record<string, unknown>, Record<string, unknown>][] = [
      ["Monitor", { name: "m", aplQuery: "x", type: "MatchEvent" }, { description: "d" }],
      ["Notifier", { name: "n", properties: { webhook: { url: "https://w.test/k" } } }, { name: "n2" }],
      ["Annotation", { datasets: ["logs"], type: "deploy" }, { title: "t" }],
      ["Role", { name: "fault-role" }, { members: ["u1"] }],
      [
        "StarredQuery",
        { kind: "apl", name: "q", who: "team", query: { apl: "x" }, metadata: {} },
        { name: "q2" },
      ],
      ["OrganizationName", { organizationId: p.em.current.orgId, name: "Faulty" }, { name: "Faulty 2" }],
    ];
    for (let round = 0; round < 3; round++) {
      for (const [kind, args, change] of cases) {
        const impl = p.impl(kind);
        const { id, outs } = await created(impl, args);
        const read = await impl.read(id, outs);
        expect(read.id).toBe(id);
        const news = await checked(impl, { ...args, ...change });
        const updated = await impl.update(id, outs, news);
        expect(await impl.diff(id, updated.outs!, news)).toMatchObject({ changes: false });
        await impl.delete(id, updated.outs!);
      }
    }
    const faults = Object.values(p.em.current.stats.faults).reduce((a, b) => a + b, 0);
    console.log(
      `faults injected: ${JSON.stringify(p.em.current.stats.faults)} over ${p.em.current.stats.requests} requests`,
    );
    expect(faults).toBeGreaterThan(0);
  });
});
