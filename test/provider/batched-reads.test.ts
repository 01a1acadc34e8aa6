/**
 * Reads in batches (lifecycle.ts `read`, listings.ts): the reads of a refresh that reach the dynamic-provider host
 * together are answered from one listing of the family, and each read the listing cannot answer exactly sends its
 * GET, as before. Requests are counted at the emulator. Through the real host: a refresh of 200 monitors, a write
 * of the host between two reads, an object deleted out of band, a family listed by a filter, a listing that
 * fails. In process: every kind of the registry reads the same from the listing as from its GET, byte for byte.
 */
import { startEmulator, type RunningEmulator } from "../../emulator";
import { ObservabilityClient } from "../../provider/client";
import { SHARED_LISTINGS_ENV } from "../../provider/client/env";
import { READS_ONE_BY_ONE, type Descriptor } from "../../provider/resources/descriptor";
import { READ_REUSE_MS } from "../../provider/resources/lifecycle";
import { KINDS, type ResourceKind } from "../../provider/resources/registry";
import { startFaultProxy } from "../helpers/fault-proxy";
import { providerTexts } from "../helpers/fault-run";
import { startProviderHost, urnOf, type ProviderHost } from "../helpers/host";
import { SAMPLES } from "../helpers/samples";
import { checked, created, messageOf, useProvider, type Props } from "./support";

type Texts = Awaited<ReturnType<typeof providerTexts>>;
let texts: Texts;

beforeAll(async () => {
  texts = await providerTexts();
});

/** Runs `items` through `run`, `concurrency` at a time, as the engine runs its steps in parallel. */
async function inParallel<T, R>(items: T[], run: (item: T) => Promise<R>, concurrency = 32): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await run(items[i]);
      }
    }),
  );
  return out;
}

/** A resource as the engine holds it after `pulumi up`. */
interface Held {
  urn: string;
  id: string;
  inputs: Props;
  outputs: Props;
}

/** A fresh emulator (recording requests) and a host pointed at `url` (the emulator's own by default). */
async function hostOn(
  em: RunningEmulator,
  options: { url?: string; env?: Record<string, string> } = {},
): Promise<ProviderHost> {
  const host = await startProviderHost({
    config: { "observability:token": em.token, "observability:url": options.url ?? em.url },
    secretKeys: ["observability:token"],
    env: options.env,
  });
  await host.configure();
  return host;
}

/** `pulumi up` of a new resource of `kind` through `host`: Check, then Create. */
async function upThrough(host: ProviderHost, kind: keyof Texts, name: string, args: Props): Promise<Held> {
  const urn = urnOf(kind, name);
  const { inputs, failures } = await host.check(urn, {}, { ...args, __provider: texts[kind] });
  expect(failures).toEqual([]);
  const { id, properties } = await host.create(urn, inputs);
  return { urn, id, inputs, outputs: properties };
}

/** `pulumi refresh` of `held`: Read with the state's outputs and inputs. */
const refreshOf = (host: ProviderHost, held: Held) => host.read(held.urn, held.id, held.outputs, held.inputs);

/** The requests `em` received while `step` ran, as `METHOD path`. */
async function sentDuring(em: RunningEmulator, step: () => Promise<unknown>): Promise<string[]> {
  const before = em.received.length;
  await step();
  return em.received.slice(before).map((r) => `${r.method} ${r.path}`);
}

const monitor = (name: string) => ({ name, aplQuery: "['logs'] | count", type: "MatchEvent" });

