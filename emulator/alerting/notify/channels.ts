/**
 * What each channel sends for an alert event: the request (method, URL, headers, body) and the secrets that must
 * never be shown. The service does not publish its messages for Slack, Teams, Discord, PagerDuty or Opsgenie
 * (axiomhq/docs monitor-data pages name only the fields a user enters), so each body here is one the vendor's own
 * API documents as accepted; where a field's value is our choice it says so.
 */
import { createHash } from "node:crypto";
import { DEFAULT_WEBHOOK_TEMPLATE, renderWebhookBody } from "./custom-webhook";
import type { AlertEvent } from "./types";
import { formatGoTime } from "../../../provider/go-template/go-fmt";
import { urlSecrets } from "./mask";

/** An HTTP request a channel makes. */
export interface OutgoingRequest {
  method: "POST";
  url: string;
  headers: Record<string, string>;
  /** The body exactly as sent. */
  body: string;
  /** The value `body` was written from, when a channel builds one: the outbox masks it before writing it. */
  json?: unknown;
}

/** What a channel makes of an event. */
export type ChannelMessage =
  | {
      kind: "request";
      request: OutgoingRequest;
      secrets: string[];
      /** Headers whose whole value is a credential (lower case): shown masked, keeping an auth scheme's name. */
      secretHeaders: string[];
      /** The URL is the user's webhook URL, a credential in itself: shown masked (a vendor's fixed API URL is not). */
      urlIsSecret: boolean;
    }
  | { kind: "email"; to: string[]; subject: string; text: string; secrets: string[] }
  | { kind: "invalid"; reason: string; secrets: string[] };

/** The channel keys the service knows (axiom-go `axiom/notifiers.go`, `NotifierProperties`). */
export const CHANNELS = [
  "customWebhook",
  "webhook",
  "slack",
  "microsoftTeams",
  "discordWebhook",
  "discord",
  "pagerduty",
  "opsgenie",
  "email",
] as const;
export type Channel = (typeof CHANNELS)[number];

/** PagerDuty Events API v2's one endpoint (developer.pagerduty.com, "Send an Alert Event"). */
export const PAGERDUTY_EVENTS_URL = "https://events.pagerduty.com/v2/enqueue";
/** Opsgenie's Alert API, US and EU instances (docs.opsgenie.com, "Alert API": api.opsgenie.com, api.eu.opsgenie.com). */
export const OPSGENIE_US = "https://api.opsgenie.com";
export const OPSGENIE_EU = "https://api.eu.opsgenie.com";
/** Discord's API, version 10 (discord.com/developers/docs/reference, "API Versioning"). */
export const DISCORD_API = "https://discord.com/api/v10";

const JSON_HEADERS = { "Content-Type": "application/json" };

function rfc3339(ns: bigint): string {
  return formatGoTime(ns, "2006-01-02T15:04:05.999999999Z07:00");
}

/**
 * One key per alert: the monitor's id, and for a monitor notifying by group the group's values (each
 * percent-encoded, so `a/b` and `a`,`b` differ). The same for the Open and the Closed of one alert, so PagerDuty
 * resolves the incident it opened and Opsgenie closes the alert it created.
 */
export function alertKey(event: AlertEvent, max = 255): string {
  const groups = event.groupValues ?? [];
  const key = [event.monitor.id, ...groups.map((g) => encodeURIComponent(g))].join("/");
  if (key.length <= max) return key;
  // Too long for the vendor's field (PagerDuty's dedup_key: 255): a digest of the groups, as stable and unique.
  return `${event.monitor.id}/sha256-${createHash("sha256").update(JSON.stringify(groups)).digest("hex")}`.slice(
    0,
    max,
  );
}

/** The one-line summary every chat channel leads with: `[Open] High error rate: Current value of …`. */
export function summaryLine(event: AlertEvent): string {
  const groups = event.groupValues?.length ? ` (${groupText(event)})` : "";
  return `[${event.action}] ${event.monitor.name}${groups}: ${event.body}`;
}

function groupText(event: AlertEvent): string {
  const keys = event.groupKeys ?? [];
  return (event.groupValues ?? []).map((v, i) => (keys[i] ? `${keys[i]}=${v}` : v)).join(", ");
}

function truncate(s: string, max: number): string {
  const chars = [...s];
  return chars.length <= max ? s : chars.slice(0, max - 1).join("") + "…";
}

