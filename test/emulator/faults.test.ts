/** Fault injection and rate limiting: seeded, deterministic, and faulted requests have no effect. */
import { FaultInjector, parseFaultSpec } from "../../emulator/faults";
import { api, useEmulator, type ApiResponse } from "../helpers/emulator";
import type { RunningEmulator } from "../../emulator";

/** One request; a dropped connection is reported as status 0. */
async function attempt(
  em: RunningEmulator,
  method: string,
  path: string,
  body?: unknown,
): Promise<ApiResponse> {
  try {
    return await api(em, method, path, body);
  } catch (err) {
    expect((err as { code?: string }).code).toMatch(/^(UND_ERR_SOCKET|ECONNRESET|UND_ERR_CLOSED)$/);
    return { status: 0, headers: {}, body: undefined, text: "" };
  }
}

/** Retries a GET through the faults until it succeeds. */
async function getThrough(em: RunningEmulator, path: string): Promise<ApiResponse> {
  for (let i = 0; i < 200; i++) {
    const res = await attempt(em, "GET", path);
    if (res.status === 200) return res;
  }
  throw new Error(`GET ${path} never succeeded`);
}

describe("fault spec parsing", () => {
  it("parses every kind, latency and seed", () => {
    expect(
      parseFaultSpec("429=0.05,500=0.02,502=0.02,503=0.02,drop=0.01,500after=0.01,latency=0.1:50,seed=42"),
    ).toEqual({
      rates: { "429": 0.05, "500": 0.02, "502": 0.02, "503": 0.02, drop: 0.01, "500after": 0.01 },
      latency: { rate: 0.1, ms: 50 },
      seed: 42,
    });
  });
  it.each([
    ["unknown kind", "404=0.1", /"404=0.1".*unknown kind "404"/],
    ["rate above 1", "500=1.5", /"500=1.5".*between 0 and 1/],
    ["rate not a number", "503=lots", /"503=lots"/],
    ["missing =", "drop", /"drop".*kind=rate/],
    ["bad latency", "latency=0.1", /"latency=0.1".*rate:ms/],
    ["bad seed", "seed=abc", /"seed=abc".*integer/],
    ["rates over 1 in total", "429=0.6,500=0.6", /add up to more than 1/],
  ])("%s is an error naming the part", (_name, spec, message) => {
    expect(() => parseFaultSpec(spec)).toThrow(message);
  });
});

describe("fault injector", () => {
  it("is deterministic for a seed and different across seeds", () => {
    const run = (seed: number) => {
      const f = new FaultInjector({ rates: { "429": 0.3, drop: 0.1 }, seed });
      return Array.from({ length: 200 }, () => f.decide().kind ?? "-").join(",");
    };
    expect(run(42)).toBe(run(42));
    expect(run(42)).not.toBe(run(43));
  });

  it("injects each kind at roughly its rate", () => {
    const rates = { "429": 0.05, "500": 0.02, "502": 0.02, "503": 0.02, drop: 0.01 } as const;
    const f = new FaultInjector({ rates, latency: { rate: 0.1, ms: 5 }, seed: 9 });
    const counts: Record<string, number> = {};
    let latency = 0;
    const n = 50_000;
    for (let i = 0; i < n; i++) {
      const d = f.decide();
      if (d.kind) counts[d.kind] = (counts[d.kind] ?? 0) + 1;
      if (d.latencyMs > 0) latency++;
    }
    for (const [kind, rate] of Object.entries(rates)) {
      expect(counts[kind] / n).toBeGreaterThan(rate * 0.8);
      expect(counts[kind] / n).toBeLessThan(rate * 1.2);
    }
    expect(latency / n).toBeGreaterThan(0.09);
    expect(latency / n).toBeLessThan(0.11);
  });
});

describe("faults over HTTP", () => {
  const em = useEmulator({ faults: "429=0.15,500=0.05,502=0.05,503=0.05,drop=0.05,seed=7" });

  it("answers with the injected kinds; the counts match the stats; faulted POSTs have no effect", async () => {
    const seen: Record<string, number> = {};
    let created = 0;
    for (let i = 0; i < 200; i++) {
      const res = await attempt(em.current, "POST", "/v2/annotations", { datasets: ["f"], type: "fault" });
      const key = res.status === 0 ? "drop" : String(res.status);
      seen[key] = (seen[key] ?? 0) + 1;
      if (res.status === 201) created++;
      if (res.status === 429) {
        expect(res.headers["retry-after"]).toBe("1");
        expect(res.body).toEqual({ code: 429, message: "rate limit exceeded" });
      }
      if (res.status >= 500) {
        expect(res.body).toEqual({ code: res.status, message: expect.any(String) });
        expect(res.headers["x-trace-id"]).toMatch(/^[0-9a-f]{32}$/);
      }
    }
    for (const kind of ["429", "500", "502", "503", "drop"]) {
      expect(seen[kind]).toBeGreaterThan(0);
      expect(em.current.stats.faults[kind]).toBe(seen[kind]);
    }
    expect(seen["429"]).toBeGreaterThan(seen["500"]);
    const list = await getThrough(em.current, "/v2/annotations");
    expect(list.body).toHaveLength(created);
  });
});

