/**
 * Client options: validated with zod, env fallbacks read once, the URL checked (https unless loopback).
 */
import { isIP } from "node:net";
import type { Dispatcher } from "undici";
import { z } from "zod";
import { formatFailures, validationFailures } from "../schemas/common";
import { systemClock, type Clock } from "./clock";
import { ENV_NAMES, fromEnv, type EnvSetting } from "./env";
import { ConfigError } from "./errors";

/** Base URL of each region. */
export const REGION_URLS = { us: "https://api.axiom.co", eu: "https://api.eu.axiom.co" } as const;

/** Default cap on a response body: far above any page the service sends (a 50,000-row legacy page of wide
 * events is some tens of MiB), yet a runaway body cannot take the process's memory. */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/** What one retry looked like; passed to {@link RetryOptions.onRetry}. */
export interface RetryEvent {
  /** HTTP method of the retried request. */
  method: string;
  /** Path of the retried request. */
  path: string;
  /** 1 for the first retry. */
  attempt: number;
  /** Status that caused the retry, or undefined for a connection error or timeout. */
  status: number | undefined;
  /** Error code for connection errors and timeouts, e.g. `ECONNREFUSED`. */
  code: string | undefined;
  /** How long the client waits before the retry. */
  delayMs: number;
}

/** Tuning of the retry loop; the defaults suit the real service, tests shrink the delays. */
export interface RetryOptions {
  /** First backoff step in ms; the n-th retry waits a random time up to base·2ⁿ. Defaults to 250. */
  baseDelayMs?: number;
  /** Cap on one backoff wait, and on any Retry-After honoured. Defaults to 30,000. */
  maxDelayMs?: number;
  /** Called before each retry; use it to count or log retries. */
  onRetry?: (event: RetryEvent) => void;
}

/** Options of {@link ObservabilityClient}; each falls back to an environment variable where one is named. */
export interface ClientOptions {
  /** Base URL; overrides `region`. Falls back to `OBSERVABILITY_URL`. https unless loopback. */
  url?: string;
  /** `us` (https://api.axiom.co) or `eu` (https://api.eu.axiom.co). Falls back to `OBSERVABILITY_REGION`. Defaults to `us`. */
  region?: "us" | "eu";
  /** API token or personal access token. Falls back to `OBSERVABILITY_TOKEN`. Required. */
  token?: string;
  /** Organization id, sent as `X-Axiom-Org-Id` and `x-service-org-id` (needed with a personal token). Falls back to `OBSERVABILITY_ORG_ID`. */
  orgId?: string;
  /** Per-attempt timeout for connect, headers and body, in ms. Defaults to 30,000. */
  timeoutMs?: number;
  /** Retries after the first attempt. Defaults to 4. */
  maxRetries?: number;
  /** Appended to the User-Agent `pulumi-observability/<version>`, which is never sent twice. */
  userAgent?: string;
  /** Largest response body read, in bytes; a larger one fails with InvalidResponseError instead of filling
   * memory. Defaults to 64 MiB. */
  maxResponseBytes?: number;
  /** An undici Dispatcher to send through (the test seam); not closed by `close()`. */
  dispatcher?: Dispatcher;
  /** The clock the rate-limit pacing and the waits between retries run on (the test seam). Defaults to the
   * machine's (`Date.now()` and `setTimeout`). */
  clock?: Clock;
  /** Backoff tuning and the retry hook. */
  retry?: RetryOptions;
}

/** Options after defaults, env fallbacks and validation. */
export interface ResolvedOptions {
  origin: string;
  basePath: string;
  token: string;
  orgId: string | undefined;
  timeoutMs: number;
  maxRetries: number;
  userAgent: string | undefined;
  maxResponseBytes: number;
  dispatcher: Dispatcher | undefined;
  clock: Clock;
  baseDelayMs: number;
  maxDelayMs: number;
  onRetry: ((event: RetryEvent) => void) | undefined;
}

