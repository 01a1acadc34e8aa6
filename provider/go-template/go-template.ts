/**
 * Go's text/template, as much of it as a custom webhook body uses (axiomhq/docs
 * `monitor-data/custom-webhook-notifier.mdx` points to pkg.go.dev/text/template for the syntax; the semantics
 * below are that package's documented ones):
 * - text and actions `{{pipeline}}`, trim markers `{{- ` and ` -}}`, comments `{{/* … *\/}}`;
 * - arguments: `.`, fields and chains `.A.B`, `$`, variables `$x` (`:=` declares, `=` assigns; scoped to the
 *   enclosing if/with/range), parenthesized pipelines `(…).F`, and Go literals (strings, raw strings, runes,
 *   ints, floats, true, false, nil); pipelines `a | f b` pass the value on as the last argument;
 * - `if`/`else if`/`else`, `with`/`else with`/`else`, `range` (slices, maps in key order, ints) with `$i, $e :=`,
 *   `else`, `break`, `continue`; `define`/`template`/`block`;
 * - the builtins and, or, not, len, index, slice, print, printf, println, html, js, urlquery, eq, ne, lt, le,
 *   gt, ge, plus the service's jsonObject and jsonArray; methods of time.Time: String, Format, Unix, UnixMilli,
 *   UnixMicro, UnixNano, UTC, IsZero, Year, Day, Hour, Minute, Second, Nanosecond, YearDay (not Month and
 *   Weekday, whose named types print as names but compare as ints).
 * Truth: false, 0, nil, and empty strings, slices and maps are false. A missing map key yields `<no value>`; a
 * missing struct field is an error (`can't evaluate field X in type T`). Comparisons follow Go: ints compare with
 * ints and floats with floats, so `gt .Value 100` (a float64 against an int constant) is Go's error
 * `incompatible types for comparison`, exactly as the service would fail it, and `gt .Value 100.0` works.
 * Errors are Go's: `template: NAME:LINE: msg` when parsing, `template: NAME:LINE:COL: executing "NAME" at <…>:
 * msg` when executing.
 */
import {
  GoNil,
  GoStruct,
  GoTime,
  ValueTooLarge,
  formatGoTime,
  formatValue,
  goSprint,
  goSprintf,
  goSprintln,
  goTypeName,
  isGoMap,
  type GoMap,
  type GoValue,
} from "./go-fmt";

/** A parse or execution error, its message in Go's form. */
export class TemplateError extends Error {
  constructor(
    message: string,
    readonly phase: "parse" | "exec",
    /** Which of the emulator's bounds stopped the render (see {@link RenderLimits}), when one did. */
    readonly limit?: LimitName,
  ) {
    super(message);
    this.name = "TemplateError";
  }
}

/** The bounds a render can pass. */
export type LimitName = "output" | "value" | "values" | "time" | "steps" | "depth" | "source";

/**
 * The bounds of one render: ours, since Go's text/template has none and the service publishes none (docs/emulator.md,
 * "Custom webhook templates: our bounds", gives the reason for each). A notification's body is a few hundred bytes:
 * each bound is far above what it needs and far below what would hurt the emulator.
 */
export interface RenderLimits {
  /** The most the output may hold, in UTF-8 bytes, checked at every write. */
  maxOutputBytes: number;
  /** The most one value a template makes may hold (a function's result, a literal), in UTF-8 bytes. */
  maxValueBytes: number;
  /** The most characters all the values one render makes may hold together (in UTF-16 code units, what memory
   * holds, one or two bytes each): what bounds its memory, variables included. */
  maxTotalChars: number;
  /** The most actions, texts and iterations one render may walk. */
  maxSteps: number;
  /** How long one render may take, in ms of {@link RenderLimits.now}. */
  budgetMs: number;
  /** The clock the budget is read on, in ms (performance.now); tests pass their own, so that none depends on the
   * machine's speed. */
  now: () => number;
}

const MiB = 1 << 20;

/** The emulator's bounds. */
export const RENDER_LIMITS: Readonly<RenderLimits> = Object.freeze({
  maxOutputBytes: MiB,
  maxValueBytes: MiB,
  maxTotalChars: 16 * MiB,
  maxSteps: 1_000_000,
  budgetMs: 100,
  now: () => performance.now(),
});

/**
 * The most one template's source may hold, in UTF-8 bytes: ours (Go has no bound, the service publishes none). A
 * webhook body is a small JSON document of a few hundred bytes; 64 KiB is a hundred times that, and
 * keeps parsing, which the emulator does when a notifier is saved and `pulumi preview` does when it checks one, to
 * milliseconds: its work grows with the source (a request may carry 32 MiB, and 10 MB in one action took 14 s).
 * Checked before anything is parsed, and before a source is kept in a cache.
 */
export const MAX_SOURCE_BYTES = 64 * 1024;

/** Why `source` is past {@link MAX_SOURCE_BYTES}, or undefined when it is within it. Linear, and reads no further
 * than the bound: a string longer than the bound in UTF-16 units is longer in UTF-8 bytes. */
export function sourceTooLarge(source: string): string | undefined {
  if (source.length <= MAX_SOURCE_BYTES / 3) return undefined;
  if (source.length <= MAX_SOURCE_BYTES && Buffer.byteLength(source, "utf8") <= MAX_SOURCE_BYTES)
    return undefined;
  return `the template's source passed the emulator's limit of ${bytesText(MAX_SOURCE_BYTES)} of UTF-8`;
}

/** The most actions (and comments) one template's source may hold: ours, so that parsing one, which the emulator
 * does when a notifier is saved, stays small: its time and memory grow with the actions, and 13,000 `{{.}}` fit
 * in {@link MAX_SOURCE_BYTES}. A notification's template has tens; Go has no bound. */
export const MAX_ACTIONS = 10_000;

/** How deep actions may nest in the source ((…), if, with, range, block, define): ours, so that neither parsing
 * nor running a template recurses deeper than the JavaScript stack allows (Go bounds parentheses at 10000, "max
 * expression depth exceeded", and controls not at all). */
export const MAX_NESTING = 100;

// ---------------------------------------------------------------------------------------------------------------
// Syntax tree

type Arg =
  | { t: "dot"; pos: number }
  | { t: "field"; chain: string[]; pos: number }
  | { t: "var"; name: string; chain: string[]; pos: number }
  | { t: "ident"; name: string; pos: number }
  | { t: "string"; value: string; pos: number }
  | { t: "number"; value: number | bigint; pos: number }
  | { t: "bool"; value: boolean; pos: number }
  | { t: "nil"; pos: number }
  | { t: "pipe"; pipe: Pipe; chain: string[]; pos: number };

interface Command {
  args: Arg[];
  pos: number;
  text: string;
}

interface Pipe {
  decl: string[];
  isAssign: boolean;
  cmds: Command[];
  pos: number;
  text: string;
}

interface ControlNode {
  t: "if" | "with" | "range";
  pipe: Pipe;
  list: Node[];
  elseList?: Node[];
  pos: number;
}

type Node =
  | { t: "text"; text: string }
  | { t: "action"; pipe: Pipe; pos: number }
  | ControlNode
  | { t: "break" | "continue"; pos: number }
  | { t: "template"; name: string; pipe?: Pipe; pos: number };

// ---------------------------------------------------------------------------------------------------------------
// Lexing of one action's inside

type Tok = (
  | { k: "field"; v: string; pos: number; spaced: boolean }
  | { k: "var"; v: string; pos: number; spaced: boolean }
  | { k: "ident"; v: string; pos: number; spaced: boolean }
  | { k: "string"; v: string; pos: number; spaced: boolean }
  | { k: "char"; v: bigint; pos: number; spaced: boolean }
  | { k: "number"; v: number | bigint; pos: number; spaced: boolean }
  | { k: "dot" | "(" | ")" | "|" | ":=" | "=" | ","; v: string; pos: number; spaced: boolean }
) & {
  /** Where the token ends in the source, for the text an error quotes (set once it is lexed). */
  end?: number;
};

