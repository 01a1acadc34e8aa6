/** `observability ingest` streams under a bounded heap (cli/heap.ts): it replaces itself (execve) with a Node
 * started under `--max-old-space-size`, keeping its process id and standard streams. Linux, as CI is. */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { STREAMING_HEAP_MB } from "../../cli/heap";
import { useEmulator } from "../helpers/emulator";
import { emulatorEnv } from "../helpers/cli";

const root = join(__dirname, "..", "..");
const node = join(root, "node_modules", ".bin", "node");
const bin = join(root, "dist", "cli", "index.js");
const em = useEmulator({ datasets: ["heap-test"] });

/** Every process a test started, killed afterwards whatever the test's outcome, so none holds the run open. */
const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
});

/** The command line a live process runs now, or undefined once it has gone. */
function commandLine(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
  } catch {
    return undefined;
  }
}

function childPids(pid: number): string[] {
  return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean);
}

/** Starts `observability ingest ds -` reading a pipe the test keeps open, so the process stays up. */
function startIngest(extraEnv: Record<string, string> = {}) {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith("OBSERVABILITY_") && k !== "NODE_OPTIONS") env[k] = v;
  }
  Object.assign(env, emulatorEnv(em.current), extraEnv);
  const child = spawn(node, [bin, "ingest", "heap-test", "-", "--format", "ndjson"], {
    cwd: root,
    env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  started.push(child.pid!);
  let output = "";
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (output += d));
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  return { pid: child.pid!, stdin: child.stdin!, exited, output: () => output };
}

/** Polls until `f` returns a value. */
async function eventually<T>(f: () => T | undefined, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("ingest runs under a bounded heap", () => {
  it("replaces itself once, in the same process, and standard input, output and the exit code carry through", async () => {
    const run = startIngest();
    const flag = `--max-old-space-size=${STREAMING_HEAP_MB}`;
    const cmd = await eventually(() => {
      const c = commandLine(run.pid);
      return c?.includes(flag) ? c : undefined;
    });
    expect(cmd.filter((a) => a === flag)).toHaveLength(1); // once, never again
    expect(cmd.slice(-5)).toEqual(["ingest", "heap-test", "-", "--format", "ndjson"]);
    expect(childPids(run.pid)).toEqual([]); // no second process
    run.stdin.end('{"n":1}\n{"n":2}\n');
    expect(await run.exited).toBe(0);
    expect(run.output()).toMatch(/ingested 2 events into heap-test, 0 failed/);
  });

  it("a limit the user chose (NODE_OPTIONS) is kept: no restart", async () => {
    const run = startIngest({ NODE_OPTIONS: "--max-old-space-size=300" });
    // Sampled until it exits (a restart would show within milliseconds): the command line never changes.
    const seen = new Set<string>();
    let done = false;
    const exited = run.exited.then((code) => ((done = true), code));
    const sampling = (async () => {
      while (!done) {
        const c = commandLine(run.pid);
        if (c) seen.add(c.join(" "));
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    await new Promise((r) => setTimeout(r, 1000));
    run.stdin.end('{"n":1}\n');
    expect(await exited).toBe(0);
    await sampling;
    expect([...seen].filter((c) => c.includes(`--max-old-space-size=${STREAMING_HEAP_MB}`))).toEqual([]);
    expect(seen.size).toBeGreaterThan(0);
    expect(run.output()).toMatch(/ingested 1 event/);
  });
});
