/** The emulator's APL subset: lexer, parser, compiler to closures. */
export { AplError, positionOf, type AplErrorType } from "./errors";
export { tokenize, type Token, type TokenKind } from "./lexer";
export { APL_LIMITS, parseApl, SCALAR_FUNCTIONS, timespanNs } from "./parser";
export {
  compileExpr,
  compileQuery,
  fieldGetter,
  type Column,
  type CompileContext,
  type Getter,
  type Plan,
  type PlanOp,
  type Predicate,
  type Row,
} from "./compile";
export {
  DateTime,
  Timespan,
  compareValues,
  equalValues,
  sortCompare,
  toOutput,
  toText,
  typeOf,
} from "./values";
export type * from "./ast";
