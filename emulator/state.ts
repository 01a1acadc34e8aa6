/** The emulator's management objects (annotations, monitors, notifiers, roles, starred queries, the org) and
 * their persistence to a `--data` file together with the datasets. */
import { randomBytes } from "node:crypto";
import { promises as fsp, readFileSync } from "node:fs";
import type { EventStoreApi } from "./store/events";

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
  const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, "Z");
  const day = 86_400_000;
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  const created = new Date(now.getTime() - 30 * day);
  return {
    id: orgId,
    name: "Local Development",
    slug: orgId,
    plan: "personal",
    planCreated: iso(created),
    paymentStatus: "na",
    primaryEmail: "dev@localhost",
    lastUsageSync: iso(now),
    firstFailedPayment: "",
    role: "owner",
    metaCreated: iso(created),
    metaModified: iso(created),
    metaVersion: "1",
    license: {
      id: `lic_${orgId}`,
      tier: "personal",
      issuer: "observability-emulator",
      issuedTo: orgId,
      issuedAt: iso(created),
      validFrom: iso(created),
      expiresAt: iso(new Date(now.getTime() + 365 * day)),
      billingPeriodStart: iso(start),
      billingPeriodEnd: iso(end),
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
    if (s.annotations !== undefined) this.annotations.load(list(s.annotations, "annotations"));
    if (s.monitors !== undefined) this.monitors.load(list(s.monitors, "monitors"));
    if (s.notifiers !== undefined) this.notifiers.load(list(s.notifiers, "notifiers"));
    if (s.roles !== undefined) this.roles.load(list(s.roles, "roles"));
    if (s.starredQueries !== undefined) this.starredQueries.load(list(s.starredQueries, "starredQueries"));
    if (s.orgs !== undefined) this.orgs.load(list(s.orgs, "orgs"));
    if (s.monitorHistory !== undefined) {
      if (typeof s.monitorHistory !== "object" || s.monitorHistory === null) {
        throw new Error(`"monitorHistory" must be an object`);
      }
      this.monitorHistory = s.monitorHistory;
    }
  }
}

const FORMAT = "pulumi-observability-emulator";

/**
 * `--data FILE`: loads state and datasets at start; after each mutation, writes both atomically (a temporary
 * file in the same directory, then rename), debounced so a burst of requests costs one write.
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
    let text: string;
    try {
      text = readFileSync(this.file, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
      throw new Error(`cannot read emulator data file ${this.file}: ${(err as Error).message}`);
    }
    try {
      const json = JSON.parse(text) as {
        format?: unknown;
        state?: Partial<StateSnapshot>;
        datasets?: unknown;
      };
      if (typeof json !== "object" || json === null || json.format !== FORMAT) {
        throw new Error(`not an emulator data file (missing "format": "${FORMAT}")`);
      }
      if (json.state !== undefined) this.state.restore(json.state);
      if (json.datasets !== undefined) this.store.load(json.datasets);
    } catch (err) {
      throw new Error(`emulator data file ${this.file} is corrupt: ${(err as Error).message}`);
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
        const text = JSON.stringify({
          format: FORMAT,
          version: 1,
          state: this.state.snapshot(),
          datasets: this.store.toJSON(),
        });
        const tmp = `${this.file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
        try {
          await fsp.writeFile(tmp, text);
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