/** The facts a chat message lists under its summary. */
function facts(event: AlertEvent): { name: string; value: string }[] {
  const out = [
    { name: "Monitor", value: `${event.monitor.name} (${event.monitor.id})` },
    { name: "Value", value: event.value === null ? "no data" : String(event.value) },
    { name: "Window", value: `${rfc3339(event.queryStartTime)} to ${rfc3339(event.queryEndTime)}` },
  ];
  if (event.groupValues?.length) out.push({ name: "Group", value: groupText(event) });
  return out;
}

/** Details as PagerDuty's `custom_details` and Opsgenie's `details` carry them. */
function details(event: AlertEvent): Record<string, string> {
  const out: Record<string, string> = {
    monitorId: event.monitor.id,
    monitorType: event.monitor.type,
    value: event.value === null ? "" : String(event.value),
    queryStartTime: rfc3339(event.queryStartTime),
    queryEndTime: rfc3339(event.queryEndTime),
  };
  if (event.threshold !== undefined) out.threshold = String(event.threshold);
  if (event.operator !== undefined) out.operator = event.operator;
  if (event.monitor.description) out.description = event.monitor.description;
  if (event.groupValues?.length) out.group = groupText(event);
  if (event.matchedEvent) out.matchedEvent = JSON.stringify(event.matchedEvent);
  return out;
}

function post(url: string, body: unknown, headers: Record<string, string> = {}): OutgoingRequest {
  return {
    method: "POST",
    url,
    headers: { ...JSON_HEADERS, ...headers },
    body: JSON.stringify(body),
    json: body,
  };
}

function str(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}

/** A stored URL field: the URL, or an `invalid` message naming the field (never quoting it: it is a secret). */
function urlField(config: Record<string, unknown>, channel: string, field: string): string | ChannelMessage {
  const url = str(config[field]);
  if (!url) return invalid(`${channel}.${field} is missing`);
  if (!/^https?:\/\//i.test(url) || !URL.canParse(url))
    return invalid(`${channel}.${field} is not an http(s) URL`, urlSecrets(url));
  return url;
}

function stringMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (v && typeof v === "object" && !Array.isArray(v))
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) if (typeof x === "string") out[k] = x;
  return out;
}

function invalid(reason: string, secrets: string[] = []): ChannelMessage {
  return { kind: "invalid", reason, secrets };
}

/**
 * The message `channel` (configured by `config`, as stored) sends for `event`. Never throws: a configuration the
 * channel cannot use, or a custom webhook template that fails, is an `invalid` message naming why.
 */
export function channelMessage(
  channel: Channel,
  config: Record<string, unknown>,
  event: AlertEvent,
): ChannelMessage {
  switch (channel) {
    case "customWebhook":
      return customWebhook(config, event);
    case "webhook": {
      const url = urlField(config, "webhook", "url");
      if (typeof url !== "string") return url;
      const secrets = urlSecrets(url);
      // The plain webhook's body is not published; the custom webhook page's default template is the service's
      // own shape for a webhook, so it is what this one sends.
      const body = renderWebhookBody(DEFAULT_WEBHOOK_TEMPLATE, event);
      return {
        kind: "request",
        request: { method: "POST", url, headers: { ...JSON_HEADERS }, body },
        secrets,
        secretHeaders: [],
        urlIsSecret: true,
      };
    }
    case "slack": {
      const url = urlField(config, "slack", "slackUrl");
      if (typeof url !== "string") return url;
      return {
        kind: "request",
        request: post(url, slackMessage(event)),
        secrets: urlSecrets(url),
        secretHeaders: [],
        urlIsSecret: true,
      };
    }
    case "microsoftTeams": {
      const url = urlField(config, "microsoftTeams", "microsoftTeamsUrl");
      if (typeof url !== "string") return url;
      return {
        kind: "request",
        request: post(url, teamsMessage(event)),
        secrets: urlSecrets(url),
        secretHeaders: [],
        urlIsSecret: true,
      };
    }
    case "discordWebhook": {
      const url = urlField(config, "discordWebhook", "discordWebhookUrl");
      if (typeof url !== "string") return url;
      return {
        kind: "request",
        request: post(url, discordMessage(event)),
        secrets: urlSecrets(url),
        secretHeaders: [],
        urlIsSecret: true,
      };
    }
    case "discord": {
      const token = str(config.discordToken);
      const channelId = str(config.discordChannel);
      if (!token || !channelId)
        return invalid(
          `discord.${!token ? "discordToken" : "discordChannel"} is missing`,
          token ? [token] : [],
        );
      // Discord's "Create Message": POST /channels/{channel.id}/messages with a bot token
      // (discord.com/developers/docs/resources/message#create-message; "Authorization: Bot <token>",
      // discord.com/developers/docs/reference#authentication).
      const url = `${DISCORD_API}/channels/${encodeURIComponent(channelId)}/messages`;
      return {
        kind: "request",
        request: post(url, discordMessage(event), { Authorization: `Bot ${token}` }),
        secrets: [token],
        secretHeaders: ["authorization"],
        urlIsSecret: false,
      };
    }
    case "pagerduty": {
      const routingKey = str(config.routingKey);
      const secrets = [routingKey, str(config.token)].filter((s): s is string => s !== undefined);
      if (!routingKey) return invalid("pagerduty.routingKey is missing", secrets);
      return {
        kind: "request",
        request: post(PAGERDUTY_EVENTS_URL, pagerDutyEvent(routingKey, event)),
        secrets,
        secretHeaders: [],
        urlIsSecret: false,
      };
    }
    case "opsgenie": {
      const apiKey = str(config.apiKey);
      if (!apiKey) return invalid("opsgenie.apiKey is missing");
      return {
        kind: "request",
        request: opsgenieRequest(apiKey, config.isEU === true, event),
        secrets: [apiKey],
        secretHeaders: ["authorization"],
        urlIsSecret: false,
      };
    }
    case "email": {
      const to = Array.isArray(config.emails)
        ? config.emails.filter((e): e is string => typeof e === "string")
        : [];
      if (to.length === 0) return invalid("email.emails is empty");
      return {
        kind: "email",
        to,
        subject: `[${event.action}] ${event.monitor.name}`,
        text: emailText(event),
        secrets: [],
      };
    }
  }
}

