/**
 * This machine's processes as Linux's /proc shows them: what recover reads of a lock's process and of leftover
 * hosts, and what the test runs read of the processes they marked. Elsewhere (no /proc) each reader says "none".
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/** Every process id /proc lists; none where there is no /proc. */
export function procPids(): number[] {
  try {
    return readdirSync("/proc")
      .filter((d) => /^\d+$/.test(d))
      .map(Number);
  } catch {
    return [];
  }
}

/**
 * A process's state letter and parent, from /proc/<pid>/stat; undefined once it has ended (or with no /proc). The
 * command's name, in parentheses, may hold spaces and parentheses itself, so the fields are read after the last.
 */
export function procStat(pid: number): { state: string; ppid: number } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { state, ppid: Number(ppid) };
}

/** Whether the process is a zombie: killed, and waiting for a parent to reap it, which counts as gone. */
export const isZombie = (pid: number): boolean => procStat(pid)?.state === "Z";

/** A process's arguments, from /proc/<pid>/cmdline; throws once it has ended. */
export function procArgv(pid: number): string[] {
  return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").slice(0, -1);
}

/** The TCP state of a listening socket in /proc/net/tcp and tcp6 (the kernel's TCP_LISTEN, 10). */
const TCP_LISTEN = "0A";

/**
 * The process listening on a TCP port of this machine, from /proc/net/tcp and tcp6 (a listening socket's inode) and
 * /proc/<pid>/fd (the process holding it); undefined when none is found, or it belongs to another user (its fd
 * folder cannot be read), or there is no /proc.
 */
export function procListeningOn(port: number): number | undefined {
  const inodes = new Set<string>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    // Columns: sl, local_address (hex address:hex port), rem_address, st, queues, tr, retrnsmt, uid, timeout, inode.
    for (const row of text.split("\n").slice(1)) {
      const cols = row.trim().split(/\s+/);
      if (cols.length < 10 || cols[3] !== TCP_LISTEN) continue;
      if (parseInt(cols[1].split(":").at(-1)!, 16) === port) inodes.add(`socket:[${cols[9]}]`);
    }
  }
  if (inodes.size === 0) return undefined;
  for (const pid of procPids()) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        if (inodes.has(readlinkSync(`/proc/${pid}/fd/${fd}`))) return pid;
      } catch {
        // The descriptor closed while being read.
      }
    }
  }
  return undefined;
}
