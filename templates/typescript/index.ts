/**
 * A starting point on pulumi-observability: a dataset for your logs, a Slack notifier whose webhook URL is a secret,
 * and a monitor of the dataset's errors that alerts it. Its exports are the stack's outputs.
 */
import * as pulumi from "@pulumi/pulumi";
import * as obs from "@pulumi-observability/sdk";

const config = new pulumi.Config();
// Read as a secret: encrypted in state, masked in the engine's output.
const slackUrl = config.requireSecret("slackWebhookUrl");

const logs = new obs.Dataset("logs", {
  // Unique in the organization: the project's name, which `pulumi new` asked for.
  name: `${pulumi.getProject()}-logs`,
  description: `Logs of ${pulumi.getProject()}, managed by Pulumi.`,
  retentionDays: 30,
  useRetentionPeriod: true,
});

const oncall = new obs.Notifier("oncall-slack", {
  name: `${pulumi.getProject()} on-call (Slack)`,
  properties: { slack: { slackUrl } },
});

const errors = new obs.Monitor("errors", {
  name: `${pulumi.getProject()} errors`,
  description: "More than 10 error events in five minutes.",
  type: obs.MonitorType.Threshold,
  // Reading the dataset's name from the resource makes the monitor wait for it. One count over the five-minute
  // range, as the description says (by bin_auto(_time), the threshold would apply to bins of a size the range picks).
  aplQuery: pulumi.interpolate`['${logs.name}'] | where level == 'error' | summarize count()`,
  operator: obs.MonitorOperator.Above,
  threshold: 10,
  intervalMinutes: 5,
  rangeMinutes: 5,
  notifierIds: [oncall.id],
});

export const datasetName = logs.name;
export const notifierId = oncall.id;
export const monitorId = errors.id;
