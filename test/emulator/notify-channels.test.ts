/**
 * Notifications as each channel sends them, checked at a real local receiver (http.createServer on 127.0.0.1:0):
 * method, path, headers and body. Vendors whose API has a fixed host (PagerDuty, Opsgenie, Discord's bot API) are
 * allowed with deliverTo and reached through the fetch seam, which forwards to the same receiver: no real network
 * is touched. Then: held sends, deliverTo rules, disabledUntil, template errors, failures, masking, the route.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  Notifications,
  OUTBOX_LIMIT,
  type AlertEvent,
  type OutboxEntry,
} from "../../emulator/alerting/notify";
import { maskUrl } from "../../emulator/alerting/notify/mask";
import { DEFAULT_WEBHOOK_TEMPLATE, renderWebhookBody } from "../../emulator/alerting/notify/custom-webhook";
import { Router, type RequestContext } from "../../emulator/http";
import type { RouteAccess } from "../../emulator/auth";
import { registerNotificationsRoute, NOTIFICATIONS_PATH } from "../../emulator/routes/emulator-notifications";
import { api } from "../helpers/emulator";
import { createMonitor, eventsAt, ingest, startManual } from "../helpers/monitor-runs";

interface Received {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: string;
}

/** A local receiver: records every request, answers `status` (and `answer` as its body). */
class Receiver {
  readonly received: Received[] = [];
  status = 200;
  /** The answer's body: text, or made from the request received. */
  answer: string | ((got: Received) => string) = "ok";
  location?: string;
  private server!: Server;
  base = "";

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const got = {
          method: req.method ?? "",
          path: req.url ?? "",
          headers: req.headers,
          body: Buffer.concat(chunks).toString("utf8"),
        };
        this.received.push(got);
        res.writeHead(this.status, this.location ? { Location: this.location } : {});
        res.end(typeof this.answer === "string" ? this.answer : this.answer(got));
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  last(): Received {
    expect(this.received.length).toBeGreaterThan(0);
    return this.received[this.received.length - 1];
  }

  json(): Record<string, unknown> {
    return JSON.parse(this.last().body) as Record<string, unknown>;
  }
}

const NOW_MS = Date.parse("2026-11-28T12:00:00Z");
const NS = (iso: string) => BigInt(Date.parse(iso)) * 1_000_000n;

const openEvent: AlertEvent = {
  time: NS("2026-11-28T12:00:00Z") + 123_456_789n,
  monitor: { id: "mon_errors", name: "Error rate", description: "5xx over 1%", type: "Threshold" },
  action: "Open",
  value: 42,
  threshold: 10,
  operator: "Above",
  queryStartTime: NS("2026-11-28T11:55:00Z"),
  queryEndTime: NS("2026-11-28T12:00:00Z"),
  groupKeys: ["service"],
  groupValues: ["checkout"],
  matchedEvent: null,
  body: "Current value of 42 is above the threshold value of 10",
};
const closedEvent: AlertEvent = {
  ...openEvent,
  action: "Closed",
  value: 3,
  body: "Current value of 3 is not above the threshold value of 10",
};

function notifier(
  id: string,
  channel: string,
  config: Record<string, unknown>,
  disabledUntil: string | null = null,
) {
  return { id, name: `${channel} notifier`, properties: { [channel]: config }, disabledUntil };
}

let receiver: Receiver;
beforeEach(async () => {
  receiver = new Receiver();
  await receiver.start();
});
afterEach(async () => {
  await receiver.stop();
});

/** A fetch seam that sends what it is given to the local receiver instead of the vendor's host. */
function forwardingFetch(seen: string[]) {
  return (url: string, init: RequestInit) => {
    seen.push(url);
    const u = new URL(url);
    return fetch(`${receiver.base}${u.pathname}${u.search}`, init);
  };
}

async function dispatchOne(
  n: Notifications,
  event: AlertEvent,
  stored: Record<string, unknown>,
  nowMs = NOW_MS,
): Promise<OutboxEntry> {
  const [row] = await n.dispatch(event, [stored], nowMs);
  return row;
}

