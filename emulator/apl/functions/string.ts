/**
 * String functions of the APL reference (apl/scalar-functions/string-functions): text in, text or numbers out.
 * Positions and lengths count characters (Unicode code points), not UTF-16 units or bytes, as the pages say
 * ("the length of the string in characters (not bytes)"). Regex-taking functions compile through ../regex (RE2,
 * linear time), cached on the pattern.
 */
import { compileRegex, type Regex } from "../regex";
import { asArray, asInteger, asNumber, asString, fn, type FunctionTable, isNull, unary } from "./common";

/** Whether `s` holds a surrogate pair, so that code points and UTF-16 units differ. */
const hasSurrogates = (s: string): boolean => /[\uD800-\uDFFF]/.test(s);

/** The code points of `s` as strings (one per character). */
export function characters(s: string): string[] {
  return hasSurrogates(s) ? Array.from(s) : s.split("");
}

/** Number of characters (code points) of `s`. */
export function characterCount(s: string): number {
  if (!hasSurrogates(s)) return s.length;
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** Characters [start, start+length) of `s`, the window clipped to the string (a negative start clips too). */
function sliceCharacters(s: string, start: number, length: number | undefined): string {
  let end = length === undefined ? Infinity : start + Math.max(0, length);
  start = Math.max(0, start);
  if (!hasSurrogates(s)) {
    end = Math.min(end, s.length);
    return start >= end ? "" : s.slice(start, end);
  }
  const chars = Array.from(s);
  end = Math.min(end, chars.length);
  return start >= end ? "" : chars.slice(start, end).join("");
}

/**
 * -1, 0 or 1 as `a` sorts before, with or after `b` by code point, which is the service's (Go's) byte order of
 * UTF-8; JavaScript's < compares UTF-16 units, which puts U+E000..U+FFFF after the astral planes.
 */
export function compareCodePoints(a: string, b: string): number {
  if (!hasSurrogates(a) && !hasSurrogates(b)) return a < b ? -1 : a > b ? 1 : 0;
  const x = Array.from(a, (c) => c.codePointAt(0)!);
  const y = Array.from(b, (c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
  return x.length === y.length ? 0 : x.length < y.length ? -1 : 1;
}

/** The regex a function's pattern argument names; a non-string pattern is null (and so the result is null). */
function regexArg(v: unknown): Regex | null {
  const pattern = asString(v);
  return pattern === null ? null : compileRegex(pattern);
}

/** Removes leading (and/or trailing) characters found in `cutset`. */
function trimCutset(cutset: string, s: string, start: boolean, end: boolean): string {
  const set = new Set(characters(cutset));
  const chars = characters(s);
  let i = 0;
  let j = chars.length;
  if (start) while (i < j && set.has(chars[i])) i++;
  if (end) while (j > i && set.has(chars[j - 1])) j--;
  return chars.slice(i, j).join("");
}

/** Removes every leading and/or trailing match of `re` ("leading and trailing regex matches removed"). */
function trimRegex(re: Regex, s: string, start: boolean, end: boolean): string {
  let out = s;
  if (start) {
    const m = compileRegex(`^(?:${re.source})+`).exec(out);
    if (m && m[0] !== undefined) out = out.slice(m[0].length);
  }
  if (end) {
    // The leftmost match that reaches the end is the longest suffix the pattern takes off.
    const m = compileRegex(`(?:${re.source})+$`).exec(out);
    if (m && m[0] !== undefined) out = out.slice(0, out.length - m[0].length);
  }
  return out;
}

/** Non-overlapping occurrences of `needle` in `hay`. */
function countOccurrences(hay: string, needle: string): number {
  if (needle === "") return 0;
  let n = 0;
  for (let at = hay.indexOf(needle); at >= 0; at = hay.indexOf(needle, at + needle.length)) n++;
  return n;
}

/** The character index (code points) of UTF-16 offset `offset` in `s`. */
function characterIndex(s: string, offset: number): number {
  return hasSurrogates(s) ? characterCount(s.slice(0, offset)) : offset;
}

/** The UTF-16 offset of character index `index` in `s`. */
function utf16Offset(s: string, index: number): number {
  if (!hasSurrogates(s)) return index;
  return Array.from(s).slice(0, index).join("").length;
}

/**
 * indexof and indexof_regex's shared window: search `s` from character `start` over `length` characters (-1 for
 * the rest) for the `occurrence`-th match found by `find(sub, from)` (a UTF-16 offset or -1).
 */
function indexWithin(
  s: string,
  args: unknown[],
  find: (hay: string, from: number) => { at: number; next: number } | null,
): number | null {
  const start = args[2] === undefined ? 0 : asInteger(args[2]);
  const length = args[3] === undefined ? -1 : asInteger(args[3]);
  const occurrence = args[4] === undefined ? 1 : asInteger(args[4]);
  if (start === null || length === null || occurrence === null) return null;
  if (occurrence < 1 || length < -1) return null;
  const total = characterCount(s);
  const from = start < 0 ? Math.max(0, total + start) : start;
  if (from > total) return -1;
  const windowEnd = length === -1 ? total : Math.min(total, from + length);
  const hay = s.slice(0, utf16Offset(s, windowEnd));
  let pos = utf16Offset(s, from);
  let seen = 0;
  for (;;) {
    const hit = find(hay, pos);
    if (hit === null) return -1;
    if (++seen === occurrence) return characterIndex(s, hit.at);
    pos = hit.next;
    if (pos > hay.length) return -1;
  }
}

/** replace_regex(regex, rewrite, text): every match replaced ($0/$1 or \\0/\\1 name groups). */
function replaceRegex([regex, rewrite, text]: unknown[]): string | null {
  const re = regexArg(regex);
  const with_ = asString(rewrite);
  const s = asString(text);
  if (re === null || with_ === null || s === null) return null;
  return re.replaceAll(s, with_);
}

/** Units of format_bytes / parse_bytes, with their powers (apl/scalar-functions/string-functions/format-bytes). */
const BYTE_UNITS: Record<string, number> = {
  b: 0,
  byte: 0,
  bytes: 0,
  k: 1,
  kb: 1,
  kib: 1,
  m: 2,
  mb: 2,
  mib: 2,
  g: 3,
  gb: 3,
  gib: 3,
  t: 4,
  tb: 4,
  tib: 4,
  p: 5,
  pb: 5,
  pib: 5,
  e: 6,
  eb: 6,
  eib: 6,
  z: 7,
  zb: 7,
  zib: 7,
  y: 8,
  yb: 8,
  yib: 8,
};

/** Auto-selected suffixes of format_bytes: "Bytes", then KB, MB, … (the page's examples: "8.36 MB", "446.08 KB"). */
const AUTO_SUFFIXES = ["Bytes", "KB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"];

function formatBytes(args: unknown[]): string | null {
  const value = asNumber(args[0]);
  if (value === null) return null;
  const precision = args[1] === undefined || isNull(args[1]) ? 0 : asInteger(args[1]);
  if (precision === null || precision < 0 || precision > 20) return null;
  const unitText = args[2] === undefined || isNull(args[2]) ? "" : (asString(args[2]) ?? "");
  const base = args[3] === undefined || isNull(args[3]) ? 2 : asInteger(args[3]);
  if (base !== 2 && base !== 10) return null;
  const step = base === 2 ? 1024 : 1000;
  let power: number;
  let suffix: string;
  if (unitText !== "") {
    const p = BYTE_UNITS[unitText.toLowerCase()];
    if (p === undefined) return null;
    power = p;
    suffix = p === 0 ? "Bytes" : unitText;
  } else {
    power = 0;
    let magnitude = Math.abs(value);
    while (magnitude >= step && power < AUTO_SUFFIXES.length - 1) {
      magnitude /= step;
      power++;
    }
    suffix = base === 10 && power === 1 ? "kB" : AUTO_SUFFIXES[power];
  }
  return `${(value / step ** power).toFixed(precision)} ${suffix}`;
}

function parseBytes(args: unknown[]): number | null {
  const text = asString(args[0]);
  if (text === null) return null;
  const base = args[1] === undefined || isNull(args[1]) ? 2 : asInteger(args[1]);
  if (base !== 2 && base !== 10) return 0;
  // One optional space between number and unit: no two blanks patterns to split a run of spaces between.
  const m = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))\s?([A-Za-z]*)$/.exec(text.trim());
  if (!m) return 0;
  const power = m[2] === "" ? 0 : BYTE_UNITS[m[2].toLowerCase()];
  if (power === undefined) return 0;
  // An explicit binary unit (KiB) is 1024-based whatever the base argument says.
  const step = base === 2 || /i/i.test(m[2].slice(1)) ? 1024 : 1000;
  return Math.trunc(Number(m[1]) * step ** power);
}

/** RFC 4180 fields of one CSV record (quoted fields, doubled quotes); the first record only. */
export function parseCsvRecord(text: string): string[] {
  const fields: string[] = [];
  let field = "";
  let i = 0;
  let quoted = false;
  for (; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else field += c;
    } else if (c === '"' && field === "") quoted = true;
    else if (c === ",") {
      fields.push(field);
      field = "";
    } else if (c === "\n" || (c === "\r" && text[i + 1] === "\n")) break;
    else field += c;
  }
  fields.push(field);
  return fields;
}

