/** Recursive-descent parser for the emulator's APL subset. */
import type { Aggregation, BinaryOp, Expr, NamedExpr, Operator, Query } from "./ast";
import { AplError, type AplErrorType, positionOf } from "./errors";
import { type Token, tokenize } from "./lexer";
import { parseRfc3339Ns } from "../time";

/** Scalar functions the evaluator knows, with their allowed argument counts. */
export const SCALAR_FUNCTIONS: Record<string, [min: number, max: number]> = {
  not: [1, 1],
  isnull: [1, 1],
  isnotnull: [1, 1],
  isempty: [1, 1],
  isnotempty: [1, 1],
  strcat: [1, 64],
  strlen: [1, 1],
  tolower: [1, 1],
  toupper: [1, 1],
  tostring: [1, 1],
  toint: [1, 1],
  tolong: [1, 1],
  todouble: [1, 1],
  toreal: [1, 1],
  abs: [1, 1],
  now: [0, 0],
  ago: [1, 1],
  bin: [2, 2],
  bin_auto: [1, 1],
  floor: [2, 2],
  datetime: [1, 1],
  iff: [3, 3],
};
const AGGREGATIONS: Record<Aggregation["fn"], number> = {
  count: 0,
  sum: 1,
  min: 1,
  max: 1,
  avg: 1,
  dcount: 1,
  topk: 2,
};

const COMPARISON = new Set(["==", "!=", "=~", "!~", "<", "<=", ">", ">="]);
const STRING_OPS = new Set([
  "contains",
  "contains_cs",
  "startswith",
  "startswith_cs",
  "endswith",
  "endswith_cs",
  "has",
  "has_cs",
]);
const UNIT_NS: Record<string, number> = {
  d: 86_400e9,
  h: 3_600e9,
  m: 60e9,
  s: 1e9,
  ms: 1e6,
  us: 1e3,
  microsecond: 1e3,
  tick: 100,
  ns: 1,
};
/**
 * Bounds on one query, so that its parse, compile and per-row work are bounded by its size and no input meets the
 * JS stack. Each is refused with a 400 that names it. A flat chain (`a + 1 + 1 …`, `x and y and …`) nests no
 * deeper however long it is: the compiler loops over its terms (see emulator/apl/compile.ts).
 */
export const APL_LIMITS = {
  /** Nesting: parentheses, function-call arguments, unary minus. Deep enough for any real query. */
  maxDepth: 200,
  /** Tokens of the query: every syntax-tree node takes one or more, so this bounds the tree's size too. */
  maxTokens: 20_000,
  /** Characters of the query text, checked before tokenizing it. */
  maxChars: 1_048_576,
} as const;
const MAX_DEPTH = APL_LIMITS.maxDepth;

/** Nanoseconds of a timespan literal such as `1h`, `1.5d` or `250ms`. */
export function timespanNs(text: string): bigint | undefined {
  const m = /^(\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)([a-z]+)$/.exec(text);
  if (!m) return 0n;
  if (!m[1].includes(".") && !/[eE]/.test(m[1])) return BigInt(m[1]) * BigInt(UNIT_NS[m[2]]);
  // `1e999d` is Infinity nanoseconds, which no bigint holds.
  const ns = Math.round(parseFloat(m[1]) * UNIT_NS[m[2]]);
  return Number.isFinite(ns) ? BigInt(ns) : undefined;
}

class Parser {
  private i = 0;
  private depth = 0;
  constructor(
    private readonly source: string,
    private readonly tokens: Token[],
  ) {}

  fail(message: string, at: number, type: AplErrorType = "syntax"): never {
    const { line, column } = positionOf(this.source, at);
    throw new AplError(message, line, column, type);
  }

