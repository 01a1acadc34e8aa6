/**
 * The flagship stack: the alerting of a checkout service.
 *
 * The two datasets the service sends its logs to and the monitors query (the service refuses ingest and queries
 * into a dataset that was never created), three notifiers (Slack, PagerDuty, an incident bot's custom webhook)
 * whose URLs and keys come from secret stack config, three monitors (one of each type) wired to them by id, a
 * deploy annotation on the datasets the monitors watch, and a starred query for the on-call dashboard.
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

const httpLogs = new obs.Dataset("http-logs", {
  name: HTTP_LOGS,
  description: "Access logs of the checkout API.",
  retentionDays: 30,
  useRetentionPeriod: true,
});

const appLogs = new obs.Dataset("app-logs", {
  name: APP_LOGS,
  description: "Application logs of the checkout and payments services.",
  retentionDays: 14,
  useRetentionPeriod: true,
  mapFields: ["attributes"],
});

/** What queries a dataset is created after it and destroyed before it. */
const onHttpLogs = { dependsOn: [httpLogs] };
const onAppLogs = { dependsOn: [appLogs] };

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
      body: '{"monitor":"{{.MonitorName}}","state":"{{.State}}","query":"{{.Query}}"}',
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
    aplQuery: `['${HTTP_LOGS}'] | where service == "checkout" | summarize avg(duration_ms) by bin(_time, 5m)`,
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