/** ANSI escape sequences: CSI (ESC [ … final byte), OSC (ESC ] … BEL or ESC \), and two-character escapes. */
const ANSI_ESCAPES =
  // eslint-disable-next-line no-control-regex -- matching the ESC and BEL control characters is the point.
  /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]|\u009b[0-?]*[ -/]*[@-~]/g;

/** Longest text strrep builds (UTF-16 units): the emulator's bound, not the service's. */
export const STRREP_LIMIT = 16 * 1024 * 1024;

/** The string family. */
export const STRING_FUNCTIONS: FunctionTable = {
  strlen: unary((v) => characterCount(asString(v)!)),
  string_size: unary((v) => Buffer.byteLength(asString(v)!, "utf8")),
  tolower: unary((v) => asString(v)!.toLowerCase()),
  toupper: unary((v) => asString(v)!.toUpperCase()),
  // apl/scalar-functions/string-functions/totitle: "the first character capitalized" (the rest left as is).
  totitle: unary((v) => {
    const s = asString(v)!;
    const [first = ""] = characters(s.slice(0, 2));
    return first.toUpperCase() + s.slice(first.length);
  }),
  reverse: unary((v) => characters(asString(v)!).reverse().join("")),
  strcat: fn(1, 64, (args) => args.map((a) => asString(a) ?? "").join("")),
  strcat_delim: fn(3, 65, ([delimiter, ...rest]) =>
    rest.map((a) => asString(a) ?? "").join(asString(delimiter) ?? ""),
  ),
  strcmp: fn(2, 2, ([a, b]) => {
    const x = asString(a);
    const y = asString(b);
    if (x === null || y === null) return null;
    return compareCodePoints(x, y);
  }),
  strrep: fn(2, 3, ([value, times, delimiter]) => {
    const s = asString(value);
    const n = asInteger(times);
    if (s === null || n === null) return null;
    // The page: "Number of repetitions (1 to 1024). Values over 1024 are capped at 1024."
    const count = Math.min(1024, n);
    if (count < 1) return "";
    const separator = asString(delimiter) ?? "";
    // 1,024 copies of a long field could reach gigabytes; past the bound the result is null, not a crash.
    if ((s.length + separator.length) * count > STRREP_LIMIT) return null;
    return new Array<string>(count).fill(s).join(separator);
  }),
  substring: fn(2, 3, ([source, start, length]) => {
    const s = asString(source);
    const from = asInteger(start);
    const len = length === undefined ? undefined : asInteger(length);
    if (s === null || from === null || len === null) return null;
    return sliceCharacters(s, from, len);
  }),
  split: fn(2, 3, ([source, delimiter, index]) => {
    const s = asString(source);
    const d = asString(delimiter);
    if (s === null || d === null) return null;
    const parts = d === "" ? characters(s) : s.split(d);
    if (index === undefined) return parts;
    const i = asInteger(index);
    if (i === null) return null;
    // Kusto's requestedIndex: the one part, as an array; out of range gives an empty array.
    return i >= 0 && i < parts.length ? [parts[i]] : [];
  }),
  countof: fn(2, 3, ([search, text, kind]) => {
    const needle = asString(search);
    const hay = asString(text);
    if (needle === null || hay === null) return null;
    const k = kind === undefined ? "normal" : asString(kind);
    if (k === "regex") return compileRegex(needle).count(hay);
    if (k !== "normal") return null;
    return countOccurrences(hay, needle);
  }),
  countof_regex: fn(2, 2, ([regex, text]) => {
    const re = regexArg(regex);
    const hay = asString(text);
    if (re === null || hay === null) return null;
    return re.count(hay);
  }),
  indexof: fn(2, 5, (args) => {
    const s = asString(args[0]);
    const lookup = asString(args[1]);
    if (s === null || lookup === null) return null;
    return indexWithin(s, args, (hay, from) => {
      const at = hay.indexOf(lookup, from);
      return at < 0 || at + lookup.length > hay.length ? null : { at, next: at + 1 };
    });
  }),
  // apl/scalar-functions/string-functions/indexof-regex: (string, match [, start [, occurrence [, length]]]).
  indexof_regex: fn(2, 5, ([source, pattern, start, occurrence, length]) => {
    const s = asString(source);
    const re = regexArg(pattern);
    if (s === null || re === null) return null;
    const startN = start === undefined ? 0 : asInteger(start);
    if (startN === null || startN < 0) return null;
    return indexWithin(s, [s, pattern, startN, length, occurrence], (hay, from) => {
      const m = re.firstIndex(hay.slice(from));
      if (m === null) return null;
      return { at: from + m[0], next: from + Math.max(m[1], m[0] + 1) };
    });
  }),
  replace_string: fn(3, 3, ([lookup, rewrite, text]) => {
    const needle = asString(lookup);
    const with_ = asString(rewrite);
    const s = asString(text);
    if (needle === null || with_ === null || s === null) return null;
    return needle === "" ? s : s.split(needle).join(with_);
  }),
  replace_regex: fn(3, 3, replaceRegex),
  // apl/scalar-functions/string-functions/replace: the same as replace_regex.
  replace: fn(3, 3, replaceRegex),
  extract: fn(3, 3, ([regex, group, text]) => {
    const re = regexArg(regex);
    const g = asInteger(group);
    const s = asString(text);
    if (re === null || g === null || s === null) return null;
    if (g < 0 || g > re.groupCount()) return null;
    const m = re.exec(s);
    return m === null ? null : (m[g] ?? null);
  }),
  extract_all: fn(2, 3, (args) => {
    // Two forms: extract_all(regex, text) (every group, or the whole match without groups) and
    // extract_all(regex, captureGroups, text).
    const re = regexArg(args[0]);
    const s = asString(args.length === 2 ? args[1] : args[2]);
    if (re === null || s === null) return null;
    let groups: number[];
    if (args.length === 3) {
      const wanted = asArray(args[1]);
      if (wanted === null) return null;
      const numbers = wanted.map((g) => asInteger(g));
      if (numbers.some((g) => g === null || g < 0 || g > re.groupCount())) return null;
      groups = numbers as number[];
    } else {
      groups = re.groupCount() === 0 ? [0] : Array.from({ length: re.groupCount() }, (_, i) => i + 1);
    }
    const matches = re.execAll(s);
    if (matches.length === 0) return null;
    return matches.map((m) => (groups.length === 1 ? (m[groups[0]] ?? "") : groups.map((g) => m[g] ?? "")));
  }),
  trim: fn(2, 2, ([cutset, text]) => {
    const c = asString(cutset);
    const s = asString(text);
    return c === null || s === null ? null : trimCutset(c, s, true, true);
  }),
  trim_start: fn(2, 2, ([cutset, text]) => {
    const c = asString(cutset);
    const s = asString(text);
    return c === null || s === null ? null : trimCutset(c, s, true, false);
  }),
  trim_end: fn(2, 2, ([cutset, text]) => {
    const c = asString(cutset);
    const s = asString(text);
    return c === null || s === null ? null : trimCutset(c, s, false, true);
  }),
  trim_regex: fn(2, 2, ([regex, text]) => {
    const re = regexArg(regex);
    const s = asString(text);
    return re === null || s === null ? null : trimRegex(re, s, true, true);
  }),
  trim_start_regex: fn(2, 2, ([regex, text]) => {
    const re = regexArg(regex);
    const s = asString(text);
    return re === null || s === null ? null : trimRegex(re, s, true, false);
  }),
  trim_end_regex: fn(2, 2, ([regex, text]) => {
    const re = regexArg(regex);
    const s = asString(text);
    return re === null || s === null ? null : trimRegex(re, s, false, true);
  }),
  trim_space: unary((v) => asString(v)!.trim()),
  translate: fn(3, 3, ([searchList, replacementList, source]) => {
    const from = asString(searchList);
    const to = asString(replacementList);
    const s = asString(source);
    if (from === null || to === null || s === null) return null;
    const fromChars = characters(from);
    const toChars = characters(to);
    const map = new Map<string, string>();
    fromChars.forEach((c, i) => {
      // The page: a shorter replacement list repeats its last character; an empty one deletes.
      if (!map.has(c))
        map.set(c, toChars.length === 0 ? "" : (toChars[Math.min(i, toChars.length - 1)] ?? ""));
    });
    return characters(s)
      .map((c) => map.get(c) ?? c)
      .join("");
  }),
  format_bytes: fn(1, 4, formatBytes),
  parse_bytes: fn(1, 2, parseBytes),
  parse_csv: unary((v) => parseCsvRecord(asString(v)!)),
  strip_ansi_escapes: unary((v) => asString(v)!.replace(ANSI_ESCAPES, "")),
  // The RE2 metacharacters, escaped with a backslash so the text matches itself.
  regex_quote: unary((v) => asString(v)!.replace(/[\\^$.|?*+()[\]{}-]/g, "\\$&")),
  quote: unary((v) => JSON.stringify(asString(v)!)),
};
