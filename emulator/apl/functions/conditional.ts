/**
 * Conditionals and null tests: case and iff (apl/scalar-functions/conditional-function), coalesce, isnull,
 * isnotnull, isempty, isnotempty (apl/scalar-functions/string-functions). Arguments arrive evaluated; these
 * functions have no side effects, so evaluating a branch that is not taken changes nothing but the work.
 */
import { fn, type FunctionTable, isNull } from "./common";

/** Empty for isempty: null, or the empty string (apl/scalar-functions/string-functions/isempty). */
const isEmpty = (v: unknown): boolean => isNull(v) || v === "";

/** The conditional family. */
export const CONDITIONAL_FUNCTIONS: FunctionTable = {
  // apl/scalar-functions/conditional-function/iff: ifTrue when the predicate is true, ifFalse otherwise (a null
  // predicate is not true).
  iff: fn(3, 3, ([predicate, ifTrue, ifFalse]) => (predicate === true ? ifTrue : ifFalse)),
  // apl/scalar-functions/conditional-function: "`iif` is an alias".
  iif: fn(3, 3, ([predicate, ifTrue, ifFalse]) => (predicate === true ? ifTrue : ifFalse)),
  // apl/scalar-functions/conditional-function/case: condition/result pairs, then the value when none is true.
  case: fn(3, Infinity, (args) => {
    if (args.length % 2 === 0) return null;
    for (let i = 0; i + 1 < args.length; i += 2) if (args[i] === true) return args[i + 1];
    return args[args.length - 1];
  }),
  // apl/scalar-functions/string-functions/coalesce: the first value that is not null; for strings, the first
  // that is not empty.
  coalesce: fn(1, 64, (args) => {
    for (const v of args) if (!isEmpty(v)) return v;
    return args.some((v) => v === "") ? "" : null;
  }),
  isnull: fn(1, 1, ([v]) => isNull(v)),
  isnotnull: fn(1, 1, ([v]) => !isNull(v)),
  isempty: fn(1, 1, ([v]) => isEmpty(v)),
  isnotempty: fn(1, 1, ([v]) => !isEmpty(v)),
};
