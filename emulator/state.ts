/** The emulator's management objects, one {@link Collection} per family, and the changes to them that `--data`
 * journals (emulator/store/persistence.ts). Which collections exist is the family registry's
 * (emulator/routes/index.ts); nothing here names one. */
import { randomBytes } from "node:crypto";

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

/**
 * What the scheduler keeps of one monitor between runs (emulator/alerting/alert-state.ts owns its shape): plain
 * JSON, persisted with `--data` so that a restart opens no alert a second time.
 */
export type MonitorAlertRecord = Record<string, unknown>;

/** What the state needs to know of one management family: the part of its declaration that is persisted. */
export interface CollectionSpec {
  /** The key of the collection in the snapshot and in the journal's changes: persisted, so never renamed. */
  readonly name: string;
  /** Prefix of new ids, e.g. `mon_`. */
  readonly idPrefix: string;
  /** The objects a new emulator starts with (before any data file is loaded). */
  seed?(orgId: string): StoredObject[];
}

/** The snapshot's key for the monitors' history logs; no collection may take it. */
const HISTORY_KEY = "monitorHistory";
/** The snapshot's key for the monitors' alert states; no collection may take it. */
const ALERTS_KEY = "monitorAlerts";

/** Every management collection as persisted: each one's objects under its name, plus the monitors' history and
 * alert states. */
export type StateSnapshot = { [collection: string]: unknown } & {
  [HISTORY_KEY]?: Record<string, HistoryEntry[]>;
  [ALERTS_KEY]?: Record<string, MonitorAlertRecord>;
};

/**
 * One change to the state, as the `--data` journal records it and replays it. Each is the whole new value (an
 * object, a history), never a delta, so replaying an entry that a snapshot already holds changes nothing.
 */
export type StateChange =
  | { put: string; obj: StoredObject }
  | { del: string; id: string }
  | { history: string; entries: HistoryEntry[] | null }
  | { alerts: string; record: MonitorAlertRecord | null };

/** A collection keyed by id that keeps insertion order (lists come back in creation order). */
export class Collection {
  private readonly items = new Map<string, StoredObject>();

