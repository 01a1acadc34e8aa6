/**
 * Benchmark: monitors that run (emulator/alerting). Runs the compiled code in dist/, so build first:
 *   npm run build && node_modules/.bin/node bench/monitors.mts [throughput|flagship|real] [--minutes N]
 * Without a mode, runs throughput and flagship (real runs for minutes of wall time: ask for it).
 *
 * - throughput: 100 monitors at a 1-minute interval over 1,000,000 events (about 1,000 a minute), on a manual
 *   clock; prints simulated minutes per wall second of `clock.advance`.
 * - flagship: a 24-hour simulation of the flagship's three monitors (examples/monitors-to-notifiers: the 5xx
 *   threshold, the payments match monitor and the latency anomaly monitor comparing 7 days) over 100,000 events,
 *   with an error burst, fatal lines and a latency shift in them; target under 30 s.
 * - real: 100 monitors on the real clock (they run each minute) while events arrive steadily (200 a second through
 *   the ingest endpoint, trimmed to the last 2 minutes so the store stays the same size); prints RSS and heap at
 *   the start and at the end of `--minutes` (default 4), each after a garbage collection when node runs with
 *   --expose-gc.
 */
import { startEmulator, type MonitorRun, type RunningEmulator } from "../dist/emulator/index.js";

const mode = process.argv[2]?.startsWith("--") ? undefined : process.argv[2];
const minutesAt = process.argv.indexOf("--minutes");
const realMinutes = minutesAt > 0 ? Number(process.argv[minutesAt + 1]) : 4;

const MINUTE = 60_000;
const SERVICES = ["checkout", "payments", "search", "auth", "catalog"];

