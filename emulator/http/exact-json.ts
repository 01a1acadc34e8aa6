/**
 * JSON that keeps integers exact beyond 2^53, for the API's `format: int64` fields (provider/schemas/int64.ts).
 *
 * `JSON.parse` reads `9007199254740993` as the float64 9007199254740992. The reviver's third argument (the
 * source text of each primitive, in V8 since Node.js 21) tells which literal it was: an integer literal that a
 * number does not hold exactly becomes a `bigint`; every other value is what `JSON.parse` gives. Writing is the
 * mirror: a `bigint` goes out as its digits through `JSON.rawJSON`. Both are built into Node.js, so no JSON
 * library is needed (json-bigint and lossless-json would parse in JavaScript, several times slower, and change
 * every number's type, where only the few beyond 2^53 change here).
 */

/** The reviver's context: the source text of a primitive value. */
interface ReviverContext {
  source?: string;
}

// Not yet in TypeScript's lib (ES2026): `JSON.rawJSON`, in V8 since Node.js 21.
const rawJSON = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON;

const INTEGER_LITERAL = /^-?[0-9]+$/;

function exactReviver(this: unknown, _key: string, value: unknown, context?: ReviverContext): unknown {
  if (typeof value === "number" && !Number.isSafeInteger(value) && context?.source !== undefined) {
    if (INTEGER_LITERAL.test(context.source)) return BigInt(context.source);
  }
  return value;
}

/**
 * A number of 16 digits or more where JSON puts a value (after `:`, `,` or `[`, or first): the shortest literal
 * that can hold an integer beyond 2^53 (9007199254740993). Digits inside a string (a row's nanosecond time is one)
 * follow a quote and do not match.
 */
const LONG_NUMBER = /(?:^|[:,[])\s*-?[0-9]{16}/;

/** `JSON.parse`, with integer literals beyond 2^53 read as exact `bigint`s. Throws as `JSON.parse` does. */
export function parseExactJson(text: string): unknown {
  // Without a long number no integer can be beyond 2^53, and the plain parse (no reviver call per value) is the
  // same value.
  if (!LONG_NUMBER.test(text)) return JSON.parse(text);
  return JSON.parse(text, exactReviver as (key: string, value: unknown) => unknown);
}

function exactReplacer(_key: string, value: unknown): unknown {
  return typeof value === "bigint" ? rawJSON(value.toString()) : value;
}

/** `JSON.stringify`, with each `bigint` written as its exact digits. */
export function stringifyExactJson(value: unknown, space?: number): string {
  // Almost every value holds no bigint: the plain call (no replacer call per value) writes it, and throws
  // a TypeError at the first bigint, when the replacer's pass writes it instead.
  try {
    return JSON.stringify(value, undefined, space);
  } catch (err) {
    if (!(err instanceof TypeError)) throw err;
    return JSON.stringify(value, exactReplacer, space);
  }
}
