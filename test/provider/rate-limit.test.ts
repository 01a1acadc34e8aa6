/**
 * Rate limits without stalls or starvation, through the real dynamic-provider host: 240 operations (create, read,
 * update and delete of 60 roles), 16 at a time, against an emulator enforcing 120 requests a window. All of them
 * succeed, and none is served later than the window after the next one from the window it began in, because
 * the client serves the requests waiting for a window in arrival order and a retried 429 keeps its place.
 *
 * The bound is counted in windows, not milliseconds: an operation that began in window w ends by window w + 2.
 * A fair client needs w + 1 at most (its place in line); the second window is slack for a loaded machine, which
 * would need an operation to stall a whole window (6 s here) to break it. The exact order is proved on a
 * hand-driven clock in test/client/pacing.test.ts; this test proves it holds through the real host process.
 *
 * The window is shrunk to 6 s (the emulator's `rateLimitWindowMs` seam) so the run takes seconds; the bound
 * scales with it. `RATE_LIMIT_WINDOW_MS=60000` runs it full size: bench/rate-limit.ts does that.
 */
import * as obs from "../../provider/resources";
import { useEmulator } from "../helpers/emulator";
import { startProviderHost, urnOf, type ProviderHost } from "../helpers/host";
import { recordRegistrations, registered } from "../helpers/provider-text";

const WINDOW_MS = Number(process.env.RATE_LIMIT_WINDOW_MS ?? 6_000);
const LIMIT = 120;
const ROLES = 60;
const CONCURRENCY = 16;
/** Windows an operation may end after the one it began in: one for its place in line, one of slack. */
const BOUND_WINDOWS = 2;
/** The rate-limit window a moment falls in: the emulator aligns windows to multiples of their length. */
const windowOf = (ms: number) => Math.floor(ms / WINDOW_MS);

const em = useEmulator({ rateLimit: LIMIT, rateLimitWindowMs: WINDOW_MS });
let host: ProviderHost;
/** The serialized shim the engine sends as `__provider` with every Role. */
let roleProvider: string;

beforeAll(async () => {
  const seen = await recordRegistrations();
  await registered(new obs.Role("r", { name: "r" }));
  roleProvider = seen[0].providerText;
  host = await startProviderHost({
    config: { "observability:token": em.current.token, "observability:url": em.current.url },
    secretKeys: ["observability:token"],
  });
  await host.configure();
}, 60_000);
afterAll(() => host?.close());

it(
  `240 operations under a limit of ${LIMIT} a window: 0 failures, none served later than two windows on`,
  async () => {
    const waits: { op: string; ms: number; windows: number }[] = [];
    const failures: string[] = [];
    /** Runs one host operation, timing it; a failure is recorded, not thrown, so that every one is counted. */
    const timed = async <T>(op: string, run: () => Promise<T>): Promise<T | undefined> => {
      const started = Date.now();
      try {
        return await run();
      } catch (e) {
        failures.push(`${op}: ${(e as Error).message}`);
        return undefined;
      } finally {
        const ended = Date.now();
        waits.push({ op, ms: ended - started, windows: windowOf(ended) - windowOf(started) });
      }
    };
    // Start as a window starts (they are aligned to multiples of their length): the run then needs two whole
    // windows, and the second is where requests refused at the end of the first compete with new ones.
    await new Promise((r) => setTimeout(r, WINDOW_MS - (Date.now() % WINDOW_MS) + 20));
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < ROLES; i = next++) {
        const urn = urnOf("Role", `paced-${i}`);
        const inputs = { name: `paced-${i}`, __provider: roleProvider };
        const created = await timed(`create ${i}`, () => host.create(urn, inputs));
        if (!created) continue;
        await timed(`read ${i}`, () => host.read(urn, created.id, created.properties));
        const updated = await timed(`update ${i}`, () =>
          host.update(urn, created.id, created.properties, { ...inputs, description: "paced" }),
        );
        await timed(`delete ${i}`, () =>
          host.delete(urn, created.id, updated?.properties ?? created.properties),
        );
      }
    };
    const started = Date.now();
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const longest = waits.reduce((a, b) => (b.ms > a.ms ? b : a));
    const mostWindows = Math.max(...waits.map((w) => w.windows));
    console.log(
      `${waits.length} operations through the host under ${LIMIT} requests per ${WINDOW_MS / 1000} s window: ` +
        `${failures.length} failed, longest wait ${(longest.ms / 1000).toFixed(1)} s (${longest.op}), at most ` +
        `${mostWindows} windows on (bound ${BOUND_WINDOWS}), ${em.current.stats.rateLimited} answered 429, ` +
        `${((Date.now() - started) / 1000).toFixed(1)} s in all`,
    );
    expect(failures).toEqual([]);
    expect(waits).toHaveLength(4 * ROLES);
    expect(mostWindows).toBeLessThanOrEqual(BOUND_WINDOWS);
    // The limit was really in play: the run needed more than one window.
    expect(em.current.stats.requests).toBeGreaterThan(LIMIT);
  },
  WINDOW_MS * 6 + 30_000,
);
