/**
 * Hash functions (apl/scalar-functions/hash-functions). The digests come from node:crypto; the pages say the
 * argument is converted to a string first and the result is lower-case hex. `hash()` returns "the signed integer
 * hash"; the page does not name the algorithm, and Kusto's hash() is xxHash64, so the emulator uses XXH64
 * (implemented here from the published algorithm, https://github.com/Cyan4973/xxHash/blob/dev/doc/xxhash_spec.md,
 * since no xxHash package is among the dependencies), the salt as the seed. The result is a JavaScript number,
 * exact up to 2^53: beyond that its lowest digits are rounded, as any 64-bit integer in the emulator's numbers.
 */
import { createHash } from "node:crypto";
import { asInteger, fn, type FunctionTable, isNull } from "./common";
import { aplToString } from "./text";

const MASK = (1n << 64n) - 1n;
const P1 = 0x9e3779b185ebca87n;
const P2 = 0xc2b2ae3d27d4eb4fn;
const P3 = 0x165667b19e3779f9n;
const P4 = 0x85ebca77c2b2ae63n;
const P5 = 0x27d4eb2f165667c5n;

const rotl = (x: bigint, r: bigint): bigint => ((x << r) | (x >> (64n - r))) & MASK;
const mul = (a: bigint, b: bigint): bigint => (a * b) & MASK;

function round(acc: bigint, lane: bigint): bigint {
  return mul(rotl((acc + mul(lane, P2)) & MASK, 31n), P1);
}

function mergeRound(acc: bigint, val: bigint): bigint {
  return (mul(acc ^ round(0n, val), P1) + P4) & MASK;
}

/** XXH64 of `data` with `seed` (unsigned 64-bit result). */
export function xxHash64(data: Uint8Array, seed = 0n): bigint {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const len = data.length;
  let p = 0;
  let h: bigint;
  seed &= MASK;
  if (len >= 32) {
    let v1 = (seed + P1 + P2) & MASK;
    let v2 = (seed + P2) & MASK;
    let v3 = seed;
    let v4 = (seed - P1) & MASK;
    for (; p + 32 <= len; p += 32) {
      v1 = round(v1, view.getBigUint64(p, true));
      v2 = round(v2, view.getBigUint64(p + 8, true));
      v3 = round(v3, view.getBigUint64(p + 16, true));
      v4 = round(v4, view.getBigUint64(p + 24, true));
    }
    h = (rotl(v1, 1n) + rotl(v2, 7n) + rotl(v3, 12n) + rotl(v4, 18n)) & MASK;
    h = mergeRound(h, v1);
    h = mergeRound(h, v2);
    h = mergeRound(h, v3);
    h = mergeRound(h, v4);
  } else {
    h = (seed + P5) & MASK;
  }
  h = (h + BigInt(len)) & MASK;
  for (; p + 8 <= len; p += 8) {
    h ^= round(0n, view.getBigUint64(p, true));
    h = (mul(rotl(h, 27n), P1) + P4) & MASK;
  }
  if (p + 4 <= len) {
    h ^= mul(BigInt(view.getUint32(p, true)), P1);
    h = (mul(rotl(h, 23n), P2) + P3) & MASK;
    p += 4;
  }
  for (; p < len; p++) {
    h ^= mul(BigInt(data[p]), P5);
    h = mul(rotl(h, 11n), P1);
  }
  h ^= h >> 33n;
  h = mul(h, P2);
  h ^= h >> 29n;
  h = mul(h, P3);
  h ^= h >> 32n;
  return h;
}

/** A hex digest of the argument's text. */
function digest(algorithm: string) {
  return fn(1, 1, ([v]) => createHash(algorithm).update(aplToString(v), "utf8").digest("hex"));
}

/** The hash family. */
export const HASH_FUNCTIONS: FunctionTable = {
  hash_md5: digest("md5"),
  hash_sha1: digest("sha1"),
  hash_sha256: digest("sha256"),
  hash_sha512: digest("sha512"),
  hash: fn(1, 2, ([v, salt]) => {
    if (isNull(v)) return null;
    // apl/scalar-functions/hash-functions/hash: "Any scalar expression except real".
    if (typeof v === "number" && !Number.isInteger(v)) return null;
    const seed = salt === undefined ? 0 : asInteger(salt);
    if (seed === null) return null;
    const h = xxHash64(Buffer.from(aplToString(v), "utf8"), BigInt(seed));
    return Number(BigInt.asIntN(64, h));
  }),
};