describe("each channel's request, at a local receiver", () => {
  it("custom webhook: the rendered template, Content-Type application/json, declared and secret headers (axiomhq/docs custom-webhook-notifier)", async () => {
    const n = new Notifications();
    const row = await dispatchOne(
      n,
      openEvent,
      notifier("notify_custom", "customWebhook", {
        url: `${receiver.base}/hooks/custom?sig=query-secret-123`,
        body: '{"status": "{{ if eq .Action "Open" }}firing{{ else }}resolved{{ end }}", "group": {{jsonArray .GroupValues}}, "v": {{.Value}}}',
        headers: { "X-Team": "payments", "X-Api-Key": "declared-in-plain-headers" },
        secretHeaders: { "X-Signature": "header-secret-456" },
      }),
    );
    const got = receiver.last();
    expect(got.method).toBe("POST");
    expect(got.path).toBe("/hooks/custom?sig=query-secret-123");
    expect(got.headers["content-type"]).toBe("application/json");
    expect(got.headers["x-team"]).toBe("payments");
    expect(got.headers["x-api-key"]).toBe("declared-in-plain-headers");
    expect(got.headers["x-signature"]).toBe("header-secret-456");
    expect(got.body).toBe('{"status": "firing", "group": ["checkout"], "v": 42}');
    expect(row).toMatchObject({
      outcome: "delivered",
      status: 200,
      channel: "customWebhook",
      notifierId: "notify_custom",
      monitorId: "mon_errors",
      action: "Open",
      groupValues: ["checkout"],
      value: 42,
      targetHost: new URL(receiver.base).host,
      body: { status: "firing", group: ["checkout"], v: 42 },
    });
    expect(row.request).toEqual({
      method: "POST",
      url: `${receiver.base}/hooks/***`,
      // A plain header whose name says it is a credential is masked like a secret header.
      headers: {
        "Content-Type": "application/json",
        "X-Team": "payments",
        "X-Api-Key": "***",
        "X-Signature": "***",
      },
    });
  });

  it("webhook: the docs' default template rendered over the event", async () => {
    const n = new Notifications();
    await dispatchOne(n, openEvent, notifier("notify_wh", "webhook", { url: `${receiver.base}/plain` }));
    const got = receiver.last();
    expect(got.path).toBe("/plain");
    expect(got.headers["content-type"]).toBe("application/json");
    expect(got.body).toBe(renderWebhookBody(DEFAULT_WEBHOOK_TEMPLATE, openEvent));
    expect(JSON.parse(got.body)).toMatchObject({
      action: "Open",
      event: {
        monitorID: "mon_errors",
        title: "Error rate",
        value: 42,
        groupKeys: ["service"],
        groupValues: ["checkout"],
      },
    });
  });

  it("Slack: {text, blocks} as Slack's incoming webhooks take it (api.slack.com/messaging/webhooks)", async () => {
    const n = new Notifications();
    await dispatchOne(
      n,
      openEvent,
      notifier("notify_slack", "slack", { slackUrl: `${receiver.base}/services/T000/B000/slacksecret99` }),
    );
    const got = receiver.last();
    expect(got.path).toBe("/services/T000/B000/slacksecret99");
    expect(got.headers["content-type"]).toBe("application/json");
    const body = receiver.json();
    expect(body.text).toBe(
      "[Open] Error rate (service=checkout): Current value of 42 is above the threshold value of 10",
    );
    const blocks = body.blocks as { type: string; text?: { type: string; text: string } }[];
    expect(blocks[0]).toEqual({
      type: "section",
      text: {
        type: "mrkdwn",
        text: "*[Open] Error rate*\nCurrent value of 42 is above the threshold value of 10",
      },
    });
    expect(blocks[1].type).toBe("context");
  });

  it("Microsoft Teams: an Adaptive Card in a message envelope (learn.microsoft.com, incoming webhooks and Workflows)", async () => {
    const n = new Notifications();
    await dispatchOne(
      n,
      closedEvent,
      notifier("notify_teams", "microsoftTeams", {
        microsoftTeamsUrl: `${receiver.base}/webhookb2/teamssecret77/IncomingWebhook/x`,
      }),
    );
    const body = receiver.json() as {
      type: string;
      attachments: { contentType: string; content: Record<string, unknown> }[];
    };
    expect(body.type).toBe("message");
    expect(body.attachments).toHaveLength(1);
    expect(body.attachments[0].contentType).toBe("application/vnd.microsoft.card.adaptive");
    const card = body.attachments[0].content as {
      type: string;
      version: string;
      body: { type: string; text?: string }[];
    };
    expect(card.type).toBe("AdaptiveCard");
    expect(card.version).toBe("1.4");
    expect(card.body[0]).toMatchObject({ type: "TextBlock", text: "[Closed] Error rate" });
    expect(card.body[1]).toMatchObject({ type: "TextBlock", text: closedEvent.body });
    expect(card.body[2].type).toBe("FactSet");
  });

  it("Discord webhook: {content, embeds} (discord.com/developers/docs/resources/webhook#execute-webhook)", async () => {
    const n = new Notifications();
    await dispatchOne(
      n,
      openEvent,
      notifier("notify_dw", "discordWebhook", {
        discordWebhookUrl: `${receiver.base}/api/webhooks/1234567890/discordsecret55`,
      }),
    );
    const got = receiver.last();
    expect(got.path).toBe("/api/webhooks/1234567890/discordsecret55");
    const body = receiver.json() as { content: string; embeds: Record<string, unknown>[] };
    expect(body.content).toBe(
      "[Open] Error rate (service=checkout): Current value of 42 is above the threshold value of 10",
    );
    expect(body.embeds[0]).toMatchObject({
      title: "[Open] Error rate",
      description: openEvent.body,
      timestamp: "2026-11-28T12:00:00.123456789Z",
    });
    expect(typeof body.embeds[0].color).toBe("number");
  });

  it("Discord bot: POST /api/v10/channels/{id}/messages with Authorization: Bot <token> (discord.com/developers/docs/resources/message#create-message)", async () => {
    const seen: string[] = [];
    const n = new Notifications({ deliverTo: ["discord.com"], fetch: forwardingFetch(seen) });
    const row = await dispatchOne(
      n,
      openEvent,
      notifier("notify_db", "discord", { discordChannel: "998877", discordToken: "bot-token-secret-33" }),
    );
    expect(seen).toEqual(["https://discord.com/api/v10/channels/998877/messages"]);
    const got = receiver.last();
    expect(got.path).toBe("/api/v10/channels/998877/messages");
    expect(got.headers.authorization).toBe("Bot bot-token-secret-33");
    expect(receiver.json()).toHaveProperty("content");
    expect(row.outcome).toBe("delivered");
    expect(row.request?.headers.Authorization).toBe("Bot ***");
    // Discord's API URL is no secret (only the token is): the outbox shows it whole.
    expect(row.request?.url).toBe("https://discord.com/api/v10/channels/998877/messages");
  });

  it("PagerDuty Events API v2: trigger then resolve with one dedup key per alert (developer.pagerduty.com, Send an Alert Event)", async () => {
    const seen: string[] = [];
    const n = new Notifications({ deliverTo: ["events.pagerduty.com"], fetch: forwardingFetch(seen) });
    const pd = notifier("notify_pd", "pagerduty", { routingKey: "routing-key-secret-0123456789" });
    await dispatchOne(n, openEvent, pd);
    const trigger = receiver.json();
    await dispatchOne(n, closedEvent, pd);
    const resolve = receiver.json();
    expect(seen).toEqual([
      "https://events.pagerduty.com/v2/enqueue",
      "https://events.pagerduty.com/v2/enqueue",
    ]);
    expect(receiver.received.map((r) => [r.method, r.path, r.headers["content-type"]])).toEqual([
      ["POST", "/v2/enqueue", "application/json"],
      ["POST", "/v2/enqueue", "application/json"],
    ]);
    expect(trigger).toMatchObject({
      routing_key: "routing-key-secret-0123456789",
      event_action: "trigger",
      dedup_key: "mon_errors/checkout",
      payload: {
        summary:
          "[Open] Error rate (service=checkout): Current value of 42 is above the threshold value of 10",
        source: "axiom",
        severity: "critical",
        timestamp: "2026-11-28T12:00:00.123456789Z",
        custom_details: {
          monitorId: "mon_errors",
          value: "42",
          threshold: "10",
          operator: "Above",
          group: "service=checkout",
        },
      },
    });
    expect(resolve).toEqual({
      routing_key: "routing-key-secret-0123456789",
      event_action: "resolve",
      dedup_key: "mon_errors/checkout",
    });
    // A key past PagerDuty's 255 characters becomes the monitor id and a digest of the groups: still one per alert.
    const long = { ...openEvent, groupValues: ["x".repeat(300)] };
    await dispatchOne(n, long, pd);
    const longKey = receiver.json().dedup_key as string;
    expect(longKey).toMatch(/^mon_errors\/sha256-[0-9a-f]{64}$/);
    await dispatchOne(n, { ...long, action: "Closed" }, pd);
    expect(receiver.json().dedup_key).toBe(longKey);
    // Another group is another alert: another key.
    await dispatchOne(n, { ...openEvent, groupValues: ["search"] }, pd);
    expect(receiver.json().dedup_key).toBe("mon_errors/search");
  });

  it("Opsgenie: create with an alias on Open, close by alias on Closed, GenieKey auth, US and EU hosts (docs.opsgenie.com, Alert API)", async () => {
    const seen: string[] = [];
    const n = new Notifications({
      deliverTo: ["api.opsgenie.com", "api.eu.opsgenie.com"],
      fetch: forwardingFetch(seen),
    });
    await dispatchOne(n, openEvent, notifier("notify_og", "opsgenie", { apiKey: "genie-key-secret-42" }));
    const create = receiver.last();
    expect(create.path).toBe("/v2/alerts");
    expect(create.headers.authorization).toBe("GenieKey genie-key-secret-42");
    expect(JSON.parse(create.body)).toMatchObject({
      message: "Error rate (service=checkout)",
      alias: "mon_errors/checkout",
      description: openEvent.body,
      source: "axiom",
      details: { monitorId: "mon_errors", group: "service=checkout" },
    });
    await dispatchOne(
      n,
      closedEvent,
      notifier("notify_og_eu", "opsgenie", { apiKey: "genie-key-secret-42", isEU: true }),
    );
    const close = receiver.last();
    expect(close.path).toBe("/v2/alerts/mon_errors%2Fcheckout/close?identifierType=alias");
    expect(JSON.parse(close.body)).toEqual({ source: "axiom", note: closedEvent.body });
    expect(seen).toEqual([
      "https://api.opsgenie.com/v2/alerts",
      "https://api.eu.opsgenie.com/v2/alerts/mon_errors%2Fcheckout/close?identifierType=alias",
    ]);
  });

  it("email: recorded, never sent", async () => {
    const calls: string[] = [];
    const n = new Notifications({ fetch: forwardingFetch(calls) });
    const row = await dispatchOne(
      n,
      openEvent,
      notifier("notify_mail", "email", { emails: ["oncall@example.com", "b@example.com"] }),
    );
    expect(calls).toEqual([]);
    expect(receiver.received).toEqual([]);
    expect(row).toMatchObject({
      outcome: "recorded",
      targetHost: null,
      request: null,
      reason: "email is recorded, never sent: to oncall@example.com, b@example.com",
      body: { to: ["oncall@example.com", "b@example.com"], subject: "[Open] Error rate" },
    });
  });
});

