/** Ingest and query quotas: `X-IngestLimit-*` / `X-QueryLimit-*` headers, and 430 past the quota. */
import { gzipSync } from "node:zlib";
import { DEFAULT_INGEST_QUOTA_BYTES, DEFAULT_QUERY_QUOTA, startEmulator } from "../../emulator";
import { Quota, quotaKindOf } from "../../emulator/quota";
import { api, useEmulator } from "../helpers/emulator";

const INGEST_QUOTA = 1000;
const QUERY_QUOTA = 4;
const em = useEmulator({
  ingestQuotaBytes: INGEST_QUOTA,
  queryQuota: QUERY_QUOTA,
  datasets: ["quota-i", "logs"],
});
const plain = useEmulator({ datasets: ["d", "logs"] });

/** Unix seconds of the first instant of next UTC month: when a monthly quota resets. */
function nextMonthSeconds(): number {
  const d = new Date();
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 1000;
}

const ndjson = (events: object[]) => events.map((e) => JSON.stringify(e)).join("\n");
const ingest = (dataset: string, body: string | Buffer, headers: Record<string, string> = {}) =>
  api(em.current, "POST", `/v1/datasets/${dataset}/ingest`, body, {
    "content-type": "application/x-ndjson",
    ...headers,
  });
const ALL_TIME = { startTime: "2000-01-01T00:00:00Z", endTime: "now+1h" };
const headersOf = (h: Record<string, string>, prefix: string) => ({
  limit: Number(h[`${prefix}-limit`]),
  remaining: Number(h[`${prefix}-remaining`]),
  reset: Number(h[`${prefix}-reset`]),
});

describe("headers", () => {
  it("without quota options, ingest and query report the defaults (license 500 GB; 1,000,000 queries)", async () => {
    const body = ndjson([{ a: 1 }]);
    const i = await api(plain.current, "POST", "/v1/datasets/d/ingest", body);
    expect(i.status).toBe(200);
    expect(headersOf(i.headers, "x-ingestlimit")).toEqual({
      limit: DEFAULT_INGEST_QUOTA_BYTES,
      remaining: DEFAULT_INGEST_QUOTA_BYTES - Buffer.byteLength(body),
      reset: nextMonthSeconds(),
    });
    const q = await api(plain.current, "POST", "/v1/datasets/_apl", { apl: "['d']", ...ALL_TIME });
    expect(q.status).toBe(200);
    expect(headersOf(q.headers, "x-querylimit")).toEqual({
      limit: DEFAULT_QUERY_QUOTA,
      remaining: DEFAULT_QUERY_QUOTA - 1,
      reset: nextMonthSeconds(),
    });
  });

  it("management responses carry no quota headers; query responses no ingest headers and vice versa", async () => {
    const m = await api(plain.current, "GET", "/v2/monitors");
    expect(Object.keys(m.headers).filter((k) => /^x-(ingest|query)limit/.test(k))).toEqual([]);
    const i = await api(plain.current, "POST", "/v1/datasets/d/ingest", ndjson([{ a: 1 }]));
    expect(i.headers["x-querylimit-limit"]).toBeUndefined();
    const q = await api(plain.current, "POST", "/v1/datasets/d/query", ALL_TIME);
    expect(q.headers["x-ingestlimit-limit"]).toBeUndefined();
    expect(q.headers["x-querylimit-limit"]).toBe(String(DEFAULT_QUERY_QUOTA));
  });

  it("a 429 (rate limit) on ingest or query still carries that path's quota headers", async () => {
    const windowMs = 4_000;
    const limited = await startEmulator({
      port: 0,
      rateLimit: 1,
      rateLimitWindowMs: windowMs,
      // Held still, so that both requests fall in one window whatever the pace of the machine.
      clock: () => Date.UTC(2030, 0, 1),
      ingestQuotaBytes: 5000,
      datasets: ["r"],
    });
    try {
      expect((await api(limited, "POST", "/v1/datasets/r/ingest", ndjson([{ a: 1 }]))).status).toBe(200);
      const i = await api(limited, "POST", "/v1/datasets/r/ingest", ndjson([{ a: 2 }]));
      expect(i.status).toBe(429);
      expect(headersOf(i.headers, "x-ingestlimit")).toEqual({
        limit: 5000,
        remaining: 5000 - Buffer.byteLength('{"a":1}'),
        // The quota's month is the emulator's clock's: the held one's next month.
        reset: Date.UTC(2030, 1, 1) / 1000,
      });
      const q = await api(limited, "POST", "/v1/datasets/_apl", { apl: "['r']" });
      expect(q.status).toBe(429);
      expect(headersOf(q.headers, "x-querylimit")).toMatchObject({ limit: DEFAULT_QUERY_QUOTA });
    } finally {
      await limited.close();
    }
  });

  it.each([
    ["/v1/datasets/logs/ingest", "the ingest quota", "ingest"],
    ["/v1/datasets/_apl", "the query quota", "query"],
    ["/v1/datasets/logs/query", "the query quota", "query"],
    ["/v2/annotations", "no quota", undefined],
    ["/v1/datasets/logs/ingest/x", "no quota", undefined],
  ])("path %s counts against %s", (path, _label, kind) => {
    expect(quotaKindOf(path)).toBe(kind);
  });
});

