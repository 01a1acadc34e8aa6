/**
 * Property bags (apl/scalar-functions/array-functions: bag_has_key, bag_keys, bag_pack, bag_zip,
 * pack_dictionary) and pairs (apl/scalar-functions/pair-functions). bag_pack_columns and pack_all read the row,
 * so the compiler handles them.
 */
import { asArray, asBag, asString, fn, type FunctionTable, isNull } from "./common";

/** key/value arguments into a bag; null when a key is not a string or the arguments are odd in number. */
function packPairs(args: unknown[]): Record<string, unknown> | null {
  if (args.length % 2 !== 0) return null;
  const bag: Record<string, unknown> = {};
  for (let i = 0; i < args.length; i += 2) {
    const key = asString(args[i]);
    if (key === null) return null;
    bag[key] = args[i + 1] === undefined ? null : args[i + 1];
  }
  return bag;
}

/** The pair object the pair functions return. */
const pairOf = (key: string, value: string, separator: string) => ({ key, value, separator });

/** A `*` wildcard pattern (the find_pair page) as a test on a whole string. */
function wildcard(pattern: string): (s: string) => boolean {
  if (pattern === "*") return () => true;
  const parts = pattern.split("*");
  if (parts.length === 1) return (s) => s === pattern;
  return (s) => {
    if (!s.startsWith(parts[0])) return false;
    let at = parts[0].length;
    for (let i = 1; i < parts.length - 1; i++) {
      const found = s.indexOf(parts[i], at);
      if (found < 0) return false;
      at = found + parts[i].length;
    }
    const last = parts[parts.length - 1];
    return s.length - last.length >= at && s.endsWith(last);
  };
}

/** The bag and pair families. */
export const BAG_FUNCTIONS: FunctionTable = {
  bag_pack: fn(0, 128, packPairs),
  // Kusto's older name of bag_pack, which the docs' own examples use (array_extract's page).
  pack: fn(0, 128, packPairs),
  pack_dictionary: fn(0, 128, packPairs),
  bag_has_key: fn(2, 2, ([bag, key]) => {
    const b = asBag(bag);
    const k = asString(key);
    if (b === null || k === null) return isNull(bag) || isNull(key) ? null : false;
    return Object.prototype.hasOwnProperty.call(b, k);
  }),
  // apl/scalar-functions/array-functions/bag-keys: null when the input is not a dynamic object.
  bag_keys: fn(1, 1, ([bag]) => {
    const b = asBag(bag);
    return b === null ? null : Object.keys(b);
  }),
  // apl/scalar-functions/array-functions/bag-zip: pairs up to the shorter array's length; non-string keys skipped.
  bag_zip: fn(2, 2, ([keys, values]) => {
    const k = asArray(keys);
    const v = asArray(values);
    if (k === null || v === null) return null;
    const bag: Record<string, unknown> = {};
    for (let i = 0; i < Math.min(k.length, v.length); i++) {
      if (typeof k[i] === "string") bag[k[i] as string] = v[i];
    }
    return bag;
  }),
  pair: fn(2, 3, ([key, value, separator]) => {
    const k = asString(key);
    const v = asString(value);
    const s = separator === undefined ? ":" : asString(separator);
    return k === null || v === null || s === null ? null : pairOf(k, v, s);
  }),
  // apl/scalar-functions/pair-functions/parse-pair: without the separator, the whole input is the value.
  parse_pair: fn(1, 2, ([text, separator]) => {
    const t = asString(text);
    const s = separator === undefined ? ":" : asString(separator);
    if (t === null || s === null) return null;
    const at = s === "" ? -1 : t.indexOf(s);
    return at < 0 ? pairOf("", t, s) : pairOf(t.slice(0, at), t.slice(at + s.length), s);
  }),
  find_pair: fn(3, 4, ([array, keyPattern, valuePattern, separator]) => {
    const a = asArray(array);
    const kp = asString(keyPattern);
    const vp = asString(valuePattern);
    const s = separator === undefined ? ":" : asString(separator);
    if (a === null || kp === null || vp === null || s === null || s === "") return null;
    const keyMatches = wildcard(kp);
    const valueMatches = wildcard(vp);
    for (const item of a) {
      if (typeof item !== "string") continue;
      const at = item.indexOf(s);
      if (at < 0) continue;
      const key = item.slice(0, at);
      const value = item.slice(at + s.length);
      if (keyMatches(key) && valueMatches(value)) return pairOf(key, value, s);
    }
    return null;
  }),
};
