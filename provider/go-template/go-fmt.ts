/**
 * Go values as a text/template sees them, and Go's `fmt` printing of them (`Sprint`, `Sprintln`, `Sprintf`), so
 * that a custom webhook body renders byte for byte as the service (a Go program) renders it.
 *
 * The model: a JavaScript `bigint` is a Go `int`, a `number` a `float64` (JSON numbers decode to float64 in Go,
 * so every number of a matched event is one), a plain object a `map[string]interface {}`, an array a slice,
 * `null` a nil interface, `undefined` the invalid value text/template prints as `<no value>`. {@link GoTime},
 * {@link GoStruct} and {@link GoNil} cover `time.Time`, the template's data struct and typed nil slices and maps.
 * Sources: pkg.go.dev/fmt ("Printing": %v's default formats, "Format errors": `%!d(string=hi)`), pkg.go.dev/strconv
 * (`FormatFloat`'s 'g' and 'e'), pkg.go.dev/time (`Time.String`).
 */

/** A Go `time.Time`, in UTC, to the nanosecond. */
export class GoTime {
  constructor(readonly ns: bigint) {}
  /** Go's `Time.String()`: `2006-01-02 15:04:05.999999999 -0700 MST`, trailing zeros of the fraction dropped. */
  toString(): string {
    return formatGoTime(this.ns, "2006-01-02 15:04:05.999999999 -0700 MST");
  }
}

/** A Go struct: the template's data. Field order is declaration order (it is how `%v` prints a struct). */
export class GoStruct {
  constructor(
    readonly typeName: string,
    readonly fields: ReadonlyMap<string, GoValue>,
  ) {}
}

/** A typed nil: a nil slice prints `[]`, a nil map `map[]`; both are empty, and JSON-encode as `null`. */
export class GoNil {
  constructor(
    readonly kind: "slice" | "map",
    readonly typeName: string,
  ) {}
}

/** A Go map with string keys (`map[string]interface {}`). */
export interface GoMap {
  [key: string]: GoValue;
}

/** Any value a template can hold. */
export type GoValue =
  undefined | null | string | boolean | number | bigint | GoTime | GoStruct | GoNil | GoValue[] | GoMap;

/** Whether `v` is a Go map (a plain object). */
export function isGoMap(v: GoValue): v is GoMap {
  return (
    typeof v === "object" && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype
  );
}

/**
 * A string being built passed the most a render lets one value hold (the emulator's bound: Go has none, see
 * docs/emulator.md). `max` is in UTF-16 code units here; a string's UTF-8 size is never below its length, so
 * whatever this refuses is over `max` bytes too, and the executor checks the exact size of what is accepted.
 */
export class ValueTooLarge extends Error {
  constructor(readonly max: number) {
    super(`a value passed ${max} bytes`);
    this.name = "ValueTooLarge";
  }
}

/** Builds a string piece by piece and refuses to grow past `max` units, so that no piece is built past the
 * bound before it is refused (one `printf` of 500 verbs of a million characters each stops at the second). */
class Builder {
  s = "";
  constructor(readonly max: number) {}
  add(piece: string): void {
    if (this.s.length + piece.length > this.max) throw new ValueTooLarge(this.max);
    this.s += piece;
  }
}

