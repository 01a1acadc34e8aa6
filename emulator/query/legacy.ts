/** The legacy query's JSON filter tree and projection, lowered onto the same plan as APL. */
import {
  type Column,
  compileAggregation,
  compileExpr,
  fieldGetter,
  type Getter,
  type PlanAggregation,
  type PlanOp,
  type Predicate,
} from "../apl/compile";
import { compileRegex, type Regex } from "../apl/regex";
import { AplError } from "../apl/errors";
import { parseApl } from "../apl/parser";
import { DateTime, compareValues, equalValues, toText } from "../apl/values";
import { parseRfc3339Ns } from "../time";

/** A bad filter or projection, naming the property at fault (e.g. `filter.children[1].op`). */
export class LegacyRequestError extends Error {
  override readonly name = "LegacyRequestError";
  constructor(
    readonly property: string,
    readonly reason: string,
  ) {
    super(`${property}: ${reason}`);
  }
}

/** Filter operators the legacy endpoint accepts. */
export const LEGACY_FILTER_OPS = [
  "and",
  "or",
  "not",
  "==",
  "!=",
  ">",
  ">=",
  "<",
  "<=",
  "exists",
  "not-exists",
  "contains",
  "not-contains",
  "starts-with",
  "not-starts-with",
  "ends-with",
  "not-ends-with",
  "regexp",
  "not-regexp",
] as const;
const OPS = new Set<string>(LEGACY_FILTER_OPS);
const MAX_DEPTH = 100;
/** Longest pattern a `regexp` filter may hold: the emulator runs patterns in-process, so it keeps them short. */
export const MAX_PATTERN_LENGTH = 1024;

/**
 * A `regexp` filter's pattern, compiled with RE2 (emulator/apl/regex.ts: linear time, so `(a+)+$` cannot stall the
 * emulator as JavaScript's backtracking engine did); an empty or invalid pattern is a 422 naming the filter's value.
 */
function compilePattern(pattern: string, caseSensitive: boolean, at: string): Regex {
  if (pattern === "") throw new LegacyRequestError(`${at}.value`, "must be a non-empty pattern for regexp");
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw new LegacyRequestError(
      `${at}.value`,
      `must be a pattern of at most ${MAX_PATTERN_LENGTH} characters`,
    );
  }
  try {
    // Unanchored, as RE2's MatchString; case-insensitive unless caseSensitive, as the other string operators.
    return compileRegex(pattern, { caseInsensitive: !caseSensitive });
  } catch (e) {
    if (!(e instanceof AplError)) throw e;
    throw new LegacyRequestError(`${at}.value`, `is not a valid regular expression: ${e.message}`);
  }
}

function pathGetter(field: string) {
  return fieldGetter(field, field.split("."));
}

/**
 * True for axiom-go's zero `Filter`, `{"op":"","field":"","value":null,"caseSensitive":false,"children":null}`,
 * which its legacy query always sends (the field is a struct, not a pointer): it means "no filter".
 */
export function isZeroFilter(node: unknown): boolean {
  if (typeof node !== "object" || node === null || Array.isArray(node)) return false;
  const f = node as Record<string, unknown>;
  const noChildren =
    f.children === undefined || f.children === null || (Array.isArray(f.children) && f.children.length === 0);
  return f.op === "" && (f.field === "" || f.field === undefined) && noChildren;
}

