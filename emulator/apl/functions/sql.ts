/**
 * parse_sql and format_sql (apl/scalar-functions/sql-functions): a SELECT statement as the data model the pages
 * show, and back. The model, from the pages' outputs: `statement: "select"`, `columns: [{colname}]`,
 * `from: [{table}]`, `where` as `{operator, params}` trees whose leaves are `{colname}` or
 * `{value, valtype}` (values as text, valtype "integer", "float", "string", "boolean" or "null"), and
 * `order: [{expr, direction}]`. Beyond what the pages show (aliases, DISTINCT, GROUP BY, HAVING, LIMIT, function
 * calls, IN, BETWEEN, LIKE, IS NULL) the emulator names things the same way. Other statements, and text that is
 * not SQL, give null.
 */
import { asBag, asString, fn, type FunctionTable, isBag } from "./common";

type Node = Record<string, unknown>;

interface Token {
  kind: "word" | "number" | "string" | "quoted" | "op" | "end";
  text: string;
}

const KEYWORDS = new Set([
  "select",
  "distinct",
  "from",
  "where",
  "group",
  "by",
  "having",
  "order",
  "limit",
  "offset",
  "asc",
  "desc",
  "and",
  "or",
  "not",
  "as",
  "in",
  "is",
  "null",
  "like",
  "between",
  "true",
  "false",
  "join",
  "on",
  "inner",
  "left",
  "right",
]);

/** Token shapes, sticky so each match starts where the last token ended (no copying of the rest). */
const TOKEN_SHAPES: [Token["kind"], RegExp][] = [
  ["word", /[A-Za-z_][A-Za-z0-9_$]*/y],
  ["number", /\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?/y],
  ["string", /'((?:[^']|'')*)'/y],
  ["quoted", /"((?:[^"]|"")*)"|`([^`]*)`/y],
  ["op", /<=|>=|<>|!=|=|<|>|\(|\)|,|\*|\+|-|\/|%|\.|;/y],
];
const BLANKS = /\s+/y;

function tokenize(sql: string): Token[] | null {
  const tokens: Token[] = [];
  let i = 0;
  while (i < sql.length) {
    BLANKS.lastIndex = i;
    if (BLANKS.test(sql)) {
      i = BLANKS.lastIndex;
      continue;
    }
    let matched = false;
    for (const [kind, shape] of TOKEN_SHAPES) {
      shape.lastIndex = i;
      const m = shape.exec(sql);
      if (!m) continue;
      const text =
        kind === "string"
          ? m[1].replace(/''/g, "'")
          : kind === "quoted"
            ? (m[1] ?? m[2]).replace(/""/g, '"')
            : m[0];
      tokens.push({ kind, text });
      i += m[0].length;
      matched = true;
      break;
    }
    if (!matched) return null;
  }
  tokens.push({ kind: "end", text: "" });
  return tokens;
}

class SqlParser {
  private at = 0;
  constructor(private readonly tokens: Token[]) {}

  private peek(offset = 0): Token {
    return this.tokens[Math.min(this.at + offset, this.tokens.length - 1)];
  }
  private isWord(word: string, offset = 0): boolean {
    const t = this.peek(offset);
    return t.kind === "word" && t.text.toLowerCase() === word;
  }
  private isOp(op: string): boolean {
    const t = this.peek();
    return t.kind === "op" && t.text === op;
  }
  private take(): Token {
    return this.tokens[this.at++];
  }
  private expectWord(word: string): void {
    if (!this.isWord(word)) throw new SyntaxError(`expected ${word}`);
    this.at++;
  }
  private expectOp(op: string): void {
    if (!this.isOp(op)) throw new SyntaxError(`expected ${op}`);
    this.at++;
  }

