/** The APL syntax tree produced by the parser. Every node keeps its 0-based source offset for errors. */

/** Binary operators, including the word operators (`contains`, `!startswith`, ...). */
export type BinaryOp =
  | "or"
  | "and"
  | "=="
  | "!="
  | "=~"
  | "!~"
  | "<"
  | "<="
  | ">"
  | ">="
  | "+"
  | "-"
  | "*"
  | "/"
  | "%"
  | "matches regex"
  | "!matches regex"
  | StringOp
  | `!${StringOp}`;

/**
 * The string operators of the reference (apl/scalar-operators/string-operators.mdx), case-insensitive unless
 * `_cs`. Their negations are written `!op`;
 */
export type StringOp =
  | "contains"
  | "contains_cs"
  | "startswith"
  | "startswith_cs"
  | "endswith"
  | "endswith_cs"
  | "has"
  | "has_cs"
  | "hasprefix"
  | "hasprefix_cs"
  | "hassuffix"
  | "hassuffix_cs"
  | "has_any"
  | "has_any_cs"
  | "has_all"
  | "has_all_cs";

/** A literal value: JSON scalars plus datetimes and timespans (nanoseconds) and `dynamic(...)` values. */
export type LiteralValue =
  | { type: "null" }
  | { type: "bool"; value: boolean }
  | { type: "int" | "real"; value: number }
  | { type: "string"; value: string }
  | { type: "datetime"; ns: bigint }
  | { type: "timespan"; ns: bigint }
  | { type: "dynamic"; value: unknown };

/** An expression. */
export type Expr =
  | { kind: "literal"; value: LiteralValue; pos: number }
  | {
      kind: "field";
      /** `a.b.c` as written (flat-key lookup first). */ name: string;
      path: string[];
      pos: number;
    }
  /** `x[0]`, `x['key']`, `f(x).key`: an element of a dynamic value. */
  | { kind: "index"; target: Expr; index: Expr; pos: number }
  | { kind: "binary"; op: BinaryOp; left: Expr; right: Expr; pos: number }
  | { kind: "neg"; operand: Expr; pos: number }
  /** `x in (a, b)`, `x !in (...)`, `x in~ (...)`, `x !in~ (...)`. */
  | { kind: "in"; negated: boolean; caseInsensitive: boolean; operand: Expr; list: Expr[]; pos: number }
  /** `x between (lo .. hi)`, `x !between (lo .. hi)`. */
  | { kind: "between"; negated: boolean; operand: Expr; low: Expr; high: Expr; pos: number }
  | { kind: "call"; name: string; args: Expr[]; pos: number }
  /** `*` as an argument: `count(*)`, `arg_max(x, *)`, `hash(*)`. */
  | { kind: "star"; pos: number };

/** `name = expr` (names default to the field referenced). */
export interface NamedExpr {
  name: string;
  expr: Expr;
  /** `(a, b) = f(x)`: several names for a function returning several columns. */
  names?: string[];
}

/** One aggregation call of `summarize` or `make-series`: `n = count()`, `avg(duration)`, `percentiles(d, 50, 95)`. */
export interface AggregationCall {
  /** `name =` when written. */
  given?: string;
  fn: string;
  args: Expr[];
  /** The arguments' source texts, for the default output names. */
  argTexts: string[];
  /** An expression over aggregations (`round(100.0 * countif(x) / count(), 2)`); `fn` is "" then. */
  expr?: Expr;
  pos: number;
}

/** A `sort by`/`top by` key. */
export interface SortKey {
  expr: Expr;
  name: string;
  desc: boolean;
  /** `nulls first`/`nulls last` when written; otherwise first ascending, last descending. */
  nullsFirst?: boolean;
}

/** A part of a `parse` pattern: a constant to find, a column to capture, or `*` to skip. */
export type ParsePart =
  { kind: "text"; value: string } | { kind: "column"; name: string; type?: string } | { kind: "skip" };

/** A join condition: the left side's key expression and the right side's (`on a`, `a == b`, `$left.a == $right.b`). */
export interface JoinKey {
  left: Expr;
  right: Expr;
}