/** Header names that carry credentials whatever map they were declared in. */
const CREDENTIAL_HEADER =
  /^(authorization|proxy-authorization|cookie)$|token|secret|key|signature|password|auth/i;

/** The custom webhook: the declared template rendered, POSTed with `Content-Type: application/json`, the declared
 * headers and the secret headers (axiomhq/docs custom-webhook-notifier; OA `customWebhook.{url, body, headers,
 * secretHeaders}`). An empty body is the default template, as the page says the default is. */
function customWebhook(config: Record<string, unknown>, event: AlertEvent): ChannelMessage {
  const checked = urlField(config, "customWebhook", "url");
  const headers = stringMap(config.headers);
  const secretHeaders = stringMap(config.secretHeaders);
  // Secret headers are masked (OA: "Sensitive HTTP headers … that should be masked in logs"); so is a plain
  // header whose name says it carries a credential, in case one was declared in the wrong map.
  const credentialHeaders = Object.entries(headers).filter(([name]) => CREDENTIAL_HEADER.test(name));
  const secrets = [...Object.values(secretHeaders), ...credentialHeaders.map(([, value]) => value)];
  const secretNames = [...Object.keys(secretHeaders), ...credentialHeaders.map(([name]) => name)].map((n) =>
    n.toLowerCase(),
  );
  if (typeof checked !== "string") return { ...checked, secrets: [...checked.secrets, ...secrets] };
  const url = checked;
  secrets.push(...urlSecrets(url));
  const template =
    typeof config.body === "string" && config.body.trim() !== "" ? config.body : DEFAULT_WEBHOOK_TEMPLATE;
  let body: string;
  try {
    body = renderWebhookBody(template, event);
  } catch (e) {
    return invalid(`customWebhook.body: ${(e as Error).message}`, secrets);
  }
  return {
    kind: "request",
    request: { method: "POST", url, headers: { ...JSON_HEADERS, ...headers, ...secretHeaders }, body },
    secrets,
    secretHeaders: secretNames,
    urlIsSecret: true,
  };
}

/**
 * Slack's incoming webhook payload: `text` (the notification's fallback, and what shows when blocks cannot) and
 * `blocks` in Block Kit (api.slack.com/messaging/webhooks; docs.slack.dev "Block Kit": `section` with `mrkdwn`
 * text at most 3000 characters, `context` elements).
 */
export function slackMessage(event: AlertEvent): Record<string, unknown> {
  return {
    text: summaryLine(event),
    blocks: [
      {
        type: "section",
        text: {
          type: "mrkdwn",
          text: truncate(`*[${event.action}] ${event.monitor.name}*\n${event.body}`, 3000),
        },
      },
      {
        type: "context",
        elements: facts(event).map((f) => ({
          type: "mrkdwn",
          text: truncate(`*${f.name}:* ${f.value}`, 3000),
        })),
      },
    ],
  };
}

