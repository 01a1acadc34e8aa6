/**
 * cli/recover/proc.ts: what recover reads of this machine's processes from /proc (proc(5): the stat line's third
 * field is the state, its fourth the parent; cmdline is NUL-separated), read here of real processes.
 */
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { isZombie, procArgv, procListeningOn, procPids, procStat } from "../../cli/recover/proc";

const hasProc = spawnSync("test", ["-d", "/proc/self"]).status === 0;
const onLinux = hasProc ? test : test.skip;

onLinux("this process: listed, its parent and its arguments as the process itself knows them", () => {
  expect(procPids()).toContain(process.pid);
  expect(procStat(process.pid)).toEqual({ state: expect.stringMatching(/^[RSD]$/), ppid: process.ppid });
  expect(procArgv(process.pid)).toEqual([
    process.argv0 === "node" ? expect.any(String) : expect.any(String),
    ...process.execArgv,
    ...process.argv.slice(1),
  ]);
  expect(isZombie(process.pid)).toBe(false);
});

onLinux("a command name with spaces and parentheses does not shift the fields read after it", async () => {
  // The stat line's second field is the executable's name in parentheses, which may hold both.
  const dir = mkdtempSync(path.join(os.tmpdir(), "proc-"));
  const odd = path.join(dir, "odd (na) x");
  copyFileSync("/bin/sleep", odd);
  chmodSync(odd, 0o755);
  const child = spawn(odd, ["30"], { stdio: "ignore" });
  try {
    await new Promise((resolve) => child.once("spawn", resolve));
    expect(readFileSync(`/proc/${child.pid}/stat`, "utf8")).toContain("(odd (na) x)");
    expect(procStat(child.pid!)).toEqual({ state: expect.stringMatching(/^[RSD]$/), ppid: process.pid });
  } finally {
    child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  }
});

onLinux("an ended process: no stat, not a zombie once reaped, and its arguments throw", async () => {
  const child = spawn("true", { stdio: "ignore" });
  await new Promise((resolve) => child.once("exit", resolve));
  expect(procStat(child.pid!)).toBeUndefined();
  expect(isZombie(child.pid!)).toBe(false);
  expect(() => procArgv(child.pid!)).toThrow();
});

onLinux(
  "the process listening on a port: a child's server found by its port (tcp and tcp6), none on a free port",
  async () => {
    // A child process, so the pid found is another process's, read through /proc/<pid>/fd as the demo reads it.
    for (const host of ["127.0.0.1", "::1"]) {
      const child = spawn(
        process.execPath,
        [
          "-e",
          `require("net").createServer().listen(0, ${JSON.stringify(host)}, function () { console.log(this.address().port) })`,
        ],
        { stdio: ["ignore", "pipe", "inherit"] },
      );
      const port = await new Promise<number>((resolve) =>
        child.stdout.once("data", (b: Buffer) => resolve(Number(String(b).trim()))),
      );
      try {
        expect({ host, pid: procListeningOn(port) }).toEqual({ host, pid: child.pid });
      } finally {
        child.kill();
        await new Promise((resolve) => child.once("exit", resolve));
      }
      // Closed with its process: nothing listens there now.
      expect(procListeningOn(port)).toBeUndefined();
    }
  },
);