describe("through the real host", () => {
  let em: RunningEmulator;
  let client: ObservabilityClient;
  const hosts: ProviderHost[] = [];

  beforeEach(async () => {
    em = await startEmulator({ port: 0, host: "127.0.0.1", record: true });
    client = new ObservabilityClient({ url: em.url, token: em.token });
  });
  afterEach(async () => {
    await Promise.all(hosts.splice(0).map((h) => h.close()));
    await client.close();
    await em.close();
  });
  const started = async (options?: Parameters<typeof hostOn>[1]) => {
    const host = await hostOn(em, options);
    hosts.push(host);
    return host;
  };

  it("refreshes 200 monitors with at most 200/50 requests plus the listing, reading what one GET each reads", async () => {
    const N = 200;
    const host = await started();
    const held = await inParallel([...Array(N).keys()], (i) =>
      upThrough(host, "Monitor", `m-${i}`, monitor(`m-${i}`)),
    );
    const before = em.stats.requests;
    const batched = await inParallel(held, (h) => refreshOf(host, h));
    const requests = em.stats.requests - before;
    // The monitors' listing is one page.
    expect(requests).toBeLessThanOrEqual(N / 50 + 1);
    expect(batched.map((r) => r.id)).toEqual(held.map((h) => h.id));

    // The same refresh with sharing off: a GET per monitor, and the very same answers.
    const oneByOne = await started({ env: { [SHARED_LISTINGS_ENV]: "0" } });
    const sent = await sentDuring(em, async () => {
      const answers = await inParallel(held, (h) => refreshOf(oneByOne, h));
      expect(JSON.stringify(answers)).toBe(JSON.stringify(batched));
    });
    expect(sent).toHaveLength(N);
    expect(new Set(sent)).toEqual(new Set(held.map((h) => `GET /v2/monitors/${h.id}`)));
  }, 60_000);

  it("answers a read after a write of this process from data no older than the write", async () => {
    const host = await started();
    const [a, b] = await Promise.all(["a", "b"].map((n) => upThrough(host, "Monitor", n, monitor(n))));
    const sentForA = await sentDuring(em, () => refreshOf(host, a));
    expect(sentForA).toEqual(["GET /v2/monitors"]);

    // An update of `b` through the host, then its refresh: the listing above still holds the old `b`.
    const urn = b.urn;
    const news = { ...monitor("b"), description: "changed", __provider: texts.Monitor };
    const { inputs } = await host.check(urn, b.inputs, news);
    const { properties } = await host.update(urn, b.id, b.outputs, inputs);
    const read = await host.read(urn, b.id, properties, inputs);
    // Whether the listing was still within its reuse window here depends on the machine's pace; the test in
    // process below holds the clock still, so that only the write can keep the listing from answering.
    expect(read.properties).toMatchObject({ description: "changed" });
    expect(read.inputs).toMatchObject({ description: "changed" });
  });

  it('leaves out an object deleted out of band (id ""), through one listing and the GET that confirms it', async () => {
    const host = await started();
    const held = await Promise.all(["x", "y", "z"].map((n) => upThrough(host, "Monitor", n, monitor(n))));
    await client.monitors.delete(held[1].id);
    let reads: { id: string }[] = [];
    const sent = await sentDuring(em, async () => {
      reads = await Promise.all(held.map((h) => refreshOf(host, h)));
    });
    expect(reads.map((r) => r.id)).toEqual([held[0].id, "", held[2].id]);
    expect(sent).toEqual(["GET /v2/monitors", `GET /v2/monitors/${held[1].id}`]);
    // A `Resource.get` of it fails with the same words as before reads were batched.
    const get = host.read(urnOf("Monitor", "get"), held[1].id, {}, { __provider: texts.Monitor });
    expect(await messageOf(get)).toContain(`no object with id ${held[1].id} exists`);
  });

  it("reads a `Resource.get` of an existing object from the listing, as its GET would", async () => {
    const host = await started();
    const m = await upThrough(host, "Monitor", "got", monitor("got"));
    const getOf = (h: ProviderHost) =>
      h.read(urnOf("Monitor", "get"), m.id, {}, { __provider: texts.Monitor });
    let listed: unknown;
    const sent = await sentDuring(em, async () => void (listed = await getOf(host)));
    expect(sent).toEqual(["GET /v2/monitors"]);
    const oneByOne = await started({ env: { [SHARED_LISTINGS_ENV]: "0" } });
    expect(JSON.stringify(await getOf(oneByOne))).toBe(JSON.stringify(listed));
  });

  it("lists virtual fields per dataset, and reads by GET what no listing can answer", async () => {
    for (const name of ["vf-a", "vf-b"]) await client.datasets.create({ name });
    const host = await started();
    const fields = await Promise.all(
      ["vf-a", "vf-a", "vf-b", "vf-b"].map((dataset, i) =>
        upThrough(host, "VirtualField", `f-${i}`, { dataset, name: `f${i}`, expression: "a + b" }),
      ),
    );
    let reads: { id: string; properties: Props }[] = [];
    const sent = await sentDuring(em, async () => {
      reads = await Promise.all(fields.map((f) => refreshOf(host, f)));
    });
    expect(reads.map((r) => r.id)).toEqual(fields.map((f) => f.id));
    // One listing per dataset (the path has no query string), and no GET of a field.
    expect(sent.sort()).toEqual(["GET /v2/vfields", "GET /v2/vfields"]);
    expect(
      em.received
        .slice(-2)
        .map((r) => r.query.dataset)
        .sort(),
    ).toEqual(["vf-a", "vf-b"]);

    // Moved to another dataset out of band: not in the listing of the dataset its state names, so its GET.
    const moved = fields[0];
    const now = await client.virtualFields.get(moved.id);
    await client.virtualFields.update(moved.id, { ...now, dataset: "vf-b" } as never);
    await new Promise((r) => setTimeout(r, READ_REUSE_MS + 50));
    const [read] = await Promise.all([refreshOf(host, moved), refreshOf(host, fields[1])]);
    expect(read.properties).toMatchObject({ dataset: "vf-b" });
    // A `Resource.get` names no dataset, so it sends its GET.
    const sentForGet = await sentDuring(em, () =>
      host.read(urnOf("VirtualField", "get"), fields[2].id, {}, { __provider: texts.VirtualField }),
    );
    expect(sentForGet).toEqual([`GET /v2/vfields/${fields[2].id}`]);
  });

  it("falls back to a GET per read when the listing fails even after the client's retries", async () => {
    // Only once the monitors exist: their creates list the family too (their baseline).
    let failListings = false;
    const proxy = await startFaultProxy(em.url, (method, path) =>
      failListings && method === "GET" && path === "/v2/monitors" ? "503" : undefined,
    );
    try {
      const host = await started({ url: proxy.url });
      const held = await Promise.all(["p", "q"].map((n) => upThrough(host, "Monitor", n, monitor(n))));
      failListings = true;
      proxy.seen.length = 0;
      const reads = await Promise.all(held.map((h) => refreshOf(host, h)));
      expect(reads.map((r) => r.id)).toEqual(held.map((h) => h.id));
      const listings = proxy.seen.filter((s) => s === "GET /v2/monitors").length;
      // The reads shared one listing, tried as often as the client retries (5 attempts), then GET each.
      expect(listings).toBe(5);
      for (const h of held) expect(proxy.seen).toContain(`GET /v2/monitors/${h.id}`);
    } finally {
      await proxy.close();
    }
  }, 30_000);
});

