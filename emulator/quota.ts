/**
 * The organization's ingest and query quotas, as the service reports and enforces them.
 *
 * - Ingest responses carry `X-IngestLimit-Limit`, `-Remaining` (bytes) and `-Reset` (Unix seconds); query
 *   responses (`_apl` and the legacy query) carry the matching `X-QueryLimit-*` headers.
 * - A quota runs over the billing period of the org's license: a calendar month in UTC, so `Reset` is the
 *   first second of the next month and usage starts again from zero then. The month is the emulator's clock's
 *   (emulator/clock.ts): a manual clock moved past a month's end starts the next one.
 * - The ingest quota counts the bytes of each accepted request body after gzip decoding (the result's
 *   `processedBytes`). The service's query quota is in GB-hours, which an emulator cannot measure, so here it
 *   counts query requests answered 200.
 * - A request that would take usage past the quota gets 430 `{code:430, message}` and is not applied; usage
 *   is not charged. Usage lives in memory only (a restart starts a new count).
 */
/** The ingest quota when none is set: the license's `monthlyIngestGb` (500 GB), in bytes. */
export const DEFAULT_INGEST_QUOTA_BYTES = 500 * 1_000_000_000;
/** The query quota when none is set, in query requests per month. */
export const DEFAULT_QUERY_QUOTA = 1_000_000;
/** The service's own status code for an exceeded ingest or query quota. */
export const QUOTA_EXCEEDED_STATUS = 430;

/** What the `X-*Limit-*` headers report. */
export interface QuotaReading {
  limit: number;
  remaining: number;
  /** End of the current period, Unix epoch seconds. */
  resetSeconds: number;
}

/** The first millisecond of the UTC month after the one holding `ms`. */
function nextMonthStartMs(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

/** One quota: a limit, the usage so far in the current month, and the month's end. */
export class Quota {
  private used = 0;
  private periodEndMs = 0;

  constructor(
    readonly limit: number,
    /** Now in ms: the emulator's clock (startEmulator passes it); the machine's time when not given. */
    private readonly clock: () => number = Date.now,
  ) {}

  private roll(): void {
    const now = this.clock();
    if (now >= this.periodEndMs) {
      this.used = 0;
      this.periodEndMs = nextMonthStartMs(now);
    }
  }

  /** Whether `amount` more fits in this period. */
  fits(amount: number): boolean {
    this.roll();
    return this.used + amount <= this.limit;
  }

  /** Adds `amount` to this period's usage. */
  charge(amount: number): void {
    this.roll();
    this.used += amount;
  }

  /** The current limit, what is left and when the period ends. */
  reading(): QuotaReading {
    this.roll();
    return {
      limit: this.limit,
      remaining: Math.max(0, this.limit - this.used),
      resetSeconds: Math.floor(this.periodEndMs / 1000),
    };
  }

  /** The 430 message: what was asked, what is left and when it resets. */
  exceededMessage(kind: "ingest" | "query", amount: number): string {
    const r = this.reading();
    const unit = kind === "ingest" ? "bytes" : "queries";
    const reset = new Date(r.resetSeconds * 1000).toISOString();
    return `${kind} quota exceeded: ${amount} more ${unit} would pass the monthly limit of ${r.limit} ${unit} (${r.remaining} left); it resets at ${reset}`;
  }
}

/** The two quotas of one emulator. */
export interface Quotas {
  ingest: Quota;
  query: Quota;
}

/** Which quota a request path counts against, if any. */
export function quotaKindOf(path: string): "ingest" | "query" | undefined {
  if (/^\/v1\/datasets\/[^/]*\/ingest$/.test(path)) return "ingest";
  if (/^\/v1\/datasets\/(_apl|[^/]*\/query)$/.test(path)) return "query";
  return undefined;
}

/** `X-IngestLimit-*` or `X-QueryLimit-*`, from the quota's current reading. */
export function quotaHeaders(kind: "ingest" | "query", quota: Quota): Record<string, string> {
  const prefix = kind === "ingest" ? "X-IngestLimit" : "X-QueryLimit";
  const r = quota.reading();
  return {
    [`${prefix}-Limit`]: String(r.limit),
    [`${prefix}-Remaining`]: String(r.remaining),
    [`${prefix}-Reset`]: String(r.resetSeconds),
  };
}
