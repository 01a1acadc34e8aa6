/** Every field rule of the service's API reference (axiom.co/docs/restapi) and its OpenAPI v2 document, one row per rule, against a real emulator. */
import { api, useEmulator } from "../helpers/emulator";

const em = useEmulator();

const PATHS = {
  annotation: "/v2/annotations",
  monitor: "/v2/monitors",
  notifier: "/v2/notifiers",
  role: "/v2/rbac/roles",
  starred: "/v2/apl-starred-queries",
} as const;
type Family = keyof typeof PATHS;

const annotation = (o: object = {}) => ({ datasets: ["web"], type: "deploy", ...o });
const monitor = (o: object = {}) => ({
  name: "errors",
  aplQuery: "['web'] | count()",
  type: "MatchEvent",
  ...o,
});
const threshold = (o: object = {}) => monitor({ type: "Threshold", operator: "Above", threshold: 10, ...o });
const anomaly = (o: object = {}) =>
  monitor({ type: "AnomalyDetection", operator: "AboveOrBelow", compareDays: 3, tolerance: 25, ...o });
const notifier = (properties: object, o: object = {}) => ({ name: "oncall", properties, ...o });
const slack = { slack: { slackUrl: "https://hooks.slack.example/T000/B000/XXX" } };
let roleSeq = 0;
const role = (o: object = {}) => ({ name: `role-${++roleSeq}`, ...o });
const starred = (o: object = {}) => ({
  kind: "apl",
  name: "slow requests",
  who: "local-user",
  metadata: { owner: "sre" },
  query: { apl: "['web'] | where duration > 1000" },
  ...o,
});
const without = (obj: Record<string, unknown>, key: string) => {
  const copy = { ...obj };
  delete copy[key];
  return copy;
};
const s = (n: number, c = "a") => c.repeat(n);
/** The message names the field: `field: reason`, or `field[i]: reason` for a list item. */
const names = (field: string) => new RegExp(`(^|; )${field.replace(/[.[\]]/g, "\\$&")}(\\[\\d+\\])?: `);

/** [rule, family, body, the field the 422 message must name, or null when the body is valid]. A body field
 * missing or invalid answers 422, as the live service does (alchemy-run/distilled `packages/axiom/patches/v2/001-add-error-responses.patch.json`, live probes). */
type Row = [string, Family, unknown, string | null];