describe("safe by default: loopback only, unless deliverTo allows the host", () => {
  it("holds a send to a vendor's host, naming why, and sends nothing", async () => {
    const calls: string[] = [];
    const lines: string[] = [];
    const n = new Notifications({ fetch: forwardingFetch(calls), logger: (l) => lines.push(l) });
    const rows = await n.dispatch(
      openEvent,
      [
        notifier("notify_pd", "pagerduty", { routingKey: "routing-key-secret-0123456789" }),
        notifier("notify_slack", "slack", {
          slackUrl: "https://hooks.slack.com/services/T1/B2/slacksecret99",
        }),
      ],
      NOW_MS,
    );
    expect(calls).toEqual([]);
    expect(rows.map((r) => [r.outcome, r.targetHost, r.reason])).toEqual([
      [
        "held",
        "events.pagerduty.com",
        "events.pagerduty.com is not a loopback address and not in --deliver-to",
      ],
      ["held", "hooks.slack.com", "hooks.slack.com is not a loopback address and not in --deliver-to"],
    ]);
    // The held row still shows what would have been sent, masked.
    expect(rows[0].body).toMatchObject({ event_action: "trigger", routing_key: "***" });
    expect(rows[1].request?.url).toBe("https://hooks.slack.com/services/***");
    expect(rows[0].request?.url).toBe("https://events.pagerduty.com/v2/enqueue");
    expect(lines[0]).toMatch(
      /^notification held: monitor "Error rate" \(mon_errors\) Open \[checkout\] → pagerduty notifier/,
    );
  });

  it.each([
    ["an exact name", ["hooks.example.com"], "https://hooks.example.com/x", true],
    ["a name with the URL's port", ["hooks.example.com:8443"], "https://hooks.example.com:8443/x", true],
    ["a name with the scheme's default port", ["hooks.example.com:443"], "https://hooks.example.com/x", true],
    ["a name with another port", ["hooks.example.com:8443"], "https://hooks.example.com:9443/x", false],
    ["a subdomain wildcard", ["*.example.com"], "https://a.b.example.com/x", true],
    ["a wildcard does not allow the apex", ["*.example.com"], "https://example.com/x", false],
    ["case-insensitively", ["Hooks.Example.COM"], "https://hooks.example.com/x", true],
    ["another host", ["hooks.example.com"], "https://evil.example.net/x", false],
    ["a loopback name is always allowed", [], "http://localhost:1/x", true],
    ["a name that only starts like localhost is not", [], "http://localhost.example.com/x", false],
    ["127.0.0.0/8 beyond 127.0.0.1", [], "http://127.8.9.10:1/x", true],
    ["IPv6 loopback", [], "http://[::1]:1/x", true],
    [
      "a loopback address written as one number (the URL parser reads 127.0.0.1)",
      [],
      "http://2130706433:1/x",
      true,
    ],
    ["0.0.0.0 (every interface) is not loopback", [], "http://0.0.0.0:1/x", false],
    ["an IPv4-mapped IPv6 address is held, the safe side", [], "http://[::ffff:7f00:1]:1/x", false],
  ])("deliverTo: %s", async (_name, deliverTo, url, allowed) => {
    const calls: string[] = [];
    const n = new Notifications({
      deliverTo,
      fetch: async (u) => {
        calls.push(u);
        return new Response("ok", { status: 200 });
      },
    });
    const row = await dispatchOne(n, openEvent, notifier("notify_x", "webhook", { url }));
    expect(row.outcome).toBe(allowed ? "delivered" : "held");
    expect(calls).toEqual(allowed ? [url] : []);
  });

  it.each([["*"], ["https://hooks.example.com"], ["hooks.example.com/path"], [""]])(
    "refuses the deliverTo entry %j, naming the option",
    (entry) => {
      expect(() => new Notifications({ deliverTo: [entry] })).toThrow(
        /^deliverTo: .* is not a host name or host:port/,
      );
    },
  );
});

