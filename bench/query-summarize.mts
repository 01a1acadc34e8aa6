/**
 * Benchmark: the queries a backtest sends (cli/backtest), each a scan of a whole dataset into `summarize ... by
 * bin(_time, w)` (one of them with a second key), answered in the tabular format, over --events N events spread
 * over 30 days (default 5,000,000). Runs the compiled code in dist/, so build first:
 *   npx tsc -p tsconfig.json && node_modules/.bin/node bench/query-summarize.mts \
 *     [--events 5000000] [--runs 3] [--baseline <dir holding an older dist/>] [--only <text of a query's name>]
 * Each query goes through `runAplQuery` (parse, compile, execute, format), in process, over an event store filled
 * directly, and its body is written as the HTTP reply writes it (stringifyExactJson). With --baseline, runs
 * alternate between that build and this one over the same store, and each row shows both medians and their ratio:
 * one run, same load, side by side. Both builds' answers are compared too (a difference is printed).
 */
import path from "node:path";
import { loadavg } from "node:os";
import { EventStore, type IncomingEvent } from "../dist/emulator/store/events.js";
import { runAplQuery } from "../dist/emulator/query/index.js";
import { stringifyExactJson } from "../dist/emulator/http/exact-json.js";

const arg = (name: string): string | undefined => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};
const EVENTS = Number(arg("--events") ?? 5_000_000);
const RUNS = Number(arg("--runs") ?? 3);
const BASELINE = arg("--baseline");
/** Only the queries whose name holds this text (for a profile of one). */
const ONLY = arg("--only");
const DAYS = 30;
const T0 = Date.UTC(2026, 0, 1);
const END = T0 + DAYS * 86_400_000;
const SERVICES = ["checkout", "payments", "search", "auth", "catalog"];

// As cli/backtest/decompose.ts `rewrite` sends them: each monitor's own filter first (bench/backtest.mts gives each
// one a `where ms >= i`), the partials by fine bin, then sorted by bin before the limit.
const TAIL = "\n| sort by __bin asc\n| limit 50000";
const QUERIES: readonly { name: string; apl: string }[] = [
  {
    name: "where, count by 1m",
    apl:
      "['web'] | where ms >= 3 | where status >= 500\n| summarize __p0 = count(), __n = count() by __bin = bin(_time, 60000ms)" +
      TAIL,
  },
  {
    name: "max by 1m",
    apl:
      "['web'] | where ms >= 7\n| summarize __p0 = max(ms), __n = count() by __bin = bin(_time, 60000ms)" +
      TAIL,
  },
  {
    name: "sum, countif by 1m, service",
    apl:
      "['web']\n| summarize __p0s = sum(ms), __p0c = countif(isnotnull(ms)), __n = count() by __bin = bin(_time, 60000ms), " +
      "service = service" +
      TAIL,
  },
  {
    name: "where, sum, countif by 1m, service",
    apl:
      "['web'] | where ms >= 7\n| summarize __p0s = sum(ms), __p0c = countif(isnotnull(ms)), __n = count() by " +
      "__bin = bin(_time, 60000ms), service = service" +
      TAIL,
  },
  {
    name: "countif, sum by 5m",
    apl:
      "['web'] | where ms >= 4\n| summarize __p0 = countif(status >= 500), __p1 = sum(ms), __n = count() by __bin = bin(_time, 300000ms)" +
      TAIL,
  },
];

type Run = typeof runAplQuery;

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** The store: EVENTS events in time order, five services, an hour-long incident a day on one of them. */
function fill(): EventStore {
  const store = new EventStore();
  const step = (END - T0) / EVENTS;
  const sys = BigInt(END) * 1_000_000n;
  for (let start = 0; start < EVENTS; start += 100_000) {
    const batch: IncomingEvent[] = [];
    for (let i = start; i < Math.min(EVENTS, start + 100_000); i++) {
      const service = SERVICES[i % SERVICES.length];
      const t = T0 + Math.floor(i * step);
      const incident = service === "checkout" && (t - T0) % 86_400_000 < 3_600_000;
      const status = incident && i % 3 === 0 ? 503 : i % 97 === 0 ? 500 : 200;
      batch.push({ timeNs: BigInt(t) * 1_000_000n, data: { service, status, ms: 20 + (i % 180) } });
    }
    store.append("web", batch, sys);
  }
  return store;
}

/** One query's time in ms, and its answer as the HTTP reply's text (without the status's elapsed time). */
async function once(run: Run, store: EventStore, apl: string): Promise<{ ms: number; text: string }> {
  const body = { apl, startTime: new Date(T0).toISOString(), endTime: new Date(END).toISOString() };
  const t = performance.now();
  const res = await run(store, body, "tabular", BigInt(END + 60_000) * 1_000_000n);
  const text = stringifyExactJson(res.body);
  const ms = performance.now() - t;
  if (res.status !== 200) throw new Error(text);
  return { ms, text: text.replace(/"elapsedTime":\d+/, "") };
}

async function main(): Promise<void> {
  const t0 = performance.now();
  const store = fill();
  const base = BASELINE
    ? (
        (await import(path.join(path.resolve(BASELINE), "dist/emulator/query/index.js"))) as {
          runAplQuery: Run;
        }
      ).runAplQuery
    : undefined;
  console.log(
    `${EVENTS.toLocaleString("en")} events over ${DAYS} days stored in ${((performance.now() - t0) / 1000).toFixed(1)} s; ` +
      `${RUNS} runs each (median), load average ${loadavg()[0].toFixed(1)}`,
  );
  console.log(
    ["query", ...(base ? ["baseline", "this build", "ratio"] : ["this build"]), "ns/event"].join("\t"),
  );
  for (const q of QUERIES) {
    if (ONLY !== undefined && !q.name.includes(ONLY)) continue;
    const mine: number[] = [];
    const theirs: number[] = [];
    let differs = false;
    // One warm-up run each, then the runs alternate, so a change of load falls on both alike.
    for (let r = 0; r <= RUNS; r++) {
      const a = base ? await once(base, store, q.apl) : undefined;
      const b = await once(runAplQuery, store, q.apl);
      if (a && a.text !== b.text) differs = true;
      if (r === 0) continue;
      if (a) theirs.push(a.ms);
      mine.push(b.ms);
    }
    const m = median(mine);
    const cells = base
      ? [`${median(theirs).toFixed(0)} ms`, `${m.toFixed(0)} ms`, `${(median(theirs) / m).toFixed(1)}×`]
      : [`${m.toFixed(0)} ms`];
    console.log([q.name, ...cells, ((m * 1e6) / EVENTS).toFixed(0)].join("\t"));
    if (differs) console.log(`  answers differ from the baseline's: ${q.apl}`);
  }
}

await main();
