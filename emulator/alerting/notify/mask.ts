/**
 * Masking of a notifier's secrets: webhook URLs (Slack's, Teams', Discord's and every webhook's: whoever holds the
 * URL can post), routing keys, API keys, bot tokens and secret header values. Each send has its own
 * {@link Masker}, built from its notifier's secret fields only, so one notifier's secrets never mask another's
 * row, and a host or a username is never taken for a secret.
 *
 * Structured values (a vendor's body, a body that parses as JSON) are masked string by string before they are
 * written as JSON, so a secret holding `"`, `\` or a newline is found as it is, not as JSON spells it. Free text
 * (a receiver's answer quoted in a reason, an error's message) is masked for every spelling of each secret that
 * JSON, a URL or HTML gives it, trimmed or not: see {@link spellings}.
 */

/** What replaces a secret. */
export const MASK = "***";

/**
 * Shorter path segments and query values are names (`services`, `hooks`, `v1`), not credentials: free text is not
 * masked for them alone (the path they are part of still is).
 */
const MIN_SECRET_SEGMENT = 6;

/**
 * A URL shown without its secret parts: scheme, host (and port), the username when a password follows it, and
 * the first path segment when more follows it are kept; the rest of the path, the query, the password, and a
 * lone path segment are masked. `https://hooks.slack.com/services/T0/B0/XYZ` reads
 * `https://hooks.slack.com/services/***`; `https://hooks.example.com/TOKEN` reads `https://hooks.example.com/***`.
 * A username without a password is masked: that is how a URL carries a token (`https://TOKEN@host`). A URL that
 * cannot be parsed is masked whole.
 */
export function maskUrl(raw: string): string {
  const parts = urlParts(raw);
  if (!parts) return MASK;
  const { url, first, hidden } = parts;
  const keep = first !== undefined ? `/${first}` : "";
  const rest = hidden ? `/${MASK}` : "";
  const auth = url.password ? `${url.username}:${MASK}@` : url.username ? `${MASK}@` : "";
  return `${url.protocol}//${auth}${url.host}${keep}${rest}`;
}

/** What of a URL is shown: the first path segment (when more follows it), and whether anything is hidden. */
function urlParts(
  raw: string,
): { url: URL; first?: string; hidden: boolean; segments: string[] } | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  const segments = url.pathname.split("/").filter((s) => s !== "");
  const more = segments.length > 1 || url.search !== "";
  return {
    url,
    first: more ? segments[0] : undefined,
    hidden: segments.length > 0 || url.search !== "",
    segments,
  };
}

/**
 * The secret parts of a URL, as free text may show them: the URL itself (as given and as a client sends it); what
 * {@link maskUrl} hides (the path after the first segment, or the lone segment, and the query), each segment of
 * it and each query value, encoded and decoded, when {@link MIN_SECRET_SEGMENT} characters or more; the password;
 * and the username when no password follows it. Never the host, the port or a shown username: a part that equals
 * one of them is left out, so no host is ever masked.
 */
export function urlSecrets(raw: string): string[] {
  const parts = urlParts(raw);
  if (!parts) return [raw];
  const { url, first, segments } = parts;
  const out = [raw, url.href];
  const hiddenSegments = first !== undefined ? segments.slice(1) : segments;
  if (hiddenSegments.length > 0) {
    const tail = hiddenSegments.join("/");
    if (tail.length >= MIN_SECRET_SEGMENT) out.push(tail, decodeSafely(tail));
    for (const s of hiddenSegments) if (s.length >= MIN_SECRET_SEGMENT) out.push(s, decodeSafely(s));
  }
  if (url.search.length > MIN_SECRET_SEGMENT) {
    const query = url.search.slice(1);
    out.push(query, decodeSafely(query));
    for (const pair of query.split("&")) {
      const value = pair.slice(pair.indexOf("=") + 1);
      if (value.length >= MIN_SECRET_SEGMENT) out.push(value, decodeSafely(value.replace(/\+/g, " ")));
    }
  }
  if (url.password) out.push(url.password, decodeSafely(url.password));
  else if (url.username) out.push(url.username, decodeSafely(url.username));
  const shown = new Set([url.host, url.hostname, url.password ? url.username : "", first ?? ""]);
  return out.filter((s) => !shown.has(s));
}

