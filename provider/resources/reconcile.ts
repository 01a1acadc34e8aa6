/**
 * Reconciling a create whose outcome is unknown: the POST met a 500, a 502, a timeout or a dropped connection
 * after it may have reached the service, and the client rightly did not send it again. Instead of giving up,
 * the provider lists the family and looks for the object that POST may have made.
 *
 * A candidate is an object of the family that
 * - matches the declared body, compared as `diff` compares ({@link inputChanges});
 * - is new: absent from a listing of the family whose request was sent after this create began and which was
 *   answered before its first POST started (the baseline), and, where the service stamps the object's creation
 *   time, stamped no earlier than {@link CLOCK_SKEW_MS} before that POST started;
 * - is not claimed by a resource in this process (every id a create, adoption, read, diff, update or delete
 *   here has seen).
 *
 * Exactness without a clock: everything the service held when this create began is in its baseline, since that
 * listing was asked for after the create began (listings.ts, `listingBegunAfter`), however long the machine took
 * between. So an identical object someone else made before this create began is never taken, on a busy machine
 * as on an idle one. An identical object someone else makes after this create began (while its baseline runs, or
 * while its POST is in flight) cannot be told from ours by anything the service returns (it takes no idempotency
 * key, and monitors and notifiers are stamped only to the second): the limit of this method. Telling objects
 * apart by creation time instead would need the service's clock known to better than the stamp's precision and
 * the request's round trip, which a loaded machine does not give.
 *
 * The baseline is a listing of the family, O(objects in the family), and it must be complete before the POST
 * starts, so it cannot be deferred until the outcome is known. Creates that begin together share one (per
 * client, and per listing parameters where the listing depends on the body: `ReconcileRule.listedBy`): a
 * listing waits one turn of the event loop before its request goes out, and the creates that begin while one is
 * running share the next, so a burst of creates lists the family once or twice, not once each.
 * Everything this process made after the baseline is told apart by its claim: a same-body sibling whose
 * POST is in flight while we list is waited for, before and after the list, so its object is claimed before
 * ours is chosen. A listing that fails is not kept.
 *
 * Exactly one candidate is taken as the created object; none means the POST is sent again (at most
 * {@link MAX_CREATE_ATTEMPTS} POSTs in all); more than one is an error that lists their ids and advises adopting.
 *
 * Races: the first request may still be in the service's queue when the list runs (a timeout gives up on a
 * request the service has not yet handled). So an empty listing is repeated after {@link SETTLE_MS} before the
 * POST is resent, and after a resend that succeeds the family is listed once more: if earlier requests' objects
 * turned up meanwhile (no more of them than uncertain POSTs were sent, so all can be ours), the first of them is
 * kept and the others and the resend's own object are deleted. If deleting the resend's own object fails, it is
 * kept instead, so that at most the late objects are left over rather than both. A request the service handles
 * more than {@link SETTLE_MS} after that last listing is not seen, and leaves a duplicate: the limit of this
 * method.
 *
 * The rule per family (and where it cannot be exact):
 * - Monitor, Notifier: absent from the baseline and `createdAt` (to the second) no earlier than a minute before
 *   the POST's start. Inexact only when someone else makes an identical object during the create.
 * - Annotation: absent from the baseline; with `time` undeclared the service sets `time` to the request's time,
 *   which also serves as the creation time (the lists are bounded by it). Creates share a baseline per list
 *   of datasets and per whether `time` is declared (a listing bounded by time cannot serve a create whose object
 *   may be older). Inexact as for monitors.
 * - Dataset: the name is unique, as for Role, and `created` is stamped, as for Monitor.
 * - Role: names are unique, the natural key. The baseline is the roles listed before the POST; a 409 on a resend
 *   means the name was taken since, so the family is listed again and the role of that name is taken when it
 *   matches the declared body. Inexact only when someone else makes a role of that name and body meanwhile.
 * - StarredQuery: no creation time and no unique field, so the baseline decides (listed by name with `qs`,
 *   so creates share a baseline per name). Inexact only when someone else saves an identical query between the
 *   baseline and the list.
 * - View: the name is unique and is the view's id; as for Role (baseline, then a 409 on a resend lists again and
 *   takes the view of that name when it matches the declared body).
 * - Group: names are unique; as for Role.
 * - OrganizationName: no POST (a GET and an idempotent PUT), so nothing to reconcile.
 * - ApiToken: no creation time and no unique field, so the baseline decides, as for StarredQuery. But a token
 *   found cannot be taken: its value is only in the lost answer ({@link ReconcileRule.valueLost}). Each one
 *   found (no more than uncertain POSTs were sent) is deleted as an orphan, and the POST is sent again; after a
 *   resend, late ones are deleted and the resend's token kept.
 * Everywhere: two resources of one program with identical bodies whose creates are both uncertain at once may
 * each see both objects, and then fail as ambiguous rather than guess.
 */