async function call(em: RunningEmulator, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${em.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${em.token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** Ingests `count` events from `make(i)` in batches of 10,000, as NDJSON. */
async function ingest(
  em: RunningEmulator,
  dataset: string,
  count: number,
  make: (i: number) => Record<string, unknown>,
): Promise<void> {
  for (let start = 0; start < count; start += 10_000) {
    const lines: string[] = [];
    for (let i = start; i < Math.min(count, start + 10_000); i++) lines.push(JSON.stringify(make(i)));
    const res = await fetch(`${em.url}/v1/datasets/${dataset}/ingest`, {
      method: "POST",
      headers: { authorization: `Bearer ${em.token}`, "content-type": "application/x-ndjson" },
      body: lines.join("\n"),
    });
    if (res.status !== 200) throw new Error(`ingest: ${res.status} ${await res.text()}`);
  }
}

/** 100 monitors of the kinds a team runs: per-minute error counts, per-service groups, latency, fatal matches. */
function hundredMonitors(dataset: string, notifierId: string): Record<string, unknown>[] {
  return Array.from({ length: 100 }, (_, i) => {
    const service = SERVICES[i % SERVICES.length];
    const base = { name: `monitor ${i}`, intervalMinutes: 1, notifierIds: [notifierId] };
    switch (i % 4) {
      case 0:
        return {
          ...base,
          type: "Threshold",
          aplQuery: `['${dataset}'] | where service == "${service}" and status >= 500 | summarize count() by bin(_time, 1m)`,
          operator: "Above",
          threshold: 5 + (i % 7),
          rangeMinutes: 5,
        };
      case 1:
        return {
          ...base,
          type: "Threshold",
          aplQuery: `['${dataset}'] | where status >= 500 | summarize errors = count() by service`,
          operator: "AboveOrEqual",
          threshold: 20 + i,
          rangeMinutes: 5,
          notifyByGroup: true,
        };
      case 2:
        return {
          ...base,
          type: "Threshold",
          aplQuery: `['${dataset}'] | where service == "${service}" | summarize avg(duration_ms)`,
          operator: "Above",
          threshold: 120,
          rangeMinutes: 10,
          triggerFromNRuns: 3,
          triggerAfterNPositiveResults: 2,
        };
      default:
        return {
          ...base,
          type: "MatchEvent",
          aplQuery: `['${dataset}'] | where service == "${service}" and level == "fatal"`,
          rangeMinutes: 1,
        };
    }
  });
}

/** One event of a steady mix: ~6% errors, a fatal line now and then, latency around 100 ms. */
function mixedEvent(i: number, timeMs: number): Record<string, unknown> {
  return {
    _time: new Date(timeMs).toISOString(),
    service: SERVICES[i % SERVICES.length],
    status: i % 17 === 0 ? 500 + (i % 4) : 200,
    level: i % 50_021 === 0 ? "fatal" : i % 17 === 0 ? "error" : "info",
    duration_ms: 60 + (i % 83),
    path: `/v1/items/${i % 1000}`,
  };
}

async function setUp(em: RunningEmulator, dataset: string): Promise<void> {
  await call(em, "POST", "/v2/datasets", { name: dataset });
  const notifier = (await call(em, "POST", "/v2/notifiers", {
    name: "bench mail",
    properties: { email: { emails: ["oncall@example.com"] } },
  })) as { id: string };
  for (const m of hundredMonitors(dataset, notifier.id)) await call(em, "POST", "/v2/monitors", m);
}

async function throughput(): Promise<void> {
  const TOTAL = 1_000_000;
  const START = Date.UTC(2026, 0, 1);
  // 1,000,000 events over 1,000 minutes: 1,000 a minute, one every 60 ms.
  const em = await startEmulator({ port: 0, clock: "manual", now: new Date(START).toISOString() });
  try {
    const t0 = performance.now();
    await call(em, "POST", "/v2/datasets", { name: "bench" });
    await ingest(em, "bench", TOTAL, (i) => mixedEvent(i, START + i * 60));
    console.log(`throughput: ${TOTAL} events ingested in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const notifier = (await call(em, "POST", "/v2/notifiers", {
      name: "bench mail",
      properties: { email: { emails: ["oncall@example.com"] } },
    })) as { id: string };
    for (const m of hundredMonitors("bench", notifier.id)) await call(em, "POST", "/v2/monitors", m);
    const SIMULATED = 120;
    const t = performance.now();
    const runs = await em.clock.advance(`${SIMULATED}m`);
    const seconds = (performance.now() - t) / 1000;
    summarize("throughput", runs);
    console.log(
      `throughput: 100 monitors at a 1-minute interval over ${TOTAL} events: ${SIMULATED} simulated minutes ` +
        `(${runs.length} runs) in ${seconds.toFixed(2)} s wall: ${(SIMULATED / seconds).toFixed(1)} simulated ` +
        `minutes per wall second`,
    );
  } finally {
    await em.close();
  }
}

/** The flagship's three monitors (examples/monitors-to-notifiers/index.ts), the virtual field as an extend. */
function flagshipMonitors(notifierId: string): Record<string, unknown>[] {
  return [
    {
      name: "Checkout: 5xx responses above 50 a minute",
      type: "Threshold",
      aplQuery: `['http-logs'] | where service == "checkout" and status >= 500 | summarize count() by bin(_time, 1m)`,
      operator: "Above",
      threshold: 50,
      intervalMinutes: 1,
      rangeMinutes: 5,
      notifierIds: [notifierId],
    },
    {
      name: "Payments: fatal errors",
      type: "MatchEvent",
      aplQuery: `['app-logs'] | where service == "payments" and level == "fatal"`,
      intervalMinutes: 1,
      rangeMinutes: 1,
      notifierIds: [notifierId],
    },
    {
      name: "Checkout: latency unlike the past week",
      type: "AnomalyDetection",
      aplQuery: `['http-logs'] | where service == "checkout" | extend duration_ms = duration / 1000000 | summarize avg(duration_ms) by bin(_time, 5m)`,
      operator: "AboveOrBelow",
      compareDays: 7,
      tolerance: 25,
      intervalMinutes: 5,
      rangeMinutes: 15,
      notifierIds: [notifierId],
    },
  ];
}

async function flagship(): Promise<void> {
  const DAY = 24 * 60 * MINUTE;
  const START = Date.UTC(2026, 0, 8);
  const em = await startEmulator({ port: 0, clock: "manual", now: new Date(START).toISOString() });
  try {
    for (const name of ["http-logs", "app-logs"]) await call(em, "POST", "/v2/datasets", { name });
    // 100,000 events: 90,000 access logs over the seven days before and the simulated day (the anomaly monitor's
    // baseline), 10,000 app logs over the simulated day. An error burst at 06:00 for 10 minutes, a latency shift
    // from 14:00 to 15:00, a fatal payments line every 4 hours.
    const HTTP = 90_000;
    const span = 8 * DAY;
    await ingest(em, "http-logs", HTTP, (i) => {
      const t = START - 7 * DAY + Math.floor((i * span) / HTTP);
      const ofDay = (t - START) % DAY;
      const inDay = t >= START;
      const burst = inDay && ofDay >= 6 * 60 * MINUTE && ofDay < 6 * 60 * MINUTE + 10 * MINUTE;
      const slow = inDay && ofDay >= 14 * 60 * MINUTE && ofDay < 15 * 60 * MINUTE;
      return {
        _time: new Date(t).toISOString(),
        service: i % 3 === 0 ? "payments" : "checkout",
        status: burst || i % 97 === 0 ? 503 : 200,
        duration: (slow ? 400 : 100 + (i % 21)) * 1_000_000,
      };
    });
    // During the burst, enough 5xx for the threshold: 60 extra a minute for 10 minutes.
    await ingest(em, "http-logs", 600, (i) => ({
      _time: new Date(START + 6 * 60 * MINUTE + Math.floor(i / 60) * MINUTE + (i % 60) * 1000).toISOString(),
      service: "checkout",
      status: 500,
      duration: 100_000_000,
    }));
    await ingest(em, "app-logs", 10_000 - 600, (i) => ({
      _time: new Date(START + Math.floor((i * DAY) / 9_400)).toISOString(),
      service: i % 2 ? "payments" : "checkout",
      level: i % 1567 === 0 ? "fatal" : "info",
    }));
    const notifier = (await call(em, "POST", "/v2/notifiers", {
      name: "bench mail",
      properties: { email: { emails: ["oncall@example.com"] } },
    })) as { id: string };
    for (const m of flagshipMonitors(notifier.id)) await call(em, "POST", "/v2/monitors", m);
    const t = performance.now();
    const runs = await em.clock.advance("24h");
    const seconds = (performance.now() - t) / 1000;
    summarize("flagship", runs);
    console.log(
      `flagship: 24 simulated hours of the flagship's 3 monitors over 100,000 events: ${runs.length} runs in ` +
        `${seconds.toFixed(2)} s wall (target < 30 s: ${seconds < 30 ? "PASS" : "FAIL"}); ` +
        `${em.notifications().length} outbox rows`,
    );
  } finally {
    await em.close();
  }
}

/** How many runs ended in each state, and how many alerts they sent, per monitor type of name. */
function summarize(label: string, runs: readonly MonitorRun[]): void {
  const states: Record<string, number> = {};
  let alerts = 0;
  for (const r of runs) {
    states[r.state] = (states[r.state] ?? 0) + 1;
    alerts += r.notifications;
  }
  const errors = runs
    .filter((r) => r.error)
    .slice(0, 3)
    .map((r) => `${r.monitorName}: ${r.error}`);
  console.log(
    `${label}: run states ${JSON.stringify(states)}, ${alerts} alert events${errors.length ? `; errors: ${errors.join(" | ")}` : ""}`,
  );
}

function memory(): string {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return `RSS ${(m.rss / 2 ** 20).toFixed(1)} MiB, heap used ${(m.heapUsed / 2 ** 20).toFixed(1)} MiB`;
}

async function real(): Promise<void> {
  const runs = { made: 0, failed: 0, alerts: 0 };
  const em = await startEmulator({
    port: 0,
    onMonitorRun: (run) => {
      runs.made++;
      if (run.error) runs.failed++;
      runs.alerts += run.notifications;
    },
  });
  const RATE = 200;
  let sent = 0;
  try {
    await setUp(em, "steady");
    const tick = async () => {
      const now = Date.now();
      const lines = Array.from({ length: RATE }, (_, k) => JSON.stringify(mixedEvent(sent + k, now - k * 5)));
      sent += RATE;
      await call(em, "POST", "/v1/datasets/steady/ingest", lines.join("\n"));
      await call(em, "POST", "/v2/datasets/steady/trim", { maxDuration: "2m" });
    };
    // Two minutes of events first, so the store is at its steady size when the measure starts.
    const t0 = Date.now();
    await ingest(em, "steady", RATE * 120, (i) => mixedEvent(i, t0 - 120_000 + Math.floor(i / RATE) * 1000));
    const gcNote = (globalThis as { gc?: unknown }).gc ? "" : " (run node with --expose-gc to collect first)";
    console.log(`real: start: ${memory()}${gcNote}`);
    const end = Date.now() + realMinutes * MINUTE;
    while (Date.now() < end) {
      const started = Date.now();
      await tick();
      await new Promise((r) => setTimeout(r, Math.max(0, 1000 - (Date.now() - started))));
    }
    const history = (await call(em, "GET", "/v2/monitors")) as { id: string }[];
    console.log(
      `real: end after ${realMinutes} min, ${sent} events ingested (${RATE}/s), ${history.length} monitors, ` +
        `${runs.made} runs (${runs.failed} failed, ${runs.alerts} alert events), ` +
        `${em.notifications().length} outbox rows: ${memory()}`,
    );
  } finally {
    await em.close();
  }
}

if (mode === undefined || mode === "throughput") await throughput();
if (mode === undefined || mode === "flagship") await flagship();
if (mode === "real") await real();
