/**
 * IP functions (apl/scalar-functions/ip-functions), IPv4 as 32-bit numbers and IPv6 as 128-bit bigints, with the
 * optional `/prefix` the pages allow on addresses. geo_info_from_ip_address needs a GeoIP database and is
 * refused (see ./index.ts).
 */
import { asArray, asInteger, asString, fn, type FunctionTable } from "./common";

/** An IPv4 address with its prefix length (32 when none is written). */
interface V4 {
  address: number;
  prefix: number;
}

const V4_TEXT = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})(?:\/(\d{1,2}))?$/;

/** Dotted-quad IPv4, optionally `/prefix`; null when malformed. */
export function parseV4(text: string): V4 | null {
  const m = V4_TEXT.exec(text.trim());
  if (!m) return null;
  const octets = [m[1], m[2], m[3], m[4]].map(Number);
  if (octets.some((o) => o > 255)) return null;
  const prefix = m[5] === undefined ? 32 : Number(m[5]);
  if (prefix > 32) return null;
  return { address: ((octets[0] << 24) >>> 0) + (octets[1] << 16) + (octets[2] << 8) + octets[3], prefix };
}

/** An IPv4 argument: text, or a number (the address in network byte order). */
function v4Arg(v: unknown): V4 | null {
  if (typeof v === "number")
    return Number.isInteger(v) && v >= 0 && v <= 0xffffffff ? { address: v, prefix: 32 } : null;
  const s = asString(v);
  return s === null ? null : parseV4(s);
}

/** The mask of a prefix length, as an unsigned 32-bit number. */
const mask4 = (prefix: number): number => (prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0);

/** The first `prefix` bits of an address. */
const masked4 = (address: number, prefix: number): number => (address & mask4(prefix)) >>> 0;

const dotted = (a: number): string => [a >>> 24, (a >>> 16) & 255, (a >>> 8) & 255, a & 255].join(".");

/** A prefix argument (0 to 32), or null. */
function prefixArg(v: unknown, max: number): number | null {
  if (v === undefined) return max;
  const p = asInteger(v);
  return p === null || p < 0 || p > max ? null : p;
}

/** Whether `ip` lies in `range` (CIDR, or a single address). */
function v4InRange(ip: V4, range: V4): boolean {
  return masked4(ip.address, range.prefix) === masked4(range.address, range.prefix);
}

/** IPv4 compare with the prefixes of both addresses and the optional argument (the smallest wins). */
function compareV4(a: V4, b: V4, prefix: number): number {
  const p = Math.min(a.prefix, b.prefix, prefix);
  const x = masked4(a.address, p);
  const y = masked4(b.address, p);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** IPv4 addresses written in free text, delimited by anything but digits and dots. */
const V4_IN_TEXT = /(?<![\d.])(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})(?![\d]|\.\d)/g;

function addressesIn(text: string): V4[] {
  const out: V4[] = [];
  for (const m of text.matchAll(V4_IN_TEXT)) {
    const ip = parseV4(m[1]);
    if (ip) out.push(ip);
  }
  return out;
}

/** has_ipv4_prefix's prefix: whole octets, written with or without the trailing dot ("192.168." or "192.168"). */
function prefixMatches(ip: V4, prefix: string): boolean {
  const text = dotted(ip.address);
  const p = prefix.endsWith(".") ? prefix : `${prefix}.`;
  const octets = p.slice(0, -1).split(".");
  if (octets.length < 1 || octets.length > 4 || octets.some((o) => !/^\d{1,3}$/.test(o) || Number(o) > 255))
    return false;
  return octets.length === 4 ? text === p.slice(0, -1) : text.startsWith(p);
}

/** RFC 1918 private ranges (ipv4_is_private). */
const PRIVATE_V4 = ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"].map((r) => parseV4(r)!);

/** An IPv6 address (IPv4 mapped as ::ffff:a.b.c.d) with its prefix length (128 when none is written). */
interface V6 {
  address: bigint;
  prefix: number;
}

