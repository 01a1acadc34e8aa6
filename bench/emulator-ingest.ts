/**
 * Ingest throughput of one emulator: NDJSON batches of 10,000 events (~200 bytes each), 1,000,000 events in
 * all, over keep-alive undici. Prints events/s. Run after `npm run build`:
 *   node_modules/.bin/node bench/emulator-ingest.ts
 */
// Plain require of the build output, so Node runs this file with type stripping alone (no ts-node).
const { startEmulator } = require("../dist/emulator/index.js") as typeof import("../emulator");
const { Pool } = require("undici") as typeof import("undici");

const TOTAL = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const BATCH = 10_000;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 2);

/** One NDJSON batch of about 200-byte events, with distinct times so the store sees realistic rows. */
function batch(offset: number): Buffer {
  const base = Date.UTC(2024, 0, 1);
  const lines: string[] = new Array(BATCH);
  for (let i = 0; i < BATCH; i++) {
    const n = offset + i;
    lines[i] = JSON.stringify({
      _time: new Date(base + n).toISOString(),
      service: `svc-${n % 17}`,
      level: n % 10 === 0 ? "error" : "info",
      status: 200 + (n % 5) * 100,
      duration_ms: (n * 7919) % 5000,
      path: `/api/v1/items/${n % 1000}`,
      message: "request handled by the frontend tier ok",
      // Brings each line to about 200 bytes, the size the target is stated for (it was 181 without).
      user: `user-${n % 5000}`,
    });
  }
  return Buffer.from(lines.join("\n"));
}

async function main(): Promise<void> {
  const em = await startEmulator({ port: 0, datasets: ["bench"] });
  const pool = new Pool(em.url, { connections: CONCURRENCY, pipelining: 1 });
  const bodies = Array.from({ length: TOTAL / BATCH }, (_, i) => batch(i * BATCH));
  const bytes = bodies.reduce((a, b) => a + b.length, 0);
  const headers = { authorization: `Bearer ${em.token}`, "content-type": "application/x-ndjson" };
  let next = 0;
  let ingested = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < bodies.length) {
        const body = bodies[next++];
        const res = await pool.request({ method: "POST", path: "/v1/datasets/bench/ingest", headers, body });
        const result = (await res.body.json()) as { ingested: number };
        if (res.statusCode !== 200) throw new Error(`ingest failed: ${res.statusCode}`);
        ingested += result.ingested;
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  await pool.close();
  await em.close();
  if (ingested !== TOTAL) throw new Error(`ingested ${ingested} of ${TOTAL}`);
  console.log(
    `emulator ingest: ${TOTAL.toLocaleString("en")} events (${(bytes / TOTAL).toFixed(0)} B each) in ` +
      `${seconds.toFixed(2)} s = ${Math.round(TOTAL / seconds).toLocaleString("en")} events/s ` +
      `(${(bytes / seconds / 1e6).toFixed(1)} MB/s, batches of ${BATCH}, ${CONCURRENCY} connections)`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
