/** The shapes the scheduler and the outbox share (kept apart from index.ts so the channel modules can use them
 * without an import circle). */

/** One notification the scheduler decided on: a monitor entering (`Open`) or leaving (`Closed`) alert. */
export interface AlertEvent {
  /** When the run happened, nanoseconds since the epoch (the template's `.Timestamp`, which shows whole seconds). */
  time: bigint;
  monitor: { id: string; name: string; description?: string; type: string };
  action: "Open" | "Closed";
  /** The value that crossed (or, on close, the last value; 0 for a group that disappeared); null when there is
   * none (no data, a match), which a template's `.Value` reads as 0. */
  value: number | null;
  threshold?: number;
  operator?: string;
  /** The run's query window, nanoseconds since the epoch. */
  queryStartTime: bigint;
  queryEndTime: bigint;
  groupKeys: string[] | null;
  groupValues: string[] | null;
  /** A match monitor's matching event (or its projected columns); null for other monitors. */
  matchedEvent: Record<string, unknown> | null;
  /** The human line, as the docs' sample: `Current value of 57347 is above or equal to the threshold value of 0`. */
  body: string;
  /** The alert's stable id (emulator/alerting/judge.ts; the history's `checkId`): its open, its close and every
   * notification between them share it. */
  alertId?: string;
}

/** How one send ended: sent and answered 2xx, held back (not sent, with the reason), failed (with status/reason),
 * or recorded (an email: the emulator never sends mail, it records what would go). */
export type OutboxOutcome = "delivered" | "held" | "failed" | "recorded";

/** One row of the outbox: one alert event to one notifier. Secrets in `body` and `reason` are masked. */
export interface OutboxEntry {
  id: string;
  /** RFC 3339, when the send was attempted (the emulator's clock). */
  time: string;
  monitorId: string;
  monitorName: string;
  /** The alert this notification is of (the history's `checkId`), when the run's judge gave one. */
  alertId?: string;
  notifierId: string;
  notifierName: string;
  /** The notifier's channel key: customWebhook, webhook, slack, microsoftTeams, discordWebhook, discord,
   * pagerduty, opsgenie, email. */
  channel: string;
  action: "Open" | "Closed";
  groupValues: string[] | null;
  value: number | null;
  /** The host the request goes to (host or host:port), null when there is no request (email, a bad notifier). */
  targetHost: string | null;
  outcome: OutboxOutcome;
  /** The HTTP status the receiver answered, when it answered. */
  status?: number;
  /** Why it was held or failed (masked), or to whom an email would go. */
  reason?: string;
  /** The request's method, URL and headers as sent, secrets masked; null when nothing was sent or would be (an
   * email, a notifier that cannot send). A held request shows what would have been sent. */
  request: { method: string; url: string; headers: Record<string, string> } | null;
  /** The body as sent (or as it would have been, when held), secrets masked: the parsed JSON when it is JSON,
   * the text otherwise; for an email `{to, subject, text}`; null when there is none. */
  body: unknown;
}

/**
 * A notifier id the scheduler could not resolve (the notifier was deleted): pass this in place of the stored
 * notifier and the outbox records a failed send naming the id.
 */
export interface MissingNotifier {
  id: string;
  missing: true;
}