import type { ObservabilityClient } from "../client";
import { ApiError, ConflictError, NotFoundError } from "../client/errors";
import type { CrudFamily } from "../client/resources/base";
import { sleep } from "../client/retry";
import { CREATE_SENDS_NO_POST, inputChanges, type Descriptor, type ReconcileRule } from "./descriptor";
import { sharedListingsEnabled } from "../client/env";
import { cancellationSignalled } from "./cancellation";
import { listingBegunAfter } from "./listings";
import { readStamp } from "./service-clock";
import { stableStringify, type Props } from "./values";

/** How far the service's clock may be behind ours (plus its createdAt's truncation to the second). */
export const CLOCK_SKEW_MS = 60_000;
/**
 * POSTs sent in all for one create, the first included. Each resend follows a look that found nothing, so more
 * attempts cost time, never a duplicate. Three let one create in 8,000 fail when 5% of requests fail (0.05³),
 * which the fault runs (bench/fault-runs.ts, 500 operations per fault kind) met about once in twenty runs; five
 * make it one in 3.2 million.
 */
export const MAX_CREATE_ATTEMPTS = 5;
/** How long a request the client gave up on may still be in the service's hands before it shows in a list. */
export const SETTLE_MS = 1_000;

/**
 * The ids of the family's objects when this create began: from a listing whose request goes out after this call
 * (listings.ts, `listingBegunAfter`), shared with the creates that begin with it (per client, kind and listing
 * parameters, `rule.listedBy`). It completes before the POST starts, since the caller awaits it first. A listing
 * that failed is not kept, so the next create lists again. With sharing off (`OBSERVABILITY_SHARED_LISTINGS=0`),
 * every create lists alone.
 */
async function baselineOf<T extends { id: string }>(
  kind: string,
  rule: ReconcileRule<T>,
  client: ObservabilityClient,
  declared: Props,
): Promise<ReadonlySet<string>> {
  // The listing's own window starts no later than that of any create that shares it (each takes its start
  // after the listing answered), so a listing bounded by it (annotations) holds all that theirs would.
  const list = async () =>
    new Set((await rule.list(client, declared, new Date(Date.now() - CLOCK_SKEW_MS))).map((o) => o.id));
  if (!sharedListingsEnabled()) return list();
  return listingBegunAfter(client, { kind, key: `baseline\u0000${rule.listedBy(declared)}`, list });
}

/** Ids a resource in this process holds or has seen, by kind: never taken as another create's object. */
const claimed = new Set<string>();
/** POSTs in flight, by kind and canonical body: a sibling with the same body waits for them to be claimed. */
const inFlight = new Map<string, Set<Promise<unknown>>>();

const claimKey = (kind: string, id: string) => `${kind}\u0000${id}`;

/** Records that a resource in this process holds `id`. */
export function claim(kind: string, id: string): void {
  claimed.add(claimKey(kind, id));
}

/** Whether a resource in this process holds `id`. */
export function isClaimed(kind: string, id: string): boolean {
  return claimed.has(claimKey(kind, id));
}

/** Forgets every claim; for tests that reuse one process for unrelated runs (see dynamic.ts `reset`). */
export function resetClaims(): void {
  claimed.clear();
}

