/**
 * Benchmark: does an open console slow the emulator? Runs the compiled CLI in dist/, so build first:
 *   npm run build && node_modules/.bin/node --disable-warning=MODULE_TYPELESS_PACKAGE_JSON bench/console.mts [--seconds N] [--rounds N]
 *   … bench/console.mts page-data     (the data routes' answer times for 1,000 monitors and 100,000 events)
 *
 * One emulator process (`observability emulator`, real clock) holds 100 monitors at a 1-minute interval over a
 * dataset that grows by steady ingest. This process measures, one request after another, the latency of an ingest
 * (100 events) and of an `_apl` query (5xx per minute over the last 5 minutes), at most 20 pairs a second, in
 * phases of `--seconds` (default
 * 20): without a console, then with two consoles open, alternating for `--rounds` (default 4) rounds, so both sides
 * see the same minutes of monitor runs and the same growth of the store.
 *
 * A console is what the page asks of the emulator, at the page's pace: every second the clock, the notifiers, the
 * datasets, the monitors, the outbox and one monitor's detail, each with the `If-None-Match` of its last answer, as
 * emulator/console/page.ts does. The browser's own work (layout, drawing) is in the browser's process, not the
 * emulator's, so it is not simulated. Prints p50, p95 and p99 of each side and their ratios.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const arg = (name: string, fallback: number) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const PHASE_MS = arg("--seconds", 20) * 1000;
const ROUNDS = arg("--rounds", 4);
const TOKEN = "xaat-local-development-token";
const SERVICES = ["checkout", "payments", "search", "auth", "catalog"];

/** Starts the emulator from the build; resolves with its URL and a way to stop it. */
async function startEmulator(extra: string[] = []): Promise<{ url: string; pid: number; stop(): void }> {
  const child = spawn(
    process.execPath,
    [path.join(ROOT, "dist", "cli", "index.js"), "emulator", "--port", "0", "--quiet", ...extra],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let out = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      const m = /OBSERVABILITY_URL=(\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once("exit", (code) => reject(new Error(`the emulator exited (${code}): ${out}`)));
  });
  child.stdout!.resume();
  return { url, pid: child.pid!, stop: () => child.kill("SIGINT") };
}

async function call(
  url: string,
  method: string,
  p: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${url}${p}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 400) throw new Error(`${method} ${p}: ${res.status} ${text}`);
  return { status: res.status, text, etag: res.headers.get("etag") };
}

let seq = 0;
/** `n` events of the last seconds, a few of them errors. */
function events(n: number): string {
  const now = Date.now();
  const lines: string[] = [];
  for (let i = 0; i < n; i++, seq++)
    lines.push(
      JSON.stringify({
        _time: new Date(now - (i % 30) * 1000).toISOString(),
        service: SERVICES[seq % SERVICES.length],
        status: seq % 40 === 0 ? 503 : 200,
        duration_ms: seq % 700,
      }),
    );
  return lines.join("\n");
}

/** 100 monitors at 1 minute, of the kinds a team runs. */
async function createMonitors(url: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < 100; i++) {
    const service = SERVICES[i % SERVICES.length];
    const base = {
      name: `monitor ${i}`,
      intervalMinutes: 1,
      rangeMinutes: 5,
      type: "Threshold",
      operator: "Above",
    };
    const query =
      i % 3 === 0
        ? `['bench'] | where status >= 500 | summarize count() by bin(_time, 1m)`
        : i % 3 === 1
          ? `['bench'] | where status >= 500 | summarize count() by service, bin(_time, 1m)`
          : `['bench'] | where service == '${service}' | summarize avg(duration_ms) by bin(_time, 1m)`;
    const r = await call(url, "POST", "/v2/monitors", {
      ...base,
      aplQuery: query,
      threshold: i % 3 === 2 ? 400 : 5,
    });
    ids.push((JSON.parse(r.text) as { id: string }).id);
  }
  return ids;
}

