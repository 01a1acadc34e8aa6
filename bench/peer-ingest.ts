/**
 * Ingest against the service's own JavaScript client: `client.ingest` of 100,000 events against
 * `@axiomhq/js` (AxiomWithoutBatching, one `ingest` call per 10,000 events, the most one request may hold), side
 * by side through one emulator in a child process. Three interleaved rounds (A B A B A B, after a warm-up of
 * each); prints each side's times and the median ratio A/B. Both send gzip NDJSON; ours also sends an event label
 * (`X-Axiom-Event-Labels`) on one side only when `--labels` is given, to show the header costs nothing.
 *
 *   npm run build && node_modules/.bin/node --expose-gc bench/peer-ingest.ts [events] [rounds] [--labels]
 */
// A block, not a module: `export {}` would make Node parse this file as ESM, where `require` is absent.
{
  const { ObservabilityClient } = require("../dist/provider/client") as typeof import("../provider/client");
  const { printComparison, processCpuMs, spawnEmulator, stats } =
    require("./client-harness.ts") as typeof import("./client-harness");
  const { AxiomWithoutBatching } = require("@axiomhq/js") as typeof import("@axiomhq/js");
  const path = require("node:path") as typeof import("node:path");

  const args = process.argv.slice(2).filter((a) => !a.startsWith("--"));
  const EVENTS = Number(args[0] ?? 100_000);
  const ROUNDS = Number(args[1] ?? 3);
  const LABELS = process.argv.includes("--labels");
  const PER_REQUEST = 10_000;

  function makeEvents(n: number): Record<string, unknown>[] {
    return Array.from({ length: n }, (_, i) => ({
      _time: new Date(Date.UTC(2024, 0, 1) + i).toISOString(),
      level: i % 10 === 0 ? "error" : "info",
      status: 200 + (i % 5),
      path: `/api/v1/items/${i % 1000}`,
      durationMs: i % 997,
      http: { method: i % 3 === 0 ? "POST" : "GET", bytes: i % 4096 },
    }));
  }

  async function bench(url: string, token: string, pid: number | undefined): Promise<void> {
    const events = makeEvents(EVENTS);
    const client = new ObservabilityClient({ url, token });
    const errors: unknown[] = [];
    const peer = new AxiomWithoutBatching({ url, token, onError: (e) => errors.push(e) });
    let run = 0;
    // Each run ingests into a dataset of its own, created outside the timing.
    const fresh = async (side: string) => {
      const name = `bench-${side}-${run++}`;
      await client.datasets.create({ name });
      return name;
    };

    const ours = async (): Promise<number> => {
      const dataset = await fresh("ours");
      const started = performance.now();
      const summary = await client.ingest(dataset, events, LABELS ? { labels: { region: "eu-west-1" } } : {});
      if (summary.ingested !== EVENTS) throw new Error(`client ingested ${summary.ingested}`);
      return performance.now() - started;
    };

    const theirs = async (): Promise<number> => {
      const dataset = await fresh("axiomjs");
      const started = performance.now();
      let ingested = 0;
      for (let i = 0; i < events.length; i += PER_REQUEST) {
        const res = await peer.ingest(dataset, events.slice(i, i + PER_REQUEST));
        ingested += res.ingested;
      }
      if (ingested !== EVENTS || errors.length > 0) {
        throw new Error(`@axiomhq/js ingested ${ingested}; errors: ${errors.map(String).join("; ")}`);
      }
      return performance.now() - started;
    };

    // As the harness's interleave, plus the emulator's CPU per run: where the time of each side went.
    const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
    await ours();
    await theirs();
    const times = { a: [] as number[], b: [] as number[], cpuA: [] as number[], cpuB: [] as number[] };
    const emCpu = { a: [] as number[], b: [] as number[] };
    const measure = async (side: "a" | "b", run: () => Promise<number>) => {
      gc();
      const before = process.cpuUsage();
      const emBefore = processCpuMs(pid);
      times[side].push(await run());
      const used = process.cpuUsage(before);
      (side === "a" ? times.cpuA : times.cpuB).push((used.user + used.system) / 1000);
      const emAfter = processCpuMs(pid);
      if (emBefore !== undefined && emAfter !== undefined) emCpu[side].push(emAfter - emBefore);
    };
    for (let r = 0; r < ROUNDS; r++) {
      await measure("a", ours);
      await measure("b", theirs);
    }
    const rate = (ms: number) => `${Math.round(EVENTS / (ms / 1000)).toLocaleString("en-US")} events/s`;
    printComparison(
      `ingest ${EVENTS} events x ${ROUNDS} rounds through one emulator (interleaved, emulator in a child process)` +
        (LABELS ? ", ours with an event label" : ""),
      { label: "A client.ingest", times: times.a, cpu: times.cpuA, rate },
      { label: "B @axiomhq/js", times: times.b, cpu: times.cpuB, rate },
      1.0,
    );
    if (emCpu.a.length > 0) {
      const [ea, eb] = [stats(emCpu.a).median, stats(emCpu.b).median];
      console.log(
        `  CPU of the emulator  median A ${ea.toFixed(0)} ms  B ${eb.toFixed(0)} ms  ratio ${(ea / eb).toFixed(3)}`,
      );
    }
    await client.close();
  }

  (async () => {
    const em = await spawnEmulator(path.resolve(__dirname, ".."));
    try {
      await bench(em.url, em.token, em.pid);
    } finally {
      await em.close();
    }
  })().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
