/**
 * The host's own overhead: create, read, update and delete of a monitor through the real
 * dynamic-provider host, with this package's provider (its real `__provider` shim in the installed form, loading dist/) against the
 * floor: a hand-written provider doing the same HTTP calls on raw undici with no validation, loaded by the same
 * host. Both hosts talk to one emulator in a child process. Two measures, each side by side in one run, rounds
 * interleaved A B A B:
 *
 * - latency: `cycles` create/read/update/delete cycles one after another; the median of each operation;
 * - throughput: `monitors` monitors created, read, updated and deleted `concurrency` at a time; operations/s.
 *
 * Prints medians, min/max over rounds, the ratios (goal ≤ 1.10) and each host's CPU time per operation.
 *
 *   npm run build && node_modules/.bin/node bench/host-overhead.ts [cycles=20] [rounds=7] [monitors=64] [concurrency=16]
 *
 * Our create lists the family before its POST (the baseline of an uncertain create, docs/engine.md), one more
 * request than the floor's; the table shows create apart, so that cost is seen for what it is.
 */
// A block, not a module: `export {}` would make Node parse this file as ESM, where `require` is absent.
{
  const path = require("node:path") as typeof import("node:path");
  const harness = require("./host-harness.ts") as typeof import("./host-harness");
  harness.requireTypeScriptAsCommonJs();
  const { spawnEmulator, stats } = require("./client-harness.ts") as typeof import("./client-harness");
  const { startProviderHost, urnOf } =
    require("../test/helpers/host.ts") as typeof import("../test/helpers/host");
  const { recordRegistrations, registered } =
    require("../test/helpers/provider-text.ts") as typeof import("../test/helpers/provider-text");
  const obs = require("../dist/provider") as typeof import("../provider");

  type Props = Record<string, unknown>;
  type ProviderHost = import("../test/helpers/host").ProviderHost;

  const CYCLES = Number(process.argv[2] ?? 20);
  const ROUNDS = Number(process.argv[3] ?? 7);
  const MONITORS = Number(process.argv[4] ?? 64);
  const CONCURRENCY = Number(process.argv[5] ?? 16);
  const OPS = ["create", "read", "update", "delete"] as const;
  type Op = (typeof OPS)[number];
  const URN = urnOf("Monitor", "bench");

  /** One side: a host, the `__provider` text it loads, and the inputs its creates send. */
  interface Side {
    label: string;
    host: ProviderHost;
    text: string;
    inputs: Props;
  }

  const monitorArgs = (name: string, threshold: number): Props => ({
    name,
    aplQuery: "['http-logs'] | where status >= 500 | summarize count() by bin(_time, 1m)",
    type: "Threshold",
    operator: "Above",
    threshold,
    rangeMinutes: 5,
    description: "bench",
  });

  /** One monitor's lifecycle through `side`'s host, each operation's wall time (ms) in `times`. */
  async function cycle(side: Side, name: string, times?: Record<Op, number[]>): Promise<void> {
    const timed = async <T>(op: Op, run: () => Promise<T>): Promise<T> => {
      const started = performance.now();
      const out = await run();
      times?.[op].push(performance.now() - started);
      return out;
    };
    const inputs = { ...side.inputs, name, __provider: side.text };
    const created = await timed("create", () => side.host.create(URN, inputs));
    const read = await timed("read", () => side.host.read(URN, created.id, created.properties));
    const news = { ...inputs, threshold: 6 };
    const updated = await timed("update", () => side.host.update(URN, created.id, read.properties, news));
    await timed("delete", () => side.host.delete(URN, created.id, updated.properties));
  }

  /** Runs `n` jobs, `limit` at a time. */
  async function pool(n: number, limit: number, job: (i: number) => Promise<void>): Promise<void> {
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(limit, n) }, async () => {
        while (next < n) await job(next++);
      }),
    );
  }

  /** Each phase over `MONITORS` monitors, `CONCURRENCY` at a time; each phase's operations/s, and the whole run's. */
  async function throughput(side: Side, round: number): Promise<Record<Op | "all", number>> {
    const made: { id: string; properties: Props; inputs: Props }[] = [];
    const rate: Partial<Record<Op | "all", number>> = {};
    const phase = async (op: Op, job: (i: number) => Promise<void>) => {
      const started = performance.now();
      await pool(MONITORS, CONCURRENCY, job);
      rate[op] = (MONITORS * 1000) / (performance.now() - started);
    };
    const started = performance.now();
    await phase("create", async (i) => {
      const inputs = { ...side.inputs, name: `tp-${side.label}-${round}-${i}`, __provider: side.text };
      const created = await side.host.create(URN, inputs);
      made[i] = { id: created.id, properties: created.properties, inputs };
    });
    await phase("read", async (i) => {
      made[i].properties = (await side.host.read(URN, made[i].id, made[i].properties)).properties;
    });
    await phase("update", async (i) => {
      const news = { ...made[i].inputs, threshold: 6 };
      made[i].properties = (await side.host.update(URN, made[i].id, made[i].properties, news)).properties;
    });
    await phase("delete", (i) => side.host.delete(URN, made[i].id, made[i].properties));
    rate.all = (4 * MONITORS * 1000) / (performance.now() - started);
    return rate as Record<Op | "all", number>;
  }

  /** The CPU time (ms) `side`'s host spends on `run`. */
  async function hostCpu<T>(side: Side, run: () => Promise<T>): Promise<{ out: T; cpu: number }> {
    const before = harness.processCpuMs(side.host.pid) ?? NaN;
    const out = await run();
    return { out, cpu: (harness.processCpuMs(side.host.pid) ?? NaN) - before };
  }

  const fmt = (x: number) => x.toFixed(2);

  (async () => {
    const em = await spawnEmulator(path.resolve(__dirname, ".."));
    const config = { "observability:url": em.url, "observability:token": em.token };
    const seen = await recordRegistrations();
    await registered(new obs.Monitor("bench", monitorArgs("bench", 5) as never));
    const ours = harness.installedShimText(path.resolve(__dirname, ".."), "Monitor", seen[0].providerText);
    const floor = harness.floorProviderText("/v2/monitors", require.resolve("undici"));
    const hosts: ProviderHost[] = [];
    try {
      const start = async (label: string, text: string, inputs: Props): Promise<Side> => {
        const host = await startProviderHost({ config, secretKeys: ["observability:token"] });
        hosts.push(host);
        await host.configure();
        return { label, host, text, inputs };
      };
      const a = await start("A", ours, {});
      // Both sides create what our check makes of the args, so the bodies sent are the same.
      const checked = await a.host.check(URN, {}, { ...monitorArgs("bench", 5), __provider: ours });
      delete checked.inputs.__provider;
      a.inputs = checked.inputs;
      const b = await start("B", floor, checked.inputs);
      console.log(
        `__provider text: A ${Buffer.byteLength(a.text)} B, B ${Buffer.byteLength(b.text)} B; ` +
          `emulator in a child process; rounds interleaved A B A B`,
      );

      // Warm-up: each host loads its provider, opens its connections, and compiles its hot paths.
      for (const side of [a, b]) for (let i = 0; i < 5; i++) await cycle(side, `warm-${side.label}-${i}`);

      const latency = { A: [] as Record<Op, number>[], B: [] as Record<Op, number>[] };
      const cpuPerOp = { A: [] as number[], B: [] as number[] };
      for (let r = 0; r < ROUNDS; r++) {
        for (const side of [a, b]) {
          const times: Record<Op, number[]> = { create: [], read: [], update: [], delete: [] };
          const { cpu } = await hostCpu(side, async () => {
            for (let i = 0; i < CYCLES; i++) await cycle(side, `lat-${side.label}-${r}-${i}`, times);
          });
          cpuPerOp[side.label as "A" | "B"].push(cpu / (4 * CYCLES));
          const medians = Object.fromEntries(OPS.map((op) => [op, stats(times[op]).median])) as Record<
            Op,
            number
          >;
          latency[side.label as "A" | "B"].push(medians);
        }
      }
      console.log(
        `latency: ${CYCLES} sequential create/read/update/delete cycles a round, ${ROUNDS} rounds; ` +
          "median over rounds of each round's median (min-max of those)",
      );
      const row = (name: string, xa: number[], xb: number[], unit: string) => {
        const [sa, sb] = [stats(xa), stats(xb)];
        console.log(
          `  ${name.padEnd(8)} A ours ${fmt(sa.median)} ${unit} (${fmt(sa.min)}-${fmt(sa.max)})  ` +
            `B floor ${fmt(sb.median)} ${unit} (${fmt(sb.min)}-${fmt(sb.max)})  ratio A/B ${(sa.median / sb.median).toFixed(3)}`,
        );
        return sa.median / sb.median;
      };
      for (const op of OPS)
        row(
          op,
          latency.A.map((m) => m[op]),
          latency.B.map((m) => m[op]),
          "ms",
        );
      const withoutCreate = (m: Record<Op, number>) => m.read + m.update + m.delete;
      const cycleRatio = row(
        "cycle",
        latency.A.map((m) => withoutCreate(m) + m.create),
        latency.B.map((m) => withoutCreate(m) + m.create),
        "ms",
      );
      const rudRatio = row("r+u+d", latency.A.map(withoutCreate), latency.B.map(withoutCreate), "ms");
      row("host CPU", cpuPerOp.A, cpuPerOp.B, "ms/op");

      const rates = { A: [] as Record<Op | "all", number>[], B: [] as Record<Op | "all", number>[] };
      const tpCpu = { A: [] as number[], B: [] as number[] };
      for (let r = 0; r < ROUNDS; r++) {
        for (const side of [a, b]) {
          const { out, cpu } = await hostCpu(side, () => throughput(side, r));
          rates[side.label as "A" | "B"].push(out);
          tpCpu[side.label as "A" | "B"].push(cpu / (4 * MONITORS));
        }
      }
      console.log(
        `throughput: ${MONITORS} monitors created, read, updated, deleted, ${CONCURRENCY} at a time, ${ROUNDS} rounds; ` +
          "ops/s of each phase, then of the whole run; B/A is how many times lower ours is",
      );
      const rateRow = (name: Op | "all") => {
        const [ra, rb] = [stats(rates.A.map((x) => x[name])), stats(rates.B.map((x) => x[name]))];
        console.log(
          `  ${name.padEnd(8)} A ours ${ra.median.toFixed(0)} (${ra.min.toFixed(0)}-${ra.max.toFixed(0)})  ` +
            `B floor ${rb.median.toFixed(0)} (${rb.min.toFixed(0)}-${rb.max.toFixed(0)})  ` +
            `B/A ${(rb.median / ra.median).toFixed(3)}`,
        );
        return rb.median / ra.median;
      };
      for (const op of OPS) rateRow(op);
      const tpRatio = rateRow("all");
      row("host CPU", tpCpu.A, tpCpu.B, "ms/op");
      const verdict = (x: number) => `${x.toFixed(3)} (goal <= 1.10: ${x <= 1.1 ? "met" : "NOT met"})`;
      console.log(
        `summary: latency cycle ${verdict(cycleRatio)}, read+update+delete ${verdict(rudRatio)}, ` +
          `throughput ${verdict(tpRatio)}`,
      );
    } finally {
      for (const host of hosts) await host.close();
      await em.close();
    }
  })().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
