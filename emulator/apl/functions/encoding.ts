/**
 * Encodings (apl/scalar-functions/string-functions: base64_*, unicode_codepoints_*): bytes are UTF-8, arrays of
 * bytes are arrays of numbers 0-255.
 */
import { asArray, asString, fn, type FunctionTable, unary } from "./common";

/** A decoder that refuses malformed UTF-8 rather than writing U+FFFD for it. */
const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });

/** Standard or URL-safe Base64, padding optional; null when the text is not Base64. */
function decodeBase64(text: string): Buffer | null {
  const t = text.trim();
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(t) || t.replace(/=+$/, "").length % 4 === 1) return null;
  return Buffer.from(t.replace(/-/g, "+").replace(/_/g, "/"), "base64");
}

/** Bytes from an array of numbers 0-255, or null when an element is not a byte. */
function bytesOf(a: unknown[]): Buffer | null {
  const out = Buffer.alloc(a.length);
  for (let i = 0; i < a.length; i++) {
    const b = a[i];
    if (typeof b !== "number" || !Number.isInteger(b) || b < 0 || b > 255) return null;
    out[i] = b;
  }
  return out;
}

/** The encoding family. */
export const ENCODING_FUNCTIONS: FunctionTable = {
  base64_encode_tostring: unary((v) => Buffer.from(asString(v)!, "utf8").toString("base64")),
  base64_decode_tostring: unary((v) => {
    const bytes = decodeBase64(asString(v)!);
    if (bytes === null) return null;
    // Bytes that are not UTF-8 make no string (Kusto returns null there too).
    try {
      return STRICT_UTF8.decode(bytes);
    } catch {
      return null;
    }
  }),
  // apl/scalar-functions/string-functions/base64-decode-toarray: an empty array for input that is not Base64.
  base64_decode_toarray: unary((v) => {
    const bytes = decodeBase64(asString(v)!);
    return bytes === null ? [] : [...bytes];
  }),
  // apl/scalar-functions/string-functions/base64-encode-fromarray: the empty string for an array of non-bytes.
  base64_encode_fromarray: unary((v) => {
    const a = asArray(v);
    const bytes = a === null ? null : bytesOf(a);
    return bytes === null ? "" : bytes.toString("base64");
  }),
  unicode_codepoints_from_string: unary((v) => Array.from(asString(v)!, (c) => c.codePointAt(0)!)),
  unicode_codepoints_to_string: fn(1, 1, ([v]) => {
    const a = asArray(v);
    if (a === null) return null;
    let out = "";
    for (const c of a) {
      if (
        typeof c !== "number" ||
        !Number.isInteger(c) ||
        c < 0 ||
        c > 0x10ffff ||
        (c >= 0xd800 && c <= 0xdfff)
      ) {
        return null;
      }
      out += String.fromCodePoint(c);
    }
    return out;
  }),
};