/** Compiles `{op, field, value, children, caseSensitive}` into a predicate; throws {@link LegacyRequestError}. */
export function compileLegacyFilter(node: unknown, at = "filter", depth = 0): Predicate {
  if (depth > MAX_DEPTH) throw new LegacyRequestError(at, "is nested too deeply");
  if (typeof node !== "object" || node === null || Array.isArray(node)) {
    throw new LegacyRequestError(at, "must be an object {op, field, value, children}");
  }
  const f = node as Record<string, unknown>;
  if (typeof f.op !== "string" || !OPS.has(f.op)) {
    throw new LegacyRequestError(`${at}.op`, `must be one of ${LEGACY_FILTER_OPS.join(", ")}`);
  }
  const op = f.op;
  if (op === "and" || op === "or" || op === "not") {
    if (!Array.isArray(f.children))
      throw new LegacyRequestError(`${at}.children`, "must be a list of filters");
    if (op === "not" && f.children.length !== 1)
      throw new LegacyRequestError(`${at}.children`, "must hold exactly one filter for not");
    const kids = f.children.map((c, i) => compileLegacyFilter(c, `${at}.children[${i}]`, depth + 1));
    if (op === "not") return (r) => !kids[0](r);
    if (op === "and") return (r) => kids.every((k) => k(r));
    return (r) => kids.some((k) => k(r));
  }
  if (typeof f.field !== "string" || f.field === "")
    throw new LegacyRequestError(`${at}.field`, "must be a non-empty string");
  // axiom-py sends an unset caseSensitive as None: absent, as elsewhere in a request.
  if (f.caseSensitive !== undefined && f.caseSensitive !== null && typeof f.caseSensitive !== "boolean") {
    throw new LegacyRequestError(`${at}.caseSensitive`, "must be a boolean");
  }
  const get = pathGetter(f.field);
  if (op === "exists") return (r) => get(r) !== undefined;
  if (op === "not-exists") return (r) => get(r) === undefined;
  if (!("value" in f)) throw new LegacyRequestError(`${at}.value`, "is required");
  let value: unknown = f.value;
  if ((f.field === "_time" || f.field === "_sysTime") && typeof value === "string") {
    const ns = parseRfc3339Ns(value);
    if (ns === undefined) throw new LegacyRequestError(`${at}.value`, "must be an RFC 3339 time");
    value = new DateTime(ns);
  }
  const cmp = (r: Parameters<Predicate>[0]) => compareValues(get(r), value);
  switch (op) {
    case "==":
      return (r) => equalValues(get(r), value);
    case "!=":
      return (r) => !equalValues(get(r), value);
    case ">":
      return (r) => (cmp(r) ?? 0) > 0;
    case ">=":
      return (r) => (cmp(r) ?? -1) >= 0;
    case "<":
      return (r) => (cmp(r) ?? 0) < 0;
    case "<=":
      return (r) => (cmp(r) ?? 1) <= 0;
  }
  if (typeof value !== "string") throw new LegacyRequestError(`${at}.value`, `must be a string for ${op}`);
  const cs = f.caseSensitive === true;
  if (op === "regexp" || op === "not-regexp") {
    const re = compilePattern(value, cs, at);
    const negated = op === "not-regexp";
    return (r) => {
      const v = get(r);
      if (v === null || v === undefined) return negated;
      return re.test(toText(v)) !== negated;
    };
  }
  const needle = cs ? value : value.toLowerCase();
  const negated = op.startsWith("not-");
  const kind = negated ? op.slice(4) : op;
  return (r) => {
    const v = get(r);
    if (v === null || v === undefined) return negated;
    const hay = cs ? toText(v) : toText(v).toLowerCase();
    const hit =
      kind === "contains"
        ? hay.includes(needle)
        : kind === "starts-with"
          ? hay.startsWith(needle)
          : hay.endsWith(needle);
    return negated ? !hit : hit;
  };
}

/** `project: ["a", {field: "b", alias: "c"}]` into output columns; throws {@link LegacyRequestError}. */
export function legacyProjection(project: readonly unknown[]): Column[] {
  return project.map((p, i) => {
    if (typeof p === "string" && p !== "") return { name: p, get: pathGetter(p) };
    if (typeof p === "object" && p !== null && typeof (p as { field?: unknown }).field === "string") {
      const { field, alias } = p as { field: string; alias?: unknown };
      if (field === "") throw new LegacyRequestError(`project[${i}].field`, "must not be empty");
      // No alias: left out, null (axiom-py's None) or "" (axiom-go's Projection has no omitempty on Alias).
      const unset = alias === undefined || alias === null || alias === "";
      if (!unset && typeof alias !== "string") {
        throw new LegacyRequestError(`project[${i}].alias`, "must be a string");
      }
      return { name: unset ? field : (alias as string), get: pathGetter(field) };
    }
    throw new LegacyRequestError(`project[${i}]`, "must be a field name or {field, alias}");
  });
}

/** Aggregation operations the legacy query accepts (a subset of axiomhq/axiom-go axiom/querylegacy/aggregation.go),
 * and the APL function each runs as. */
const LEGACY_AGGREGATIONS: Record<string, string> = {
  count: "count",
  distinct: "dcount",
  sum: "sum",
  avg: "avg",
  min: "min",
  max: "max",
  topk: "topk",
};

/** `name` when it is a list, else a {@link LegacyRequestError}; absent and null read as none. */
function listAt(body: Record<string, unknown>, name: string): unknown[] {
  const v = body[name];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new LegacyRequestError(name, "must be a list");
  return v;
}

/**
 * `virtualFields: [{alias, expr}]` (the wire names of axiomhq/axiom-go axiom/querylegacy/query.go VirtualField and
 * axiomhq/axiom-js VirtualColumn): each `expr` is APL (axiom-go's live test sends `toint(response) < 400`),
 * compiled as an `extend`; anything but one expression is refused, so an expression cannot smuggle in another
 * operator.
 */
