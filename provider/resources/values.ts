/**
 * Generic operations on plain JSON-like property bags, as the lifecycle engine compares and builds them:
 * copying, printing in a stable order, picking keys, and mapping or sorting the values at a dotted path.
 */

/** A plain property bag, as the host hands it over. */
export type Props = Record<string, unknown>;

/** Whether `v` is a property bag: an object, not null and not an array. */
export function isPlainObject(v: unknown): v is Props {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A deep copy of a JSON-like value. */
export function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

/** JSON with object keys sorted, so equal values print equally. */
export function stableStringify(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableStringify).join(",")}]`;
  if (v && typeof v === "object") {
    const entries = Object.entries(v)
      .filter(([, x]) => x !== undefined)
      .sort(([a], [b]) => cmp(a, b));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${stableStringify(x)}`).join(",")}}`;
  }
  return JSON.stringify(v ?? null);
}

/** Replaces, in place, every value found at `path` (dot-separated; `*` matches every key) with `f(value)`. */
export function mapAtPath(target: unknown, path: string, f: (v: unknown) => unknown): void {
  const [head, ...rest] = path.split(".");
  if (!target || typeof target !== "object" || Array.isArray(target)) return;
  const obj = target as Props;
  const keys = head === "*" ? Object.keys(obj) : [head];
  for (const key of keys) {
    if (!(key in obj)) continue;
    if (rest.length > 0) mapAtPath(obj[key], rest.join("."), f);
    else if ((obj[key] = f(obj[key])) === undefined) delete obj[key];
  }
}

/**
 * Whether `a` and `b` print alike with {@link stableStringify}, found without printing them: `diff` compares
 * every input of every resource this way, and printing both sides cost more than the rest of `diff`.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const aList = Array.isArray(a);
  if (aList || Array.isArray(b)) {
    if (!aList || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  const aObject = a !== null && typeof a === "object";
  if (aObject || (b !== null && typeof b === "object")) {
    if (!aObject || b === null || typeof b !== "object") return false;
    // Keys holding undefined are not printed, so they do not count.
    const x = a as Props;
    const y = b as Props;
    let defined = 0;
    for (const key of Object.keys(x)) {
      if (x[key] === undefined) continue;
      defined++;
      if (!Object.hasOwn(y, key) || !sameJson(x[key], y[key])) return false;
    }
    for (const key of Object.keys(y)) if (y[key] !== undefined) defined--;
    return defined === 0;
  }
  // Different scalars may still print alike: NaN and null, undefined and null.
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/** Sorts, in place, every list found at `path` (dot-separated; `*` matches every key). */
export function sortAtPath(target: unknown, path: string): void {
  mapAtPath(target, path, (list) => {
    if (!Array.isArray(list)) return list;
    // Each item printed once, not once per comparison.
    const keyed = list.map((item) => ({ key: stableStringify(item), item }));
    return keyed.sort((a, b) => cmp(a.key, b.key)).map(({ item }) => item);
  });
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `obj` without undefined values. */
export function dropUndefined(obj: Props): Props {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined));
}

/** `v` with null and undefined object values removed, at every depth. */
export function dropNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropNulls);
  if (v && typeof v === "object") {
    const out: Props = {};
    for (const [k, x] of Object.entries(v)) if (x !== null && x !== undefined) out[k] = dropNulls(x);
    return out;
  }
  return v;
}

/** Only `keys` of `obj`, skipping absent ones. */
export function pick(obj: object, keys: readonly string[]): Props {
  const src = obj as Props;
  const out: Props = {};
  for (const key of keys) if (src[key] !== undefined) out[key] = src[key];
  return out;
}
