/**
 * The flagship stack: the alerting of a checkout service.
 *
 * The two datasets the service sends its logs to and the monitors query (the service refuses ingest and queries
 * into a dataset that was never created), the ingest-only token the checkout service sends its logs with (a
 * secret stack output), a virtual field that turns the logged duration into milliseconds, three notifiers (Slack,
 * PagerDuty, an incident bot's custom webhook) whose URLs and keys come from secret stack config, three monitors
 * (one of each type) wired to them by id, a deploy annotation on the datasets the monitors watch, a starred query
 * for the on-call team, and a dashboard of what the monitors watch.
 */
import * as pulumi from "@pulumi/pulumi";
import * as obs from "pulumi-observability";

const config = new pulumi.Config();

/** The datasets the monitors watch; the deploy annotation is drawn on exactly these charts. */
const HTTP_LOGS = "http-logs";
const APP_LOGS = "app-logs";

// Credentials are read as secrets so they stay encrypted in state and masked in the CLI's output.
const slackWebhookUrl = config.requireSecret("slackWebhookUrl");
const pagerdutyRoutingKey = config.requireSecret("pagerdutyRoutingKey");
const incidentWebhookUrl = config.requireSecret("incidentWebhookUrl");
const incidentWebhookToken = config.requireSecret("incidentWebhookToken");
const release = config.get("release") ?? "checkout-2024.06.1";
/** Whether `pulumi destroy` may delete the datasets while they hold events (off: a destroy then refuses). */
const datasetsForceDestroy = config.getBoolean("datasetsForceDestroy") ?? false;

const httpLogs = new obs.Dataset("http-logs", {
  name: HTTP_LOGS,
  description: "Access logs of the checkout API.",
  retentionDays: 30,
  useRetentionPeriod: true,
  forceDestroy: datasetsForceDestroy,
});

const appLogs = new obs.Dataset("app-logs", {
  name: APP_LOGS,
  description: "Application logs of the checkout and payments services.",
  retentionDays: 14,
  useRetentionPeriod: true,
  mapFields: ["attributes"],
  forceDestroy: datasetsForceDestroy,
});

/** What queries a dataset is created after it and destroyed before it. */
const onHttpLogs = { dependsOn: [httpLogs] };
const onAppLogs = { dependsOn: [appLogs] };

/**
 * The token the checkout service sends its access logs with: it may ingest into `http-logs` and do nothing else
 * (no query, no other dataset, no management call). Its value is a secret stack output.
 */
const checkoutIngest = new obs.ApiToken(
  "checkout-ingest",
  {
    name: "checkout ingest",
    description: "Used by the checkout service to send its access logs; ingest into http-logs only.",
    datasetCapabilities: { [HTTP_LOGS]: { ingest: ["create"] } },
  },
  onHttpLogs,
);

/** The checkout API logs `duration` in nanoseconds; queries read it in milliseconds through this field. */
const durationMs = new obs.VirtualField("duration-ms", {
  dataset: httpLogs.name, // by the dataset's output: the field is created after the dataset
  name: "duration_ms",
  expression: "duration / 1000000",
  type: "number",
  unit: "ms",
  description: "Request duration in milliseconds.",
});

const slack = new obs.Notifier("oncall-slack", {
  name: "On-call Slack (#checkout-alerts)",
  properties: { slack: { slackUrl: slackWebhookUrl } },
});

const pagerduty = new obs.Notifier("oncall-pagerduty", {
  name: "PagerDuty: checkout primary",
  properties: { pagerduty: { routingKey: pagerdutyRoutingKey } },
});

const incidentBot = new obs.Notifier("incident-bot", {
  name: "Incident bot webhook",
  properties: {
    customWebhook: {
      url: incidentWebhookUrl,
      // The body is a Go text/template over the service's documented variables (.Title, .Action, .Value, …).
      body: '{"monitor":"{{.Title}}","action":"{{.Action}}","value":"{{.Value}}"}',
      headers: { "Content-Type": "application/json" },
      secretHeaders: { Authorization: pulumi.interpolate`Bearer ${incidentWebhookToken}` },
    },
  },
});

const errorRate = new obs.Monitor(
  "checkout-5xx",
  {
    name: "Checkout: 5xx responses above 50 a minute",
    description: "Pages when the checkout API returns more than 50 server errors in a minute.",
    type: "Threshold",
    aplQuery: `['${HTTP_LOGS}'] | where service == "checkout" and status >= 500 | summarize count() by bin(_time, 1m)`,
    operator: "Above",
    threshold: 50,
    intervalMinutes: 1,
    rangeMinutes: 5,
    alertOnNoData: false,
    notifierIds: [slack.id, pagerduty.id],
  },
  onHttpLogs,
);