  peek(offset = 0): Token {
    return this.tokens[Math.min(this.i + offset, this.tokens.length - 1)];
  }
  next(): Token {
    const t = this.peek();
    if (t.kind !== "eof") this.i++;
    return t;
  }
  isPunct(value: string, offset = 0): boolean {
    const t = this.peek(offset);
    return t.kind === "punct" && t.value === value;
  }
  isWord(value: string, offset = 0): boolean {
    const t = this.peek(offset);
    return t.kind === "ident" && t.value === value;
  }
  describe(t: Token): string {
    return t.kind === "eof"
      ? "end of query"
      : t.kind === "string"
        ? "a string"
        : `'${this.source.slice(t.start, t.end)}'`;
  }
  expectPunct(value: string, what = `'${value}'`): Token {
    const t = this.peek();
    if (t.kind !== "punct" || t.value !== value)
      this.fail(`expected ${what}, found ${this.describe(t)}`, t.start);
    return this.next();
  }
  expectIdent(what: string): Token {
    const t = this.peek();
    if (t.kind !== "ident") this.fail(`expected ${what}, found ${this.describe(t)}`, t.start);
    return this.next();
  }

  query(): Query {
    const { dataset, pos } = this.source_();
    const ops: Operator[] = [];
    while (this.peek().kind !== "eof") {
      if (!this.isPunct("|")) {
        const t = this.peek();
        this.fail(`unexpected ${this.describe(t)}; expected '|' or end of query`, t.start);
      }
      this.next();
      ops.push(this.operator());
    }
    return { dataset, datasetPos: pos, ops };
  }

  source_(): { dataset: string; pos: number } {
    const t = this.peek();
    if (this.isPunct("[")) {
      this.next();
      const name = this.peek();
      if (name.kind !== "string")
        this.fail(`expected a quoted dataset name, found ${this.describe(name)}`, name.start);
      this.next();
      this.expectPunct("]");
      if (name.value === "") this.fail("dataset name must not be empty", name.start);
      return { dataset: name.value, pos: name.start };
    }
    if (t.kind !== "ident") this.fail(`expected a dataset name, found ${this.describe(t)}`, t.start);
    // A bare name such as my-logs.v2 lexes as several tokens; glue the ones written without spaces between them.
    let end = t.end;
    this.next();
    for (;;) {
      const u = this.peek();
      const glueable =
        u.kind === "ident" ||
        u.kind === "int" ||
        u.kind === "timespan" ||
        (u.kind === "punct" && (u.value === "-" || u.value === "."));
      if (!glueable || u.start !== end) break;
      end = u.end;
      this.next();
    }
    const dataset = this.source.slice(t.start, end);
    if (dataset.endsWith("-") || dataset.endsWith(".")) this.fail(`bad dataset name '${dataset}'`, t.start);
    return { dataset, pos: t.start };
  }

  operator(): Operator {
    const t = this.peek();
    if (t.kind !== "ident") this.fail(`expected an operator after '|', found ${this.describe(t)}`, t.start);
    this.next();
    // Kusto's hyphenated operators (project-away, mv-expand) lex as name, '-', name: name the whole operator.
    const dash = this.peek();
    const rest = this.peek(1);
    if (dash.value === "-" && dash.start === t.end && rest.kind === "ident" && rest.start === dash.end) {
      this.fail(
        `unknown or unsupported operator '${this.source.slice(t.start, rest.end)}'`,
        t.start,
        "semantic",
      );
    }
    switch (t.value) {
      case "where":
      case "filter":
        return { op: "where", expr: this.expr(), pos: t.start };
      case "sort":
      case "order":
        return this.sort(t);
      case "limit":
      case "take": {
        const n = this.peek();
        if (n.kind !== "int")
          this.fail(`${t.value} expects a non-negative integer, found ${this.describe(n)}`, n.start);
        this.next();
        const value = Number(n.value);
        if (!Number.isSafeInteger(value)) this.fail(`${t.value} ${n.value} is too large`, n.start);
        return { op: "limit", n: value, pos: t.start };
      }
      case "project":
        return { op: "project", columns: this.namedList(false), pos: t.start };
      case "extend":
        return { op: "extend", columns: this.namedList(true), pos: t.start };
      case "summarize":
        return this.summarize(t);
      case "count":
        // `| count` is shorthand for a one-row summarize whose column Kusto calls Count.
        return { op: "summarize", aggs: [{ name: "Count", fn: "count" }], by: [], pos: t.start };
      default:
        return this.fail(`unknown or unsupported operator '${t.value}'`, t.start, "semantic");
    }
  }