const rows: Row[] = [
  // Annotation
  ["annotation.datasets required", "annotation", without(annotation(), "datasets"), "datasets"],
  ["annotation.datasets at least 1 item", "annotation", annotation({ datasets: [] }), "datasets"],
  [
    "annotation.datasets items at least 1 character",
    "annotation",
    annotation({ datasets: [""] }),
    "datasets[0]",
  ],
  ["annotation.type required", "annotation", without(annotation(), "type"), "type"],
  ["annotation.type max length 256 (256 ok)", "annotation", annotation({ type: s(256) }), null],
  ["annotation.type max length 256 (257 fails)", "annotation", annotation({ type: s(257) }), "type"],
  ["annotation.type pattern ^[a-z0-9-]+$ (ok)", "annotation", annotation({ type: "deploy-2" }), null],
  [
    "annotation.type pattern ^[a-z0-9-]+$ (uppercase fails)",
    "annotation",
    annotation({ type: "Deploy" }),
    "type",
  ],
  [
    "annotation.type pattern ^[a-z0-9-]+$ (underscore fails)",
    "annotation",
    annotation({ type: "a_b" }),
    "type",
  ],
  ["annotation.title max length 256 (256 ok)", "annotation", annotation({ title: s(256) }), null],
  ["annotation.title max length 256 (257 fails)", "annotation", annotation({ title: s(257) }), "title"],
  ["annotation.description max length 512 (512 ok)", "annotation", annotation({ description: s(512) }), null],
  [
    "annotation.description max length 512 (513 fails)",
    "annotation",
    annotation({ description: s(513) }),
    "description",
  ],
  ["annotation.url max length 512 (512 ok)", "annotation", annotation({ url: s(512) }), null],
  ["annotation.url max length 512 (513 fails)", "annotation", annotation({ url: s(513) }), "url"],
  ["annotation.time is a date-time", "annotation", annotation({ time: "yesterday" }), "time"],
  ["annotation.endTime is a date-time", "annotation", annotation({ endTime: "soon" }), "endTime"],
  ["annotation.endTime may be null", "annotation", annotation({ endTime: null }), null],
  // Monitor
  ["monitor.name required", "monitor", without(monitor(), "name"), "name"],
  ["monitor.aplQuery required", "monitor", without(monitor(), "aplQuery"), "aplQuery"],
  ["monitor.type required", "monitor", without(monitor(), "type"), "type"],
  [
    "monitor.type is Threshold, MatchEvent or AnomalyDetection",
    "monitor",
    monitor({ type: "Sometimes" }),
    "type",
  ],
  ["monitor.operator is one of the five operators", "monitor", threshold({ operator: "Equal" }), "operator"],
  ["monitor.compareDays at most 7 (7 ok)", "monitor", anomaly({ compareDays: 7 }), null],
  ["monitor.compareDays at most 7 (8 fails)", "monitor", anomaly({ compareDays: 8 }), "compareDays"],
  ["monitor.intervalMinutes at least 1 (1 ok)", "monitor", monitor({ intervalMinutes: 1 }), null],
  [
    "monitor.intervalMinutes at least 1 (0 fails)",
    "monitor",
    monitor({ intervalMinutes: 0 }),
    "intervalMinutes",
  ],
  ["monitor.intervalMinutes is an integer", "monitor", monitor({ intervalMinutes: 1.5 }), "intervalMinutes"],
  ["monitor.rangeMinutes at least 1 (1 ok)", "monitor", monitor({ rangeMinutes: 1 }), null],
  ["monitor.rangeMinutes at least 1 (0 fails)", "monitor", monitor({ rangeMinutes: 0 }), "rangeMinutes"],
  ["monitor.secondDelay at most 86400 (86400 ok)", "monitor", monitor({ secondDelay: 86400 }), null],
  [
    "monitor.secondDelay at most 86400 (86401 fails)",
    "monitor",
    monitor({ secondDelay: 86401 }),
    "secondDelay",
  ],
  ["monitor.tolerance at most 100 (100 ok)", "monitor", anomaly({ tolerance: 100 }), null],
  ["monitor.tolerance at most 100 (100.5 fails)", "monitor", anomaly({ tolerance: 100.5 }), "tolerance"],
  ["monitor.disabledUntil is a date-time", "monitor", monitor({ disabledUntil: "later" }), "disabledUntil"],
  ["monitor.alertOnNoData is a boolean", "monitor", monitor({ alertOnNoData: "yes" }), "alertOnNoData"],
  ["monitor.notifierIds is a list", "monitor", monitor({ notifierIds: "notify_1" }), "notifierIds"],
  ["monitor Threshold needs operator", "monitor", without(threshold(), "operator"), "operator"],
  ["monitor Threshold needs threshold", "monitor", without(threshold(), "threshold"), "threshold"],
  ["monitor Threshold with operator and threshold is valid", "monitor", threshold(), null],
  ["monitor AnomalyDetection needs operator", "monitor", without(anomaly(), "operator"), "operator"],
  ["monitor AnomalyDetection needs compareDays", "monitor", without(anomaly(), "compareDays"), "compareDays"],
  ["monitor AnomalyDetection needs tolerance", "monitor", without(anomaly(), "tolerance"), "tolerance"],
  [
    "monitor AboveOrBelow only for AnomalyDetection",
    "monitor",
    threshold({ operator: "AboveOrBelow" }),
    "operator",
  ],
  [
    "monitor AboveOrBelow allowed for AnomalyDetection",
    "monitor",
    anomaly({ operator: "AboveOrBelow" }),
    null,
  ],
  // Notifier
  ["notifier.name required", "notifier", without(notifier(slack), "name"), "name"],
  ["notifier.properties required", "notifier", { name: "x" }, "properties"],
  ["notifier exactly one channel (none fails)", "notifier", notifier({}), "properties"],
  [
    "notifier exactly one channel (two fail)",
    "notifier",
    notifier({ ...slack, webhook: { url: "https://example.com/hook" } }),
    "properties",
  ],
  ["notifier exactly one channel (one ok)", "notifier", notifier(slack), null],
  [
    "notifier customWebhook needs url",
    "notifier",
    notifier({ customWebhook: { body: "{}" } }),
    "properties.customWebhook.url",
  ],
  [
    "notifier customWebhook needs body",
    "notifier",
    notifier({ customWebhook: { url: "https://example.com/hook" } }),
    "properties.customWebhook.body",
  ],
  [
    "notifier customWebhook.body parses as a Go template (an if without a value fails)",
    "notifier",
    notifier({ customWebhook: { url: "https://example.com/hook", body: '{"a": "{{if}}x{{end}}"}' } }),
    "properties.customWebhook.body",
  ],
  [
    "notifier customWebhook.body parses as a Go template (an unclosed action fails)",
    "notifier",
    notifier({ customWebhook: { url: "https://example.com/hook", body: '{"a": "{{.Title"}' } }),
    "properties.customWebhook.body",
  ],
  [
    "notifier customWebhook.body parses as a Go template (the docs' default template passes)",
    "notifier",
    notifier({
      customWebhook: {
        url: "https://example.com/hook",
        body: '{"action": "{{.Action}}", "matchedEvent": {{jsonObject .MatchedEvent}}, "status": "{{ if eq .Action "Open" }}firing{{ else }}resolved{{ end }}"}',
      },
    }),
    null,
  ],
  [
    "notifier slack.slackUrl is a URL",
    "notifier",
    notifier({ slack: { slackUrl: "nope" } }),
    "properties.slack.slackUrl",
  ],
  [
    "notifier webhook.url is a URL",
    "notifier",
    notifier({ webhook: { url: "ftp://x" } }),
    "properties.webhook.url",
  ],
  [
    "notifier email.emails are email addresses",
    "notifier",
    notifier({ email: { emails: ["not-an-email"] } }),
    "properties.email.emails[0]",
  ],
  [
    "notifier discord needs discordToken",
    "notifier",
    notifier({ discord: { discordChannel: "alerts" } }),
    "properties.discord.discordToken",
  ],
  [
    "notifier discordWebhook.discordWebhookUrl is a URL",
    "notifier",
    notifier({ discordWebhook: { discordWebhookUrl: "x" } }),
    "properties.discordWebhook.discordWebhookUrl",
  ],
  [
    "notifier microsoftTeams.microsoftTeamsUrl is a URL",
    "notifier",
    notifier({ microsoftTeams: { microsoftTeamsUrl: "x" } }),
    "properties.microsoftTeams.microsoftTeamsUrl",
  ],
  [
    "notifier opsgenie needs apiKey",
    "notifier",
    notifier({ opsgenie: { isEU: true } }),
    "properties.opsgenie.apiKey",
  ],
  [
    "notifier opsgenie.isEU is a boolean",
    "notifier",
    notifier({ opsgenie: { apiKey: "k", isEU: "yes" } }),
    "properties.opsgenie.isEU",
  ],
  [
    "notifier pagerduty needs routingKey",
    "notifier",
    notifier({ pagerduty: {} }),
    "properties.pagerduty.routingKey",
  ],
  [
    "notifier.disabledUntil is a date-time",
    "notifier",
    notifier(slack, { disabledUntil: "x" }),
    "disabledUntil",
  ],
  // Role
  ["role.name required", "role", { description: "x" }, "name"],
  [
    "role orgCapabilities.auditLog allows only read (read ok)",
    "role",
    role({ orgCapabilities: { auditLog: ["read"] } }),
    null,
  ],
  [
    "role orgCapabilities.auditLog allows only read (create fails)",
    "role",
    role({ orgCapabilities: { auditLog: ["create"] } }),
    "orgCapabilities.auditLog",
  ],
  [
    "role orgCapabilities.billing allows read and update (update ok)",
    "role",
    role({ orgCapabilities: { billing: ["read", "update"] } }),
    null,
  ],
  [
    "role orgCapabilities.billing allows read and update (delete fails)",
    "role",
    role({ orgCapabilities: { billing: ["delete"] } }),
    "orgCapabilities.billing",
  ],
  [
    "role orgCapabilities.sharedAccessKeys allows read and update (create fails)",
    "role",
    role({ orgCapabilities: { sharedAccessKeys: ["create"] } }),
    "orgCapabilities.sharedAccessKeys",
  ],
  [
    "role orgCapabilities.monitors allows create, read, update, delete",
    "role",
    role({ orgCapabilities: { monitors: ["create", "read", "update", "delete"] } }),
    null,
  ],
  [
    "role orgCapabilities actions are create, read, update, delete",
    "role",
    role({ orgCapabilities: { monitors: ["execute"] } }),
    "orgCapabilities.monitors",
  ],
  [
    "role orgCapabilities keys are the known capabilities",
    "role",
    role({ orgCapabilities: { rockets: ["read"] } }),
    "orgCapabilities.rockets",
  ],
  [
    "role datasetCapabilities ingest allows only create",
    "role",
    role({ datasetCapabilities: { web: { ingest: ["read"] } } }),
    "datasetCapabilities.web.ingest",
  ],
  [
    "role datasetCapabilities query allows only read",
    "role",
    role({ datasetCapabilities: { web: { query: ["update"] } } }),
    "datasetCapabilities.web.query",
  ],
  [
    "role datasetCapabilities share allows create, read, delete",
    "role",
    role({ datasetCapabilities: { web: { share: ["update"] } } }),
    "datasetCapabilities.web.share",
  ],
  [
    "role datasetCapabilities full valid set",
    "role",
    role({
      datasetCapabilities: {
        web: {
          ingest: ["create"],
          query: ["read"],
          data: ["delete"],
          trim: ["update"],
          vacuum: ["update"],
          share: ["create", "read", "delete"],
          starredQueries: ["create", "read", "update", "delete"],
          virtualFields: ["create", "read", "update", "delete"],
        },
      },
    }),
    null,
  ],
  [
    "role viewCapabilities query allows only read",
    "role",
    role({ viewCapabilities: { errors: { query: ["create"] } } }),
    "viewCapabilities.errors.query",
  ],
  ["role.members is a list of user ids", "role", role({ members: "u1" }), "members"],
  // Starred query
  ["starred.kind must be apl", "starred", starred({ kind: "sql" }), "kind"],
  ["starred.kind required", "starred", without(starred(), "kind"), "kind"],
  ["starred.name required", "starred", without(starred(), "name"), "name"],
  ["starred.who required", "starred", without(starred(), "who"), "who"],
  ["starred.query required", "starred", without(starred(), "query"), "query"],
  ["starred.query.apl required", "starred", starred({ query: {} }), "query.apl"],
  ["starred.metadata required", "starred", without(starred(), "metadata"), "metadata"],
  ["starred.metadata is a string map", "starred", starred({ metadata: { n: 1 } }), "metadata.n"],
  [
    "starred.query.defaultLimit at least 1",
    "starred",
    starred({ query: { apl: "x", defaultLimit: 0 } }),
    "query.defaultLimit",
  ],
  [
    "starred.query.startTime is RFC 3339 or relative",
    "starred",
    starred({ query: { apl: "x", startTime: "tuesday" } }),
    "query.startTime",
  ],
  [
    "starred.query.startTime accepts now-1h",
    "starred",
    starred({ query: { apl: "x", startTime: "now-1h" } }),
    null,
  ],
];

