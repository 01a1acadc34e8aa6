/**
 * Notifications: what the emulator sends when a monitor opens or closes an alert, to each of the monitor's
 * notifiers, and the outbox that records every send (GET /_emulator/notifications).
 *
 * For each (event, notifier): the notifier's own `disabledUntil` later than now holds it; the channel makes its
 * message (./channels.ts; a custom webhook's template renders here, and a template error fails the send naming
 * the line); a host that is not loopback and not allowed holds it (./delivery.ts); otherwise it is POSTed. An
 * email is recorded, never sent. Every outcome is one outbox row and one log line, with the notifier's secrets
 * masked (./mask.ts): each send by its own notifier's secrets, so no row is masked with another's. Nothing here
 * throws into the scheduler.
 */
import { CHANNELS, channelMessage, type Channel, type ChannelMessage } from "./channels";
import { AllowedHosts, DEFAULT_SEND_TIMEOUT_MS, holdReason, send, type FetchLike } from "./delivery";
import { MASK, Masker, maskUrl } from "./mask";
import type { AlertEvent, MissingNotifier, OutboxEntry } from "./types";

export type { AlertEvent, MissingNotifier, OutboxEntry, OutboxOutcome } from "./types";
export { alertKey } from "./channels";

/** The outbox keeps this many rows, dropping the oldest, so a long real-clock run holds its memory flat. */
export const OUTBOX_LIMIT = 10_000;

/** Options of {@link Notifications}. */
export interface NotificationsOptions {
  /** Hosts (name, name:port or `*.domain`) sends may reach besides loopback addresses (see ./delivery.ts). */
  deliverTo?: readonly string[];
  /** The HTTP seam: tests pass their own; the default is undici. */
  fetch?: FetchLike;
  /** Where one line per send goes; never given a secret. */
  logger?: (line: string) => void;
  /** How long one send may take. Default {@link DEFAULT_SEND_TIMEOUT_MS}. */
  timeoutMs?: number;
}

/** Filters of {@link Notifications.entries}, as GET /_emulator/notifications takes them. */
export interface OutboxFilter {
  monitorId?: string;
  notifierId?: string;
  channel?: string;
  action?: string;
  outcome?: string;
}

/** Sends alert events to notifiers and keeps the outbox. */
export class Notifications {
  private readonly outbox: OutboxEntry[] = [];
  private readonly allowed: AllowedHosts;
  private nextId = 1;

  /** Throws an Error naming `deliverTo` when one of its entries is not a host or host:port. */
  constructor(private readonly opts: NotificationsOptions = {}) {
    this.allowed = new AllowedHosts(opts.deliverTo);
  }

  /**
   * Sends one alert event to each notifier (notifier objects as stored by the emulator: `{id, name, properties,
   * disabledUntil}`, or {@link MissingNotifier} for an id that no longer resolves), records each send in the
   * outbox, and answers the new rows, in the notifiers' order. Sends run side by side. Never throws.
   */
  async dispatch(
    event: AlertEvent,
    notifiers: readonly (Record<string, unknown> | MissingNotifier)[],
    nowMs: number,
  ): Promise<OutboxEntry[]> {
    const prepared: Prepared[] = [];
    for (const n of notifiers) {
      // A custom webhook's template may render for up to its time budget (provider/go-template/go-template.ts): other requests get
      // a turn before each, so that many renders in a row (one per group and notifier) never block the server.
      await new Promise((resolve) => setImmediate(resolve));
      prepared.push(this.prepare(event, n));
    }
    const rows = await Promise.all(
      prepared.map((p) =>
        // A fault of our own is a failed row too: nothing a notifier holds may stop the scheduler.
        this.sendOne(event, p, nowMs).catch((e: unknown) => this.internalFailure(event, p, nowMs, e)),
      ),
    );
    for (const row of rows) {
      this.outbox.push(row);
      this.log(row);
    }
    if (this.outbox.length > OUTBOX_LIMIT) this.outbox.splice(0, this.outbox.length - OUTBOX_LIMIT);
    return rows;
  }

  /** The rows so far, oldest first, those matching every filter given. */
  entries(filter: OutboxFilter = {}): readonly OutboxEntry[] {
    const keys = Object.entries(filter).filter(([, v]) => v !== undefined) as [keyof OutboxFilter, string][];
    if (keys.length === 0) return this.outbox;
    return this.outbox.filter((e) => keys.every(([k, v]) => e[k] === v));
  }

