/**
 * Time-series functions (apl/scalar-functions/time-series): elementwise arithmetic and comparisons over numeric
 * arrays, fills, statistics, filters and the discrete Fourier transform. An element that is not a number gives a
 * null element; an argument that is not an array gives null.
 */
import { asArray, asNumber, fn, type FunctionTable, isNull, real } from "./common";

/** An element as a number, or null. */
const num = (v: unknown): number | null => (typeof v === "number" ? v : isNull(v) ? null : asNumber(v));

/** A numeric array argument (elements may be null), or null. */
function numbers(v: unknown): (number | null)[] | null {
  const a = asArray(v);
  return a === null ? null : a.map(num);
}

/** Elementwise f over one array. */
function unarySeries(f: (x: number) => number | boolean) {
  return fn(1, 1, ([v]) => {
    const a = numbers(v);
    return a === null
      ? null
      : a.map((x) => (x === null ? null : typeof f(x) === "number" ? real(f(x) as number) : f(x)));
  });
}

/**
 * Elementwise f over two operands, each an array or a scalar. `extend` says how arrays of different lengths
 * combine: "shorter" (series_add, series_divide: "the result array has the length of the shorter array") or
 * "longer" (series_multiply, series_subtract: "the shorter array is extended with null values").
 */
function binarySeries(
  f: (x: number, y: number) => number | boolean,
  extend: "shorter" | "longer" = "shorter",
) {
  return fn(2, 2, ([left, right]) => {
    const a = Array.isArray(left) || typeof left === "string" ? numbers(left) : null;
    const b = Array.isArray(right) || typeof right === "string" ? numbers(right) : null;
    if (a === null && b === null) return null;
    const scalarA = a === null ? num(left) : null;
    const scalarB = b === null ? num(right) : null;
    const lengths = [a?.length, b?.length].filter((n): n is number => n !== undefined);
    const n = extend === "shorter" ? Math.min(...lengths) : Math.max(...lengths);
    const out: unknown[] = [];
    for (let i = 0; i < n; i++) {
      const x = a === null ? scalarA : (a[i] ?? null);
      const y = b === null ? scalarB : (b[i] ?? null);
      if (x === null || y === null) out.push(null);
      else {
        const r = f(x, y);
        out.push(typeof r === "number" ? real(r) : r);
      }
    }
    return out;
  });
}

/** The non-null numbers of an array argument, or null. */
function values(v: unknown): number[] | null {
  const a = numbers(v);
  return a === null ? null : a.filter((x): x is number => x !== null && !Number.isNaN(x));
}

/** min, min_idx, max, max_idx, avg, sample variance, sample stdev (the series_stats page's order). */
function stats(v: unknown): number[] | null {
  const a = numbers(v);
  if (a === null) return null;
  let min = Infinity;
  let max = -Infinity;
  let minIdx = -1;
  let maxIdx = -1;
  let count = 0;
  let mean = 0;
  let m2 = 0;
  a.forEach((x, i) => {
    if (x === null || Number.isNaN(x)) return;
    if (x < min) [min, minIdx] = [x, i];
    if (x > max) [max, maxIdx] = [x, i];
    // Welford's update keeps the variance stable for long series.
    count++;
    const delta = x - mean;
    mean += delta / count;
    m2 += delta * (x - mean);
  });
  if (count === 0) return [NaN, -1, NaN, -1, NaN, NaN, NaN];
  const variance = count > 1 ? m2 / (count - 1) : 0;
  return [min, minIdx, max, maxIdx, mean, variance, Math.sqrt(variance)];
}

/** In-place iterative Cooley-Tukey FFT of a power-of-two length (sign -1 forward, +1 inverse, unscaled). */
function radix2(r: Float64Array, m: Float64Array, sign: number): void {
  const n = r.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [r[i], r[j]] = [r[j], r[i]];
      [m[i], m[j]] = [m[j], m[i]];
    }
  }
  for (let len = 2; len <= n; len <<= 1) {
    const half = len >> 1;
    const angle = (sign * 2 * Math.PI) / len;
    for (let k = 0; k < half; k++) {
      const wr = Math.cos(angle * k);
      const wi = Math.sin(angle * k);
      for (let i = k; i < n; i += len) {
        const xr = r[i + half] * wr - m[i + half] * wi;
        const xi = r[i + half] * wi + m[i + half] * wr;
        r[i + half] = r[i] - xr;
        m[i + half] = m[i] - xi;
        r[i] += xr;
        m[i] += xi;
      }
    }
  }
}

/**
 * The discrete Fourier transform (inverse when `inverse`, scaled by 1/n) of any length in O(n log n): radix-2
 * when the length is a power of two, otherwise Bluestein's chirp-z algorithm, which turns the transform into a
 * circular convolution computed with power-of-two transforms.
 */
