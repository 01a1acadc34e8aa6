/**
 * Every rule of the service's API reference (axiom.co/docs/restapi) and its cross-field rules, one named row each, through each resource's
 * check: the failure names the property and states the rule. Written from the API reference, not from the schemas.
 * Also: unknown values at preview never fail a check, and check makes no network call (no provider configured).
 */
import { implementation } from "../../provider/resources/dynamic";
import { UNKNOWN } from "../../provider/resources/lifecycle";
import type { ResourceKind } from "../../provider/resources/registry";
import { SAMPLES } from "../helpers/samples";

type Props = Record<string, unknown>;
const long = (n: number) => "a".repeat(n);

const base: Record<ResourceKind, Props> = Object.fromEntries(
  Object.entries(SAMPLES).map(([kind, sample]) => [kind, sample.minimal]),
) as Record<ResourceKind, Props>;

const threshold = { name: "m", aplQuery: "x", type: "Threshold", operator: "Above", threshold: 1 };
const anomaly = {
  name: "m",
  aplQuery: "x",
  type: "AnomalyDetection",
  operator: "Above",
  compareDays: 1,
  tolerance: 5,
};

function without(obj: Props, key: string): Props {
  const out = { ...obj };
  delete out[key];
  return out;
}

/** [rule, kind, inputs, property, words the reason must contain] */
const rules: [string, ResourceKind, Props, string, string][] = [
  // Annotation
  [
    "annotation datasets is required",
    "Annotation",
    without(base.Annotation, "datasets"),
    "datasets",
    "is required",
  ],
  [
    "annotation datasets has at least 1 item",
    "Annotation",
    { ...base.Annotation, datasets: [] },
    "datasets",
    "at least 1",
  ],
  [
    "annotation dataset names have length at least 1",
    "Annotation",
    { ...base.Annotation, datasets: [""] },
    "datasets[0]",
    "empty",
  ],
  ["annotation type is required", "Annotation", without(base.Annotation, "type"), "type", "is required"],
  [
    "annotation type is at most 256 characters",
    "Annotation",
    { ...base.Annotation, type: long(257) },
    "type",
    "at most 256",
  ],
  [
    "annotation type matches ^[a-z0-9-]+$",
    "Annotation",
    { ...base.Annotation, type: "Deploy_1" },
    "type",
    "^[a-z0-9-]+$",
  ],
  [
    "annotation description is at most 512 characters",
    "Annotation",
    { ...base.Annotation, description: long(513) },
    "description",
    "at most 512",
  ],
  [
    "annotation title is at most 256 characters",
    "Annotation",
    { ...base.Annotation, title: long(257) },
    "title",
    "at most 256",
  ],
  [
    "annotation url is at most 512 characters",
    "Annotation",
    { ...base.Annotation, url: long(513) },
    "url",
    "at most 512",
  ],
  [
    "annotation time is a date-time",
    "Annotation",
    { ...base.Annotation, time: "yesterday" },
    "time",
    "RFC 3339",
  ],
  [
    "annotation endTime is a date-time",
    "Annotation",
    { ...base.Annotation, endTime: "later" },
    "endTime",
    "RFC 3339",
  ],
  [
    "annotation refuses unknown fields",
    "Annotation",
    { ...base.Annotation, colour: "red" },
    "colour",
    "not a known field",
  ],
  // Monitor
  ["monitor name is required", "Monitor", without(base.Monitor, "name"), "name", "is required"],
  ["monitor aplQuery is required", "Monitor", without(base.Monitor, "aplQuery"), "aplQuery", "is required"],
  [
    "monitor type is Threshold, MatchEvent or AnomalyDetection",
    "Monitor",
    { ...base.Monitor, type: "Spike" },
    "type",
    "Threshold, MatchEvent, AnomalyDetection",
  ],
  [
    "monitor operator is one of the five operators",
    "Monitor",
    { ...base.Monitor, operator: "Equal" },
    "operator",
    "Below, BelowOrEqual, Above, AboveOrEqual, AboveOrBelow",
  ],
  ["monitor compareDays is at most 7", "Monitor", { ...anomaly, compareDays: 8 }, "compareDays", "at most 7"],
  [
    "monitor intervalMinutes is at least 1",
    "Monitor",
    { ...base.Monitor, intervalMinutes: 0 },
    "intervalMinutes",
    "at least 1",
  ],
  [
    "monitor intervalMinutes is an integer",
    "Monitor",
    { ...base.Monitor, intervalMinutes: 1.5 },
    "intervalMinutes",
    "integer",
  ],
  [
    "monitor rangeMinutes is at least 1",
    "Monitor",
    { ...base.Monitor, rangeMinutes: 0 },
    "rangeMinutes",
    "at least 1",
  ],
  [
    "monitor secondDelay is at most 86400",
    "Monitor",
    { ...base.Monitor, secondDelay: 86401 },
    "secondDelay",
    "at most 86400",
  ],
  [
    "monitor tolerance is at most 100",
    "Monitor",
    { ...anomaly, tolerance: 100.5 },
    "tolerance",
    "at most 100",
  ],
  [
    "monitor disabledUntil is a date-time",
    "Monitor",
    { ...base.Monitor, disabledUntil: "soon" },
    "disabledUntil",
    "RFC 3339",
  ],
  [
    "monitor notifierIds is a list of ids",
    "Monitor",
    { ...base.Monitor, notifierIds: "notify_1" },
    "notifierIds",
    "list",
  ],
  [
    "monitor refuses unknown fields",
    "Monitor",
    { ...base.Monitor, notifierIDs: [] },
    "notifierIDs",
    "not a known field",
  ],
  [
    "cross-field: Threshold needs operator",
    "Monitor",
    without(threshold, "operator"),
    "operator",
    "required when type is Threshold",
  ],
  [
    "cross-field: Threshold needs threshold",
    "Monitor",
    without(threshold, "threshold"),
    "threshold",
    "required when type is Threshold",
  ],
  [
    "cross-field: AnomalyDetection needs operator",
    "Monitor",
    without(anomaly, "operator"),
    "operator",
    "required when type is AnomalyDetection",
  ],
  [
    "cross-field: AnomalyDetection needs compareDays",
    "Monitor",
    without(anomaly, "compareDays"),
    "compareDays",
    "required when type is AnomalyDetection",
  ],
  [
    "cross-field: AnomalyDetection needs tolerance",
    "Monitor",
    without(anomaly, "tolerance"),
    "tolerance",
    "required when type is AnomalyDetection",
  ],
  [
    "cross-field: AboveOrBelow is for AnomalyDetection only",
    "Monitor",
    { ...threshold, operator: "AboveOrBelow" },
    "operator",
    "only allowed when type is AnomalyDetection",
  ],
  // Notifier
  ["notifier name is required", "Notifier", without(base.Notifier, "name"), "name", "is required"],
  [
    "notifier properties is required",
    "Notifier",
    without(base.Notifier, "properties"),
    "properties",
    "is required",
  ],
  [
    "cross-field: notifier configures a channel",
    "Notifier",
    { name: "n", properties: {} },
    "properties",
    "exactly one channel",
  ],
  [
    "cross-field: notifier configures only one channel",
    "Notifier",
    {
      name: "n",
      properties: { slack: { slackUrl: "https://h.test/x" }, webhook: { url: "https://h.test/y" } },
    },
    "properties",
    "exactly one channel, got 2",
  ],
  [
    "notifier slack slackUrl is an http(s) URL",
    "Notifier",
    { name: "n", properties: { slack: { slackUrl: "hooks" } } },
    "properties.slack.slackUrl",
    "http(s) URL",
  ],
  [
    "notifier customWebhook needs url",
    "Notifier",
    { name: "n", properties: { customWebhook: { body: "{}" } } },
    "properties.customWebhook.url",
    "",
  ],
  [
    "notifier customWebhook needs body",
    "Notifier",
    { name: "n", properties: { customWebhook: { url: "https://h.test" } } },
    "properties.customWebhook.body",
    "is required",
  ],
  [
    "notifier customWebhook headers map strings to strings",
    "Notifier",
    { name: "n", properties: { customWebhook: { url: "https://h.test", body: "", headers: { a: 1 } } } },
    "properties.customWebhook.headers.a",
    "string",
  ],
  [
    "notifier customWebhook body parses as a Go template, Go's error quoted",
    "Notifier",
    { name: "n", properties: { customWebhook: { url: "https://h.test", body: "{{if}}x{{end}}" } } },
    "properties.customWebhook.body",
    "Go template the service can parse (template: webhook:1: missing value for if)",
  ],
  [
    "notifier customWebhook body is at most 64 KiB of UTF-8 (our bound), refused before it is parsed",
    "Notifier",
    {
      name: "n",
      properties: { customWebhook: { url: "https://h.test", body: `{{"${"\\x41".repeat(300_000)}"}}` } },
    },
    "properties.customWebhook.body",
    "must be at most 64 KiB (65536 bytes of UTF-8), our bound on a custom webhook's template",
  ],
  [
    "notifier customWebhook body calls only Go's builtins and the documented jsonObject and jsonArray",
    "Notifier",
    { name: "n", properties: { customWebhook: { url: "https://h.test", body: "{{toJson .Title}}" } } },
    "properties.customWebhook.body",
    'function "toJson" not defined',
  ],
  [
    "notifier discord needs discordToken",
    "Notifier",
    { name: "n", properties: { discord: { discordChannel: "c", discordToken: "" } } },
    "properties.discord.discordToken",
    "empty",
  ],
  [
    "notifier discordWebhook discordWebhookUrl is a URL",
    "Notifier",
    { name: "n", properties: { discordWebhook: { discordWebhookUrl: "x" } } },
    "properties.discordWebhook.discordWebhookUrl",
    "http(s) URL",
  ],
  [
    "notifier email has at least 1 address",
    "Notifier",
    { name: "n", properties: { email: { emails: [] } } },
    "properties.email.emails",
    "at least 1",
  ],
  [
    "notifier email addresses are emails",
    "Notifier",
    { name: "n", properties: { email: { emails: ["nobody"] } } },
    "properties.email.emails[0]",
    "email address",
  ],
  [
    "notifier email addresses do not repeat",
    "Notifier",
    { name: "n", properties: { email: { emails: ["a@b.test", "a@b.test"] } } },
    "properties.email.emails",
    "duplicates",
  ],
  [
    "notifier microsoftTeams URL is a URL",
    "Notifier",
    { name: "n", properties: { microsoftTeams: { microsoftTeamsUrl: "teams" } } },
    "properties.microsoftTeams.microsoftTeamsUrl",
    "http(s) URL",
  ],
  [
    "notifier opsgenie needs apiKey",
    "Notifier",
    { name: "n", properties: { opsgenie: { isEU: true } } },
    "properties.opsgenie.apiKey",
    "",
  ],
  [
    "notifier opsgenie isEU is a boolean",
    "Notifier",
    { name: "n", properties: { opsgenie: { apiKey: "k", isEU: "yes" } } },
    "properties.opsgenie.isEU",
    "boolean",
  ],
  [
    "notifier pagerduty needs routingKey",
    "Notifier",
    { name: "n", properties: { pagerduty: { token: "t" } } },
    "properties.pagerduty.routingKey",
    "",
  ],
  [
    "notifier webhook url is a URL",
    "Notifier",
    { name: "n", properties: { webhook: { url: "ftp://x" } } },
    "properties.webhook.url",
    "http(s) URL",
  ],
  [
    "notifier refuses unknown channels",
    "Notifier",
    { name: "n", properties: { email: { emails: ["a@b.test"] }, telegram: {} } },
    "properties.telegram",
    "not a known field",
  ],
  [
    "notifier disabledUntil is a date-time",
    "Notifier",
    { ...base.Notifier, disabledUntil: "never" },
    "disabledUntil",
    "RFC 3339",
  ],
  // Role
  ["role name is required", "Role", {}, "name", "is required"],
  ["role members do not repeat", "Role", { name: "r", members: ["u", "u"] }, "members", "duplicates"],
  [
    "role orgCapabilities auditLog allows only read",
    "Role",
    { name: "r", orgCapabilities: { auditLog: ["update"] } },
    "orgCapabilities.auditLog[0]",
    "read",
  ],
  [
    "role orgCapabilities billing allows read and update",
    "Role",
    { name: "r", orgCapabilities: { billing: ["delete"] } },
    "orgCapabilities.billing[0]",
    "read, update",
  ],
  [
    "role orgCapabilities sharedAccessKeys allows read and update",
    "Role",
    { name: "r", orgCapabilities: { sharedAccessKeys: ["create"] } },
    "orgCapabilities.sharedAccessKeys[0]",
    "read, update",
  ],
  [
    "role orgCapabilities actions are create, read, update, delete",
    "Role",
    { name: "r", orgCapabilities: { monitors: ["write"] } },
    "orgCapabilities.monitors[0]",
    "create, read, update, delete",
  ],
  [
    "role orgCapabilities keys are the documented ones",
    "Role",
    { name: "r", orgCapabilities: { everything: ["read"] } },
    "orgCapabilities.everything",
    "not a known field",
  ],
  [
    "role dataset ingest allows only create",
    "Role",
    { name: "r", datasetCapabilities: { logs: { ingest: ["read"] } } },
    "datasetCapabilities.logs.ingest[0]",
    "create",
  ],
  [
    "role dataset query allows only read",
    "Role",
    { name: "r", datasetCapabilities: { logs: { query: ["update"] } } },
    "datasetCapabilities.logs.query[0]",
    "read",
  ],
  [
    "role view share allows create, read, delete",
    "Role",
    { name: "r", viewCapabilities: { v: { share: ["update"] } } },
    "viewCapabilities.v.share[0]",
    "create, read, delete",
  ],
  // Dataset: axiom-go datasets.go:109-111 (names); the OpenAPI `CreateDataset` (kind);
  // terraform-provider-axiom's map-field pattern.
  ["dataset name is required", "Dataset", {}, "name", "is required"],
  ["dataset name is at most 80 characters", "Dataset", { name: long(81) }, "name", "at most 80"],
  ["dataset name is letters, digits, '.', '_', '-'", "Dataset", { name: "a b" }, "name", "only letters"],
  ["dataset name does not start with '.'", "Dataset", { name: ".a" }, "name", "must not start with"],
  ["dataset name does not start with '_'", "Dataset", { name: "_a" }, "name", "must not start with"],
  ["dataset name does not start with '-'", "Dataset", { name: "-a" }, "name", "must not start with"],
  ["dataset name does not end with '.'", "Dataset", { name: "a." }, "name", "must not end with"],
  ["dataset name does not end with '-'", "Dataset", { name: "a-" }, "name", "must not end with"],
  ["dataset name does not start with 'axiom-'", "Dataset", { name: "axiom-x" }, "name", "axiom-"],
  ["dataset kind is one of the four kinds", "Dataset", { name: "d", kind: "logs" }, "kind", "otel:logs:v1"],
  [
    "dataset retentionDays is an integer",
    "Dataset",
    { name: "d", retentionDays: 1.5 },
    "retentionDays",
    "integer",
  ],
  [
    "dataset retentionDays is at least 0",
    "Dataset",
    { name: "d", retentionDays: -1 },
    "retentionDays",
    "at least 0",
  ],
  [
    "dataset useRetentionPeriod is a boolean",
    "Dataset",
    { name: "d", useRetentionPeriod: "yes" },
    "useRetentionPeriod",
    "boolean",
  ],
  [
    "dataset mapFields do not repeat",
    "Dataset",
    { name: "d", mapFields: ["a", "a"] },
    "mapFields",
    "duplicates",
  ],
  [
    "dataset map-field names match terraform's pattern",
    "Dataset",
    { name: "d", mapFields: ["__invalid__"] },
    "mapFields[0]",
    "letters and digits",
  ],
  [
    "dataset edgeDeployment is not empty",
    "Dataset",
    { name: "d", edgeDeployment: "" },
    "edgeDeployment",
    "empty",
  ],
  [
    "dataset forceDestroy is a boolean",
    "Dataset",
    { name: "d", forceDestroy: "yes" },
    "forceDestroy",
    "boolean",
  ],
  ["dataset takes no unknown input", "Dataset", { name: "d", retention: 3 }, "retention", ""],
  // Starred query
  ["starred query kind is apl", "StarredQuery", { ...base.StarredQuery, kind: "kql" }, "kind", "apl"],
  [
    "starred query name is required",
    "StarredQuery",
    without(base.StarredQuery, "name"),
    "name",
    "is required",
  ],
  ["starred query who is required", "StarredQuery", without(base.StarredQuery, "who"), "who", "is required"],
  [
    "starred query query is required",
    "StarredQuery",
    without(base.StarredQuery, "query"),
    "query",
    "is required",
  ],
  [
    "starred query metadata is required",
    "StarredQuery",
    without(base.StarredQuery, "metadata"),
    "metadata",
    "is required",
  ],
  [
    "starred query metadata maps strings to strings",
    "StarredQuery",
    { ...base.StarredQuery, metadata: { a: 1 } },
    "metadata.a",
    "string",
  ],
  [
    "starred query query.apl is required",
    "StarredQuery",
    { ...base.StarredQuery, query: {} },
    "query.apl",
    "is required",
  ],
  [
    "starred query query.defaultLimit is at least 1",
    "StarredQuery",
    { ...base.StarredQuery, query: { apl: "x", defaultLimit: 0 } },
    "query.defaultLimit",
    "at least 1",
  ],
  [
    "starred query query.startTime is a time",
    "StarredQuery",
    { ...base.StarredQuery, query: { apl: "x", startTime: "dawn" } },
    "query.startTime",
    "RFC 3339",
  ],
  [
    "starred query defaultOrder entries have field and desc",
    "StarredQuery",
    { ...base.StarredQuery, query: { apl: "x", defaultOrder: [{ field: "_time" }] } },
    "query.defaultOrder[0].desc",
    "is required",
  ],
  // Organization name
  [
    "organization name is required",
    "OrganizationName",
    { organizationId: "local-org" },
    "name",
    "is required",
  ],
  [
    "organization name is not empty",
    "OrganizationName",
    { organizationId: "local-org", name: "" },
    "name",
    "empty",
  ],
  [
    "organizationId is not empty",
    "OrganizationName",
    { organizationId: "", name: "x" },
    "organizationId",
    "empty",
  ],
  [
    "organization name takes no adopt, saying why",
    "OrganizationName",
    { ...base.OrganizationName, adopt: "x" },
    "adopt",
    "needs no `adopt`: declaring one already takes the organization",
  ],
  // adopt
  [
    "adopt is a non-empty id",
    "Monitor",
    { ...base.Monitor, adopt: "" },
    "adopt",
    "must be the id of an existing object",
  ],
];