const paymentPanics = new obs.Monitor(
  "payment-panics",
  {
    name: "Payments: fatal errors",
    description: "Every fatal log line from the payments worker reaches the incident bot and PagerDuty.",
    type: "MatchEvent",
    aplQuery: `['${APP_LOGS}'] | where service == "payments" and level == "fatal"`,
    intervalMinutes: 1,
    rangeMinutes: 1,
    notifierIds: [pagerduty.id, incidentBot.id],
  },
  onAppLogs,
);

const latencyAnomaly = new obs.Monitor(
  "checkout-latency-anomaly",
  {
    name: "Checkout: latency unlike the past week",
    description: "Average checkout latency outside 25% of the same time over the last 7 days.",
    type: "AnomalyDetection",
    // Reads the virtual field by its output, so the monitor is created after the field and deleted before it.
    aplQuery: pulumi.interpolate`['${HTTP_LOGS}'] | where service == "checkout" | summarize avg(${durationMs.name}) by bin(_time, 5m)`,
    operator: "AboveOrBelow",
    compareDays: 7,
    tolerance: 25,
    intervalMinutes: 5,
    rangeMinutes: 15,
    notifierIds: [slack.id, incidentBot.id],
  },
  onHttpLogs,
);

/** Marks the release on every chart the monitors above watch. */
const deploy = new obs.Annotation(
  "deploy",
  {
    datasets: [HTTP_LOGS, APP_LOGS],
    type: "deploy",
    title: `Deploy ${release}`,
    description: "Checkout and payments rolled out by the release pipeline.",
    url: "https://example.com/releases/checkout",
  },
  { dependsOn: [httpLogs, appLogs] },
);

const onCallQuery = new obs.StarredQuery(
  "oncall-5xx-by-route",
  {
    kind: "apl",
    name: "On-call: checkout 5xx by route",
    who: "team",
    dataset: HTTP_LOGS,
    query: {
      apl: `['${HTTP_LOGS}'] | where service == "checkout" and status >= 500 | summarize count() by route`,
      startTime: "now-1h",
      endTime: "now",
    },
    metadata: { dashboard: "on-call", owner: "sre" },
  },
  onHttpLogs,
);

/** What the monitors watch, on one board: the 5xx rate they alert on, their states, and where alerts go. */
const checkoutBoard = new obs.Dashboard("checkout-health", {
  uid: "checkout-health",
  dashboard: {
    name: "Checkout health",
    description: "What the checkout monitors watch",
    charts: [
      {
        id: "errors",
        type: "TimeSeries",
        name: "Checkout 5xx per minute",
        query: { apl: errorRate.aplQuery },
      },
      {
        id: "monitors",
        type: "MonitorList",
        name: "Checkout monitors",
        selectedMonitors: [errorRate.id, paymentPanics.id, latencyAnomaly.id],
        columns: { status: true, history: true, dataset: true, type: false, notifiers: true },
      },
      {
        id: "runbook",
        type: "Note",
        text: "Alerts go to on-call Slack and PagerDuty. Runbook: https://runbooks.example/checkout",
      },
    ],
    layout: [
      { i: "errors", x: 0, y: 0, w: 8, h: 6 },
      { i: "monitors", x: 8, y: 0, w: 4, h: 6 },
      { i: "runbook", x: 0, y: 6, w: 12, h: 2 },
    ],
    refreshTime: 60,
    schemaVersion: 2,
    timeWindowStart: "qr-now-1h",
    timeWindowEnd: "qr-now",
  },
});

/** The datasets' names (their ids). */
export const datasets = { httpLogs: httpLogs.id, appLogs: appLogs.id };

/** The monitors' ids, by role. */
export const monitorIds = {
  errorRate: errorRate.id,
  paymentPanics: paymentPanics.id,
  latencyAnomaly: latencyAnomaly.id,
};

/** The notifiers' ids, by channel. */
export const notifierIds = {
  slack: slack.id,
  pagerduty: pagerduty.id,
  incidentBot: incidentBot.id,
};

/** The deploy annotation and the on-call starred query. */
export const annotationId = deploy.id;
export const starredQueryId = onCallQuery.id;

/** The checkout service's ingest-only token: a secret output (`pulumi stack output --show-secrets` reveals it). */
export const ingestToken = pulumi.secret(checkoutIngest.token);
export const ingestTokenId = checkoutIngest.id;

/** The virtual field's id, and the dashboard's uid. */
export const virtualFieldId = durationMs.id;
export const dashboardUid = checkoutBoard.uid;