describe("spec rules on create", () => {
  it.each(rows)("%s", async (_rule, family, body, field) => {
    const res = await api(em.current, "POST", PATHS[family], body);
    if (field === null) {
      expect([200, 201]).toContain(res.status);
      expect(res.body.id).toEqual(expect.any(String));
    } else {
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ code: 422, message: expect.any(String) });
      expect(res.headers["content-type"]).toMatch(/^application\/json/);
      expect(res.body.message).toMatch(names(field));
    }
  });
});

describe("spec rules on update", () => {
  const updates: [string, Family, object, object, string][] = [
    ["annotation PUT type max length 256", "annotation", annotation(), { type: s(257) }, "type"],
    ["annotation PUT type pattern", "annotation", annotation(), { type: "UPPER" }, "type"],
    ["monitor PUT compareDays at most 7", "monitor", anomaly(), anomaly({ compareDays: 8 }), "compareDays"],
    [
      "monitor PUT Threshold needs threshold",
      "monitor",
      threshold(),
      without(threshold(), "threshold"),
      "threshold",
    ],
    ["notifier PUT exactly one channel", "notifier", notifier(slack), notifier({}), "properties"],
    [
      "notifier PUT customWebhook.body parses as a Go template",
      "notifier",
      notifier({ customWebhook: { url: "https://example.com/hook", body: "{{.Title}}" } }),
      notifier({ customWebhook: { url: "https://example.com/hook", body: "{{if .Value}}open" } }),
      "properties.customWebhook.body",
    ],
    [
      "role PUT auditLog allows only read",
      "role",
      role(),
      role({ orgCapabilities: { auditLog: ["update"] } }),
      "orgCapabilities.auditLog",
    ],
    ["starred PUT kind must be apl", "starred", starred(), starred({ kind: "kql" }), "kind"],
  ];
  it.each(updates)("%s", async (_rule, family, create, update, field) => {
    const created = await api(em.current, "POST", PATHS[family], create);
    expect([200, 201]).toContain(created.status);
    const res = await api(em.current, "PUT", `${PATHS[family]}/${created.body.id}`, update);
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(names(field));
    // A rejected update changes nothing.
    const after = await api(em.current, "GET", `${PATHS[family]}/${created.body.id}`);
    expect(after.body).toEqual(created.body);
  });

  it.each([
    ["org PUT name required", {}],
    ["org PUT name must not be empty", { name: "" }],
    ["org PUT name is a string", { name: 5 }],
  ])("%s", async (_rule, body) => {
    const res = await api(em.current, "PUT", `/v2/orgs/${em.current.orgId}`, body);
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(names("name"));
  });
});