describe("check enforces every rule", () => {
  it.each(rules)("%s", async (_rule, kind, inputs, property, words) => {
    const { failures } = await implementation(kind).check({}, inputs);
    const match = failures!.find((f) => f.property === property);
    expect(match).toBeDefined();
    expect(match!.reason).toContain(words);
  });

  it.each(Object.entries(base))("a valid %s passes", async (kind, inputs) => {
    expect((await implementation(kind as ResourceKind).check({}, inputs)).failures).toEqual([]);
  });

  it("returns every failure at once, cross-field ones included", async () => {
    const { failures } = await implementation("Monitor").check(
      {},
      {
        name: "",
        aplQuery: "x",
        type: "Threshold",
        intervalMinutes: "often",
      },
    );
    expect(failures!.map((f) => f.property).sort()).toEqual([
      "intervalMinutes",
      "name",
      "operator",
      "threshold",
    ]);
  });

  it("reports a two-channel notifier once, even when a channel is malformed", async () => {
    const { failures } = await implementation("Notifier").check(
      {},
      {
        name: "n",
        properties: { slack: "not-an-object", email: { emails: ["a@b.test"] } },
      },
    );
    expect(failures!.filter((f) => f.property === "properties")).toHaveLength(1);
  });
});

/** [rule, kind, inputs exactly at a limit] — each must pass: the limits are inclusive. */
const atLimits: [string, ResourceKind, Props][] = [
  ["annotation type of 256 characters", "Annotation", { ...base.Annotation, type: long(256) }],
  ["annotation title of 256 characters", "Annotation", { ...base.Annotation, title: long(256) }],
  ["annotation description of 512 characters", "Annotation", { ...base.Annotation, description: long(512) }],
  ["annotation url of 512 characters", "Annotation", { ...base.Annotation, url: long(512) }],
  ["annotation type of digits and dashes", "Annotation", { ...base.Annotation, type: "0-9-a" }],
  ["monitor compareDays 7", "Monitor", { ...anomaly, compareDays: 7 }],
  ["monitor compareDays 0", "Monitor", { ...anomaly, compareDays: 0 }],
  ["monitor secondDelay 86400", "Monitor", { ...base.Monitor, secondDelay: 86400 }],
  ["monitor secondDelay 0", "Monitor", { ...base.Monitor, secondDelay: 0 }],
  ["monitor tolerance 100", "Monitor", { ...anomaly, tolerance: 100 }],
  ["monitor tolerance 99.5 (a percent, not an integer)", "Monitor", { ...anomaly, tolerance: 99.5 }],
  ["monitor intervalMinutes 1", "Monitor", { ...base.Monitor, intervalMinutes: 1 }],
  ["monitor rangeMinutes 1", "Monitor", { ...base.Monitor, rangeMinutes: 1 }],
  ["monitor threshold 0 satisfies Threshold", "Monitor", { ...threshold, threshold: 0 }],
  ["monitor AboveOrBelow with AnomalyDetection", "Monitor", { ...anomaly, operator: "AboveOrBelow" }],
  ["role auditLog read", "Role", { name: "r", orgCapabilities: { auditLog: ["read"] } }],
  ["role billing read and update", "Role", { name: "r", orgCapabilities: { billing: ["read", "update"] } }],
  [
    "notifier customWebhook body of 65,536 bytes of UTF-8 (32,768 two-byte characters)",
    "Notifier",
    { name: "n", properties: { customWebhook: { url: "https://h.test", body: "é".repeat(32_768) } } },
  ],
  [
    "starred query defaultLimit 1",
    "StarredQuery",
    { ...base.StarredQuery, query: { apl: "x", defaultLimit: 1 } },
  ],
];

