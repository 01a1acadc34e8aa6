/**
 * Masking of a notifier's secrets: webhook URLs (Slack's, Teams', Discord's and every webhook's: whoever holds the
 * URL can post), routing keys, API keys, bot tokens and secret header values. The outbox, log lines and error
 * reasons pass through a {@link Masker} built from the notifier, so none of them ever carries a secret.
 */

/** What replaces a secret. */
export const MASK = "***";

/** Shorter path segments are names (`services`, `hooks`), not credentials, and are kept when they recur. */
const MIN_SECRET_SEGMENT = 6;

/**
 * A URL shown without its secret parts: scheme, host (and port) and the first path segment kept, the rest of
 * the path, the query and any user info masked. `https://hooks.slack.com/services/T0/B0/XYZ` reads
 * `https://hooks.slack.com/services/***`; a URL that cannot be parsed is masked whole.
 */
export function maskUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return MASK;
  }
  const segments = url.pathname.split("/").filter((s) => s !== "");
  const keep = segments.length > 0 ? `/${segments[0]}` : "";
  const rest = segments.length > 1 || url.search !== "" ? `/${MASK}` : "";
  const auth = url.username || url.password ? `${MASK}@` : "";
  return `${url.protocol}//${auth}${url.host}${keep}${rest}`;
}

/** The parts of a URL that are secret: everything {@link maskUrl} hides. */
export function urlSecrets(raw: string): string[] {
  const out = [raw];
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return out;
  }
  const segments = url.pathname.split("/").filter((s) => s !== "");
  if (segments.length > 1) {
    const tail = segments.slice(1).join("/");
    out.push(tail, decodeSafely(tail));
    for (const s of segments.slice(1)) if (s.length >= MIN_SECRET_SEGMENT) out.push(s, decodeSafely(s));
  }
  if (url.search.length > 1) {
    out.push(url.search.slice(1));
    for (const v of url.searchParams.values()) if (v.length >= MIN_SECRET_SEGMENT) out.push(v);
  }
  if (url.password) out.push(url.password, decodeSafely(url.password));
  if (url.username.length >= MIN_SECRET_SEGMENT) out.push(url.username);
  return out;
}

function decodeSafely(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Replaces every occurrence of the secrets it was given, longest first, in any text. */
export class Masker {
  private readonly secrets: string[];

  constructor(secrets: readonly (string | undefined)[]) {
    const set = new Set<string>();
    for (const s of secrets) if (s !== undefined && s.length > 0) set.add(s);
    this.secrets = [...set].sort((a, b) => b.length - a.length);
  }

  /** `text` with every secret replaced by {@link MASK}. */
  text(text: string): string {
    let out = text;
    for (const s of this.secrets) if (out.includes(s)) out = out.split(s).join(MASK);
    return out;
  }

  /** A JSON-like value with every string masked (keys too), structure kept. */
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
