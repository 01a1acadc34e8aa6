/** The legacy query's JSON filter tree and projection, lowered onto the same plan as APL. */
import { type Column, fieldGetter, type Predicate } from "../apl/compile";
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

/** A `regexp` filter's pattern as a RegExp; an empty or invalid pattern is a 422 naming the filter's value. */
function compilePattern(pattern: string, caseSensitive: boolean, at: string): RegExp {
  if (pattern === "") throw new LegacyRequestError(`${at}.value`, "must be a non-empty pattern for regexp");
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw new LegacyRequestError(
      `${at}.value`,
      `must be a pattern of at most ${MAX_PATTERN_LENGTH} characters`,
    );
  }
  try {
    // Unanchored, as RE2's MatchString; case-insensitive unless caseSensitive, as the other string operators.
    return new RegExp(pattern, caseSensitive ? "" : "i");
  } catch (e) {
    throw new LegacyRequestError(`${at}.value`, `is not a valid regular expression: ${(e as Error).message}`);
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
