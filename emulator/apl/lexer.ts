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
  "==",
  "!=",
  "<=",
  ">=",
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
];
const TIMESPAN_UNITS = new Set(["d", "h", "m", "s", "ms", "us", "microsecond", "tick", "ns"]);

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
};

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
      let value = "";
      i++;
      for (;;) {
        if (i >= n || source[i] === "\n") fail("unterminated string literal", start);
        const ch = source[i];
        if (ch === c) {
          i++;
          break;
        }
        if (ch === "\\") {
          const esc = source[i + 1];
          if (esc === undefined || !(esc in ESCAPES)) fail(`unknown escape sequence '\\${esc ?? ""}'`, i);
          value += ESCAPES[esc];
          i += 2;
          continue;
        }
        value += ch;
        i++;
      }
      push({ kind: "string", value, start, end: i });
      continue;
    }
    const p = PUNCT.find((op) => source.startsWith(op, i));
    if (p === undefined) fail(`unexpected character '${c}'`, i);
    else {
      push({ kind: "punct", value: p, start, end: i + p.length });
      i += p.length;
    }
  }
  tokens.push({ kind: "eof", value: "", start: n, end: n });
  return tokens;
}
