/**
 * The client against an emulator that injects faults: hundreds of mixed operations finish without error and
 * without duplicates, and the retries that made that possible are counted.
 */
import { ConnectionError, ObservabilityClient, ServerError, type RetryEvent } from "../../provider/client";
import { useEmulator } from "../helpers/emulator";

/** Faults a POST may be retried after (the service refused before processing). */
const SAFE = useEmulator({ faults: "429=0.05,503=0.05,latency=0.05:20,seed=7", rateLimit: 1_000_000 });
/** Every fault, including ones after which a POST may or may not have taken effect. */
const ALL = useEmulator({
  faults: "429=0.04,500=0.03,502=0.03,503=0.03,drop=0.02,latency=0.05:20,seed=11",
  rateLimit: 1_000_000,
});
/** Half of the requests are processed and then answered 500. */
const AFTER = useEmulator({ faults: "500after=0.5,seed=3", record: true });

function makeClient(url: string, token: string, events: RetryEvent[]) {
  return new ObservabilityClient({
    url,
    token,
    maxRetries: 8,
    timeoutMs: 5000,
    retry: { baseDelayMs: 5, maxDelayMs: 1500, onRetry: (e) => events.push(e) },
  });
}

/** Runs `tasks` with at most `width` in flight. */
async function pool(tasks: (() => Promise<unknown>)[], width: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < tasks.length) await tasks[next++]();
    }),
  );
}

type Kind = "annotations" | "monitors" | "notifiers" | "roles" | "starredQueries";
const KINDS: Kind[] = ["annotations", "monitors", "notifiers", "roles", "starredQueries"];

function body(kind: Kind, name: string, version = 1): Record<string, unknown> {
  switch (kind) {
    case "annotations":
      return { datasets: ["web"], type: "deploy", title: name, description: `v${version}` };
    case "monitors":
      return { name, aplQuery: "['web'] | count", type: "Threshold", operator: "Above", threshold: version };
    case "notifiers":
      return { name, properties: { email: { emails: [`v${version}@example.com`] } } };
    case "roles":
      return { name, description: `v${version}`, orgCapabilities: { monitors: ["read"] } };
    case "starredQueries":
      return {
        kind: "apl",
        name,
        who: "local-user",
        metadata: { v: String(version) },
        query: { apl: "['web']" },
      };
  }
}
const nameOf = (kind: Kind, o: Record<string, unknown>) =>
  (kind === "annotations" ? o.title : o.name) as string;

// The resource families share verbs, so one loose handle drives them all.
type AnyResource = {
  list(...a: unknown[]): Promise<Record<string, unknown>[]>;
  get(id: string): Promise<Record<string, unknown>>;
  create(b: unknown): Promise<Record<string, unknown>>;
  update(id: string, b: unknown): Promise<Record<string, unknown>>;
  delete(id: string): Promise<void>;
};
const res = (c: ObservabilityClient, kind: Kind) => c[kind] as unknown as AnyResource;
const listAll = (c: ObservabilityClient, kind: Kind) =>
  kind === "starredQueries" ? c.starredQueries.list({ who: "all", limit: 1000 }) : res(c, kind).list();

/**
 * A mixed workload over every family: per round and kind, create two objects, then get, update, list and
 * delete one of them. Returns the number of operations and the names expected to survive.
 */
async function workload(
  c: ObservabilityClient,
  rounds: number,
  create: (kind: Kind, name: string) => Promise<Record<string, unknown>>,
): Promise<{ ops: number; expected: Map<Kind, Map<string, number>> }> {
  let ops = 0;
  const expected = new Map<Kind, Map<string, number>>(KINDS.map((k) => [k, new Map()]));
  const tasks = Array.from({ length: rounds }, (_, round) =>
    KINDS.map((kind) => async () => {
      const r = res(c, kind);
      const keep = await create(kind, `${kind}-${round}-keep`);
      const drop = await create(kind, `${kind}-${round}-drop`);
      ops += 2;
      expect(nameOf(kind, await r.get(keep.id as string))).toBe(`${kind}-${round}-keep`);
      await r.update(keep.id as string, body(kind, `${kind}-${round}-keep`, 2));
      const again = await r.get(keep.id as string);
      expect(JSON.stringify(again)).toContain("2");
      await listAll(c, kind);
      await r.delete(drop.id as string);
      ops += 5;
      expected.get(kind)!.set(`${kind}-${round}-keep`, 2);
    }),
  ).flat();
  await pool(tasks, 8);
  return { ops, expected };
}