describe("what is held or fails", () => {
  it("a notifier disabled until a later time sends nothing; once that time passes it sends", async () => {
    const n = new Notifications();
    const stored = notifier("notify_wh", "webhook", { url: `${receiver.base}/hook` }, "2026-11-28T13:00:00Z");
    const held = await dispatchOne(n, openEvent, stored, NOW_MS);
    expect(held).toMatchObject({
      outcome: "held",
      reason: "notifier disabled until 2026-11-28T13:00:00.000Z",
    });
    expect(receiver.received).toEqual([]);
    const sent = await dispatchOne(n, openEvent, stored, Date.parse("2026-11-28T13:00:01Z"));
    expect(sent.outcome).toBe("delivered");
    expect(receiver.received).toHaveLength(1);
  });

  it("a custom webhook template that does not parse or execute fails the send with Go's message, and nothing is sent", async () => {
    const n = new Notifications();
    const rows = await n.dispatch(
      openEvent,
      [
        notifier("notify_bad1", "customWebhook", {
          url: `${receiver.base}/h`,
          body: '{\n  "a": {{ toJson .Title }}\n}',
        }),
        notifier("notify_bad2", "customWebhook", {
          url: `${receiver.base}/h`,
          body: "{{if gt .Value 100}}x{{end}}",
        }),
      ],
      NOW_MS,
    );
    expect(receiver.received).toEqual([]);
    expect(rows.map((r) => [r.outcome, r.reason])).toEqual([
      ["failed", 'customWebhook.body: template: webhook:2: function "toJson" not defined'],
      [
        "failed",
        'customWebhook.body: template: webhook:1:5: executing "webhook" at <gt .Value 100>: error calling gt: incompatible types for comparison',
      ],
    ]);
  });

  it("a receiver's error answer fails with its status and an excerpt; a redirect is not followed", async () => {
    const n = new Notifications();
    receiver.status = 500;
    receiver.answer = "upstream exploded";
    const failed = await dispatchOne(
      n,
      openEvent,
      notifier("notify_wh", "webhook", { url: `${receiver.base}/hook` }),
    );
    expect(failed).toMatchObject({
      outcome: "failed",
      status: 500,
      reason: "the receiver answered 500: upstream exploded",
    });
    receiver.status = 302;
    receiver.answer = "";
    receiver.location = "https://elsewhere.example.com/steal";
    const redirected = await dispatchOne(
      n,
      openEvent,
      notifier("notify_wh", "webhook", { url: `${receiver.base}/hook` }),
    );
    expect(redirected).toMatchObject({ outcome: "failed", status: 302, reason: "the receiver answered 302" });
    expect(receiver.received).toHaveLength(2);
  });

  it("a long error answer is quoted by its first 200 characters, through undici and through the seam", async () => {
    receiver.status = 503;
    receiver.answer = "y".repeat(1_000_000);
    const hook = notifier("notify_wh", "webhook", { url: `${receiver.base}/hook` });
    const viaUndici = await dispatchOne(new Notifications(), openEvent, hook);
    const viaSeam = await dispatchOne(
      new Notifications({ fetch: (u, init) => fetch(u, init) }),
      openEvent,
      hook,
    );
    for (const row of [viaUndici, viaSeam])
      expect(row).toMatchObject({
        outcome: "failed",
        status: 503,
        reason: `the receiver answered 503: ${"y".repeat(200)}…`,
      });
  });

  it("a receiver that is not there fails with the system's reason, and dispatch does not throw", async () => {
    const url = receiver.base;
    await receiver.stop();
    receiver = new Receiver();
    await receiver.start(); // afterEach stops this one
    const n = new Notifications();
    const row = await dispatchOne(n, openEvent, notifier("notify_wh", "webhook", { url: `${url}/hook` }));
    expect(row.outcome).toBe("failed");
    expect(row.status).toBeUndefined();
    expect(row.reason).toMatch(/^could not send: ECONNREFUSED/);
  });

  it("a receiver that does not answer in time fails naming the timeout", async () => {
    const n = new Notifications({
      timeoutMs: 25,
      fetch: (_u, init) =>
        new Promise<Response>((_resolve, reject) => {
          init.signal?.addEventListener("abort", () => reject(init.signal?.reason));
        }),
    });
    const row = await dispatchOne(
      n,
      openEvent,
      notifier("notify_wh", "webhook", { url: "http://127.0.0.1:9/hook" }),
    );
    expect(row).toMatchObject({ outcome: "failed", reason: "no answer within 25 ms" });
  });

  it("a stored URL that is not an http(s) URL fails naming the field, never quoting it", async () => {
    const n = new Notifications();
    const rows = await n.dispatch(
      openEvent,
      [
        notifier("notify_ftp", "slack", { slackUrl: "ftp://files.example.com/secretpath123" }),
        notifier("notify_text", "customWebhook", { url: "not a url secretword99", body: "{}" }),
      ],
      NOW_MS,
    );
    expect(rows.map((r) => [r.outcome, r.reason])).toEqual([
      ["failed", "slack.slackUrl is not an http(s) URL"],
      ["failed", "customWebhook.url is not an http(s) URL"],
    ]);
    expect(JSON.stringify(rows)).not.toMatch(/secretpath123|secretword99/);
  });

  it("a fault of the emulator's own is a failed row, masked, and dispatch still answers", async () => {
    const n = new Notifications();
    const properties = {
      get webhook(): never {
        throw new Error("cannot read https://hooks.example.com/abcd-secret-77");
      },
      other: "abcd-secret-77",
    };
    const rows = await n.dispatch(openEvent, [{ id: "notify_odd", name: "odd", properties }], NOW_MS);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ notifierId: "notify_odd", outcome: "failed" });
    expect(rows[0].reason).toMatch(/^the emulator could not build the message: cannot read/);
    expect(rows[0].reason).not.toContain("abcd-secret-77");
  });

  it("a deleted notifier, or one with no channel, fails naming why", async () => {
    const n = new Notifications();
    const rows = await n.dispatch(
      openEvent,
      [
        { id: "notify_gone", missing: true },
        { id: "notify_empty", name: "empty", properties: {} },
      ],
      NOW_MS,
    );
    expect(rows.map((r) => [r.notifierId, r.outcome, r.reason])).toEqual([
      ["notify_gone", "failed", "notifier notify_gone does not exist (deleted after the monitor named it)"],
      ["notify_empty", "failed", expect.stringMatching(/^notifier has no channel configured/)],
    ]);
  });
});