const OptionsSchema = z.strictObject({
  url: z.string({ error: "must be a string" }).optional(),
  region: z.enum(["us", "eu"], { error: "must be us or eu" }).optional(),
  token: z.string({ error: "must be a string" }).min(1, "must not be empty").optional(),
  orgId: z.string({ error: "must be a string" }).min(1, "must not be empty").optional(),
  timeoutMs: z
    .number({ error: "must be a number" })
    .int("must be an integer")
    .positive("must be positive")
    .optional(),
  maxRetries: z
    .number({ error: "must be a number" })
    .int("must be an integer")
    .min(0, "must be at least 0")
    .max(20, "must be at most 20")
    .optional(),
  userAgent: z.string({ error: "must be a string" }).optional(),
  maxResponseBytes: z
    .number({ error: "must be a number" })
    .int("must be an integer")
    .positive("must be positive")
    .optional(),
  dispatcher: z
    .custom<Dispatcher>(
      (d) => typeof d === "object" && d !== null && typeof (d as Dispatcher).request === "function",
      {
        error: "must be an undici Dispatcher",
      },
    )
    .optional(),
  clock: z
    .custom<Clock>(
      (c) =>
        typeof c === "object" &&
        c !== null &&
        typeof (c as Clock).now === "function" &&
        typeof (c as Clock).setTimer === "function",
      { error: "must be a clock: an object with now() and setTimer(fn, ms)" },
    )
    .optional(),
  retry: z
    .strictObject({
      baseDelayMs: z.number({ error: "must be a number" }).min(0, "must be at least 0").optional(),
      maxDelayMs: z.number({ error: "must be a number" }).min(0, "must be at least 0").optional(),
      onRetry: z
        .custom<(e: RetryEvent) => void>((f) => typeof f === "function", { error: "must be a function" })
        .optional(),
    })
    .optional(),
});

/** True for 127.0.0.0/8, ::1 and localhost: the only hosts plain http may reach (the token travels in clear). */
export function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  if (isIP(host) === 4) return host.startsWith("127.");
  if (isIP(host) === 6) return host === "::1" || host === "0:0:0:0:0:0:0:1";
  return false;
}

/** Applies env fallbacks (read once, through {@link fromEnv}) and defaults, validates, and checks the URL. */
export function resolveOptions(
  options: ClientOptions = {},
  env: NodeJS.ProcessEnv = process.env,
): ResolvedOptions {
  const withEnv: Record<string, unknown> = { ...options };
  for (const setting of Object.keys(ENV_NAMES) as EnvSetting[]) withEnv[setting] ??= fromEnv(setting, env);
  const parsed = OptionsSchema.safeParse(withEnv);
  if (!parsed.success) {
    // A bad value read from the environment is named by its variable, since no option was passed.
    const source = (property: string): string => {
      const name = ENV_NAMES[property as EnvSetting];
      return name && options[property as EnvSetting] === undefined ? ` (from ${name})` : "";
    };
    const failures = validationFailures(parsed.error).map((f) => ({
      ...f,
      property: `options.${f.property}${source(f.property)}`,
    }));
    throw new ConfigError(`Invalid client options: ${formatFailures(failures)}`);
  }
  const o = parsed.data;
  if (!o.token) {
    throw new ConfigError(
      `No token: pass options.token or set ${ENV_NAMES.token} (an API token or a personal access token).`,
    );
  }
  const rawUrl = o.url ?? REGION_URLS[o.region ?? "us"];
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    // Echo the text so the mistake is visible, but never a userinfo part: it may hold a password.
    const shown = rawUrl.replace(/^([^/]*\/\/)[^/@]*@/, "$1[redacted]@");
    throw new ConfigError(`options.url (or ${ENV_NAMES.url}) is not a valid URL: ${JSON.stringify(shown)}`);
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopback(url.hostname))) {
    throw new ConfigError(
      `options.url (or ${ENV_NAMES.url}) must use https (plain http is allowed only for loopback addresses), got ${url.protocol}//${url.host}`,
    );
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new ConfigError(
      `options.url (or ${ENV_NAMES.url}) must not contain credentials, a query or a fragment`,
    );
  }
  return {
    origin: url.origin,
    basePath: url.pathname.replace(/\/+$/, ""),
    token: o.token,
    orgId: o.orgId,
    timeoutMs: o.timeoutMs ?? 30_000,
    maxRetries: o.maxRetries ?? 4,
    userAgent: o.userAgent,
    maxResponseBytes: o.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    dispatcher: o.dispatcher,
    clock: o.clock ?? systemClock,
    baseDelayMs: o.retry?.baseDelayMs ?? 250,
    maxDelayMs: o.retry?.maxDelayMs ?? 30_000,
    onRetry: o.retry?.onRetry,
  };
}
