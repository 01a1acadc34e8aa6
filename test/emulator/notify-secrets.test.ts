/**
 * No notifier secret where it should not be (issue 50): not in the outbox (GET /_emulator/notifications), a
 * failure's reason, the monitor history, or the emulator's output. Every secret field of every channel (the
 * provider's SECRET_CHANNEL_FIELDS) is tried with values holding `"`, `\`, a newline, a tab and non-ASCII
 * characters, sent to a receiver that echoes the request back in its error answer (as JSON, as raw text, and
 * decoded and trimmed), so a failure's reason quotes whatever spelling of the secret the receiver saw. Each value
 * holds a marker no other text holds: any spelling of the secret, or any piece of it long enough to matter,
 * carries the marker, so "the marker is nowhere" is the check. Then: only the secret fields are masked (hosts
 * and usernames are shown), and the built emulator's stdout and stderr through a whole monitor run.
 */
import { spawn } from "node:child_process";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { Notifications, type AlertEvent, type OutboxEntry } from "../../emulator/alerting/notify";
import { MASK, Masker, maskUrl } from "../../emulator/alerting/notify/mask";
import { SECRET_CHANNEL_FIELDS } from "../../provider/schemas/notifier";

/** How the receiver quotes the request in its 500 answer. */
type EchoMode = "json" | "raw" | "decoded" | "latin1";

/** A local receiver answering 500 with an echo of the request: its URL, its non-standard headers, its body. */
class EchoReceiver {
  readonly received: { url: string; headers: IncomingMessage["headers"]; body: string }[] = [];
  mode: EchoMode = "json";
  /** An answer of the test's own, in place of the echo. */
  answer?: (got: { headers: IncomingMessage["headers"] }) => string;
  private server!: Server;
  base = "";
  host = "";

  async start(hostname = "127.0.0.1"): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8");
        const got = { url: req.url ?? "", headers: req.headers, body };
        this.received.push(got);
        res.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
        res.end(this.answer ? this.answer(got) : `echo: ${echo(got, this.mode)}`);
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    const port = (this.server.address() as AddressInfo).port;
    this.host = `${hostname}:${port}`;
    this.base = `http://${this.host}`;
  }

  stop(): Promise<void> {
    return new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** The headers a client adds on its own, left out of the echo so the secret-bearing ones come first. */
const PLAIN_HEADERS = new Set(["connection", "content-length", "content-type", "accept", "accept-encoding"]);

/** The request as the receiver quotes it: the URL first, then the headers that matter, then the body. */
function echo(
  got: { url: string; headers: IncomingMessage["headers"]; body: string },
  mode: EchoMode,
): string {
  const headers = Object.fromEntries(
    Object.entries(got.headers).filter(([k]) => !PLAIN_HEADERS.has(k) && !k.startsWith("sec-")),
  ) as Record<string, string>;
  if (mode === "json") return JSON.stringify({ url: got.url, headers, body: got.body });
  // Latin-1: the body's UTF-8 bytes read as Latin-1, as a server that assumes it does (é reads Ã©).
  if (mode === "latin1")
    return `${got.url} ${Object.values(headers).join(" ")} ${Buffer.from(got.body, "utf8").toString("latin1")}`;
  if (mode === "raw")
    return `${got.url} ${Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}`)
      .join(" ")} ${got.body}`;
  // Decoded: the URL's escapes undone, the body's JSON read and each string quoted trimmed, as a receiver that
  // logs the values it parsed would; the headers' bytes read as UTF-8, as most servers outside Node read them (a
  // client sends a header's é as one byte, which UTF-8 reads as U+FFFD).
  let body = got.body;
  try {
    body = leaves(JSON.parse(got.body))
      .map((s) => s.trim())
      .join(" ");
  } catch {
    /* not JSON: quoted as it came */
  }
  let url = got.url;
  try {
    url = decodeURIComponent(url);
  } catch {
    /* not decodable: as it came */
  }
  return `${url} ${Object.values(headers)
    .map((v) => Buffer.from(v, "latin1").toString("utf8").trim())
    .join(" ")} ${body}`;
}

function leaves(v: unknown): string[] {
  if (typeof v === "string") return [v];
  if (Array.isArray(v)) return v.flatMap(leaves);
  if (v && typeof v === "object") return Object.values(v).flatMap(leaves);
  return [];
}

const NOW_MS = Date.parse("2026-11-28T12:00:00Z");
const NS = (iso: string) => BigInt(Date.parse(iso)) * 1_000_000n;
const openEvent: AlertEvent = {
  time: NS("2026-11-28T12:00:00Z"),
  monitor: { id: "mon_errors", name: "Error rate", type: "Threshold" },
  action: "Open",
  value: 42,
  threshold: 10,
  operator: "Above",
  queryStartTime: NS("2026-11-28T11:59:00Z"),
  queryEndTime: NS("2026-11-28T12:00:00Z"),
  groupKeys: null,
  groupValues: null,
  matchedEvent: null,
  body: "Current value of 42 is above the threshold value of 10",
};
const closedEvent: AlertEvent = { ...openEvent, action: "Closed", value: 3, body: "back to normal" };

/**
 * The awkward values: each wraps `m`, the marker, in the characters that JSON escapes, a URL encodes or strips,
 * and a receiver trims. A newline at the end is how a key read from a file arrives.
 */
const VALUES: [string, (m: string) => string][] = [
  ["a trailing newline", (m) => `${m}-from-a-file\n`],
  ['a double quote (")', (m) => `q"${m}"q`],
  ["a backslash (\\)", (m) => `b\\${m}\\b`],
  ["a tab", (m) => `t\t${m}\tt`],
  ["non-ASCII characters", (m) => `é${m}✓ü`],
  ["Latin-1 characters (a header can carry them)", (m) => `ü${m}ñé`],
  // No character at all: JSON escapes it, UTF-8 and a URL write U+FFFD, and encodeURIComponent throws.
  ["lone surrogates", (m) => `\ud800${m}\udfff`],
  ["all of them, and a trailing space", (m) => `"\\${m}\té✓\n `],
];

