/**
 * Fair pacing: against a service that enforces a fixed window (4 requests a window of 2 s) and reports it in
 * `X-RateLimit-*`, requests arriving faster than the limit are served in arrival order, window by window, and a
 * request refused with 429 keeps its place rather than racing the requests made after it.
 *
 * The client runs on a hand-driven clock (its `clock` option) and its requests are answered in process (an undici
 * MockAgent as its dispatcher), the service's windows counted on the same clock. So every window, wait and retry
 * is exact, whatever the machine's load; and a stalled event loop is a step of that clock the test takes where it
 * wants one. (The test this replaces ran on the machine's clock, and under load a window passed, or an answer was
 * read after its window ended, beyond the bounds it allowed.)
 */
import { MockAgent } from "undici";
import { ObservabilityClient } from "../../provider/client";
import { ManualClock, runUntil, settle } from "../helpers/manual-clock";

const WINDOW_MS = 2_000;
const LIMIT = 4;
/** A window's start, so window n of a run is [T0 + n·WINDOW_MS, T0 + (n+1)·WINDOW_MS). */
const T0 = Date.UTC(2030, 0, 1);
const ORIGIN = "https://rate.test";

/** The service: a fixed window on `clock`; refusals may be held until the test releases them. */
function service(clock: ManualClock, options: { holdRefusals?: boolean } = {}) {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const counts = new Map<number, number>();
  const servedIn = new Map<string, number>();
  const held: (() => void)[] = [];
  let refused = 0;
  let requests = 0;
  agent
    .get(ORIGIN)
    .intercept({ path: () => true, method: "GET" })
    .reply<object>((opts) => {
      const now = clock.now();
      const window = Math.floor((now - T0) / WINDOW_MS);
      const count = (counts.get(window) ?? 0) + 1;
      counts.set(window, count);
      requests++;
      const resetMs = T0 + (window + 1) * WINDOW_MS;
      const headers = {
        "x-ratelimit-limit": String(LIMIT),
        "x-ratelimit-remaining": String(Math.max(0, LIMIT - count)),
        "x-ratelimit-reset": String(resetMs / 1000),
        "content-type": "application/json",
      };
      if (count > LIMIT) {
        refused++;
        const answer: {
          statusCode: number;
          data: object;
          responseOptions: { headers: Record<string, string> };
        } = {
          statusCode: 429,
          data: { code: 429, message: "rate limit exceeded" },
          responseOptions: {
            headers: { ...headers, "retry-after": String(Math.ceil((resetMs - now) / 1000)) },
          },
        };
        if (!options.holdRefusals) return answer;
        return new Promise<typeof answer>((resolve) => held.push(() => resolve(answer)));
      }
      const id = opts.path.split("/").pop()!;
      servedIn.set(id, window);
      return { statusCode: 200, data: { id, name: id }, responseOptions: { headers } };
    })
    .persist();
  return {
    agent,
    servedIn,
    held,
    refused: () => refused,
    requests: () => requests,
  };
}

/** A client of `svc` on `clock`. */
const clientOf = (clock: ManualClock, svc: ReturnType<typeof service>) =>
  new ObservabilityClient({
    url: ORIGIN,
    token: "t",
    maxRetries: 10,
    retry: { baseDelayMs: 50 },
    dispatcher: svc.agent,
    clock,
  });

const idOf = (k: number) => `role_${String(k).padStart(2, "0")}`;

it("serves requests waiting for a window in arrival order; a refused one keeps its place", async () => {
  const clock = new ManualClock(T0);
  const svc = service(clock);
  const client = clientOf(clock, svc);
  // 8 requests at once (the client knows no window yet, so 4 of them are refused), then 12 more, one every
  // 200 ms: 10 a window against a limit of 4.
  const BURST = 8;
  const arrival = (k: number) => Math.max(0, k - BURST + 1) * (WINDOW_MS / 10);
  const waits = new Map<number, number>();
  const get = (k: number) => {
    const started = clock.now();
    void client.roles.get(idOf(k)).then(() => waits.set(k, clock.now() - started));
  };
  for (let k = 0; k < BURST; k++) get(k);
  for (let k = BURST; k < 20; k++) clock.setTimer(() => get(k), arrival(k));
  await runUntil(clock, () => waits.size === 20);
  await client.close();
  await svc.agent.close();
  expect(svc.refused()).toBe(LIMIT);
  expect(svc.requests()).toBe(20 + LIMIT);
  for (let k = 0; k < 20; k++) {
    // Each window serves the limit, oldest first: request k in window floor(k / 4), its place in line, at the
    // window's start; the burst's refused ones (4 to 7) first in the next window, before anything made later.
    const window = Math.floor(k / LIMIT);
    expect([k, svc.servedIn.get(idOf(k))]).toEqual([k, window]);
    expect([k, waits.get(k)]).toEqual([k, window * WINDOW_MS - arrival(k)]);
  }
});

it("a refusal read after its window ended (a stalled event loop) keeps its place: it goes at once, before later requests", async () => {
  const clock = new ManualClock(T0);
  const svc = service(clock, { holdRefusals: true });
  const client = clientOf(clock, svc);
  const done = new Set<number>();
  const get = (k: number) => void client.roles.get(idOf(k)).then(() => done.add(k));
  for (let k = 0; k < 8; k++) get(k);
  // Four more, made 50 ms into the next window.
  for (let k = 8; k < 12; k++) clock.setTimer(() => get(k), WINDOW_MS + 50);
  await settle();
  // The service served four in window 0 and refused four; their answers are read only after the loop stalled
  // past the reset, by when the four later requests are due too.
  expect(svc.held).toHaveLength(4);
  clock.stall(WINDOW_MS + 100);
  for (const release of svc.held) release();
  await runUntil(clock, () => done.size === 12);
  await client.close();
  await svc.agent.close();
  const windows = Array.from({ length: 12 }, (_, k) => svc.servedIn.get(idOf(k)));
  // Slept out Retry-After (two whole seconds), the refused ones would have come back after the later four had
  // taken window 1: served in window 2, behind requests made after them.
  expect(windows).toEqual([0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]);
});

it("a refused request goes ahead of requests made after it that already wait: its retry keeps its ticket", async () => {
  const clock = new ManualClock(T0);
  const svc = service(clock, { holdRefusals: true });
  const client = clientOf(clock, svc);
  const done = new Set<number>();
  const get = (k: number) => void client.roles.get(idOf(k)).then(() => done.add(k));
  for (let k = 0; k < 8; k++) get(k);
  await settle();
  expect(svc.held).toHaveLength(4);
  // Four more are made while the refusals are still on their way back; they wait for the window's end.
  clock.stall(500);
  for (let k = 8; k < 12; k++) get(k);
  await settle();
  for (const release of svc.held) release();
  await runUntil(clock, () => done.size === 12);
  await client.close();
  await svc.agent.close();
  const windows = Array.from({ length: 12 }, (_, k) => svc.servedIn.get(idOf(k)));
  expect(windows).toEqual([0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]);
});