/** Every family holds exactly the expected names, each once, each updated. */
async function expectExactly(c: ObservabilityClient, expected: Map<Kind, Map<string, number>>) {
  for (const kind of KINDS) {
    const names = (await listAll(c, kind)).map((o) => nameOf(kind, o));
    expect(names.sort()).toEqual([...expected.get(kind)!.keys()].sort());
  }
}

describe("faults a POST may be retried after (429, 503) plus latency", () => {
  it("≥ 500 mixed operations finish with no error and no duplicate; retries are counted", async () => {
    const events: RetryEvent[] = [];
    const c = makeClient(SAFE.current.url, SAFE.current.token, events);
    const { ops, expected } = await workload(c, 16, (kind, name) => res(c, kind).create(body(kind, name)));
    await expectExactly(c, expected);
    await c.close();
    expect(ops).toBeGreaterThanOrEqual(500);
    expect(c.retryCount).toBe(events.length);
    expect(c.retryCount).toBeGreaterThan(0);
    // Creates were retried too, which is only safe because these faults happen before processing.
    expect(events.some((e) => e.method === "POST")).toBe(true);
    expect(SAFE.current.stats.faults["429"]).toBeGreaterThan(0);
    expect(SAFE.current.stats.faults["503"]).toBeGreaterThan(0);
  });
});

describe("every fault kind (500, 502, drop too)", () => {
  it("GET/PUT/DELETE/list never fail; an ambiguous create is surfaced, never resent, and reconciled by name", async () => {
    const events: RetryEvent[] = [];
    const c = makeClient(ALL.current.url, ALL.current.token, events);
    let ambiguous = 0;
    // What a careful caller does when a create may or may not have happened: look before creating again.
    const createOnce = async (kind: Kind, name: string): Promise<Record<string, unknown>> => {
      for (;;) {
        try {
          return await res(c, kind).create(body(kind, name));
        } catch (e) {
          if (!(e instanceof ServerError || e instanceof ConnectionError)) throw e;
          // Every failure that reaches here is one the client could not safely resend, and it says so.
          expect(e.outcomeUnknown).toBe(true);
          ambiguous++;
          const found = (await listAll(c, kind)).filter((o) => nameOf(kind, o) === name);
          expect(found.length).toBeLessThanOrEqual(1);
          if (found.length === 1) return found[0];
        }
      }
    };
    const { ops, expected } = await workload(c, 16, createOnce);
    await expectExactly(c, expected);
    await c.close();
    expect(ops).toBeGreaterThanOrEqual(500);
    expect(c.retryCount).toBeGreaterThan(0);
    expect(ambiguous).toBeGreaterThan(0);
    for (const kind of ["500", "502", "drop"]) expect(ALL.current.stats.faults[kind]).toBeGreaterThan(0);
    // Idempotent requests were retried after the faults a POST must not be retried after.
    expect(
      events.some(
        (e) => e.method !== "POST" && (e.status === 500 || e.status === 502 || e.code !== undefined),
      ),
    ).toBe(true);
    expect(events.some((e) => e.method === "POST" && (e.status === 500 || e.status === 502))).toBe(false);
  });
});

describe("500 after processing", () => {
  it("a POST answered 500 after it took effect is not retried: one object exists, the error is surfaced", async () => {
    const events: RetryEvent[] = [];
    const c = makeClient(AFTER.current.url, AFTER.current.token, events);
    let failedName: string | undefined;
    for (let i = 0; i < 20 && failedName === undefined; i++) {
      const name = `after-${i}`;
      await c.roles.create({ name }).catch((e: unknown) => {
        expect(e).toBeInstanceOf(ServerError);
        expect(e).toMatchObject({
          status: 500,
          method: "POST",
          path: "/v2/rbac/roles",
          outcomeUnknown: true,
        });
        failedName = name;
      });
    }
    expect(failedName).toBeDefined();
    const posts = AFTER.current.received.filter(
      (r) => r.method === "POST" && JSON.parse(r.body.toString("utf8")).name === failedName,
    );
    expect(posts).toHaveLength(1);
    // GETs are retried through the same fault, so the list arrives.
    const roles = await c.roles.list();
    expect(roles.filter((r) => r.name === failedName)).toHaveLength(1);
    expect(events.every((e) => e.method !== "POST")).toBe(true);
    await c.close();
  });
});