describe("masking: no secret in the outbox, a log line or a reason", () => {
  it("searches the outbox JSON and every log line for each secret", async () => {
    const secrets = {
      slackPath: "slacksecret99",
      teamsPath: "teamssecret77",
      discordToken: "discordsecret55",
      customQuery: "query-secret-123",
      secretHeader: "header-secret-456",
      routingKey: "routing-key-secret-0123456789",
      pagerDutyToken: "pd-api-token-secret-1",
      genieKey: "genie-key-secret-42",
      botToken: "bot-token-secret-33",
    };
    const lines: string[] = [];
    const seen: string[] = [];
    // The receiver echoes what it got, so a failure's reason would quote the secrets if they were not masked.
    receiver.status = 400;
    receiver.answer = (got) =>
      JSON.stringify({
        path: got.path,
        auth: got.headers.authorization,
        key: got.headers["x-key"],
        body: got.body,
      });
    const n = new Notifications({
      deliverTo: ["events.pagerduty.com", "api.opsgenie.com", "discord.com"],
      fetch: forwardingFetch(seen),
      logger: (l) => lines.push(l),
    });
    const notifiers = [
      notifier("n1", "slack", { slackUrl: `${receiver.base}/services/T1/B2/${secrets.slackPath}` }),
      notifier("n2", "microsoftTeams", {
        microsoftTeamsUrl: `${receiver.base}/webhookb2/${secrets.teamsPath}`,
      }),
      notifier("n3", "discordWebhook", {
        discordWebhookUrl: `${receiver.base}/api/webhooks/1/${secrets.discordToken}`,
      }),
      notifier("n4", "customWebhook", {
        url: `${receiver.base}/h?token=${secrets.customQuery}`,
        body: '{"t": "{{.Title}}"}',
        secretHeaders: { Authorization: `Bearer ${secrets.secretHeader}` },
      }),
      notifier("n5", "pagerduty", { routingKey: secrets.routingKey, token: secrets.pagerDutyToken }),
      notifier("n6", "opsgenie", { apiKey: secrets.genieKey }),
      notifier("n7", "discord", { discordChannel: "42", discordToken: secrets.botToken }),
      notifier("n8", "slack", { slackUrl: `https://hooks.slack.com/services/T1/B2/${secrets.slackPath}` }),
      notifier("n9", "customWebhook", {
        url: `${receiver.base}/h?token=${secrets.customQuery}`,
        body: "{{ nope }}",
        secretHeaders: { "X-Key": secrets.secretHeader },
      }),
    ];
    await n.dispatch(openEvent, notifiers, NOW_MS);
    await n.dispatch(closedEvent, notifiers, NOW_MS);
    // Everything was attempted: 7 sends a dispatch reached the receiver (the held Slack and the bad template not).
    expect(receiver.received).toHaveLength(14);
    expect(receiver.received.some((r) => r.body.includes(secrets.routingKey))).toBe(true);
    const outbox = JSON.stringify(n.entries());
    expect(outbox).toContain("***");
    expect(n.entries().filter((e) => e.outcome === "failed" && e.status === 400)).toHaveLength(14);
    for (const [name, secret] of Object.entries(secrets)) {
      expect({ name, inOutbox: outbox.includes(secret) }).toEqual({ name, inOutbox: false });
      expect({ name, inLogs: lines.some((l) => l.includes(secret)) }).toEqual({ name, inLogs: false });
    }
    expect(lines).toHaveLength(18);
  });
});