const KEYWORDS = new Set([
  "if",
  "else",
  "end",
  "range",
  "with",
  "define",
  "template",
  "block",
  "break",
  "continue",
]);

/** Go's interpreted-string escapes (\n \t \" \\ \xHH \uHHHH \UHHHHHHHH \NNN …); null when malformed. One pass:
 * plain runs are copied whole and each escape is read with charCode arithmetic (a regular expression built per
 * `\x` escape and a character appended at a time took 7 s for 7 MB of `\x41`). */
function unquoteGo(body: string): string | null {
  const parts: string[] = [];
  let run = 0;
  let i = 0;
  while (i < body.length) {
    const slash = body.indexOf("\\", i);
    if (slash < 0) break;
    if (slash > run) parts.push(body.slice(run, slash));
    const n = body[slash + 1];
    const simple = SIMPLE_ESCAPES.get(n);
    if (simple !== undefined) {
      parts.push(simple);
      i = slash + 2;
    } else if (n === "x" || n === "u" || n === "U") {
      const len = n === "x" ? 2 : n === "u" ? 4 : 8;
      const code = digitsAt(body, slash + 2, len, 16);
      // Go refuses a code point past U+10FFFF or a surrogate (strconv.UnquoteChar), as \U00110000 would throw here.
      if (code < 0 || (n !== "x" && (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)))) return null;
      parts.push(String.fromCodePoint(code));
      i = slash + 2 + len;
    } else if (n !== undefined && n >= "0" && n <= "7") {
      const code = digitsAt(body, slash + 1, 3, 8);
      if (code < 0 || code > 255) return null;
      parts.push(String.fromCharCode(code));
      i = slash + 4;
    } else return null;
    run = i;
  }
  if (run === 0) return body;
  parts.push(body.slice(run));
  return parts.join("");
}

const SIMPLE_ESCAPES: ReadonlyMap<string, string> = new Map([
  ["a", "\x07"],
  ["b", "\b"],
  ["f", "\f"],
  ["n", "\n"],
  ["r", "\r"],
  ["t", "\t"],
  ["v", "\v"],
  ["\\", "\\"],
  ['"', '"'],
  ["'", "'"],
]);

/** The value of the `len` digits in `radix` at `s[at]`; -1 unless all `len` are there and digits of it. */
function digitsAt(s: string, at: number, len: number, radix: 8 | 16): number {
  if (at + len > s.length) return -1;
  let v = 0;
  for (let k = at; k < at + len; k++) {
    const c = s.charCodeAt(k);
    const d =
      c >= 48 && c <= 57 ? c - 48 : radix === 16 && (c | 32) >= 97 && (c | 32) <= 102 ? (c | 32) - 87 : -1;
    if (d < 0 || d >= radix) return -1;
    v = v * radix + d;
  }
  return v;
}

/** A Go number literal: ints (decimal, 0x, 0o, 0b, with `_`), floats, a rune; null when malformed. */
function parseGoNumber(text: string): number | bigint | null {
  const clean = text.replace(/_/g, "");
  if (/^[+-]?(0[xX][0-9a-fA-F]+|0[oO]?[0-7]+|0[bB][01]+|[1-9][0-9]*|0)$/.test(clean)) {
    const neg = clean.startsWith("-");
    let body = clean.replace(/^[+-]/, "");
    if (/^0[0-7]+$/.test(body)) body = "0o" + body.slice(1);
    const v = BigInt(body);
    return neg ? -v : v;
  }
  if (/^[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?)$/.test(clean)) return Number(clean);
  return null;
}

// ---------------------------------------------------------------------------------------------------------------
// Parsing

/** A parsed template: its named templates (the main one is the name given), ready to execute. */
export class GoTemplate {
  private constructor(
    readonly name: string,
    private readonly source: string,
    private readonly trees: Map<string, Node[]>,
  ) {}

  /** Parses `source`; throws {@link TemplateError} (`template: NAME:LINE: problem`) on a syntax error. */
  static parse(name: string, source: string, funcs: readonly string[] = []): GoTemplate {
    const tooLarge = sourceTooLarge(source);
    if (tooLarge) throw new TemplateError(`template: ${name}: ${tooLarge}`, "parse", "source");
    const trees = new Map<string, Node[]>();
    const parser = new Parser(name, source, new Set([...BUILTIN_NAMES, ...funcs]), trees);
    trees.set(name, parser.parseTop());
    return new GoTemplate(name, source, trees);
  }

  /**
   * Executes with `data` as dot; throws {@link TemplateError} on an execution error, and on passing one of the
   * `limits` (the emulator's {@link RENDER_LIMITS} unless given), its `limit` naming which.
   */
  execute(
    data: GoValue,
    funcs: Readonly<Record<string, TemplateFunc>> = {},
    limits: Partial<RenderLimits> = {},
  ): string {
    const exec = new Executor(
      this.name,
      this.source,
      this.trees,
      { ...BUILTINS, ...funcs },
      { ...RENDER_LIMITS, ...limits },
    );
    return exec.run(data);
  }
}

/** What a function may know of the render calling it: the most characters its result may hold (it throws
 * {@link ValueTooLarge} rather than build more), and the render's work counter, which a function looping over its
 * arguments calls as it goes (`units`: one per argument, one more per 64 characters it reads), so that the time
 * budget is checked inside a call of 30,000 arguments, not only before it. */
export interface CallContext {
  maxChars: number;
  charge: (units: number) => void;
}

/** A function a template can call. Arguments are evaluated values; throw an Error to fail the call. */
export type TemplateFunc = (args: GoValue[], ctx: CallContext) => GoValue;

function lineOf(source: string, pos: number): number {
  let line = 1;
  for (let i = 0; i < pos && i < source.length; i++) if (source[i] === "\n") line++;
  return line;
}

/** `s` without its trailing spaces, tabs and newlines. A loop: `/[ \t\r\n]+$/` retries from every space of a
 * run that does not end the text: quadratic in the run's length. */
function trimSpaceEnd(s: string): string {
  let end = s.length;
  while (end > 0 && " \t\r\n".includes(s[end - 1])) end--;
  return s.slice(0, end);
}

/** The variables in scope while parsing, innermost last (`$` always): a stack, and a count of each name, so that
 * whether one is declared is a lookup (a scan of the stack for each use: 2,400 variables and 9,000 uses took 33 ms). */
class Scope {
  private readonly names: string[] = ["$"];
  private readonly counts = new Map<string, number>([["$", 1]]);

  get size(): number {
    return this.names.length;
  }

  has(name: string): boolean {
    return this.counts.has(name);
  }

  declare(name: string): void {
    this.names.push(name);
    this.counts.set(name, (this.counts.get(name) ?? 0) + 1);
  }

  /** Ends the scopes opened since the stack was `size` deep. */
  truncate(size: number): void {
    while (this.names.length > size) {
      const name = this.names.pop()!;
      const n = this.counts.get(name)! - 1;
      if (n === 0) this.counts.delete(name);
      else this.counts.set(name, n);
    }
  }
}

class Parser {
  private pos = 0;
  /** How deep the actions being parsed nest; bounded by {@link MAX_NESTING}. */
  private nesting = 0;
  /** Actions and comments read so far; bounded by {@link MAX_ACTIONS}. */
  private actions = 0;
  /** Variables in scope, innermost last; `$` is always there. */
  private vars = new Scope();
  private rangeDepth = 0;

  constructor(
    private readonly name: string,
    private readonly src: string,
    private readonly funcs: ReadonlySet<string>,
    private readonly trees: Map<string, Node[]>,
  ) {}

  private fail(pos: number, msg: string): never {
    throw new TemplateError(`template: ${this.name}:${lineOf(this.src, pos)}: ${msg}`, "parse");
  }

  /** Runs `f` one level deeper, failing past {@link MAX_NESTING} levels. */
  private nested<T>(pos: number, f: () => T): T {
    if (++this.nesting > MAX_NESTING)
      this.fail(pos, `actions nest deeper than the emulator's limit of ${MAX_NESTING}`);
    try {
      return f();
    } finally {
      this.nesting--;
    }
  }