/** Every secret field of every channel: how a notifier holds the secret `s`, and where it goes. */
interface SecretField {
  channel: string;
  field: string;
  /** `properties[channel]` holding `s`, for a receiver at `base`. */
  config: (s: string, base: string) => Record<string, unknown>;
  /** A vendor's fixed host: reached through the fetch seam, which forwards to the receiver. */
  vendor?: string;
}

const FIELDS: SecretField[] = [
  {
    channel: "slack",
    field: "slackUrl",
    config: (s, base) => ({ slackUrl: `${base}/services/T1/B1/${s}` }),
  },
  {
    channel: "microsoftTeams",
    field: "microsoftTeamsUrl",
    config: (s, base) => ({ microsoftTeamsUrl: `${base}/webhookb2/${s}/IncomingWebhook/1/2` }),
  },
  {
    channel: "discordWebhook",
    field: "discordWebhookUrl",
    config: (s, base) => ({ discordWebhookUrl: `${base}/api/webhooks/1/${s}` }),
  },
  // A URL whose one path segment is the secret: nothing of the path may be shown.
  { channel: "webhook", field: "url", config: (s, base) => ({ url: `${base}/${s}` }) },
  { channel: "webhook", field: "url (its query)", config: (s, base) => ({ url: `${base}/hook?token=${s}` }) },
  {
    channel: "customWebhook",
    field: "url",
    config: (s, base) => ({ url: `${base}/hook/${s}?sig=${s}`, body: "" }),
  },
  {
    channel: "customWebhook",
    field: "secretHeaders",
    config: (s, base) => ({ url: `${base}/hook`, body: "", secretHeaders: { "X-Bars-Secret": s } }),
  },
  {
    channel: "customWebhook",
    field: "headers (a credential's name)",
    config: (s, base) => ({ url: `${base}/hook`, body: "", headers: { "X-Api-Key": s } }),
  },
  {
    channel: "pagerduty",
    field: "routingKey",
    config: (s) => ({ routingKey: s }),
    vendor: "events.pagerduty.com",
  },
  {
    channel: "pagerduty",
    field: "token",
    config: (s) => ({ routingKey: "rk-plain-0001", token: s }),
    vendor: "events.pagerduty.com",
  },
  { channel: "opsgenie", field: "apiKey", config: (s) => ({ apiKey: s }), vendor: "api.opsgenie.com" },
  {
    channel: "discord",
    field: "discordToken",
    config: (s) => ({ discordChannel: "4242", discordToken: s }),
    vendor: "discord.com",
  },
];