function decodeSafely(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * Every way text may spell `secret`:
 * - as it is and trimmed (a key read from a file ends in a newline, and a receiver may trim it), and with its
 *   non-ASCII characters as a receiver may misread them (a header's Latin-1 byte read as UTF-8 is U+FFFD; UTF-8
 *   read as Latin-1 turns é into Ã©; a lone surrogate is written as U+FFFD);
 * - each of those JSON-escaped: as JavaScript writes it; as Go's encoding/json does (`<`, `>`, `&` as `\u003c`…);
 *   ASCII-only, as Python's json.dumps does (`\u00e9`, hex digits in either case); with `/` as `\/`, as PHP's
 *   json_encode does; and escaped twice (a JSON body quoted in a JSON answer);
 * - percent-encoded (as a path's and as a form's, hex digits in either case) and HTML-escaped.
 * A secret that is only whitespace carries nothing and has none.
 */
export function spellings(secret: string): string[] {
  if (secret.trim() === "") return [];
  const out = new Set<string>();
  const trimmed = [secret, secret.trim(), secret.trimEnd(), secret.trimStart()];
  const misread = /[^\x20-\x7e\t\n\r]/.test(secret)
    ? trimmed.flatMap((s) => [
        s.replace(/[\u0080-\u00ff]/g, "\ufffd"),
        Buffer.from(s, "utf8").toString("latin1"),
        // A lone surrogate is no character: written as UTF-8 it becomes U+FFFD.
        Buffer.from(s, "utf8").toString("utf8"),
      ])
    : [];
  for (const base of new Set([...trimmed, ...misread])) {
    const json = jsonInner(base);
    const forms = [
      base,
      jsonInner(json),
      percent(encodeURIComponent, base),
      percent(encodeURI, base),
      new URLSearchParams({ s: base }).toString().slice(2),
      html(base, "&#34;"),
      html(base, "&quot;"),
    ];
    for (const j of [json, json.replace(/\//g, "\\/")])
      forms.push(j, goJson(j), asciiJson(j, false), asciiJson(j, true), asciiJson(goJson(j), false));
    for (const f of forms) {
      out.add(f);
      // Percent-encoding's hex digits in lower case, as some clients write them.
      out.add(f.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()));
    }
  }
  return [...out].filter((s) => s !== "");
}

/** A percent-encoding of `s`; none (the empty string) for a lone surrogate, which encodeURI refuses. */
function percent(encode: (s: string) => string, s: string): string {
  try {
    return encode(s);
  } catch {
    return "";
  }
}

/** JSON's spelling of a string, without its quotes. */
function jsonInner(s: string): string {
  return JSON.stringify(s).slice(1, -1);
}

/** Go's encoding/json escapes `<`, `>`, `&`, U+2028 and U+2029 too. */
function goJson(json: string): string {
  return json.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** Non-ASCII characters as `\uXXXX` (each UTF-16 unit), hex digits in lower or upper case. */
function asciiJson(json: string, upper: boolean): string {
  return json.replace(/[\u0080-\uffff]/g, (c) => {
    const hex = c.charCodeAt(0).toString(16).padStart(4, "0");
    return `\\u${upper ? hex.toUpperCase() : hex}`;
  });
}

function html(s: string, quote: string): string {
  return s
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, quote)
    .replace(/'/g, "&#39;");
}

/** Options of {@link Masker.text}. */
export interface MaskTextOptions {
  /**
   * The text was cut (an answer read only in part): a piece of a secret at its very end is masked too, since the
   * rest of the secret was never read.
   */
  cut?: boolean;
}

/** Replaces every spelling of the secrets it was given, longest first. */
export class Masker {
  private readonly secrets: string[];

  constructor(secrets: readonly (string | undefined)[]) {
    const set = new Set<string>();
    for (const s of secrets) if (s !== undefined) for (const spelling of spellings(s)) set.add(spelling);
    this.secrets = [...set].sort((a, b) => b.length - a.length);
  }

  /** `text` with every spelling of every secret replaced by {@link MASK}. */
  text(text: string, options: MaskTextOptions = {}): string {
    let out = text;
    for (const s of this.secrets) if (out.includes(s)) out = out.split(s).join(MASK);
    if (options.cut) out = this.maskCutEnd(out);
    return out;
  }

  /** The longest end of `text` that begins a spelling of a secret, masked. */
  private maskCutEnd(text: string): string {
    let longest = 0;
    for (const s of this.secrets) {
      for (let k = Math.min(s.length - 1, text.length); k > longest; k--) {
        if (text.endsWith(s.slice(0, k))) {
          longest = k;
          break;
        }
      }
    }
    return longest > 0 ? `${text.slice(0, text.length - longest)}${MASK}` : text;
  }

  /** A JSON-like value with every string masked (keys too), structure kept: mask before writing it as JSON. */
  value(v: unknown): unknown {
    if (typeof v === "string") return this.text(v);
    if (Array.isArray(v)) return v.map((x) => this.value(x));
    if (v !== null && typeof v === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[this.text(k)] = this.value(x);
      return out;
    }
    return v;
  }
}
