/**
 * This machine's processes as Linux's /proc shows them: what recover reads of a lock's process and of leftover
 * hosts, and what the test runs read of the processes they marked. Elsewhere (no /proc) each reader says "none".
 */
import { readdirSync, readFileSync } from "node:fs";

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