it("names every failing field in one message", async () => {
  const res = await api(em.current, "POST", "/v2/annotations", { datasets: [], type: "BAD", title: s(300) });
  expect(res.status).toBe(422);
  for (const field of ["datasets", "type", "title"]) expect(res.body.message).toMatch(names(field));
});

describe("starred-query list parameters", () => {
  it.each([
    ["limit at least 1", "limit=0", "limit"],
    ["limit at most 1000", "limit=1001", "limit"],
    ["limit is a number", "limit=ten", "limit"],
    ["offset at least 0", "offset=-1", "offset"],
  ])("%s", async (_rule, qs, field) => {
    const res = await api(em.current, "GET", `/v2/apl-starred-queries?${qs}`);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(names(field));
  });
  it("limit 1000 is accepted", async () => {
    expect((await api(em.current, "GET", "/v2/apl-starred-queries?limit=1000")).status).toBe(200);
  });
});

it("refuses a custom webhook template past 64 KiB of UTF-8 (our bound) before parsing it, on create and on update", async () => {
  const hook = (body: string) => notifier({ customWebhook: { url: "https://example.com/hook", body } });
  const message =
    "properties.customWebhook.body: must be at most 64 KiB (65536 bytes of UTF-8), our bound on a custom webhook's template: a notification's body is small JSON";
  // A megabyte of escapes in one string (it parsed, slowly, and was kept), and one byte past the bound.
  const created = await api(em.current, "POST", PATHS.notifier, hook(`{{"${"\\x41".repeat(250_000)}"}}`));
  expect([created.status, created.body.message]).toEqual([422, message]);
  const ok = await api(em.current, "POST", PATHS.notifier, hook("é".repeat(32_768)));
  expect(ok.status).toBe(200);
  const updated = await api(
    em.current,
    "PUT",
    `${PATHS.notifier}/${ok.body.id}`,
    hook("é".repeat(32_768) + "x"),
  );
  expect([updated.status, updated.body.message]).toEqual([422, message]);
});

it("refuses a custom webhook template Go cannot parse with Go's own error, on create and on update", async () => {
  const hook = (body: string) => notifier({ customWebhook: { url: "https://example.com/hook", body } });
  const created = await api(em.current, "POST", PATHS.notifier, hook("{{if}}x{{end}}"));
  expect(created.status).toBe(422);
  expect(created.body.message).toBe(
    "properties.customWebhook.body: must be a Go template the service can parse (template: webhook:1: missing value for if)",
  );
  const ok = await api(em.current, "POST", PATHS.notifier, hook("{{.Title}}"));
  const updated = await api(em.current, "PUT", `${PATHS.notifier}/${ok.body.id}`, hook("a\n{{end}}"));
  expect(updated.status).toBe(422);
  expect(updated.body.message).toBe(
    "properties.customWebhook.body: must be a Go template the service can parse (template: webhook:2: unexpected {{end}})",
  );
});
