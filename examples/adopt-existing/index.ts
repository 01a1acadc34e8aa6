/**
 * Adopting objects created outside Pulumi.
 *
 * Dynamic providers cannot use `pulumi import`, so each resource takes `adopt: "<existing id>"`: on create it
 * reads that object and updates it to the state declared here, instead of creating a new one. After the first
 * `pulumi up` the objects are managed like any other; `pulumi destroy` deletes them.
 */
import * as pulumi from "@pulumi/pulumi";
import * as obs from "pulumi-observability";

const config = new pulumi.Config();
/** Id (`notify_…`) of the notifier made by hand, e.g. in the web UI or with curl. */
const existingNotifierId = config.require("existingNotifierId");
/** Id (`mon_…`) of the monitor made by hand. */
const existingMonitorId = config.require("existingMonitorId");

const platformEmail = new obs.Notifier("platform-email", {
  adopt: existingNotifierId,
  name: "Platform team email",
  properties: { email: { emails: ["platform-oncall@example.com", "platform-leads@example.com"] } },
});

const diskFull = new obs.Monitor("disk-full", {
  adopt: existingMonitorId,
  name: "Hosts: disk above 90%",
  description: "Now managed by Pulumi; edits made elsewhere show up as drift on the next refresh.",
  type: "Threshold",
  aplQuery: "['host-metrics'] | where disk_used_pct > 90 | summarize count() by bin(_time, 5m)",
  operator: "Above",
  threshold: 0,
  intervalMinutes: 5,
  rangeMinutes: 5,
  notifierIds: [platformEmail.id],
});

/** The same ids that were adopted: nothing new was created. */
export const notifierId = platformEmail.id;
export const monitorId = diskFull.id;