  /** The row for a send that failed on our side (a bug, not the receiver): failed, naming the error, masked. */
  private internalFailure(event: AlertEvent, p: Prepared, nowMs: number, e: unknown): OutboxEntry {
    const stored = p.notifier as Record<string, unknown>;
    // A fault of ours may quote anything the notifier holds: every string of it is masked, not only its secrets.
    const masker = p.missing
      ? new Masker([])
      : new Masker([...(p.message?.secrets ?? []), ...notifierStrings(stored)]);
    return {
      id: `out_${this.nextId++}`,
      time: new Date(nowMs).toISOString(),
      monitorId: event.monitor.id,
      monitorName: event.monitor.name,
      ...(event.alertId !== undefined ? { alertId: event.alertId } : {}),
      notifierId: String(stored.id ?? ""),
      notifierName: typeof stored.name === "string" ? stored.name : "",
      channel: p.missing ? "" : (p.channel ?? ""),
      action: event.action,
      groupValues: event.groupValues ? [...event.groupValues] : null,
      value: event.value,
      targetHost: null,
      outcome: "failed",
      reason: masker.text(`the emulator could not send: ${e instanceof Error ? e.message : String(e)}`),
      request: null,
      body: null,
    };
  }

  /** The notifier's channel and message, and the masker of its secrets. */
  private prepare(event: AlertEvent, notifier: Record<string, unknown> | MissingNotifier): Prepared {
    if ("missing" in notifier && notifier.missing === true)
      return { notifier: notifier as MissingNotifier, missing: true };
    const stored = notifier as Record<string, unknown>;
    let channel: Channel | undefined;
    let message: ChannelMessage;
    try {
      const properties = (stored.properties ?? {}) as Record<string, unknown>;
      channel = CHANNELS.find((c) => properties[c] !== undefined && properties[c] !== null);
      if (!channel) return { notifier: stored, missing: false };
      message = channelMessage(channel, properties[channel] as Record<string, unknown>, event);
    } catch (e) {
      // A fault of our own: the reason may quote anything the notifier holds, so its every string is masked.
      const reason = `the emulator could not build the message: ${e instanceof Error ? e.message : String(e)}`;
      message = { kind: "invalid", reason, secrets: notifierStrings(stored) };
    }
    return { notifier: stored, missing: false, channel, message, masker: new Masker(message.secrets) };
  }

  private async sendOne(event: AlertEvent, prepared: Prepared, nowMs: number): Promise<OutboxEntry> {
    const notifier = prepared.notifier;
    const base = {
      id: `out_${this.nextId++}`,
      time: new Date(nowMs).toISOString(),
      monitorId: event.monitor.id,
      monitorName: event.monitor.name,
      ...(event.alertId !== undefined ? { alertId: event.alertId } : {}),
      notifierId: String(notifier.id ?? ""),
      action: event.action,
      groupValues: event.groupValues ? [...event.groupValues] : null,
      value: event.value,
    };
    if (prepared.missing) {
      return {
        ...base,
        notifierName: "",
        channel: "",
        targetHost: null,
        outcome: "failed",
        reason: `notifier ${String(notifier.id)} does not exist (deleted after the monitor named it)`,
        request: null,
        body: null,
      };
    }
    const stored = prepared.notifier;
    const notifierName = typeof stored.name === "string" ? stored.name : "";
    const { channel, message, masker } = prepared;
    if (!message || !masker) {
      return {
        ...base,
        notifierName,
        channel: "",
        targetHost: null,
        outcome: "failed",
        reason: `notifier has no channel configured (one of ${CHANNELS.join(", ")})`,
        request: null,
        body: null,
      };
    }
    const row = { ...base, notifierName, channel: channel ?? "" };

    const disabledUntil = typeof stored.disabledUntil === "string" ? Date.parse(stored.disabledUntil) : NaN;
    const disabled =
      Number.isFinite(disabledUntil) && disabledUntil > nowMs
        ? `notifier disabled until ${new Date(disabledUntil).toISOString()}`
        : undefined;

    if (message.kind === "invalid")
      return {
        ...row,
        targetHost: null,
        outcome: "failed",
        reason: masker.text(message.reason),
        request: null,
        body: null,
      };
    if (message.kind === "email") {
      // An email's addresses are no secret field (the provider's SECRET_CHANNEL_FIELDS): shown as they are.
      const body = { to: message.to, subject: message.subject, text: message.text };
      if (disabled)
        return { ...row, targetHost: null, outcome: "held", reason: disabled, request: null, body };
      return {
        ...row,
        targetHost: null,
        outcome: "recorded",
        reason: `email is recorded, never sent: to ${message.to.join(", ")}`,
        request: null,
        body,
      };
    }
    const { request } = message;
    const url = new URL(request.url);
    const shown = {
      targetHost: url.host,
      request: {
        method: request.method,
        url: message.urlIsSecret ? maskUrl(request.url) : masker.text(request.url),
        headers: maskHeaders(request.headers, message.secretHeaders, masker),
      },
      // Masked as values, before anything writes them as JSON: a secret holding `"`, `\` or a newline is found
      // as it is, not as JSON escapes it.
      body: masker.value(request.json !== undefined ? request.json : parseBody(request.body)),
    };
    if (disabled) return { ...row, ...shown, outcome: "held", reason: disabled };
    const hold = holdReason(url, this.allowed);
    if (hold) return { ...row, ...shown, outcome: "held", reason: hold };
    const result = await send(
      request,
      this.opts.timeoutMs ?? DEFAULT_SEND_TIMEOUT_MS,
      masker,
      this.opts.fetch,
    );
    if (result.ok) return { ...row, ...shown, outcome: "delivered", status: result.status };
    return {
      ...row,
      ...shown,
      outcome: "failed",
      ...(result.status !== undefined ? { status: result.status } : {}),
      // send() masked the receiver's answer before cutting it to its excerpt.
      reason: result.reason,
    };
  }

