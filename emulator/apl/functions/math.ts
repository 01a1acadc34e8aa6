/**
 * Mathematical and rounding functions (apl/scalar-functions/mathematical-functions, rounding-functions). Real
 * results that are NaN come out as null, as the sqrt page says the service shows them; a non-numeric argument
 * gives null.
 */
import { compareValues, DateTime, Timespan } from "../values";
import { asInteger, asNumber, fn, type FunctionTable, isNull, real, volatileFn } from "./common";

/** A one-number real function: null for a non-number, NaN as null. */
function realFn(f: (x: number) => number) {
  return fn(1, 1, ([v]) => {
    const x = asNumber(v);
    return x === null ? null : real(f(x));
  });
}

/** A one-number function whose domain is x > 0 (the log pages: null for zero or a negative x). */
function positiveFn(f: (x: number) => number) {
  return fn(1, 1, ([v]) => {
    const x = asNumber(v);
    return x === null || !(x > 0) ? null : real(f(x));
  });
}

/** Coefficients of the Lanczos approximation (g = 7, n = 9), as in Numerical Recipes' gammln. */
const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
  12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

/** Γ(x) by the Lanczos approximation, with the reflection formula below 1/2. */
export function gamma(x: number): number {
  if (Number.isInteger(x) && x > 0 && x <= 171) {
    // Exact for small positive integers: (x-1)!
    let r = 1;
    for (let i = 2; i < x; i++) r *= i;
    return r;
  }
  if (x < 0.5) return Math.PI / (Math.sin(Math.PI * x) * gamma(1 - x));
  const z = x - 1;
  let a = LANCZOS[0];
  const t = z + 7.5;
  for (let i = 1; i < 9; i++) a += LANCZOS[i] / (z + i);
  return Math.sqrt(2 * Math.PI) * Math.pow(t, z + 0.5) * Math.exp(-t) * a;
}

/** ln|Γ(x)|, computed in logarithms so large x does not overflow. */
export function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x);
  const z = x - 1;
  let a = LANCZOS[0];
  const t = z + 7.5;
  for (let i = 1; i < 9; i++) a += LANCZOS[i] / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

/** `x` rounded to `digits` decimals, halves away from zero (Go's math.Round), exact on decimal text. */
export function roundTo(x: number, digits: number): number {
  if (!Number.isFinite(x)) return x;
  if (digits === 0) return Math.sign(x) * Math.round(Math.abs(x));
  const scale = 10 ** digits;
  const scaled = Math.abs(x) * scale;
  // Away from a half, the product's rounding error cannot change the result: the fast path.
  if (Number.isFinite(scaled) && Math.abs((scaled % 1) - 0.5) > 1e-6)
    return (Math.sign(x) * Math.round(scaled)) / scale;
  // Near a half, shift through the decimal exponent, which avoids 1.005 * 100 = 100.49999999999999.
  const shifted = Number(`${Math.abs(x)}e${digits}`);
  if (!Number.isFinite(shifted)) return x;
  const rounded = Number(`${Math.round(shifted)}e${-digits}`);
  return Math.sign(x) * rounded;
}

/** bin(value, size): the multiple of size at or below value, for numbers, datetimes and timespans. */
export function binValue(v: unknown, size: unknown): unknown {
  if (isNull(v) || isNull(size)) return null;
  if (size instanceof Timespan) {
    if (size.ns <= 0n) return null;
    if (v instanceof DateTime || v instanceof Timespan) {
      let q = v.ns / size.ns;
      if (v.ns < 0n && v.ns % size.ns !== 0n) q -= 1n;
      return v instanceof DateTime ? new DateTime(q * size.ns) : new Timespan(q * size.ns);
    }
    return null;
  }
  const x = asNumber(v);
  const s = asNumber(size);
  if (s !== null && s > 0 && (v instanceof Timespan || v instanceof DateTime)) {
    // An infinite size has no nanoseconds to count: no bin (BigInt of Infinity would throw).
    if (!Number.isFinite(s)) return null;
    // A numeric size with a time value counts in nanoseconds.
    return binValue(v, new Timespan(BigInt(Math.trunc(s))));
  }
  if (x === null || s === null || !(s > 0)) return null;
  return Math.floor(x / s) * s;
}

/** The most elements range() returns (the range page: "the system limit of 1,048,576 elements"). */
export const RANGE_LIMIT = 1_048_576;

