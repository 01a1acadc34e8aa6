/**
 * fast-check arbitraries of APL text: structured queries (every operator, flat chains, nesting, function calls
 * with right and wrong argument counts, strings with escapes, timespans, datetimes) and the same queries with a
 * random edit. Shared by test/emulator/apl-property.test.ts and bench/apl-compile.mts.
 */
import fc from "fast-check";

const FIELDS = ["a", "s", "n", "_time", "_sysTime", "req.path", "['odd name']", "missing"];
const BINARY = [
  "+",
  "-",
  "*",
  "/",
  "%",
  "==",
  "!=",
  "=~",
  "!~",
  "<",
  "<=",
  ">",
  ">=",
  "and",
  "or",
  "contains",
  "!contains",
  "contains_cs",
  "startswith",
  "!startswith",
  "endswith",
  "has",
  "!has_cs",
];
const FUNCTIONS = [
  "not",
  "isnull",
  "isnotnull",
  "isempty",
  "isnotempty",
  "strcat",
  "strlen",
  "tolower",
  "toupper",
  "tostring",
  "toint",
  "tolong",
  "todouble",
  "toreal",
  "abs",
  "now",
  "ago",
  "bin",
  "bin_auto",
  "floor",
  "iff",
  "count",
  "frobnicate",
];

/** A string literal with escapes, in either quote. */
const stringLiteral = fc
  .array(
    fc.oneof(
      fc.constantFrom("\\n", "\\t", "\\\\", "\\'", '\\"', "\\0", "x", " ", "é", "2024-01-01T00:00:00Z"),
    ),
    {
      maxLength: 6,
    },
  )
  .chain((parts) => fc.constantFrom(`'${parts.join("")}'`, `"${parts.join("")}"`));

const literal = fc.oneof(
  fc.integer({ min: -1e6, max: 1e6 }).map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => String(Math.abs(d))),
  fc.constantFrom("0", "1e308", "1e999d", "1.5h", "250ms", "7d", "1tick", "true", "false", "null"),
  fc.constantFrom("datetime(2024-01-01)", "datetime(2024-01-01T10:00:00Z)", "datetime(nonsense)"),
  stringLiteral,
);

/** An expression of bounded depth. */
export const aplExpr: fc.Arbitrary<string> = fc.letrec<{ expr: string }>((tie) => ({
  expr: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    literal,
    fc.constantFrom(...FIELDS),
    fc.tuple(tie("expr"), fc.constantFrom(...BINARY), tie("expr")).map(([l, op, r]) => `${l} ${op} ${r}`),
    // A short chain of one operator over any terms, and a long flat one (up to 5,000 terms) over simple terms.
    fc
      .tuple(fc.constantFrom("+", "*", "and", "or", "-"), fc.integer({ min: 2, max: 12 }), tie("expr"))
      .map(([op, n, t]) => Array.from({ length: n }, () => t).join(` ${op} `)),
    fc
      .tuple(
        fc.constantFrom("+", "*", "and", "or", "-", "%"),
        fc.integer({ min: 2, max: 5000 }),
        fc.oneof(literal, fc.constantFrom(...FIELDS)),
      )
      .map(([op, n, t]) => Array.from({ length: n }, () => t).join(` ${op} `)),
    tie("expr").map((e) => `(${e})`),
    tie("expr").map((e) => `-${e}`),
    fc
      .tuple(fc.constantFrom(...FUNCTIONS), fc.array(tie("expr"), { maxLength: 4 }))
      .map(([f, args]) => `${f}(${args.join(", ")})`),
    fc
      .tuple(tie("expr"), fc.constantFrom("in", "!in"), fc.array(tie("expr"), { maxLength: 4 }))
      .map(([e, op, list]) => `${e} ${op} (${list.join(", ")})`),
  ),
})).expr;

const name = fc.constantFrom("x", "y", "a", "_time", "c");

const operator = fc.oneof(
  aplExpr.map((e) => `where ${e}`),
  fc.tuple(name, aplExpr).map(([n, e]) => `extend ${n} = ${e}`),
  fc
    .array(
      fc.oneof(
        fc.constantFrom(...FIELDS),
        fc.tuple(name, aplExpr).map(([n, e]) => `${n} = ${e}`),
      ),
      {
        minLength: 1,
        maxLength: 3,
      },
    )
    .map((cols) => `project ${cols.join(", ")}`),
  fc
    .tuple(
      fc.constantFrom(
        "count()",
        "sum(a)",
        "avg(n)",
        "min(s)",
        "max(_time)",
        "dcount(s)",
        "topk(s, 2)",
        "topk(s, 0)",
        "sum()",
      ),
      fc.option(
        fc.oneof(
          fc.constantFrom(...FIELDS),
          aplExpr.map((e) => `g = ${e}`),
          fc.constant("bin(_time, 1m)"),
        ),
      ),
    )
    .map(([agg, by]) => `summarize ${agg}${by ? ` by ${by}` : ""}`),
  fc
    .tuple(fc.constantFrom(...FIELDS), fc.constantFrom("", " asc", " desc"))
    .map(([f, d]) => `sort by ${f}${d}`),
  fc.constantFrom("limit 3", "take 0", "limit 99999999999999999999", "count", "project-away a", "limit -1"),
);

/** A whole query: a dataset (known or not) and a pipeline. */
export const aplQuery: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom("t", "['t']", "nope", "['']", "t.v2"), fc.array(operator, { maxLength: 4 }))
  .map(([ds, ops]) => [ds, ...ops].join(" | "));

/** A structured query with one random edit: a character inserted, deleted or replaced. */
export const aplQueryEdited: fc.Arbitrary<string> = fc
  .tuple(
    aplQuery,
    fc.nat(),
    fc.constantFrom("insert", "delete", "replace"),
    fc.string({ minLength: 1, maxLength: 1 }),
  )
  .map(([q, at, how, ch]) => {
    const i = q.length === 0 ? 0 : at % q.length;
    if (how === "insert") return q.slice(0, i) + ch + q.slice(i);
    if (how === "delete") return q.slice(0, i) + q.slice(i + 1);
    return q.slice(0, i) + ch + q.slice(i + 1);
  });