describe("GET /_emulator/notifications", () => {
  it("answers the outbox, filtered by monitorId, notifierId, channel, action and outcome; refuses unknown filters", async () => {
    const n = new Notifications();
    await n.dispatch(
      openEvent,
      [
        notifier("notify_a", "webhook", { url: `${receiver.base}/a` }),
        notifier("notify_b", "email", { emails: ["x@example.com"] }),
      ],
      NOW_MS,
    );
    await n.dispatch(
      { ...closedEvent, monitor: { ...closedEvent.monitor, id: "mon_other" } },
      [notifier("notify_a", "webhook", { url: `${receiver.base}/a` })],
      NOW_MS,
    );
    const router = new Router<RouteAccess>();
    registerNotificationsRoute(router, n, { kind: "open" });
    const match = router.match("GET", NOTIFICATIONS_PATH);
    if (match.kind !== "found") throw new Error("route not registered");
    const get = async (query: Record<string, string | string[]>) =>
      match.handler({
        req: {} as IncomingMessage,
        params: {},
        query,
        body: Buffer.alloc(0),
      } as RequestContext);

    const all = await get({});
    expect(all.status).toBe(200);
    expect((all.body as OutboxEntry[]).map((e) => [e.monitorId, e.notifierId, e.action, e.outcome])).toEqual([
      ["mon_errors", "notify_a", "Open", "delivered"],
      ["mon_errors", "notify_b", "Open", "recorded"],
      ["mon_other", "notify_a", "Closed", "delivered"],
    ]);
    expect(((await get({ monitorId: "mon_other" })).body as OutboxEntry[]).map((e) => e.id)).toEqual([
      "out_3",
    ]);
    expect(
      ((await get({ notifierId: "notify_a", action: "Open" })).body as OutboxEntry[]).map((e) => e.id),
    ).toEqual(["out_1"]);
    expect(((await get({ outcome: "recorded" })).body as OutboxEntry[]).map((e) => e.channel)).toEqual([
      "email",
    ]);
    await expect(get({ monitor: "x" })).rejects.toThrow(
      'unknown query parameter "monitor": the filters are monitorId, notifierId, channel, action, outcome',
    );
    await expect(get({ monitorId: ["a", "b"] })).rejects.toThrow(
      "query parameter monitorId given more than once",
    );
  });
});

