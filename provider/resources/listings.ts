/**
 * Listings of a family shared by the calls of one host process, and the writes this process makes to each family.
 *
 * Why: `pulumi refresh` (and `pulumi up --refresh`) reads every resource, one Read call each, and the engine sends
 * them to the one dynamic-provider host process at its parallelism. One GET per resource costs N requests; one
 * listing of the family answers them all. The same holds wherever several calls of a burst each want the family's
 * listing (the creates' baselines in reconcile.ts share theirs by {@link listingBegunAfter}, at the end of this file,
 * which never hands out a listing already sent). So a listing here is
 * - keyed by client (a WeakMap: a new configuration's client starts afresh, and an old one's listings go with it;
 *   the program's lookups pass one key per program run and client instead, provider/lookups.ts),
 *   by kind and by the listing's parameters (`key`: the filters, or "" for a family listed whole), since only a
 *   listing of the same service, credentials and filters can answer for another;
 * - coalescing: the first caller starts it, and callers that arrive while it is in flight wait for it;
 * - reused only while the caller's freshness predicate holds (each use decides how old a listing it can take);
 * - never kept when it failed: the next caller lists again;
 * - for a caller that asks for it, usable only if this process made no write to the family that could make it
 *   stale: none in flight when the listing started, and none started or finished since. A listing is a snapshot
 *   taken somewhere between its request and its answer, so a write that overlaps it may or may not be in it, and
 *   a write after it surely is not; a caller that must see the process's own writes (a read after an update) then
 *   goes without the shared listing.
 *
 * Writes are counted by {@link trackWrites}, which wraps the verbs the lifecycle engine drives for a kind: every
 * create, update and delete of the provider (the orphan deletes of an uncertain create, an API token's regenerate,
 * a dataset's map fields) runs inside one of those verbs, so none passes uncounted.
 */
import type { CrudFamily } from "../client/resources/base";

/** When a shared listing started, and (once answered) when its answer arrived; `performance.now()` ms. */
export interface ListingTimes {
  readonly startedAt: number;
  /** Undefined while the listing is in flight. */
  readonly settledAt: number | undefined;
  /** When a caller last took it (its start, until one does). */
  readonly takenAt: number;
}

/** Whether a caller can take a listing of these times at `now`; an in-flight one has no `settledAt` yet. */
export type Freshness = (listing: ListingTimes, now: number) => boolean;

/** What one caller asks for: which listing, how to make it, and what it accepts. */
export interface ListingRequest<L> {
  /** The kind listed, which is also the family whose writes are counted. */
  kind: string;
  /**
   * The listing's parameters, as a string. Callers whose keys are equal share the listing, so two parameter sets
   * that may list different objects, or callers that keep different shapes of the answer, must use different keys.
   */
  key: string;
  /** Makes the listing (all its pages), in whatever shape the callers of this key keep it. */
  list(): Promise<L>;
  /** Whether a listing of these times is fresh enough for this caller. */
  fresh: Freshness;
  /** Whether this caller must see every write this process made to the family (see the file comment). */
  afterOwnWrites: boolean;
}

/** The writes this process makes to one family through one client. */
interface FamilyWrites {
  /** Writes started and not yet finished. */
  inFlight: number;
  /** Bumped when a write starts and when it finishes: a listing sees no change while it stays the same. */
  generation: number;
}

interface Entry<L> extends ListingTimes {
  settledAt: number | undefined;
  takenAt: number;
  /** The family's write generation when the listing started, and whether no write was in flight then. */
  generation: number;
  quiet: boolean;
  answer: Promise<L>;
}

/** A listing begun after its callers asked ({@link listingBegunAfter}): waiting to start, or running. */
interface Begun<L> {
  /** Whether its request has been sent; callers join it only before. */
  started: boolean;
  answer: Promise<L>;
}

/** The begun-after listings of one kind and key: the one running, and the one its late callers wait for. */
interface BegunSlot {
  running?: Begun<unknown>;
  next?: Begun<unknown>;
}

/** Per client: the listings by kind and key, the begun-after ones, and the writes by kind. */
interface ClientState {
  listings: Map<string, Entry<unknown>>;
  begun: Map<string, BegunSlot>;
  writes: Map<string, FamilyWrites>;
}

const states = new WeakMap<object, ClientState>();

function stateOf(client: object): ClientState {
  let state = states.get(client);
  if (!state) states.set(client, (state = { listings: new Map(), begun: new Map(), writes: new Map() }));
  return state;
}

function writesOf(client: object, kind: string): FamilyWrites {
  const { writes } = stateOf(client);
  let w = writes.get(kind);
  if (!w) writes.set(kind, (w = { inFlight: 0, generation: 0 }));
  return w;
}