  constructor(
    readonly prefix: string,
    readonly name: string,
    /** Receives every set and delete (not {@link load}): the state's journal listener. */
    private readonly onChange: (change: StateChange) => void,
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
    this.onChange({ put: this.name, obj });
    return obj;
  }
  delete(id: string): boolean {
    const existed = this.items.delete(id);
    if (existed) this.onChange({ del: this.name, id });
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

/** All management state of one emulator: a collection per declared family, and the monitors' history. */
export class State {
  private readonly collections = new Map<string, Collection>();
  /** Per-monitor history log, newest last. */
  private monitorHistory: Record<string, HistoryEntry[]> = {};
  /** Per-monitor alert state, as the scheduler left it after its last run. */
  private monitorAlerts: Record<string, MonitorAlertRecord> = {};
  private listener?: (change: StateChange) => void;
  /** Watchers of every change (the scheduler); unlike {@link observe}'s listener, there may be several. */
  private readonly watchers = new Set<(change: StateChange) => void>();

  constructor(specs: readonly CollectionSpec[], orgId: string) {
    const prefixes = new Set<string>();
    for (const spec of specs) {
      // Each name is a key of the data file, and each prefix tells an id's collection: neither may be shared.
      if (
        spec.name === HISTORY_KEY ||
        spec.name === ALERTS_KEY ||
        this.collections.has(spec.name) ||
        prefixes.has(spec.idPrefix)
      ) {
        throw new Error(`collection ${spec.name} (ids ${spec.idPrefix}…) clashes with another`);
      }
      prefixes.add(spec.idPrefix);
      const col = new Collection(spec.idPrefix, spec.name, (change) => this.emit(change));
      col.load(spec.seed?.(orgId) ?? []);
      this.collections.set(spec.name, col);
    }
  }

  /** The collection of this name; an unknown name is a plain Error (a journal naming a family that is gone). */
  collection(name: string): Collection {
    const col = this.collections.get(name);
    if (!col) throw new Error(`unknown collection ${JSON.stringify(name)}`);
    return col;
  }

  /** Sends every later change to `listener` (the `--data` journal); changes made by {@link apply} included. */
  observe(listener: (change: StateChange) => void): void {
    this.listener = listener;
  }

  /**
   * Calls `watcher` with every later change (not with what a data file loads); answers how to stop. The scheduler
   * watches monitors come, change and go.
   */
  watch(watcher: (change: StateChange) => void): () => void {
    this.watchers.add(watcher);
    return () => void this.watchers.delete(watcher);
  }

  private emit(change: StateChange): void {
    this.listener?.(change);
    for (const w of this.watchers) w(change);
  }

  /** A monitor's alert state as last saved, or undefined. */
  alertState(monitorId: string): MonitorAlertRecord | undefined {
    return this.monitorAlerts[monitorId];
  }

  /** Saves a monitor's alert state (journalled with `--data`). */
  setAlertState(monitorId: string, record: MonitorAlertRecord): void {
    this.monitorAlerts[monitorId] = record;
    this.emit({ alerts: monitorId, record });
  }

  /** Drops a monitor's alert state (its monitor was deleted). */
  deleteAlertState(monitorId: string): void {
    if (!(monitorId in this.monitorAlerts)) return;
    delete this.monitorAlerts[monitorId];
    this.emit({ alerts: monitorId, record: null });
  }

  /** A monitor's history, newest last; empty when it has none. */
  history(monitorId: string): readonly HistoryEntry[] {
    return this.monitorHistory[monitorId] ?? [];
  }

  /** Replaces a monitor's history. */
  setHistory(monitorId: string, entries: HistoryEntry[]): void {
    this.monitorHistory[monitorId] = entries;
    this.emit({ history: monitorId, entries });
  }

  /** Drops a monitor's history (its monitor was deleted). */
  deleteHistory(monitorId: string): void {
    if (!(monitorId in this.monitorHistory)) return;
    delete this.monitorHistory[monitorId];
    this.emit({ history: monitorId, entries: null });
  }

  /** Applies one journalled change (replay at start-up); a change that is not one is a plain Error. */
  apply(change: StateChange): void {
    const c = change as Partial<Record<"put" | "del" | "history" | "alerts" | "id", unknown>> & {
      obj?: unknown;
      entries?: unknown;
      record?: unknown;
    };
    const collection = (name: unknown) => {
      if (typeof name !== "string") throw new Error(`unknown collection ${JSON.stringify(name)}`);
      return this.collection(name);
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
    } else if (typeof c.alerts === "string") {
      if (c.record === null) this.deleteAlertState(c.alerts);
      else if (typeof c.record === "object" && !Array.isArray(c.record))
        this.setAlertState(c.alerts, c.record as MonitorAlertRecord);
      else throw new Error("an alerts change needs a record or null");
    } else {
      throw new Error(`not a state change: ${JSON.stringify(change).slice(0, 100)}`);
    }
  }

  /** Plain JSON of every collection. */
  snapshot(): StateSnapshot {
    const out: StateSnapshot = {};
    for (const [name, col] of this.collections) out[name] = col.list();
    out[HISTORY_KEY] = this.monitorHistory;
    out[ALERTS_KEY] = this.monitorAlerts;
    return out;
  }

  /** Replaces every collection with a snapshot's (a missing collection stays as is; an unknown key is ignored). */
  restore(s: StateSnapshot): void {
    for (const [name, col] of this.collections) {
      const v = s[name];
      if (v === undefined) continue;
      if (
        !Array.isArray(v) ||
        v.some((o) => typeof o !== "object" || o === null || typeof (o as StoredObject).id !== "string")
      ) {
        throw new Error(`"${name}" must be a list of objects with an id`);
      }
      col.load(v as StoredObject[]);
    }
    const history: unknown = s[HISTORY_KEY];
    if (history !== undefined) {
      if (typeof history !== "object" || history === null) {
        throw new Error(`"${HISTORY_KEY}" must be an object`);
      }
      this.monitorHistory = history as Record<string, HistoryEntry[]>;
    }
    const alerts: unknown = s[ALERTS_KEY];
    if (alerts !== undefined) {
      if (typeof alerts !== "object" || alerts === null || Array.isArray(alerts)) {
        throw new Error(`"${ALERTS_KEY}" must be an object`);
      }
      this.monitorAlerts = alerts as Record<string, MonitorAlertRecord>;
    }
  }
}