/** [rule, kind, inputs just past a limit, property] — the other side of the limits above. */
const pastLimits: [string, ResourceKind, Props, string][] = [
  ["monitor compareDays -1", "Monitor", { ...anomaly, compareDays: -1 }, "compareDays"],
  ["monitor compareDays 7.5", "Monitor", { ...anomaly, compareDays: 7.5 }, "compareDays"],
  ["monitor secondDelay -1", "Monitor", { ...base.Monitor, secondDelay: -1 }, "secondDelay"],
  ["monitor tolerance 100.01", "Monitor", { ...anomaly, tolerance: 100.01 }, "tolerance"],
  ["monitor tolerance as a string", "Monitor", { ...anomaly, tolerance: "5" }, "tolerance"],
  ["monitor rangeMinutes 0.5", "Monitor", { ...base.Monitor, rangeMinutes: 0.5 }, "rangeMinutes"],
  ["annotation type of 257 characters", "Annotation", { ...base.Annotation, type: long(257) }, "type"],
  ["annotation url of 513 characters", "Annotation", { ...base.Annotation, url: long(513) }, "url"],
  [
    "notifier customWebhook body of 65,537 bytes of UTF-8 (32,769 characters, counted in bytes)",
    "Notifier",
    { name: "n", properties: { customWebhook: { url: "https://h.test", body: "é".repeat(32_768) + "x" } } },
    "properties.customWebhook.body",
  ],
];

