/**
 * Benchmark: `where` + `sort by _time desc` + `limit 1000` over 1,000,000 stored events (target: <= 300 ms).
 * Runs the compiled code in dist/, so build first:
 *   npm run build && node_modules/.bin/node --experimental-strip-types bench/emulator-query.ts [--no-http]
 * Prints the median of several runs straight through runAplQuery, then through HTTP against an emulator
 * that was filled through its ingest endpoint. With `--baseline <dir>` (a checkout whose dist/ is an older build),
 * the direct runs alternate between that build's runAplQuery and this one's over the same store, and the ratio of
 * their medians is printed: one run, same load, side by side.
 */
import path from "node:path";
import { EventStore, type IncomingEvent } from "../dist/emulator/store/events.js";
import { runAplQuery } from "../dist/emulator/query/index.js";
import { startEmulator } from "../dist/emulator/index.js";

const TOTAL = 1_000_000;
const BATCH = 10_000;
const RUNS = 7;
const QUERY = "['bench'] | where status >= 500 and service == \"api\" | sort by _time desc | limit 1000";
const SERVICES = ["api", "web", "worker", "auth", "billing"];
const METHODS = ["GET", "POST", "PUT", "DELETE"];
const T0 = 1_704_067_200_000_000_000n;

/** About ten fields per event; status 5xx on ~6% of events, so the filter keeps roughly 1.2%. */
function eventData(i: number): Record<string, unknown> {
  return {
    status: i % 17 === 0 ? 500 + (i % 4) : 200 + (i % 3),
    service: SERVICES[i % SERVICES.length],
    method: METHODS[i % METHODS.length],
    path: `/v1/items/${i % 1000}`,
    duration: (i % 997) / 10,
    bytes: (i * 7919) % 100_000,
    user: `user-${i % 5000}`,
    region: i % 2 ? "eu-west-1" : "us-east-1",
    host: `host-${i % 64}`,
    msg: `request ${i} handled`,
  };
}

/** Several events share each timestamp, as real logs do. */
function timeOf(i: number): bigint {
  return T0 + BigInt(Math.floor(i / 3)) * 1_000_000n;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function timeRuns(run: () => Promise<number> | number): Promise<{ times: number[]; rows: number }> {
  const times: number[] = [];
  let rows = 0;
  for (let r = 0; r < RUNS; r++) {
    const t = performance.now();
    rows = await run();
    times.push(performance.now() - t);
  }
  return { times, rows };
}

async function direct(): Promise<void> {
  const store = new EventStore();
  const t = performance.now();
  for (let start = 0; start < TOTAL; start += BATCH) {
    const batch: IncomingEvent[] = [];
    for (let i = start; i < start + BATCH; i++) batch.push({ timeNs: timeOf(i), data: eventData(i) });
    store.append("bench", batch, T0);
  }
  console.log(`store: ${TOTAL} events appended in ${(performance.now() - t).toFixed(0)} ms`);
  let matched = 0;
  const { times, rows } = await timeRuns(async () => {
    const res = await runAplQuery(store, { apl: QUERY }, "legacy");
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    const body = res.body as { matches: unknown[]; status: { rowsMatched: number } };
    matched = body.status.rowsMatched;
    return body.matches.length;
  });
  const at = process.argv.indexOf("--baseline");
  if (at > 0) {
    const dir = path.resolve(process.argv[at + 1]);
    const base = (await import(path.join(dir, "dist/emulator/query/index.js"))) as {
      runAplQuery: typeof runAplQuery;
    };
    const a: number[] = [];
    const b: number[] = [];
    for (let r = 0; r < 2 * RUNS + 1; r++) {
      for (const [fn, into] of [
        [base.runAplQuery, a],
        [runAplQuery, b],
      ] as const) {
        const t = performance.now();
        const res = await fn(store, { apl: QUERY }, "legacy");
        into.push(performance.now() - t);
        if (res.status !== 200) throw new Error(JSON.stringify(res.body));
      }
    }
    console.log(
      `side by side, ${a.length} alternating runs each: baseline median ${median(a).toFixed(1)} ms, ` +
        `this build ${median(b).toFixed(1)} ms, ratio ${(median(b) / median(a)).toFixed(2)}×`,
    );
  }
  const m = median(times);
  console.log(
    `runAplQuery: median ${m.toFixed(1)} ms over ${RUNS} runs (min ${Math.min(...times).toFixed(1)}, max ${Math.max(...times).toFixed(1)}); ` +
      `${rows} rows returned, ${matched} matched; target <= 300 ms: ${m <= 300 ? "PASS" : "FAIL"}`,
  );
}

async function overHttp(): Promise<void> {
  const em = await startEmulator({ port: 0, host: "127.0.0.1", datasets: ["bench"] });
  const headers = { authorization: `Bearer ${em.token}` };
  try {
    const t = performance.now();
    for (let start = 0; start < TOTAL; start += BATCH) {
      const lines: string[] = [];
      for (let i = start; i < start + BATCH; i++) {
        lines.push(JSON.stringify({ _time: Number(timeOf(i) / 1_000_000n), ...eventData(i) }));
      }
      const res = await fetch(`${em.url}/v1/datasets/bench/ingest`, {
        method: "POST",
        headers: { ...headers, "content-type": "application/x-ndjson" },
        body: lines.join("\n"),
      });
      if (res.status !== 200) throw new Error(`ingest: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    }
    console.log(`http: ${TOTAL} events ingested in ${(performance.now() - t).toFixed(0)} ms`);
    const { times, rows } = await timeRuns(async () => {
      const res = await fetch(`${em.url}/v1/datasets/_apl?format=legacy`, {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify({ apl: QUERY }),
      });
      const body = (await res.json()) as { matches: unknown[] };
      if (res.status !== 200) throw new Error(JSON.stringify(body));
      return body.matches.length;
    });
    const m = median(times);
    console.log(
      `http _apl: median ${m.toFixed(1)} ms over ${RUNS} runs (min ${Math.min(...times).toFixed(1)}); ${rows} rows; ` +
        `target <= 300 ms: ${m <= 300 ? "PASS" : "FAIL"}`,
    );
  } finally {
    await em.close();
  }
}

async function main(): Promise<void> {
  console.log(`query: ${QUERY}`);
  await direct();
  if (!process.argv.includes("--no-http")) await overHttp();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
