/**
 * Benchmark: `observability backtest`'s two paths side by side (cli/backtest). Runs the compiled code in dist/, so
 * compile first (`npx tsc -p tsconfig.json` writes dist/ without cleaning it, or `npm run build`):
 *   node_modules/.bin/node --expose-gc bench/backtest.mts [--events N] [--days D] [--monitors M] [--event-path-events N]
 *
 * An emulator in its own process (`observability emulator`, as a backtest meets the service) holds `--events`
 * (default 5,000,000) events spread over `--days` (default 30) days. Then:
 * - service: `--monitors` (default 20) decomposable threshold monitors at a 1-minute interval over the whole period
 *   (counts, sums, maxima and averages, some grouped by service, some binned; no two queries alike), each
 *   evaluated from its query rewritten to fine bins; prints the requests sent and the wall time. Target: a handful
 *   of requests per monitor, under 10 s in all.
 * - diff: the same monitors as head, and as base with every threshold halved, sharing answers as the command's
 *   `--base` does: the base's equal queries send nothing more.
 * - events: one of those monitors (m2, which reads every event) forced onto the event path over a span holding `--event-path-events` (default
 *   1,000,000) events; prints the requests, the rows fetched, the wall time and the heap before and after (after
 *   a garbage collection with --expose-gc). Target: under 60 s with flat memory.
 * Both paths' alerts are compared for the monitor they share, so the figures are of the same answer.
 */
import { backtest } from "../dist/cli/backtest/run.js";
import { parseMonitor } from "../dist/emulator/alerting/monitor.js";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ObservabilityClient } from "../dist/provider/client/index.js";
import { processCpuSplitMs, spawnEmulator } from "./client-harness.ts";

const arg = (name: string, fallback: number): number => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const EVENTS = arg("--events", 5_000_000);
const DAYS = arg("--days", 30);
const MONITORS = arg("--monitors", 20);
const EVENT_PATH_EVENTS = arg("--event-path-events", 1_000_000);

const MINUTE = 60_000;
const SERVICES = ["checkout", "payments", "search", "auth", "catalog"];
const T0 = Date.UTC(2026, 0, 1);
const END = T0 + DAYS * 86_400_000;
const heapMiB = () => {
  (globalThis as { gc?: () => void }).gc?.();
  return (process.memoryUsage().heapUsed / 2 ** 20).toFixed(1);
};

