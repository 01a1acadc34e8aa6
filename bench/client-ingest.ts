/**
 * Ingest throughput: `client.ingest` against raw undici requests of the same gzip NDJSON batches, side by
 * side against one emulator, interleaved A B A B, medians and the ratio printed.
 *
 *   npm run build && node_modules/.bin/node bench/client-ingest.ts [events] [rounds]
 *
 * Runtime code comes from dist/ (compiled), so the figures are those of the shipped JavaScript.
 */
// A block, not a module: `export {}` would make Node parse this file as ESM, where `require` is absent;
// the block keeps these names out of the global scope the other bench scripts share when type-checked.
{
  const { ObservabilityClient } = require("../dist/provider/client") as typeof import("../provider/client");
  const { startEmulator } = require("../dist/emulator") as typeof import("../emulator");
  const { Pool } = require("undici") as typeof import("undici");
  const { promisify } = require("node:util") as typeof import("node:util");
  const zlib = require("node:zlib") as typeof import("node:zlib");

  const gzip = promisify(zlib.gzip);
  const EVENTS = Number(process.argv[2] ?? 50_000);
  const ROUNDS = Number(process.argv[3] ?? 5);
  const BATCH = 10_000;

  function makeEvents(n: number): Record<string, unknown>[] {
    return Array.from({ length: n }, (_, i) => ({
      _time: new Date(Date.UTC(2024, 0, 1) + i).toISOString(),
      level: i % 10 === 0 ? "error" : "info",
      status: 200 + (i % 5),
      path: `/api/v1/items/${i % 1000}`,
      durationMs: i % 997,
    }));
  }

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

  async function main(): Promise<void> {
    const em = await startEmulator({ port: 0, host: "127.0.0.1" });
    const events = makeEvents(EVENTS);
    const client = new ObservabilityClient({ url: em.url, token: em.token });
    const pool = new Pool(em.url, { connections: 16 });
    let run = 0;

    // A: the client: batching, serialization, gzip and the request, with retries and parsing.
    const viaClient = async (): Promise<number> => {
      const started = performance.now();
      const summary = await client.ingest(`bench-client-${run++}`, events);
      if (summary.ingested !== EVENTS) throw new Error(`client ingested ${summary.ingested}`);
      return performance.now() - started;
    };

    // B: the same work by hand: 10,000-event NDJSON batches, gzip (same level), one undici request each.
    const viaUndici = async (): Promise<number> => {
      const started = performance.now();
      const dataset = `bench-raw-${run++}`;
      let ingested = 0;
      for (let i = 0; i < events.length; i += BATCH) {
        const text =
          events
            .slice(i, i + BATCH)
            .map((e) => JSON.stringify(e))
            .join("\n") + "\n";
        const body = await gzip(text, { level: zlib.constants.Z_BEST_SPEED });
        const res = await pool.request({
          path: `/v1/datasets/${dataset}/ingest`,
          method: "POST",
          headers: {
            authorization: `Bearer ${em.token}`,
            "content-type": "application/x-ndjson",
            "content-encoding": "gzip",
          },
          body,
        });
        const result = (await res.body.json()) as { ingested: number };
        ingested += result.ingested;
      }
      if (ingested !== EVENTS) throw new Error(`raw ingested ${ingested}`);
      return performance.now() - started;
    };

    await viaClient(); // warm-up both paths (JIT, connections)
    await viaUndici();
    const a: number[] = [];
    const b: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      a.push(await viaClient());
      b.push(await viaUndici());
    }
    const [ma, mb] = [median(a), median(b)];
    const rate = (ms: number) => Math.round(EVENTS / (ms / 1000)).toLocaleString("en-US");
    console.log(`ingest ${EVENTS} events x ${ROUNDS} rounds (interleaved A B A B)`);
    console.log(
      `  A client.ingest     median ${ma.toFixed(1)} ms  (${rate(ma)} events/s)  runs ${a.map((x) => x.toFixed(0)).join(" ")}`,
    );
    console.log(
      `  B raw undici        median ${mb.toFixed(1)} ms  (${rate(mb)} events/s)  runs ${b.map((x) => x.toFixed(0)).join(" ")}`,
    );
    console.log(`  ratio A/B time      ${(ma / mb).toFixed(3)}  (goal <= 1.10)`);
    await client.close();
    await pool.close();
    await em.close();
  }

  main().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