export function dft(re: number[], im: number[], inverse: boolean): [number[], number[]] {
  const n = re.length;
  const sign = inverse ? 1 : -1;
  const scale = inverse && n > 0 ? 1 / n : 1;
  if (n === 0) return [[], []];
  if ((n & (n - 1)) === 0) {
    const r = Float64Array.from(re);
    const m = Float64Array.from(im);
    radix2(r, m, sign);
    return [Array.from(r, (x) => x * scale), Array.from(m, (x) => x * scale)];
  }
  // Chirp w[k] = exp(sign·iπk²/n); k² is taken mod 2n so the angle stays small and exact.
  const wr = new Float64Array(n);
  const wi = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    const angle = (sign * Math.PI * ((k * k) % (2 * n))) / n;
    wr[k] = Math.cos(angle);
    wi[k] = Math.sin(angle);
  }
  let size = 1;
  while (size < 2 * n - 1) size <<= 1;
  const ar = new Float64Array(size);
  const ai = new Float64Array(size);
  const br = new Float64Array(size);
  const bi = new Float64Array(size);
  for (let k = 0; k < n; k++) {
    ar[k] = re[k] * wr[k] - im[k] * wi[k];
    ai[k] = re[k] * wi[k] + im[k] * wr[k];
  }
  br[0] = wr[0];
  bi[0] = -wi[0];
  for (let k = 1; k < n; k++) {
    br[k] = br[size - k] = wr[k];
    bi[k] = bi[size - k] = -wi[k];
  }
  radix2(ar, ai, -1);
  radix2(br, bi, -1);
  for (let k = 0; k < size; k++) {
    const x = ar[k] * br[k] - ai[k] * bi[k];
    ai[k] = ar[k] * bi[k] + ai[k] * br[k];
    ar[k] = x;
  }
  radix2(ar, ai, 1);
  const outRe = new Array<number>(n);
  const outIm = new Array<number>(n);
  for (let k = 0; k < n; k++) {
    const cr = ar[k] / size;
    const ci = ai[k] / size;
    outRe[k] = (cr * wr[k] - ci * wi[k]) * scale;
    outIm[k] = (cr * wi[k] + ci * wr[k]) * scale;
  }
  return [outRe, outIm];
}

/** series_fft / series_ifft: [real series, imaginary series]; nulls count as zero. */
function transform(inverse: boolean) {
  return fn(1, 2, ([real_, imaginary]) => {
    const re = numbers(real_);
    if (re === null) return null;
    const im = imaginary === undefined ? re.map(() => 0) : numbers(imaginary);
    if (im === null || im.length !== re.length) return null;
    return dft(
      re.map((x) => x ?? 0),
      im.map((x) => x ?? 0),
      inverse,
    );
  });
}