  statement(): Node {
    this.expectWord("select");
    const model: Node = { statement: "select" };
    if (this.isWord("distinct")) {
      this.at++;
      model.distinct = true;
    }
    model.columns = this.list(() => this.selectItem());
    if (this.isWord("from")) {
      this.at++;
      model.from = this.list(() => this.tableRef());
    }
    if (this.isWord("where")) {
      this.at++;
      model.where = this.expr();
    }
    if (this.isWord("group")) {
      this.at++;
      this.expectWord("by");
      model.group = this.list(() => this.expr());
    }
    if (this.isWord("having")) {
      this.at++;
      model.having = this.expr();
    }
    if (this.isWord("order")) {
      this.at++;
      this.expectWord("by");
      model.order = this.list(() => {
        const expr = this.expr();
        let direction = "asc";
        if (this.isWord("asc") || this.isWord("desc")) direction = this.take().text.toLowerCase();
        return { expr, direction };
      });
    }
    if (this.isWord("limit")) {
      this.at++;
      const limit: Node = { rowcount: this.primary() };
      if (this.isWord("offset")) {
        this.at++;
        limit.offset = this.primary();
      } else if (this.isOp(",")) {
        this.at++;
        limit.offset = limit.rowcount;
        limit.rowcount = this.primary();
      }
      model.limit = limit;
    }
    if (this.isOp(";")) this.at++;
    if (this.peek().kind !== "end") throw new SyntaxError(`unexpected ${this.peek().text}`);
    return model;
  }

  private list<T>(item: () => T): T[] {
    const out = [item()];
    while (this.isOp(",")) {
      this.at++;
      out.push(item());
    }
    return out;
  }

  private alias(): string | undefined {
    if (this.isWord("as")) {
      this.at++;
      const t = this.take();
      if (t.kind !== "word" && t.kind !== "quoted") throw new SyntaxError("expected an alias");
      return t.text;
    }
    const t = this.peek();
    if (t.kind === "quoted" || (t.kind === "word" && !KEYWORDS.has(t.text.toLowerCase()))) {
      this.at++;
      return t.text;
    }
    return undefined;
  }

  private selectItem(): Node {
    if (this.isOp("*")) {
      this.at++;
      return { star: true };
    }
    const expr = this.expr();
    const alias = this.alias();
    const item: Node = "colname" in expr && Object.keys(expr).length <= 2 ? { ...expr } : { expr };
    if (alias !== undefined) item.alias = alias;
    return item;
  }

  private tableRef(): Node {
    const t = this.take();
    if (t.kind !== "word" && t.kind !== "quoted") throw new SyntaxError("expected a table");
    let table = t.text;
    if (this.isOp(".")) {
      this.at++;
      table = `${table}.${this.take().text}`;
    }
    const ref: Node = { table };
    const alias = this.alias();
    if (alias !== undefined) ref.alias = alias;
    return ref;
  }

