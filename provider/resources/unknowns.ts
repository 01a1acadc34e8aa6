/**
 * Values not known until apply: the sentinel the engine sends at preview, and where such values sit in a
 * property bag, so that `check` does not blame a rule on a value it cannot see yet.
 */

/** The value the engine sends for an input that is not known yet (preview). */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** Paths (in the `a.b[0]` form failures use) of every unknown value in `v`. */
export function unknownPaths(v: unknown, at = "", out: string[] = []): string[] {
  // One list filled in place, and a path built only where something is unknown: check walks every input.
  if (v === UNKNOWN) out.push(at);
  else if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      if (x === UNKNOWN || (x !== null && typeof x === "object")) unknownPaths(x, `${at}[${i}]`, out);
    }
  } else if (v !== null && typeof v === "object") {
    for (const k of Object.keys(v)) {
      const x = (v as Record<string, unknown>)[k];
      if (x === UNKNOWN || (x !== null && typeof x === "object")) unknownPaths(x, at ? `${at}.${k}` : k, out);
    }
  }
  return out;
}

/**
 * Whether a failure at `property` may be caused by a value not yet known: it is at or under an unknown, or it is
 * about a list one of whose elements is unknown (duplicates, lengths).
 */
export function blamesUnknown(property: string, unknowns: readonly string[]): boolean {
  return unknowns.some(
    (u) =>
      property === u ||
      property.startsWith(`${u}.`) ||
      property.startsWith(`${u}[`) ||
      (u.startsWith(`${property}[`) && !u.slice(property.length).includes(".")),
  );
}