describe("ingest quota", () => {
  it("counts gzip-decoded bytes, refuses with 430 what would pass it, and applies nothing then", async () => {
    const first = ndjson(Array.from({ length: 10 }, (_, i) => ({ i, pad: "x".repeat(30) })));
    const firstBytes = Buffer.byteLength(first);
    const a = await ingest("quota-i", gzipSync(first), { "content-encoding": "gzip" });
    expect(a.status).toBe(200);
    expect(a.body.processedBytes).toBe(firstBytes);
    expect(headersOf(a.headers, "x-ingestlimit")).toMatchObject({
      limit: INGEST_QUOTA,
      remaining: INGEST_QUOTA - firstBytes,
    });

    const tooBig = ndjson([{ pad: "y".repeat(INGEST_QUOTA - firstBytes) }]);
    const refused = await ingest("quota-i", tooBig);
    expect(refused.status).toBe(430);
    expect(refused.headers["content-type"]).toMatch(/^application\/json/);
    expect(refused.body).toEqual({
      code: 430,
      message: expect.stringMatching(
        /^ingest quota exceeded: \d+ more bytes would pass the monthly limit of 1000 bytes/,
      ),
    });
    // Not charged, not stored.
    expect(headersOf(refused.headers, "x-ingestlimit").remaining).toBe(INGEST_QUOTA - firstBytes);
    const count = await api(em.current, "POST", "/v1/datasets/quota-i/query", ALL_TIME);
    expect(count.body.matches).toHaveLength(10);

    // What still fits is accepted, up to exactly the quota.
    const rest = INGEST_QUOTA - firstBytes;
    const exact = ndjson([{ p: "z".repeat(rest - Buffer.byteLength('{"p":""}')) }]);
    expect(Buffer.byteLength(exact)).toBe(rest);
    const b = await ingest("quota-i", exact);
    expect(b.status).toBe(200);
    expect(headersOf(b.headers, "x-ingestlimit").remaining).toBe(0);
    const after = await ingest("quota-i", ndjson([{}]));
    expect(after.status).toBe(430);
  });
});

describe("query quota", () => {
  it("counts each query answered 200 on both endpoints; a 400 costs nothing; past the quota, 430", async () => {
    const apl = () =>
      api(em.current, "POST", "/v1/datasets/_apl", { apl: "['quota-i'] | limit 1", ...ALL_TIME });
    const legacy = () => api(em.current, "POST", "/v1/datasets/quota-i/query", { ...ALL_TIME, limit: 1 });
    // The ingest test above ran one legacy query already.
    const used = 1;
    const r1 = await apl();
    expect(r1.status).toBe(200);
    expect(headersOf(r1.headers, "x-querylimit")).toEqual({
      limit: QUERY_QUOTA,
      remaining: QUERY_QUOTA - used - 1,
      reset: nextMonthSeconds(),
    });
    const bad = await api(em.current, "POST", "/v1/datasets/_apl", { apl: "['quota-i'] | where (" });
    expect(bad.status).toBe(400);
    expect(bad.headers["x-querylimit-remaining"]).toBe(String(QUERY_QUOTA - used - 1));
    expect((await legacy()).status).toBe(200);
    const last = await apl();
    expect(last.status).toBe(200);
    expect(last.headers["x-querylimit-remaining"]).toBe("0");
    for (const refused of [await apl(), await legacy()]) {
      expect(refused.status).toBe(430);
      expect(refused.body).toEqual({
        code: 430,
        message: expect.stringMatching(/^query quota exceeded: .*monthly limit of 4 queries \(0 left\)/),
      });
      expect(refused.headers["x-querylimit-remaining"]).toBe("0");
    }
  });
});

describe("the Quota period", () => {
  it("starts again from zero at the first instant of the next UTC month", () => {
    let now = Date.UTC(2024, 1, 29, 23, 59, 59, 999);
    const q = new Quota(10, () => now);
    q.charge(10);
    expect(q.fits(1)).toBe(false);
    expect(q.reading()).toEqual({ limit: 10, remaining: 0, resetSeconds: Date.UTC(2024, 2, 1) / 1000 });
    now += 1;
    expect(q.fits(10)).toBe(true);
    expect(q.reading()).toEqual({ limit: 10, remaining: 10, resetSeconds: Date.UTC(2024, 3, 1) / 1000 });
  });

  it.each([
    ["ingestQuotaBytes 0", { ingestQuotaBytes: 0 }, /ingestQuotaBytes must be a positive integer/],
    ["ingestQuotaBytes 1.5", { ingestQuotaBytes: 1.5 }, /ingestQuotaBytes must be a positive integer/],
    ["queryQuota -1", { queryQuota: -1 }, /queryQuota must be a positive integer/],
  ])("startEmulator refuses %s", async (_name, options, message) => {
    await expect(startEmulator({ ...options, port: 0 })).rejects.toThrow(message);
  });
});
