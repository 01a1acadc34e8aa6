/**
 * `observability ingest` against the client's `ingest` called directly, on the same generated NDJSON file of at
 * least 1 GB, each into a fresh emulator in a child process. Both sides run as child processes, so each one's
 * wall time includes the same Node start-up and each one's peak RSS is measured the same way (VmHWM from
 * /proc, polled, summed over the command's processes). Prints throughput, the CLI's peak RSS (goal < 256 MB) and the ratio CLI/direct (goal ≤ 1.15).
 *
 *   npm run build && node_modules/.bin/node bench/cli-ingest.ts [megabytes=1024] [rounds=1]
 *
 * Rounds alternate the order (direct first, then CLI first). The generated file is deleted at the end.
 */
// A block, not a module: see client-ingest.ts.
{
  const { spawn } = require("node:child_process") as typeof import("node:child_process");
  const fs = require("node:fs") as typeof import("node:fs");
  const os = require("node:os") as typeof import("node:os");
  const path = require("node:path") as typeof import("node:path");
  const { spawnEmulator, stats } = require("./client-harness.ts") as typeof import("./client-harness");

  const root = path.resolve(__dirname, "..");
  const node = path.join(root, "node_modules/.bin/node");
  const DATASET = "bench-cli";

  /** Child mode: the client's ingest on the file, as a program using the library would call it. */
  async function direct(url: string, token: string, file: string): Promise<void> {
    const { ObservabilityClient } = require("../dist/provider/client") as typeof import("../provider/client");
    const client = new ObservabilityClient({ url, token });
    const summary = await client.ingest(DATASET, fs.createReadStream(file), { format: "ndjson" });
    await client.close();
    process.stdout.write(`${JSON.stringify({ ingested: summary.ingested, failed: summary.failed })}\n`);
  }

  /** Writes about `megabytes` MB of ~1 KB NDJSON events; returns the event count. Messages come from a pool
   * of a thousand varied texts, so gzip meets realistic, not trivially repeated, data. */
  async function generate(file: string, megabytes: number): Promise<number> {
    const words =
      "checkout payment order user cart session timeout retry upstream cache miss hit db query slow ok error warn disk queue worker".split(
        " ",
      );
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const pool = Array.from({ length: 1000 }, () =>
      Array.from({ length: 110 }, () => words[Math.floor(random() * words.length)]).join(" "),
    );
    const out = fs.createWriteStream(file);
    const target = megabytes * 1024 * 1024;
    const start = Date.UTC(2024, 0, 1);
    let bytes = 0;
    let n = 0;
    while (bytes < target) {
      let chunk = "";
      for (let k = 0; k < 1000; k++, n++) {
        chunk += `${JSON.stringify({
          _time: new Date(start + n).toISOString(),
          level: n % 10 === 0 ? "error" : "info",
          status: 200 + (n % 5) * 100,
          path: `/api/v1/items/${n % 997}`,
          durationMs: n % 1013,
          message: pool[n % 1000],
        })}\n`;
      }
      bytes += Buffer.byteLength(chunk);
      if (!out.write(chunk)) await new Promise<void>((r) => out.once("drain", () => r()));
    }
    await new Promise<void>((resolve, reject) =>
      out.end((err?: Error | null) => (err ? reject(err) : resolve())),
    );
    return n;
  }

  /** Peak resident set size of a live process in bytes (Linux VmHWM), or undefined once it has gone. */
  function peakRss(pid: number): number | undefined {
    try {
      const kb = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
      return kb === undefined ? undefined : Number(kb) * 1024;
    } catch {
      return undefined;
    }
  }

  /** `pid` and its live descendants: the CLI's ingest re-runs itself in a child under a bounded heap, and that
   * child's memory is the command's memory too. */
  function processTree(pid: number): number[] {
    let children: number[] = [];
    try {
      children = fs
        .readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
        .trim()
        .split(/\s+/)
        .filter(Boolean)
        .map(Number);
    } catch {
      return [pid];
    }
    return [pid, ...children.flatMap(processTree)];
  }

  interface Run {
    ms: number;
    peakRss: number;
    stdout: string;
  }

  /** Runs `args` with Node against a fresh emulator; times it and polls its peak RSS until it exits. */
  async function measure(
    args: (url: string, token: string) => string[],
    env: (url: string, token: string) => NodeJS.ProcessEnv,
  ): Promise<Run> {
    const em = await spawnEmulator(root, ["--dataset", DATASET]);
    try {
      const started = performance.now();
      const child = spawn(node, args(em.url, em.token), {
        cwd: root,
        env: { ...process.env, ...env(em.url, em.token) },
        stdio: ["ignore", "pipe", "inherit"],
      });
      let stdout = "";
      child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
      // VmHWM only grows, so each process's last reading is its peak but for the final few milliseconds. The
      // command's peak is the sum of its processes' peaks: an upper bound, since they need not peak together.
      const peaks = new Map<number, number>();
      const poll = setInterval(() => {
        for (const pid of processTree(child.pid ?? -1)) {
          peaks.set(pid, Math.max(peaks.get(pid) ?? 0, peakRss(pid) ?? 0));
        }
      }, 25);
      const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
      clearInterval(poll);
      const peak = [...peaks.values()].reduce((a, b) => a + b, 0);
      const ms = performance.now() - started;
      if (code !== 0) throw new Error(`${args(em.url, em.token).join(" ")} exited with ${code}: ${stdout}`);
      return { ms, peakRss: peak, stdout };
    } finally {
      await em.close();
    }
  }

  async function main(): Promise<void> {
    const megabytes = Number(process.argv[2] ?? 1024);
    const rounds = Number(process.argv[3] ?? 1);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "observability-bench-"));
    const file = path.join(dir, "events.ndjson");
    try {
      console.log(`generating ${megabytes} MB of NDJSON in ${dir} ...`);
      const events = await generate(file, megabytes);
      const size = fs.statSync(file).size;
      console.log(`${events.toLocaleString("en-US")} events, ${(size / 1e6).toFixed(0)} MB`);

      const viaCli = () =>
        measure(
          () => [path.join(root, "dist/cli/index.js"), "ingest", DATASET, file],
          (url, token) => ({ OBSERVABILITY_URL: url, OBSERVABILITY_TOKEN: token }),
        );
      const viaClient = () =>
        measure(
          (url, token) => [path.join(__filename), "--direct", url, token, file],
          () => ({}),
        );

      const cli: Run[] = [];
      const client: Run[] = [];
      for (let r = 0; r < rounds; r++) {
        // Alternate which goes first, so neither always meets the warmer page cache.
        if (r % 2 === 0) {
          client.push(await viaClient());
          cli.push(await viaCli());
        } else {
          cli.push(await viaCli());
          client.push(await viaClient());
        }
      }
      for (const run of cli) {
        if (!run.stdout.startsWith(`ingested ${events.toLocaleString("en-US")} events`)) {
          throw new Error(`the CLI did not ingest every event: ${run.stdout}`);
        }
      }
      for (const run of client) {
        if (JSON.parse(run.stdout).ingested !== events) throw new Error(`direct ingest: ${run.stdout}`);
      }
      const line = (label: string, runs: Run[]) => {
        const ms = stats(runs.map((x) => x.ms)).median;
        const rss = Math.max(...runs.map((x) => x.peakRss));
        console.log(
          `  ${label.padEnd(34)} ${(ms / 1000).toFixed(1).padStart(6)} s  ${(size / 1e6 / (ms / 1000)).toFixed(1).padStart(6)} MB/s  ` +
            `${Math.round(events / (ms / 1000))
              .toLocaleString("en-US")
              .padStart(9)} events/s  peak RSS ${(rss / 1048576).toFixed(0)} MB`,
        );
        return { ms, rss };
      };
      console.log(
        `ingest of one ${(size / 1e6).toFixed(0)} MB NDJSON file, ${rounds} round(s), each into a fresh emulator process:`,
      );
      const a = line("observability ingest (CLI)", cli);
      const b = line("client.ingest (direct)", client);
      const ratio = a.ms / b.ms;
      console.log(
        `  peak RSS of the CLI ${(a.rss / 1048576).toFixed(0)} MB  (goal < 256 MB: ${a.rss < 256 * 1048576 ? "met" : "NOT met"})`,
      );
      console.log(
        `  ratio CLI/direct ${ratio.toFixed(3)}  (goal <= 1.15: ${ratio <= 1.15 ? "met" : "NOT met"})`,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  if (process.argv[2] === "--direct") {
    direct(process.argv[3], process.argv[4], process.argv[5]).catch((e: unknown) => {
      console.error(e);
      process.exitCode = 1;
    });
  } else {
    main().catch((e: unknown) => {
      console.error(e);
      process.exitCode = 1;
    });
  }
}