/** Runs `post` as one of the in-flight POSTs for `key`, so same-body siblings can wait for its claim. */
function tracked<R>(key: string, post: () => Promise<R>): Promise<R> {
  const set = inFlight.get(key) ?? new Set();
  inFlight.set(key, set);
  const p = post();
  const settled = p.then(
    () => undefined,
    () => undefined,
  );
  set.add(settled);
  void settled.then(() => {
    set.delete(settled);
    if (set.size === 0) inFlight.delete(key);
  });
  return p;
}

/** The error when more than one object could be the one created. */
export function ambiguousCreateError(kind: string, ids: readonly string[]): Error {
  return new Error(
    `its outcome was unknown, and ${ids.length} objects matching the declared body were made since ` +
      `this create began: ${ids.join(", ")}. Set \`adopt: "<one of these ids>"\` on this resource to take ` +
      "that one under management, and delete the others",
  );
}

/**
 * Creates `declared` through `family`, reconciling an uncertain outcome by the family's rule (see the file
 * comment). Returns the created or found object; the error of the last POST when every attempt was uncertain.
 */
export async function createReconciled<T extends { id: string }>(
  d: Descriptor<T>,
  family: CrudFamily<T, Props>,
  client: ObservabilityClient,
  declared: Props,
  /** The POST that makes the object: the family's create, or another (an API token's regenerate). */
  send: (body: Props) => Promise<T> = (body) => family.create(body),
): Promise<T> {
  const body = d.toBody(declared);
  const bodyKey = `${d.kind}\u0000${stableStringify(body)}`;
  const search = d.reconcile === CREATE_SENDS_NO_POST ? undefined : d.reconcile;
  const timed = search?.timed(declared) === true;
  const post = () =>
    tracked(bodyKey, async () => {
      const obj = await send(body);
      claim(d.kind, obj.id);
      return obj;
    });
  if (!search) return post();
  const rule: ReconcileRule<T> = search;

  let uncertain: ApiError | undefined;
  /** POSTs whose outcome was unknown: how many late objects can be ours. */
  let uncertainPosts = 0;
  // Only objects absent from this listing can be ours: an identical object another process (another
  // `pulumi up`) made before this create began is in it, and its claims are not ours to see. It must be complete
  // before the POST starts, since it cannot be taken after one; the creates of a burst share it (see the file
  // comment).
  const baseline = await baselineOf(d.kind, rule, client, declared);
  // Taken after the baseline answered, so the shared listing's window holds this create's.
  const since = new Date(Date.now() - CLOCK_SKEW_MS);

  /** A sibling whose POST with this very body is in flight is about to claim its object. */
  const siblingsSettled = () => Promise.all([...(inFlight.get(bodyKey) ?? [])]);

  async function candidates(): Promise<T[]> {
    await siblingsSettled();
    let found: T[];
    try {
      found = await rule.list(client, declared, since);
    } catch (e) {
      // When the service cannot even be asked, the user still needs to hear that the object may exist.
      if (!(uncertain && e instanceof ApiError)) throw e;
      throw new ApiError(`${uncertain.message}; looking for it failed too: ${e.message}`, {
        method: uncertain.method,
        path: uncertain.path,
        status: uncertain.status,
        traceId: uncertain.traceId,
        serviceMessage: uncertain.serviceMessage,
        detail: uncertain.detail,
        outcomeUnknown: true,
      });
    }
    // A sibling's POST of this body that started while the list ran may have made an object the list shows,
    // and claims it only when its answer arrives: waited for, so its object is not taken for ours.
    await siblingsSettled();
    return found.filter((obj) => {
      if (isClaimed(d.kind, obj.id) || baseline.has(obj.id)) return false;
      if (timed && !createdSinceStart(obj)) return false;
      return inputChanges(d, d.toInputs(obj), declared).diffs.length === 0;
    });
  }

  /**
   * Whether `obj` may have been created by this create's first POST, by its creation time: no earlier than a
   * minute before the POST started (the allowance for the service's clock being behind ours). A guard beside
   * the baseline, never the judge of what happened in the moments before the POST. An object without a
   * readable creation time cannot be shown to be new.
   */
  function createdSinceStart(obj: T): boolean {
    const stamp = readStamp(rule.createdAt?.(obj));
    return stamp !== undefined && stamp.ms + stamp.precisionMs > since.getTime();
  }

  /** Takes a listed object as this resource's (lists return whole objects, as a read does). */
  const take = (obj: T): T => {
    claim(d.kind, obj.id);
    return obj;
  };

  for (let attempt = 1; attempt <= MAX_CREATE_ATTEMPTS; attempt++) {
    // After the engine's Cancel no POST is sent again (cancellation.ts): the looks found nothing, so the
    // create fails as uncertain, with the advice that goes with it.
    if (uncertain && cancellationSignalled()) break;
    let obj: T;
    try {
      obj = await post();
    } catch (e) {
      // A 409 on a resend of a kind with a unique name: the name was taken since the baseline, perhaps by us.
      const conflict = uncertain !== undefined && e instanceof ConflictError;
      if (!(e instanceof ApiError && (e.outcomeUnknown || conflict))) throw e;
      if (conflict) {
        const found = await candidates();
        if (found.length === 1) return take(found[0]);
        throw e;
      }
      uncertain = e;
      uncertainPosts++;
      let found = await candidates();
      if (found.length === 0) {
        await sleep(SETTLE_MS);
        found = await candidates();
      }
      if (rule.valueLost) {
        // None can be taken: each is an orphan whose value is lost. More than we sent are not all ours.
        if (found.length > uncertainPosts)
          throw ambiguousCreateError(
            d.kind,
            found.map((obj) => obj.id),
          );
        for (const orphan of found) await deleteOrphan(d.kind, family, orphan);
        continue;
      }
      if (found.length === 1) return take(found[0]);
      if (found.length > 1)
        throw ambiguousCreateError(
          d.kind,
          found.map((obj) => obj.id),
        );
      continue;
    }
    if (!uncertain) return obj;
    return afterResend(obj);
  }
  throw uncertain;

  /** A resend made `obj`; earlier requests may have been handled after the lists that found nothing. */
  async function afterResend(obj: T): Promise<T> {
    await sleep(SETTLE_MS);
    let late: T[];
    try {
      late = (await candidates()).filter((o) => o.id !== obj.id);
    } catch {
      // `obj` surely exists and is ours; a failed look for a late twin must not lose it.
      return obj;
    }
    if (late.length === 0) return obj;
    if (rule.valueLost) {
      // Only `obj`'s value is known: it is kept, and the late ones (when they can all be ours) deleted.
      if (late.length <= uncertainPosts) for (const orphan of late) await deleteOwn(family, orphan);
      return obj;
    }
    // More late objects than uncertain POSTs: some are someone else's, and which is which cannot be told.
    if (late.length > uncertainPosts) throw ambiguousCreateError(d.kind, [obj.id, ...late.map((o) => o.id)]);
    // Each is one of our earlier POSTs. The first is kept (as with a single one); the rest are deleted.
    const [kept, ...surplus] = late;
    // If our own object cannot be deleted, it stays the resource: better one leftover than two.
    if (!(await deleteOwn(family, obj))) return obj;
    for (const extra of surplus) await deleteOwn(family, extra);
    return take(kept);
  }
}

/** Deletes an object an uncertain create made and cannot use; fails, naming it, when it cannot. */
async function deleteOrphan<T extends { id: string }>(
  kind: string,
  family: CrudFamily<T, Props>,
  obj: T,
): Promise<void> {
  if (await deleteOwn(family, obj)) return;
  throw new Error(
    `its outcome was unknown, and the object ${obj.id} it made cannot be used (its value was only in the ` +
      "lost answer) and could not be deleted: delete it, then run `pulumi up` again",
  );
}

/** Deletes an object this create surely made; gone already is fine. Whether it is gone now. */
async function deleteOwn<T extends { id: string }>(family: CrudFamily<T, Props>, obj: T): Promise<boolean> {
  try {
    await family.delete(obj.id);
    return true;
  } catch (e) {
    return e instanceof NotFoundError;
  }
}