  sort(t: Token): Operator {
    if (!this.isWord("by"))
      this.fail(`expected 'by' after '${t.value}', found ${this.describe(this.peek())}`, this.peek().start);
    this.next();
    const keys: Extract<Operator, { op: "sort" }>["keys"] = [];
    do {
      const at = this.peek();
      const field = this.expr();
      if (field.kind !== "field") this.fail("sort by takes field names", at.start, "semantic");
      let desc = true;
      if (this.isWord("asc")) {
        desc = false;
        this.next();
      } else if (this.isWord("desc")) this.next();
      keys.push({ field, desc });
    } while (this.isPunct(",") && this.next());
    return { op: "sort", keys, pos: t.start };
  }

  /** `a, b, x = expr`: project allows bare fields; extend needs `name =` (or a bare field, kept as is). */
  namedList(isExtend: boolean): NamedExpr[] {
    const out: NamedExpr[] = [];
    do {
      const at = this.peek();
      if (at.kind === "ident" && this.isPunct("=", 1)) {
        this.next();
        this.next();
        if (at.value === "_time" || at.value === "_sysTime")
          this.fail(`cannot assign to ${at.value}`, at.start, "semantic");
        out.push({ name: at.value, expr: this.expr() });
        continue;
      }
      const expr = this.expr();
      if (expr.kind !== "field") {
        this.fail(
          `give the expression a name: ${isExtend ? "extend" : "project"} name = expression`,
          at.start,
          "semantic",
        );
      }
      out.push({ name: expr.name, expr });
    } while (this.isPunct(",") && this.next());
    return out;
  }

  summarize(t: Token): Operator {
    const aggs: Aggregation[] = [];
    do {
      let name: string | undefined;
      if (this.peek().kind === "ident" && this.isPunct("=", 1)) {
        name = this.next().value;
        this.next();
      }
      const fnTok = this.expectIdent("an aggregation such as count()");
      const fn = fnTok.value as Aggregation["fn"];
      if (!(fn in AGGREGATIONS))
        this.fail(`unknown aggregation function '${fnTok.value}'`, fnTok.start, "semantic");
      const open = this.expectPunct("(");
      const args = this.args();
      if (args.length !== AGGREGATIONS[fn]) {
        this.fail(
          `${fn}() takes ${AGGREGATIONS[fn]} argument${AGGREGATIONS[fn] === 1 ? "" : "s"}`,
          open.start,
          "semantic",
        );
      }
      const arg = args[0];
      let k: number | undefined;
      if (fn === "topk") {
        const n = args[1];
        if (n.kind !== "literal" || n.value.type !== "int" || n.value.value < 1) {
          this.fail(
            "topk() takes a field and k, a positive integer: topk(field, 10)",
            open.start,
            "semantic",
          );
        }
        k = n.value.value;
      }
      const argName = arg?.kind === "field" ? arg.name.replace(/\./g, "_") : undefined;
      aggs.push({ name: name ?? (argName ? `${fn}_${argName}` : `${fn}_`), fn, arg, k });
    } while (this.isPunct(",") && this.next());
    const by: NamedExpr[] = [];
    if (this.isWord("by")) {
      this.next();
      do {
        const at = this.peek();
        if (at.kind === "ident" && this.isPunct("=", 1)) {
          this.next();
          this.next();
          by.push({ name: at.value, expr: this.expr() });
          continue;
        }
        const expr = this.expr();
        if (expr.kind === "field") by.push({ name: expr.name, expr });
        else if (
          expr.kind === "call" &&
          (expr.name === "bin" || expr.name === "floor" || expr.name === "bin_auto") &&
          expr.args[0].kind === "field"
        ) {
          by.push({ name: expr.args[0].name, expr });
        } else this.fail("give the group expression a name: by name = expression", at.start, "semantic");
      } while (this.isPunct(",") && this.next());
    } else if (this.peek().kind !== "eof" && !this.isPunct("|")) {
      const u = this.peek();
      this.fail(`expected 'by', '|' or end of query, found ${this.describe(u)}`, u.start);
    }
    return { op: "summarize", aggs, by, pos: t.start };
  }

