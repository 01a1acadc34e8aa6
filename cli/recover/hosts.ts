/**
 * The dynamic-provider hosts a killed run left behind. The engine starts each as `node
 * …/@pulumi/pulumi/cmd/dynamic-provider/index.js <engine address>` (through the `pulumi-resource-pulumi-nodejs`
 * launcher, a shell script that waits for it) in the project's folder (pulumi/pulumi pkg/resource/plugin/plugin.go
 * starts a plugin in its context's working directory). Hosts of this package's current versions exit by
 * themselves within seconds of their engine's death (provider/resources/engine-health.ts); hosts of older
 * versions, or of another package's dynamic resources, ran on for good. Recover names and stops those of the
 * project it recovers: a host in the project's folder whose engine address no longer answers, by the same gRPC
 * health check the hosts run. A host whose engine still answers belongs to a live run and is left alone.
 */
import { readlinkSync } from "node:fs";
import * as path from "node:path";
import { grpcEngineCheck, hostEngineAddress, type EngineState } from "../../provider/resources/engine-health";
import { procArgv, procPids, procStat } from "./proc";

/** How long recover waits for one engine to answer: its run is believed dead, so an answer comes at once or never. */
const RECOVER_CHECK_DEADLINE_MS = 10_000;

/** A process as recover sees it. */
export interface SeenProcess {
  pid: number;
  ppid?: number;
  argv: string[];
  /** Its working directory; undefined when it cannot be read. */
  cwd?: string;
}

/** What recover needs of the machine's processes to find and stop hosts; tests pass their own. */
export interface HostProbe {
  /** Every process that can be seen. */
  list(): SeenProcess[];
  /** One health check of an engine address. */
  engine(address: string): Promise<EngineState>;
  /** Sends `signal`; false when the process is gone already. */
  signal(pid: number, signal: NodeJS.Signals): boolean;
  /** Whether `pid` still runs (a zombie does not). */
  alive(pid: number): boolean;
  /** Resolves after `ms`: the pause between looks while a host ends. */
  pause(ms: number): Promise<void>;
}

/** A host left by a dead run, and its launcher when that still waits on it. */
export interface LeftoverHost {
  pid: number;
  engine: string;
  /** Why its engine counts as gone. */
  reason: string;
  command: string;
  launcher?: { pid: number; command: string };
}

const LAUNCHER = "pulumi-resource-pulumi-nodejs";

/** The hosts in `projectDir` whose engine is gone. */
export async function leftoverHosts(projectDir: string, probe: HostProbe): Promise<LeftoverHost[]> {
  const dir = path.resolve(projectDir);
  const processes = probe.list();
  const found: LeftoverHost[] = [];
  for (const p of processes) {
    const address = hostEngineAddress(p.argv);
    if (!address || p.cwd === undefined || path.resolve(p.cwd) !== dir) continue;
    const state = await probe.engine(address);
    if (state.alive) continue;
    const parent = processes.find((q) => q.pid === p.ppid);
    const launcher = parent?.argv.some((a) => path.basename(a) === LAUNCHER)
      ? { pid: parent.pid, command: parent.argv.join(" ") }
      : undefined;
    found.push({ pid: p.pid, engine: address, reason: state.reason, command: p.argv.join(" "), launcher });
  }
  return found;
}

/**
 * Stops `host`: SIGTERM, which ends Node unless it handles the signal, then SIGKILL when it still runs after
 * `graceMs`. Its launcher ends with it. Resolves to how it ended.
 */
export async function stopHost(
  host: LeftoverHost,
  probe: HostProbe,
  graceMs = 5_000,
): Promise<"terminated" | "killed" | "gone"> {
  if (!probe.signal(host.pid, "SIGTERM")) return "gone";
  const step = 100;
  for (let waited = 0; waited < graceMs; waited += step) {
    if (!probe.alive(host.pid)) return "terminated";
    await probe.pause(step);
  }
  if (!probe.alive(host.pid)) return "terminated";
  probe.signal(host.pid, "SIGKILL");
  return "killed";
}

/** This machine's processes, from /proc (Linux); none where there is no /proc. */
export const localHosts: HostProbe = {
  list() {
    const seen: SeenProcess[] = [];
    for (const pid of procPids()) {
      try {
        const argv = procArgv(pid);
        const stat = procStat(pid);
        if (!stat) continue;
        const ppid = stat.ppid;
        let cwd: string | undefined;
        try {
          cwd = readlinkSync(`/proc/${pid}/cwd`);
        } catch {
          // Another user's process: its folder cannot be read, so it is not this project's to stop.
        }
        seen.push({ pid, ppid, argv, cwd });
      } catch {
        // Ended while being read.
      }
    }
    return seen;
  },
  async engine(address) {
    // Hosts are checked one after another: a port that never answers costs seconds, not the whole command.
    const check = grpcEngineCheck(address, RECOVER_CHECK_DEADLINE_MS);
    try {
      return await check.check();
    } finally {
      check.close();
    }
  },
  signal(pid, signal) {
    try {
      process.kill(pid, signal);
      return true;
    } catch {
      return false;
    }
  },
  alive(pid) {
    const stat = procStat(pid);
    return stat !== undefined && stat.state !== "Z";
  },
  pause: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};
