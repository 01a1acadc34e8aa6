/**
 * A stack in Pulumi's file backend (`pulumi login file://<dir>`), as pulumi/pulumi pkg/backend/diy lays it out
 * under `<dir>/.pulumi` (store.go, state.go, lock.go):
 * - the checkpoint `stacks/<project>/<stack>.json` (`stacks/<stack>.json` in the legacy layout without
 *   projects), a VersionedCheckpoint `{version, checkpoint: {stack, config, latest}}`;
 * - `<stack>.json.bak`, the checkpoint before the last save: every save first copies the file there
 *   (state.go, saveCheckpoint and backupTarget);
 * - `backups/<project>/<stack>/<stack>.<unix ns>.json`, a copy of the checkpoint after each complete operation
 *   (backupStack, unless PULUMI_DIY_BACKEND_DISABLE_CHECKPOINT_BACKUPS);
 * - a lock per running operation, `locks/<the stack's full name>/<uuid>.json` holding `{pid, username,
 *   hostname, timestamp}` (lock.go, lockContent), removed when the operation ends, or by `pulumi cancel`.
 * A process killed mid-operation leaves its lock; one killed while writing may leave the checkpoint empty or cut
 * short, which the CLI reports as `failed to load checkpoint` (pulumi/pulumi#2801, #3089).
 */
import {
  copyFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
} from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { isZombie, procArgv } from "./proc";

/** A file backend's stack: where its files are. */
export interface StackFiles {
  /** `<dir>/.pulumi`. */
  bookkeeping: string;
  checkpoint: string;
  backupsDir: string;
  /** Folders that may hold the stack's locks. */
  lockDirs: string[];
}

/** The files of `stack` of `project` in the file backend at `url` (`file://…`), in the layout the backend uses. */
export function stackFiles(url: string, project: string, stack: string): StackFiles {
  const root = url.replace(/^file:\/\//, "").replace(/^~(?=\/|$)/, os.homedir());
  const bookkeeping = path.join(root || os.homedir(), ".pulumi");
  const projectLayout = path.join(bookkeeping, "stacks", project, `${stack}.json`);
  const legacyLayout = path.join(bookkeeping, "stacks", `${stack}.json`);
  const legacy = !existsSync(projectLayout) && existsSync(legacyLayout);
  return {
    bookkeeping,
    checkpoint: legacy ? legacyLayout : projectLayout,
    backupsDir: legacy
      ? path.join(bookkeeping, "backups", stack)
      : path.join(bookkeeping, "backups", project, stack),
    lockDirs: legacy
      ? [path.join(bookkeeping, "locks", stack)]
      : [
          path.join(bookkeeping, "locks", "organization", project, stack),
          path.join(bookkeeping, "locks", project, stack),
        ],
  };
}

/** A lock file and what recover made of it. */
export interface LockFinding {
  file: string;
  pid?: number;
  hostname?: string;
  timestamp?: Date;
  /** `stale`: its process is gone; removed unless dry-run. */
  verdict: "stale" | "live" | "elsewhere" | "unreadable";
  reason: string;
}

/** Whether a process `pid` runs on this host, and what it is. */
export interface ProcessProbe {
  /** undefined when no such process exists; else its command line, or "" when it cannot be read. */
  commandOf(pid: number): string | undefined;
  hostname(): string;
}

/** The probe of this machine: `kill -0` and, on Linux, /proc/<pid>/cmdline. */
export const localProcesses: ProcessProbe = {
  commandOf(pid) {
    try {
      process.kill(pid, 0);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ESRCH") return undefined;
    }
    // A killed process whose parent died too may wait as a zombie for a reaper: gone all the same. (With no
    // /proc, kill -0 decides.)
    if (isZombie(pid)) return undefined;
    try {
      return procArgv(pid).join(" ").trim();
    } catch {
      return "";
    }
  },
  hostname: () => os.hostname(),
};

/** Every lock of the stack, judged: a lock whose process is gone from this host is stale. */
export function judgeLocks(files: StackFiles, probe: ProcessProbe = localProcesses): LockFinding[] {
  const found: LockFinding[] = [];
  for (const dir of files.lockDirs) {
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir).filter((f) => f.endsWith(".json"))) {
      const file = path.join(dir, name);
      let content: { pid?: unknown; hostname?: unknown; timestamp?: unknown };
      try {
        content = JSON.parse(readFileSync(file, "utf8")) as typeof content;
      } catch {
        found.push({ file, verdict: "unreadable", reason: "it cannot be read as a lock: left alone" });
        continue;
      }
      const pid = typeof content.pid === "number" ? content.pid : undefined;
      const hostname = typeof content.hostname === "string" ? content.hostname : undefined;
      const timestamp = typeof content.timestamp === "string" ? new Date(content.timestamp) : undefined;
      const base = { file, pid, hostname, timestamp };
      if (pid === undefined || hostname === undefined) {
        found.push({ ...base, verdict: "unreadable", reason: "it names no process and host: left alone" });
      } else if (hostname !== probe.hostname()) {
        found.push({
          ...base,
          verdict: "elsewhere",
          reason: `held by pid ${pid} on ${hostname}, another host, whose processes cannot be seen from here: left alone`,
        });
      } else {
        const command = probe.commandOf(pid);
        if (command === undefined) {
          found.push({ ...base, verdict: "stale", reason: `its process ${pid} is gone` });
        } else if (command !== "" && !/pulumi/.test(command)) {
          found.push({
            ...base,
            verdict: "stale",
            reason: `its process ${pid} is gone (that pid now runs \`${command.slice(0, 60)}\`)`,
          });
        } else {
          found.push({
            ...base,
            verdict: "live",
            reason: `its process ${pid} is still running: wait for it to end, or stop it, then run recover again`,
          });
        }
      }
    }
  }
  return found;
}