  expr(): Node {
    return this.or();
  }
  private or(): Node {
    let left = this.and();
    while (this.isWord("or")) {
      this.at++;
      left = { operator: "or", params: [left, this.and()] };
    }
    return left;
  }
  private and(): Node {
    let left = this.not();
    while (this.isWord("and")) {
      this.at++;
      left = { operator: "and", params: [left, this.not()] };
    }
    return left;
  }
  private not(): Node {
    if (this.isWord("not")) {
      this.at++;
      return { operator: "not", params: [this.not()] };
    }
    return this.comparison();
  }
  private comparison(): Node {
    const left = this.additive();
    const t = this.peek();
    if (t.kind === "op" && ["=", "<>", "!=", "<", "<=", ">", ">="].includes(t.text)) {
      this.at++;
      return { operator: t.text, params: [left, this.additive()] };
    }
    const negated =
      this.isWord("not") && (this.isWord("in", 1) || this.isWord("like", 1) || this.isWord("between", 1));
    if (negated) this.at++;
    const wrap = (n: Node): Node => (negated ? { operator: "not", params: [n] } : n);
    if (this.isWord("in")) {
      this.at++;
      this.expectOp("(");
      const items = this.list(() => this.additive());
      this.expectOp(")");
      return wrap({ operator: "in", params: [left, { list: items }] });
    }
    if (this.isWord("like")) {
      this.at++;
      return wrap({ operator: "like", params: [left, this.additive()] });
    }
    if (this.isWord("between")) {
      this.at++;
      const low = this.additive();
      this.expectWord("and");
      return wrap({ operator: "between", params: [left, low, this.additive()] });
    }
    if (this.isWord("is")) {
      this.at++;
      const not = this.isWord("not");
      if (not) this.at++;
      this.expectWord("null");
      return { operator: not ? "is not null" : "is null", params: [left] };
    }
    return left;
  }
  private additive(): Node {
    let left = this.multiplicative();
    while (this.isOp("+") || this.isOp("-")) {
      const op = this.take().text;
      left = { operator: op, params: [left, this.multiplicative()] };
    }
    return left;
  }
  private multiplicative(): Node {
    let left = this.primary();
    while (this.isOp("*") || this.isOp("/") || this.isOp("%")) {
      const op = this.take().text;
      left = { operator: op, params: [left, this.primary()] };
    }
    return left;
  }
  primary(): Node {
    const t = this.take();
    if (t.kind === "number") return { value: t.text, valtype: /[.eE]/.test(t.text) ? "float" : "integer" };
    if (t.kind === "string") return { value: t.text, valtype: "string" };
    if (t.kind === "op" && t.text === "-" && this.peek().kind === "number") {
      const n = this.take().text;
      return { value: `-${n}`, valtype: /[.eE]/.test(n) ? "float" : "integer" };
    }
    if (t.kind === "op" && t.text === "(") {
      const inner = this.expr();
      this.expectOp(")");
      return inner;
    }
    if (t.kind === "word" || t.kind === "quoted") {
      const lower = t.text.toLowerCase();
      if (t.kind === "word" && lower === "null") return { value: "null", valtype: "null" };
      if (t.kind === "word" && (lower === "true" || lower === "false"))
        return { value: lower, valtype: "boolean" };
      if (t.kind === "word" && this.isOp("(")) {
        this.at++;
        const params: Node[] = [];
        if (this.isOp("*")) {
          this.at++;
          params.push({ star: true });
        } else if (!this.isOp(")")) params.push(...this.list(() => this.expr()));
        this.expectOp(")");
        return { function: lower, params };
      }
      if (this.isOp(".")) {
        this.at++;
        const column = this.take();
        if (
          column.kind !== "word" &&
          column.kind !== "quoted" &&
          !(column.kind === "op" && column.text === "*")
        ) {
          throw new SyntaxError("expected a column");
        }
        return { table: t.text, colname: column.text };
      }
      if (t.kind === "word" && KEYWORDS.has(lower)) throw new SyntaxError(`unexpected ${t.text}`);
      return { colname: t.text };
    }
    throw new SyntaxError(`unexpected ${t.text || "end of statement"}`);
  }
}

/** A SELECT statement's model, or null when the text is not one the emulator reads. */
export function parseSql(sql: string): Node | null {
  const tokens = tokenize(sql);
  if (tokens === null) return null;
  try {
    return new SqlParser(tokens).statement();
  } catch (e) {
    // A RangeError is the stack running out on thousands of nested parentheses: too deep to read, like bad SQL.
    if (e instanceof SyntaxError || e instanceof RangeError) return null;
    throw e;
  }
}

const quoteString = (s: string): string => `'${s.replace(/'/g, "''")}'`;
const identifier = (s: string): string =>
  /^[A-Za-z_][A-Za-z0-9_$]*$/.test(s) && !KEYWORDS.has(s.toLowerCase()) ? s : `\`${s}\``;

