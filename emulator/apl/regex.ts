/**
 * Every regex of the emulator (APL's extract, matches regex, parse kind=regex, replace_regex, countof, the legacy
 * query's regexp filter) compiles here, on re2js: a port of RE2 whose matcher runs in time linear in the subject.
 * V8's backtracking engine takes exponential time on patterns such as `(a+)+$`; RE2 cannot, and its syntax is the
 * one APL documents (no backreferences, no lookaround).
 */
import { RE2JS, RE2JSException, RE2JSSyntaxException } from "re2js";
import { AplError } from "./errors";

/** A compiled RE2 regex (linear time). */
export interface Regex {
  /** The pattern as written. */
  readonly source: string;
  /** Whether the pattern matches anywhere in `s`. */
  test(s: string): boolean;
  /** The first match's groups (index 0 is the whole match; a group that took no part is undefined), or null. */
  exec(s: string): (string | undefined)[] | null;
  /** Every non-overlapping match's groups, left to right. */
  execAll(s: string): (string | undefined)[][];
  /** Where the first match starts and ends (UTF-16 offsets), or null. */
  firstIndex(s: string): [start: number, end: number] | null;
  /** How many non-overlapping matches `s` holds (cheaper than execAll's length). */
  count(s: string): number;
  /**
   * `s` with every match replaced by `replacement`, in which `$0`/`\0` is the whole match, `$1`…`$9`/`\1`…`\9`
   * a group (`${name}` a named or numbered one), `$$` a dollar; a group that took no part is empty.
   */
  replaceAll(s: string, replacement: string): string;
  /** `s` split at each match, empty pieces kept (like String.prototype.split with a string separator). */
  split(s: string): string[];
  /** Group names by index: [0] is "" (the whole match), an unnamed group is "". */
  groupNames(): string[];
  /** Number of capturing groups, not counting the whole match. */
  groupCount(): number;
}

/** Flags APL's regexes may carry (the `(?i)`-style inline flags work too). */
export interface RegexFlags {
  caseInsensitive?: boolean;
  dotAll?: boolean;
  multiline?: boolean;
}

/**
 * A pattern RE2 rejects. Thrown at position 1:1; the compiler, which knows where the pattern sits in the query,
 * may re-throw it at the literal's position (`pattern` and `problem` are kept for that).
 */
export class InvalidRegexError extends AplError {
  constructor(
    /** The pattern as written. */
    readonly pattern: string,
    /** What is wrong with it, in RE2's words or ours. */
    readonly problem: string,
  ) {
    super(`invalid regex ${JSON.stringify(pattern)}: ${problem}`, 1, 1, "semantic");
  }
}

/**
 * Compiled regexes kept for reuse: a query's constant pattern compiles once, not once per row. Each may grow a
 * lazy DFA of up to 8 MB (re2js's default budget) as it matches, so the cache stays small: 64 patterns are far
 * more than one query holds, and bound the cache's worst case to about half a gigabyte.
 */
const CACHE_LIMIT = 64;
const cache = new Map<string, Regex>();

/** Compiles `pattern` with RE2 semantics, through a bounded LRU cache. Throws InvalidRegexError. */
export function compileRegex(pattern: string, flags: RegexFlags = {}): Regex {
  // Row after row calls with the same flagless pattern: answer those without building the cache key.
  const plain = !flags.caseInsensitive && !flags.dotAll && !flags.multiline;
  if (plain && lastPlain !== undefined && lastPlain.source === pattern) return lastPlain;
  const found = lookup(pattern, flags);
  if (plain) lastPlain = found;
  return found;
}

/** The last flagless regex compileRegex answered. */
let lastPlain: Regex | undefined;

