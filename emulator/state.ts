/** The emulator's management objects (annotations, monitors, notifiers, roles, starred queries, the org) and
 * their persistence to a `--data` file together with the datasets. */
import { randomBytes } from "node:crypto";
import { promises as fsp, readdirSync, readFileSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { EventStoreApi } from "./store/events";
import { isoSeconds } from "./time";

/** The user id every request acts as; server-set `createdBy` and the owner of "my" starred queries. */
export const LOCAL_USER = "local-user";

/** A stored management object: plain JSON with an id. */
export type StoredObject = Record<string, unknown> & { id: string };

/** One entry of a monitor's history log. */
export interface HistoryEntry {
  checkId: string;
  name: string;
  state: "open" | "closed";
  timestamp: string;
}

/** Every management collection, as persisted. */
export interface StateSnapshot {
  annotations: StoredObject[];
  monitors: StoredObject[];
  monitorHistory: Record<string, HistoryEntry[]>;
  notifiers: StoredObject[];
  roles: StoredObject[];
  starredQueries: StoredObject[];
  orgs: StoredObject[];
}

/** The snapshot's keys that hold a {@link Collection} each (every one but `monitorHistory`). */
const COLLECTION_NAMES = ["annotations", "monitors", "notifiers", "roles", "starredQueries", "orgs"] as const;

/** A collection keyed by id that keeps insertion order (lists come back in creation order). */
export class Collection {
  private readonly items = new Map<string, StoredObject>();

  constructor(readonly prefix: string) {}

  /** A new unused id with this collection's prefix. */
  newId(): string {
    for (;;) {
      const id = `${this.prefix}${randomBytes(8).toString("hex")}`;
      if (!this.items.has(id)) return id;
    }
  }
  get(id: string): StoredObject | undefined {
    return this.items.get(id);
  }
  set(obj: StoredObject): StoredObject {
    this.items.set(obj.id, obj);
    return obj;
  }
  delete(id: string): boolean {
    return this.items.delete(id);
  }
  list(): StoredObject[] {
    return [...this.items.values()];
  }
  load(objs: StoredObject[]): void {
    this.items.clear();
    for (const o of objs) this.items.set(o.id, o);
  }
}

/** The emulator organization: a realistic org object whose license carries every field the spec names. */
export function defaultOrg(orgId: string, now = new Date()): StoredObject {
  const day = 86_400_000;
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  const created = new Date(now.getTime() - 30 * day);
  return {
    id: orgId,
    name: "Local Development",
    slug: orgId,
    plan: "personal",
    planCreated: isoSeconds(created),
    paymentStatus: "na",
    primaryEmail: "dev@localhost",
    lastUsageSync: isoSeconds(now),
    firstFailedPayment: "",
    role: "owner",
    metaCreated: isoSeconds(created),
    metaModified: isoSeconds(created),
    metaVersion: "1",
    license: {
      id: `lic_${orgId}`,
      tier: "personal",
      issuer: "observability-emulator",
      issuedTo: orgId,
      issuedAt: isoSeconds(created),
      validFrom: isoSeconds(created),
      expiresAt: isoSeconds(new Date(now.getTime() + 365 * day)),
      billingPeriodStart: isoSeconds(start),
      billingPeriodEnd: isoSeconds(end),
      apiRateLimitPerSecond: 100,
      maxAuditWindowSeconds: 7 * 86_400,
      maxDatasets: 100,
      maxEndpoints: 10,
      maxFields: 2048,
      maxMonitors: 100,
      maxQueryWindowSeconds: 30 * 86_400,
      maxUsers: 10,
      monthlyIngestGb: 500,
      monthlyQueryGbHours: 10,
      storageAllowanceGB: 500,
      withAuths: ["api-token", "personal-token"],
      features: { rbac: true, apl: true, monitors: true, annotations: true },
    },
  };
}

/** All management state of one emulator. */
export class State {
  readonly annotations = new Collection("ann_");
  readonly monitors = new Collection("mon_");
  readonly notifiers = new Collection("notify_");
  readonly roles = new Collection("role_");
  readonly starredQueries = new Collection("sq_");
  readonly orgs = new Collection("org_");
  /** Per-monitor history log, newest last. */
  monitorHistory: Record<string, HistoryEntry[]> = {};

  constructor(orgId: string) {
    this.orgs.set(defaultOrg(orgId));
  }

  /** Plain JSON of every collection. */
  snapshot(): StateSnapshot {
    return {
      annotations: this.annotations.list(),
      monitors: this.monitors.list(),
      monitorHistory: this.monitorHistory,
      notifiers: this.notifiers.list(),
      roles: this.roles.list(),
      starredQueries: this.starredQueries.list(),
      orgs: this.orgs.list(),
    };
  }

  /** Replaces every collection with a snapshot's (a missing collection stays as is). */
  restore(s: Partial<StateSnapshot>): void {
    const list = (v: unknown, name: string): StoredObject[] => {
      if (
        !Array.isArray(v) ||
        v.some((o) => typeof o !== "object" || o === null || typeof o.id !== "string")
      ) {
        throw new Error(`"${name}" must be a list of objects with an id`);
      }
      return v as StoredObject[];
    };
    for (const name of COLLECTION_NAMES) {
      if (s[name] !== undefined) this[name].load(list(s[name], name));
    }
    if (s.monitorHistory !== undefined) {
      if (typeof s.monitorHistory !== "object" || s.monitorHistory === null) {
        throw new Error(`"monitorHistory" must be an object`);
      }
      this.monitorHistory = s.monitorHistory;
    }
  }
}

const FORMAT = "pulumi-observability-emulator";
/** Rows per line of the data file: no line, and so no string in memory, grows with the dataset. */
const ROWS_PER_LINE = 5000;

/** One stored row as the data file holds it: bigints as decimal strings. */
type RowJson = [string, string, string, Record<string, unknown>];

/**
 * `--data FILE`: loads state and datasets at start; after each mutation, writes both atomically (a temporary
 * file in the same directory, then rename), debounced so a burst of requests costs one write.
 *
 * The file is NDJSON: a header line `{format, version: 2, state}`, then `{dataset, rows}` lines of at most
 * {@link ROWS_PER_LINE} rows. Written a line at a time, a large store neither blocks the server for one long
 * serialization nor hits the engine's maximum string length. A version 1 file (one JSON document whose
 * `datasets` holds every row) still loads.
 */
export class Persistence {
  private timer?: NodeJS.Timeout;
  private writing: Promise<void> = Promise.resolve();
  private dirty = false;

  constructor(
    readonly file: string,
    private readonly state: State,
    private readonly store: EventStoreApi,
    private readonly debounceMs = 100,
  ) {}

  /** Loads the file when it exists; a file that cannot be read or parsed is an error naming it. */
  load(): void {
    this.removeStaleTemporaries();
    let buf: Buffer;
    try {
      buf = readFileSync(this.file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
      throw new Error(`cannot read emulator data file ${this.file}: ${(err as Error).message}`);
    }
    try {
      const lines = jsonLines(buf);
      const header = lines.next().value as
        { format?: unknown; state?: Partial<StateSnapshot>; datasets?: unknown } | undefined;
      if (typeof header !== "object" || header === null || header.format !== FORMAT) {
        throw new Error(`not an emulator data file (missing "format": "${FORMAT}")`);
      }
      let datasets: Record<string, RowJson[]> | undefined;
      for (const line of lines) {
        const chunk = line as { dataset?: unknown; rows?: unknown };
        if (typeof chunk?.dataset !== "string" || !Array.isArray(chunk.rows)) {
          throw new Error("a dataset line must be {dataset, rows}");
        }
        datasets ??= {};
        const rows = (datasets[chunk.dataset] ??= []);
        for (const row of chunk.rows as RowJson[]) rows.push(row);
      }
      if (header.state !== undefined) this.state.restore(header.state);
      if (header.datasets !== undefined) this.store.load(header.datasets);
      else if (datasets !== undefined) this.store.load({ datasets });
    } catch (err) {
      throw new Error(`emulator data file ${this.file} is corrupt: ${(err as Error).message}`);
    }
  }

  /** Deletes temporary files that a killed emulator left half-written (their process is gone). */
  private removeStaleTemporaries(): void {
    const dir = dirname(this.file);
    const prefix = `${basename(this.file)}.`;
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const m = /^(\d+)\.[0-9a-f]{8}\.tmp$/.exec(name.startsWith(prefix) ? name.slice(prefix.length) : "");
      if (m && !processAlive(Number(m[1]))) rmSync(join(dir, name), { force: true });
    }
  }

  /** Marks the state changed; a write follows shortly. */
  changed(): void {
    this.dirty = true;
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush().catch(() => undefined);
    }, this.debounceMs);
    this.timer.unref();
  }

  /** Writes now if anything changed since the last write; resolves when the file is on disk. */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.writing = this.writing
      .catch(() => undefined)
      .then(async () => {
        if (!this.dirty) return;
        this.dirty = false;
        // Taken at once: requests served while the lines are written change neither the header nor the rows.
        const header = JSON.stringify({ format: FORMAT, version: 2, state: this.state.snapshot() });
        const datasets = this.store
          .names()
          .map((name) => [name, [...(this.store.events(name) ?? [])]] as const);
        const tmp = `${this.file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
        try {
          const fh = await fsp.open(tmp, "w");
          try {
            await fh.write(`${header}\n`);
            for (const [name, rows] of datasets) {
              for (let i = 0; i < rows.length; i += ROWS_PER_LINE) {
                const chunk = rows
                  .slice(i, i + ROWS_PER_LINE)
                  .map((e): RowJson => [e.timeNs.toString(), e.sysTimeNs.toString(), e.rowId, e.data]);
                await fh.write(`${JSON.stringify({ dataset: name, rows: chunk })}\n`);
              }
            }
          } finally {
            await fh.close();
          }
          await fsp.rename(tmp, this.file);
        } catch (err) {
          // Still unsaved: the next change or close tries again rather than believing the file current.
          this.dirty = true;
          await fsp.rm(tmp, { force: true }).catch(() => undefined);
          throw err;
        }
      });
    return this.writing;
  }
}

/** Whether a process with this id exists (signal 0 only checks). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The JSON value of each non-blank line of a buffer, decoded one line at a time. */
function* jsonLines(buf: Buffer): Generator<unknown> {
  let start = 0;
  while (start < buf.length) {
    let end = buf.indexOf(10, start);
    if (end === -1) end = buf.length;
    const text = buf.toString("utf8", start, end);
    start = end + 1;
    if (text.trim() !== "") yield JSON.parse(text);
  }
}
