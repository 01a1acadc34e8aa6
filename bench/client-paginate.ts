/**
 * Paging: `client.paginate` (timestamp mode) against a hand-written paging loop over raw undici requests,
 * side by side against one emulator holding the same dataset, interleaved A B A B, medians and ratio printed.
 *
 *   npm run build && node_modules/.bin/node bench/client-paginate.ts [events] [rounds] [pageSize]
 */
// A block, not a module: `export {}` would make Node parse this file as ESM, where `require` is absent;
// the block keeps these names out of the global scope the other bench scripts share when type-checked.
{
  const { ObservabilityClient } = require("../dist/provider/client") as typeof import("../provider/client");
  const { startEmulator } = require("../dist/emulator") as typeof import("../emulator");
  const { Pool } = require("undici") as typeof import("undici");

  const EVENTS = Number(process.argv[2] ?? 25_000);
  const ROUNDS = Number(process.argv[3] ?? 5);
  const PAGE = Number(process.argv[4] ?? 1000);
  const WINDOW = { startTime: "2024-01-01T00:00:00Z", endTime: "2024-02-01T00:00:00Z" };

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

  interface Row {
    _time: string;
    _rowId: string;
  }

  async function main(): Promise<void> {
    const em = await startEmulator({ port: 0, host: "127.0.0.1" });
    const client = new ObservabilityClient({ url: em.url, token: em.token });
    // Groups of 5 rows share a timestamp, so page boundaries split groups and dedup matters.
    const events = Array.from({ length: EVENTS }, (_, i) => ({
      _time: new Date(Date.UTC(2024, 0, 1) + Math.floor(i / 5) * 1000).toISOString(),
      i,
      msg: `event ${i}`,
    }));
    await client.ingest("bench", events);
    const pool = new Pool(em.url, { connections: 4 });

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
          headers: { authorization: `Bearer ${em.token}`, "content-type": "application/json" },
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

    await viaClient();
    await byHand();
    const a: number[] = [];
    const b: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      a.push(await viaClient());
      b.push(await byHand());
    }
    const [ma, mb] = [median(a), median(b)];
    console.log(`paginate ${EVENTS} events, page ${PAGE}, ${ROUNDS} rounds (interleaved A B A B)`);
    console.log(
      `  A client.paginate   median ${ma.toFixed(1)} ms  runs ${a.map((x) => x.toFixed(0)).join(" ")}`,
    );
    console.log(
      `  B hand-written loop median ${mb.toFixed(1)} ms  runs ${b.map((x) => x.toFixed(0)).join(" ")}`,
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
