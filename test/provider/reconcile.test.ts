/**
 * Reconciling a create whose outcome is unknown, family by family: the provider lists the family and takes the
 * one new, unclaimed object matching the declared body; resends when there is none; fails listing ids when
 * there are several. Faults are placed on exactly the requests chosen, by a real proxy in front of the emulator.
 */
import { ObservabilityClient } from "../../provider/client";
import { Annotation, Monitor, Notifier, Role, StarredQuery } from "../../provider/resources";
import type { DeclaredKind, Lifecycle } from "../../provider/resources/lifecycle";
import { MAX_CREATE_ATTEMPTS } from "../../provider/resources/reconcile";
import { gate, proxiedClients, type FaultProxy, type ProxyFault } from "../helpers/fault-proxy";
import { useEmulator } from "../helpers/emulator";
import { checked, messageOf } from "./support";

type Props = Record<string, unknown>;

const em = useEmulator();
let proxy: FaultProxy | undefined;
let client: ObservabilityClient | undefined;
let oob: ObservabilityClient | undefined;

afterEach(async () => {
  await client?.close();
  await oob?.close();
  await proxy?.close();
  proxy = client = oob = undefined;
});

/** The real lifecycle of `descriptor`, its client behind a proxy that faults what `plan` picks. */
async function through(
  kind: DeclaredKind,
  plan: (method: string, path: string, nth: number) => ProxyFault | Promise<ProxyFault>,
  timeoutMs = 10_000,
  maxRetries?: number,
): Promise<Lifecycle> {
  ({ proxy, client, oob } = await proxiedClients(em.current, plan, { timeoutMs, maxRetries }));
  return kind.lifecycle({ client: () => client!, secrets: () => [] });
}

const posts = () => proxy!.seen.filter((r) => r.startsWith("POST")).length;
const named = async (list: Promise<{ id?: unknown; name?: unknown }[]>, name: string) =>
  (await list).filter((x) => x.name === name).map((x) => x.id);

/** Fault the first POST only. */
const firstPost =
  (fault: ProxyFault) =>
  (method: string, _path: string, nth: number): ProxyFault =>
    method === "POST" && nth === 0 ? fault : undefined;

