/** APL lexer: turns query text into tokens with source offsets. Keywords are left as identifiers. */
import { AplError, positionOf } from "./errors";

/** Token kinds. `punct` covers operators and brackets; `datetime` is the raw text inside `datetime(...)`. */
export type TokenKind = "ident" | "int" | "float" | "timespan" | "string" | "punct" | "datetime" | "eof";

/** One token; `start`/`end` are 0-based offsets into the source. */
export interface Token {
  kind: TokenKind;
  /** Identifier name, punctuation text, decoded string value, or number/timespan text. */
  value: string;
  start: number;
  end: number;
}

const PUNCT = [
  "..",
  "=>",
  "==",
  "!=",
  "<=",
  ">=",
  "<>",
  "=~",
  "!~",
  "|",
  "(",
  ")",
  "[",
  "]",
  ",",
  "=",
  "<",
  ">",
  "+",
  "-",
  "*",
  "/",
  "%",
  ".",
  "!",
  ";",
  ":",
  "{",
  "}",
  "~",
];
/** Timespan literal units (apl/data-types/scalar-data-types.mdx, "Timespan literals"), short and long forms. */
export const TIMESPAN_UNIT_NS: Readonly<Record<string, number>> = {
  w: 7 * 86_400e9,
  d: 86_400e9,
  day: 86_400e9,
  days: 86_400e9,
  h: 3_600e9,
  hr: 3_600e9,
  hrs: 3_600e9,
  hour: 3_600e9,
  hours: 3_600e9,
  m: 60e9,
  min: 60e9,
  minute: 60e9,
  minutes: 60e9,
  s: 1e9,
  sec: 1e9,
  second: 1e9,
  seconds: 1e9,
  ms: 1e6,
  milli: 1e6,
  millis: 1e6,
  millisecond: 1e6,
  milliseconds: 1e6,
  us: 1e3,
  microsecond: 1e3,
  microseconds: 1e3,
  tick: 100,
  ticks: 100,
  ns: 1,
  nanosecond: 1,
  nanoseconds: 1,
};
const TIMESPAN_UNITS = new Set(Object.keys(TIMESPAN_UNIT_NS));