/** One expression of the model as SQL; throws TypeError on a node it does not know. */
function formatExpr(n: unknown, parentPrecedence = 0): string {
  if (!isBag(n)) throw new TypeError("not an expression");
  if (n.star === true) return "*";
  if (typeof n.colname === "string") {
    const column = n.colname === "*" ? "*" : identifier(n.colname);
    return typeof n.table === "string" ? `${identifier(n.table)}.${column}` : column;
  }
  if (typeof n.valtype === "string") {
    const v = String(n.value);
    return n.valtype === "string" ? quoteString(v) : v;
  }
  if (typeof n.function === "string" && Array.isArray(n.params)) {
    return `${n.function}(${n.params.map((p) => formatExpr(p)).join(", ")})`;
  }
  if (Array.isArray(n.list)) return `(${n.list.map((p) => formatExpr(p)).join(", ")})`;
  if (typeof n.operator === "string" && Array.isArray(n.params)) {
    const op = n.operator.toLowerCase();
    const p = n.params;
    const precedence = op === "or" ? 1 : op === "and" ? 2 : op === "not" ? 3 : 4;
    let text: string;
    if (op === "not") text = `not ${formatExpr(p[0], precedence)}`;
    else if (op === "is null" || op === "is not null") text = `${formatExpr(p[0], 5)} ${op}`;
    else if (op === "between")
      text = `${formatExpr(p[0], 5)} between ${formatExpr(p[1], 5)} and ${formatExpr(p[2], 5)}`;
    else text = `${formatExpr(p[0], precedence)} ${op} ${formatExpr(p[1], precedence + 1)}`;
    return precedence < parentPrecedence ? `(${text})` : text;
  }
  throw new TypeError("not an expression");
}

/** A model as SQL text, keywords in lower case (the format_sql page's output); null for a model it cannot read. */
export function formatSql(model: Record<string, unknown>): string | null {
  try {
    if (model.statement !== "select" || !Array.isArray(model.columns)) return null;
    const columns = model.columns.map((c) => {
      const item = c as Node;
      const expr = isBag(item.expr) ? formatExpr(item.expr) : formatExpr({ ...item, alias: undefined });
      return typeof item.alias === "string" ? `${expr} as ${identifier(item.alias)}` : expr;
    });
    let sql = `select ${model.distinct === true ? "distinct " : ""}${columns.join(", ")}`;
    if (Array.isArray(model.from)) {
      sql += ` from ${model.from
        .map((t) => {
          const ref = t as Node;
          const name = String(ref.table).split(".").map(identifier).join(".");
          return typeof ref.alias === "string" ? `${name} as ${identifier(ref.alias)}` : name;
        })
        .join(", ")}`;
    }
    if (model.where !== undefined) sql += ` where ${formatExpr(model.where)}`;
    if (Array.isArray(model.group)) sql += ` group by ${model.group.map((g) => formatExpr(g)).join(", ")}`;
    if (model.having !== undefined) sql += ` having ${formatExpr(model.having)}`;
    if (Array.isArray(model.order)) {
      sql += ` order by ${model.order
        .map((o) => {
          const item = o as Node;
          return `${formatExpr(item.expr)}${item.direction === "desc" ? " desc" : ""}`;
        })
        .join(", ")}`;
    }
    if (isBag(model.limit)) {
      sql += ` limit ${formatExpr(model.limit.rowcount)}`;
      if (model.limit.offset !== undefined) sql += ` offset ${formatExpr(model.limit.offset)}`;
    }
    return sql;
  } catch (e) {
    if (e instanceof TypeError || e instanceof RangeError) return null;
    throw e;
  }
}

/** The SQL family. */
export const SQL_FUNCTIONS: FunctionTable = {
  parse_sql: fn(1, 1, ([v]) => {
    const sql = asString(v);
    return sql === null ? null : parseSql(sql);
  }),
  format_sql: fn(1, 1, ([v]) => {
    const model = asBag(v);
    return model === null ? null : formatSql(model);
  }),
};
