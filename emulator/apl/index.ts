/** The emulator's APL: lexer, parser, compiler to closures and plans. */
export { AplError, positionOf, type AplErrorType } from "./errors";
export { tokenize, type Token, type TokenKind } from "./lexer";
export { APL_LIMITS, parseApl, timespanNs, unsupported } from "./parser";
export {
  compileExpr,
  fieldGetter,
  type Column,
  type CompileContext,
  type Getter,
  type Plan,
  type PlanOp,
  type Predicate,
  type Row,
} from "./compile";
export { compileQuery, compileTabular } from "./plan";
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
