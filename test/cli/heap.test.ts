/** `observability ingest` streams under a bounded heap (cli/heap.ts): the limit the process runs with, and the
 * signals and exit codes that pass through the re-run. */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { useEmulator } from "../helpers/emulator";
import { emulatorEnv } from "../helpers/cli";

const root = join(__dirname, "..", "..");
const node = join(root, "node_modules", ".bin", "node");
const bin = join(root, "dist", "cli", "index.js");
const em = useEmulator();

/** Every process a test started, killed afterwards whatever the test's outcome, so none holds the run open. */
const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0)) {
    for (const p of [...childPids(pid), pid]) {
      try {
        process.kill(p, "SIGKILL");
      } catch {
        // already gone
      }
    }
  }
});

/** Command lines of the live children of `pid`, read from /proc (Linux, as CI and these machines are); a
 * process that ends while it is read is left out. */
function childCommandLines(pid: number): string[][] {
  const lines: string[][] = [];
  for (const c of childPids(pid)) {
    try {
      lines.push(readFileSync(`/proc/${c}/cmdline`, "utf8").split("\0").filter(Boolean));
    } catch {
      // gone meanwhile
    }
  }
  return lines;
}

function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/** Starts `observability ingest ds -` reading a pipe the test keeps open, so the processes stay up. */
function startIngest(extraEnv: Record<string, string> = {}) {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !k.startsWith("OBSERVABILITY_")) env[k] = v;
  delete env.NODE_OPTIONS;
  Object.assign(env, emulatorEnv(em.current), extraEnv);
  const child = spawn(node, [bin, "ingest", "heap-test", "-", "--format", "ndjson"], {
    cwd: root,
    env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  started.push(child.pid!);
  let stderr = "";
  let stdout = "";
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("close", (code, signal) => resolve({ code, signal })),
  );
  return { child, exited, output: () => ({ stdout, stderr }) };
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
  it("re-runs itself once with --max-old-space-size, and the child's summary and exit code come through", async () => {
    const run = startIngest();
    const cmd = await eventually(() => childCommandLines(run.child.pid!).find((c) => c.includes("ingest")));
    expect(cmd).toContain("--max-old-space-size=128");
    // The child does not re-run itself again.
    const grandchildren = await (async () => {
      const childPid = Number(
        readFileSync(`/proc/${run.child.pid}/task/${run.child.pid}/children`, "utf8").trim(),
      );
      return childCommandLines(childPid).filter((c) => c.includes("ingest"));
    })();
    expect(grandchildren).toEqual([]);
    run.child.stdin!.end('{"n":1}\n{"n":2}\n');
    const { code } = await run.exited;
    expect(code).toBe(0);
    expect(run.output().stdout + run.output().stderr).toMatch(/2 events? ingested|ingested[^\n]*2/i);
  });

  it("a limit the user chose (NODE_OPTIONS) is kept: no re-run", async () => {
    const run = startIngest({ NODE_OPTIONS: "--max-old-space-size=300" });
    // Give it time to start a child if it were going to.
    await new Promise((r) => setTimeout(r, 1500));
    expect(childCommandLines(run.child.pid!).filter((c) => c.includes("ingest"))).toEqual([]);
    run.child.stdin!.end('{"n":1}\n');
    expect((await run.exited).code).toBe(0);
  });

  it("a SIGTERM sent to the command alone reaches the streaming child, and neither is left running", async () => {
    const run = startIngest();
    const cmd = await eventually(() => childCommandLines(run.child.pid!).find((c) => c.includes("ingest")));
    expect(cmd).toBeDefined();
    const childPid = Number(
      readFileSync(`/proc/${run.child.pid}/task/${run.child.pid}/children`, "utf8").trim(),
    );
    run.child.kill("SIGTERM");
    const { code } = await run.exited;
    expect(code).not.toBe(0);
    await eventually(() => {
      try {
        process.kill(childPid, 0);
        return undefined;
      } catch {
        return true;
      }
    });
  });
});
