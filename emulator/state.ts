/** The emulator's management objects (annotations, monitors, notifiers, roles, starred queries, the org), and the
 * changes to them that `--data` journals (emulator/store/persistence.ts). */
import { randomBytes } from "node:crypto";
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

/** The name of one {@link Collection} of {@link State}. */
export type CollectionName = (typeof COLLECTION_NAMES)[number];

/**
 * One change to the state, as the `--data` journal records it and replays it. Each is the whole new value (an
 * object, a history), never a delta, so replaying an entry that a snapshot already holds changes nothing.
 */
export type StateChange =
  | { put: CollectionName; obj: StoredObject }
  | { del: CollectionName; id: string }
  | { history: string; entries: HistoryEntry[] | null };

/** A collection keyed by id that keeps insertion order (lists come back in creation order). */
export class Collection {
  private readonly items = new Map<string, StoredObject>();
  /** Receives every set and delete (not {@link load}); the state forwards them to the journal. */
  onChange?: (change: StateChange) => void;

  constructor(
    readonly prefix: string,
    readonly name: CollectionName,
  ) {}

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
    this.onChange?.({ put: this.name, obj });
    return obj;
  }
  delete(id: string): boolean {
    const existed = this.items.delete(id);
    if (existed) this.onChange?.({ del: this.name, id });
    return existed;
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
  readonly annotations = new Collection("ann_", "annotations");
  readonly monitors = new Collection("mon_", "monitors");
  readonly notifiers = new Collection("notify_", "notifiers");
  readonly roles = new Collection("role_", "roles");
  readonly starredQueries = new Collection("sq_", "starredQueries");
  readonly orgs = new Collection("org_", "orgs");
  /** Per-monitor history log, newest last. */
  private monitorHistory: Record<string, HistoryEntry[]> = {};
  private listener?: (change: StateChange) => void;

  constructor(orgId: string) {
    this.orgs.set(defaultOrg(orgId));
  }

  /** Sends every later change to `listener` (the `--data` journal); changes made by {@link apply} included. */
  observe(listener: (change: StateChange) => void): void {
    this.listener = listener;
    for (const name of COLLECTION_NAMES) this[name].onChange = listener;
  }

  /** A monitor's history, newest last; empty when it has none. */
  history(monitorId: string): readonly HistoryEntry[] {
    return this.monitorHistory[monitorId] ?? [];
  }

  /** Replaces a monitor's history. */
  setHistory(monitorId: string, entries: HistoryEntry[]): void {
    this.monitorHistory[monitorId] = entries;
    this.listener?.({ history: monitorId, entries });
  }

  /** Drops a monitor's history (its monitor was deleted). */
  deleteHistory(monitorId: string): void {
    if (!(monitorId in this.monitorHistory)) return;
    delete this.monitorHistory[monitorId];
    this.listener?.({ history: monitorId, entries: null });
  }

  /** Applies one journalled change (replay at start-up); a change that is not one is a plain Error. */
  apply(change: StateChange): void {
    const c = change as Partial<Record<"put" | "del" | "history" | "id", unknown>> & {
      obj?: unknown;
      entries?: unknown;
    };
    const collection = (name: unknown) => {
      if (typeof name !== "string" || !(COLLECTION_NAMES as readonly string[]).includes(name)) {
        throw new Error(`unknown collection ${JSON.stringify(name)}`);
      }
      return this[name as CollectionName];
    };
    if (c.put !== undefined) {
      const obj = c.obj as StoredObject | undefined;
      if (typeof obj !== "object" || obj === null || typeof obj.id !== "string") {
        throw new Error("a put change needs an object with an id");
      }
      collection(c.put).set(obj);
    } else if (c.del !== undefined) {
      if (typeof c.id !== "string") throw new Error("a del change needs an id");
      collection(c.del).delete(c.id);
    } else if (typeof c.history === "string") {
      if (c.entries === null) this.deleteHistory(c.history);
      else if (Array.isArray(c.entries)) this.setHistory(c.history, c.entries as HistoryEntry[]);
      else throw new Error("a history change needs entries or null");
    } else {
      throw new Error(`not a state change: ${JSON.stringify(change).slice(0, 100)}`);
    }
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