describe("the limits are inclusive", () => {
  it.each(atLimits)("%s passes", async (_rule, kind, inputs) => {
    expect((await implementation(kind).check({}, inputs)).failures).toEqual([]);
  });

  it.each(pastLimits)("%s fails on its property", async (_rule, kind, inputs, property) => {
    const { failures } = await implementation(kind).check({}, inputs);
    expect(failures!.map((f) => f.property)).toEqual([property]);
  });
});

/** [kind, inputs breaking several rules, every property that must be named] */
const manyAtOnce: [ResourceKind, Props, string[]][] = [
  [
    "Annotation",
    {
      datasets: [],
      type: "Deploy Now",
      title: long(257),
      description: long(513),
      url: long(513),
      time: "x",
      endTime: "y",
    },
    ["datasets", "description", "endTime", "time", "title", "type", "url"],
  ],
  [
    "Monitor",
    {
      name: "",
      aplQuery: "x",
      type: "AnomalyDetection",
      compareDays: 8,
      intervalMinutes: 0,
      rangeMinutes: 0,
      secondDelay: 86401,
      tolerance: 100.5,
    },
    ["compareDays", "intervalMinutes", "name", "operator", "rangeMinutes", "secondDelay", "tolerance"],
  ],
  [
    "Notifier",
    { name: "", properties: { email: { emails: ["nobody", "a@b.test", "a@b.test"] } }, disabledUntil: "x" },
    ["disabledUntil", "name", "properties.email.emails", "properties.email.emails[0]"],
  ],
  [
    "Role",
    { name: 1, members: ["u", "u"], orgCapabilities: { auditLog: ["update"], nope: ["read"] } },
    ["members", "name", "orgCapabilities.auditLog[0]", "orgCapabilities.nope"],
  ],
  [
    "StarredQuery",
    { kind: "kql", name: "", who: "team", query: { apl: "x", defaultLimit: 0 }, metadata: { a: 1 } },
    ["kind", "metadata.a", "name", "query.defaultLimit"],
  ],
  ["OrganizationName", { organizationId: "", name: "", extra: 1 }, ["extra", "name", "organizationId"]],
];