/** Converts a decoded JSON value as Go's `json.Unmarshal` into `interface{}` would hold it: numbers are float64. */
export function fromJson(v: unknown): GoValue {
  if (v === null || v === undefined) return null;
  if (typeof v === "string" || typeof v === "boolean" || typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  if (Array.isArray(v)) return v.map(fromJson);
  if (typeof v === "object") {
    const out: GoMap = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = fromJson(x);
    return out;
  }
  return String(v);
}

/** The Go type name of a value, as fmt's `%T` and error messages print it. */
export function goTypeName(v: GoValue): string {
  if (v === undefined || v === null) return "<nil>";
  switch (typeof v) {
    case "string":
      return "string";
    case "boolean":
      return "bool";
    case "number":
      return "float64";
    case "bigint":
      return "int";
  }
  if (v instanceof GoTime) return "time.Time";
  if (v instanceof GoStruct) return v.typeName;
  if (v instanceof GoNil) return v.typeName;
  if (Array.isArray(v)) return "[]interface {}";
  return "map[string]interface {}";
}

/** The exact decimal expansion of a positive finite double: `digits` (no trailing zeros) and `dp`, the decimal
 * point's position. A double is m·2^e, which is m·5^-e / 10^-e when e < 0: exact with BigInt. */
function exactDecimal(x: number): { digits: string; dp: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  let mantissa = bits & ((1n << 52n) - 1n);
  let exp = -1074;
  if (biased !== 0) {
    mantissa |= 1n << 52n;
    exp = biased - 1075;
  }
  const s = exp >= 0 ? (mantissa << BigInt(exp)).toString() : (mantissa * 5n ** BigInt(-exp)).toString();
  return { digits: s.replace(/0+$/, ""), dp: exp >= 0 ? s.length : s.length + exp };
}

/** Rounds decimal digits to `nd` significant digits, an exact half to even, as strconv's decimal.Round does. */
function roundDigits(digits: string, dp: number, nd: number): { digits: string; dp: number } {
  if (nd < 0) return { digits: "", dp };
  if (digits.length <= nd) return { digits, dp };
  const keep = digits.slice(0, nd);
  const rest = digits.slice(nd);
  const up =
    rest[0] > "5" ||
    (rest[0] === "5" && (/[1-9]/.test(rest.slice(1)) || (nd > 0 && Number(keep[nd - 1]) % 2 === 1)));
  if (!up) return { digits: keep.replace(/0+$/, ""), dp };
  const out = keep.split("");
  let i = nd - 1;
  while (i >= 0 && out[i] === "9") out[i--] = "0";
  if (i < 0) return { digits: "1", dp: dp + 1 };
  out[i] = String(Number(out[i]) + 1);
  return { digits: out.join("").replace(/0+$/, ""), dp };
}

/**
 * strconv.FormatFloat's decimal digits of `x` (positive, finite): `digits` without trailing zeros and `dp`, the
 * decimal point's position, for the shortest round-trip form (`prec` < 0; JavaScript's shortest digits are the
 * same, both choosing the closest of the shortest) or rounded to `prec` significant digits.
 */
function decimalDigits(x: number, prec: number): { digits: string; dp: number } {
  if (x === 0) return { digits: "", dp: 0 };
  if (prec < 0) {
    const [mantissa, exp] = x.toExponential().split("e");
    return { digits: mantissa.replace(".", "").replace(/0+$/, ""), dp: Number(exp) + 1 };
  }
  const exact = exactDecimal(x);
  return roundDigits(exact.digits, exact.dp, prec);
}

/** strconv's %e body: one digit, `frac` more, `e±dd`. */
function fmtE(digits: string, dp: number, frac: number, e: string): string {
  const d = digits.padEnd(frac + 1, "0");
  const exp = digits === "" ? 0 : dp - 1;
  const mant = frac > 0 ? `${d[0] || "0"}.${d.slice(1, frac + 1)}` : d[0] || "0";
  const sign = exp < 0 ? "-" : "+";
  return `${mant}${e}${sign}${String(Math.abs(exp)).padStart(2, "0")}`;
}

/** strconv's %f body from digits: integer part, then `frac` digits after the point. */
function fmtF(digits: string, dp: number, frac: number): string {
  let int = "";
  if (dp > 0) int = digits.slice(0, dp).padEnd(dp, "0");
  else int = "0";
  if (frac <= 0) return int;
  // The fraction's digits are those from the point on, zeros before them (dp < 0) and after them: built in a few
  // pieces, not a digit at a time (a precision of millions made a rope of a piece per digit).
  const lead = Math.min(frac, Math.max(0, -dp));
  const from = Math.max(dp, 0);
  const body = digits.slice(from, Math.max(from, Math.min(dp + frac, digits.length)));
  return `${int}.${("0".repeat(lead) + body).padEnd(frac, "0")}`;
}

/**
 * strconv.FormatFloat(x, verb, prec, 64) for verbs e, E, f, F, g, G; `prec` < 0 is the shortest form. The %v
 * of a float64 is 'g' with the shortest digits, which switches to an exponent from 1e+06 up (Go prints
 * `1.234567e+06`, not `1234567`) and below 1e-04.
 */
export function formatGoFloat(x: number, verb: string, prec: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (x === Infinity) return "+Inf";
  if (x === -Infinity) return "-Inf";
  const neg = x < 0 || Object.is(x, -0);
  const a = Math.abs(x);
  const sign = neg ? "-" : "";
  const e = verb === "E" || verb === "G" ? "E" : "e";
  if (verb === "f" || verb === "F") {
    const p = prec < 0 ? -1 : prec;
    if (p < 0) {
      const { digits, dp } = decimalDigits(a, -1);
      return sign + fmtF(digits, dp, Math.max(digits.length - dp, 0));
    }
    if (a === 0) return sign + fmtF("", 1, p);
    const exact = exactDecimal(a);
    const { digits, dp } = roundDigits(exact.digits, exact.dp, exact.dp + p);
    return sign + fmtF(digits, dp, p);
  }
  if (verb === "e" || verb === "E") {
    if (prec < 0) {
      const { digits, dp } = decimalDigits(a, -1);
      return sign + fmtE(digits, dp, Math.max(digits.length - 1, 0), e);
    }
    const { digits, dp } = decimalDigits(a, prec + 1);
    return sign + fmtE(digits, dp, prec, e);
  }
  // 'g' / 'G'
  const shortest = prec < 0;
  let p = prec === 0 ? 1 : prec;
  const { digits, dp } = decimalDigits(a, shortest ? -1 : p);
  const nd = digits.length;
  if (shortest) p = nd;
  let eprec = p;
  if (eprec > nd && nd >= dp) eprec = nd;
  if (shortest) eprec = 6;
  const exp = nd === 0 ? 0 : dp - 1;
  if (exp < -4 || exp >= eprec) {
    if (p > nd) p = nd;
    return sign + fmtE(digits, dp, Math.max(p - 1, 0), e);
  }
  if (p > dp) p = nd;
  return sign + fmtF(digits, nd === 0 ? 1 : dp, Math.max(p - dp, 0));
}

/** Go's strconv.Quote: a double-quoted Go string literal, printable characters kept. One regular expression
 * pass over the string: a character at a time with `+=` would build a rope of a million pieces for a 1 MiB value. */
export function goQuote(s: string): string {
  return '"' + s.replace(QUOTED, quoteChar) + '"';
}

/** What strconv.Quote escapes: the quote, the backslash, controls, and what is not printable (not a letter, mark,
 * number, punctuation, symbol or the space); a lone surrogate is not printable either. */
const QUOTED = /["\\]|[^\p{L}\p{M}\p{N}\p{P}\p{S} ]/gu;

function quoteChar(ch: string): string {
  const c = ch.codePointAt(0)!;
  if (ch === '"') return '\\"';
  if (ch === "\\") return "\\\\";
  if (c === 7) return "\\a";
  if (c === 8) return "\\b";
  if (c === 12) return "\\f";
  if (c === 10) return "\\n";
  if (c === 13) return "\\r";
  if (c === 9) return "\\t";
  if (c === 11) return "\\v";
  if (c < 0x20 || c === 0x7f) return "\\x" + c.toString(16).padStart(2, "0");
  if (c < 0x10000) return "\\u" + c.toString(16).padStart(4, "0");
  return "\\U" + c.toString(16).padStart(8, "0");
}

/** The default format, `%v`: what `{{.X}}` and `print` write. Past `max` characters it throws
 * {@link ValueTooLarge}, having built no more than that (a value of the data can be as large as the event). */
export function formatValue(v: GoValue, max = Infinity): string {
  if (typeof v === "string") {
    if (v.length > max) throw new ValueTooLarge(max);
    return v;
  }
  const b = new Builder(max);
  writeValue(b, v);
  return b.s;
}

function writeValue(b: Builder, v: GoValue): void {
  if (v === undefined || v === null) return b.add("<nil>");
  switch (typeof v) {
    case "string":
      return b.add(v);
    case "boolean":
      return b.add(v ? "true" : "false");
    case "number":
      return b.add(formatGoFloat(v, "g", -1));
    case "bigint":
      return b.add(v.toString());
  }
  if (v instanceof GoTime) return b.add(v.toString());
  if (v instanceof GoNil) return b.add(v.kind === "slice" ? "[]" : "map[]");
  const list = (items: Iterable<GoValue>, open: string, close: string) => {
    b.add(open);
    let first = true;
    for (const x of items) {
      if (!first) b.add(" ");
      first = false;
      writeValue(b, x);
    }
    b.add(close);
  };
  if (v instanceof GoStruct) return list(v.fields.values(), "{", "}");
  if (Array.isArray(v)) return list(v, "[", "]");
  // fmt prints a map's keys sorted (Go 1.12 and later).
  b.add("map[");
  Object.keys(v)
    .sort()
    .forEach((k, i) => {
      if (i > 0) b.add(" ");
      b.add(k);
      b.add(":");
      writeValue(b, v[k]);
    });
  b.add("]");
}

/** fmt.Sprint: operands printed with %v, a space between two operands when neither is a string. Past `max`
 * characters it throws {@link ValueTooLarge}: `print $a $a` doubles a value, and is refused before it does.
 * `tick` is called before each operand (a template counts the work, and checks its time budget, as it goes). */
export function goSprint(args: readonly GoValue[], max = Infinity, tick?: () => void): string {
  const b = new Builder(max);
  let prevString = false;
  args.forEach((a, i) => {
    tick?.();
    const isString = typeof a === "string";
    if (i > 0 && !isString && !prevString) b.add(" ");
    writeValue(b, a);
    prevString = isString;
  });
  return b.s;
}

/** fmt.Sprintln: operands always separated by a space, and a newline; bounded as {@link goSprint}. */
export function goSprintln(args: readonly GoValue[], max = Infinity, tick?: () => void): string {
  const b = new Builder(max);
  args.forEach((a, i) => {
    tick?.();
    if (i > 0) b.add(" ");
    writeValue(b, a);
  });
  b.add("\n");
  return b.s;
}

interface Spec {
  minus: boolean;
  plus: boolean;
  sharp: boolean;
  space: boolean;
  zero: boolean;
  width?: number;
  prec?: number;
}

function pad(s: string, spec: Spec, numeric: boolean): string {
  const w = spec.width ?? 0;
  // Width counts runes; only whether there are fewer than w matters, so count no further than w (a 256-million-
  // character value spread into an array of its characters only to be measured took gigabytes).
  const len = runesUpTo(s, w);
  if (len >= w) return s;
  if (spec.minus) return s + " ".repeat(w - len);
  if (spec.zero && numeric) {
    const signed = /^[+-]/.test(s);
    return (signed ? s[0] : "") + "0".repeat(w - len) + (signed ? s.slice(1) : s);
  }
  return " ".repeat(w - len) + s;
}

/** How many code points `s` holds, counting no further than `limit`: time in min(len, limit), no allocation. */
function runesUpTo(s: string, limit: number): number {
  // A string of n UTF-16 units holds between n/2 and n code points.
  if (s.length <= limit) return s.length === 0 ? 0 : countRunes(s, s.length);
  if (s.length >= 2 * limit) return limit;
  return countRunes(s, limit);
}

function countRunes(s: string, limit: number): number {
  let n = 0;
  for (let i = 0; i < s.length && n < limit; i++, n++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
  }
  return n;
}

/** The first `n` code points of `s` (a precision of %s counts runes): time in n, the string not spread. */
function firstRunes(s: string, n: number): string {
  if (n >= s.length) return s;
  let i = 0;
  for (let k = 0; k < n && i < s.length; k++) {
    const c = s.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
  }
  return s.slice(0, i);
}

function badVerb(verb: string, v: GoValue, max: number): string {
  if (v === undefined || v === null) return `%!${verb}(<nil>)`;
  return `%!${verb}(${goTypeName(v)}=${formatValue(v, max)})`;
}

function signed(s: string, spec: Spec, negative: boolean): string {
  if (negative) return s;
  if (spec.plus) return "+" + s;
  if (spec.space) return " " + s;
  return s;
}

/** An int as the rune fmt writes for %c: one that is not a Unicode scalar value is U+FFFD (utf8.AppendRune's
 * RuneError), where String.fromCodePoint would throw. */
function runeText(v: bigint): string {
  if (v < 0n || v > 0x10ffffn || (v >= 0xd800n && v <= 0xdfffn)) return "\uFFFD";
  return String.fromCodePoint(Number(v));
}

/** One operand under one verb, padding included; bounded by `max` characters as {@link goSprintf} is. */
function formatVerb(verb: string, v: GoValue, spec: Spec, max: number): string {
  if (verb === "T") return pad(goTypeName(v), spec, false);
  if (verb === "v") {
    if (typeof v === "number") return formatVerb("g", v, spec, max);
    if (typeof v === "bigint") return formatVerb("d", v, spec, max);
    return pad(formatValue(v, max), spec, false);
  }
  if (v === undefined || v === null) return badVerb(verb, v, max);
  // Slices and maps apply the verb to each element, as fmt does.
  if (Array.isArray(v)) {
    const b = new Builder(max);
    b.add("[");
    v.forEach((x, i) => {
      if (i > 0) b.add(" ");
      b.add(formatVerb(verb, x, { ...spec, width: undefined }, max));
    });
    b.add("]");
    return b.s;
  }
  if (isGoMap(v)) {
    const b = new Builder(max);
    b.add("map[");
    Object.keys(v)
      .sort()
      .forEach((k, i) => {
        if (i > 0) b.add(" ");
        b.add(formatVerb(verb, k, spec, max));
        b.add(":");
        b.add(formatVerb(verb, v[k], spec, max));
      });
    b.add("]");
    return b.s;
  }
  switch (verb) {
    case "s":
    case "q": {
      let s: string | undefined;
      if (typeof v === "string") s = v;
      else if (v instanceof GoTime) s = v.toString();
      else if (typeof v === "bigint" && verb === "q") return pad(`'${runeText(v)}'`, spec, false);
      if (s === undefined) return badVerb(verb, v, max);
      if (spec.prec !== undefined) s = firstRunes(s, spec.prec);
      return pad(verb === "q" ? goQuote(s) : s, spec, false);
    }
    case "d":
    case "b":
    case "o":
    case "x":
    case "X": {
      if (typeof v === "string" && (verb === "x" || verb === "X")) {
        const hex = Buffer.from(v, "utf8").toString("hex");
        return pad(verb === "X" ? hex.toUpperCase() : hex, spec, false);
      }
      if (typeof v !== "bigint") return badVerb(verb, v, max);
      const radix = { d: 10, b: 2, o: 8, x: 16, X: 16 }[verb];
      let s = (v < 0n ? -v : v).toString(radix);
      if (verb === "X") s = s.toUpperCase();
      if (spec.prec !== undefined) s = s.padStart(spec.prec, "0");
      return pad(signed((v < 0n ? "-" : "") + s, spec, v < 0n), spec, true);
    }
    case "e":
    case "E":
    case "f":
    case "F":
    case "g":
    case "G": {
      if (typeof v !== "number") return badVerb(verb, v, max);
      const prec = spec.prec ?? (verb === "g" || verb === "G" ? -1 : 6);
      return pad(signed(formatGoFloat(v, verb, prec), spec, v < 0), spec, true);
    }
    case "t":
      return typeof v === "boolean" ? pad(v ? "true" : "false", spec, false) : badVerb(verb, v, max);
    case "c":
      return typeof v === "bigint" ? pad(runeText(v), spec, false) : badVerb(verb, v, max);
    default:
      return badVerb(verb, v, max);
  }
}

/** fmt's parsenum: digits from `start`; a number past 1e6 consumes the rest of the format, as Go's does. */
function parseNum(format: string, start: number): { num?: number; next: number } {
  let num = 0;
  let i = start;
  for (; i < format.length && format[i] >= "0" && format[i] <= "9"; i++) {
    if (num > 1_000_000) return { next: format.length };
    num = num * 10 + Number(format[i]);
  }
  return i === start ? { next: i } : { num, next: i };
}

/** fmt.Sprintf with the verbs a template uses: %v %s %q %d %c %f %e %g %t %x %X %o %b %T %%, flags, width and
 * precision (`*` reads an int operand); a missing operand prints `%!d(MISSING)`, extra ones `%!(EXTRA …)`. */
export function goSprintf(
  format: string,
  args: readonly GoValue[],
  max = Infinity,
  tick?: () => void,
): string {
  const out = new Builder(max);
  let argi = 0;
  let i = 0;
  // fmt's bound on a width or precision (tooLarge: more than 1e6 either way): a larger one is refused, as Go does.
  const takeInt = (): number | undefined => {
    const a = args[argi++];
    return typeof a === "bigint" && a <= 1_000_000n && a >= -1_000_000n ? Number(a) : undefined;
  };
  while (i < format.length) {
    const c = format[i];
    if (c !== "%") {
      // The text up to the next verb in one piece.
      const next = format.indexOf("%", i);
      out.add(format.slice(i, next < 0 ? undefined : next));
      i = next < 0 ? format.length : next;
      continue;
    }
    i++;
    // Each verb is work (a format of 30,000 verbs over as many operands): counted by the caller, who checks its time.
    tick?.();
    const spec: Spec = { minus: false, plus: false, sharp: false, space: false, zero: false };
    for (; i < format.length; i++) {
      const f = format[i];
      if (f === "-") spec.minus = true;
      else if (f === "+") spec.plus = true;
      else if (f === "#") spec.sharp = true;
      else if (f === " ") spec.space = true;
      else if (f === "0") spec.zero = !spec.minus;
      else break;
    }
    if (format[i] === "*") {
      spec.width = takeInt();
      if (spec.width === undefined) out.add("%!(BADWIDTH)");
      i++;
    } else {
      const n = parseNum(format, i);
      spec.width = n.num;
      i = n.next;
    }
    if (format[i] === ".") {
      i++;
      if (format[i] === "*") {
        spec.prec = takeInt();
        if (spec.prec === undefined) out.add("%!(BADPREC)");
        i++;
      } else {
        const n = parseNum(format, i);
        spec.prec = n.num ?? 0;
        i = n.next;
      }
    }
    if (i >= format.length) {
      out.add("%!(NOVERB)");
      break;
    }
    const verb = String.fromCodePoint(format.codePointAt(i)!);
    i += verb.length;
    if (verb === "%") {
      out.add("%");
      continue;
    }
    if (argi >= args.length) {
      out.add(`%!${verb}(MISSING)`);
      continue;
    }
    // A verb writes at least its width, and an int's or a fixed or exponent float's at least its precision (fmt's
    // bound lets either reach ten million): refused before it is built.
    if ((spec.width ?? 0) > max || ((spec.prec ?? 0) > max && "dboxXeEfF".includes(verb)))
      throw new ValueTooLarge(max);
    out.add(formatVerb(verb, args[argi++], spec, max));
  }
  if (argi < args.length) {
    const extra = args
      .slice(argi)
      .map((a) => (a == null ? "<nil>" : `${goTypeName(a)}=${formatValue(a, max)}`));
    out.add(`%!(EXTRA ${extra.join(", ")})`);
  }
  return out.s;
}

const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];
const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/**
 * Go's `Time.Format(layout)` for a UTC time: the reference-time elements (pkg.go.dev/time, "Constants":
 * 2006 06 January Jan 01 1 Monday Mon 02 _2 2 002 15 03 3 04 4 05 5 PM pm MST Z07:00 -07:00 -0700 Z0700 -07 Z07,
 * and fractions .000 / .999 / ,000), everything else copied.
 */
export function formatGoTime(ns: bigint, layout: string): string {
  const ms = Number(ns / 1_000_000n - (ns % 1_000_000n < 0n ? 1n : 0n));
  const nanos = Number(((ns % 1_000_000_000n) + 1_000_000_000n) % 1_000_000_000n);
  const d = new Date(ms);
  const year = d.getUTCFullYear();
  const month = d.getUTCMonth();
  const day = d.getUTCDate();
  const hour = d.getUTCHours();
  const two = (n: number) => String(n).padStart(2, "0");
  const hour12 = hour % 12 === 0 ? 12 : hour % 12;
  // Pieces joined once: `+=` of a piece per element would build a rope of a million pieces for a long layout.
  const parts: string[] = [];
  let out = "";
  for (const chunk of layoutChunks(layout)) {
    if (out.length > 64) {
      parts.push(out);
      out = "";
    }
    if (typeof chunk === "string") {
      out += chunk;
      continue;
    }
    if ("frac" in chunk) {
      let digits = String(nanos).padStart(9, "0").slice(0, chunk.frac);
      if (chunk.trim) digits = digits.replace(/0+$/, "");
      if (digits !== "" || !chunk.trim) out += chunk.sep + digits;
      continue;
    }
    switch (chunk.element) {
      case "January":
        out += MONTHS[month];
        break;
      case "Jan":
        out += MONTHS[month].slice(0, 3);
        break;
      case "Monday":
        out += DAYS[d.getUTCDay()];
        break;
      case "Mon":
        out += DAYS[d.getUTCDay()].slice(0, 3);
        break;
      case "MST":
        out += "UTC";
        break;
      case "2006":
        out += String(year).padStart(4, "0");
        break;
      case "Z07:00:00":
      case "Z07:00":
      case "Z0700":
      case "Z07":
        out += "Z";
        break;
      case "-07:00:00":
        out += "+00:00:00";
        break;
      case "-07:00":
        out += "+00:00";
        break;
      case "-0700":
        out += "+0000";
        break;
      case "-07":
        out += "+00";
        break;
      case "002":
        out += String(
          Math.floor((Date.UTC(year, month, day) - Date.UTC(year, 0, 1)) / 86_400_000) + 1,
        ).padStart(3, "0");
        break;
      case "01":
        out += two(month + 1);
        break;
      case "02":
        out += two(day);
        break;
      case "_2":
        out += String(day).padStart(2, " ");
        break;
      case "03":
        out += two(hour12);
        break;
      case "04":
        out += two(d.getUTCMinutes());
        break;
      case "05":
        out += two(d.getUTCSeconds());
        break;
      case "06":
        out += two(year % 100);
        break;
      case "15":
        out += two(hour);
        break;
      case "PM":
        out += hour >= 12 ? "PM" : "AM";
        break;
      case "pm":
        out += hour >= 12 ? "pm" : "am";
        break;
      case "1":
        out += String(month + 1);
        break;
      case "2":
        out += String(day);
        break;
      case "3":
        out += String(hour12);
        break;
      case "4":
        out += String(d.getUTCMinutes());
        break;
      case "5":
        out += String(d.getUTCSeconds());
        break;
    }
  }
  parts.push(out);
  return parts.join("");
}

/** The reference-time elements, longest first where one is a prefix of another. */
const ELEMENTS = [
  "January",
  "Jan",
  "Monday",
  "Mon",
  "MST",
  "2006",
  "Z07:00:00",
  "Z07:00",
  "Z0700",
  "Z07",
  "-07:00:00",
  "-07:00",
  "-0700",
  "-07",
  "002",
  "01",
  "02",
  "_2",
  "03",
  "04",
  "05",
  "06",
  "15",
  "PM",
  "pm",
  "1",
  "2",
  "3",
  "4",
  "5",
];

type LayoutChunk = string | { element: string } | { frac: number; trim: boolean; sep: string };
const layoutCache = new Map<string, LayoutChunk[]>();

/** The longest layout kept parsed: a template formats the same few short layouts; a long one (a value of the
 * template's, up to its bound) is scanned as it is formatted, neither kept nor held as one object per element. */
const CACHED_LAYOUT = 256;

/** A layout split into literal text, elements and fractions; a short one once. */
function layoutChunks(layout: string): Iterable<LayoutChunk> {
  if (layout.length > CACHED_LAYOUT) return scanLayout(layout);
  const cached = layoutCache.get(layout);
  if (cached) return cached;
  const chunks = [...scanLayout(layout)];
  if (layoutCache.size < 64) layoutCache.set(layout, chunks);
  return chunks;
}

function* scanLayout(layout: string): Generator<LayoutChunk> {
  let text = "";
  let i = 0;
  outer: while (i < layout.length) {
    // A fraction: '.' or ',' then a run of 0s (fixed) or 9s (trailing zeros dropped), after a seconds element.
    const frac = layout[i - 1] === "5" ? /^[.,](0+|9+)(?![0-9])/.exec(layout.slice(i)) : null;
    if (frac) {
      if (text) yield text;
      text = "";
      yield { frac: frac[1].length, trim: frac[1][0] === "9", sep: frac[0][0] };
      i += frac[0].length;
      continue;
    }
    for (const element of ELEMENTS) {
      if (layout.startsWith(element, i)) {
        if (text) yield text;
        text = "";
        yield { element };
        i += element.length;
        continue outer;
      }
    }
    // Literal text up to the next character that may start an element or a fraction, in one piece.
    let j = i + 1;
    while (j < layout.length && !LAYOUT_START.has(layout[j])) j++;
    text += layout.slice(i, j);
    i = j;
  }
  if (text) yield text;
}

/** The characters an element or a fraction may start with. */
const LAYOUT_START = new Set([..."JMZ-0123456_PpM.,"]);

/** Go's encoding/json string encoding: `<`, `>`, `&`, U+2028 and U+2029 escaped (json.Marshal's HTML-safe default),
 * controls as `\n` `\r` `\t` `\b` `\f` or `\u00xx`. */
function goJsonString(s: string): string {
  // One regular expression pass: a character at a time with `+=` built a rope of a piece per character.
  return '"' + s.replace(JSON_ESCAPED, jsonEscapeChar) + '"';
}

// eslint-disable-next-line no-control-regex -- escaping the control characters is the point.
const JSON_ESCAPED = /["\\\x00-\x1f<>&\u2028\u2029]/g;

function jsonEscapeChar(ch: string): string {
  switch (ch) {
    case '"':
      return '\\"';
    case "\\":
      return "\\\\";
    case "\n":
      return "\\n";
    case "\r":
      return "\\r";
    case "\t":
      return "\\t";
    case "\b":
      return "\\b";
    case "\f":
      return "\\f";
  }
  return "\\u" + ch.charCodeAt(0).toString(16).padStart(4, "0");
}

/**
 * Go's `json.Marshal` of a template value: map keys sorted, struct fields in order, a typed nil slice or map
 * `null`, a time in RFC 3339 with nanoseconds, float64 in Go's form (which matches JavaScript's shortest form:
 * exponent below 1e-6 and from 1e21). NaN and infinities are an error, as in Go.
 */
export function goJsonMarshal(v: GoValue): string {
  if (v === undefined || v === null || v instanceof GoNil) return "null";
  switch (typeof v) {
    case "string":
      return goJsonString(v);
    case "boolean":
      return v ? "true" : "false";
    case "bigint":
      return v.toString();
    case "number":
      if (!Number.isFinite(v)) throw new Error(`json: unsupported value: ${formatGoFloat(v, "g", -1)}`);
      return String(v);
  }
  if (v instanceof GoTime) return goJsonString(formatGoTime(v.ns, "2006-01-02T15:04:05.999999999Z07:00"));
  if (v instanceof GoStruct)
    return `{${[...v.fields].map(([k, x]) => `${goJsonString(k)}:${goJsonMarshal(x)}`).join(",")}}`;
  if (Array.isArray(v)) return `[${v.map(goJsonMarshal).join(",")}]`;
  const keys = Object.keys(v).sort();
  return `{${keys.map((k) => `${goJsonString(k)}:${goJsonMarshal(v[k])}`).join(",")}}`;
}
