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
  | StringOp
  | `!${StringOp}`;

/** Case-insensitive string operators and their `_cs` variants. */
export type StringOp =
  "contains" | "contains_cs" | "startswith" | "startswith_cs" | "endswith" | "endswith_cs" | "has" | "has_cs";

/** A literal value: JSON scalars plus datetimes and timespans, both in nanoseconds. */
export type LiteralValue =
  | { type: "null" }
  | { type: "bool"; value: boolean }
  | { type: "int" | "real"; value: number }
  | { type: "string"; value: string }
  | { type: "datetime"; ns: bigint }
  | { type: "timespan"; ns: bigint };

/** An expression. */
export type Expr =
  | { kind: "literal"; value: LiteralValue; pos: number }
  | {
      kind: "field";
      /** `a.b.c` as written (flat-key lookup first). */ name: string;
      path: string[];
      pos: number;
    }
  | { kind: "binary"; op: BinaryOp; left: Expr; right: Expr; pos: number }
  | { kind: "neg"; operand: Expr; pos: number }
  | { kind: "in"; negated: boolean; operand: Expr; list: Expr[]; pos: number }
  | { kind: "call"; name: string; args: Expr[]; pos: number };

/** `name = expr` (names default to the field referenced). */
export interface NamedExpr {
  name: string;
  expr: Expr;
}

/** One aggregation of `summarize`, e.g. `n = count()`, `avg(duration)` or `topk(status, 5)`. */
export interface Aggregation {
  name: string;
  fn: "count" | "sum" | "min" | "max" | "avg" | "dcount" | "topk";
  arg?: Expr;
  /** `topk`'s k: how many values it keeps. */
  k?: number;
}

/** A tabular operator after a `|`. */
export type Operator =
  | { op: "where"; expr: Expr; pos: number }
  | { op: "sort"; keys: { field: Extract<Expr, { kind: "field" }>; desc: boolean }[]; pos: number }
  | { op: "limit"; n: number; pos: number }
  | { op: "project"; columns: NamedExpr[]; pos: number }
  | { op: "extend"; columns: NamedExpr[]; pos: number }
  | { op: "summarize"; aggs: Aggregation[]; by: NamedExpr[]; pos: number };

/** A whole query: a dataset and its pipeline. */
export interface Query {
  dataset: string;
  datasetPos: number;
  ops: Operator[];
}
