/**
 * Recursive-descent parser for APL as the reference documents it (axiomhq/docs apl/: query structure, statements,
 * tabular operators, scalar operators, data types). Syntax errors name what was expected and where; documented
 * constructs the emulator cannot run are refused by name ("not supported by the emulator: <construct> (<why>)").
 */
import type {
  AggregationCall,
  BinaryOp,
  Expr,
  JoinKey,
  LetStatement,
  NamedExpr,
  Operator,
  ParsePart,
  Query,
  SortKey,
  Source,
  TabularExpr,
} from "./ast";
import { AplError, type AplErrorType, positionOf, unsupported } from "./errors";

export { unsupported };
import { arityText, lookupCall } from "./catalog";
import { TIMESPAN_UNIT_NS, type Token, tokenize } from "./lexer";
import { parseRfc3339Ns } from "../time";
import { DateTime, Timespan } from "./values";

/**
 * Bounds on one query, so that its parse, compile and per-row work are bounded by its size and no input meets the
 * JS stack. Each is refused with a 400 that names it. A flat chain (`a + 1 + 1 …`, `x and y and …`) nests no
 * deeper however long it is: the compiler loops over its terms (see emulator/apl/compile.ts).
 */
export const APL_LIMITS = {
  /** Nesting: parentheses, function-call arguments, unary minus, subqueries. Deep enough for any real query. */
  maxDepth: 200,
  /** Tokens of the query: every syntax-tree node takes one or more, so this bounds the tree's size too. */
  maxTokens: 20_000,
  /** Characters of the query text, checked before tokenizing it. */
  maxChars: 1_048_576,
} as const;
const MAX_DEPTH = APL_LIMITS.maxDepth;

/** Documented operators the emulator refuses, with the reason. */
const REFUSED_OPERATORS: Record<string, string> = {
  externaldata: "it reads data from an outside URL",
};

/** Nanoseconds of a timespan literal such as `1h`, `1.5d` or `250ms`; undefined when it is out of range. */
export function timespanNs(text: string): bigint | undefined {
  const m = /^(\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)([a-z]+)$/.exec(text);
  if (!m) return 0n;
  const unit = TIMESPAN_UNIT_NS[m[2]];
  if (!m[1].includes(".") && !/[eE]/.test(m[1])) return BigInt(m[1]) * BigInt(unit);
  // `1e999d` is Infinity nanoseconds, which no bigint holds.
  const ns = Math.round(parseFloat(m[1]) * unit);
  return Number.isFinite(ns) ? BigInt(ns) : undefined;
}