/** A tabular operator after a `|`. */
export type Operator =
  | { op: "where"; expr: Expr; pos: number }
  | { op: "sort"; keys: SortKey[]; pos: number }
  | { op: "top"; n: Expr; keys: SortKey[]; pos: number }
  | { op: "limit"; n: number; pos: number }
  | { op: "project"; columns: NamedExpr[]; pos: number }
  | { op: "extend"; columns: NamedExpr[]; valid: boolean; pos: number }
  | { op: "project-away" | "project-keep"; patterns: string[]; pos: number }
  | { op: "project-rename"; renames: { name: string; from: string }[]; pos: number }
  | { op: "project-reorder"; keys: { pattern: string; order?: "asc" | "desc" }[]; pos: number }
  | { op: "summarize"; aggs: AggregationCall[]; by: NamedExpr[]; pos: number }
  | { op: "count"; pos: number }
  | { op: "distinct"; columns: NamedExpr[] | "*"; pos: number }
  | {
      op: "parse";
      kind: "simple" | "relaxed" | "regex";
      flags: string;
      source: Expr;
      parts: ParsePart[];
      /** parse-where: rows that do not match are dropped. */
      where: boolean;
      pos: number;
    }
  | {
      op: "parse-kv";
      source: Expr;
      keys: { name: string; type?: string }[];
      pairDelimiter: string;
      kvDelimiter: string;
      quote?: string;
      pos: number;
    }
  /** `inner` keeps only the columns every table has; `outer` (the default) keeps them all. */
  | { op: "union"; withSource?: string; inner?: boolean; sources: TabularExpr[]; pos: number }
  | { op: "join" | "lookup"; kind: string; right: TabularExpr; on: JoinKey[]; pos: number }
  | {
      op: "mv-expand";
      columns: { name: string; expr: Expr; to?: string }[];
      limit?: number;
      itemIndex?: string;
      pos: number;
    }
  | {
      op: "make-series";
      aggs: AggregationCall[];
      defaults: unknown[];
      on: Expr;
      onName: string;
      from?: Expr;
      to?: Expr;
      step: Expr;
      by: NamedExpr[];
      pos: number;
    }
  | { op: "search"; expr: Expr; pos: number }
  /** `sample 10` (rows) or `sample 0.05` (a fraction of them). */
  | { op: "sample"; n: number; fraction: boolean; pos: number }
  | { op: "sample-distinct"; n: number; column: Expr; name: string; pos: number }
  | { op: "getschema"; pos: number }
  | {
      op: "redact";
      token: string;
      hash: boolean;
      groups: boolean;
      patterns: string[];
      fields?: string[];
      pos: number;
    };

/** Where a tabular expression's rows come from. */
export type Source =
  | { kind: "dataset"; name: string; pos: number }
  /** A `let` name bound to a tabular expression. */
  | { kind: "let"; name: string; pos: number }
  | { kind: "datatable"; columns: { name: string; type: string }[]; rows: Expr[][]; pos: number }
  | { kind: "print"; columns: NamedExpr[]; pos: number }
  | { kind: "union"; withSource?: string; inner?: boolean; sources: TabularExpr[]; pos: number }
  | { kind: "paren"; body: TabularExpr; pos: number };

/** A source and its pipeline. */
export interface TabularExpr {
  source: Source;
  ops: Operator[];
}

/** `let name = ...;`: a scalar expression or a tabular expression. */
export type LetStatement =
  | { kind: "scalar"; name: string; expr: Expr; pos: number }
  | { kind: "tabular"; name: string; body: TabularExpr; pos: number };

/** A whole query: its let statements and the tabular expression it answers. */
export interface Query {
  /** The first dataset the query reads ("" when it reads none, as `print` and `datatable`). */
  dataset: string;
  datasetPos: number;
  /** Every dataset the query reads, in order of first mention. */
  datasets: string[];
  lets: LetStatement[];
  /** `set name = value;` options (accepted and recorded; none changes the emulator's answer). */
  options: Record<string, unknown>;
  body: TabularExpr;
  /** The main pipeline's operators (body.ops), kept for callers that read a query's shape. */
  ops: Operator[];
  /** The query's text, for positions of errors found after parsing. */
  source?: string;
}
