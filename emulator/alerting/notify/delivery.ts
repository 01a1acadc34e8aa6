/**
 * Where a notification may go, and the send itself. Safe by default: only loopback hosts (127.0.0.0/8, ::1,
 * localhost) are reached, so an emulator fed a real stack's notifiers never pages anyone; a user names other hosts
 * with `--deliver-to` (the `deliverTo` option). A send is one POST through undici (the project's HTTP library,
 * as the client's transport uses it), without following redirects (a loopback receiver must not bounce a
 * notification to a host the user did not allow), with a short timeout; it never throws.
 */
import { request as undiciRequest } from "undici";
import { isLoopback } from "../../../provider/client/options";
import type { OutgoingRequest } from "./channels";
import type { Masker } from "./mask";

/** How long a send may take, connection to last byte. */
export const DEFAULT_SEND_TIMEOUT_MS = 5_000;

/** The most of a receiver's error answer a failure's reason quotes. */
const ANSWER_EXCERPT = 200;

/**
 * The hosts a user allowed (`deliverTo`): each `name` (any port) or `name:port`, case-insensitive; IPv6
 * addresses in brackets (`[2001:db8::1]:8443`). `*.example.com` allows every subdomain of example.com (not
 * example.com itself). No other wildcard: `*` alone is refused, so nothing allows every host by accident.
 */
export class AllowedHosts {
  private readonly exact = new Set<string>();
  private readonly suffixes: string[] = [];

  /** Throws an Error naming `deliverTo` and the entry for one that is not a host or host:port. */
  constructor(entries: readonly string[] = []) {
    for (const raw of entries) {
      const entry = raw.trim().toLowerCase();
      if (!/^(\*\.)?([a-z0-9_-]+(\.[a-z0-9_-]+)*|\[[0-9a-f:.]+\])(:\d{1,5})?$/.test(entry))
        throw new Error(
          `deliverTo: ${JSON.stringify(raw)} is not a host name or host:port (e.g. "hooks.example.com", "10.0.0.5:8080", "*.example.com")`,
        );
      if (entry.startsWith("*.")) this.suffixes.push(entry.slice(1));
      else this.exact.add(entry);
    }
  }

  /** Whether `url`'s host is allowed: by name, or by name and port (the scheme's default port when none). */
  allows(url: URL): boolean {
    const host = url.hostname.toLowerCase();
    const port = url.port || (url.protocol === "https:" ? "443" : "80");
    if (this.exact.has(host) || this.exact.has(`${host}:${port}`)) return true;
    return this.suffixes.some((s) => host.endsWith(s) && host.length > s.length);
  }
}

/** Why a request to `url` is held, or undefined when it may go. */
export function holdReason(url: URL, allowed: AllowedHosts): string | undefined {
  if (url.protocol !== "http:" && url.protocol !== "https:") return `${url.protocol} is not http or https`;
  if (isLoopback(url.hostname) || allowed.allows(url)) return undefined;
  return `${url.host} is not a loopback address and not in --deliver-to`;
}

/** How a send ended. */
export type SendResult = { ok: true; status: number } | { ok: false; status?: number; reason: string };

/** The HTTP seam: the WHATWG fetch signature (tests pass their own, so no real network is touched). */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/**
 * Sends `req`; answers its status, or why it failed, masked by `masker`. Never throws. The receiver's answer is
 * masked before it is cut to its excerpt: cut first, a secret at the cut would be quoted in part, and a part is
 * no spelling of the secret.
 */
export async function send(
  req: OutgoingRequest,
  timeoutMs: number,
  masker: Masker,
  fetchSeam?: FetchLike,
): Promise<SendResult> {
  try {
    let status: number;
    let answer: { text: string; cut: boolean };
    if (fetchSeam) {
      const res = await fetchSeam(req.url, {
        method: req.method,
        headers: req.headers,
        body: req.body,
        redirect: "manual",
        signal: AbortSignal.timeout(timeoutMs),
      });
      status = res.status;
      answer = res.body ? await readExcerpt(res.body) : { text: "", cut: false };
    } else {
      const res = await undiciRequest(req.url, {
        method: req.method,
        headers: req.headers,
        body: req.body,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal: AbortSignal.timeout(timeoutMs),
      });
      status = res.statusCode;
      answer = await readExcerpt(res.body);
    }
    if (status >= 200 && status < 300) return { ok: true, status };
    const text = masker.text(answer.text, { cut: answer.cut });
    const chars = [...text];
    const excerpt = chars.length > ANSWER_EXCERPT ? `${chars.slice(0, ANSWER_EXCERPT).join("")}…` : text;
    return { ok: false, status, reason: `the receiver answered ${status}${excerpt ? `: ${excerpt}` : ""}` };
  } catch (e) {
    // A client's error may quote what it refused (a header's value, the URL).
    return { ok: false, reason: masker.text(describeError(e, timeoutMs)) };
  }
}

/**
 * The start of a receiver's answer, for a failure's reason (at most {@link ANSWER_EXCERPT} characters of it are
 * quoted): reading stops after a few KiB, so a receiver answering without end cannot hold a send or fill memory.
 * `cut` says whether reading stopped before the end.
 */
async function readExcerpt(
  body: AsyncIterable<Uint8Array> & { destroy?: () => void; cancel?: () => unknown },
): Promise<{ text: string; cut: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let cut = false;
  try {
    for await (const chunk of body) {
      chunks.push(Buffer.from(chunk));
      size += chunk.length;
      if (size >= EXCERPT_READ_BYTES) {
        cut = true;
        break;
      }
    }
  } catch {
    /* an answer cut short still gives what arrived */
    cut = true;
  } finally {
    // Stop the rest of the body: undici's readable is destroyed, a web stream cancelled.
    body.destroy?.();
    void Promise.resolve(body.cancel?.()).catch(() => undefined);
  }
  return { text: Buffer.concat(chunks).toString("utf8"), cut };
}

/** How much of an answer is read for its excerpt. */
const EXCERPT_READ_BYTES = 4096;

/** A network error as one line: undici's and fetch's wrap the system error (ECONNREFUSED …) in `cause`. */
function describeError(e: unknown, timeoutMs: number): string {
  const err = (e ?? {}) as {
    name?: string;
    message?: string;
    code?: string;
    cause?: { message?: string; code?: string };
  };
  // The timeout's abort is a DOMException, which is not an Error in every realm: read its name.
  if (err.name === "TimeoutError" || err.name === "AbortError") return `no answer within ${timeoutMs} ms`;
  const cause = err.cause;
  if (cause?.code || cause?.message)
    return `could not send: ${cause.code ?? ""}${cause.code && cause.message ? " " : ""}${cause.message ?? ""}`.trim();
  if (err.code === "UND_ERR_HEADERS_TIMEOUT" || err.code === "UND_ERR_BODY_TIMEOUT")
    return `no answer within ${timeoutMs} ms`;
  return `could not send: ${err.code ? `${err.code} ` : ""}${err.message ?? String(e)}`;
}
