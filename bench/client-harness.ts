/**
 * Shared by the client benchmarks: an emulator in a child process (so its CPU time and garbage collection
 * stay off the measured side), interleaved A/B rounds, and one way of printing the figures.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import * as path from "node:path";

/** An emulator serving from a child process. */
export interface ChildEmulator {
  /** Base URL, e.g. `http://127.0.0.1:40123`. */
  url: string;
  /** The API token it accepts. */
  token: string;
  /** Everything it printed up to and including its "Press Ctrl-C" line. */
  banner: string;
  /** The child's process id (to read its CPU time from /proc on Linux). */
  pid: number | undefined;
  /** Stops the child (SIGTERM) and waits for it to exit. */
  close(): Promise<void>;
  /** Kills the child with SIGKILL, giving it no chance to save anything, and waits for it to exit. */
  kill9(): Promise<void>;
}

/**
 * Runs one benchmark against a fresh child-process emulator, stops the emulator afterwards, and turns a failure
 * into a message and exit code 1. `root` is the checkout (see {@link spawnEmulator}).
 */
export function runWithEmulator(root: string, bench: (url: string, token: string) => Promise<void>): void {
  (async () => {
    const em = await spawnEmulator(root);
    try {
      await bench(em.url, em.token);
    } finally {
      await em.close();
    }
  })().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}

/** Starts `observability emulator --port 0 --quiet` (the built CLI of the checkout at `root`, on its Node 24)
 * and reads the URL and token from the banner it prints. Extra CLI flags go in `args`. `root` is passed in
 * because Node loads this file as an ES module, where `__dirname` does not exist. */
export function spawnEmulator(root: string, args: string[] = []): Promise<ChildEmulator> {
  const child = spawn(
    path.join(root, "node_modules/.bin/node"),
    [path.join(root, "dist/cli/index.js"), "emulator", "--port", "0", "--quiet", ...args],
    { cwd: root, stdio: ["ignore", "pipe", "pipe"] },
  );
  // A crashed bench must not leave the child serving.
  const killChild = () => child.kill("SIGTERM");
  process.once("exit", killChild);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    const timer = setTimeout(() => fail(new Error("emulator did not start within 20 s")), 20_000);
    const fail = (e: Error) => {
      clearTimeout(timer);
      killChild();
      reject(new Error(`${e.message}\n${err}`));
    };
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
    const earlyExit = (code: number | null) =>
      fail(new Error(`emulator exited with ${code} before it was ready`));
    child.once("exit", earlyExit);
    child.once("error", fail);
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      const url = /listening on (\S+)/.exec(out)?.[1];
      const token = /API token:\s+(\S+)/.exec(out)?.[1];
      // The banner's last line: the lines between (the data file's recovery report) are in by then.
      if (url === undefined || token === undefined || !out.includes("Press Ctrl-C")) return;
      clearTimeout(timer);
      // Only this listener: the one behind `exited` must stay, or close() would wait forever.
      child.off("exit", earlyExit);
      child.stdout.removeAllListeners("data");
      child.stdout.resume(); // keep draining, so a later line never blocks the child
      resolve({
        url,
        token,
        banner: out,
        pid: child.pid,
        close: async () => {
          process.off("exit", killChild);
          killChild();
          await exited;
        },
        kill9: async () => {
          process.off("exit", killChild);
          child.kill("SIGKILL");
          await exited;
        },
      });
    });
  });
}

/** CPU time (user + system, ms) that process `pid` has used so far, from /proc; undefined where there is none. */
export function processCpuMs(pid: number | undefined): number | undefined {
  const split = processCpuSplitMs(pid);
  return split === undefined ? undefined : split.userMs + split.systemMs;
}

/**
 * {@link processCpuMs} in its two parts: the process's own code (user) and the kernel's work for it (system), with
 * the page faults it took (memory touched for the first time, the kernel's main work for a process that does no
 * input or output of its own).
 */
export function processCpuSplitMs(
  pid: number | undefined,
): { userMs: number; systemMs: number; pageFaults: number } | undefined {
  if (pid === undefined) return undefined;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    // minflt, utime and stime are fields 10, 14 and 15 of the line, the times in clock ticks (100 a second).
    return {
      userMs: (Number(fields[11]) * 1000) / 100,
      systemMs: (Number(fields[12]) * 1000) / 100,
      pageFaults: Number(fields[7]),
    };
  } catch {
    return undefined;
  }
}

/** Median, min and max of a sample. */
export interface Stats {
  median: number;
  min: number;
  max: number;
}

/** Median (mean of the middle two for an even count), min and max. */
export function stats(xs: readonly number[]): Stats {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { median, min: sorted[0], max: sorted[sorted.length - 1] };
}

/** Wall and CPU times (ms) of each side's runs. */
export interface Times {
  a: number[];
  b: number[];
  /** CPU time (user + system) this process spent per run: steadier than wall time on a busy machine,
   * since waiting for the emulator (another process) does not count. */
  cpuA: number[];
  cpuB: number[];
}

/** One warm-up run of each, then `rounds` rounds of A then B; returns each side's wall times (as the run
 * measured them) and CPU times. A collection before each run (when Node runs with --expose-gc) keeps one
 * side's garbage off the other. */
export async function interleave(
  rounds: number,
  a: () => Promise<number>,
  b: () => Promise<number>,
): Promise<Times> {
  const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
  await a();
  await b();
  const times: Times = { a: [], b: [], cpuA: [], cpuB: [] };
  const measure = async (run: () => Promise<number>, wall: number[], cpu: number[]) => {
    gc();
    const before = process.cpuUsage();
    wall.push(await run());
    const used = process.cpuUsage(before);
    cpu.push((used.user + used.system) / 1000);
  };
  for (let r = 0; r < rounds; r++) {
    await measure(a, times.a, times.cpuA);
    await measure(b, times.b, times.cpuB);
  }
  return times;
}

/** Prints both sides' median, min, max and runs, the ratio of medians A/B against the goal, and the
 * CPU-time medians and ratio when given. */
export function printComparison(
  title: string,
  a: { label: string; times: number[]; cpu?: number[]; rate?: (ms: number) => string },
  b: { label: string; times: number[]; cpu?: number[]; rate?: (ms: number) => string },
  goal = 1.1,
): number {
  console.log(title);
  for (const side of [a, b]) {
    const s = stats(side.times);
    const rate = side.rate ? `  (${side.rate(s.median)})` : "";
    console.log(
      `  ${side.label.padEnd(20)} median ${s.median.toFixed(1)} ms  min ${s.min.toFixed(1)}  max ${s.max.toFixed(1)}${rate}  runs ${side.times.map((x) => x.toFixed(0)).join(" ")}`,
    );
  }
  const ratio = stats(a.times).median / stats(b.times).median;
  console.log(
    `  ratio A/B of medians ${ratio.toFixed(3)}  (goal <= ${goal.toFixed(2)}: ${ratio <= goal ? "met" : "NOT met"})`,
  );
  if (a.cpu && b.cpu) {
    const [ca, cb] = [stats(a.cpu).median, stats(b.cpu).median];
    console.log(
      `  CPU of this process  median A ${ca.toFixed(1)} ms  B ${cb.toFixed(1)} ms  ratio ${(ca / cb).toFixed(3)}`,
    );
  }
  return ratio;
}
