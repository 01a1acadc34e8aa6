/**
 * Every kind takes part in the creates' shared baseline (reconcile.ts): creates of one kind that start together
 * list its family once, and a create that begins after that listing was asked for lists again, stamped kind or
 * not (no clock stands in for a listing). Walks the registry, so a new kind is covered by its fault-run
 * arguments. A create lists nothing else, so its GETs are its baseline listings.
 */
import { ObservabilityClient } from "../../provider/client";
import { KINDS } from "../../provider/resources/registry";
import { startFaultProxy, type FaultProxy } from "../helpers/fault-proxy";
import { DATASET, RUN_KINDS, argsOf } from "../helpers/fault-run";
import { useEmulator } from "../helpers/emulator";
import { checked } from "./support";

const em = useEmulator({ datasets: [DATASET] });
let proxy: FaultProxy | undefined;
let client: ObservabilityClient | undefined;

afterEach(async () => {
  await client?.close();
  await proxy?.close();
  proxy = client = undefined;
});

/** Kinds whose every fault-run body the service stamps with its creation time (guarded by it, reconcile.ts). */
const STAMPED = new Set(["Monitor", "Notifier", "Annotation", "Dataset"]);
/** Kinds listed by name (starred queries ask the service for one name's, `qs`): creates of one name share. */
const BY_NAME = new Set(["StarredQuery"]);
/** The n-th args of a burst: one name with different bodies for a kind listed by name. */
const burstArgs = (kind: (typeof RUN_KINDS)[number], n: number) =>
  BY_NAME.has(kind) ? argsOf(kind, 1, n) : argsOf(kind, n);

describe.each(RUN_KINDS)("%s", (kind) => {
  it("creates that start together list the family once; a later create lists again", async () => {
    proxy = await startFaultProxy(em.current.url, () => undefined);
    client = new ObservabilityClient({ url: proxy.url, token: em.current.token });
    const impl = KINDS.get(kind)!.lifecycle({ client: () => client!, secrets: () => [] });
    const gets = () => proxy!.seen.filter((r) => r.startsWith("GET ")).length;
    const made = await Promise.all(
      [1, 2, 3, 4, 5].map(async (n) => impl.create(await checked(impl, burstArgs(kind, n)))),
    );
    expect(new Set(made.map((m) => m.id)).size).toBe(5);
    expect(gets()).toBe(1);
    expect(proxy.seen.filter((r) => r.startsWith("POST ")).length).toBeGreaterThanOrEqual(5);
    await impl.create(await checked(impl, burstArgs(kind, 6)));
    expect(gets()).toBe(2);
  });
});

it("the stamped kinds are the ones whose reconcile rule is timed for their fault-run body", () => {
  const timed = RUN_KINDS.filter((kind) => {
    const rule = KINDS.get(kind)!.rules as unknown as { reconcile?: { timed(d: object): boolean } };
    return rule.reconcile?.timed(argsOf(kind, 1)) === true;
  });
  expect(new Set(timed)).toEqual(STAMPED);
});