  private log(row: OutboxEntry): void {
    if (!this.opts.logger) return;
    const to = row.targetHost ? ` to ${row.targetHost}` : "";
    const status = row.status !== undefined ? ` ${row.status}` : "";
    const reason = row.reason ? `: ${row.reason}` : "";
    // Every part is already masked (the reason, the host) or never secret (names and ids).
    this.opts.logger(
      `notification ${row.outcome}${status}: monitor "${row.monitorName}" (${row.monitorId}) ${row.action}` +
        `${row.groupValues?.length ? ` [${row.groupValues.join(", ")}]` : ""}` +
        ` → ${row.channel || "?"} notifier "${row.notifierName}" (${row.notifierId})${to}${reason}`,
    );
  }
}

/**
 * Every string a notifier's properties hold, of four characters or more (shorter ones are names, and masking them
 * would blot out the text around them): what a fault of ours might quote.
 */
function notifierStrings(stored: Record<string, unknown>): string[] {
  try {
    return stringLeaves(stored.properties).filter((v) => v.length >= 4);
  } catch {
    return [];
  }
}

/** Every string inside a value, however deep; a property whose reading throws is skipped. */
function stringLeaves(v: unknown, depth = 0): string[] {
  if (typeof v === "string") return [v];
  if (!v || typeof v !== "object" || depth > 8) return [];
  const out: string[] = [];
  for (const key of Object.keys(v)) {
    try {
      out.push(...stringLeaves((v as Record<string, unknown>)[key], depth + 1));
    } catch {
      /* a getter that throws holds nothing we can read */
    }
  }
  return out;
}

/** A notifier ready to send: its channel and message, or why it has none. */
type Prepared =
  | { notifier: MissingNotifier; missing: true }
  | {
      notifier: Record<string, unknown>;
      missing: false;
      channel?: Channel;
      message?: ChannelMessage;
      /** This notifier's secrets, and no other's. */
      masker?: Masker;
    };

/**
 * Authorization schemes whose name is shown before a masked credential: IANA's HTTP Authentication Scheme
 * Registry's, and the vendors' own (Discord's `Bot`, Opsgenie's `GenieKey`, the common `Token` and `ApiKey`).
 * Any other first word of a secret header may be part of the secret, and is masked with the rest.
 */
const AUTH_SCHEMES = new Set(
  [
    "Basic",
    "Bearer",
    "Digest",
    "HOBA",
    "Mutual",
    "Negotiate",
    "NTLM",
    "OAuth",
    "Bot",
    "GenieKey",
    "Token",
    "ApiKey",
  ].map((s) => s.toLowerCase()),
);

/**
 * Headers as shown: a secret header's value masked whole, keeping an authorization scheme's name (`GenieKey ***`,
 * `Bot ***`, `Bearer ***`) so the outbox shows which was sent; any other header as sent, unless it quotes a
 * secret.
 */
function maskHeaders(
  headers: Record<string, string>,
  secretNames: readonly string[],
  masker: Masker,
): Record<string, string> {
  const secret = new Set(secretNames);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (!secret.has(k.toLowerCase())) {
      out[k] = masker.text(v);
      continue;
    }
    const scheme = /^([\w-]+) +\S/.exec(v);
    out[k] = scheme && AUTH_SCHEMES.has(scheme[1].toLowerCase()) ? `${scheme[1]} ${MASK}` : MASK;
  }
  return out;
}

/** The body as the outbox shows it: parsed when it is JSON, the text otherwise. */
function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export type { Channel, ChannelMessage };
