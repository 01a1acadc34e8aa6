/**
 * Ingest throughput: `client.ingest` against raw undici requests of the same gzip NDJSON batches, side by
 * side against one emulator. The emulator runs in a child process, so only the sending side is measured
 * here; runs are interleaved A B A B; medians, min/max and the ratio are printed.
 *
 *   npm run build && node_modules/.bin/node --expose-gc bench/client-ingest.ts [events] [rounds]
 *
 * Runtime code comes from dist/ (compiled), so the figures are those of the shipped JavaScript.
 */
// A block, not a module: `export {}` would make Node parse this file as ESM, where `require` is absent;
// the block keeps these names out of the global scope the other bench scripts share when type-checked.
{
  const { ObservabilityClient } = require("../dist/provider/client") as typeof import("../provider/client");
  const { interleave, printComparison, runWithEmulator } =
    require("./client-harness.ts") as typeof import("./client-harness");
  const path = require("node:path") as typeof import("node:path");
  const { Pool } = require("undici") as typeof import("undici");
  const { promisify } = require("node:util") as typeof import("node:util");
  const zlib = require("node:zlib") as typeof import("node:zlib");

  const gzip = promisify(zlib.gzip);
  const EVENTS = Number(process.argv[2] ?? 50_000);
  const ROUNDS = Number(process.argv[3] ?? 7);
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

  async function bench(url: string, token: string): Promise<void> {
    const events = makeEvents(EVENTS);
    const client = new ObservabilityClient({ url, token });
    const pool = new Pool(url, { connections: 16, keepAliveTimeout: 30_000 });
    let run = 0;

    // A: the client: batching, serialization, gzip and the request, with retries and parsing.
    // Each run ingests into a dataset of its own, created (outside the timing) first: the service refuses ingest
    // into a dataset that was never created.
    const viaClient = async (): Promise<number> => {
      const dataset = `bench-client-${run++}`;
      await client.datasets.create({ name: dataset });
      const started = performance.now();
      const summary = await client.ingest(dataset, events);
      if (summary.ingested !== EVENTS) throw new Error(`client ingested ${summary.ingested}`);
      return performance.now() - started;
    };

    // B: the same work by hand: 10,000-event NDJSON batches, gzip (same level), one undici request each.
    const viaUndici = async (): Promise<number> => {
      const dataset = `bench-raw-${run++}`;
      await client.datasets.create({ name: dataset });
      const started = performance.now();
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
            authorization: `Bearer ${token}`,
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

    const times = await interleave(ROUNDS, viaClient, viaUndici);
    const rate = (ms: number) => `${Math.round(EVENTS / (ms / 1000)).toLocaleString("en-US")} events/s`;
    printComparison(
      `ingest ${EVENTS} events x ${ROUNDS} rounds (interleaved A B A B, emulator in a child process)`,
      { label: "A client.ingest", times: times.a, cpu: times.cpuA, rate },
      { label: "B raw undici", times: times.b, cpu: times.cpuB, rate },
    );
    await client.close();
    await pool.close();
  }

  runWithEmulator(path.resolve(__dirname, ".."), bench);
}