  args(): Expr[] {
    const args: Expr[] = [];
    if (this.isPunct(")")) {
      this.next();
      return args;
    }
    do args.push(this.expr());
    while (this.isPunct(",") && this.next());
    this.expectPunct(")", "',' or ')'");
    return args;
  }

  expr(): Expr {
    if (++this.depth > MAX_DEPTH)
      this.fail(`expression is nested too deeply: more than ${MAX_DEPTH} levels`, this.peek().start);
    try {
      return this.or();
    } finally {
      this.depth--;
    }
  }

  or(): Expr {
    return this.chain("or", () => this.and());
  }

  and(): Expr {
    return this.chain("and", () => this.comparison());
  }

  /** A left-associative run of one keyword operator over operands of the next tighter level. */
  chain(word: "or" | "and", operand: () => Expr): Expr {
    let left = operand();
    while (this.isWord(word)) {
      const op = this.next();
      left = { kind: "binary", op: word, left, right: operand(), pos: op.start };
    }
    return left;
  }

  comparison(): Expr {
    const left = this.additive();
    const t = this.peek();
    if (t.kind === "punct" && COMPARISON.has(t.value)) {
      this.next();
      return { kind: "binary", op: t.value as BinaryOp, left, right: this.additive(), pos: t.start };
    }
    let negated = false;
    let word = t;
    if (t.kind === "punct" && t.value === "!") {
      const u = this.peek(1);
      if (u.kind !== "ident" || u.start !== t.end || !(u.value === "in" || STRING_OPS.has(u.value))) {
        this.fail("'!' must be followed by in, contains, startswith, endswith or has", t.start);
      }
      negated = true;
      this.next();
      word = this.peek();
    }
    if (word.kind === "ident" && word.value === "in") {
      this.next();
      this.expectPunct("(", "'(' after in");
      const list = this.args();
      return { kind: "in", negated, operand: left, list, pos: t.start };
    }
    if (word.kind === "ident" && STRING_OPS.has(word.value)) {
      this.next();
      const op = (negated ? `!${word.value}` : word.value) as BinaryOp;
      return { kind: "binary", op, left, right: this.additive(), pos: t.start };
    }
    return left;
  }

  additive(): Expr {
    let left = this.multiplicative();
    while (this.isPunct("+") || this.isPunct("-")) {
      const op = this.next();
      left = { kind: "binary", op: op.value as BinaryOp, left, right: this.multiplicative(), pos: op.start };
    }
    return left;
  }

  multiplicative(): Expr {
    let left = this.unary();
    while (this.isPunct("*") || this.isPunct("/") || this.isPunct("%")) {
      const op = this.next();
      left = { kind: "binary", op: op.value as BinaryOp, left, right: this.unary(), pos: op.start };
    }
    return left;
  }

  unary(): Expr {
    if (this.isPunct("-")) {
      const op = this.next();
      if (++this.depth > MAX_DEPTH)
        this.fail(`expression is nested too deeply: more than ${MAX_DEPTH} levels`, op.start);
      try {
        const operand = this.unary();
        if (operand.kind === "literal" && (operand.value.type === "int" || operand.value.type === "real")) {
          return {
            kind: "literal",
            value: { type: operand.value.type, value: -operand.value.value },
            pos: op.start,
          };
        }
        if (operand.kind === "literal" && operand.value.type === "timespan") {
          return { kind: "literal", value: { type: "timespan", ns: -operand.value.ns }, pos: op.start };
        }
        return { kind: "neg", operand, pos: op.start };
      } finally {
        this.depth--;
      }
    }
    return this.primary();
  }