/** Removes a stale lock, and the metadata the backend's blob store keeps beside it (`<lock>.attrs`). */
export function removeLock(lock: LockFinding): void {
  unlinkSync(lock.file);
  rmSync(`${lock.file}.attrs`, { force: true });
}

/** Why a checkpoint's text cannot be loaded, or undefined when it can. */
export function checkpointProblem(text: string): string | undefined {
  if (text.trim() === "") return "it is empty";
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    return `it is not whole JSON (${(e as Error).message})`;
  }
  const checkpoint = (parsed as { checkpoint?: unknown } | null)?.checkpoint;
  if (checkpoint === null || typeof checkpoint !== "object") return "it holds no checkpoint";
  return undefined;
}

/** The state of the stack's checkpoint, and the backup it can be restored from. */
export interface CheckpointFinding {
  file: string;
  /** undefined when the checkpoint loads. */
  problem?: string;
  /**
   * Why the checkpoint's metadata file `<checkpoint>.attrs` cannot be read, when it cannot: the blob store the
   * backend writes through (gocloud.dev/blob/fileblob, attrs.go setAttrs and writer.Close) truncates and
   * rewrites it before it renames the new checkpoint into place, so a kill there leaves it empty while the
   * checkpoint is still the last whole save; every read then fails with `failed to load checkpoint: EOF`.
   */
  sidecar?: string;
  /** The newest backup that loads: the `.bak`, else the newest of the backups folder. */
  backup?: { file: string; kind: "bak" | "backups folder"; savedAt: Date };
}

/** Whether the checkpoint loads, and if not, which backup to restore it from. */
export function judgeCheckpoint(files: StackFiles): CheckpointFinding {
  if (!existsSync(files.checkpoint)) return { file: files.checkpoint, problem: "it does not exist" };
  const problem = checkpointProblem(readFileSync(files.checkpoint, "utf8"));
  if (!problem) {
    const sidecar = attrsProblem(files.checkpoint);
    return sidecar ? { file: files.checkpoint, sidecar } : { file: files.checkpoint };
  }
  const candidates: { file: string; kind: "bak" | "backups folder" }[] = [];
  candidates.push({ file: `${files.checkpoint}.bak`, kind: "bak" });
  if (existsSync(files.backupsDir)) {
    const stem = path.basename(files.checkpoint, ".json");
    const numbered = readdirSync(files.backupsDir)
      .map((f) => ({ f, at: new RegExp(`^${escape(stem)}\\.(\\d+)\\.json$`).exec(f)?.[1] }))
      .filter((x): x is { f: string; at: string } => x.at !== undefined)
      .sort((a, b) => (BigInt(b.at) > BigInt(a.at) ? 1 : -1));
    for (const { f } of numbered)
      candidates.push({ file: path.join(files.backupsDir, f), kind: "backups folder" });
  }
  for (const c of candidates) {
    if (!existsSync(c.file)) continue;
    if (checkpointProblem(readFileSync(c.file, "utf8")) === undefined)
      return { file: files.checkpoint, problem, backup: { ...c, savedAt: statSync(c.file).mtime } };
  }
  return { file: files.checkpoint, problem };
}

/** Why `<file>.attrs` cannot be read as JSON, or undefined when it can or does not exist. */
function attrsProblem(file: string): string | undefined {
  const attrs = `${file}.attrs`;
  if (!existsSync(attrs)) return undefined;
  const text = readFileSync(attrs, "utf8");
  if (text.trim() === "") return "it is empty";
  try {
    JSON.parse(text);
    return undefined;
  } catch (e) {
    return `it is not whole JSON (${(e as Error).message})`;
  }
}

/**
 * Removes a torn `.attrs` sidecar (kept as `<checkpoint>.attrs.torn`); the store reads a checkpoint without one.
 */
export function removeTornSidecar(finding: CheckpointFinding): void {
  const attrs = `${finding.file}.attrs`;
  copyFileSync(attrs, `${attrs}.torn`);
  unlinkSync(attrs);
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Puts the backup in the checkpoint's place: written beside it and renamed over it, so that a kill here leaves
 * either file whole. The torn checkpoint is kept as `<checkpoint>.torn` (a name the backend's listing skips).
 */
export function restoreCheckpoint(finding: CheckpointFinding): string | undefined {
  if (!finding.backup) throw new Error(`no backup of ${finding.file} loads`);
  let kept: string | undefined;
  if (existsSync(finding.file)) {
    kept = `${finding.file}.torn`;
    copyFileSync(finding.file, kept);
  }
  const tmp = `${finding.file}.recover-${process.pid}`;
  copyFileSync(finding.backup.file, tmp);
  renameSync(tmp, finding.file);
  // The store's metadata described the torn content (and may be torn too): without it, the store reads the file.
  const attrs = `${finding.file}.attrs`;
  if (existsSync(attrs)) renameSync(attrs, `${attrs}.torn`);
  return kept;
}