function isIdentStart(c: string): boolean {
  return (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c === "_" || c === "$";
}
function isDigit(c: string): boolean {
  return c >= "0" && c <= "9";
}
function isIdentPart(c: string): boolean {
  return isIdentStart(c) || isDigit(c);
}

const ESCAPES: Record<string, string> = {
  n: "\n",
  t: "\t",
  r: "\r",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "0": "\0",
  "/": "/",
  b: "\b",
  f: "\f",
  v: "\v",
};

/** A quoted string starting at `at` (its quote), with its escapes decoded; `end` is past the closing quote. */
function readString(
  source: string,
  at: number,
  fail: (msg: string, at: number) => never,
): { value: string; end: number } {
  const q = source[at];
  let value = "";
  let i = at + 1;
  for (;;) {
    if (i >= source.length || source[i] === "\n") fail("unterminated string literal", at);
    const ch = source[i];
    if (ch === q) return { value, end: i + 1 };
    if (ch === "\\") {
      const esc = source[i + 1];
      if (esc === "u" && /^[0-9a-fA-F]{4}$/.test(source.slice(i + 2, i + 6))) {
        value += String.fromCharCode(parseInt(source.slice(i + 2, i + 6), 16));
        i += 6;
        continue;
      }
      if (esc === undefined || !(esc in ESCAPES)) fail(`unknown escape sequence '\\${esc ?? ""}'`, i);
      value += ESCAPES[esc];
      i += 2;
      continue;
    }
    value += ch;
    i++;
  }
}

/**
 * Splits `source` into tokens, ending with an `eof` token; throws {@link AplError} at the offending character,
 * or at the first token past `maxTokens` (the parser's size bound: every syntax-tree node takes at least one token).
 */
export function tokenize(source: string, maxTokens = Infinity): Token[] {
  const tokens: Token[] = [];
  const fail = (msg: string, at: number): never => {
    const { line, column } = positionOf(source, at);
    throw new AplError(msg, line, column);
  };
  const push = (t: Token): void => {
    if (tokens.length >= maxTokens) fail(`query is too long: more than ${maxTokens} tokens`, t.start);
    tokens.push(t);
  };
  let i = 0;
  const n = source.length;
  while (i < n) {
    const c = source[i];
    if (c === " " || c === "\t" || c === "\n" || c === "\r") {
      i++;
      continue;
    }
    if (c === "/" && source[i + 1] === "/") {
      while (i < n && source[i] !== "\n") i++;
      continue;
    }
    const start = i;
    // ```multi-line strings``` hold any text up to the closing fence, without escapes.
    if (c === "`" && source.startsWith("```", i)) {
      const close = source.indexOf("```", i + 3);
      if (close < 0) fail("unterminated multi-line string: expected a closing ```", start);
      i = close + 3;
      push({ kind: "string", value: source.slice(start + 3, close), start, end: i });
      continue;
    }
    // @'verbatim' strings take backslashes as written (regexes, Windows paths).
    if (c === "@" && (source[i + 1] === "'" || source[i + 1] === '"')) {
      const q = source[i + 1];
      const close = source.indexOf(q, i + 2);
      const nl = source.indexOf("\n", i + 2);
      if (close < 0 || (nl >= 0 && nl < close)) fail("unterminated verbatim string literal", start);
      i = close + 1;
      push({ kind: "string", value: source.slice(start + 2, close), start, end: i });
      continue;
    }
    // h'obfuscated' and H"obfuscated" strings: the same value; the service hides them in its logs.
    if ((c === "h" || c === "H") && (source[i + 1] === "'" || source[i + 1] === '"')) {
      const str = readString(source, i + 1, fail);
      i = str.end;
      push({ kind: "string", value: str.value, start, end: i });
      continue;
    }
    if (isIdentStart(c)) {
      while (i < n && isIdentPart(source[i])) i++;
      const name = source.slice(start, i);
      push({ kind: "ident", value: name, start, end: i });
      // datetime(...) holds an unquoted timestamp full of '-' and ':' that is no expression; take it raw.
      if (name === "datetime") {
        let j = i;
        while (j < n && (source[j] === " " || source[j] === "\t")) j++;
        if (source[j] === "(") {
          push({ kind: "punct", value: "(", start: j, end: j + 1 });
          const close = source.indexOf(")", j + 1);
          if (close < 0) fail("datetime( is missing its closing ')'", j);
          const raw = source.slice(j + 1, close);
          const lead = raw.length - raw.trimStart().length;
          push({ kind: "datetime", value: raw.trim(), start: j + 1 + lead, end: close });
          push({ kind: "punct", value: ")", start: close, end: close + 1 });
          i = close + 1;
        }
      }
      continue;
    }
    if (isDigit(c)) {
      while (i < n && isDigit(source[i])) i++;
      let kind: TokenKind = "int";
      if (source[i] === "." && isDigit(source[i + 1] ?? "")) {
        kind = "float";
        i++;
        while (i < n && isDigit(source[i])) i++;
      }
      if (
        (source[i] === "e" || source[i] === "E") &&
        (isDigit(source[i + 1] ?? "") ||
          ((source[i + 1] === "-" || source[i + 1] === "+") && isDigit(source[i + 2] ?? "")))
      ) {
        kind = "float";
        i += 2;
        while (i < n && isDigit(source[i])) i++;
      }
      if (i < n && isIdentStart(source[i])) {
        const unitStart = i;
        while (i < n && isIdentPart(source[i])) i++;
        const unit = source.slice(unitStart, i);
        if (!TIMESPAN_UNITS.has(unit)) fail(`unknown timespan unit '${unit}'`, unitStart);
        push({ kind: "timespan", value: source.slice(start, i), start, end: i });
        continue;
      }
      push({ kind, value: source.slice(start, i), start, end: i });
      continue;
    }
    if (c === "'" || c === '"') {
      const str = readString(source, i, fail);
      i = str.end;
      push({ kind: "string", value: str.value, start, end: i });
      continue;
    }
    const p = PUNCT.find((op) => source.startsWith(op, i));
    if (p === undefined)
      fail(`unexpected character '${c}': expected an operator, a name, a number or a string`, i);
    else {
      push({ kind: "punct", value: p, start, end: i + p.length });
      i += p.length;
    }
  }
  tokens.push({ kind: "eof", value: "", start: n, end: n });
  return tokens;
}