it("the table covers every secret field the provider declares", () => {
  const covered = new Set(FIELDS.map((f) => `${f.channel}.${f.field.split(" ")[0]}`));
  const declared = Object.entries(SECRET_CHANNEL_FIELDS).flatMap(([channel, fields]) =>
    fields.map((f) => `${channel}.${f}`),
  );
  expect(declared.filter((d) => !covered.has(d))).toEqual([]);
});

let receiver: EchoReceiver;
beforeEach(async () => {
  receiver = new EchoReceiver();
  await receiver.start();
});
afterEach(() => receiver.stop());

/** A fetch seam sending a vendor's request to the receiver instead. */
function forwardingFetch(url: string, init: RequestInit): Promise<Response> {
  const u = new URL(url);
  return fetch(`${receiver.base}${u.pathname}${u.search}`, init);
}

/** The rows (and log lines) a notifier makes for an Open then a Closed, with the receiver echoing in `mode`. */
async function sendBoth(
  field: SecretField,
  secret: string,
  mode: EchoMode,
): Promise<{ rows: OutboxEntry[]; lines: string[] }> {
  receiver.mode = mode;
  const lines: string[] = [];
  const n = new Notifications({
    logger: (l) => lines.push(l),
    ...(field.vendor ? { deliverTo: [field.vendor], fetch: forwardingFetch } : {}),
  });
  const stored = {
    id: "notify_1",
    name: `${field.channel} notifier`,
    properties: { [field.channel]: field.config(secret, receiver.base) },
    disabledUntil: null,
  };
  await n.dispatch(openEvent, [stored], NOW_MS);
  await n.dispatch(closedEvent, [stored], NOW_MS);
  return { rows: [...n.entries()], lines };
}

const ROWS = FIELDS.flatMap((field) =>
  VALUES.map(
    ([what, make], i) => [`${field.channel}.${field.field} holding ${what}`, field, make, i] as const,
  ),
);

describe.each(ROWS)("%s", (_name, field, make, i) => {
  // Letters and digits: no encoding changes the marker, so every spelling of the secret holds it.
  const marker = `QZXMARK${String.fromCharCode(65 + i)}${field.channel.length}${field.field.length}`;
  const secret = make(marker);

  it.each<EchoMode>(["json", "raw", "decoded", "latin1"])(
    "echoed %s: not in the outbox, a reason or a log line",
    async (mode) => {
      const { rows, lines } = await sendBoth(field, secret, mode);
      expect(rows).toHaveLength(2);
      const reached = receiver.received.filter((r) => JSON.stringify(r).includes(marker));
      for (const row of rows) {
        expect(row.outcome).toBe("failed");
        // A request the client refused to make (a header value no header may hold) fails without a status.
        if (row.status !== undefined) {
          expect(row.status).toBe(500);
          expect(row.reason).toMatch(/^the receiver answered 500: echo: /);
        }
      }
      if (field.field !== "token") {
        // The secret went out (or could not) in every send: the echo had something to leak.
        if (reached.length > 0) {
          expect(reached).toHaveLength(2);
          for (const row of rows) expect(row.reason).toContain(MASK);
        } else expect(rows.map((r) => r.status)).toEqual([undefined, undefined]);
      }
      const outbox = JSON.stringify(rows);
      expect({ where: "outbox", leaks: outbox.includes(marker) }).toEqual({ where: "outbox", leaks: false });
      expect({ where: "log", leaks: lines.join("\n").includes(marker) }).toEqual({
        where: "log",
        leaks: false,
      });
      expect(lines).toHaveLength(2);
    },
  );
});

describe("a vendor's body holds the secret as a field: masked in the value, before JSON is written", () => {
  it.each(VALUES)("PagerDuty's routing_key holding %s is *** in the outbox's body", async (_what, make) => {
    const lines: string[] = [];
    // Held (not allowed): the outbox shows what would have gone.
    const n = new Notifications({ logger: (l) => lines.push(l) });
    const key = make("QZXROUTING");
    const [row] = await n.dispatch(
      openEvent,
      [{ id: "n", name: "pd", properties: { pagerduty: { routingKey: key } }, disabledUntil: null }],
      NOW_MS,
    );
    expect(row.outcome).toBe("held");
    expect((row.body as Record<string, unknown>).routing_key).toBe(MASK);
    expect(JSON.stringify(row)).not.toContain("QZXROUTING");
    expect(lines.join("\n")).not.toContain("QZXROUTING");
  });

  it.each(VALUES)(
    "Opsgenie's and Discord's Authorization holding %s shows its scheme and ***",
    async (_what, make) => {
      const n = new Notifications();
      const rows = await n.dispatch(
        openEvent,
        [
          {
            id: "og",
            name: "og",
            properties: { opsgenie: { apiKey: make("QZXGENIE") } },
            disabledUntil: null,
          },
          {
            id: "db",
            name: "db",
            properties: { discord: { discordChannel: "1", discordToken: make("QZXBOT") } },
            disabledUntil: null,
          },
        ],
        NOW_MS,
      );
      expect(rows.map((r) => r.request?.headers.Authorization)).toEqual([`GenieKey ${MASK}`, `Bot ${MASK}`]);
      expect(JSON.stringify(rows)).not.toMatch(/QZXGENIE|QZXBOT/);
    },
  );
});