/** One console: the page's polls, once a second, with its ETags, until the process is stopped. */
async function pollLikeAConsole(url: string, monitorId: string): Promise<never> {
  const etags: Record<string, string> = {};
  const get = async (key: string, p: string) => {
    const r = await call(url, "GET", p, undefined, etags[key] ? { "if-none-match": etags[key] } : {});
    if (r.etag) etags[key] = r.etag;
  };
  for (;;) {
    const started = Date.now();
    await Promise.all([get("clock", "/_emulator/clock"), get("notifiers", "/v2/notifiers")]);
    await Promise.all([
      get("datasets", "/_emulator/console/datasets"),
      get("monitors", "/_emulator/console/monitors"),
      get("notifications", "/_emulator/console/notifications"),
      get("detail", `/_emulator/console/monitors/${monitorId}`),
    ]);
    process.stdout.write(".");
    await new Promise((r) => setTimeout(r, Math.max(0, 1000 - (Date.now() - started))));
  }
}

/**
 * A console in a process of its own (this file with `--console URL MONITOR`), so that its requests' client side
 * does not share this process with the requests measured. Answers its count of polls when stopped.
 */
function openConsole(url: string, monitorId: string): { ready: Promise<void>; stop(): Promise<number> } {
  const child = spawn(
    process.execPath,
    [
      "--disable-warning=MODULE_TYPELESS_PACKAGE_JSON",
      fileURLToPath(import.meta.url),
      "--console",
      url,
      monitorId,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let polls = 0;
  let ready!: () => void;
  const first = new Promise<void>((resolve) => (ready = resolve));
  child.stdout!.setEncoding("utf8").on("data", (d: string) => {
    polls += d.length;
    ready();
  });
  return {
    ready: first,
    stop: () =>
      new Promise((resolve) => {
        child.once("exit", () => resolve(polls));
        child.kill("SIGTERM");
      }),
  };
}

/** CPU time (user + system, ms) a process has used, from /proc (Linux). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  // utime and stime are fields 14 and 15 of stat, in clock ticks (100 a second on Linux).
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** Measures ingest and `_apl` latencies, one request after another, for `ms`. */
async function measure(url: string, ms: number): Promise<{ ingest: number[]; apl: number[] }> {
  const ingest: number[] = [];
  const apl: number[] = [];
  const end = Date.now() + ms;
  while (Date.now() < end) {
    // Paced, 20 pairs a second at most: steady traffic, and a store that grows the same on both sides.
    const paced = new Promise((r) => setTimeout(r, 50));
    const body = events(100);
    let t = performance.now();
    const res = await fetch(`${url}/v1/datasets/bench/ingest`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/x-ndjson" },
      body,
    });
    await res.text();
    ingest.push(performance.now() - t);
    t = performance.now();
    await call(url, "POST", "/v1/datasets/_apl?format=tabular", {
      apl: "['bench'] | where status >= 500 | summarize count() by bin(_time, 1m)",
      startTime: new Date(Date.now() - 5 * 60_000).toISOString(),
      endTime: new Date().toISOString(),
    });
    apl.push(performance.now() - t);
    await paced;
  }
  return { ingest, apl };
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

if (process.argv[2] === "--console") await pollLikeAConsole(process.argv[3], process.argv[4]);

/**
 * `page-data`: what one poll of a page costs on a big emulator, 1,000 monitors (each run once, on a manual clock)
 * and 100,000 events: each data route's answer time, uncached (the clock moved a second before each), best of 5.
 */
async function pageData(): Promise<void> {
  const big = await startEmulator(["--clock", "manual", "--now", "2024-06-03T00:00:00Z"]);
  try {
    await call(big.url, "POST", "/v2/datasets", { name: "big" });
    await call(big.url, "POST", "/v2/datasets", { name: "small" });
    const t0 = Date.parse("2024-06-02T23:00:00Z");
    for (let b = 0; b < 10; b++) {
      const lines = Array.from({ length: 10_000 }, (_, i) =>
        JSON.stringify({
          _time: new Date(t0 + (b * 10_000 + i) * 30).toISOString(),
          status: i % 50 === 0 ? 500 : 200,
          route: `/r${i % 20}`,
        }),
      );
      await call(big.url, "POST", "/v1/datasets/big/ingest", lines.join("\n"), {
        "content-type": "application/x-ndjson",
      });
    }
    for (let i = 0; i < 1000; i++)
      await call(big.url, "POST", "/v2/monitors", {
        name: `monitor ${i}`,
        type: "Threshold",
        aplQuery: "['small'] | summarize count() by bin(_time, 1m)",
        operator: "Above",
        threshold: 0,
        intervalMinutes: 1,
      });
    await call(big.url, "POST", "/_emulator/clock", { advance: "1m" });
    const ids = JSON.parse((await call(big.url, "GET", "/v2/monitors")).text) as { id: string }[];
    console.log("page data, 1,000 monitors and 100,000 events (best of 5, uncached)");
    for (const route of ["datasets", "monitors", `monitors/${ids[999].id}`, "notifications"]) {
      const times: number[] = [];
      let bytes = 0;
      for (let i = 0; i < 5; i++) {
        await call(big.url, "POST", "/_emulator/clock", { advance: "1s" });
        const t = performance.now();
        bytes = (await call(big.url, "GET", `/_emulator/console/${route}`)).text.length;
        times.push(performance.now() - t);
      }
      console.log(
        `  /_emulator/console/${route.replace(ids[999].id, "{id}").padEnd(14)} ${Math.min(...times)
          .toFixed(1)
          .padStart(6)} ms  ${bytes} bytes`,
      );
    }
  } finally {
    big.stop();
  }
}
if (process.argv[2] === "page-data") {
  await pageData();
  process.exit(0);
}

const em = await startEmulator();
try {
  await call(em.url, "POST", "/v2/datasets", { name: "bench" });
  // A store to query: 100,000 events of the last minutes.
  for (let i = 0; i < 100; i++)
    await call(em.url, "POST", "/v1/datasets/bench/ingest", events(1000), {
      "content-type": "application/x-ndjson",
    });
  const monitorIds = await createMonitors(em.url);
  const sides = {
    without: { ingest: [] as number[], apl: [] as number[], cpu: 0, ms: 0 },
    with: { ingest: [] as number[], apl: [] as number[], cpu: 0, ms: 0 },
  };
  let consolePolls = 0;
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate which side goes first, so neither always meets the store smaller.
    const order = round % 2 === 0 ? (["without", "with"] as const) : (["with", "without"] as const);
    for (const side of order) {
      const consoles =
        side === "with" ? [openConsole(em.url, monitorIds[0]), openConsole(em.url, monitorIds[1])] : [];
      // Measured from the consoles' first poll on: their processes' start is not the emulator's work.
      for (const c of consoles) await c.ready;
      const [cpu0, t0] = [cpuMs(em.pid), performance.now()];
      const got = await measure(em.url, PHASE_MS);
      sides[side].cpu += cpuMs(em.pid) - cpu0;
      sides[side].ms += performance.now() - t0;
      for (const c of consoles) consolePolls += await c.stop();
      sides[side].ingest.push(...got.ingest);
      sides[side].apl.push(...got.apl);
      console.error(`round ${round + 1} ${side}: ${got.ingest.length} ingests, ${got.apl.length} queries`);
    }
  }
  const runs = JSON.parse((await call(em.url, "GET", "/_emulator/console/monitors")).text) as {
    lastRun: unknown;
  }[];
  console.log(
    `100 monitors at 1 minute (${runs.filter((m) => m.lastRun).length} have run); ${ROUNDS} rounds of ${PHASE_MS / 1000} s a side; ` +
      `two consoles made ${consolePolls} polls of 6 requests`,
  );
  for (const side of ["without", "with"] as const)
    console.log(
      `emulator CPU, ${side === "with" ? "two consoles" : "no console"}: ${((sides[side].cpu / sides[side].ms) * 100).toFixed(1)}% of a core, ` +
        `${(sides[side].cpu / sides[side].ingest.length).toFixed(2)} ms per measured ingest and query`,
    );
  console.log("request  side              n      p50 ms  p95 ms  p99 ms");
  for (const kind of ["ingest", "apl"] as const) {
    for (const side of ["without", "with"] as const) {
      const xs = sides[side][kind];
      console.log(
        `${kind.padEnd(8)} ${(side === "with" ? "two consoles" : "no console").padEnd(16)} ${String(xs.length).padStart(6)}  ` +
          `${pct(xs, 50).toFixed(2).padStart(6)}  ${pct(xs, 95).toFixed(2).padStart(6)}  ${pct(xs, 99).toFixed(2).padStart(6)}`,
      );
    }
    const [a, b] = [sides.without[kind], sides.with[kind]];
    console.log(
      `${kind.padEnd(8)} ratio (with/without)          p50 ${(pct(b, 50) / pct(a, 50)).toFixed(2)}  p95 ${(pct(b, 95) / pct(a, 95)).toFixed(2)}  p99 ${(pct(b, 99) / pct(a, 99)).toFixed(2)}`,
    );
  }
} finally {
  em.stop();
}