describe("an uncertain create is reconciled, family by family", () => {
  it.each([
    ["processed, then answered 500", "500after" as const, 1],
    ["answered 500 before processing", "500" as const, 2],
    ["answered 502 before processing", "502" as const, 2],
    ["a dropped connection", "drop" as const, 2],
  ])("Monitor, first POST %s: exactly one monitor, in state", async (_what, fault, expectedPosts) => {
    const impl = await through(Monitor.declaration, firstPost(fault));
    const name = `mon-${fault}`;
    const { id } = await impl.create(await checked(impl, { name, aplQuery: "x", type: "MatchEvent" }));
    expect(await named(oob!.monitors.list(), name)).toEqual([id]);
    expect(posts()).toBe(expectedPosts);
  });

  it("Notifier (createdAt window), processed then 500: the one notifier is taken", async () => {
    const impl = await through(Notifier.declaration, firstPost("500after"));
    const args = { name: "hook", properties: { webhook: { url: "https://w.test/k" } } };
    const { id } = await impl.create(await checked(impl, args));
    expect(await named(oob!.notifiers.list(), "hook")).toEqual([id]);
  });

  it.each([
    ["time undeclared (the service's time is the creation time)", {}],
    ["time declared (the listing before the POST decides)", { time: "2024-01-02T03:04:05Z" }],
  ])("Annotation, %s: one annotation", async (_what, extra) => {
    const impl = await through(Annotation.declaration, firstPost("500after"));
    const title = `a-${Object.keys(extra).length}`;
    const args = { datasets: ["recon"], type: "deploy", title, ...extra };
    const { id } = await impl.create(await checked(impl, args));
    const all = await oob!.annotations.list({ datasets: ["recon"] });
    expect(all.filter((a) => a.title === title).map((a) => a.id)).toEqual([id]);
  });

  it("StarredQuery: an identical query saved before the create is not taken for ours", async () => {
    const args = { kind: "apl", name: "sq-old", who: "team", query: { apl: "x" }, metadata: {} };
    const impl = await through(StarredQuery.declaration, firstPost("500"));
    const old = await oob!.starredQueries.create(args as never);
    const { id } = await impl.create(await checked(impl, args));
    expect(id).not.toBe(old.id);
    expect((await named(oob!.starredQueries.list({ who: "all" }), "sq-old")).sort()).toEqual(
      [old.id, id].sort(),
    );
  });

  it("Role: a 409 on the resend means the name was taken since; the role of that name is taken", async () => {
    const args = { name: "recon-role", description: "r" };
    const impl = await through(Role.declaration, async (method, _path, nth) => {
      if (method !== "POST") return undefined;
      if (nth === 0) return "502";
      // The first request, delayed in the service, lands just before the resend.
      if (nth === 1) await oob!.roles.create(args);
      return undefined;
    });
    const { id } = await impl.create(await checked(impl, args));
    expect(await named(oob!.roles.list(), "recon-role")).toEqual([id]);
    expect(posts()).toBe(2);
  });

  it("Role: a role of that name with another body is not taken; the 409 is reported", async () => {
    const args = { name: "recon-role-2", description: "mine" };
    const impl = await through(Role.declaration, async (method, _path, nth) => {
      if (method !== "POST") return undefined;
      if (nth === 0) return "502";
      if (nth === 1) await oob!.roles.create({ name: args.name, description: "theirs" });
      return undefined;
    });
    const message = await messageOf(impl.create(await checked(impl, args)));
    expect(message).toMatch(/^observability Role create failed: POST \/v2\/rbac\/roles failed with 409/);
  });

  // `oob` is another client, as another `pulumi up` (another host process, whose claims are not visible here)
  // would be: its identical object, made moments before, is new by `createdAt` but was there before the POST.
  it.each([
    ["Monitor", "500after" as const],
    ["Monitor", "500" as const],
    ["Notifier", "500after" as const],
    ["Notifier", "500" as const],
  ])(
    "%s, first POST %s: an identical object another process made just before is not taken",
    async (kind, fault) => {
      const name = `prior-${kind}-${fault}`;
      const args =
        kind === "Monitor"
          ? { name, aplQuery: "x", type: "MatchEvent" }
          : { name, properties: { webhook: { url: "https://w.test/prior" } } };
      const family = kind === "Monitor" ? () => oob!.monitors : () => oob!.notifiers;
      const impl = await through(
        kind === "Monitor" ? Monitor.declaration : Notifier.declaration,
        firstPost(fault),
      );
      const prior = await family().create(args as never);
      const { id } = await impl.create(await checked(impl, args));
      expect(id).not.toBe(prior.id);
      expect((await named(family().list(), name)).sort()).toEqual([prior.id, id].sort());
      expect(posts()).toBe(fault === "500after" ? 1 : 2);
    },
  );

  it("an id a resource in this process has read is never taken, even when made after the baseline", async () => {
    const args = { name: "seen-by-read", aplQuery: "x", type: "MatchEvent" };
    let other: string | undefined;
    const impl = await through(Monitor.declaration, async (method, _path, nth) => {
      if (method !== "POST" || nth !== 0) return undefined;
      // Another resource of this run, made and refreshed while this create is in flight.
      other = (await oob!.monitors.create(args as never)).id;
      await impl.read(other, { ...args });
      return "500";
    });
    const { id } = await impl.create(await checked(impl, args));
    expect(id).not.toBe(other);
    expect((await named(oob!.monitors.list(), "seen-by-read")).sort()).toEqual([other, id].sort());
  });

  it("an object claimed by another resource in this process is never taken", async () => {
    const args = { name: "twin", aplQuery: "x", type: "MatchEvent" };
    // Two resources of one kind: the first creates cleanly, the second's first POST fails unprocessed.
    const impl = await through(Monitor.declaration, (method, _path, nth) =>
      method === "POST" && nth === 1 ? "500" : undefined,
    );
    const first = await impl.create(await checked(impl, args));
    const second = await impl.create(await checked(impl, args));
    expect(second.id).not.toBe(first.id);
    expect((await named(oob!.monitors.list(), "twin")).sort()).toEqual([first.id, second.id].sort());
  });

  it("more than one match: fails listing their ids and advising adoption", async () => {
    const args = { name: "many", aplQuery: "x", type: "MatchEvent" };
    const impl = await through(Monitor.declaration, async (method, _path, nth) => {
      if (method !== "POST" || nth !== 0) return undefined;
      await oob!.monitors.create(args as never);
      return "500after";
    });
    const message = await messageOf(impl.create(await checked(impl, args)));
    const ids = await named(oob!.monitors.list(), "many");
    expect(ids).toHaveLength(2);
    for (const id of ids) expect(message).toContain(String(id));
    expect(message).toContain('adopt: "<one of these ids>"');
  });

  it(`every POST uncertain and nothing created: ${MAX_CREATE_ATTEMPTS} POSTs, then the adopt advice`, async () => {
    const impl = await through(Monitor.declaration, (method) => (method === "POST" ? "502" : undefined));
    const message = await messageOf(
      impl.create(await checked(impl, { name: "never", aplQuery: "x", type: "MatchEvent" })),
    );
    expect(message).toMatch(/^observability Monitor create failed: POST \/v2\/monitors failed with 502/);
    expect(message).toContain('adopt: "<its id>"');
    expect(posts()).toBe(MAX_CREATE_ATTEMPTS);
    expect(await named(oob!.monitors.list(), "never")).toEqual([]);
  }, 60_000);
});