function range([start, stop, step]: unknown[]): unknown {
  if (isNull(start) || isNull(stop)) return null;
  if (start instanceof DateTime || start instanceof Timespan) {
    const end = stop instanceof DateTime || stop instanceof Timespan ? stop.ns : null;
    // The page: the step defaults to 1h for time values.
    const by = step === undefined ? 3_600_000_000_000n : step instanceof Timespan ? step.ns : null;
    if (end === null || by === null || by === 0n) return null;
    const make = (ns: bigint) => (start instanceof DateTime ? new DateTime(ns) : new Timespan(ns));
    const out: unknown[] = [];
    for (let ns = start.ns; (by > 0n ? ns <= end : ns >= end) && out.length < RANGE_LIMIT; ns += by)
      out.push(make(ns));
    return out;
  }
  const a = asNumber(start);
  const b = asNumber(stop);
  const by = step === undefined ? 1 : asNumber(step);
  if (a === null || b === null || by === null || by === 0 || !Number.isFinite(a) || !Number.isFinite(b))
    return null;
  const out: number[] = [];
  // Multiplying rather than adding keeps real steps from drifting (0.1 * 3, not 0.1 + 0.1 + 0.1).
  for (let i = 0; out.length < RANGE_LIMIT; i++) {
    const x = a + i * by;
    if (by > 0 ? x > b : x < b) break;
    out.push(x);
  }
  return out;
}

/** max_of/min_of: the extreme of the non-null arguments; null when all are null or they do not compare. */
function extremeOf(args: unknown[], sign: 1 | -1): unknown {
  let best: unknown = null;
  for (const v of args) {
    if (isNull(v)) continue;
    if (best === null) {
      best = v;
      continue;
    }
    const c = compareValues(v, best);
    if (c === undefined) return null;
    if (c * sign > 0) best = v;
  }
  return best;
}

/** The mathematical and rounding families. */
export const MATH_FUNCTIONS: FunctionTable = {
  abs: fn(1, 1, ([v]) => {
    if (v instanceof Timespan) return new Timespan(v.ns < 0n ? -v.ns : v.ns);
    const x = asNumber(v);
    return x === null ? null : Math.abs(x);
  }),
  acos: realFn(Math.acos),
  asin: realFn(Math.asin),
  atan: realFn(Math.atan),
  atan2: fn(2, 2, ([y, x]) => {
    const a = asNumber(y);
    const b = asNumber(x);
    return a === null || b === null ? null : real(Math.atan2(a, b));
  }),
  cos: realFn(Math.cos),
  sin: realFn(Math.sin),
  tan: realFn(Math.tan),
  // apl/scalar-functions/mathematical-functions/cot: infinity or null where sin(x) is zero.
  cot: realFn((x) => 1 / Math.tan(x)),
  degrees: realFn((x) => (x * 180) / Math.PI),
  radians: realFn((x) => (x * Math.PI) / 180),
  exp: realFn(Math.exp),
  exp2: realFn((x) => 2 ** x),
  exp10: realFn((x) => 10 ** x),
  log: positiveFn(Math.log),
  log2: positiveFn(Math.log2),
  log10: positiveFn(Math.log10),
  // apl/scalar-functions/mathematical-functions/gamma: null at zero and the negative integers.
  gamma: realFn((x) => (x <= 0 && Number.isInteger(x) ? NaN : gamma(x))),
  loggamma: realFn((x) => (x <= 0 && Number.isInteger(x) ? NaN : logGamma(x))),
  sqrt: realFn(Math.sqrt),
  pow: fn(2, 2, ([base, exponent]) => {
    const a = asNumber(base);
    const b = asNumber(exponent);
    return a === null || b === null ? null : real(a ** b);
  }),
  pi: fn(0, 0, () => Math.PI),
  sign: realFn(Math.sign),
  isfinite: fn(1, 1, ([v]) => (isNull(v) ? null : typeof v === "number" && Number.isFinite(v))),
  isinf: fn(1, 1, ([v]) => (isNull(v) ? null : v === Infinity || v === -Infinity)),
  isnan: fn(1, 1, ([v]) => (isNull(v) ? null : typeof v === "number" && Number.isNaN(v))),
  not: fn(1, 1, ([v]) => (v === true ? false : v === false ? true : null)),
  max_of: fn(1, 64, (args) => extremeOf(args, 1)),
  min_of: fn(1, 64, (args) => extremeOf(args, -1)),
  // apl/scalar-functions/mathematical-functions/rand: [0, 1), or an integer in [0, range).
  rand: volatileFn(0, 1, ([limit]) => {
    if (limit === undefined) return Math.random();
    const n = asInteger(limit);
    return n === null || n <= 0 ? null : Math.floor(Math.random() * n);
  }),
  range: fn(2, 3, range),
  round: fn(1, 2, ([v, precision]) => {
    const x = asNumber(v);
    const p = precision === undefined ? 0 : asInteger(precision);
    return x === null || p === null ? null : roundTo(x, p);
  }),
  ceiling: realFn(Math.ceil),
  // floor(number) rounds down; floor(value, size) is bin's alias (apl/scalar-functions/rounding-functions).
  floor: fn(1, 2, ([v, size]) => {
    if (size !== undefined) return binValue(v, size);
    const x = asNumber(v);
    return x === null ? null : Math.floor(x);
  }),
  bin: fn(2, 2, ([v, size]) => binValue(v, size)),
};
