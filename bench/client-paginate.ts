/**
 * Paging: `client.paginate` (timestamp mode) against a hand-written paging loop over raw undici requests,
 * side by side against one emulator holding the same dataset. The emulator runs in a child process, so only
 * the paging side is measured here; runs are interleaved A B A B; medians, min/max and the ratio are printed.
 *
 *   npm run build && node_modules/.bin/node --expose-gc bench/client-paginate.ts [events] [rounds] [pageSize]
 */
// A block, not a module: `export {}` would make Node parse this file as ESM, where `require` is absent;
// the block keeps these names out of the global scope the other bench scripts share when type-checked.
{
  const { ObservabilityClient } = require("../dist/provider/client") as typeof import("../provider/client");
  const { interleave, printComparison, runWithEmulator } =
    require("./client-harness.ts") as typeof import("./client-harness");
  const { Pool } = require("undici") as typeof import("undici");
  const path = require("node:path") as typeof import("node:path");

  const EVENTS = Number(process.argv[2] ?? 25_000);
  const ROUNDS = Number(process.argv[3] ?? 9);
  const PAGE = Number(process.argv[4] ?? 1000);
  const WINDOW = { startTime: "2024-01-01T00:00:00Z", endTime: "2024-02-01T00:00:00Z" };

  interface Row {
    _time: string;
    _rowId: string;
  }

  async function bench(url: string, token: string): Promise<void> {
    const client = new ObservabilityClient({ url, token });
    // Groups of 5 rows share a timestamp, so page boundaries split groups and dedup matters.
    const events = Array.from({ length: EVENTS }, (_, i) => ({
      _time: new Date(Date.UTC(2024, 0, 1) + Math.floor(i / 5) * 1000).toISOString(),
      i,
      msg: `event ${i}`,
    }));
    await client.datasets.create({ name: "bench" });
    await client.ingest("bench", events);
    const pool = new Pool(url, { connections: 16, keepAliveTimeout: 30_000 });

    // A: the client.
    const viaClient = async (): Promise<number> => {
      const started = performance.now();
      let n = 0;
      for await (const _row of client.paginate("['bench']", { ...WINDOW, order: "desc", pageSize: PAGE }))
        n++;
      if (n !== EVENTS) throw new Error(`client paged ${n} rows`);
      return performance.now() - started;
    };

    // B: what a user would write by hand: the same requests, endTime moved to the last row, dedup by _rowId.
    const byHand = async (): Promise<number> => {
      const started = performance.now();
      const apl = `['bench'] | sort by _time desc | limit ${PAGE}`;
      let endTime = WINDOW.endTime;
      let boundary = "";
      let seen = new Set<string>();
      let n = 0;
      for (;;) {
        const res = await pool.request({
          path: "/v1/datasets/_apl?format=legacy",
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ apl, startTime: WINDOW.startTime, endTime }),
        });
        const page = (await res.body.json()) as { matches: Row[] };
        if (page.matches.length === 0) break;
        for (const row of page.matches) {
          if (row._time === boundary && seen.has(row._rowId)) continue;
          if (row._time !== boundary) {
            boundary = row._time;
            seen = new Set();
          }
          seen.add(row._rowId);
          n++;
        }
        if (page.matches.length < PAGE) break;
        endTime = page.matches[page.matches.length - 1]._time;
      }
      if (n !== EVENTS) throw new Error(`hand-written loop paged ${n} rows`);
      return performance.now() - started;
    };

    const times = await interleave(ROUNDS, viaClient, byHand);
    printComparison(
      `paginate ${EVENTS} events, page ${PAGE}, ${ROUNDS} rounds (interleaved A B A B, emulator in a child process)`,
      { label: "A client.paginate", times: times.a, cpu: times.cpuA },
      { label: "B hand-written loop", times: times.b, cpu: times.cpuB },
    );
    await client.close();
    await pool.close();
  }

  runWithEmulator(path.resolve(__dirname, ".."), bench);
}