function lookup(pattern: string, flags: RegexFlags): Regex {
  const key = `${flags.caseInsensitive ? "i" : ""}${flags.dotAll ? "s" : ""}${flags.multiline ? "m" : ""}/${pattern}`;
  const hit = cache.get(key);
  if (hit !== undefined) {
    // Re-inserting moves the entry to the end of the Map's order, which is the LRU's "most recent".
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const compiled = new Re2Regex(pattern, flags);
  cache.set(key, compiled);
  if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  return compiled;
}

/** How many compiled regexes the cache holds now (for tests of its bound). */
export function regexCacheSize(): number {
  return cache.size;
}

/** The bound of the compiled-regex cache. */
export const REGEX_CACHE_LIMIT = CACHE_LIMIT;

/** RE2's complaint, with a word on why for the constructs people bring from backtracking engines. */
function describeProblem(e: RE2JSSyntaxException): string {
  const what = e.input ?? "";
  if (/^\\[1-9]/.test(what) || /^\\k</.test(what)) {
    return `backreferences such as \`${what}\` are not supported (RE2 syntax matches in linear time and has none)`;
  }
  const lookaround = /^\(\?<?[=!]/.exec(what);
  if (lookaround) {
    return `lookaround \`${lookaround[0]}\` is not supported (RE2 syntax matches in linear time and has none)`;
  }
  return what === "" ? e.error : `${e.error}: \`${what}\``;
}

class Re2Regex implements Regex {
  private readonly re: RE2JS;
  private readonly names: string[];
  private readonly groupTotal: number;

  constructor(
    readonly source: string,
    flags: RegexFlags,
  ) {
    let bits = 0;
    if (flags.caseInsensitive) bits |= RE2JS.CASE_INSENSITIVE;
    if (flags.dotAll) bits |= RE2JS.DOTALL;
    if (flags.multiline) bits |= RE2JS.MULTILINE;
    try {
      this.re = RE2JS.compile(source, bits);
    } catch (e) {
      if (e instanceof RE2JSSyntaxException) throw new InvalidRegexError(source, describeProblem(e));
      if (e instanceof RE2JSException) throw new InvalidRegexError(source, e.message);
      throw e;
    }
    this.groupTotal = this.re.groupCount();
    this.names = new Array<string>(this.groupTotal + 1).fill("");
    for (const [name, index] of Object.entries(this.re.namedGroups())) this.names[index] = name;
  }

  test(s: string): boolean {
    return this.re.test(s);
  }

  // The RE2 object's find* methods run about three times faster than a Matcher (measured: 167,000 against 56,000
  // submatch searches a second), and they find successive matches as Go's regexp does (an empty match right
  // after a match is skipped), which is what the service, written in Go, does too.
  exec(s: string): (string | undefined)[] | null {
    const m = this.re.re2().findSubmatch(s) as (string | null)[] | null;
    return m === null ? null : m.map((g) => g ?? undefined);
  }

  execAll(s: string): (string | undefined)[][] {
    const all = this.re.re2().findAllSubmatch(s, -1) as (string | null)[][] | null;
    return all === null ? [] : all.map((m) => m.map((g) => g ?? undefined));
  }

  firstIndex(s: string): [start: number, end: number] | null {
    const at = this.re.re2().findIndex(s) as number[] | null;
    return at === null ? null : [at[0], at[1]];
  }

  count(s: string): number {
    const all = this.re.re2().findAll(s, -1) as string[] | null;
    return all === null ? 0 : all.length;
  }

  replaceAll(s: string, replacement: string): string {
    const all = this.re.re2().findAllSubmatchIndex(s, -1) as number[][] | null;
    if (all === null) return s;
    let out = "";
    let last = 0;
    for (const at of all) {
      out += s.slice(last, at[0]) + this.expand(replacement, s, at);
      last = at[1];
    }
    return out + s.slice(last);
  }

  split(s: string): string[] {
    const all = this.re.re2().findAllIndex(s, -1) as number[][] | null;
    const out: string[] = [];
    let last = 0;
    for (const [start, end] of all ?? []) {
      // An empty match at the very start or end splits nothing off, as in JavaScript's split.
      if (end === start && (start === 0 || start === s.length)) continue;
      out.push(s.slice(last, start));
      last = end;
    }
    out.push(s.slice(last));
    return out;
  }

  groupNames(): string[] {
    return [...this.names];
  }

  groupCount(): number {
    return this.groupTotal;
  }

  /** The replacement text for one match (syntax in Regex.replaceAll's comment). */
  private expand(replacement: string, s: string, at: number[]): string {
    /** Group `index`'s text in this match; "" when it took no part. */
    const group = (index: number): string =>
      at[2 * index] < 0 ? "" : s.slice(at[2 * index], at[2 * index + 1]);
    let out = "";
    for (let i = 0; i < replacement.length; i++) {
      const c = replacement[i];
      const next = replacement[i + 1];
      if ((c === "$" || c === "\\") && next !== undefined && next >= "0" && next <= "9") {
        const index = Number(next);
        out += index <= this.groupTotal ? group(index) : "";
        i++;
      } else if (c === "$" && next === "{") {
        const close = replacement.indexOf("}", i + 2);
        const ref = close < 0 ? "" : replacement.slice(i + 2, close);
        const index = /^\d+$/.test(ref) ? Number(ref) : this.names.indexOf(ref);
        if (close < 0 || index < 0 || index > this.groupTotal || ref === "") {
          out += c;
          continue;
        }
        out += group(index);
        i = close;
      } else if ((c === "$" && next === "$") || (c === "\\" && next === "\\")) {
        out += c;
        i++;
      } else {
        out += c;
      }
    }
    return out;
  }
}