/** `[d.]hh:mm[:ss[.fffffff]]`, the timespan(...) literal's clock form, in nanoseconds. */
function clockTimespanNs(text: string): bigint | undefined {
  const m = /^(-)?(?:(\d+)\.)?(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?$/.exec(text.trim());
  if (!m) return undefined;
  const frac = BigInt((m[6] ?? "").padEnd(9, "0") || "0");
  const ns =
    BigInt(m[2] ?? "0") * 86_400_000_000_000n +
    BigInt(m[3]) * 3_600_000_000_000n +
    BigInt(m[4]) * 60_000_000_000n +
    BigInt(m[5] ?? "0") * 1_000_000_000n +
    frac;
  return m[1] ? -ns : ns;
}

const COMPARISON = new Set(["==", "!=", "<>", "=~", "!~", "<", "<=", ">", ">="]);
const STRING_OPS = new Set([
  "contains",
  "contains_cs",
  "startswith",
  "startswith_cs",
  "endswith",
  "endswith_cs",
  "has",
  "has_cs",
  "hasprefix",
  "hasprefix_cs",
  "hassuffix",
  "hassuffix_cs",
]);
/** String operators whose right side is a parenthesised list. */
const LIST_STRING_OPS = new Set(["has_any", "has_any_cs", "has_all", "has_all_cs"]);
/** Spellings the docs use besides `!op`. */
const NEGATED_WORDS: Record<string, string> = {
  notcontains: "!contains",
  notcontains_cs: "!contains_cs",
  nothas: "!has",
  nothas_cs: "!has_cs",
  notstartswith: "!startswith",
  notstartswith_cs: "!startswith_cs",
  notendswith: "!endswith",
  notendswith_cs: "!endswith_cs",
};

/** Column types datatable, parse and mv-expand's `to typeof()` accept. */
export const TYPE_NAMES = new Set([
  "bool",
  "boolean",
  "int",
  "long",
  "real",
  "double",
  "decimal",
  "string",
  "datetime",
  "date",
  "timespan",
  "time",
  "dynamic",
  "guid",
]);

/** Words that end an expression list inside operators (`by`, `on`, ...). */
class Parser {
  private i = 0;
  private depth = 0;
  /** Inside summarize's aggregation list, where aggregation calls may sit inside expressions. */
  private aggregationDepth = 0;
  /** Inside search's predicate, where a bare string is a term to find in any column, and `field:"x"` means has. */
  private searchDepth = 0;
  /** Tabular expressions being parsed (the query's own, subqueries, let bodies). */
  private subqueries = 0;
  /** Parsing a search that starts the query, which may name its datasets with `in (...)`. */
  private searchAtStart = false;
  private searchTables: { name: string; pos: number }[] = [];
  /** Inside summarize's by clause. */
  private inBy = 0;
  /** search kind=case_sensitive. */
  private searchCaseSensitive = false;
  /** Names bound by `let`, scalar or tabular, in scope for what follows. */
  private readonly lets = new Map<string, "scalar" | "tabular">();
  /** Let statements and query parameters bound to a string literal, for table(name). */
  private readonly stringLets = new Map<string, string>();
  readonly datasets: { name: string; pos: number }[] = [];
  constructor(
    private readonly source: string,
    private readonly tokens: Token[],
  ) {}

  fail(message: string, at: number, type: AplErrorType = "syntax"): never {
    const { line, column } = positionOf(this.source, at);
    throw new AplError(message, line, column, type);
  }
  refuse(construct: string, why: string, at: number): never {
    return this.fail(unsupported(construct, why), at, "semantic");
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
  expectWord(word: string, what = `'${word}'`): Token {
    if (!this.isWord(word))
      this.fail(`expected ${what}, found ${this.describe(this.peek())}`, this.peek().start);
    return this.next();
  }
  enter(at: number): void {
    if (++this.depth > MAX_DEPTH)
      this.fail(`expression is nested too deeply: more than ${MAX_DEPTH} levels`, at);
  }

  /** A name: an identifier, or a bracketed quoted name `['a.b']`. */
  columnName(what = "a column name"): { name: string; pos: number } {
    const t = this.peek();
    if (t.kind === "ident") {
      this.next();
      return { name: t.value, pos: t.start };
    }
    if (this.isPunct("[") && this.peek(1).kind === "string" && this.isPunct("]", 2)) {
      this.next();
      const s = this.next();
      this.next();
      return { name: s.value, pos: t.start };
    }
    return this.fail(`expected ${what}, found ${this.describe(t)}`, t.start);
  }

  /** A dotted column name as written (`a.b.c`, `['a.b']`), as project-away/-keep/-rename take them. */
  columnPath(what = "a column name"): { name: string; pos: number } {
    const first = this.columnName(what);
    let name = first.name;
    while (this.isPunct(".") && (this.peek(1).kind === "ident" || this.isPunct("[", 1))) {
      this.next();
      name += `.${this.columnName(what).name}`;
    }
    return { name, pos: first.pos };
  }

  /** A column-name pattern with `*` wildcards (project-away, project-keep, project-reorder, union's tables). */
  pattern(what = "a column name or pattern"): { name: string; pos: number } {
    const start = this.peek();
    let text = "";
    let end = start.start;
    for (;;) {
      const t = this.peek();
      if (text !== "" && t.start !== end) break;
      if (t.kind === "punct" && t.value === "*") text += "*";
      else if (t.kind === "ident" || t.kind === "int") text += t.value;
      else if (t.kind === "timespan") text += t.value;
      else if (t.kind === "punct" && (t.value === "." || t.value === "-") && text !== "") text += t.value;
      else if (this.isPunct("[") && this.peek(1).kind === "string" && this.isPunct("]", 2)) {
        this.next();
        text += this.next().value;
        end = this.next().end;
        continue;
      } else break;
      end = t.end;
      this.next();
    }
    if (text === "") this.fail(`expected ${what}, found ${this.describe(start)}`, start.start);
    return { name: text, pos: start.start };
  }

  query(): Query {
    const lets: LetStatement[] = [];
    const options: Record<string, unknown> = {};
    for (;;) {
      if (this.isWord("let")) lets.push(this.letStatement());
      else if (this.isWord("declare") && this.isWord("query_parameters", 1))
        lets.push(...this.declareParameters());
      else if (this.isWord("set") && (this.peek(1).kind === "ident" || this.peek(1).kind === "string")) {
        this.setStatement(options);
      } else if (this.isPunct(";")) this.next();
      else break;
    }
    if (this.peek().kind === "eof" && lets.length > 0) {
      this.refuse(
        "a query of only let statements",
        "it has no tabular expression to answer",
        this.peek().start,
      );
    }
    if (this.peek().kind === "eof") {
      return this.fail(
        "expected a tabular expression such as ['dataset'] | ..., found end of query",
        this.peek().start,
      );
    }
    const body = this.tabular();
    while (this.isPunct(";")) {
      this.next();
      // `['logs'];` then `| where ...` (a guide writes it so): the pipeline goes on.
      while (this.isPunct("|")) {
        this.next();
        body.ops.push(this.operator());
      }
    }
    if (this.peek().kind !== "eof") {
      const t = this.peek();
      // A lone '=' after a condition is the commonest slip: say how to compare.
      const hint = t.kind === "punct" && t.value === "=" ? " (compare with ==)" : "";
      this.fail(`unexpected ${this.describe(t)}; expected '|' or end of query${hint}`, t.start);
    }
    const first = this.datasets[0];
    const names = [...new Set(this.datasets.map((d) => d.name))];
    return {
      dataset: first?.name ?? "",
      datasetPos: first?.pos ?? 0,
      datasets: names,
      lets,
      options,
      body,
      ops: body.ops,
    };
  }

  setStatement(options: Record<string, unknown>): void {
    this.next();
    const name = this.next();
    let value: unknown = true;
    if (this.isPunct("=")) {
      this.next();
      const v = this.primary();
      value =
        v.kind === "literal" && "value" in v.value
          ? v.value.value
          : this.source.slice(v.pos, this.peek().start);
    }
    options[name.value] = value;
    if (!this.isPunct(";"))
      this.fail(
        `expected ';' after the set statement, found ${this.describe(this.peek())}`,
        this.peek().start,
      );
    this.next();
  }

  /**
   * `declare query_parameters (name:type = default, ...);` (a dashboard's filter parameters): each is bound to its
   * default, since the emulator's API takes no parameter values.
   */
  declareParameters(): LetStatement[] {
    const at = this.next();
    this.next();
    this.expectPunct("(", "'(' and the parameters after declare query_parameters");
    const out: LetStatement[] = [];
    if (!this.isPunct(")")) {
      do {
        const name = this.columnName("a parameter name");
        this.expectPunct(":", `':' and a type after ${name.name}`);
        const type = this.typeName();
        let expr: Expr = { kind: "literal", value: { type: "null" }, pos: name.pos };
        if (this.isPunct("=")) {
          this.next();
          expr = this.expr();
        } else if (type === "string")
          expr = { kind: "literal", value: { type: "string", value: "" }, pos: name.pos };
        out.push({ kind: "scalar", name: name.name, expr, pos: at.start });
        if (expr.kind === "literal" && expr.value.type === "string")
          this.stringLets.set(name.name, expr.value.value);
        this.lets.set(name.name, "scalar");
      } while (this.isPunct(",") && this.next());
    }
    this.expectPunct(")", "',' or ')' after the parameters");
    if (this.isPunct(";")) this.next();
    return out;
  }

  letStatement(): LetStatement {
    const at = this.next();
    const name = this.columnName("a name after let");
    this.expectPunct("=", "'=' after the let statement's name");
    if (this.isPunct("(") && this.looksLikeFunction()) {
      this.refuse(
        "let with a user-defined function",
        "the emulator binds let names to values and tables only",
        at.start,
      );
    }
    let stmt: LetStatement;
    if (this.startsTabular(true)) {
      stmt = { kind: "tabular", name: name.name, body: this.tabular(), pos: at.start };
    } else {
      stmt = { kind: "scalar", name: name.name, expr: this.expr(), pos: at.start };
    }
    this.lets.set(name.name, stmt.kind);
    if (stmt.kind === "scalar" && stmt.expr.kind === "literal" && stmt.expr.value.type === "string") {
      this.stringLets.set(name.name, stmt.expr.value.value);
    }
    if (!this.isPunct(";") && this.peek().kind !== "eof") {
      this.fail(
        `expected ';' after the let statement, found ${this.describe(this.peek())}`,
        this.peek().start,
      );
    }
    this.next();
    return stmt;
  }

  /** `(a:int, b:string) { ... }`: a lambda. */
  looksLikeFunction(): boolean {
    const j = 1;
    if (this.isPunct(")", j)) return this.isPunct("{", j + 1);
    return this.peek(j).kind === "ident" && this.isPunct(":", j + 1);
  }

  /** Whether what follows is a tabular expression rather than a scalar one (let's right side, subqueries). */
  startsTabular(letBody = false): boolean {
    const t = this.peek();
    if (this.isPunct("[") && this.peek(1).kind === "string" && this.isPunct("]", 2)) return true;
    if (t.kind === "ident") {
      if (
        ["datatable", "print", "union", "externaldata", "search", "range", "materialize"].includes(t.value)
      ) {
        return t.value !== "materialize" || this.isPunct("(", 1);
      }
      if (this.lets.get(t.value) === "tabular") return true;
      if (this.lets.has(t.value)) return false;
      // A bare name (my-logs.v2 glues from several tokens) followed by a pipe is a dataset.
      let k = 1;
      for (;;) {
        const u = this.peek(k);
        const glued =
          u.start === this.peek(k - 1).end &&
          (u.kind === "ident" ||
            u.kind === "int" ||
            u.kind === "timespan" ||
            (u.kind === "punct" && (u.value === "-" || u.value === ".")));
        if (!glued) break;
        k++;
      }
      // `let t = logs;`: at the top there are no columns, so a bare name that is no let names a dataset.
      return this.isPunct("|", k) || (letBody && (this.isPunct(";", k) || this.peek(k).kind === "eof"));
    }
    if (this.isPunct("(")) {
      // A parenthesised pipeline: look for a '|' at depth one.
      let depth = 0;
      for (let k = 0; ; k++) {
        const u = this.peek(k);
        if (u.kind === "eof") return false;
        if (u.kind === "punct" && (u.value === "(" || u.value === "[" || u.value === "{")) depth++;
        else if (u.kind === "punct" && (u.value === ")" || u.value === "]" || u.value === "}")) {
          if (--depth === 0) return false;
        } else if (depth === 1 && u.kind === "punct" && u.value === "|") return true;
      }
    }
    return false;
  }

  /** A source and its pipeline; a subquery (depth > 0) counts one level of nesting. */
  tabular(): TabularExpr {
    const nested = this.depth > 0 || this.subqueries > 0;
    this.subqueries++;
    if (nested) this.enter(this.peek().start);
    try {
      const source = this.tabularSource();
      const ops: Operator[] = [];
      while (this.isPunct("|")) {
        this.next();
        ops.push(this.operator());
      }
      return { source, ops };
    } finally {
      this.subqueries--;
      if (nested) this.depth--;
    }
  }

  tabularSource(): Source {
    const t = this.peek();
    if (this.isPunct("|")) this.fail("expected a dataset such as ['logs'] before '|'", t.start);
    if (this.isPunct("(")) {
      this.next();
      const body = this.tabular();
      this.expectPunct(")", "')' closing the subquery");
      return { kind: "paren", body, pos: t.start };
    }
    if (this.isPunct("[")) return this.datasetRef();
    if (t.kind !== "ident") this.fail(`expected a dataset name, found ${this.describe(t)}`, t.start);
    if (REFUSED_OPERATORS[t.value] && this.isPunct("(", 1))
      this.refuse(t.value, REFUSED_OPERATORS[t.value], t.start);
    if (t.value === "externaldata") this.refuse("externaldata", REFUSED_OPERATORS.externaldata, t.start);
    if (t.value === "print" && !this.isPunct("|", 1)) return this.print();
    if (t.value === "datatable" && (this.isPunct("(", 1) || this.isPunct("[", 1))) return this.datatable();
    if (t.value === "union" && !this.isPunct("|", 1)) {
      this.next();
      const u = this.unionBody();
      return { kind: "union", withSource: u.withSource, inner: u.inner, sources: u.sources, pos: t.start };
    }
    if (t.value === "search" && !this.isPunct("|", 1)) {
      // search at the start reads every dataset, or those `in (...)` names (search-operator.mdx): a union of
      // them, then the search.
      this.searchTables = [];
      this.searchAtStart = true;
      let op: Operator;
      try {
        op = this.operator();
      } finally {
        this.searchAtStart = false;
      }
      const tables = this.searchTables.length > 0 ? this.searchTables : [{ name: "*", pos: t.start }];
      this.searchTables = [];
      const sources: TabularExpr[] = tables.map((d) => {
        this.datasets.push(d);
        return { source: { kind: "dataset", name: d.name, pos: d.pos }, ops: [] };
      });
      const inner: TabularExpr = {
        source: { kind: "union", withSource: "$table", sources, pos: t.start },
        ops: [op],
      };
      return { kind: "paren", body: inner, pos: t.start };
    }
    if (t.value === "table" && this.isPunct("(", 1)) return this.tableFunction();
    if (t.value === "range" && this.peek(1).kind === "ident" && this.isWord("from", 2)) {
      this.refuse("range", "it is not an operator of the APL reference", t.start);
    }
    if (t.value === "materialize" && this.isPunct("(", 1)) {
      this.next();
      this.next();
      const body = this.tabular();
      this.expectPunct(")", "')' closing materialize(");
      return { kind: "paren", body, pos: t.start };
    }
    if (this.lets.get(t.value) === "tabular") {
      this.next();
      return { kind: "let", name: t.value, pos: t.start };
    }
    return this.bareDataset();
  }

  /** `table('name')` or `table(parameter)`: the dataset a string names (a let or query parameter's value). */
  tableFunction(): Source {
    const t = this.next();
    this.next();
    const arg = this.peek();
    let name: string | undefined;
    if (arg.kind === "string") name = arg.value;
    else if (arg.kind === "ident") name = this.stringLets.get(arg.value);
    if (name === undefined) {
      this.fail(
        "table() takes a dataset name as a string, or a let or query parameter holding one",
        arg.start,
        "semantic",
      );
    }
    if (name === "") {
      this.refuse(
        "table() of an empty name",
        "query parameters take their defaults in the emulator, and this one names no dataset",
        arg.start,
      );
    }
    this.next();
    this.expectPunct(")", "')' closing table(");
    this.datasets.push({ name, pos: t.start });
    return { kind: "dataset", name, pos: t.start };
  }

  datasetRef(): Source {
    const open = this.next();
    const name = this.peek();
    if (name.kind !== "string")
      this.fail(`expected a quoted dataset name, found ${this.describe(name)}`, name.start);
    this.next();
    this.expectPunct("]");
    if (name.value === "") this.fail("dataset name must not be empty", name.start);
    if (this.lets.get(name.value) === "tabular") return { kind: "let", name: name.value, pos: open.start };
    this.datasets.push({ name: name.value, pos: name.start });
    return { kind: "dataset", name: name.value, pos: name.start };
  }

  bareDataset(): Source {
    const t = this.peek();
    // A bare name such as my-logs.v2 lexes as several tokens; glue the ones written without spaces between them.
    let end = t.end;
    this.next();
    for (;;) {
      const u = this.peek();
      const glueable =
        u.kind === "ident" ||
        u.kind === "int" ||
        u.kind === "timespan" ||
        (u.kind === "punct" && (u.value === "-" || u.value === "." || u.value === "*"));
      if (!glueable || u.start !== end) break;
      end = u.end;
      this.next();
    }
    const name = this.source.slice(t.start, end);
    if (name.endsWith("-") || name.endsWith(".")) this.fail(`bad dataset name '${name}'`, t.start);
    if (this.lets.get(name) === "tabular") return { kind: "let", name, pos: t.start };
    this.datasets.push({ name, pos: t.start });
    return { kind: "dataset", name, pos: t.start };
  }

  print(): Source {
    const t = this.next();
    const columns: NamedExpr[] = [];
    let n = 0;
    do {
      const named = this.namedExpr(() => `print_${n}`);
      n++;
      columns.push(named);
    } while (this.isPunct(",") && this.next());
    return { kind: "print", columns, pos: t.start };
  }

  datatable(): Source {
    const t = this.next();
    this.expectPunct("(", "'(' and the column list after datatable");
    const columns: { name: string; type: string }[] = [];
    if (!this.isPunct(")")) {
      do {
        const name = this.columnName("a column name in datatable's schema");
        this.expectPunct(":", `':' and a type after column ${name.name}`);
        columns.push({ name: name.name, type: this.typeName() });
      } while (this.isPunct(",") && this.next());
    }
    this.expectPunct(")", "',' or ')' in datatable's schema");
    this.expectPunct("[", "'[' and the values after datatable's schema");
    const values: Expr[] = [];
    if (!this.isPunct("]")) {
      do {
        if (this.isPunct("]")) break;
        values.push(this.expr());
      } while (this.isPunct(",") && this.next());
    }
    this.expectPunct("]", "',' or ']' in datatable's values");
    if (columns.length === 0) this.fail("datatable needs at least one column", t.start, "semantic");
    if (values.length % columns.length !== 0) {
      this.fail(
        `datatable has ${columns.length} column${columns.length === 1 ? "" : "s"} but ${values.length} value${values.length === 1 ? "" : "s"}, not a whole number of rows`,
        t.start,
        "semantic",
      );
    }
    const rows: Expr[][] = [];
    for (let at = 0; at < values.length; at += columns.length)
      rows.push(values.slice(at, at + columns.length));
    return { kind: "datatable", columns, rows, pos: t.start };
  }

  typeName(): string {
    const ty = this.expectIdent("a type such as string, long or datetime");
    if (!TYPE_NAMES.has(ty.value)) {
      this.fail(
        `unknown type '${ty.value}': expected one of ${[...TYPE_NAMES].join(", ")}`,
        ty.start,
        "semantic",
      );
    }
    return ty.value;
  }

  /** The operator's name, hyphenated ones (project-away, mv-expand) read whole. */
  operatorName(): Token {
    const t = this.peek();
    if (t.kind !== "ident") this.fail(`expected an operator after '|', found ${this.describe(t)}`, t.start);
    this.next();
    let name = t.value;
    let end = t.end;
    while (
      this.isPunct("-") &&
      this.peek().start === end &&
      this.peek(1).kind === "ident" &&
      this.peek(1).start === end + 1
    ) {
      this.next();
      const rest = this.next();
      name += `-${rest.value}`;
      end = rest.end;
    }
    return { ...t, value: name, end };
  }

  operator(): Operator {
    const t = this.operatorName();
    const pos = t.start;
    switch (t.value) {
      case "where":
      case "filter":
        return { op: "where", expr: this.expr(), pos };
      case "sort":
      case "order":
        this.expectWord("by", `'by' after '${t.value}'`);
        return { op: "sort", keys: this.sortKeys(), pos };
      case "top": {
        const n = this.additive();
        this.expectWord("by", "'by' after top's count");
        return { op: "top", n, keys: this.sortKeys(), pos };
      }
      case "limit":
      case "take":
        return { op: "limit", n: this.count(t.value), pos };
      case "project":
        return { op: "project", columns: this.namedList("project"), pos };
      case "extend":
        return { op: "extend", columns: this.namedList("extend"), valid: false, pos };
      case "extend-valid":
        return { op: "extend", columns: this.namedList("extend-valid"), valid: true, pos };
      case "project-away":
      case "project-keep": {
        const patterns: string[] = [];
        do patterns.push(this.pattern().name);
        while (this.isPunct(",") && this.next());
        return { op: t.value, patterns, pos };
      }
      case "project-rename": {
        const renames: { name: string; from: string }[] = [];
        do {
          const name = this.columnName("a new column name");
          this.expectPunct("=", `'=' after ${name.name}: project-rename new_name = old_name`);
          renames.push({ name: name.name, from: this.columnPath("the column to rename").name });
        } while (this.isPunct(",") && this.next());
        return { op: "project-rename", renames, pos };
      }
      case "project-reorder": {
        const keys: { pattern: string; order?: "asc" | "desc" }[] = [];
        do {
          const pattern = this.pattern().name;
          let order: "asc" | "desc" | undefined;
          if (this.isWord("asc") || this.isWord("desc")) order = this.next().value as "asc" | "desc";
          else if (this.isWord("granny-asc") || this.isWord("granny-desc"))
            order = this.next().value.endsWith("asc") ? "asc" : "desc";
          keys.push({ pattern, order });
        } while (this.isPunct(",") && this.next());
        return { op: "project-reorder", keys, pos };
      }
      case "summarize":
        return this.summarize(pos);
      case "count":
        return { op: "count", pos };
      case "distinct": {
        if (this.isPunct("*")) {
          this.next();
          return { op: "distinct", columns: "*", pos };
        }
        return { op: "distinct", columns: this.namedList("distinct"), pos };
      }
      case "parse":
      case "parse-where":
        return this.parseOp(pos, t.value === "parse-where");
      case "parse-kv":
        return this.parseKv(pos);
      case "union": {
        const u = this.unionBody();
        return { op: "union", withSource: u.withSource, inner: u.inner, sources: u.sources, pos };
      }
      case "join":
      case "lookup":
        return this.join(t.value, pos);
      case "mv-expand":
        return this.mvExpand(pos);
      case "make-series":
        return this.makeSeries(pos);
      case "search":
        return this.search(pos);
      case "sample": {
        // sample 10 takes ten rows; sample 0.05 each row with probability 0.05 (sample-operator.mdx).
        const n = this.peek();
        if (n.kind === "float") {
          this.next();
          const p = Number(n.value);
          if (!(p >= 0 && p <= 1))
            this.fail(`sample's fraction must be between 0 and 1, found ${n.value}`, n.start, "semantic");
          return { op: "sample", n: p, fraction: true, pos };
        }
        return { op: "sample", n: this.count("sample"), fraction: false, pos };
      }
      case "sample-distinct": {
        const n = this.count("sample-distinct");
        this.expectWord("of", "'of' and a column after sample-distinct's count");
        const at = this.peek();
        const column = this.expr();
        const name =
          column.kind === "field"
            ? column.name
            : this.fail("sample-distinct takes a column name", at.start, "semantic");
        return { op: "sample-distinct", n, column, name, pos };
      }
      case "getschema":
        return { op: "getschema", pos };
      case "redact":
        return this.redact(pos);
      case "externaldata":
        return this.refuse("externaldata", REFUSED_OPERATORS.externaldata, pos);
      case "top-nested":
        return this.refuse("top-nested", "it is not an operator of the APL reference", pos);
      default:
        return this.fail(`unknown or unsupported operator '${t.value}'`, pos, "semantic");
    }
  }

  count(op: string): number {
    const n = this.peek();
    if (n.kind === "ident" && this.lets.get(n.value) === "scalar") {
      this.fail(
        `${op} takes a number written in the query; let-bound counts are not supported`,
        n.start,
        "semantic",
      );
    }
    if (n.kind !== "int")
      this.fail(`${op} expects a non-negative integer, found ${this.describe(n)}`, n.start);
    this.next();
    const value = Number(n.value);
    if (!Number.isSafeInteger(value)) this.fail(`${op} ${n.value} is too large`, n.start);
    return value;
  }

  sortKeys(): SortKey[] {
    const keys: SortKey[] = [];
    do {
      const at = this.peek();
      const expr = this.expr();
      const name = expr.kind === "field" ? expr.name : this.source.slice(at.start, this.prevEnd());
      let desc = true;
      if (this.isWord("asc")) {
        desc = false;
        this.next();
      } else if (this.isWord("desc")) this.next();
      let nullsFirst: boolean | undefined;
      if (this.isWord("nulls")) {
        this.next();
        if (this.isWord("first")) nullsFirst = true;
        else if (this.isWord("last")) nullsFirst = false;
        else
          this.fail(
            `expected 'first' or 'last' after nulls, found ${this.describe(this.peek())}`,
            this.peek().start,
          );
        this.next();
      }
      keys.push({ expr, name, desc, nullsFirst });
    } while (this.isPunct(",") && this.next());
    return keys;
  }

  prevEnd(): number {
    return this.tokens[Math.max(0, this.i - 1)].end;
  }

  /** `name = expr` or a bare expression named after its field (or by `fallback`). */
  namedExpr(fallback: (expr: Expr, at: Token) => string): NamedExpr {
    const at = this.peek();
    if (
      this.isPunct("(") &&
      this.peek(1).kind === "ident" &&
      (this.isPunct(",", 2) || this.isPunct(")", 2))
    ) {
      // `(a, b) = f(x)`
      const save = this.i;
      this.next();
      const names: string[] = [];
      while (this.peek().kind === "ident") {
        names.push(this.next().value);
        if (!this.isPunct(",")) break;
        this.next();
      }
      if (this.isPunct(")") && this.isPunct("=", 1)) {
        this.next();
        this.next();
        return { name: names[0], names, expr: this.expr() };
      }
      this.i = save;
    }
    if (at.kind === "ident" && this.isPunct("=", 1)) {
      this.next();
      this.next();
      return { name: at.value, expr: this.expr() };
    }
    if (this.isPunct("[") && this.peek(1).kind === "string" && this.isPunct("]", 2) && this.isPunct("=", 3)) {
      this.next();
      const name = this.next().value;
      this.next();
      this.next();
      return { name, expr: this.expr() };
    }
    const expr = this.expr();
    return { name: expr.kind === "field" ? expr.name : fallback(expr, at), expr };
  }

  /** `a, b, x = expr`: unnamed expressions get the service's default names (`Column1`, ...). */
  namedList(op: string): NamedExpr[] {
    const out: NamedExpr[] = [];
    let unnamed = 0;
    do {
      const named = this.namedExpr((expr) => {
        unnamed++;
        return defaultName(expr, unnamed);
      });
      if ((op === "extend" || op === "project") && named.name === "_sysTime") {
        this.fail(`cannot assign to ${named.name}`, this.peek().start, "semantic");
      }
      out.push(named);
    } while (this.isPunct(",") && this.next());
    return out;
  }

  summarize(pos: number): Operator {
    const aggs: AggregationCall[] = [];
    if (!this.isWord("by")) {
      do aggs.push(this.aggregation());
      while (this.isPunct(",") && this.next());
    }
    const by = this.byClause();
    if (aggs.length === 0 && by.length === 0) this.fail("summarize needs an aggregation or a by clause", pos);
    return { op: "summarize", aggs, by, pos };
  }

  byClause(): NamedExpr[] {
    const by: NamedExpr[] = [];
    if (this.isWord("by")) {
      this.next();
      let unnamed = 0;
      do {
        this.inBy++;
        let named: NamedExpr;
        try {
          named = this.namedExpr((expr) => {
            // bin(_time, 1m) groups as `_time`, as the service names it.
            if (expr.kind === "call" && expr.args[0]?.kind === "field") return expr.args[0].name;
            unnamed++;
            return defaultName(expr, unnamed);
          });
        } finally {
          this.inBy--;
        }
        by.push(named);
      } while (this.isPunct(",") && this.next());
    } else if (this.peek().kind !== "eof" && !this.isPunct("|") && !this.isPunct(")") && !this.isPunct(";")) {
      const u = this.peek();
      this.fail(`expected ',', 'by', '|' or end of query, found ${this.describe(u)}`, u.start);
    }
    return by;
  }

  aggregation(): AggregationCall {
    let given: string | undefined;
    if (this.peek().kind === "ident" && this.isPunct("=", 1)) {
      given = this.next().value;
      this.next();
    } else if (
      this.isPunct("[") &&
      this.peek(1).kind === "string" &&
      this.isPunct("]", 2) &&
      this.isPunct("=", 3)
    ) {
      this.next();
      given = this.next().value;
      this.next();
      this.next();
    }
    const start = this.i;
    const fnTok = this.peek();
    if (fnTok.kind === "ident" && this.isPunct("(", 1) && lookupCall(fnTok.value).kind === "aggregation") {
      this.next();
      this.next();
      const args: Expr[] = [];
      const argTexts: string[] = [];
      if (!this.isPunct(")")) {
        do {
          const at = this.peek();
          if (this.isPunct("*") && (this.isPunct(",", 1) || this.isPunct(")", 1)))
            args.push({ kind: "star", pos: this.next().start });
          else if (this.peek().kind === "ident" && this.isPunct("=", 1)) {
            // arg_max(duration, longestSpan = span_id): the name is kept in the argument's text.
            this.next();
            this.next();
            args.push(this.expr());
          } else args.push(this.expr());
          argTexts.push(this.source.slice(at.start, this.prevEnd()));
        } while (this.isPunct(",") && this.next());
      }
      this.expectPunct(")", "',' or ')'");
      const u = this.peek();
      const ends =
        u.kind === "eof" ||
        (u.kind === "punct" && [",", "|", ")", ";"].includes(u.value)) ||
        (u.kind === "ident" && ["by", "default", "on"].includes(u.value));
      if (ends) return { given, fn: fnTok.value, args, argTexts, pos: fnTok.start };
      this.i = start;
    }
    // An expression over aggregations: `round(100.0 * countif(x) / count(), 2)`.
    this.aggregationDepth++;
    let expr: Expr;
    try {
      expr = this.expr();
    } finally {
      this.aggregationDepth--;
    }
    return { given, fn: "", args: [], argTexts: [], expr, pos: fnTok.start };
  }

  parseOp(pos: number, where: boolean): Operator {
    let kind: "simple" | "relaxed" | "regex" = "simple";
    let flags = "";
    for (;;) {
      if (this.isWord("kind") && this.isPunct("=", 1)) {
        this.next();
        this.next();
        const k = this.expectIdent("simple, relaxed or regex");
        if (k.value !== "simple" && k.value !== "relaxed" && k.value !== "regex") {
          this.fail(`expected kind=simple, relaxed or regex, found '${k.value}'`, k.start);
        }
        kind = k.value;
      } else if (this.isWord("flags") && this.isPunct("=", 1)) {
        this.next();
        this.next();
        flags = this.expectIdent("regex flags such as i, m, s or U").value;
      } else break;
    }
    const source = this.expr();
    this.expectWord("with", "'with' and a pattern after parse's expression");
    const parts: ParsePart[] = [];
    for (;;) {
      const t = this.peek();
      if (t.kind === "eof" || this.isPunct("|") || this.isPunct(")") || this.isPunct(";")) break;
      if (this.isPunct(",")) {
        this.next();
        continue;
      }
      if (this.isPunct("*")) {
        this.next();
        parts.push({ kind: "skip" });
      } else if (t.kind === "string") {
        this.next();
        parts.push({ kind: "text", value: t.value });
      } else if (t.kind === "ident" || (this.isPunct("[") && this.peek(1).kind === "string")) {
        const name = this.columnName("a column name");
        let type: string | undefined;
        if (this.isPunct(":")) {
          this.next();
          type = this.typeName();
        }
        parts.push({ kind: "column", name: name.name, type });
      } else {
        this.fail(
          `expected a string, a column name or '*' in parse's pattern, found ${this.describe(t)}`,
          t.start,
        );
      }
    }
    if (!parts.some((p) => p.kind === "column"))
      this.fail("parse's pattern names no column to extract", pos, "semantic");
    return { op: "parse", kind, flags, source, parts, where, pos };
  }

  parseKv(pos: number): Operator {
    const source = this.expr();
    this.expectWord("as", "'as' and a list of keys after parse-kv's expression");
    this.expectPunct("(", "'(' and the keys");
    const keys: { name: string; type?: string }[] = [];
    do {
      const name = this.columnName("a key name");
      let type: string | undefined;
      if (this.isPunct(":")) {
        this.next();
        type = this.typeName();
      }
      keys.push({ name: name.name, type });
    } while (this.isPunct(",") && this.next());
    this.expectPunct(")", "',' or ')' after the keys");
    let pairDelimiter = " ";
    let kvDelimiter = "=";
    let quote: string | undefined;
    if (this.isWord("with")) {
      this.next();
      this.expectPunct("(", "'(' and parse-kv's options");
      do {
        const opt = this.expectIdent("an option such as pair_delimiter");
        this.expectPunct("=", `'=' after ${opt.value}`);
        const v = this.next();
        if (v.kind !== "string")
          this.fail(`expected a string for ${opt.value}, found ${this.describe(v)}`, v.start);
        if (opt.value === "pair_delimiter") pairDelimiter = v.value;
        else if (opt.value === "kv_delimiter") kvDelimiter = v.value;
        else if (opt.value === "quote") quote = v.value;
        else
          this.fail(
            `unknown parse-kv option '${opt.value}': expected pair_delimiter, kv_delimiter or quote`,
            opt.start,
            "semantic",
          );
      } while (this.isPunct(",") && this.next());
      this.expectPunct(")", "',' or ')' after parse-kv's options");
    }
    return { op: "parse-kv", source, keys, pairDelimiter, kvDelimiter, quote, pos };
  }

  /** `[withsource=F] [kind=...] T1, T2, (subquery)`. */
  unionBody(): { withSource?: string; inner: boolean; sources: TabularExpr[] } {
    let withSource: string | undefined;
    let inner = false;
    for (;;) {
      if (this.isWord("withsource") && this.isPunct("=", 1)) {
        this.next();
        this.next();
        withSource = this.columnName("a column name for withsource").name;
      } else if (this.isWord("kind") && this.isPunct("=", 1)) {
        this.next();
        this.next();
        const k = this.expectIdent("inner or outer");
        if (k.value !== "inner" && k.value !== "outer")
          this.fail(`expected kind=inner or kind=outer, found '${k.value}'`, k.start);
        inner = k.value === "inner";
      } else if (this.isWord("isfuzzy") && this.isPunct("=", 1)) {
        this.next();
        this.next();
        this.next();
      } else break;
    }
    const sources: TabularExpr[] = [];
    do sources.push(this.tableRef());
    while (this.isPunct(",") && this.next());
    return { withSource, inner, sources };
  }

  /** A table operand: a parenthesised subquery, a let name or a dataset (wildcards allowed). */
  tableRef(): TabularExpr {
    const t = this.peek();
    if (this.isPunct("(")) {
      this.next();
      const body = this.tabular();
      this.expectPunct(")", "')' closing the subquery");
      return body;
    }
    if (this.isPunct("[")) return { source: this.datasetRef(), ops: [] };
    if (this.isPunct("*") || t.kind === "ident") {
      if (t.kind === "ident" && this.lets.get(t.value) === "tabular" && !this.isPunct("*", 1)) {
        this.next();
        return { source: { kind: "let", name: t.value, pos: t.start }, ops: [] };
      }
      if (t.kind === "ident" && (t.value === "datatable" || t.value === "print")) {
        return { source: this.tabularSource(), ops: [] };
      }
      const p = this.pattern("a dataset");
      this.datasets.push({ name: p.name, pos: p.pos });
      return { source: { kind: "dataset", name: p.name, pos: p.pos }, ops: [] };
    }
    return this.fail(`expected a dataset or a (subquery), found ${this.describe(t)}`, t.start);
  }

  join(op: "join" | "lookup", pos: number): Operator {
    // Defaults: inner for join (join-operator.mdx, "Kinds of join"), leftouter for lookup (lookup-operator.mdx).
    let kind = op === "join" ? "inner" : "leftouter";
    const kinds =
      op === "join"
        ? [
            "inner",
            "innerunique",
            "leftouter",
            "rightouter",
            "fullouter",
            "leftanti",
            "rightanti",
            "leftsemi",
            "rightsemi",
            "leftantisemi",
            "rightantisemi",
          ]
        : ["leftouter", "inner"];
    for (;;) {
      if (this.isWord("kind") && this.isPunct("=", 1)) {
        this.next();
        this.next();
        const k = this.expectIdent(`a ${op} kind`);
        if (!kinds.includes(k.value))
          this.fail(
            `unknown ${op} kind '${k.value}': expected one of ${kinds.join(", ")}`,
            k.start,
            "semantic",
          );
        kind = k.value === "leftantisemi" ? "leftanti" : k.value === "rightantisemi" ? "rightanti" : k.value;
      } else if (
        this.peek().kind === "ident" &&
        this.isPunct("=", 1) &&
        ["hint", "withsource"].some((h) => this.peek().value.startsWith(h))
      ) {
        this.next();
        this.next();
        this.next();
      } else break;
    }
    const right = this.tableRef();
    this.expectWord("on", `'on' and the ${op}'s key columns`);
    const on: JoinKey[] = [];
    do {
      // `key` (the same column on both sides), `a == b` (left's expression, right's expression, join-operator.mdx)
      // or `$left.a == $right.b` in either order.
      const first = this.joinSide();
      if (this.isPunct("==")) {
        this.next();
        const second = this.joinSide();
        if (first.side === "right" || second.side === "left")
          on.push({ left: second.expr, right: first.expr });
        else on.push({ left: first.expr, right: second.expr });
      } else if (first.side === undefined && first.expr.kind === "field") {
        on.push({ left: first.expr, right: first.expr });
      } else this.fail(`expected '==' and the other side's key after the ${op}'s key`, this.peek().start);
    } while (this.isPunct(",") && this.next());
    return { op, kind, right, on, pos };
  }

  /** One side of a join condition: an expression, `$left.` or `$right.` marking the side it reads. */
  joinSide(): { side?: "left" | "right"; expr: Expr } {
    const expr = this.additive();
    if (
      expr.kind === "field" &&
      (expr.path[0] === "$left" || expr.path[0] === "$right") &&
      expr.path.length > 1
    ) {
      const path = expr.path.slice(1);
      const name = path.join(".");
      return {
        side: expr.path[0] === "$left" ? "left" : "right",
        expr: {
          kind: "field",
          name,
          path: name.includes(".") && path.length === 1 ? [name] : path,
          pos: expr.pos,
        },
      };
    }
    return { expr };
  }

  mvExpand(pos: number): Operator {
    let itemIndex: string | undefined;
    let limit: number | undefined;
    for (;;) {
      if ((this.isWord("bagexpansion") || this.isWord("kind")) && this.isPunct("=", 1)) {
        this.next();
        this.next();
        const v = this.expectIdent("bag or array");
        if (v.value !== "bag" && v.value !== "array")
          this.fail(`expected bag or array, found '${v.value}'`, v.start);
      } else if (this.isWord("with_itemindex") && this.isPunct("=", 1)) {
        this.next();
        this.next();
        itemIndex = this.expectIdent("a column name").value;
      } else break;
    }
    const columns: { name: string; expr: Expr; to?: string }[] = [];
    do {
      const named = this.namedExpr((_e, at) =>
        this.fail("give the expanded expression a name: mv-expand name = expression", at.start, "semantic"),
      );
      let to: string | undefined;
      if (this.isWord("to") && this.isWord("typeof", 1)) {
        this.next();
        this.next();
        this.expectPunct("(");
        to = this.typeName();
        this.expectPunct(")");
      }
      columns.push({ name: named.name, expr: named.expr, to });
    } while (this.isPunct(",") && this.next());
    if (this.isWord("limit")) {
      this.next();
      limit = this.count("mv-expand limit");
    }
    return { op: "mv-expand", columns, limit, itemIndex, pos };
  }

  makeSeries(pos: number): Operator {
    const aggs: AggregationCall[] = [];
    const defaults: unknown[] = [];
    do {
      aggs.push(this.aggregation());
      let def: unknown = undefined;
      if (this.isWord("default")) {
        this.next();
        this.expectPunct("=", "'=' after default");
        const e = this.unary();
        if (e.kind !== "literal") this.fail("make-series default takes a constant", e.pos, "semantic");
        def = e.value.type === "null" ? null : "value" in e.value ? e.value.value : undefined;
      }
      defaults.push(def);
    } while (this.isPunct(",") && this.next());
    this.expectWord("on", "'on' and the time column after make-series's aggregations");
    const onAt = this.peek();
    const on = this.expr();
    const onName =
      on.kind === "field" ? on.name : this.fail("make-series on takes a column", onAt.start, "semantic");
    let from: Expr | undefined;
    let to: Expr | undefined;
    let step: Expr | undefined;
    if (this.isWord("in") && this.isWord("range", 1)) {
      this.next();
      this.next();
      this.expectPunct("(");
      from = this.expr();
      this.expectPunct(",");
      to = this.expr();
      this.expectPunct(",");
      step = this.expr();
      this.expectPunct(")");
    } else {
      if (this.isWord("from")) {
        this.next();
        from = this.expr();
      }
      if (this.isWord("to")) {
        this.next();
        to = this.expr();
      }
      this.expectWord("step", "'step' and the bin size, or 'in range(from, to, step)'");
      step = this.expr();
    }
    const by = this.byClause();
    return { op: "make-series", aggs, defaults, on, onName, from, to, step, by, pos };
  }

  search(pos: number): Operator {
    let caseSensitive = false;
    for (;;) {
      if (this.isWord("kind") && this.isPunct("=", 1)) {
        this.next();
        this.next();
        const k = this.expectIdent("case_sensitive or case_insensitive");
        if (k.value !== "case_sensitive" && k.value !== "case_insensitive" && k.value !== "default") {
          this.fail(`expected kind=default, case_sensitive or case_insensitive, found '${k.value}'`, k.start);
        }
        caseSensitive = k.value === "case_sensitive";
      } else if (this.isWord("in") && this.isPunct("(", 1)) {
        if (!this.searchAtStart) {
          this.refuse(
            "search in (tables) after a pipe",
            'start the query with it: search in (logs*) "term"',
            this.peek().start,
          );
        }
        this.next();
        this.next();
        do this.searchTables.push(this.pattern("a dataset or pattern"));
        while (this.isPunct(",") && this.next());
        this.expectPunct(")", "',' or ')' after search's datasets");
      } else break;
    }
    if (this.isPunct("*") && (this.peek(1).kind === "eof" || this.isPunct("|", 1) || this.isPunct(")", 1))) {
      const star = this.next();
      return {
        op: "search",
        expr: { kind: "literal", value: { type: "bool", value: true }, pos: star.start },
        pos,
      };
    }
    this.searchDepth++;
    this.searchCaseSensitive = caseSensitive;
    try {
      return { op: "search", expr: this.expr(), pos };
    } finally {
      this.searchDepth--;
    }
  }

  redact(pos: number): Operator {
    let token = "*";
    let hash = false;
    let groups = false;
    for (;;) {
      const t = this.peek();
      if (t.kind !== "ident" || !this.isPunct("=", 1)) break;
      if (t.value !== "replaceToken" && t.value !== "replaceHash" && t.value !== "redactGroups") break;
      this.next();
      this.next();
      const v = this.unary();
      if (v.kind !== "literal") this.fail(`${t.value} takes a constant`, v.pos, "semantic");
      if (t.value === "replaceToken") {
        if (v.value.type !== "string") this.fail("replaceToken takes a string", v.pos, "semantic");
        token = v.value.value;
      } else {
        if (v.value.type !== "bool") this.fail(`${t.value} takes true or false`, v.pos, "semantic");
        if (t.value === "replaceHash") hash = v.value.value;
        else groups = v.value.value;
      }
    }
    const patterns: string[] = [];
    do {
      const e = this.unary();
      if (e.kind === "literal" && e.value.type === "string") patterns.push(e.value.value);
      else if (e.kind === "literal" && e.value.type === "dynamic") {
        const v = e.value.value;
        const items = Array.isArray(v) ? v : v && typeof v === "object" ? Object.values(v) : [];
        for (const x of items) {
          if (typeof x !== "string") this.fail("redact's patterns must be strings", e.pos, "semantic");
          patterns.push(x);
        }
      } else this.fail("redact takes regex strings or a dynamic array of them", e.pos, "semantic");
    } while (this.isPunct(",") && this.next());
    let fields: string[] | undefined;
    if (this.isWord("on")) {
      this.next();
      fields = [];
      do fields.push(this.columnPath("a column to redact").name);
      while (this.isPunct(",") && this.next());
    }
    return { op: "redact", token, hash, groups, patterns, fields, pos };
  }

  args(): Expr[] {
    const args: Expr[] = [];
    if (this.isPunct(")")) {
      this.next();
      return args;
    }
    do {
      if (this.isPunct("*") && (this.isPunct(",", 1) || this.isPunct(")", 1))) {
        args.push({ kind: "star", pos: this.next().start });
        continue;
      }
      args.push(this.expr());
    } while (this.isPunct(",") && this.next());
    this.expectPunct(")", "',' or ')'");
    return args;
  }

  expr(): Expr {
    this.enter(this.peek().start);
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
    if (this.searchDepth > 0) {
      if (t.kind === "punct" && t.value === ":" && left.kind === "field") {
        this.next();
        return { kind: "binary", op: "has", left, right: this.additive(), pos: t.start };
      }
      const ends =
        t.kind === "eof" ||
        (t.kind === "punct" && (t.value === "|" || t.value === ")")) ||
        (t.kind === "ident" && (t.value === "and" || t.value === "or"));
      if (ends && left.kind === "literal" && left.value.type === "string") {
        const cs: Expr = {
          kind: "literal",
          value: { type: "bool", value: this.searchCaseSensitive },
          pos: left.pos,
        };
        return { kind: "call", name: "__search", args: [left, cs], pos: left.pos };
      }
    }
    if (t.kind === "punct" && COMPARISON.has(t.value)) {
      this.next();
      const op = (t.value === "<>" ? "!=" : t.value) as BinaryOp;
      return { kind: "binary", op, left, right: this.additive(), pos: t.start };
    }
    let negated = false;
    let word = t;
    if (t.kind === "punct" && t.value === "!") {
      const u = this.peek(1);
      const known =
        u.kind === "ident" &&
        u.start === t.end &&
        (u.value === "in" ||
          u.value === "between" ||
          u.value === "matches" ||
          STRING_OPS.has(u.value) ||
          LIST_STRING_OPS.has(u.value));
      if (!known) {
        this.fail(
          "'!' must be followed by in, between, contains, startswith, endswith, has or matches regex",
          t.start,
        );
      }
      negated = true;
      this.next();
      word = this.peek();
    }
    if (word.kind !== "ident") return left;
    if (!negated && NEGATED_WORDS[word.value]) {
      this.next();
      return {
        kind: "binary",
        op: NEGATED_WORDS[word.value] as BinaryOp,
        left,
        right: this.additive(),
        pos: t.start,
      };
    }
    if (word.value === "in") {
      this.next();
      let caseInsensitive = false;
      if (this.isPunct("~") && this.peek().start === word.end) {
        this.next();
        caseInsensitive = true;
      }
      this.expectPunct("(", `'(' and a list after ${negated ? "!" : ""}in${caseInsensitive ? "~" : ""}`);
      if (this.startsTabular()) {
        this.refuse(
          "in with a subquery",
          "write the values as a list or a let-bound dynamic array",
          this.peek().start,
        );
      }
      const list = this.args();
      return { kind: "in", negated, caseInsensitive, operand: left, list, pos: t.start };
    }
    if (word.value === "between") {
      this.next();
      this.expectPunct("(", "'(' after between");
      const low = this.additive();
      this.expectPunct("..", "'..' between the bounds: between (low .. high)");
      const high = this.additive();
      this.expectPunct(")", "')' after between's bounds");
      return { kind: "between", negated, operand: left, low, high, pos: t.start };
    }
    if (word.value === "matches") {
      this.next();
      // `matches "..."` without `regex` reads the same (apl's performance page writes it so).
      if (this.isWord("regex")) this.next();
      return {
        kind: "binary",
        op: negated ? "!matches regex" : "matches regex",
        left,
        right: this.additive(),
        pos: t.start,
      };
    }
    if (STRING_OPS.has(word.value)) {
      this.next();
      const op = (negated ? `!${word.value}` : word.value) as BinaryOp;
      return { kind: "binary", op, left, right: this.additive(), pos: t.start };
    }
    if (LIST_STRING_OPS.has(word.value)) {
      this.next();
      const op = (negated ? `!${word.value}` : word.value) as BinaryOp;
      const open = this.expectPunct("(", `'(' and a list after ${word.value}`);
      const list = this.args();
      const right: Expr = { kind: "call", name: "pack_array", args: list, pos: open.start };
      return { kind: "binary", op, left, right, pos: t.start };
    }
    if (negated) this.fail(`expected an operator after '!', found ${this.describe(word)}`, word.start);
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
    if (this.isPunct("-") || this.isPunct("+")) {
      const op = this.next();
      this.enter(op.start);
      try {
        const operand = this.unary();
        if (op.value === "+") return operand;
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
    return this.postfix();
  }

  /** Dot and bracket access on any value: `f(x).a`, `arr[0]`, `bag['k']`, `arr[-1]`. */
  postfix(): Expr {
    let e = this.primary();
    for (;;) {
      if (this.isPunct("[") && this.peek().start === this.prevEnd()) {
        const open = this.next();
        const index = this.expr();
        if (this.isPunct(":")) {
          // `arr[1:]`, `arr[1:3]`: a slice, end exclusive, as array_slice takes it.
          this.next();
          const args: Expr[] = [e, index];
          if (!this.isPunct("]")) args.push(this.expr());
          this.expectPunct("]", "']' closing the slice");
          e = { kind: "call", name: "array_slice", args, pos: open.start };
          continue;
        }
        this.expectPunct("]", "']' or ':' after the index");
        if (e.kind === "field" && index.kind === "literal" && index.value.type === "string") {
          const key = index.value.value;
          e = { kind: "field", name: `${e.name}.${key}`, path: [...e.path, key], pos: e.pos };
        } else e = { kind: "index", target: e, index, pos: open.start };
        continue;
      }
      if (
        this.isPunct(".") &&
        this.peek(1).kind === "ident" &&
        e.kind !== "field" &&
        (e.kind !== "literal" || e.value.type === "dynamic")
      ) {
        const dot = this.next();
        const key = this.next().value;
        e = {
          kind: "index",
          target: e,
          index: { kind: "literal", value: { type: "string", value: key }, pos: dot.start },
          pos: dot.start,
        };
        continue;
      }
      if (this.isPunct(".") && this.isPunct("[", 1) && e.kind === "field") {
        this.next();
        const name = this.columnName();
        e = { kind: "field", name: `${e.name}.${name.name}`, path: [...e.path, name.name], pos: e.pos };
        continue;
      }
      return e;
    }
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
        if (t.value === "*" && this.peek(1).kind === "ident") {
          // `where * has "x"`: the condition holds for any column (apl/tabular-operators/where-operator.mdx).
          this.next();
          return { kind: "star", pos: t.start };
        }
        if (t.value === "(") {
          this.next();
          if (this.startsTabular()) {
            this.refuse(
              "a subquery as a value",
              "the emulator does not evaluate a subquery to a value; bind constants with let, or join the tables",
              t.start,
            );
          }
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
      if (!this.isPunct("("))
        return { kind: "literal", value: { type: "bool", value: t.value === "true" }, pos: t.start };
    }
    if (t.value === "null" && !this.isPunct("("))
      return { kind: "literal", value: { type: "null" }, pos: t.start };
    if (this.isPunct("(")) {
      const name = t.value;
      if (name === "datetime" || name === "date") return this.datetimeLiteral(t);
      if (name === "dynamic") return this.dynamicLiteral(t);
      if (
        name === "typeof" &&
        this.peek(1).kind === "ident" &&
        TYPE_NAMES.has(this.peek(1).value) &&
        this.isPunct(")", 2)
      ) {
        // typeof(string): a type, as ensure_field and mv-expand's `to typeof()` take it.
        this.next();
        const ty = this.next();
        this.next();
        return { kind: "literal", value: { type: "string", value: ty.value }, pos: t.start };
      }
      if (name === "timespan" || name === "time") return this.timespanLiteral(t);
      const typed = this.typedLiteral(t);
      if (typed) return typed;
      const open = this.next();
      if (name === "toscalar") {
        this.refuse(
          "toscalar",
          "the emulator does not evaluate a subquery to a value; toscalar is not in the APL reference",
          t.start,
        );
      }
      const args = this.args();
      this.checkCall(name, args.length, t.start, open.start);
      if (name === "histogram" && this.inBy > 0 && this.aggregationDepth === 0) {
        return { kind: "call", name: "bin", args, pos: t.start };
      }
      return { kind: "call", name, args, pos: t.start };
    }
    const path = [t.value];
    let end = t.end;
    while (this.isPunct(".") && this.peek(1).kind === "ident" && this.peek(1).start === this.peek().end) {
      this.next();
      const seg = this.next();
      path.push(seg.value);
      end = seg.end;
    }
    return { kind: "field", name: this.source.slice(t.start, end).replace(/\s+/g, ""), path, pos: t.start };
  }

  /** Refuses an unknown, refused or misused function at its name, a wrong argument count at its '('. */
  checkCall(name: string, argc: number, at: number, open: number): void {
    const kind = lookupCall(name);
    switch (kind.kind) {
      case "unknown":
        return this.fail(`unknown function '${name}'`, at, "semantic");
      case "aggregation":
        if (this.aggregationDepth > 0) return;
        // `by histogram(x, 10)` groups x in bins of 10 (histogram.mdx's SQL comparison: FLOOR(x/10)*10).
        if (name === "histogram" && this.inBy > 0 && argc === 2) return;
        return this.refuse(
          `${name} outside summarize`,
          "it is an aggregation: use it in summarize or make-series",
          at,
        );
      case "unsupported":
        return this.refuse(name, kind.why, at);
      default:
        if (argc < kind.minArgs || argc > kind.maxArgs) {
          this.fail(`${name}() ${arityText(kind.minArgs, kind.maxArgs)}, got ${argc}`, open, "semantic");
        }
    }
  }

  /** `int(5)`, `long(null)`, `real(1.5)`, `bool(true)`, `string('x')`, `decimal(1.0)`, `guid(...)`. */
  typedLiteral(t: Token): Expr | undefined {
    const kinds: Record<string, "int" | "real" | "bool"> = {
      int: "int",
      long: "int",
      real: "real",
      double: "real",
      decimal: "real",
      bool: "bool",
      boolean: "bool",
    };
    const want = kinds[t.value];
    if (!want) return undefined;
    this.next();
    const v = this.peek();
    let out: Expr;
    if (this.isWord("null")) {
      this.next();
      out = { kind: "literal", value: { type: "null" }, pos: t.start };
    } else if (want === "bool" && (this.isWord("true") || this.isWord("false"))) {
      out = { kind: "literal", value: { type: "bool", value: this.next().value === "true" }, pos: t.start };
    } else if (want !== "bool") {
      const e = this.unary();
      if (e.kind !== "literal" || (e.value.type !== "int" && e.value.type !== "real")) {
        return this.fail(`${t.value}(...) takes a number or null`, v.start);
      }
      out = {
        kind: "literal",
        value: { type: want, value: want === "int" ? Math.trunc(e.value.value) : e.value.value },
        pos: t.start,
      };
    } else return this.fail(`${t.value}(...) takes true, false or null`, v.start);
    this.expectPunct(")", `')' closing ${t.value}(`);
    return out;
  }

  timespanLiteral(t: Token): Expr {
    this.next();
    const v = this.peek();
    let ns: bigint | undefined;
    if (v.kind === "timespan") {
      this.next();
      ns = timespanNs(v.value);
    } else if (this.isWord("null")) {
      this.next();
      this.expectPunct(")");
      return { kind: "literal", value: { type: "null" }, pos: t.start };
    } else {
      // The clock form d.hh:mm:ss lexes as several tokens: read the raw text up to ')'.
      const close = this.source.indexOf(")", v.start);
      if (close < 0) this.fail("timespan( is missing its closing ')'", v.start);
      ns = clockTimespanNs(this.source.slice(v.start, close));
      if (ns === undefined && /^\s*\d+\s*$/.test(this.source.slice(v.start, close))) {
        ns = BigInt(this.source.slice(v.start, close).trim()) * 86_400_000_000_000n;
      }
      while (this.peek().kind !== "eof" && this.peek().start < close) this.next();
    }
    if (ns === undefined)
      this.fail(`${t.value}(...) is not a timespan such as 1d, 2h or 1.02:03:04`, v.start);
    this.expectPunct(")", `')' closing ${t.value}(`);
    return { kind: "literal", value: { type: "timespan", ns }, pos: t.start };
  }

  datetimeLiteral(t: Token): Expr {
    this.next();
    const raw = this.peek();
    if (raw.kind !== "datetime") {
      // date(...) is lexed as an ordinary call; read its raw text up to ')'.
      const close = this.source.indexOf(")", raw.start);
      if (close < 0) this.fail(`${t.value}( is missing its closing ')'`, raw.start);
      const text = this.source.slice(raw.start, close).trim();
      while (this.peek().kind !== "eof" && this.peek().start < close) this.next();
      this.expectPunct(")");
      return this.datetimeValue(text, t.start, raw.start);
    }
    this.next();
    this.expectPunct(")");
    return this.datetimeValue(raw.value, t.start, raw.start);
  }

  datetimeValue(rawText: string, pos: number, at: number): Expr {
    const text = rawText.replace(/^(['"])(.*)\1$/, "$2").trim();
    if (text === "null") return { kind: "literal", value: { type: "null" }, pos };
    const ns = parseDatetimeText(text);
    if (ns === undefined) this.fail(`datetime(${rawText}) is not an RFC 3339 time`, at);
    return { kind: "literal", value: { type: "datetime", ns }, pos };
  }

  /** `dynamic([1, "a", {"k": null}])`, `dynamic({...})`, `dynamic(null)`, `dynamic([x, y])` (built per row). */
  dynamicLiteral(t: Token): Expr {
    this.next();
    const e = this.dynamicExpr();
    this.expectPunct(")", "')' closing dynamic(");
    return { ...e, pos: t.start };
  }

  /** A dynamic value: a constant when every element is one, else pack_array/bag_pack over the elements. */
  dynamicExpr(): Expr {
    const t = this.peek();
    this.enter(t.start);
    try {
      if (this.isPunct("[")) {
        this.next();
        const items: Expr[] = [];
        if (!this.isPunct("]")) {
          do {
            if (this.isPunct("]")) break;
            items.push(this.dynamicExpr());
          } while (this.isPunct(",") && this.next());
        }
        this.expectPunct("]", "',' or ']' in the dynamic array");
        if (items.every(isConstant)) {
          return { kind: "literal", value: { type: "dynamic", value: items.map(constantOf) }, pos: t.start };
        }
        return { kind: "call", name: "pack_array", args: items, pos: t.start };
      }
      if (this.isPunct("{")) {
        this.next();
        const keys: string[] = [];
        const values: Expr[] = [];
        if (!this.isPunct("}")) {
          do {
            if (this.isPunct("}")) break;
            const k = this.next();
            if (k.kind !== "string" && k.kind !== "ident") {
              this.fail(`expected a quoted key in the dynamic object, found ${this.describe(k)}`, k.start);
            }
            this.expectPunct(":", `':' after the key ${JSON.stringify(k.value)}`);
            keys.push(k.value);
            values.push(this.dynamicExpr());
          } while (this.isPunct(",") && this.next());
        }
        this.expectPunct("}", "',' or '}' in the dynamic object");
        if (values.every(isConstant)) {
          const out: Record<string, unknown> = {};
          keys.forEach((key, i) => (out[key] = constantOf(values[i])));
          return { kind: "literal", value: { type: "dynamic", value: out }, pos: t.start };
        }
        const args: Expr[] = [];
        keys.forEach((key, i) => {
          args.push({ kind: "literal", value: { type: "string", value: key }, pos: t.start }, values[i]);
        });
        return { kind: "call", name: "bag_pack", args, pos: t.start };
      }
      return this.expr();
    } finally {
      this.depth--;
    }
  }
}

/** Whether an expression is a literal (dynamic's elements). */
function isConstant(e: Expr): e is Extract<Expr, { kind: "literal" }> {
  return e.kind === "literal";
}

/** A literal's runtime value inside a dynamic: datetimes and timespans as the evaluator's values. */
function constantOf(e: Expr): unknown {
  if (e.kind !== "literal") return null;
  const v = e.value;
  switch (v.type) {
    case "null":
      return null;
    case "datetime":
      return new DateTime(v.ns);
    case "timespan":
      return new Timespan(v.ns);
    default:
      return v.value;
  }
}

/** The default name of an unnamed computed column: `Column1`, `Column2`, ... as the service names them. */
function defaultName(expr: Expr, n: number): string {
  if (expr.kind === "index" && expr.target.kind === "field" && expr.index.kind === "literal") {
    return `${expr.target.name}_${String("value" in expr.index.value ? expr.index.value.value : "")}`;
  }
  return `Column${n}`;
}

/** A datetime literal's text: RFC 3339, a bare date, a time without its zone, or `2023-01-01 12:00:00`. */
export function parseDatetimeText(text: string): bigint | undefined {
  let t = text.trim();
  if (/^\d{4}-\d{2}-\d{2} \d/.test(t)) t = t.replace(" ", "T");
  let ns = parseRfc3339Ns(t);
  if (ns === undefined && /^\d{4}-\d{2}-\d{2}$/.test(t)) ns = parseRfc3339Ns(`${t}T00:00:00Z`);
  if (ns === undefined && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(t)) ns = parseRfc3339Ns(`${t}:00Z`);
  if (ns === undefined) ns = parseRfc3339Ns(`${t}Z`);
  if (ns === undefined && /^\d{4}\/\d{2}\/\d{2}$/.test(t))
    ns = parseRfc3339Ns(`${t.replace(/\//g, "-")}T00:00:00Z`);
  return ns;
}

/** Parses an APL query into its syntax tree; throws {@link AplError} pointing at the offending token. */
export function parseApl(source: string): Query {
  if (source.length > APL_LIMITS.maxChars) {
    throw new AplError(`query is too long: more than ${APL_LIMITS.maxChars} characters`, 1, 1);
  }
  const tokens = tokenize(source, APL_LIMITS.maxTokens);
  return { ...new Parser(source, tokens).query(), source };
}