describe("through a running emulator on a manual clock", () => {
  it("a grouped threshold monitor's Open and Closed reach the receiver; PagerDuty's are held; the route and the log show them masked", async () => {
    const lines: string[] = [];
    const em = await startManual({ logger: (l) => lines.push(l) });
    try {
      const secrets = ["tok-in-query-0001", "hdr-secret-0002", "slackpath-0003", "pd-routing-0004"];
      const create = async (name: string, properties: Record<string, unknown>) => {
        const res = await api(em, "POST", "/v2/notifiers", { name, properties });
        expect(res.status).toBe(200);
        return res.body.id as string;
      };
      const custom = await create("custom", {
        customWebhook: {
          url: `${receiver.base}/custom?token=${secrets[0]}`,
          body: '{"title": "{{.Title}}", "action": "{{.Action}}", "group": {{jsonArray .GroupValues}}, "value": {{.Value}}}',
          secretHeaders: { "X-Secret": secrets[1] },
        },
      });
      const slack = await create("slack", {
        slack: { slackUrl: `${receiver.base}/services/T1/B1/${secrets[2]}` },
      });
      const pd = await create("pd", { pagerduty: { routingKey: secrets[3] } });
      await ingest(em, eventsAt(0, 3, { service: "checkout" }));
      const m = await createMonitor(em, {
        name: "5xx by service",
        aplQuery: "['logs'] | summarize count() by service",
        threshold: 2,
        notifyByGroup: true,
        notifierIds: [custom, slack, pd],
      });
      await em.clock.advance("2m");

      // Minute 1 opens the checkout group; minute 2 sees no events, so the group disappears and closes at 0.
      const customBodies = receiver.received
        .filter((r) => r.path.startsWith("/custom"))
        .map((r) => JSON.parse(r.body));
      expect(customBodies).toEqual([
        { title: "5xx by service", action: "Open", group: ["checkout"], value: 3 },
        { title: "5xx by service", action: "Closed", group: ["checkout"], value: 0 },
      ]);
      expect(
        receiver.received.filter((r) => r.path.startsWith("/custom")).map((r) => r.headers["x-secret"]),
      ).toEqual([secrets[1], secrets[1]]);
      expect(
        receiver.received.filter((r) => r.path.startsWith("/services")).map((r) => JSON.parse(r.body).text),
      ).toEqual([
        expect.stringMatching(/^\[Open\] 5xx by service \(service=checkout\): /),
        expect.stringMatching(/^\[Closed\] 5xx by service \(service=checkout\): /),
      ]);

      const res = await api(em, "GET", `/_emulator/notifications?monitorId=${m.id}&notifierId=${pd}`);
      expect(res.status).toBe(200);
      const held = res.body as OutboxEntry[];
      expect(held.map((e) => [e.action, e.outcome, e.targetHost, e.reason])).toEqual([
        [
          "Open",
          "held",
          "events.pagerduty.com",
          "events.pagerduty.com is not a loopback address and not in --deliver-to",
        ],
        [
          "Closed",
          "held",
          "events.pagerduty.com",
          "events.pagerduty.com is not a loopback address and not in --deliver-to",
        ],
      ]);
      const [trigger, resolve] = held.map((e) => e.body as Record<string, unknown>);
      expect([trigger.event_action, resolve.event_action]).toEqual(["trigger", "resolve"]);
      expect(trigger.dedup_key).toBe(`${m.id}/checkout`);
      expect(resolve.dedup_key).toBe(trigger.dedup_key);

      const all = await api(em, "GET", "/_emulator/notifications");
      expect((all.body as OutboxEntry[]).map((e) => e.outcome)).toEqual([
        "delivered",
        "delivered",
        "held",
        "delivered",
        "delivered",
        "held",
      ]);
      const notificationLines = lines.filter((l) => l.startsWith("notification "));
      expect(notificationLines).toHaveLength(6);
      for (const secret of secrets) {
        expect({ secret, inRoute: all.text.includes(secret) }).toEqual({ secret, inRoute: false });
        expect({ secret, inLog: lines.some((l) => l.includes(secret)) }).toEqual({ secret, inLog: false });
      }
    } finally {
      await em.close();
    }
  });
});