/**
 * Microsoft Teams: an Adaptive Card in a message envelope, `{type: "message", attachments: [{contentType:
 * "application/vnd.microsoft.card.adaptive", content: {type: "AdaptiveCard", version: "1.4", body: […]}}]}`
 * (learn.microsoft.com, "Create an Incoming Webhook" and "Send messages using Workflows"). Chosen over the older
 * MessageCard because both kinds of Teams webhook URL accept it: the Office 365 connector's incoming webhook
 * takes either, while the Workflows webhook that replaces the retired connectors takes only Adaptive Cards.
 */
export function teamsMessage(event: AlertEvent): Record<string, unknown> {
  return {
    type: "message",
    attachments: [
      {
        contentType: "application/vnd.microsoft.card.adaptive",
        contentUrl: null,
        content: {
          $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
          type: "AdaptiveCard",
          version: "1.4",
          body: [
            {
              type: "TextBlock",
              size: "Medium",
              weight: "Bolder",
              text: `[${event.action}] ${event.monitor.name}`,
              color: event.action === "Open" ? "Attention" : "Good",
              wrap: true,
            },
            { type: "TextBlock", text: event.body, wrap: true },
            { type: "FactSet", facts: facts(event).map((f) => ({ title: f.name, value: f.value })) },
          ],
        },
      },
    ],
  };
}

/**
 * Discord's Execute Webhook and Create Message body: `content` (at most 2000 characters) and `embeds` (title at
 * most 256, description at most 4096, fields' names 256 and values 1024, `color` an integer, `timestamp` ISO 8601)
 * (discord.com/developers/docs/resources/webhook#execute-webhook, …/resources/message#embed-object).
 */
export function discordMessage(event: AlertEvent): Record<string, unknown> {
  return {
    content: truncate(summaryLine(event), 2000),
    embeds: [
      {
        title: truncate(`[${event.action}] ${event.monitor.name}`, 256),
        description: truncate(event.body, 4096),
        // Red while in alert, green when it closes.
        color: event.action === "Open" ? 0xe01e5a : 0x2eb67d,
        timestamp: rfc3339(event.time),
        fields: facts(event).map((f) => ({
          name: truncate(f.name, 256),
          value: truncate(f.value, 1024),
          inline: false,
        })),
      },
    ],
  };
}

/**
 * PagerDuty Events API v2 (developer.pagerduty.com, "Events API v2 Overview", "Send an Alert Event"): `trigger` on
 * Open with `payload.{summary (at most 1024), source, severity, timestamp, custom_details}`, `resolve` on Closed
 * with the same `dedup_key` (at most 255 characters: a longer key becomes the monitor id and a digest of the group values). Severity
 * `critical` and source `axiom` are our choices: the service does not publish its own.
 */
export function pagerDutyEvent(routingKey: string, event: AlertEvent): Record<string, unknown> {
  const dedupKey = alertKey(event, 255);
  if (event.action === "Closed")
    return { routing_key: routingKey, event_action: "resolve", dedup_key: dedupKey };
  return {
    routing_key: routingKey,
    event_action: "trigger",
    dedup_key: dedupKey,
    payload: {
      summary: truncate(summaryLine(event), 1024),
      source: "axiom",
      severity: "critical",
      timestamp: rfc3339(event.time),
      custom_details: details(event),
    },
  };
}

/**
 * Opsgenie's Alert API (docs.opsgenie.com, "Alert API"): `POST /v2/alerts` with `{message (at most 130), alias
 * (at most 512), description (at most 15000), details, source}` on Open; on Closed `POST
 * /v2/alerts/{alias}/close?identifierType=alias` with `{source, note}`. `Authorization: GenieKey <key>`;
 * `api.eu.opsgenie.com` for an EU account.
 */
function opsgenieRequest(apiKey: string, isEU: boolean, event: AlertEvent): OutgoingRequest {
  const base = isEU ? OPSGENIE_EU : OPSGENIE_US;
  const alias = alertKey(event, 512);
  const auth = { Authorization: `GenieKey ${apiKey}` };
  if (event.action === "Closed")
    return post(
      `${base}/v2/alerts/${encodeURIComponent(alias)}/close?identifierType=alias`,
      { source: "axiom", note: truncate(event.body, 25000) },
      auth,
    );
  return post(
    `${base}/v2/alerts`,
    {
      message: truncate(
        `${event.monitor.name}${event.groupValues?.length ? ` (${groupText(event)})` : ""}`,
        130,
      ),
      alias,
      description: truncate(event.body, 15000),
      details: details(event),
      source: "axiom",
    },
    auth,
  );
}

function emailText(event: AlertEvent): string {
  return [summaryLine(event), "", ...facts(event).map((f) => `${f.name}: ${f.value}`)].join("\n");
}