  parseTop(): Node[] {
    const { list, end } = this.parseList();
    if (end) this.fail(end.pos, `unexpected {{${end.kw}}}`);
    return list;
  }

  /** Reads text and actions up to `{{end}}`, `{{else …}}` or the end of input. */
  private parseList(): { list: Node[]; end?: { kw: "end" | "else"; pos: number; rest: Tok[] } } {
    const list: Node[] = [];
    while (this.pos < this.src.length) {
      const open = this.src.indexOf("{{", this.pos);
      let text = this.src.slice(this.pos, open < 0 ? undefined : open);
      if (open < 0) {
        if (text) list.push({ t: "text", text });
        this.pos = this.src.length;
        break;
      }
      if (++this.actions > MAX_ACTIONS)
        this.fail(open, `the template holds more than the emulator's limit of ${MAX_ACTIONS} actions`);
      const trimLeft = /^\{\{-[ \t\r\n]/.test(this.src.slice(open, open + 4));
      if (trimLeft) text = trimSpaceEnd(text);
      if (text) list.push({ t: "text", text });
      const innerStart = open + (trimLeft ? 3 : 2);
      const { inner, after, trimRight, innerPos } = this.readAction(open, innerStart);
      this.pos = after;
      if (trimRight) {
        const m = /^[ \t\r\n]*/.exec(this.src.slice(this.pos))!;
        this.pos += m[0].length;
      }
      if (inner === null) continue; // a comment
      const toks = this.lex(inner, innerPos);
      if (toks.length === 0) this.fail(open, "missing value for command");
      const first = toks[0];
      if (first.k === "ident" && KEYWORDS.has(first.v)) {
        const kw = first.v;
        const rest = toks.slice(1);
        if (kw === "end") {
          if (rest.length) this.fail(open, `unexpected ${this.describe(rest[0])} in end`);
          return { list, end: { kw: "end", pos: open, rest } };
        }
        if (kw === "else") return { list, end: { kw: "else", pos: open, rest } };
        if (kw === "if" || kw === "with" || kw === "range") {
          list.push(this.nested(open, () => this.parseControl(kw, rest, open)));
          continue;
        }
        if (kw === "break" || kw === "continue") {
          if (this.rangeDepth === 0) this.fail(open, `{{${kw}}} outside {{range}}`);
          if (rest.length) this.fail(open, `unexpected ${this.describe(rest[0])} in {{${kw}}}`);
          list.push({ t: kw, pos: open });
          continue;
        }
        if (kw === "template" || kw === "block" || kw === "define") {
          const nameTok = rest[0];
          if (!nameTok || nameTok.k !== "string")
            this.fail(
              open,
              `unexpected ${nameTok ? this.describe(nameTok) : "end of action"} in ${kw} clause`,
            );
          const pipe = rest.length > 1 ? this.parsePipe(rest.slice(1), kw) : undefined;
          if (kw === "template") {
            list.push({ t: "template", name: nameTok.v, pipe, pos: open });
            continue;
          }
          // define and block: the body up to {{end}}, a template of its own; block also runs it here.
          const saved = this.vars;
          this.vars = new Scope();
          const body = this.nested(open, () => this.parseList());
          this.vars = saved;
          if (!body.end || body.end.kw !== "end")
            this.fail(body.end?.pos ?? this.src.length, "unexpected EOF");
          if (kw === "define" && pipe) this.fail(open, "unexpected pipeline in define clause");
          this.trees.set(nameTok.v, body.list);
          if (kw === "block") list.push({ t: "template", name: nameTok.v, pipe, pos: open });
          continue;
        }
      }
      list.push({ t: "action", pipe: this.parsePipe(toks, "command"), pos: open });
    }
    return { list };
  }

  /** Finds the action's closing delimiter, skipping quoted strings; a comment answers inner null. */
  private readAction(open: number, start: number) {
    let i = start;
    while (i < this.src.length && /[ \t\r\n]/.test(this.src[i])) i++;
    if (this.src.startsWith("/*", i)) {
      const close = this.src.indexOf("*/", i + 2);
      if (close < 0) this.fail(open, "unclosed comment");
      let j = close + 2;
      let trimRight = false;
      if (/^[ \t\r\n]-\}\}/.test(this.src.slice(j, j + 4))) {
        trimRight = true;
        j += 2;
      }
      if (!this.src.startsWith("}}", j)) this.fail(open, "comment ends before closing delimiter");
      return { inner: null, after: j + 2, trimRight, innerPos: start };
    }
    i = start;
    while (i < this.src.length) {
      const c = this.src[i];
      if (c === '"' || c === "'" || c === "`") {
        const close = c === "`" ? this.src.indexOf("`", i + 1) : this.findQuoteEnd(i, c);
        if (close < 0)
          this.fail(i, c === "`" ? "unterminated raw quoted string" : "unterminated quoted string");
        i = close + 1;
        continue;
      }
      if (this.src.startsWith("}}", i)) {
        const trimRight = /[ \t\r\n]-$/.test(this.src.slice(i - 2, i)) && i - 2 >= start;
        const innerEnd = trimRight ? i - 1 : i;
        return { inner: this.src.slice(start, innerEnd), after: i + 2, trimRight, innerPos: start };
      }
      i++;
    }
    return this.fail(open, "unclosed action");
  }

  private findQuoteEnd(start: number, q: string): number {
    for (let i = start + 1; i < this.src.length; i++) {
      if (this.src[i] === "\\") i++;
      else if (this.src[i] === q) return i;
      else if (this.src[i] === "\n") return -1;
    }
    return -1;
  }

  /** A token as Go's parser quotes it in an error: its source text. */
  private describe(t: Tok): string {
    return `"${this.src.slice(t.pos, t.pos + this.tokLen(t))}"`;
  }

  private lex(inner: string, base: number): Tok[] {
    const toks: Tok[] = [];
    let i = 0;
    let spaced = true;
    while (i < inner.length) {
      const pos = base + i;
      const count = toks.length;
      i = this.lexOne(inner, i, pos, spaced, toks);
      if (toks.length > count) {
        toks[toks.length - 1].end = base + i;
        spaced = false;
      } else spaced = true;
    }
    return toks;
  }

