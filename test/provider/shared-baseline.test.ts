/**
 * Creates share their baseline (reconcile.ts): the creates of a burst list their family once, not once each,
 * and an uncertain create stays exact. A shared listing serves a create only when it completed before that
 * create's POST started; a sibling's object is told from ours by its claim, even when the sibling's POST lands
 * while our listing runs. In process behind a fault proxy, then through the real dynamic-provider host.
 */
import { ObservabilityClient } from "../../provider/client";
import { Annotation, Monitor } from "../../provider/resources";
import type { DeclaredKind, Lifecycle } from "../../provider/resources/lifecycle";
import { BASELINE_MAX_AGE_MS } from "../../provider/resources/reconcile";
import { proxiedClients, type FaultProxy, type ProxyFault } from "../helpers/fault-proxy";
import { providerTexts } from "../helpers/fault-run";
import { startConfiguredHost, urnOf } from "../helpers/host";
import { useEmulator } from "../helpers/emulator";
import { checked } from "./support";

const em = useEmulator({ record: true });
let proxy: FaultProxy | undefined;
let client: ObservabilityClient | undefined;
let oob: ObservabilityClient | undefined;

afterEach(async () => {
  jest.restoreAllMocks();
  await client?.close();
  await oob?.close();
  await proxy?.close();
  proxy = client = oob = undefined;
});

async function through(
  kind: DeclaredKind,
  plan: (method: string, path: string, nth: number) => ProxyFault | Promise<ProxyFault>,
): Promise<Lifecycle> {
  ({ proxy, client, oob } = await proxiedClients(em.current, plan));
  return kind.lifecycle({ client: () => client!, secrets: () => [] });
}

const count = (prefix: string) => proxy!.seen.filter((r) => r.startsWith(prefix)).length;
const monitor = (name: string) => ({ name, aplQuery: "x", type: "MatchEvent" });
const named = async (name: string) =>
  (await oob!.monitors.list()).filter((m) => m.name === name).map((m) => m.id);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("creates share their baseline", () => {
  it("a burst of creates of one family lists it once", async () => {
    const impl = await through(Monitor.declaration, () => undefined);
    const made = await Promise.all(
      Array.from({ length: 8 }, async (_, i) => impl.create(await checked(impl, monitor(`burst-${i}`)))),
    );
    expect(new Set(made.map((m) => m.id)).size).toBe(8);
    expect(count("GET /v2/monitors")).toBe(1);
    expect(count("POST")).toBe(8);
  });

  it(`a listing serves creates for ${BASELINE_MAX_AGE_MS / 1000} s after it began; a later create lists again`, async () => {
    const impl = await through(Monitor.declaration, () => undefined);
    await impl.create(await checked(impl, monitor("age-1")));
    await impl.create(await checked(impl, monitor("age-2")));
    expect(count("GET /v2/monitors")).toBe(1);
    // Shared listings are timed by performance.now() (listings.ts), which no clock step moves.
    const now = performance.now();
    jest.spyOn(performance, "now").mockImplementation(() => now + BASELINE_MAX_AGE_MS + 1);
    await impl.create(await checked(impl, monitor("age-3")));
    expect(count("GET /v2/monitors")).toBe(2);
  });

  it("annotations share per listing parameters: the datasets, and whether `time` is declared", async () => {
    const impl = await through(Annotation.declaration, () => undefined);
    const args = [
      { datasets: ["sb-a"], type: "deploy", title: "1" },
      { datasets: ["sb-a"], type: "deploy", title: "2" },
      { datasets: ["sb-b"], type: "deploy", title: "3" },
      { datasets: ["sb-a"], type: "deploy", title: "4", time: "2024-01-02T03:04:05Z" },
    ];
    await Promise.all(args.map(async (a) => impl.create(await checked(impl, a))));
    expect(count("GET /v2/annotations")).toBe(3);
  });

  it("a create that arrives while the shared listing runs awaits it: an identical object listed by it is not taken", async () => {
    let listed = 0;
    const postsAt: number[] = [];
    let prior = "";
    const impl = await through(Monitor.declaration, async (method, _path, nth) => {
      if (method === "GET" && nth === 0) {
        await sleep(300);
        // Another process's identical object, made just before the listing's snapshot.
        prior = (await oob!.monitors.create(monitor("during") as never)).id;
        listed = Date.now();
        return undefined;
      }
      if (method === "POST") {
        postsAt.push(Date.now());
        // The second create's first POST is answered 500 before the service sees it.
        if (nth === 1) return "500";
      }
      return undefined;
    });
    const first = impl.create(await checked(impl, monitor("first")));
    await sleep(100);
    const second = impl.create(await checked(impl, monitor("during")));
    const [, { id }] = await Promise.all([first, second]);
    expect(id).not.toBe(prior);
    expect((await named("during")).sort()).toEqual([prior, id].sort());
    // One baseline listing; every POST went out after it had been answered.
    expect(proxy!.seen.filter((r) => r === "GET /v2/monitors")[0]).toBeDefined();
    expect(Math.min(...postsAt)).toBeGreaterThanOrEqual(listed);
  });

  it("identical bodies in a burst, one uncertain: the sibling's POST landing during our listing is not taken for ours", async () => {
    const args = monitor("twins");
    let releaseSibling: () => void = () => undefined;
    const siblingAnswer = new Promise<void>((r) => (releaseSibling = r));
    let sibling: Promise<{ id: string }> | undefined;
    const impl: Lifecycle = await through(Monitor.declaration, async (method, _path, nth) => {
      // Ours: processed, then answered 500.
      if (method === "POST" && nth === 0) return "500after";
      // The sibling's: processed at once, its answer held until our listing has been answered.
      if (method === "POST" && nth === 1) return { answerAfter: siblingAnswer };
      if (method === "GET" && nth === 1) {
        // Our look for the object: the sibling starts now, and its object is stored before the listing.
        sibling = impl.create(await checked(impl, args));
        while ((await named("twins")).length < 2) await sleep(10);
        setTimeout(releaseSibling, 300);
      }
      return undefined;
    });
    const ours = await impl.create(await checked(impl, args));
    const theirs = await sibling!;
    expect(ours.id).not.toBe(theirs.id);
    expect((await named("twins")).sort()).toEqual([ours.id, theirs.id].sort());
    expect(count("POST")).toBe(2);
    expect(count("GET /v2/monitors")).toBe(2);
  });
});