describe("same seed, same faults", () => {
  const a = useEmulator({ faults: "503=0.3,seed=11" });
  const b = useEmulator({ faults: "503=0.3,seed=11" });
  it("two emulators with one seed fail the same requests", async () => {
    const statuses = async (em: RunningEmulator) => {
      const out: number[] = [];
      for (let i = 0; i < 40; i++) out.push((await api(em, "GET", "/v2/monitors")).status);
      return out;
    };
    const sa = await statuses(a.current);
    expect(sa).toContain(503);
    expect(await statuses(b.current)).toEqual(sa);
  });
});

describe("500after: processed, then failed", () => {
  const em = useEmulator({ faults: "500after=0.5,seed=3" });
  it("a 500after request took effect", async () => {
    let ok = 0;
    let failedAfter = 0;
    for (let i = 0; i < 20; i++) {
      const res = await api(em.current, "POST", "/v2/annotations", { datasets: ["f"], type: "after" });
      if (res.status === 201) ok++;
      else {
        expect(res.status).toBe(500);
        expect(res.body.message).toContain("after processing");
        failedAfter++;
      }
    }
    expect(failedAfter).toBeGreaterThan(0);
    expect((await getThrough(em.current, "/v2/annotations")).body).toHaveLength(ok + failedAfter);
  });
});

describe("latency", () => {
  const em = useEmulator({ faults: "latency=1:120" });
  it("delays every request by the given milliseconds", async () => {
    const started = Date.now();
    const res = await api(em.current, "GET", "/v2/monitors");
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(110);
    expect(em.current.stats.faults.latency).toBe(1);
  });
});

/** A window's start: the rate-limit tests run the emulator on a clock they hold or move by hand. */
const T0 = Date.UTC(2030, 0, 1);

describe("rate limit", () => {
  const WINDOW_MS = 4_000;
  // Held 1.5 s into a window: every request falls in it, however long the machine takes.
  const em = useEmulator({ rateLimit: 5, rateLimitWindowMs: WINDOW_MS, clock: () => T0 + 1_500 });
  it("answers 429 with Retry-After after N requests in a window", async () => {
    const statuses: number[] = [];
    let limited: ApiResponse | undefined;
    for (let i = 0; i < 7; i++) {
      const res = await api(em.current, "GET", "/v2/monitors");
      statuses.push(res.status);
      if (res.status === 429) limited ??= res;
      expect(res.headers["x-ratelimit-limit"]).toBe("5");
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    expect(limited!.body).toEqual({ code: 429, message: "rate limit exceeded" });
    // 2.5 s to the window's end, in whole seconds rounded up.
    expect(limited!.headers["retry-after"]).toBe("3");
    expect(limited!.headers["x-ratelimit-reset"]).toBe(String((T0 + WINDOW_MS) / 1000));
    expect(limited!.headers["x-ratelimit-remaining"]).toBe("0");
    expect(em.current.stats.rateLimited).toBe(2);
  });
});

describe("a shorter rate-limit window (rateLimitWindowMs)", () => {
  let now = T0 + 20;
  const em = useEmulator({ rateLimit: 3, rateLimitWindowMs: 1_000, clock: () => now });

  it("refuses past the limit, then serves again once the window resets", async () => {
    const burst: number[] = [];
    for (let i = 0; i < 4; i++) burst.push((await api(em.current, "GET", "/v2/notifiers")).status);
    expect(burst).toEqual([200, 200, 200, 429]);
    const reset = Number((await api(em.current, "GET", "/v2/notifiers")).headers["x-ratelimit-reset"]);
    expect(reset * 1000).toBe(T0 + 1_000);
    // A millisecond before the reset the window is still used up; at the reset a new one begins.
    now = reset * 1000 - 1;
    expect((await api(em.current, "GET", "/v2/notifiers")).status).toBe(429);
    now = reset * 1000;
    expect((await api(em.current, "GET", "/v2/notifiers")).status).toBe(200);
  });
});