/** IPv6 text (with `::`, an embedded IPv4 tail, an optional `/prefix`), or IPv4 text mapped; null if neither. */
export function parseV6(text: string): V6 | null {
  const t = text.trim();
  const slash = t.indexOf("/");
  const body = slash < 0 ? t : t.slice(0, slash);
  let prefix = 128;
  if (slash >= 0) {
    if (!/^\d{1,3}$/.test(t.slice(slash + 1))) return null;
    prefix = Number(t.slice(slash + 1));
  }
  const v4 = parseV4(body);
  if (v4) {
    const p = slash < 0 ? 128 : 96 + prefix;
    return p > 128 ? null : { address: (0xffffn << 32n) | BigInt(v4.address), prefix: p };
  }
  if (prefix > 128 || !/^[0-9a-fA-F:.]+$/.test(body)) return null;
  let groups: string[];
  const halves = body.split("::");
  if (halves.length > 2) return null;
  const part = (s: string) => (s === "" ? [] : s.split(":"));
  const expandTail = (list: string[]): string[] | null => {
    const last = list[list.length - 1];
    if (last !== undefined && last.includes(".")) {
      const tail = parseV4(last);
      if (!tail || tail.prefix !== 32) return null;
      return [...list.slice(0, -1), (tail.address >>> 16).toString(16), (tail.address & 0xffff).toString(16)];
    }
    return list;
  };
  if (halves.length === 2) {
    const head = part(halves[0]);
    const tail = expandTail(part(halves[1]));
    if (tail === null) return null;
    const missing = 8 - head.length - tail.length;
    if (missing < 1) return null;
    groups = [...head, ...new Array<string>(missing).fill("0"), ...tail];
  } else {
    const all = expandTail(part(body));
    if (all === null) return null;
    groups = all;
  }
  if (groups.length !== 8 || groups.some((g) => !/^[0-9a-fA-F]{1,4}$/.test(g))) return null;
  let address = 0n;
  for (const g of groups) address = (address << 16n) | BigInt(parseInt(g, 16));
  return { address, prefix };
}

const masked6 = (address: bigint, prefix: number): bigint => {
  const shift = BigInt(128 - prefix);
  return (address >> shift) << shift;
};

function compareV6(a: V6, b: V6, prefix: number): number {
  const p = Math.min(a.prefix, b.prefix, prefix);
  const x = masked6(a.address, p);
  const y = masked6(b.address, p);
  return x < y ? -1 : x > y ? 1 : 0;
}

function v6Arg(v: unknown): V6 | null {
  const s = asString(v);
  return s === null ? null : parseV6(s);
}

/** A list argument (a dynamic array, or the rest of the arguments) as strings. */
function listArg(args: unknown[]): string[] | null {
  const single = args.length === 1 ? asArray(args[0]) : null;
  const items = single ?? args;
  const out: string[] = [];
  for (const item of items) {
    const s = asString(item);
    if (s === null) return null;
    out.push(s);
  }
  return out;
}

