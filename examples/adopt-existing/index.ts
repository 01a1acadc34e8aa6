/**
 * Adopting objects created outside Pulumi.
 *
 * Dynamic providers cannot use `pulumi import`, so each resource takes `adopt: "<existing id>"`: on create it
 * reads that object and updates it to the state declared here, instead of creating a new one. The ids come from
 * lookups by name (`getNotifierOutput`, `getMonitorOutput`). After the first `pulumi up` the objects are managed
 * like any other; `pulumi destroy` deletes them.
 */
import * as pulumi from "@pulumi/pulumi";
import * as obs from "pulumi-observability";

const config = new pulumi.Config();
/** Name of the notifier made by hand, e.g. in the web UI or with curl; it keeps this name once adopted. */
const notifierName = config.get("notifierName") ?? "Platform team email";
/** Name of the monitor made by hand; it keeps this name once adopted. */
const monitorName = config.get("monitorName") ?? "Hosts: disk above 90%";
/** How many such events within five minutes the monitor lets pass before it fires; by default it fires on the first. */
const diskEventsAllowed = config.getNumber("diskEventsAllowed") ?? 0;

// Looked up by name, not by a hard-coded id: the program finds the objects wherever they were made. The names
// are kept when adopting, so the same lookups find the same objects on every later run. A notifier's lookup is
// secret (its channel holds credentials); its id is not.
const existingNotifierId = pulumi.unsecret(obs.getNotifierOutput({ name: notifierName }).apply((n) => n.id));
const existingMonitorId = obs.getMonitorOutput({ name: monitorName }).apply((m) => m.id);

const platformEmail = new obs.Notifier("platform-email", {
  adopt: existingNotifierId,
  name: notifierName,
  properties: { email: { emails: ["platform-oncall@example.com", "platform-leads@example.com"] } },
});

const diskFull = new obs.Monitor("disk-full", {
  adopt: existingMonitorId,
  name: monitorName,
  description: "Now managed by Pulumi; edits made elsewhere show up as drift on the next refresh.",
  type: "Threshold",
  aplQuery: "['host-metrics'] | where disk_used_pct > 90 | summarize count() by bin(_time, 5m)",
  operator: "Above",
  threshold: diskEventsAllowed,
  intervalMinutes: 5,
  rangeMinutes: 5,
  notifierIds: [platformEmail.id],
});

/** The same ids that were adopted: nothing new was created. */
export const notifierId = platformEmail.id;
export const monitorId = diskFull.id;