describe("every spelling of a secret in free text is masked whole", () => {
  // A secret holding what each spelling changes; each row is the secret as that writer writes it, given literally.
  const secret = "k</\"\\é✓&'\tQZX\n";
  it.each([
    ["as it is", "k</\"\\é✓&'\tQZX\n"],
    ["trimmed, as a receiver trims a value", "k</\"\\é✓&'\tQZX"],
    ["JSON, as JavaScript writes it", String.raw`k</\"\\é✓&'\tQZX\n`],
    ["JSON, as Go's encoding/json writes it", String.raw`k\u003c/\"\\é✓\u0026'\tQZX\n`],
    ["JSON, as Python's json.dumps writes it (ASCII only)", String.raw`k</\"\\\u00e9\u2713&'\tQZX\n`],
    ["JSON, with upper-case hex digits", String.raw`k</\"\\\u00E9\u2713&'\tQZX\n`],
    ["JSON, as PHP's json_encode writes it (/ escaped)", String.raw`k<\/\"\\\u00e9\u2713&'\tQZX\n`],
    ["JSON, escaped twice (a JSON body quoted in JSON)", String.raw`k</\\\"\\\\é✓&'\\tQZX\\n`],
    ["JSON of the trimmed value", String.raw`k</\"\\é✓&'\tQZX`],
    ["percent-encoded, as encodeURIComponent writes it", "k%3C%2F%22%5C%C3%A9%E2%9C%93%26'%09QZX%0A"],
    ["percent-encoded, lower-case hex digits", "k%3c%2f%22%5c%c3%a9%e2%9c%93%26'%09QZX%0a"],
    ["percent-encoded, as a URL's path writes it", "k%3C/%22%5C%C3%A9%E2%9C%93&'%09QZX%0A"],
    ["form-encoded", "k%3C%2F%22%5C%C3%A9%E2%9C%93%26%27%09QZX%0A"],
    ["HTML-escaped", "k&lt;/&#34;\\é✓&amp;&#39;\tQZX\n"],
    ["HTML-escaped, &quot;", "k&lt;/&quot;\\é✓&amp;&#39;\tQZX\n"],
    ["its é sent as a header's Latin-1 byte, read as UTF-8", "k</\"\\\ufffd✓&'\tQZX\n"],
    ["its UTF-8 read as Latin-1", "k</\"\\Ã©â\u009c\u0093&'\tQZX\n"],
  ])("%s", (_name, spelled) => {
    expect(new Masker([secret]).text(`before ${spelled} after`)).toBe(`before ${MASK} after`);
  });

  it("a secret that is only whitespace masks nothing, and text without a secret is left as it is", () => {
    expect(new Masker([" \n", secret]).text("a b\nc QZX")).toBe("a b\nc QZX");
  });
});

