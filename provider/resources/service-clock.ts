/**
 * What this process has learnt of the service's clock, from the creation times the service stamps on the objects
 * it creates for us. An uncertain create (reconcile.ts) uses it to rule out objects made before its POST: with the
 * service's clock known to within a few milliseconds, an identical object someone else made while the shared
 * baseline listing was getting old is excluded by its creation time, as the listing itself would have excluded it.
 *
 * Each answered create brackets the offset (service time − local time): the service stamped the object at some
 * instant of its clock in [stamp, stamp + precision) (a stamp to the second is truncated), and that instant fell,
 * on our clock, between sending the request and reading its answer. The bounds of all answers are intersected;
 * answers that contradict the bounds (a clock stepped on either side) start them again from the latest answer.
 * Kept per client and kind, since each kind's stamp may come from a different part of the service.
 */
import type { ObservabilityClient } from "../client";
import { parseRfc3339Ns } from "../time";

/** A service timestamp: the instant in ms (truncated) and how coarse it is (1000 for whole seconds). */
export interface Stamp {
  ms: number;
  precisionMs: number;
}

/** Reads a creation time such as `2024-01-02T03:04:05Z` or `…05.123456789Z`; undefined when it is not one. */
export function readStamp(value: unknown): Stamp | undefined {
  if (typeof value !== "string") return undefined;
  const ns = parseRfc3339Ns(value);
  if (ns === undefined) return undefined;
  const digits = /\.(\d+)/.exec(value)?.[1].length ?? 0;
  return { ms: Number(ns / 1_000_000n), precisionMs: Math.max(1, 1000 / 10 ** digits) };
}

/** Bounds on (service time − local time), in ms. */
interface Offset {
  low: number;
  high: number;
}

const offsets = new WeakMap<ObservabilityClient, Map<string, Offset>>();

/** Records that the service stamped `stamp` on an object it created between `sentAt` and `answeredAt` (local). */
export function observeCreation(
  client: ObservabilityClient,
  kind: string,
  stamp: Stamp | undefined,
  sentAt: number,
  answeredAt: number,
): void {
  if (!stamp) return;
  let byKind = offsets.get(client);
  if (!byKind) offsets.set(client, (byKind = new Map()));
  const seen: Offset = { low: stamp.ms - answeredAt, high: stamp.ms + stamp.precisionMs - sentAt };
  const known = byKind.get(kind);
  const low = Math.max(seen.low, known?.low ?? -Infinity);
  const high = Math.min(seen.high, known?.high ?? Infinity);
  byKind.set(kind, low <= high ? { low, high } : seen);
}

/**
 * Whether an object stamped `stamp` may have been created at or after `localMs` (our clock); undefined when
 * nothing has been learnt of this kind's clock yet, and the caller must fall back to a looser bound.
 */
export function mayBeCreatedSince(
  client: ObservabilityClient,
  kind: string,
  stamp: Stamp,
  localMs: number,
): boolean | undefined {
  const offset = offsets.get(client)?.get(kind);
  if (!offset) return undefined;
  // The earliest our POST can have reached the service, on its clock, is localMs + low; the object was made
  // before stamp + precision.
  return stamp.ms + stamp.precisionMs > localMs + offset.low;
}