  primary(): Expr {
    const t = this.peek();
    switch (t.kind) {
      case "int":
      case "float": {
        this.next();
        const value = Number(t.value);
        return { kind: "literal", value: { type: t.kind === "int" ? "int" : "real", value }, pos: t.start };
      }
      case "timespan": {
        this.next();
        const ns = timespanNs(t.value);
        if (ns === undefined) this.fail(`timespan ${t.value} is out of range`, t.start);
        return { kind: "literal", value: { type: "timespan", ns }, pos: t.start };
      }
      case "string":
        this.next();
        return { kind: "literal", value: { type: "string", value: t.value }, pos: t.start };
      case "punct":
        if (t.value === "(") {
          this.next();
          const inner = this.expr();
          this.expectPunct(")", "')'");
          return inner;
        }
        if (t.value === "[") return this.bracketField();
        return this.fail(`unexpected ${this.describe(t)}; expected an expression`, t.start);
      case "ident":
        return this.identifier();
      default:
        return this.fail(`unexpected ${this.describe(t)}; expected an expression`, t.start);
    }
  }

  bracketField(): Expr {
    const open = this.next();
    const name = this.peek();
    if (name.kind !== "string")
      this.fail(`expected a quoted field name, found ${this.describe(name)}`, name.start);
    this.next();
    this.expectPunct("]");
    return { kind: "field", name: name.value, path: [name.value], pos: open.start };
  }

  identifier(): Expr {
    const t = this.next();
    if (t.value === "true" || t.value === "false") {
      return { kind: "literal", value: { type: "bool", value: t.value === "true" }, pos: t.start };
    }
    if (t.value === "null") return { kind: "literal", value: { type: "null" }, pos: t.start };
    if (this.isPunct("(")) {
      const name = t.value;
      if (name === "datetime") return this.datetimeLiteral(t);
      const range = SCALAR_FUNCTIONS[name];
      if (!range) {
        const hint = name in AGGREGATIONS ? " (aggregations belong in summarize)" : "";
        this.fail(`unknown function '${name}'${hint}`, t.start, "semantic");
      }
      const open = this.next();
      const args = this.args();
      if (args.length < range[0] || args.length > range[1]) {
        const want = range[0] === range[1] ? `${range[0]}` : `${range[0]} to ${range[1]}`;
        this.fail(
          `${name}() takes ${want} argument${want === "1" ? "" : "s"}, got ${args.length}`,
          open.start,
          "semantic",
        );
      }
      return { kind: "call", name, args, pos: t.start };
    }
    const path = [t.value];
    let end = t.end;
    while (this.isPunct(".") && this.peek(1).kind === "ident") {
      this.next();
      const seg = this.next();
      path.push(seg.value);
      end = seg.end;
    }
    return { kind: "field", name: this.source.slice(t.start, end).replace(/\s+/g, ""), path, pos: t.start };
  }

  datetimeLiteral(t: Token): Expr {
    this.next();
    const raw = this.peek();
    if (raw.kind !== "datetime") this.fail("malformed datetime()", raw.start);
    this.next();
    this.expectPunct(")");
    const text = raw.value.replace(/^(['"])(.*)\1$/, "$2");
    let ns = parseRfc3339Ns(text);
    if (ns === undefined && /^\d{4}-\d{2}-\d{2}$/.test(text)) ns = parseRfc3339Ns(`${text}T00:00:00Z`);
    if (ns === undefined) ns = parseRfc3339Ns(`${text}Z`);
    if (ns === undefined) this.fail(`datetime(${raw.value}) is not an RFC 3339 time`, raw.start);
    return { kind: "literal", value: { type: "datetime", ns }, pos: t.start };
  }
}

/** Parses an APL query into its syntax tree; throws {@link AplError} pointing at the offending token. */
export function parseApl(source: string): Query {
  if (source.length > APL_LIMITS.maxChars) {
    throw new AplError(`query is too long: more than ${APL_LIMITS.maxChars} characters`, 1, 1);
  }
  const tokens = tokenize(source, APL_LIMITS.maxTokens);
  return new Parser(source, tokens).query();
}