/** Whether no write of the family started or finished since `entry` started, and none was in flight then. */
function unchangedSince(entry: Entry<unknown>, w: FamilyWrites): boolean {
  return entry.quiet && w.generation === entry.generation;
}

/**
 * The listing `request` describes, shared with the other callers of the same client, kind and key: one in flight
 * or still fresh is awaited, otherwise a new one is started. Undefined when no usable listing can be had because
 * of this process's own writes (only for `afterOwnWrites`): the caller then goes without. Rejects when the listing
 * it would use failed; that listing is not kept.
 */
export async function sharedListing<L>(client: object, request: ListingRequest<L>): Promise<L | undefined> {
  const { listings } = stateOf(client);
  const w = writesOf(client, request.kind);
  const key = `${request.kind}\u0000${request.key}`;
  const current = listings.get(key) as Entry<L> | undefined;
  const usable = (entry: Entry<L>) => !request.afterOwnWrites || unchangedSince(entry, w);
  let entry: Entry<L>;
  const now = performance.now();
  if (current && request.fresh(current, now) && usable(current)) {
    entry = current;
    entry.takenAt = now;
  } else if (request.afterOwnWrites && w.inFlight > 0) {
    // A listing started now would overlap that write, and so could not be used either.
    return undefined;
  } else {
    const started: Entry<L> = {
      startedAt: now,
      settledAt: undefined,
      takenAt: now,
      generation: w.generation,
      quiet: w.inFlight === 0,
      answer: request.list(),
    };
    started.answer.then(
      () => void (started.settledAt = performance.now()),
      () => {
        if (listings.get(key) === started) listings.delete(key);
      },
    );
    listings.set(key, started);
    entry = started;
  }
  const answer = await entry.answer;
  // A write may have started while the listing was in flight.
  return usable(entry) ? answer : undefined;
}

/**
 * A listing of `kind` and `key` whose request is sent after this call: never one already sent, so everything the
 * service held when the call was made is in it, whatever the time between. Callers share it while it waits to
 * start. It starts on the next turn of the event loop when no listing of the same client, kind and key is
 * running (callers of the same turn share it), or else when the running one settles (callers that came meanwhile
 * share it). So a burst of callers costs a listing or two, and a steady stream of callers at most one listing
 * running at a time. A failed listing rejects its callers and is not kept.
 *
 * Why not a listing already sent: an object made after its snapshot and before this call is absent from it, and
 * a caller that must know what existed when it asked (an uncertain create's baseline, reconcile.ts) could then
 * take that object for one of its own making. Telling the two apart by creation time would trust a clock bracket
 * whose width grows with the machine's load.
 */
export function listingBegunAfter<L>(
  client: object,
  request: Pick<ListingRequest<L>, "kind" | "key" | "list">,
): Promise<L> {
  const { begun } = stateOf(client);
  const key = `${request.kind}\u0000${request.key}`;
  let slot = begun.get(key);
  if (!slot) begun.set(key, (slot = {}));
  const waiting = slot.next as Begun<L> | undefined;
  if (waiting && !waiting.started) return waiting.answer;
  const here = slot;
  let start!: () => void;
  const next: Begun<L> = {
    started: false,
    answer: new Promise<void>((r) => (start = r)).then(() => {
      next.started = true;
      if (here.next === next) here.next = undefined;
      here.running = next;
      return request.list();
    }),
  };
  const settled = next.answer.then(
    () => undefined,
    () => undefined,
  );
  void settled.then(() => {
    if (here.running === next) here.running = undefined;
    if (!here.running && !here.next && begun.get(key) === here) begun.delete(key);
  });
  here.next = next;
  const running = here.running;
  if (running) {
    void running.answer.then(start, start);
  } else {
    setImmediate(start);
  }
  return next.answer;
}

/** Runs one write of `kind` through `client`, counted so that no listing it may have overlapped is used. */
export async function trackedWrite<R>(client: object, kind: string, write: () => Promise<R>): Promise<R> {
  const w = writesOf(client, kind);
  w.inFlight++;
  w.generation++;
  try {
    return await write();
  } finally {
    w.inFlight--;
    w.generation++;
  }
}

/** `family` with its create, update and delete counted as writes of `kind` (its get passes through). */
export function trackWrites<T, C, U>(
  client: object,
  kind: string,
  family: CrudFamily<T, C, U>,
): CrudFamily<T, C, U> {
  return {
    get: (id, options) => family.get(id, options),
    create: (body, options) => trackedWrite(client, kind, () => family.create(body, options)),
    update: (id, body, options) => trackedWrite(client, kind, () => family.update(id, body, options)),
    delete: (id, options) => trackedWrite(client, kind, () => family.delete(id, options)),
  };
}
