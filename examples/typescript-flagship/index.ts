/**
 * The flagship in TypeScript, on the generated Node.js SDK (@pulumi-observability/sdk): the dataset a checkout
 * service logs to, the ingest-only token it sends them with, an on-call Slack notifier whose webhook URL is a
 * secret, two monitors wired to that notifier, and a role for the on-call team. Its exports are the stack's outputs.
 *
 * `pulumi up` in this folder runs it (Pulumi.yaml: `runtime: nodejs`). The tests import this same module as an
 * Automation API inline program (test/e2e-native/drivers/inline.mts), since no Node.js language host is served to
 * their machines.
 */
import * as pulumi from "@pulumi/pulumi";
import * as obs from "@pulumi-observability/sdk";

const HTTP_LOGS = "http-logs";

const config = new pulumi.Config();
// Read as a secret: encrypted in state, masked in the engine's output.
const slackUrl = config.requireSecret("slackWebhookUrl");

const httpLogs = new obs.Dataset("http-logs", {
  name: HTTP_LOGS,
  description: "Access logs of the checkout API.",
  retentionDays: 30,
  useRetentionPeriod: true,
  forceDestroy: true,
});
const onHttpLogs = { dependsOn: [httpLogs] };

const ingest = new obs.ApiToken(
  "checkout-ingest",
  {
    name: "checkout ingest",
    description: "Used by the checkout service to send its access logs; ingest into http-logs only.",
    datasetCapabilities: { [HTTP_LOGS]: { ingest: ["create"] } },
  },
  onHttpLogs,
);

const slack = new obs.Notifier("oncall-slack", {
  name: "On-call Slack (#checkout-alerts)",
  properties: { slack: { slackUrl } },
});

const errorRate = new obs.Monitor(
  "error-rate",
  {
    name: "Checkout 5xx rate",
    description: "More than 25 server errors in five minutes.",
    type: obs.MonitorType.Threshold,
    // One count over the five-minute range, as the description says. Binned by bin_auto(_time), the threshold
    // would apply to each bin, whose size follows the range (5-second bins over five minutes in the emulator;
    // the service promises no size): 25 errors in a few seconds, not in five minutes.
    aplQuery: `['${HTTP_LOGS}'] | where status >= 500 | summarize count()`,
    operator: obs.MonitorOperator.Above,
    threshold: 25,
    intervalMinutes: 5,
    rangeMinutes: 5,
    notifierIds: [slack.id],
  },
  onHttpLogs,
);

const panics = new obs.Monitor(
  "panics",
  {
    name: "Checkout panics",
    type: obs.MonitorType.MatchEvent,
    aplQuery: `['${HTTP_LOGS}'] | where message contains 'panic'`,
    intervalMinutes: 1,
    rangeMinutes: 1,
    notifierIds: [slack.id],
  },
  onHttpLogs,
);

const oncall = new obs.Role(
  "oncall",
  {
    name: "checkout on-call",
    description: "Reads the checkout logs, silences and edits its monitors.",
    orgCapabilities: { monitors: ["read", "update"], notifiers: ["read"] },
    datasetCapabilities: { [HTTP_LOGS]: { query: ["read"] } },
  },
  onHttpLogs,
);

// A dataset made outside Pulumi, taken under management by id when `importDatasetId` is set.
const importId = config.get("importDatasetId");
if (importId) {
  new obs.Dataset(
    "legacy-logs",
    { name: importId, description: "Logs of the retired checkout service.", retentionDays: 7 },
    { import: importId },
  );
}

export const datasetName = httpLogs.name;
export const ingestToken = ingest.token;
export const notifierId = slack.id;
export const monitorIds = [errorRate.id, panics.id];
export const roleId = oncall.id;