  /** Lexes the token at `inner[i]` (whitespace pushes nothing); answers the index after it. */
  private lexOne(inner: string, i: number, pos: number, spaced: boolean, toks: Tok[]): number {
    const c = inner[i];
    if (c === " " || c === "\t" || c === "\r" || c === "\n") return i + 1;
    if (c === "(" || c === ")" || c === "|" || c === ",") {
      toks.push({ k: c, v: c, pos, spaced });
      return i + 1;
    }
    if (c === ":" && inner[i + 1] === "=") {
      toks.push({ k: ":=", v: ":=", pos, spaced });
      return i + 2;
    }
    if (c === "=") {
      toks.push({ k: "=", v: "=", pos, spaced });
      return i + 1;
    }
    if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < inner.length && inner[j] !== c) j += inner[j] === "\\" ? 2 : 1;
      const v = unquoteGo(inner.slice(i + 1, j));
      if (c === '"') {
        if (v === null) this.fail(pos, `invalid syntax in quoted string ${inner.slice(i, j + 1)}`);
        toks.push({ k: "string", v, pos, spaced });
      } else {
        if (v === null || [...v].length !== 1)
          this.fail(pos, `malformed character constant: ${inner.slice(i, j + 1)}`);
        toks.push({ k: "char", v: BigInt(v.codePointAt(0)!), pos, spaced });
      }
      return j + 1;
    }
    if (c === "`") {
      const j = inner.indexOf("`", i + 1);
      toks.push({ k: "string", v: inner.slice(i + 1, j), pos, spaced });
      return j + 1;
    }
    if (c === "$") {
      const m = /^\$[\p{L}_\p{Nd}]*/u.exec(inner.slice(i))!;
      toks.push({ k: "var", v: m[0], pos, spaced });
      return i + m[0].length;
    }
    if (c === "." && !/[0-9]/.test(inner[i + 1] ?? "")) {
      const m = /^\.[\p{L}_][\p{L}_\p{Nd}]*/u.exec(inner.slice(i));
      if (m) {
        toks.push({ k: "field", v: m[0].slice(1), pos, spaced });
        return i + m[0].length;
      }
      toks.push({ k: "dot", v: ".", pos, spaced });
      return i + 1;
    }
    if (/[0-9.+-]/.test(c)) {
      const text = /^[+-]?(0[xXoObB])?[0-9a-fA-F_]*(\.[0-9_]*)?([eEpP][+-]?[0-9_]+)?/.exec(
        inner.slice(i),
      )![0];
      const v = text === "" || text === "+" || text === "-" ? null : parseGoNumber(text);
      if (v === null) this.fail(pos, `bad number syntax: "${text || c}"`);
      toks.push({ k: "number", v, pos, spaced });
      return i + text.length;
    }
    if (/[\p{L}_]/u.test(c)) {
      const m = /^[\p{L}_][\p{L}_\p{Nd}]*/u.exec(inner.slice(i))!;
      toks.push({ k: "ident", v: m[0], pos, spaced });
      return i + m[0].length;
    }
    return this.fail(pos, `unexpected "${c}" in command`);
  }

  /** if/with/range with their else chains, up to the matching {{end}}. */
  private parseControl(kw: "if" | "with" | "range", toks: Tok[], pos: number): Node {
    const savedVars = this.vars.size;
    const pipe = this.parsePipe(toks, kw, kw === "range");
    if (kw === "range") this.rangeDepth++;
    const body = this.parseList();
    if (kw === "range") this.rangeDepth--;
    let elseList: Node[] | undefined;
    if (!body.end) this.fail(this.src.length, "unexpected EOF");
    if (body.end.kw === "else") {
      const rest = body.end.rest;
      if ((kw === "if" || kw === "with") && rest[0]?.k === "ident" && rest[0].v === kw) {
        // `{{else if …}}` is `{{else}}{{if …}}…{{end}}` sharing this control's {{end}}.
        const at = body.end.pos;
        elseList = [this.nested(at, () => this.parseControl(kw, rest.slice(1), at))];
      } else {
        if (rest.length) this.fail(body.end.pos, `unexpected ${this.describe(rest[0])} in else`);
        const e = this.parseList();
        if (!e.end) this.fail(this.src.length, "unexpected EOF");
        if (e.end.kw !== "end") this.fail(e.end.pos, "expected end; found {{else}}");
        elseList = e.list;
      }
    }
    this.vars.truncate(savedVars);
    return { t: kw, pipe, list: body.list, elseList, pos };
  }

  /**
   * For each "(" of an action's tokens, the index of its ")": one pass, so that nested parentheses parse in time
   * linear in the tokens (each level rescanned the tokens inside it, and sliced them: 100 levels around 32,000
   * tokens took 150 ms). Fails as Go's lexer does on a ")" with no "(" and on a "(" left open, and past
   * {@link MAX_NESTING} levels before anything inside is parsed.
   */
  private matchParens(toks: Tok[], startPos: number): Int32Array {
    const match = new Int32Array(toks.length).fill(-1);
    const open: number[] = [];
    for (let k = 0; k < toks.length; k++) {
      const t = toks[k];
      if (t.k === "(") {
        if (open.length + 1 + this.nesting > MAX_NESTING)
          this.fail(t.pos, `actions nest deeper than the emulator's limit of ${MAX_NESTING}`);
        open.push(k);
      } else if (t.k === ")") {
        const o = open.pop();
        if (o === undefined) this.fail(t.pos, "unexpected right paren");
        match[o] = k;
      }
    }
    if (open.length) this.fail(startPos, "unclosed left paren");
    return match;
  }

  /** The pipeline of `toks[lo..hi)`; `match` is {@link matchParens} of `toks`, made here when not given. */
  private parsePipe(
    toks: Tok[],
    context: string,
    isRange = false,
    lo = 0,
    hi = toks.length,
    match?: Int32Array,
  ): Pipe {
    if (hi <= lo) this.fail(this.pos, `missing value for ${context}`);
    const startPos = toks[lo].pos;
    const parens = match ?? this.matchParens(toks, startPos);
    const text = this.src.slice(startPos, toks[hi - 1].pos + this.tokLen(toks[hi - 1])).trim();
    const at = (k: number): Tok | undefined => (k < hi ? toks[k] : undefined);
    let decl: string[] = [];
    let isAssign = false;
    let i = lo;
    // `$x :=`, `$x =`, and in range `$i, $e :=`.
    const first = toks[lo];
    if (first.k === "var") {
      const next = at(lo + 1);
      const second = at(lo + 2);
      if (next?.k === ":=" || next?.k === "=") {
        decl = [first.v];
        isAssign = next.k === "=";
        i = lo + 2;
      } else if (isRange && next?.k === "," && second?.k === "var" && at(lo + 3)?.k === ":=") {
        decl = [first.v, second.v];
        i = lo + 4;
      }
    }
    if (isAssign && !this.vars.has(decl[0])) this.fail(startPos, `undefined variable "${decl[0]}"`);
    if (i >= hi) this.fail(startPos, `missing value for ${context}`);
    const cmds: Command[] = [];
    let start = i;
    for (let k = i; k < hi; k++) {
      const t = toks[k];
      // A parenthesized group holds no "|" of this pipeline: skipped whole, not rescanned at each level.
      if (t.k === "(") k = parens[k];
      else if (t.k === "|") {
        if (k === start) this.fail(t.pos, "missing command");
        cmds.push(this.parseCommand(toks, start, k, parens));
        start = k + 1;
      }
    }
    if (start >= hi) this.fail(startPos, "missing command");
    cmds.push(this.parseCommand(toks, start, hi, parens));
    // Go's checkPipeline: only the first stage may be a plain operand; a later one must take the value passed on.
    cmds.forEach((c, n) => {
      const head = c.args[0].t;
      if (
        n > 0 &&
        (head === "bool" || head === "dot" || head === "nil" || head === "number" || head === "string")
      )
        this.fail(c.pos, `non executable command in pipeline stage ${n + 1}`);
    });
    if (cmds.length === 1 && cmds[0].args.length === 1 && cmds[0].args[0].t === "nil")
      this.fail(startPos, "nil is not a command");
    if (!isAssign) for (const d of decl) this.vars.declare(d);
    return { decl, isAssign, cmds, pos: startPos, text };
  }

  private tokLen(t: Tok): number {
    return (t.end ?? t.pos + 1) - t.pos;
  }

  /** The command of `toks[lo..hi)`, its parentheses matched by `parens`. */
  private parseCommand(toks: Tok[], lo: number, hi: number, parens: Int32Array): Command {
    const args: Arg[] = [];
    let i = lo;
    const pos = toks[lo].pos;
    const last = toks[hi - 1];
    const text = this.src.slice(pos, last.pos + this.tokLen(last));
    while (i < hi) {
      const t = toks[i];
      if (i > lo && !t.spaced && t.k !== "field" && t.k !== ")")
        this.fail(t.pos, `unexpected ${this.describe(t)} in operand`);
      let arg: Arg;
      i++;
      switch (t.k) {
        case "dot":
          arg = { t: "dot", pos: t.pos };
          break;
        case "field":
          arg = { t: "field", chain: [t.v], pos: t.pos };
          break;
        case "var":
          if (!this.vars.has(t.v)) this.fail(t.pos, `undefined variable "${t.v}"`);
          arg = { t: "var", name: t.v, chain: [], pos: t.pos };
          break;
        case "string":
          arg = { t: "string", value: t.v, pos: t.pos };
          break;
        case "char":
          arg = { t: "number", value: t.v, pos: t.pos };
          break;
        case "number":
          arg = { t: "number", value: t.v, pos: t.pos };
          break;
        case "ident":
          if (t.v === "true" || t.v === "false") arg = { t: "bool", value: t.v === "true", pos: t.pos };
          else if (t.v === "nil") arg = { t: "nil", pos: t.pos };
          else if (KEYWORDS.has(t.v)) this.fail(t.pos, `unexpected <${t.v}> in command`);
          else if (!this.funcs.has(t.v)) this.fail(t.pos, `function "${t.v}" not defined`);
          else arg = { t: "ident", name: t.v, pos: t.pos };
          break;
        case "(": {
          const from = i;
          const to = parens[i - 1];
          if (to === from) this.fail(t.pos, "missing value for parenthesized pipeline");
          arg = {
            t: "pipe",
            pipe: this.nested(t.pos, () =>
              this.parsePipe(toks, "parenthesized pipeline", false, from, to, parens),
            ),
            chain: [],
            pos: t.pos,
          };
          i = to + 1;
          break;
        }
        default:
          this.fail(t.pos, `unexpected "${t.v}" in operand`);
      }
      // Fields written right after an operand (`$x.A`, `(…).A`, `.A.B`) chain onto it.
      while (i < hi && toks[i].k === "field" && !toks[i].spaced) {
        const f = toks[i].v as string;
        if (arg.t === "field" || arg.t === "var" || arg.t === "pipe") arg.chain.push(f);
        else if (arg.t === "dot") arg = { t: "field", chain: [f], pos: arg.pos };
        else this.fail(toks[i].pos, `unexpected . after term "${this.src.slice(arg.pos, toks[i].pos)}"`);
        i++;
      }
      args.push(arg);
    }
    if (args.length > 1 && args[0].t !== "ident" && args[0].t !== "field" && args[0].t !== "var")
      this.fail(
        pos,
        `can't give argument to non-function ${this.src.slice(args[0].pos, args[1].pos).trim()}`,
      );
    return { args, pos, text };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Execution

class BreakSignal {}
class ContinueSignal {}

/** Go's truth: false, 0, nil, and empty strings, slices and maps are false; structs and times are true. */
export function isTrue(v: GoValue): boolean {
  if (v === undefined || v === null) return false;
  if (typeof v === "boolean") return v;
  if (typeof v === "string") return v.length > 0;
  if (typeof v === "number") return v !== 0;
  if (typeof v === "bigint") return v !== 0n;
  if (v instanceof GoNil) return false;
  if (Array.isArray(v)) return v.length > 0;
  if (isGoMap(v)) {
    // Whether it has a key, without listing them all: `{{if .MatchedEvent}}` in a loop stays cheap.
    for (const key in v) if (Object.hasOwn(v, key)) return true;
    return false;
  }
  return true;
}

/** An error from a builtin or function: reported as `error calling NAME: msg` by the executor. */
class CallError extends Error {}

type Basic = "bool" | "int" | "float" | "string";

function basicKind(v: GoValue): Basic | undefined {
  switch (typeof v) {
    case "boolean":
      return "bool";
    case "bigint":
      return "int";
    case "number":
      return "float";
    case "string":
      return "string";
  }
  return undefined;
}

function eqValues(a: GoValue, b: GoValue): boolean {
  const ka = basicKind(a);
  const kb = basicKind(b);
  if (ka && kb) {
    if (ka !== kb) throw new CallError("incompatible types for comparison");
    return a === b;
  }
  // Go's eq: nil (an invalid value) equals nil and a nil slice or map, and is unequal to anything else; no error.
  const isNil = (v: GoValue) => v === null || v === undefined || v instanceof GoNil;
  if (a === null || a === undefined || b === null || b === undefined) return isNil(a) && isNil(b);
  if (a instanceof GoTime && b instanceof GoTime) return a.ns === b.ns;
  if (Array.isArray(a) || isGoMap(a) || a instanceof GoNil)
    throw new CallError(`non-comparable type ${brief(a)}: ${goTypeName(a)}`);
  throw new CallError("incompatible types for comparison");
}

function ltValues(a: GoValue, b: GoValue): boolean {
  const ka = basicKind(a);
  const kb = basicKind(b);
  if (!ka || ka === "bool") throw new CallError(`invalid type for comparison`);
  if (!kb || kb === "bool") throw new CallError(`invalid type for comparison`);
  if (ka !== kb) throw new CallError("incompatible types for comparison");
  return (a as number) < (b as number);
}

function want(name: string, args: GoValue[], n: number): void {
  if (args.length !== n)
    throw new CallError(`wrong number of args for ${name}: want ${n} got ${args.length}`);
}

function lengthOf(v: GoValue): bigint {
  if (typeof v === "string") return BigInt(Buffer.byteLength(v, "utf8"));
  if (Array.isArray(v)) return BigInt(v.length);
  if (v instanceof GoNil) return 0n;
  if (isGoMap(v)) return BigInt(Object.keys(v).length);
  throw new CallError(`len of type ${goTypeName(v)}`);
}

function toIndex(v: GoValue): number {
  if (typeof v !== "bigint") throw new CallError(`cannot index slice/array with type ${goTypeName(v)}`);
  return Number(v);
}

function indexValue(item: GoValue, indexes: GoValue[]): GoValue {
  let cur = item;
  for (const ix of indexes) {
    if (cur === undefined || cur === null) throw new CallError("index of untyped nil");
    if (typeof cur === "string") {
      const i = toIndex(ix);
      // Byte i lies within the first i + 1 characters (each is one byte or more): encode those (and one more, not
      // to split a surrogate pair), not the whole string at every call of a loop over it.
      const bytes = Buffer.from(i >= 0 && cur.length > i + 2 ? cur.slice(0, i + 2) : cur, "utf8");
      if (i < 0 || i >= bytes.length) throw new CallError(`index out of range: ${i}`);
      cur = BigInt(bytes[i]);
    } else if (Array.isArray(cur) || (cur instanceof GoNil && cur.kind === "slice")) {
      const arr = Array.isArray(cur) ? cur : [];
      const i = toIndex(ix);
      if (i < 0 || i >= arr.length) throw new CallError(`index out of range: ${i}`);
      cur = arr[i];
    } else if (isGoMap(cur) || (cur instanceof GoNil && cur.kind === "map")) {
      if (typeof ix !== "string") throw new CallError(`value has type ${goTypeName(ix)}; should be string`);
      // A missing key yields the element's zero value: for interface{} that is nil, printed `<no value>`.
      cur = isGoMap(cur) && Object.hasOwn(cur, ix) ? cur[ix] : undefined;
    } else throw new CallError(`can't index item of type ${goTypeName(cur)}`);
  }
  return cur;
}

/** The escapers' argument rule: one string operand as it is, anything else fmt.Sprint of all. */
function evalArgsString(args: GoValue[], max: number): string {
  if (args.length === 1 && typeof args[0] === "string") return args[0];
  return goSprint(args, max);
}

/** An escaper's result, refused past `max` characters (an escape writes up to six for one). */
function bounded(s: string, max: number): string {
  if (s.length > max) throw new ValueTooLarge(max);
  return s;
}

/** text/template's HTMLEscapeString: & ' < > " and NUL. */
export function htmlEscape(s: string): string {
  return s.replace(/[&'<>"\0]/g, (c) =>
    c === "&"
      ? "&amp;"
      : c === "'"
        ? "&#39;"
        : c === "<"
          ? "&lt;"
          : c === ">"
            ? "&gt;"
            : c === '"'
              ? "&#34;"
              : "\uFFFD",
  );
}

/** text/template's JSEscapeString: quotes and backslash escaped, < > & = and controls as \uXXXX. One regular
 * expression pass: a character at a time with `+=` built a rope of a million pieces for a 1 MiB value. */
export function jsEscape(s: string): string {
  // eslint-disable-next-line no-control-regex -- escaping the control characters is the point.
  return s.replace(/[\\'"<>&=\x00-\x1f]/g, (ch) =>
    ch === "\\" || ch === "'" || ch === '"'
      ? "\\" + ch
      : "\\u" + ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0"),
  );
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Go's url.QueryEscape: space as `+`, unreserved characters kept, the rest percent-encoded. */
export function queryEscape(s: string): string {
  // A lone surrogate (JSON may hold one) is U+FFFD, as Go's decoder makes it, not encodeURIComponent's URIError.
  return encodeURIComponent(s.replace(LONE_SURROGATE, "\uFFFD"))
    .replace(/[!'()*]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase())
    .replace(/%20/g, "+");
}

const BUILTINS: Record<string, TemplateFunc> = {
  len: (a) => (want("len", a, 1), lengthOf(a[0])),
  index: (a) => {
    if (a.length < 1) throw new CallError("wrong number of args for index: want at least 1 got 0");
    return indexValue(a[0], a.slice(1));
  },
  slice: (a) => {
    if (a.length < 1) throw new CallError("wrong number of args for slice: want at least 1 got 0");
    const [item, ...ix] = a;
    if (ix.length > 2) throw new CallError(`too many slice indexes: ${ix.length}`);
    const idx = ix.map(toIndex);
    if (typeof item === "string") {
      const bytes = Buffer.from(item, "utf8");
      const lo = idx[0] ?? 0;
      const hi = idx[1] ?? bytes.length;
      if (lo < 0 || hi > bytes.length || lo > hi) throw new CallError(`index out of range: ${hi}`);
      return bytes.subarray(lo, hi).toString("utf8");
    }
    if (Array.isArray(item)) {
      const lo = idx[0] ?? 0;
      const hi = idx[1] ?? item.length;
      if (lo < 0 || hi > item.length || lo > hi) throw new CallError(`index out of range: ${hi}`);
      return item.slice(lo, hi);
    }
    throw new CallError(`can't slice item of type ${goTypeName(item)}`);
  },
  not: (a) => (want("not", a, 1), !isTrue(a[0])),
  print: (a, ctx) => goSprint(a, ctx.maxChars, operandTick(ctx)),
  println: (a, ctx) => goSprintln(a, ctx.maxChars, operandTick(ctx)),
  printf: (a, ctx) => {
    if (a.length < 1 || typeof a[0] !== "string")
      throw new CallError(
        a.length < 1
          ? "wrong number of args for printf: want at least 1 got 0"
          : `wrong type for value; expected string; got ${goTypeName(a[0])}`,
      );
    return goSprintf(a[0], a.slice(1), ctx.maxChars, operandTick(ctx));
  },
  html: (a, ctx) => bounded(htmlEscape(evalArgsString(a, ctx.maxChars)), ctx.maxChars),
  js: (a, ctx) => bounded(jsEscape(evalArgsString(a, ctx.maxChars)), ctx.maxChars),
  urlquery: (a, ctx) => bounded(queryEscape(evalArgsString(a, ctx.maxChars)), ctx.maxChars),
  eq: (a, ctx) => {
    if (a.length < 2) throw new CallError("missing argument for comparison");
    // Each comparison may read a whole string (two 1 MiB values that differ at the end): paid as it is made.
    const first = sizeOf(a[0]);
    for (let i = 1; i < a.length; i++) {
      ctx.charge(1 + Math.min(first, sizeOf(a[i])) / 64);
      if (eqValues(a[0], a[i])) return true;
    }
    return false;
  },
  ne: (a) => (want("ne", a, 2), !eqValues(a[0], a[1])),
  lt: (a) => (want("lt", a, 2), ltValues(a[0], a[1])),
  le: (a) => (want("le", a, 2), ltValues(a[0], a[1]) || eqValues(a[0], a[1])),
  gt: (a) => (want("gt", a, 2), !ltValues(a[0], a[1]) && !eqValues(a[0], a[1])),
  ge: (a) => (want("ge", a, 2), !ltValues(a[0], a[1])),
  call: () => {
    throw new CallError("call of non-function: the template's data has no functions");
  },
};

/** What formatting one operand or verb costs: a unit (the characters it makes are paid when the result is accepted). */
function operandTick(ctx: CallContext): () => void {
  return () => ctx.charge(1);
}

/** and/or evaluate lazily (Go 1.18): handled by the executor, listed here so the parser knows them. */
const BUILTIN_NAMES = [...Object.keys(BUILTINS), "and", "or"];

/** Methods of time.Time a template may call. */
function timeMethod(t: GoTime, name: string, args: GoValue[]): GoValue {
  const none = () => {
    if (args.length) throw new CallError(`wrong number of args for ${name}: want 0 got ${args.length}`);
  };
  switch (name) {
    case "String":
      none();
      return t.toString();
    case "Unix":
      none();
      return t.ns / 1_000_000_000n - (t.ns % 1_000_000_000n < 0n ? 1n : 0n);
    case "UnixMilli":
      none();
      return t.ns / 1_000_000n;
    case "UnixNano":
      none();
      return t.ns;
    case "UnixMicro":
      none();
      return t.ns / 1_000n;
    case "UTC":
      none();
      return t;
    case "IsZero":
      none();
      // Go's zero time is year 1; a notification's times are never it.
      return false;
    case "Year":
    case "Day":
    case "Hour":
    case "Minute":
    case "Second":
    case "YearDay": {
      none();
      const layout = { Year: "2006", Day: "2", Hour: "15", Minute: "4", Second: "5", YearDay: "002" }[name];
      return BigInt(Number(formatGoTime(t.ns, layout)));
    }
    case "Nanosecond":
      none();
      return ((t.ns % 1_000_000_000n) + 1_000_000_000n) % 1_000_000_000n;
    case "Format":
      if (args.length !== 1 || typeof args[0] !== "string")
        throw new CallError(`wrong number of args for Format: want 1 got ${args.length}`);
      return formatGoTime(t.ns, args[0]);
  }
  throw new CallError(`can't evaluate field ${name} in type time.Time`);
}

/** The clock is read once this much work has been done since it was last read: a step is one unit, and a
 * function pays one unit per 64 characters it reads or makes. Often enough that the stretch between two readings
 * is a few hundred steps or a few kilobytes; seldom enough that reading the clock is not most of the work. */
const CHECK_EVERY = 256;

/** How deep a render may nest (templates calling templates, and actions within actions): ours, so that running a
 * template recurses no deeper than the JavaScript stack allows. */
const MAX_EXEC_DEPTH = 1000;

/** `n` bytes as the limits' messages say it: in MiB or KiB when whole. */
function bytesText(n: number): string {
  if (n % MiB === 0) return `${n / MiB} MiB (${n} bytes)`;
  return n % 1024 === 0 && n >= 1024 ? `${n / 1024} KiB (${n} bytes)` : `${n} bytes`;
}

/** A value's size as a function reads it: a string's length, a list's or map's count of items. */
function sizeOf(v: GoValue): number {
  if (typeof v === "string") return v.length;
  if (Array.isArray(v)) return v.length;
  return 1;
}

/** Go's error context: the node's text, cut to 20 runes and `...` (parse.Tree.ErrorContext). */
function errorContext(text: string): string {
  const runes = [...text.slice(0, 40)];
  return runes.length > 20 ? runes.slice(0, 20).join("") + "..." : text;
}

/** Where a node is, and the context an error inside it quotes: an action's pipeline, a control's keyword. */
function nodeAt(n: Node): { pos: number; context: string } {
  switch (n.t) {
    case "text":
      return { pos: 0, context: "text" };
    case "action":
      return { pos: n.pipe.pos, context: n.pipe.text };
    case "template":
      return { pos: n.pos, context: `template "${n.name}"` };
    default:
      return { pos: n.pos, context: n.t };
  }
}

/** A value as an error message quotes it: in full as Go does, unless it is long (an error is no place for a
 * megabyte of the data). */
function brief(v: GoValue): string {
  try {
    return formatValue(v, 200);
  } catch (e) {
    if (!(e instanceof ValueTooLarge)) throw e;
    return `<a ${goTypeName(v)} of more than 200 characters>`;
  }
}

class Executor {
  private out = "";
  private outChars = 0;
  /** The output's exact size in UTF-8 bytes, counted once it could be near the bound (-1 until then). */
  private outBytes = -1;
  private steps = 0;
  private vars: { name: string; value: GoValue }[] = [];
  private depth = 0;
  private nesting = 0;
  /** Characters of every value made so far. */
  private made = 0;
  private work = 0;
  private nextCheck = CHECK_EVERY;
  private started = 0;
  private readonly callContext: CallContext;
  /** The node being walked: where a limit passed inside it is reported. */
  private at: Node | Command = { t: "text", text: "" };

  constructor(
    private readonly name: string,
    private readonly src: string,
    private readonly trees: Map<string, Node[]>,
    private readonly funcs: Record<string, TemplateFunc>,
    private readonly limits: RenderLimits,
  ) {
    this.callContext = { maxChars: limits.maxValueBytes, charge: (units) => this.charge(units) };
  }

  run(data: GoValue): string {
    this.vars = [{ name: "$", value: data }];
    this.started = this.limits.now();
    this.walkList(this.trees.get(this.name)!, data);
    return this.out;
  }

  private fail(pos: number, context: string, msg: string, limit?: LimitName): never {
    const before = this.src.slice(0, pos);
    const line = before.split("\n").length;
    const col = pos - (before.lastIndexOf("\n") + 1);
    throw new TemplateError(
      `template: ${this.name}:${line}:${col}: executing "${this.name}" at <${errorContext(context)}>: ${msg}`,
      "exec",
      limit,
    );
  }

  /** Fails at the node being walked, naming the limit it passed. */
  private failLimit(limit: LimitName, msg: string): never {
    const { pos, context } =
      "args" in this.at ? { pos: this.at.pos, context: this.at.text } : nodeAt(this.at);
    return this.fail(pos, context, msg, limit);
  }

  private walkList(list: Node[], dot: GoValue): void {
    for (const n of list) this.walk(n, dot);
  }

  /**
   * Bounds of our own (Go has none): a template that loops for ever, or works without end, must not stall the
   * scheduler or the server; it fails like any execution error. Counted per node walked and per iteration.
   */
  private step(n: Node): void {
    const pos = "pos" in n ? n.pos : 0;
    if (++this.steps > this.limits.maxSteps)
      this.fail(pos, "range", `stopped after ${this.limits.maxSteps} steps (the emulator's limit)`, "steps");
    this.charge(1);
  }

  /** Counts `units` of work, and reads the clock when enough has been done since the last reading. */
  private charge(units: number): void {
    this.work += units;
    if (this.work < this.nextCheck) return;
    this.nextCheck = this.work + CHECK_EVERY;
    if (this.limits.now() - this.started > this.limits.budgetMs)
      this.failLimit("time", `the render passed the emulator's budget of ${this.limits.budgetMs} ms`);
  }

  /** Appends to the output, refusing a write that would take it past its bound (checked at every write, so that
   * one action cannot write past it). */
  private write(s: string): void {
    this.outChars += s.length;
    if (this.outBytes >= 0) this.outBytes += Buffer.byteLength(s, "utf8");
    // A character is at most 3 bytes of UTF-8 (a surrogate pair, two characters, is 4): until the output could be
    // past the bound its bytes need no counting, and from then on each write's are counted.
    else if (this.outChars * 3 > this.limits.maxOutputBytes)
      this.outBytes = Buffer.byteLength(this.out, "utf8") + Buffer.byteLength(s, "utf8");
    if (this.outBytes > this.limits.maxOutputBytes) this.outputTooLarge();
    this.out += s;
    this.charge(s.length / 64);
  }

  private outputTooLarge(): never {
    return this.failLimit(
      "output",
      `the template's output passed the emulator's limit of ${bytesText(this.limits.maxOutputBytes)}`,
    );
  }

  private valueTooLarge(): never {
    return this.failLimit(
      "value",
      `a template value passed the emulator's limit of ${bytesText(this.limits.maxValueBytes)}`,
    );
  }

  /** Accepts a value the template made: within the bound of one value, and of all values together. */
  private accept(v: GoValue): GoValue {
    if (typeof v !== "string") {
      if (Array.isArray(v)) this.charge(v.length / 64);
      return v;
    }
    this.checkSize(v);
    // Counted in characters, what memory holds (one or two bytes each).
    this.made += v.length;
    if (this.made > this.limits.maxTotalChars)
      this.failLimit(
        "values",
        `the template's values passed the emulator's limit of ${this.limits.maxTotalChars} characters in all`,
      );
    this.charge(v.length / 64);
    return v;
  }

  /** A string within the bound of one value, in UTF-8 bytes (counted only when it could be past it). */
  private checkSize(v: string): void {
    if (v.length * 3 <= this.limits.maxValueBytes) return;
    if (v.length > this.limits.maxValueBytes || Buffer.byteLength(v, "utf8") > this.limits.maxValueBytes)
      this.valueTooLarge();
  }

  /** Runs `f` one level deeper, failing past {@link MAX_EXEC_DEPTH}. */
  private nested<T>(f: () => T): T {
    if (++this.nesting > MAX_EXEC_DEPTH)
      this.failLimit("depth", `the render nests deeper than the emulator's limit of ${MAX_EXEC_DEPTH}`);
    try {
      return f();
    } finally {
      this.nesting--;
    }
  }

  private walk(n: Node, dot: GoValue): void {
    this.at = n;
    this.step(n);
    switch (n.t) {
      case "text":
        this.write(n.text);
        return;
      case "action": {
        const v = this.evalPipe(n.pipe, dot);
        this.at = n;
        if (n.pipe.decl.length === 0) this.write(this.printable(v));
        return;
      }
      case "if":
      case "with": {
        const mark = this.vars.length;
        const v = this.evalPipe(n.pipe, dot);
        this.nested(() => {
          if (isTrue(v)) this.walkList(n.list, n.t === "with" ? v : dot);
          else if (n.elseList) this.walkList(n.elseList, dot);
        });
        this.vars.length = mark;
        return;
      }
      case "range":
        return this.nested(() => this.walkRange(n, dot));
      case "break":
        throw new BreakSignal();
      case "continue":
        throw new ContinueSignal();
      case "template": {
        const tree = this.trees.get(n.name);
        if (!tree) this.fail(n.pos, `template "${n.name}"`, `no such template "${n.name}"`);
        if (++this.depth > 1000)
          this.fail(n.pos, `template "${n.name}"`, "exceeded maximum template depth (1000)", "depth");
        const v = n.pipe ? this.evalPipe(n.pipe, dot) : undefined;
        const saved = this.vars;
        this.vars = [{ name: "$", value: v }];
        this.nested(() => this.walkList(tree, v));
        this.vars = saved;
        this.depth--;
        return;
      }
    }
  }

  private printable(v: GoValue): string {
    // A nil interface prints as Go's invalid value: a missing map key and a JSON null read the same.
    if (v === undefined || v === null) return "<no value>";
    try {
      // What is left of the output bounds how much of a value (a large map of the data) is formatted.
      return formatValue(v, this.limits.maxOutputBytes - Math.max(this.outBytes, this.outChars));
    } catch (e) {
      if (e instanceof ValueTooLarge) this.outputTooLarge();
      throw e;
    }
  }

  private walkRange(n: ControlNode, dot: GoValue): void {
    const mark = this.vars.length;
    // Evaluate without declaring: range declares per element.
    const v = this.evalPipe({ ...n.pipe, decl: [] }, dot);
    // Elements are produced one at a time, so `range 1000000000` holds no list (the step budget stops it).
    let items: Iterable<[GoValue, GoValue]>;
    if (Array.isArray(v)) items = v.map((e, i): [GoValue, GoValue] => [BigInt(i), e]);
    else if (isGoMap(v))
      items = Object.keys(v)
        .sort()
        .map((k): [GoValue, GoValue] => [k, v[k]]);
    else if (typeof v === "bigint")
      items = (function* () {
        for (let i = 0n; i < v; i++) yield [i, i] as [GoValue, GoValue];
      })();
    else if (v instanceof GoNil || v === undefined || v === null) items = [];
    else this.fail(n.pipe.pos, n.pipe.text, `range can't iterate over ${brief(v)}`);
    let any = false;
    for (const [k, e] of items) {
      any = true;
      this.at = n;
      this.step(n);
      const inner = this.vars.length;
      if (n.pipe.decl.length === 1)
        this.vars.push({ name: n.pipe.decl[0], value: typeof v === "bigint" ? k : e });
      if (n.pipe.decl.length === 2) {
        this.vars.push({ name: n.pipe.decl[0], value: k });
        this.vars.push({ name: n.pipe.decl[1], value: e });
      }
      try {
        this.walkList(n.list, e);
      } catch (err) {
        if (err instanceof BreakSignal) {
          this.vars.length = inner;
          break;
        }
        if (!(err instanceof ContinueSignal)) throw err;
      }
      this.vars.length = inner;
    }
    if (!any && n.elseList) this.walkList(n.elseList, dot);
    this.vars.length = mark;
  }

  private evalPipe(pipe: Pipe, dot: GoValue): GoValue {
    let value: GoValue = undefined;
    let first = true;
    for (const cmd of pipe.cmds) {
      value = this.evalCommand(cmd, dot, first ? undefined : { v: value });
      first = false;
    }
    if (pipe.decl.length) {
      if (pipe.isAssign) {
        const slot = [...this.vars].reverse().find((x) => x.name === pipe.decl[0])!;
        slot.value = value;
      } else this.vars.push({ name: pipe.decl[0], value });
    }
    return value;
  }

  private lookupVar(name: string): GoValue {
    for (let i = this.vars.length - 1; i >= 0; i--) if (this.vars[i].name === name) return this.vars[i].value;
    return undefined;
  }

  private evalCommand(cmd: Command, dot: GoValue, final?: { v: GoValue }): GoValue {
    const head = cmd.args[0];
    const rest = cmd.args.slice(1);
    if (head.t === "ident") return this.callFunc(head.name, rest, cmd, dot, final);
    if (head.t === "field" || head.t === "var") {
      const base = head.t === "field" ? dot : this.lookupVar(head.name);
      if (head.chain.length === 0) {
        if (rest.length || final)
          this.fail(
            cmd.pos,
            cmd.text,
            `can't give argument to non-function ${head.t === "var" ? head.name : "."}`,
          );
        return base;
      }
      const args = this.evalArgs(rest, dot, cmd);
      if (final) args.push(final.v);
      return this.walkChain(base, head.chain, args, cmd);
    }
    if (rest.length || final) this.fail(cmd.pos, cmd.text, `can't give argument to non-function ${cmd.text}`);
    return this.evalArg(head, dot);
  }

  /** A command's arguments, each counted as work as it is evaluated, so that the time budget is checked while 30,000
   * of them are (it was checked only once all were, 1.9 s for 500,000 before the source was bounded). */
  private evalArgs(argNodes: readonly Arg[], dot: GoValue, cmd: Command): GoValue[] {
    const args: GoValue[] = [];
    for (const a of argNodes) {
      // A budget passed here names this command (an argument's own call may have named itself meanwhile).
      this.at = cmd;
      this.charge(1);
      args.push(this.evalArg(a, dot));
    }
    return args;
  }

  private evalArg(a: Arg, dot: GoValue): GoValue {
    switch (a.t) {
      case "dot":
        return dot;
      case "string":
        // The source's own text: checked against the bound of one value, but not made again at each use.
        this.checkSize(a.value);
        return a.value;
      case "number":
        return a.value;
      case "bool":
        return a.value;
      case "nil":
        return null;
      case "var":
        return a.chain.length
          ? this.walkChain(this.lookupVar(a.name), a.chain, [], a)
          : this.lookupVar(a.name);
      case "field":
        return this.walkChain(dot, a.chain, [], a);
      case "pipe": {
        const mark = this.vars.length;
        const v = this.evalPipe(a.pipe, dot);
        this.vars.length = mark;
        return a.chain.length ? this.walkChain(v, a.chain, [], a) : v;
      }
      case "ident":
        return this.callFunc(a.name, [], { args: [a], pos: a.pos, text: a.name }, dot);
    }
  }

  /** `.A.B.C`: each step a struct field, a map key or a time method; args go to the last step. */
  private walkChain(
    base: GoValue,
    chain: string[],
    args: GoValue[],
    at: { pos: number; text?: string },
  ): GoValue {
    let cur = base;
    const context = at.text ?? this.src.slice(at.pos).match(/^[^\s|)}]*/)![0];
    chain.forEach((name, i) => {
      const last = i === chain.length - 1;
      const callArgs = last ? args : [];
      if (cur instanceof GoTime) {
        try {
          cur = timeMethod(cur, name, callArgs);
        } catch (e) {
          this.fail(at.pos, context, e instanceof CallError ? e.message : String(e));
        }
        // Format's layout is a value of the template's, and its result is one the template makes.
        this.accept(cur);
        return;
      }
      if (callArgs.length)
        this.fail(
          at.pos,
          context,
          cur instanceof GoStruct
            ? `${name} has arguments but cannot be invoked as function`
            : `${name} is not a method but has arguments`,
        );
      if (cur === undefined || cur === null) {
        // A field of nothing is nothing (missingkey=default), as Go answers `.MatchedEvent.x` on a nil map.
        cur = undefined;
        return;
      }
      if (cur instanceof GoStruct) {
        if (!cur.fields.has(name))
          this.fail(at.pos, context, `can't evaluate field ${name} in type ${cur.typeName}`);
        cur = cur.fields.get(name);
        return;
      }
      if (isGoMap(cur)) {
        cur = Object.hasOwn(cur, name) && cur[name] !== null ? cur[name] : undefined;
        return;
      }
      if (cur instanceof GoNil && cur.kind === "map") {
        cur = undefined;
        return;
      }
      this.fail(at.pos, context, `can't evaluate field ${name} in type ${goTypeName(cur)}`);
    });
    return cur;
  }

  private callFunc(
    name: string,
    argNodes: Arg[],
    cmd: Command,
    dot: GoValue,
    final?: { v: GoValue },
  ): GoValue {
    if (name === "and" || name === "or") {
      const n = argNodes.length + (final ? 1 : 0);
      if (n < 1)
        this.fail(
          cmd.pos,
          cmd.text,
          `error calling ${name}: wrong number of args for ${name}: want at least 1 got 0`,
        );
      let v: GoValue = undefined;
      for (let i = 0; i < n; i++) {
        // Each operand is work, whatever it is (`and 1 1 1 …` with 30,000 of them): counted as it is evaluated.
        this.at = cmd;
        this.charge(1);
        v = i < argNodes.length ? this.evalArg(argNodes[i], dot) : final!.v;
        if (name === "and" ? !isTrue(v) : isTrue(v)) return v;
      }
      return v;
    }
    const fn = this.funcs[name];
    if (!fn) this.fail(cmd.pos, cmd.text, `"${name}" is not a defined function`);
    const args = this.evalArgs(argNodes, dot, cmd);
    if (final) args.push(final.v);
    // An invalid value passed to a function becomes the zero of its interface{} parameter: nil.
    let read = 0;
    for (let i = 0; i < args.length; i++) {
      if (args[i] === undefined) args[i] = null;
      read += sizeOf(args[i]);
    }
    this.at = cmd;
    // A function's time grows with what it reads (`len`, `eq`, `slice` of a large value in a loop): paid before.
    this.charge(1 + read / 64);
    let result: GoValue;
    try {
      result = fn(args, this.callContext);
    } catch (e) {
      if (e instanceof TemplateError) throw e;
      if (e instanceof ValueTooLarge) this.valueTooLarge();
      const msg = e instanceof Error ? e.message : String(e);
      return this.fail(cmd.pos, cmd.text, `error calling ${name}: ${msg}`);
    }
    return this.accept(result);
  }
}

export type { GoMap, GoValue };