/** The IP family. */
export const IP_FUNCTIONS: FunctionTable = {
  parse_ipv4: fn(1, 1, ([v]) => {
    const ip = v4Arg(v);
    return ip === null ? null : masked4(ip.address, ip.prefix);
  }),
  parse_ipv4_mask: fn(2, 2, ([v, prefix]) => {
    const ip = v4Arg(v);
    const p = prefixArg(prefix, 32);
    return ip === null || p === null ? null : masked4(ip.address, Math.min(p, ip.prefix));
  }),
  // apl/scalar-functions/ip-functions/format-ipv4: the empty string when the conversion fails.
  format_ipv4: fn(1, 2, ([v, prefix]) => {
    const ip = v4Arg(v);
    const p = prefixArg(prefix, 32);
    return ip === null || p === null ? "" : dotted(masked4(ip.address, Math.min(p, ip.prefix)));
  }),
  format_ipv4_mask: fn(1, 2, ([v, prefix]) => {
    const ip = v4Arg(v);
    const p = prefixArg(prefix, 32);
    if (ip === null || p === null) return "";
    const bits = Math.min(p, ip.prefix);
    return `${dotted(masked4(ip.address, bits))}/${bits}`;
  }),
  ipv4_compare: fn(2, 3, ([a, b, prefix]) => {
    const x = v4Arg(a);
    const y = v4Arg(b);
    const p = prefixArg(prefix, 32);
    return x === null || y === null || p === null ? null : compareV4(x, y, p);
  }),
  ipv4_is_match: fn(2, 3, ([a, b, prefix]) => {
    const x = v4Arg(a);
    const y = v4Arg(b);
    const p = prefixArg(prefix, 32);
    return x === null || y === null || p === null ? null : compareV4(x, y, p) === 0;
  }),
  ipv4_is_in_range: fn(2, 2, ([a, range]) => {
    const ip = v4Arg(a);
    const r = v4Arg(range);
    return ip === null || r === null ? null : v4InRange(ip, r);
  }),
  ipv4_is_in_any_range: fn(2, 64, ([a, ...ranges]) => {
    const ip = v4Arg(a);
    const list = listArg(ranges);
    if (ip === null || list === null) return null;
    const parsed = list.map(parseV4);
    if (parsed.some((r) => r === null)) return null;
    return (parsed as V4[]).some((r) => v4InRange(ip, r));
  }),
  ipv4_is_private: fn(1, 1, ([a]) => {
    const ip = v4Arg(a);
    return ip === null ? null : PRIVATE_V4.some((r) => v4InRange(ip, r));
  }),
  // apl/scalar-functions/ip-functions/ipv4-netmask-suffix: 32 without a suffix, null when not an address.
  ipv4_netmask_suffix: fn(1, 1, ([a]) => {
    const ip = v4Arg(a);
    return ip === null ? null : ip.prefix;
  }),
  has_ipv4: fn(2, 2, ([source, address]) => {
    const text = asString(source);
    const wanted = asString(address);
    if (text === null || wanted === null) return null;
    const ip = parseV4(wanted);
    if (ip === null || ip.prefix !== 32) return false;
    return addressesIn(text).some((found) => found.address === ip.address);
  }),
  has_ipv4_prefix: fn(2, 2, ([source, prefix]) => {
    const text = asString(source);
    const p = asString(prefix);
    if (text === null || p === null) return null;
    return addressesIn(text).some((ip) => prefixMatches(ip, p));
  }),
  has_any_ipv4: fn(2, 64, ([source, ...rest]) => {
    const text = asString(source);
    const list = listArg(rest);
    if (text === null || list === null) return null;
    const wanted = list.map(parseV4).filter((r): r is V4 => r !== null);
    return addressesIn(text).some((ip) => wanted.some((r) => v4InRange(ip, r)));
  }),
  has_any_ipv4_prefix: fn(2, 64, ([source, ...rest]) => {
    const text = asString(source);
    const list = listArg(rest);
    if (text === null || list === null) return null;
    return addressesIn(text).some((ip) => list.some((p) => prefixMatches(ip, p)));
  }),
  ipv6_compare: fn(2, 3, ([a, b, prefix]) => {
    const x = v6Arg(a);
    const y = v6Arg(b);
    const p = prefixArg(prefix, 128);
    return x === null || y === null || p === null ? null : compareV6(x, y, p);
  }),
  ipv6_is_match: fn(2, 3, ([a, b, prefix]) => {
    const x = v6Arg(a);
    const y = v6Arg(b);
    const p = prefixArg(prefix, 128);
    return x === null || y === null || p === null ? null : compareV6(x, y, p) === 0;
  }),
  ipv6_is_in_range: fn(2, 2, ([a, range]) => {
    const ip = v6Arg(a);
    const r = v6Arg(range);
    return ip === null || r === null ? null : masked6(ip.address, r.prefix) === masked6(r.address, r.prefix);
  }),
  ipv6_is_in_any_range: fn(2, 64, ([a, ...ranges]) => {
    const ip = v6Arg(a);
    const list = listArg(ranges);
    if (ip === null || list === null) return null;
    const parsed = list.map(parseV6);
    if (parsed.some((r) => r === null)) return null;
    return (parsed as V6[]).some((r) => masked6(ip.address, r.prefix) === masked6(r.address, r.prefix));
  }),
};
