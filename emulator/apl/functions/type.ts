/**
 * Type tests (apl/scalar-functions/type-functions, gettype, isarray, isbool, isint, isascii): each answers
 * from the runtime value. Numbers are JavaScript numbers, so an integral real (2.0) reads as an integer: gettype
 * says "long" and isreal false for it, where the service, which keeps the column's type, says "real".
 */
import { DateTime, Timespan } from "../values";
import { fn, type FunctionTable, isBag, isNull } from "./common";

/** The Luhn checksum (ISO/IEC 7812-1 annex B) over a string of digits. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/**
 * Card numbers: 12 to 19 digits (ISO/IEC 7812 primary account numbers), spaces or dashes between groups
 * allowed, passing the Luhn check (apl/scalar-functions/type-functions/iscc).
 */
function isCreditCard(v: unknown): boolean {
  if (typeof v !== "string") return false;
  const digits = v.replace(/[ -]/g, "");
  return /^\d{12,19}$/.test(digits) && /^\d[\d -]*\d$/.test(v) && luhnValid(digits);
}

/** 15 digits passing the Luhn check (apl/scalar-functions/type-functions/isimei). */
function isImei(v: unknown): boolean {
  return typeof v === "string" && /^\d{15}$/.test(v) && luhnValid(v);
}

/** A UTF-16 surrogate without its partner: text that came from no valid UTF-8. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The type names gettype answers (apl/scalar-functions/string-functions/gettype). */
export function aplTypeName(v: unknown): string {
  if (isNull(v)) return "null";
  if (v instanceof DateTime) return "datetime";
  if (v instanceof Timespan) return "timespan";
  if (Array.isArray(v)) return "array";
  switch (typeof v) {
    case "string":
      return "string";
    case "boolean":
      return "bool";
    case "number":
      return Number.isInteger(v) ? "long" : "real";
    case "object":
      return "dictionary";
    default:
      return "dynamic";
  }
}

/** The type family. */
export const TYPE_FUNCTIONS: FunctionTable = {
  gettype: fn(1, 1, ([v]) => aplTypeName(v)),
  isstring: fn(1, 1, ([v]) => typeof v === "string"),
  isbool: fn(1, 1, ([v]) => typeof v === "boolean"),
  isarray: fn(1, 1, ([v]) => Array.isArray(v)),
  ismap: fn(1, 1, ([v]) => isBag(v)),
  // apl/scalar-functions/type-functions/isreal: true for a real number, false for strings, nulls and the rest.
  isreal: fn(1, 1, ([v]) => typeof v === "number" && !Number.isInteger(v) && Number.isFinite(v)),
  // apl/scalar-functions/mathematical-functions/isint: no fractional part; false for NaN and infinity.
  isint: fn(1, 1, ([v]) => typeof v === "number" && Number.isInteger(v)),
  isascii: fn(1, 1, ([v]) => (isNull(v) ? null : typeof v === "string" && /^\p{ASCII}*$/u.test(v))),
  // Strings here are JavaScript strings: text decoded from UTF-8 is valid unless it holds a lone surrogate or
  // the replacement character U+FFFD that a decoder puts where the bytes were not UTF-8.
  isutf8: fn(1, 1, ([v]) => {
    if (isNull(v)) return null;
    if (typeof v !== "string") return false;
    return !LONE_SURROGATE.test(v) && !v.includes("\uFFFD");
  }),
  iscc: fn(1, 1, ([v]) => (isNull(v) ? null : isCreditCard(v))),
  isimei: fn(1, 1, ([v]) => (isNull(v) ? null : isImei(v))),
};
