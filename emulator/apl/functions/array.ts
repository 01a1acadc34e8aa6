/**
 * Array functions (apl/scalar-functions/array-functions) and the set functions of the mathematical family. An
 * argument that should be an array and is not (nor a JSON array in text) gives null, unless the page says
 * otherwise (array_sort_asc: "If the input isn't an array, the function returns an empty array").
 */
import { equalValues, sortCompare, Timespan } from "../values";
import { asArray, asBag, asInteger, asString, fn, type FunctionTable, isBag, isNull } from "./common";
import { aplToString } from "./text";
import { characterCount } from "./string";

/** A one-array function that answers null when the argument is not an array. */
function onArray(f: (a: unknown[], rest: unknown[]) => unknown, minArgs = 1, maxArgs = 1) {
  return fn(minArgs, maxArgs, ([v, ...rest]) => {
    const a = asArray(v);
    return a === null ? null : f(a, rest);
  });
}

/** A key identifying equal scalars for the set functions (1 and 1.0 are one number; "1" is a string). */
function setKey(v: unknown): string {
  if (isNull(v)) return "null";
  if (typeof v === "string") return `s:${v}`;
  if (typeof v === "number" || typeof v === "boolean") return `${typeof v}:${String(v)}`;
  return `o:${aplToString(v)}`;
}

/** `a` without repeats, first occurrences kept in order. */
function distinct(a: unknown[]): unknown[] {
  const seen = new Set<string>();
  const out: unknown[] = [];
  for (const v of a) {
    const k = setKey(v);
    if (!seen.has(k)) {
      seen.add(k);
      out.push(v);
    }
  }
  return out;
}

/** Elements moved by `k` places, the vacated places filled with `fill` (shift) or the wrapped ones (rotate). */
function moved(a: unknown[], k: number, wrap: boolean, fill: unknown): unknown[] {
  const n = a.length;
  if (n === 0) return [];
  if (wrap) {
    const s = ((k % n) + n) % n;
    return [...a.slice(s), ...a.slice(0, s)];
  }
  return a.map((_, i) => {
    const j = i + k;
    return j >= 0 && j < n ? a[j] : fill;
  });
}

/**
 * array_index_of's window (apl/scalar-functions/array-functions/array-index-of): from `start` (negative counts
 * from the end) over `length` elements (-1 for all), the `occurrence`-th equal element.
 */
function indexOf(a: unknown[], [lookup, start, length, occurrence]: unknown[]): number | null {
  if (isNull(lookup)) return null;
  const s = start === undefined ? 0 : asInteger(start);
  const len = length === undefined ? -1 : asInteger(length);
  const occ = occurrence === undefined ? 1 : asInteger(occurrence);
  if (s === null || len === null || occ === null || occ < 1 || len < -1) return null;
  const from = s < 0 ? Math.max(0, a.length + s) : s;
  const end = len === -1 ? a.length : Math.min(a.length, from + len);
  let seen = 0;
  for (let i = from; i < end; i++) if (equalValues(a[i], lookup) && ++seen === occ) return i;
  return -1;
}

/** One step of a JSONPath expression: a member name, an index, or a wildcard. */
type PathStep = { kind: "name"; name: string } | { kind: "index"; index: number } | { kind: "all" };