describe("every kind, in process", () => {
  const p = useProvider({ record: true, datasets: ["logs"] });
  const withoutSharing = async <R>(run: () => Promise<R>): Promise<R> => {
    process.env[SHARED_LISTINGS_ENV] = "0";
    try {
      return await run();
    } finally {
      delete process.env[SHARED_LISTINGS_ENV];
    }
  };
  /** Whether the kind declares a listing (registry.ts holds each kind's descriptor as its rules). */
  const listed = (kind: ResourceKind) =>
    (KINDS.get(kind)!.rules as unknown as Descriptor<{ id: string }>).readAll !== READS_ONE_BY_ONE;
  const sent = (step: () => Promise<unknown>) => sentDuring(p.em.current, step);

  it("declares a listing for every kind but OrganizationName (one per organization: nothing to share)", () => {
    expect([...KINDS.keys()].filter((k) => !listed(k))).toEqual(["OrganizationName"]);
  });

  describe.each([...KINDS.keys()])("%s", (kind) => {
    it("reads the same from the shared listing as from its GET, byte for byte", async () => {
      const impl = p.impl(kind);
      const { id, outs } = await created(impl, SAMPLES[kind].args);
      const byGet = await withoutSharing(() => impl.read(id, outs));
      let byListing: unknown;
      const requests = await sent(async () => void (byListing = await impl.read(id, outs)));
      expect(JSON.stringify(byListing)).toBe(JSON.stringify(byGet));
      const itemRequests = requests.filter((r) => r.includes(encodeURIComponent(id)));
      if (listed(kind)) {
        // One listing (every kind's sample fits one page), and no GET of the object.
        expect(requests).toHaveLength(1);
        expect(itemRequests).toEqual([]);
      } else {
        expect(itemRequests).toHaveLength(1);
      }
      await impl.delete(id, outs);
    });

    it("fails a `Resource.get` of a missing id with the same words as before", async () => {
      const impl = p.impl(kind);
      const missing =
        kind === "User" ? "00000000-0000-4000-8000-00000000beef" : `missing-${kind.toLowerCase()}`;
      const batched = await messageOf(impl.read(missing, {}));
      expect(batched).toContain(`no object with id ${missing} exists`);
      expect(await withoutSharing(() => messageOf(impl.read(missing, {})))).toBe(batched);
    });
  });

  it("a read after this process's write never takes a listing from before it, however fresh", async () => {
    const impl = p.impl("Monitor");
    // The shared listings' clock (listings.ts) held still: every listing stays within READ_REUSE_MS.
    const now = performance.now();
    jest.spyOn(performance, "now").mockReturnValue(now);
    try {
      const [a, b, c] = await Promise.all(
        ["fresh-a", "fresh-b", "fresh-c"].map((name) =>
          created(impl, { name, aplQuery: "x", type: "MatchEvent" }),
        ),
      );
      expect(await sent(() => impl.read(a.id, a.outs))).toEqual(["GET /v2/monitors"]);
      // The control: that listing answers another read, so it is fresh and usable.
      expect(await sent(() => impl.read(c.id, c.outs))).toEqual([]);
      const news = await checked(impl, { ...b.inputs, description: "changed" }, b.inputs);
      const { outs } = await impl.update(b.id, b.outs, news);
      const read = await impl.read(b.id, outs);
      expect(read.props).toMatchObject({ description: "changed" });
      expect(read.inputs).toMatchObject({ description: "changed" });
    } finally {
      jest.restoreAllMocks();
    }
  });

  it("carries what the family's get adds from the prior outputs: a dataset's forceDestroy", async () => {
    const impl = p.impl("Dataset");
    const { id, outs } = await created(impl, { name: "forced", forceDestroy: true });
    const byGet = await withoutSharing(() => impl.read(id, outs));
    expect(byGet.props).toMatchObject({ forceDestroy: true });
    expect(JSON.stringify(await impl.read(id, outs))).toBe(JSON.stringify(byGet));
  });

  it("follows an API token's current token after a rotation, as its GET does", async () => {
    const impl = p.impl("ApiToken");
    const args = { name: "rotated", rotationGracePeriod: "0s" };
    const { id, outs, inputs } = await created(impl, args);
    const news = (await impl.check(inputs, { ...args, description: "rotate" })).inputs as Props;
    const rotated = (await impl.update(id, outs, news)).outs as Props;
    expect(rotated.tokenId).not.toBe(id);
    const byGet = await withoutSharing(() => impl.read(id, rotated));
    let byListing: unknown;
    const requests = await sent(async () => void (byListing = await impl.read(id, rotated)));
    expect(requests).toEqual(["GET /v2/tokens"]);
    expect(JSON.stringify(byListing)).toBe(JSON.stringify(byGet));
  });

  it("answers each object once: a second read of it in this process sends its GET", async () => {
    const impl = p.impl("Monitor");
    const { id, outs } = await created(impl, SAMPLES.Monitor.args);
    const first = await sent(() => impl.read(id, outs));
    await p.client().monitors.update(id, { ...SAMPLES.Monitor.args, description: "elsewhere" } as never);
    let again: { props?: Props } = {};
    const second = await sent(async () => void (again = await impl.read(id, outs)));
    expect(first).toEqual(["GET /v2/monitors"]);
    expect(second).toEqual([`GET /v2/monitors/${id}`]);
    expect(again.props).toMatchObject({ description: "elsewhere" });
  });
});