describe("how a webhook URL is shown", () => {
  it.each([
    ["Slack", "https://hooks.slack.com/services/T000/B000/XXXXXXXX", "https://hooks.slack.com/services/***"],
    [
      "Teams",
      "https://acme.webhook.office.com/webhookb2/abc@def/IncomingWebhook/123/456",
      "https://acme.webhook.office.com/webhookb2/***",
    ],
    ["Discord", "https://discord.com/api/webhooks/123/tokenpart", "https://discord.com/api/***"],
    ["a query", "https://hooks.example.com/h?sig=abc", "https://hooks.example.com/h/***"],
    // The username is no secret: only the password is.
    ["user info", "https://user:pass@hooks.example.com/", "https://user:***@hooks.example.com"],
    ["a port", "http://127.0.0.1:8080/a/b", "http://127.0.0.1:8080/a/***"],
    ["no path", "https://hooks.example.com", "https://hooks.example.com"],
    ["text that is no URL", "not a url", "***"],
  ])("%s", (_name, url, shown) => {
    expect(maskUrl(url)).toBe(shown);
  });
});

describe("the outbox's size", () => {
  it(`keeps the newest ${OUTBOX_LIMIT} rows, so a long run holds its memory flat`, async () => {
    const n = new Notifications();
    const mail = notifier("notify_mail", "email", { emails: ["a@example.com"] });
    for (let i = 0; i < OUTBOX_LIMIT + 5; i++) await n.dispatch(openEvent, [mail], NOW_MS + i);
    const rows = n.entries();
    expect(rows).toHaveLength(OUTBOX_LIMIT);
    expect(rows[0].id).toBe("out_6");
    expect(rows[rows.length - 1].id).toBe(`out_${OUTBOX_LIMIT + 5}`);
  });
});
