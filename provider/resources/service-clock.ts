/**
 * Reading the creation times the service stamps on objects. An uncertain create (reconcile.ts) uses them only as
 * a guard beside its baseline listing: an object stamped more than a minute before the create's POST is not the
 * POST's. Nothing finer is read from them, since telling an object made just before the POST from one made by it
 * would need the service's clock known to better than the stamp's precision (a second for monitors and
 * notifiers) and the request's round trip, which a loaded machine does not give.
 */
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