// The emulator in its own process, as `observability emulator` serves it to a backtest run from another.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const em = await spawnEmulator(root, [
  "--clock",
  "manual",
  "--now",
  new Date(END + MINUTE).toISOString(),
  "--dataset",
  "web",
  "--query-timeout",
  "600000",
]);
const client = new ObservabilityClient({ url: em.url, token: em.token });
try {
  const t0 = performance.now();
  const step = (END - T0) / EVENTS;
  for (let start = 0; start < EVENTS; start += 10_000) {
    const lines: string[] = [];
    for (let i = start; i < Math.min(EVENTS, start + 10_000); i++) {
      const service = SERVICES[i % SERVICES.length];
      // An incident a day: an hour of server errors on checkout.
      const t = T0 + Math.floor(i * step);
      const incident = service === "checkout" && (t - T0) % 86_400_000 < 3_600_000;
      const status = incident && i % 3 === 0 ? 503 : i % 97 === 0 ? 500 : 200;
      lines.push(JSON.stringify({ _time: new Date(t).toISOString(), service, status, ms: 20 + (i % 180) }));
    }
    const res = await fetch(`${em.url}/v1/datasets/web/ingest`, {
      method: "POST",
      headers: { authorization: `Bearer ${em.token}`, "content-type": "application/x-ndjson" },
      body: lines.join("\n"),
    });
    if (res.status !== 200) throw new Error(`ingest: ${res.status} ${await res.text()}`);
  }
  console.log(
    `${EVENTS.toLocaleString("en-US")} events over ${DAYS} days ingested in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );

  // Five shapes; each monitor's own `where ms >= i` makes every query different, so no two monitors share an
  // answer and each costs the service its own scan of the whole period.
  const shapes = [
    "where status >= 500 | summarize count() by bin(_time, 1m)",
    "where status >= 500 | summarize errors = count() by service",
    "summarize max(ms)",
    "summarize avg(ms) by service",
    "summarize countif(status >= 500), sum(ms) by bin(_time, 5m)",
  ];
  const monitorsWith = (thresholdScale: number) =>
    Array.from({ length: MONITORS }, (_, i) => ({
      key: `m${i}`,
      notifiers: ["pager"],
      monitor: parseMonitor({
        id: `m${i}`,
        name: `monitor ${i}`,
        type: "Threshold",
        aplQuery: `['web'] | where ms >= ${i} | ${shapes[i % shapes.length]}`,
        operator: "Above",
        threshold: [40, 30, 190, 120, 60][i % shapes.length] * thresholdScale,
        intervalMinutes: 1,
        rangeMinutes: [1, 5, 10][i % 3],
        notifyByGroup: i % 2 === 0,
      }),
    }));
  const monitors = monitorsWith(1);
  const period = { fromMs: T0, toMs: END };

  // Processor time on each side, so the wall time can be told apart: the service's (the emulator's process) and
  // the backtest's own (this process: rebuilding windows and judging runs). Each with the kernel's share: on a
  // virtual machine, memory the processes touch for the first time since the host took it back costs kernel time
  // that a run right after another does not pay (see docs/backtesting.md, Measured).
  const emulatorCpu = () => processCpuSplitMs(em.pid) ?? { userMs: NaN, systemMs: NaN, pageFaults: NaN };
  const cpu = () => ({
    service: emulatorCpu(),
    client: process.cpuUsage(),
    clientFaults: process.resourceUsage().minorPageFault,
  });
  const cpuSince = (from: ReturnType<typeof cpu>) => {
    const own = process.cpuUsage(from.client);
    const ownFaults = process.resourceUsage().minorPageFault - from.clientFaults;
    const service = emulatorCpu();
    const serviceMs = service.userMs + service.systemMs - from.service.userMs - from.service.systemMs;
    const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    const faults = (n: number) => `${n.toLocaleString("en-US")} page faults`;
    return (
      `emulator ${s(serviceMs)} (kernel ${s(service.systemMs - from.service.systemMs)}, ` +
      `${faults(service.pageFaults - from.service.pageFaults)}), ` +
      `backtest ${s((own.user + own.system) / 1000)} (kernel ${s(own.system / 1000)}, ${faults(ownFaults)})`
    );
  };
  const c1 = cpu();
  const t1 = performance.now();
  const service = await backtest(client, monitors, period);
  const serviceSeconds = (performance.now() - t1) / 1000;
  const serviceCpu = cpuSince(c1);
  const requests = service.reduce((n, r) => n + r.requests, 0);
  const runs = service.reduce((n, r) => n + r.runs.length, 0);
  const failed = service.filter((r) => r.path !== "service" || r.error);
  if (failed.length > 0) throw new Error(`not on the service path: ${failed.map((r) => r.key).join(", ")}`);

  // A diff whose base differs in thresholds alone: the base's monitors send the head's queries over the same
  // span, so their answers are shared and the base costs the service nothing more.
  const answers = new Map();
  const c3 = cpu();
  const t3 = performance.now();
  const diffHead = await backtest(client, monitors, period, { answers });
  const diffBase = await backtest(client, monitorsWith(0.5), period, { answers });
  const diffSeconds = (performance.now() - t3) / 1000;
  const diffCpu = cpuSince(c3);
  const diffRequests = [...diffHead, ...diffBase].reduce((n, r) => n + r.requests, 0);
  const diffRuns = [...diffHead, ...diffBase].reduce((n, r) => n + r.runs.length, 0);

  // The event path over a span holding about EVENT_PATH_EVENTS events, for a monitor that reads them all.
  const span = Math.min(END - T0, Math.floor(EVENT_PATH_EVENTS * step));
  const eventPeriod = { fromMs: T0 + MINUTE, toMs: T0 + span };
  const heapBefore = heapMiB();
  const t2 = performance.now();
  const [local] = await backtest(client, [monitors[2]], eventPeriod, { paths: "events", maxEvents: EVENTS });
  const eventSeconds = (performance.now() - t2) / 1000;
  const heapAfter = heapMiB();
  const [same] = await backtest(client, [monitors[2]], eventPeriod);
  const alertsOf = (r: typeof local) =>
    r.runs.flatMap((x) => x.judged.transitions.map((t) => `${x.runMs} ${t.action} ${t.key}`));
  const agree = JSON.stringify(alertsOf(local)) === JSON.stringify(alertsOf(same));

  console.log("");
  console.log("path     monitors  period   runs       requests  rows fetched  wall      heap before/after");
  console.log(
    `service  ${String(MONITORS).padEnd(8)}  ${`${DAYS}d`.padEnd(7)}  ${String(runs).padEnd(9)}  ${String(requests).padEnd(8)}  ${String(service.reduce((n, r) => n + r.rows, 0)).padEnd(12)}  ${serviceSeconds.toFixed(1)} s`,
  );
  console.log(
    `diff     ${String(2 * MONITORS).padEnd(8)}  ${`${DAYS}d`.padEnd(7)}  ${String(diffRuns).padEnd(9)}  ${String(diffRequests).padEnd(8)}  ${"".padEnd(12)}  ${diffSeconds.toFixed(1)} s   (base: every threshold halved)`,
  );
  console.log(
    `events   1         ${`${(span / 86_400_000).toFixed(1)}d`.padEnd(7)}  ${String(local.runs.length).padEnd(9)}  ${String(local.requests).padEnd(8)}  ${String(local.rows).padEnd(12)}  ${eventSeconds.toFixed(1)} s    ${heapBefore} / ${heapAfter} MiB`,
  );
  console.log(`processor time, service path: ${serviceCpu}; diff: ${diffCpu}`);
  console.log(
    `the two paths' alerts for monitor m2 over the event path's span: ${agree ? "identical" : "DIFFERENT"}`,
  );
} finally {
  await client.close();
  await em.close();
}