describe("a kind without a creation time (API tokens here) shares only a listing still in flight", () => {
  it("creates at once share one listing; a later create lists again", async () => {
    const { ApiToken } = await import("../../provider/resources");
    const impl = await through(ApiToken.declaration, () => undefined);
    const token = (name: string) => ({ name, datasetCapabilities: { "*": { query: ["read"] } } });
    await Promise.all(["t-1", "t-2", "t-3"].map(async (n) => impl.create(await checked(impl, token(n)))));
    expect(count("GET /v2/tokens")).toBe(1);
    await impl.create(await checked(impl, token("t-4")));
    expect(count("GET /v2/tokens")).toBe(2);
  });
});

describe("a shared baseline keeps uncertain creates exact: the service's clock rules out what it no longer lists", () => {
  // Without the learnt clock, the shared listing (taken before the earlier create) would not hold the other
  // process's object, and the one-minute skew allowance would let it pass: the create would take it.
  it("an identical monitor someone else made after the shared listing, before our create, is not taken", async () => {
    const impl = await through(Monitor.declaration, (method, _path, nth) =>
      // The second create's first POST is answered 500 before the service sees it: its outcome is unknown.
      method === "POST" && nth === 1 ? "500" : undefined,
    );
    await impl.create(await checked(impl, monitor("earlier")));
    // Past the second the earlier POST was stamped in, so the other process's stamp is a whole second later.
    await sleep(1100);
    const theirs = (await oob!.monitors.create(monitor("late-twin") as never)).id;
    await sleep(1100);
    const ours = await impl.create(await checked(impl, monitor("late-twin")));
    expect(ours.id).not.toBe(theirs);
    expect((await named("late-twin")).sort()).toEqual([ours.id, theirs].sort());
    // Still one baseline listing (the later look for the lost object lists again).
    expect(proxy!.seen.filter((r) => r === "GET /v2/monitors").length).toBeGreaterThanOrEqual(2);
    expect(count("POST")).toBe(3);
  });

  it("a dataset of the same name someone else made after the shared listing is not taken (its `created` is exact)", async () => {
    const { Dataset } = await import("../../provider/resources");
    const impl = await through(Dataset.declaration, (method, _path, nth) =>
      method === "POST" && nth === 1 ? "500" : undefined,
    );
    await impl.create(await checked(impl, { name: "sb-earlier" }));
    await sleep(20);
    await oob!.datasets.create({ name: "sb-taken" } as never);
    await sleep(20);
    // The resend meets the other process's dataset: a 409, and the dataset of that name is not ours to take.
    await expect(impl.create(await checked(impl, { name: "sb-taken" }))).rejects.toThrow(/409|exists/);
    // The shared baseline, the look for the lost dataset (twice, a second apart), and the look after the 409.
    expect(count("GET /v2/datasets")).toBe(4);
  });
});

describe("through the real dynamic-provider host", () => {
  it("40 monitor creates at once: one listing of the family, 40 POSTs", async () => {
    const texts = await providerTexts();
    const { host, client: direct } = await startConfiguredHost(em.current);
    try {
      const before = em.current.received.length;
      const made = await Promise.all(
        Array.from({ length: 40 }, async (_, i) => {
          const urn = urnOf("Monitor", `host-${i}`);
          const news = { ...monitor(`host-${i}`), __provider: texts.Monitor };
          const { inputs } = await host.check(urn, {}, news);
          return host.create(urn, inputs);
        }),
      );
      const requests = em.current.received.slice(before);
      expect(new Set(made.map((m) => m.id)).size).toBe(40);
      expect(requests.filter((r) => r.method === "GET" && r.path === "/v2/monitors")).toHaveLength(1);
      expect(requests.filter((r) => r.method === "POST")).toHaveLength(40);
    } finally {
      await host.close();
      await direct.close();
    }
  }, 60_000);
});