describe("check returns every failure at once", () => {
  it.each(manyAtOnce)("%s names every failing property", async (kind, inputs, properties) => {
    const { failures } = await implementation(kind).check({}, inputs);
    expect([...new Set(failures!.map((f) => f.property))].sort()).toEqual(properties);
    for (const f of failures!) expect(f.reason.length).toBeGreaterThan(0);
  });
});

/** [case, kind, inputs with unknowns] — none may fail. */
const unknownCases: [string, ResourceKind, Props][] = [
  [
    "unknown monitor type skips the type-dependent rules",
    "Monitor",
    { name: "m", aplQuery: "x", type: UNKNOWN, operator: "AboveOrBelow" },
  ],
  [
    "unknown operator and threshold satisfy Threshold",
    "Monitor",
    { ...threshold, operator: UNKNOWN, threshold: UNKNOWN },
  ],
  ["unknown notifier id in the list", "Monitor", { ...base.Monitor, notifierIds: [UNKNOWN, UNKNOWN] }],
  ["unknown notifierIds list", "Monitor", { ...base.Monitor, notifierIds: UNKNOWN }],
  [
    "unknown numbers",
    "Monitor",
    { ...anomaly, compareDays: UNKNOWN, tolerance: UNKNOWN, intervalMinutes: UNKNOWN },
  ],
  ["unknown slack URL", "Notifier", { name: "n", properties: { slack: { slackUrl: UNKNOWN } } }],
  [
    "unknown email addresses",
    "Notifier",
    { name: "n", properties: { email: { emails: [UNKNOWN, UNKNOWN] } } },
  ],
  ["unknown properties", "Notifier", { name: UNKNOWN, properties: UNKNOWN }],
  ["unknown dataset names", "Annotation", { datasets: [UNKNOWN], type: "deploy", time: UNKNOWN }],
  [
    "unknown members",
    "Role",
    { name: "r", members: [UNKNOWN, UNKNOWN], orgCapabilities: { datasets: [UNKNOWN] } },
  ],
  ["unknown query", "StarredQuery", { ...base.StarredQuery, query: { apl: UNKNOWN, defaultLimit: UNKNOWN } }],
  ["unknown organization id", "OrganizationName", { organizationId: UNKNOWN, name: "x" }],
  ["unknown adopt", "Monitor", { ...base.Monitor, adopt: UNKNOWN }],
  [
    "unknown monitor disabledUntil",
    "Monitor",
    { ...base.Monitor, disabledUntil: UNKNOWN, disabled: UNKNOWN },
  ],
  [
    "unknown annotation endTime and type",
    "Annotation",
    { datasets: UNKNOWN, type: UNKNOWN, endTime: UNKNOWN },
  ],
  [
    "unknown secret header value (an interpolated token)",
    "Notifier",
    {
      name: "n",
      properties: {
        customWebhook: { url: UNKNOWN, body: "{}", secretHeaders: { Authorization: UNKNOWN } },
      },
    },
  ],
  [
    "unknown header map",
    "Notifier",
    { name: "n", properties: { customWebhook: { url: "https://h.test", body: "", headers: UNKNOWN } } },
  ],
  ["unknown channel object", "Notifier", { name: "n", properties: { slack: UNKNOWN } }],
  ["unknown email list", "Notifier", { name: "n", properties: { email: { emails: UNKNOWN } } }],
  [
    "unknown email next to a known one",
    "Notifier",
    { name: "n", properties: { email: { emails: ["a@b.test", UNKNOWN] } } },
  ],
  [
    "unknown pagerduty keys",
    "Notifier",
    { name: "n", properties: { pagerduty: { routingKey: UNKNOWN, token: UNKNOWN } } },
  ],
  [
    "unknown capability maps and lists",
    "Role",
    {
      name: "r",
      orgCapabilities: { monitors: UNKNOWN },
      datasetCapabilities: { logs: UNKNOWN, traces: { query: [UNKNOWN] } },
      viewCapabilities: UNKNOWN,
    },
  ],
  [
    "unknown nested starred-query fields",
    "StarredQuery",
    {
      ...base.StarredQuery,
      query: { apl: "x", defaultOrder: [UNKNOWN], queryOptions: UNKNOWN, libraries: [UNKNOWN] },
      metadata: { owner: UNKNOWN },
      dataset: UNKNOWN,
    },
  ],
  ["unknown organization name", "OrganizationName", { organizationId: "local-org", name: UNKNOWN }],
];

describe("unknown values at preview never fail a check", () => {
  it.each(unknownCases)("%s", async (_case, kind, inputs) => {
    const result = await implementation(kind).check({}, inputs);
    expect(result.failures).toEqual([]);
  });

  it("keeps unknowns in the returned inputs, beside what was declared and no default", async () => {
    const { inputs } = await implementation("Monitor").check({}, { ...base.Monitor, notifierIds: [UNKNOWN] });
    expect(inputs).toEqual({ ...base.Monitor, notifierIds: [UNKNOWN] });
  });

  it("still reports real failures next to unknowns", async () => {
    const { failures } = await implementation("Monitor").check(
      {},
      { ...threshold, name: UNKNOWN, intervalMinutes: 0 },
    );
    expect(failures).toEqual([
      { property: "intervalMinutes", reason: expect.stringContaining("at least 1") },
    ]);
  });
});