describe("a reason quotes the receiver's answer masked first, then cut", () => {
  /** A custom webhook sending `secret` in a secret header, to the receiver answering as `answer` says. */
  async function failWith(secret: string, answer: (secret: string) => string): Promise<OutboxEntry> {
    receiver.answer = (got) => answer(String(got.headers["x-bars-secret"]));
    const n = new Notifications();
    const [row] = await n.dispatch(
      openEvent,
      [
        {
          id: "n",
          name: "hook",
          properties: {
            customWebhook: {
              url: `${receiver.base}/hook`,
              body: "",
              secretHeaders: { "X-Bars-Secret": secret },
            },
          },
          disabledUntil: null,
        },
      ],
      NOW_MS,
    );
    expect(receiver.received[0].headers["x-bars-secret"]).toBe(secret);
    expect(row.status).toBe(500);
    return row;
  }

  it("a secret the 200-character excerpt would cut in two is masked whole", async () => {
    // The excerpt's end falls 10 characters into the secret.
    const row = await failWith(`QZXCUT${"k".repeat(40)}`, (secret) => `${"x".repeat(190)}${secret}`);
    expect(row.reason).toBe(`the receiver answered 500: ${"x".repeat(190)}${MASK}`);
  });

  it("an answer longer than what is read ends in a piece of a secret: the piece is masked too", async () => {
    // 100 copies of a 1,009-character secret: reading stops after the first chunks (a few KiB), inside a copy,
    // and the masked copies before it are short enough for the piece to fall within the excerpt.
    const row = await failWith(`QZXPIECE${"k".repeat(1001)}`, (secret) => secret.repeat(100));
    expect(row.reason).toContain(MASK);
    expect(row.reason).not.toMatch(/QZX|k/);
  });

  it("an answer read only in part ends with a piece of a secret: the piece is masked too", () => {
    const secret = "QZXPARTIAL-0123456789";
    const masker = new Masker([secret]);
    expect(masker.text(`a ${secret} b ${secret.slice(0, 9)}`, { cut: true })).toBe(`a ${MASK} b ${MASK}`);
    // Not cut: a text that merely ends like a secret begins is left alone.
    expect(masker.text(`a ${secret.slice(0, 9)}`)).toBe(`a ${secret.slice(0, 9)}`);
  });
});

describe("only the secret fields are masked: not hosts, not usernames, not another notifier's text", () => {
  it("a URL's host, username and first segment stay; its password and secret path go; other rows are untouched", async () => {
    const local = new EchoReceiver();
    await local.start("localhost");
    try {
      local.mode = "json";
      const n = new Notifications();
      // The path holds the host's own name after its first segment, and the URL a username of six characters and
      // a password: before, each joined a list every later row was masked with, so hosts read "***:port".
      const a = {
        id: "a",
        name: "a",
        properties: {
          webhook: { url: `http://alertuser:pw-QZXPASS@${local.host}/hooks/localhost/QZXPATH99` },
        },
        disabledUntil: null,
      };
      const b = {
        id: "b",
        name: "b",
        properties: { webhook: { url: `${local.base}/` } },
        disabledUntil: null,
      };
      await n.dispatch(openEvent, [a], NOW_MS);
      const event = { ...openEvent, monitor: { ...openEvent.monitor, name: "alertuser's checks" } };
      const [rowB] = await n.dispatch(event, [b], NOW_MS);
      const [rowA] = n.entries();
      expect(rowA.request?.url).toBe(`http://alertuser:${MASK}@${local.host}/hooks/${MASK}`);
      expect(rowA.reason).toContain(`"host":"${local.host}"`);
      expect(JSON.stringify(rowA)).not.toMatch(/QZXPASS|QZXPATH/);
      expect(rowB.targetHost).toBe(local.host);
      expect(rowB.reason).toContain(`"host":"${local.host}"`);
      expect((rowB.body as { event: { title: string } }).event.title).toBe("alertuser's checks");
      expect(JSON.stringify(rowB)).not.toContain(MASK);
    } finally {
      await local.stop();
    }
  });

  it("email has no secret field: its addresses are shown", async () => {
    const n = new Notifications();
    const [row] = await n.dispatch(
      openEvent,
      [
        {
          id: "m",
          name: "m",
          properties: { email: { emails: ["oncall@example.com"] } },
          disabledUntil: null,
        },
      ],
      NOW_MS,
    );
    expect(row.reason).toBe("email is recorded, never sent: to oncall@example.com");
    expect(JSON.stringify(row)).not.toContain(MASK);
  });

  it.each([
    [
      "a token as the username (no password)",
      "https://QZXTOKEN@hooks.example.com/",
      "https://***@hooks.example.com",
    ],
    [
      "a username and a password",
      "https://alice:QZXPW@hooks.example.com/",
      "https://alice:***@hooks.example.com",
    ],
    ["one path segment", "https://hooks.example.com/QZXSEGMENT", "https://hooks.example.com/***"],
    [
      "one path segment and a query",
      "https://hooks.example.com/h?sig=QZXSIG",
      "https://hooks.example.com/h/***",
    ],
  ])("a URL shown: %s", (_name, url, shown) => {
    expect(maskUrl(url)).toBe(shown);
  });
});