/** The time-series family. */
export const SERIES_FUNCTIONS: FunctionTable = {
  series_abs: unarySeries(Math.abs),
  series_acos: unarySeries(Math.acos),
  series_asin: unarySeries(Math.asin),
  series_atan: unarySeries(Math.atan),
  series_ceiling: unarySeries(Math.ceil),
  series_floor: unarySeries(Math.floor),
  series_cos: unarySeries(Math.cos),
  series_sin: unarySeries(Math.sin),
  series_tan: unarySeries(Math.tan),
  series_exp: unarySeries(Math.exp),
  // apl/scalar-functions/time-series/series-log: null for non-positive values.
  series_log: unarySeries((x) => (x > 0 ? Math.log(x) : NaN)),
  series_sign: unarySeries(Math.sign),
  series_add: binarySeries((x, y) => x + y),
  series_subtract: binarySeries((x, y) => x - y, "longer"),
  series_multiply: binarySeries((x, y) => x * y, "longer"),
  // apl/scalar-functions/time-series/series-divide: "Division by zero returns infinity or negative infinity".
  series_divide: binarySeries((x, y) => x / y),
  series_pow: binarySeries((x, y) => x ** y),
  series_max: binarySeries((x, y) => Math.max(x, y)),
  series_min: binarySeries((x, y) => Math.min(x, y)),
  series_equals: binarySeries((x, y) => x === y),
  series_not_equals: binarySeries((x, y) => x !== y),
  series_greater: binarySeries((x, y) => x > y),
  series_greater_equals: binarySeries((x, y) => x >= y),
  series_less: binarySeries((x, y) => x < y),
  series_less_equals: binarySeries((x, y) => x <= y),
  // apl/scalar-functions/time-series/series-sum: 0 for an empty array.
  series_sum: fn(1, 1, ([v]) => {
    const a = values(v);
    return a === null ? null : a.reduce((s, x) => s + x, 0);
  }),
  series_magnitude: fn(1, 1, ([v]) => {
    const a = values(v);
    return a === null ? null : Math.sqrt(a.reduce((s, x) => s + x * x, 0));
  }),
  series_dot_product: fn(2, 2, ([x, y]) => {
    const a = numbers(x);
    const b = numbers(y);
    if (a === null || b === null) return null;
    let sum = 0;
    for (let i = 0; i < Math.min(a.length, b.length); i++) sum += (a[i] ?? 0) * (b[i] ?? 0);
    return sum;
  }),
  // apl/scalar-functions/time-series/series-cosine-similarity: null for an empty or all-zero array.
  series_cosine_similarity: fn(2, 2, ([x, y]) => {
    const a = numbers(x);
    const b = numbers(y);
    if (a === null || b === null) return null;
    let dot = 0;
    let na = 0;
    let nb = 0;
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const p = a[i] ?? 0;
      const q = b[i] ?? 0;
      dot += p * q;
      na += p * p;
      nb += q * q;
    }
    return na === 0 || nb === 0 ? null : dot / Math.sqrt(na * nb);
  }),
  series_pearson_correlation: fn(2, 2, ([x, y]) => {
    const a = numbers(x);
    const b = numbers(y);
    if (a === null || b === null) return null;
    const pairs: [number, number][] = [];
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const p = a[i];
      const q = b[i];
      if (p !== null && q !== null) pairs.push([p, q]);
    }
    if (pairs.length < 2) return null;
    const ma = pairs.reduce((s, [p]) => s + p, 0) / pairs.length;
    const mb = pairs.reduce((s, [, q]) => s + q, 0) / pairs.length;
    let cov = 0;
    let va = 0;
    let vb = 0;
    for (const [p, q] of pairs) {
      cov += (p - ma) * (q - mb);
      va += (p - ma) ** 2;
      vb += (q - mb) ** 2;
    }
    return va === 0 || vb === 0 ? null : cov / Math.sqrt(va * vb);
  }),
  series_stats: fn(1, 1, ([v]) => stats(v)?.map((x) => real(x)) ?? null),
  series_stats_dynamic: fn(1, 1, ([v]) => {
    const s = stats(v);
    if (s === null) return null;
    const [min, min_idx, max, max_idx, avg, variance, stdev] = s.map((x) => real(x));
    return { min, min_idx, max, max_idx, avg, variance, stdev };
  }),
  series_fill_const: fn(2, 2, ([v, constant]) => {
    const a = asArray(v);
    return a === null ? null : a.map((x) => (isNull(x) ? constant : x));
  }),
  // Forward: a null takes the last value before it; backward: the next value after it. Nulls with no such
  // value stay null.
  series_fill_forward: fn(1, 1, ([v]) => {
    const a = asArray(v);
    if (a === null) return null;
    let last: unknown = null;
    return a.map((x) => (isNull(x) ? last : (last = x)));
  }),
  series_fill_backward: fn(1, 1, ([v]) => {
    const a = asArray(v);
    if (a === null) return null;
    const out = [...a];
    let next: unknown = null;
    for (let i = out.length - 1; i >= 0; i--) {
      if (isNull(out[i])) out[i] = next;
      else next = out[i];
    }
    return out;
  }),
  // Nulls between two values interpolated on a straight line; leading and trailing nulls take the nearest value.
  series_fill_linear: fn(1, 1, ([v]) => {
    const a = numbers(v);
    if (a === null) return null;
    const out = [...a];
    // One pass: each run of nulls is filled from the values on either side of it.
    let before = -1;
    for (let i = 0; i <= out.length; i++) {
      if (i < out.length && out[i] === null) continue;
      const gapStart = before + 1;
      if (i > gapStart) {
        for (let j = gapStart; j < i; j++) {
          if (before < 0 && i === out.length) break;
          if (before < 0) out[j] = a[i];
          else if (i === out.length) out[j] = a[before];
          else out[j] = a[before]! + ((a[i]! - a[before]!) * (j - before)) / (i - before);
        }
      }
      before = i;
    }
    return out;
  }),
  // y[i] = Σ kernel[j]·x[i−j], samples before the start counted as zero; normalized by the kernel's sum unless
  // the third argument is false (Kusto's series_fir defaults).
  series_fir: fn(2, 4, ([v, kernel, normalize, center]) => {
    const x = numbers(v);
    const k = values(kernel);
    if (x === null || k === null || k.length === 0) return null;
    const sum = k.reduce((s, c) => s + c, 0);
    const scale = normalize === false || sum === 0 ? 1 : sum;
    const shift = center === true ? Math.floor(k.length / 2) : 0;
    return x.map((_, i) => {
      let acc = 0;
      for (let j = 0; j < k.length; j++) acc += k[j] * (x[i - j + shift] ?? 0);
      return acc / scale;
    });
  }),
  // y[n] = (Σ b[k]·x[n−k] − Σ_{k≥1} a[k]·y[n−k]) / a[0].
  series_iir: fn(3, 3, ([v, numerator, denominator]) => {
    const x = numbers(v);
    const b = values(numerator);
    const a = values(denominator);
    if (x === null || b === null || a === null || a.length === 0 || a[0] === 0) return null;
    const y: number[] = [];
    for (let n = 0; n < x.length; n++) {
      let acc = 0;
      for (let k = 0; k < b.length; k++) acc += b[k] * (n - k >= 0 ? (x[n - k] ?? 0) : 0);
      for (let k = 1; k < a.length; k++) acc -= a[k] * (n - k >= 0 ? y[n - k] : 0);
      y.push(acc / a[0]);
    }
    return y;
  }),
  series_fft: transform(false),
  series_ifft: transform(true),
};