/** `.name` or `.*`. */
const MEMBER_STEP = /\.(\*|[^.[\]]+)/y;
/** `[*]`, `[n]`, `['name']` or `["name"]`. */
const BRACKET_STEP = /\[\s*(?:(\*)|(-?\d+)|'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")\s*\]/y;

/** The steps of a JSONPath (`$`, `.name`, `['name']`, `["name"]`, `[n]`, `[*]`, `.*`); null when malformed. */
export function parseJsonPath(path: string): PathStep[] | null {
  const t = path.trim();
  if (!t.startsWith("$")) return null;
  const steps: PathStep[] = [];
  let i = 1;
  while (i < t.length) {
    // Sticky patterns match where the last step ended, without copying the rest of the path each time.
    const shape = t[i] === "." ? MEMBER_STEP : t[i] === "[" ? BRACKET_STEP : null;
    if (shape === null) return null;
    shape.lastIndex = i;
    const m = shape.exec(t);
    if (!m) return null;
    if (shape === MEMBER_STEP) steps.push(m[1] === "*" ? { kind: "all" } : { kind: "name", name: m[1] });
    else if (m[1]) steps.push({ kind: "all" });
    else if (m[2] !== undefined) steps.push({ kind: "index", index: Number(m[2]) });
    else steps.push({ kind: "name", name: (m[3] ?? m[4]).replace(/\\(.)/g, "$1") });
    i = shape.lastIndex;
  }
  return steps;
}

/** The values `steps` select from `root`. */
export function selectPath(root: unknown, steps: PathStep[]): unknown[] {
  let current: unknown[] = [root];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const v of current) {
      if (step.kind === "all") {
        if (Array.isArray(v)) next.push(...v);
        else if (isBag(v)) next.push(...Object.values(v));
      } else if (step.kind === "index") {
        if (Array.isArray(v)) {
          const i = step.index < 0 ? v.length + step.index : step.index;
          if (i >= 0 && i < v.length) next.push(v[i]);
        }
      } else if (isBag(v) && Object.prototype.hasOwnProperty.call(v, step.name)) next.push(v[step.name]);
    }
    current = next;
  }
  return current;
}

/** Sorted copy, nulls last whatever the direction (Kusto's default for array_sort_*). */
function sorted(a: unknown[], descending: boolean, nullsLast: boolean): unknown[] {
  const values = a.filter((v) => !isNull(v));
  const nulls = a.length - values.length;
  values.sort((x, y) => (descending ? sortCompare(y, x) : sortCompare(x, y)));
  const pad = new Array<null>(nulls).fill(null);
  return nullsLast ? [...values, ...pad] : [...pad, ...values];
}

/** Elementwise choice of array_iff: a scalar in place of an array stands for every position. */
function arrayIff([conditions, whenTrue, whenFalse]: unknown[]): unknown {
  const c = asArray(conditions);
  if (c === null) return null;
  const pick = (src: unknown, i: number) => {
    if (Array.isArray(src)) return i < src.length ? src[i] : null;
    return src === undefined ? null : src;
  };
  return c.map((cond, i) => (cond === true ? pick(whenTrue, i) : cond === false ? pick(whenFalse, i) : null));
}