describe("the built emulator: its stdout and stderr, the outbox route and the monitor history", () => {
  /** Starts `observability emulator` (the built bin) and resolves once its banner names its URL. */
  function startBin(
    args: string[],
  ): Promise<{ url: string; output: () => string; stop: () => Promise<void> }> {
    const root = join(__dirname, "..", "..");
    const child = spawn(
      join(root, "node_modules", ".bin", "node"),
      [join(root, "dist", "cli", "index.js"), ...args],
      {
        cwd: root,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let out = "";
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    return new Promise((resolve, reject) => {
      child.stdout.setEncoding("utf8").on("data", (d: string) => {
        out += d;
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m && out.includes("Press Ctrl-C"))
          resolve({
            url: m[1],
            output: () => out,
            stop: () => {
              child.kill("SIGTERM");
              return exited;
            },
          });
      });
      // Both streams into one text: a secret in either fails the test.
      child.stderr.setEncoding("utf8").on("data", (d: string) => (out += d));
      child.once("exit", (code) =>
        reject(new Error(`the emulator exited (${code}) before listening: ${out}`)),
      );
    });
  }

  it("every channel's secret, holding every awkward character, is in none of them after a monitor opens and closes", async () => {
    const bin = await startBin([
      "emulator",
      "--port",
      "0",
      "--clock",
      "manual",
      "--now",
      "2026-02-03T04:00:00Z",
      "--dataset",
      "logs",
    ]);
    try {
      const call = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(`${bin.url}${path}`, {
          method,
          headers: {
            authorization: "Bearer xaat-local-development-token",
            "content-type": "application/json",
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await res.text();
        expect({ path, status: res.status, text }).toMatchObject({ path, status: 200 });
        return { text, json: JSON.parse(text) as unknown };
      };
      const [, make] = VALUES[VALUES.length - 1];
      const markers = FIELDS.map((_f, i) => `QZXBIN${String.fromCharCode(65 + i)}MARK`);
      const ids: string[] = [];
      for (const [i, field] of FIELDS.entries()) {
        const created = await call("POST", "/v2/notifiers", {
          name: `${field.channel} ${i}`,
          properties: { [field.channel]: field.config(make(markers[i]), receiver.base) },
        });
        ids.push((created.json as { id: string }).id);
      }
      await call("POST", "/v1/datasets/logs/ingest", [
        { _time: "2026-02-03T04:00:30Z", service: "checkout" },
      ]);
      const monitor = await call("POST", "/v2/monitors", {
        name: "errors",
        type: "Threshold",
        aplQuery: "['logs'] | summarize count()",
        operator: "Above",
        threshold: 0,
        intervalMinutes: 1,
        rangeMinutes: 1,
        notifierIds: ids,
      });
      const monitorId = (monitor.json as { id: string }).id;
      // Minute 1 sees the event and opens; minute 2 sees none and closes.
      await call("POST", "/_emulator/clock", { advance: "2m" });

      const outbox = await call("GET", "/_emulator/notifications");
      const history = await call(
        "GET",
        `/v2/monitors/${monitorId}/history?startTime=2000-01-01T00:00:00Z&endTime=2100-01-01T00:00:00Z`,
      );
      const rows = outbox.json as OutboxEntry[];
      expect(rows).toHaveLength(2 * FIELDS.length);
      expect(history.json).toHaveLength(2);
      // The loopback channels reached the echoing receiver; the vendors' were held.
      expect(new Set(rows.map((r) => `${r.channel} ${r.outcome} ${r.status ?? ""}`))).toEqual(
        new Set([
          "slack failed 500",
          "microsoftTeams failed 500",
          "discordWebhook failed 500",
          "webhook failed 500",
          "customWebhook failed 500",
          // A header value holding a newline is one no client sends.
          "customWebhook failed ",
          "pagerduty held ",
          "opsgenie held ",
          "discord held ",
        ]),
      );
      expect(receiver.received.some((r) => JSON.stringify(r).includes("QZXBIN"))).toBe(true);
      await bin.stop();
      const output = bin.output();
      expect(output.match(/^notification (failed|held)/gm)).toHaveLength(2 * FIELDS.length);
      for (const marker of markers)
        for (const [where, text] of [
          ["stdout and stderr", output],
          ["GET /_emulator/notifications", outbox.text],
          ["the monitor history", history.text],
        ])
          expect({ marker, where, leaks: text.includes(marker) }).toEqual({ marker, where, leaks: false });
    } finally {
      await bin.stop();
    }
  });
});