describe("the race: the first request is still in the service when the list runs", () => {
  /**
   * Two POSTs answered 502 whose objects the service stores only after the third POST succeeded (as if they
   * had waited in its queue): they appear just before the listing that follows the resend.
   */
  function lateTwins(args: Props, late: string[], plan: (method: string) => ProxyFault = () => undefined) {
    let landed = false;
    return async (method: string, _path: string, nth: number): Promise<ProxyFault> => {
      if (method === "POST") return nth < 2 ? "502" : undefined;
      if (method === "GET" && !landed && posts() === 3) {
        landed = true;
        for (let i = 0; i < 2; i++) late.push((await oob!.monitors.create(args as never)).id);
      }
      return plan(method);
    };
  }

  it("two late objects after two uncertain POSTs: the first is kept, the other and the resend's own deleted", async () => {
    const args = { name: "late-twins", aplQuery: "x", type: "MatchEvent" };
    const late: string[] = [];
    const impl = await through(Monitor.declaration, lateTwins(args, late));
    const { id } = await impl.create(await checked(impl, args));
    expect(late).toHaveLength(2);
    expect(await named(oob!.monitors.list(), "late-twins")).toEqual([late[0]]);
    expect(id).toBe(late[0]);
    // Two uncertain POSTs and the resend that succeeded.
    expect(posts()).toBe(3);
    expect(proxy!.seen.filter((r) => r.startsWith("DELETE"))).toHaveLength(2);
  }, 60_000);

  it("when the resend's own object cannot be deleted, it stays the resource rather than leaving two", async () => {
    const args = { name: "undeletable", aplQuery: "x", type: "MatchEvent" };
    const late: string[] = [];
    const impl = await through(
      Monitor.declaration,
      lateTwins(args, late, (method) => (method === "DELETE" ? "500" : undefined)),
      10_000,
      0,
    );
    const { id } = await impl.create(await checked(impl, args));
    const ids = await named(oob!.monitors.list(), "undeletable");
    // The resend's own object, the third POST's, is the one returned; the late two are left over.
    expect(ids).toHaveLength(3);
    expect(ids).toContain(id);
    expect(late).not.toContain(id);
    expect(proxy!.seen.filter((r) => r.startsWith("DELETE"))).toHaveLength(1);
  }, 60_000);

  it("a request the client gave up on (timeout) lands before the second list: taken, not resent", async () => {
    // Ordered by the proxy, not by delays: the POST reaches the service only after the first look was answered
    // (so the client has given up on it), and the second look only after the service stored its object.
    const firstLook = gate();
    const stored = gate();
    const impl = await through(
      Monitor.declaration,
      (method, _path, nth) => {
        if (method === "POST" && nth === 0) return { forwardAfter: firstLook.done, answered: stored.open };
        // GET 0 is the baseline, GET 1 the first look, GET 2 the look a settle later.
        if (method === "GET" && nth === 1)
          return { answerAfter: Promise.resolve(), answered: firstLook.open };
        if (method === "GET" && nth === 2) return { forwardAfter: stored.done };
        return undefined;
      },
      400,
    );
    const { id } = await impl.create(
      await checked(impl, { name: "slow", aplQuery: "x", type: "MatchEvent" }),
    );
    await proxy!.idle();
    expect(await named(oob!.monitors.list(), "slow")).toEqual([id]);
    expect(posts()).toBe(1);
  });

  it("it lands only after the resend: the resend's own object is deleted, the first one kept", async () => {
    // Ordered by the proxy, not by delays: the first request reaches the service only when the resend reaches
    // the proxy, and the look after the resend only once the service has stored the first one's object. (A
    // fixed delay let the first request land before the second look, or after the last, on a busy machine.)
    const resend = gate();
    const firstStored = gate();
    const impl = await through(
      Monitor.declaration,
      (method, _path, nth) => {
        if (method === "POST" && nth === 0) return { forwardAfter: resend.done, answered: firstStored.open };
        if (method === "POST" && nth === 1) resend.open();
        // GET 0 is the baseline, 1 and 2 the looks before the resend, 3 the look after it.
        if (method === "GET" && nth === 3) return { forwardAfter: firstStored.done };
        return undefined;
      },
      400,
    );
    const { id } = await impl.create(
      await checked(impl, { name: "slower", aplQuery: "x", type: "MatchEvent" }),
    );
    await proxy!.idle();
    expect(await named(oob!.monitors.list(), "slower")).toEqual([id]);
    expect(posts()).toBe(2);
  });
});