export function legacyVirtualFields(body: Record<string, unknown>, now: bigint): Column[] {
  return listAt(body, "virtualFields").map((v, i) => {
    const at = `virtualFields[${i}]`;
    const { alias, expr: expression } = (v ?? {}) as { alias?: unknown; expr?: unknown };
    if (typeof alias !== "string" || alias === "")
      throw new LegacyRequestError(`${at}.alias`, "must be a non-empty string");
    if (typeof expression !== "string" || expression.trim() === "") {
      throw new LegacyRequestError(`${at}.expr`, "must be a non-empty APL expression");
    }
    try {
      return { name: alias, get: compileFieldExpression(expression, now) };
    } catch (err) {
      // A parse error, more than one expression, or a call the compiler refuses (a bad regex, column_ifexists of a
      // non-string) names the field.
      if (err instanceof AplError) throw new LegacyRequestError(`${at}.expr`, err.message);
      throw err;
    }
  });
}

/**
 * One APL expression compiled as a column's getter, as `extend name = <expression>` compiles it: a virtual field's
 * expression, sent with a legacy query or kept on a dataset. Anything but one expression is refused (an AplError),
 * so an expression cannot smuggle in another operator.
 */
export function compileFieldExpression(expression: string, now: bigint): Getter {
  const source = `['_'] | extend __virtual = ${expression}`;
  const query = parseApl(source);
  const [op] = query.ops;
  if (query.ops.length !== 1 || op.op !== "extend" || op.columns.length !== 1)
    throw new AplError("must be one expression", 1, 1);
  return compileExpr(op.columns[0].expr, { now, source });
}

/**
 * `aggregations: [{op, field, alias?, argument?}]` and `groupBy: [field]` as one summarize, or undefined when
 * there are no aggregations. An aggregation's result is named by its alias, else by its operation in upper case
 * (axiomhq/axiom-py src/axiom_py/query/result.py, EntryGroupAgg); `count` may take `*` (axiom-py
 * tests/test_client.py, axiom-go axiom/datasets_integration_test.go).
 */
export function legacySummarize(
  body: Record<string, unknown>,
): Extract<PlanOp, { op: "summarize" }> | undefined {
  const groupBy = listAt(body, "groupBy").map((g, i) => {
    if (typeof g !== "string" || g === "")
      throw new LegacyRequestError(`groupBy[${i}]`, "must be a field name");
    return g;
  });
  const aggs = listAt(body, "aggregations").map((a, i): PlanAggregation => {
    const at = `aggregations[${i}]`;
    const { op, field, alias, argument } = (a ?? {}) as Record<string, unknown>;
    const fn = typeof op === "string" ? LEGACY_AGGREGATIONS[op] : undefined;
    if (fn === undefined) {
      throw new LegacyRequestError(
        `${at}.op`,
        `must be one of ${Object.keys(LEGACY_AGGREGATIONS).join(", ")}`,
      );
    }
    if (typeof field !== "string" || field === "")
      throw new LegacyRequestError(`${at}.field`, "must be a field name");
    if (field === "*" && fn !== "count") throw new LegacyRequestError(`${at}.field`, `* is only for count`);
    if (alias !== undefined && alias !== null && typeof alias !== "string") {
      throw new LegacyRequestError(`${at}.alias`, "must be a string");
    }
    let k: number | undefined;
    if (fn === "topk") {
      if (typeof argument !== "number" || !Number.isInteger(argument) || argument < 1) {
        throw new LegacyRequestError(`${at}.argument`, "must be a positive integer (topk's k)");
      }
      k = argument;
    }
    const name = typeof alias === "string" && alias !== "" ? alias : (op as string).toUpperCase();
    const path = field.split(".");
    const fieldExpr = { kind: "field" as const, name: field, path, pos: 0 };
    // The same accumulators as APL's summarize; count counts rows whatever its field.
    const args =
      fn === "count"
        ? []
        : fn === "topk"
          ? [fieldExpr, { kind: "literal" as const, value: { type: "int" as const, value: k! }, pos: 0 }]
          : [fieldExpr];
    const agg = compileAggregation(
      { given: name, fn, args, argTexts: args.map(() => field), pos: 0 },
      { now: 0n },
    );
    return { ...agg, fields: field === "*" ? [] : [field], args: k !== undefined ? [k] : [] };
  });
  if (aggs.length === 0) {
    if (groupBy.length > 0) throw new LegacyRequestError("groupBy", "needs at least one aggregation");
    return undefined;
  }
  return { op: "summarize", aggs, by: groupBy.map((g) => ({ name: g, get: fieldGetter(g, g.split(".")) })) };
}