/** The array family (and the set functions). */
export const ARRAY_FUNCTIONS: FunctionTable = {
  array_length: onArray((a) => a.length),
  len: fn(1, 1, ([v]) => {
    if (isNull(v)) return null;
    if (Array.isArray(v)) return v.length;
    if (typeof v === "string") return characterCount(v);
    return null;
  }),
  array_concat: fn(1, 64, (args) => {
    const arrays = args.map(asArray);
    if (arrays.some((a) => a === null)) return null;
    return (arrays as unknown[][]).flat(1);
  }),
  array_reverse: onArray((a) => [...a].reverse()),
  array_rotate_left: onArray(
    (a, [k]) => {
      const n = asInteger(k);
      return n === null ? null : moved(a, n, true, null);
    },
    2,
    2,
  ),
  array_rotate_right: onArray(
    (a, [k]) => {
      const n = asInteger(k);
      return n === null ? null : moved(a, -n, true, null);
    },
    2,
    2,
  ),
  // The pages' examples fill the vacated places with null (an optional third argument gives the fill value).
  array_shift_left: onArray(
    (a, [k, fill]) => {
      const n = k === undefined ? 1 : asInteger(k);
      return n === null ? null : moved(a, n, false, fill ?? null);
    },
    1,
    3,
  ),
  array_shift_right: onArray(
    (a, [k, fill]) => {
      const n = k === undefined ? 1 : asInteger(k);
      return n === null ? null : moved(a, -n, false, fill ?? null);
    },
    1,
    3,
  ),
  // apl/scalar-functions/array-functions/array-slice: start inclusive, end exclusive, negatives from the end,
  // out-of-range indices adjusted.
  array_slice: onArray(
    (a, [start, end]) => {
      const s = asInteger(start);
      const e = end === undefined ? a.length : asInteger(end);
      if (s === null || e === null) return null;
      const from = s < 0 ? Math.max(0, a.length + s) : Math.min(s, a.length);
      const to = e < 0 ? Math.max(0, a.length + e) : Math.min(e, a.length);
      return from >= to ? [] : a.slice(from, to);
    },
    2,
    3,
  ),
  array_split: onArray(
    (a, [indices]) => {
      const list = Array.isArray(indices) ? indices : [indices];
      const cuts = list.map((i) => asInteger(i));
      if (cuts.some((c) => c === null)) return null;
      const normalized = (cuts as number[]).map((c) =>
        Math.min(a.length, Math.max(0, c < 0 ? a.length + c : c)),
      );
      const out: unknown[][] = [];
      let last = 0;
      for (const c of normalized) {
        out.push(a.slice(last, Math.max(last, c)));
        last = Math.max(last, c);
      }
      out.push(a.slice(last));
      return out;
    },
    2,
    2,
  ),
  array_index_of: onArray(indexOf, 2, 5),
  array_select_dict: onArray(
    (a, [key, value]) => {
      const k = asString(key);
      if (k === null) return null;
      return (
        a.find((d) => isBag(d) && Object.prototype.hasOwnProperty.call(d, k) && equalValues(d[k], value)) ??
        null
      );
    },
    3,
    3,
  ),
  array_sort_asc: fn(1, 2, ([v, nullsLast]) => {
    const a = asArray(v);
    return a === null ? [] : sorted(a, false, nullsLast !== false);
  }),
  array_sort_desc: fn(1, 2, ([v, nullsLast]) => {
    const a = asArray(v);
    return a === null ? [] : sorted(a, true, nullsLast !== false);
  }),
  array_sum: onArray((a) => {
    let sum = 0;
    let any = false;
    let spans = 0n;
    let anySpan = false;
    for (const v of a) {
      if (v instanceof Timespan) {
        spans += v.ns;
        anySpan = true;
      } else if (typeof v === "number") {
        sum += v;
        any = true;
      }
    }
    if (anySpan && !any) return new Timespan(spans);
    return any ? sum : null;
  }),
  array_iff: fn(3, 3, arrayIff),
  array_extract: fn(2, 2, ([source, path]) => {
    const p = asString(path);
    if (p === null || isNull(source)) return null;
    const steps = parseJsonPath(p);
    if (steps === null) return null;
    const root = asArray(source) ?? asBag(source) ?? source;
    return selectPath(root, steps);
  }),
  pack_array: fn(1, 64, (args) => args.map((v) => (v === undefined ? null : v))),
  strcat_array: onArray(
    (a, [delimiter]) => a.map((v) => aplToString(v)).join(asString(delimiter) ?? ""),
    1,
    2,
  ),
  set_has_element: onArray((a, [value]) => a.some((v) => equalValues(v, value)), 2, 2),
  set_union: fn(2, 64, (args) => {
    const arrays = args.map(asArray);
    if (arrays.some((a) => a === null)) return null;
    return distinct((arrays as unknown[][]).flat(1));
  }),
  set_intersect: fn(2, 64, (args) => {
    const arrays = args.map(asArray);
    if (arrays.some((a) => a === null)) return null;
    const [first, ...rest] = arrays as unknown[][];
    const others = rest.map((a) => new Set(a.map(setKey)));
    return distinct(first).filter((v) => others.every((s) => s.has(setKey(v))));
  }),
  // apl/scalar-functions/mathematical-functions/set-difference: "all values from Array1 that aren't present in
  // Array2 ... doesn't include duplicates". (The page's example output, [5, 1, 4], is not what that text says;
  // the emulator follows the text, as Kusto's set_difference does.)
  set_difference: fn(2, 64, (args) => {
    const arrays = args.map(asArray);
    if (arrays.some((a) => a === null)) return null;
    const [first, ...rest] = arrays as unknown[][];
    const removed = new Set(rest.flat(1).map(setKey));
    return distinct(first).filter((v) => !removed.has(setKey(v)));
  }),
};
