/**
 * Team access: who may do what, declared as code.
 *
 * An SRE role that owns alerting and can ingest and query the service's datasets, a read-only support role
 * limited to one dataset and one view, and the organization's display name. Deleting the stack restores the
 * name the organization had before.
 */
import * as pulumi from "@pulumi/pulumi";
import * as obs from "pulumi-observability";

const config = new pulumi.Config();
/** The organization whose name is managed: the provider's own `observability:orgId`, or its env fallback. */
const orgId = new pulumi.Config("observability").get("orgId") ?? process.env.OBSERVABILITY_ORG_ID;
if (!orgId) {
  throw new Error(
    "team-access needs the organization id: `pulumi config set observability:orgId <id>` or OBSERVABILITY_ORG_ID",
  );
}
const orgName = config.get("orgName") ?? "Acme Checkout (managed by Pulumi)";
/** User ids to put in the SRE role; none by default. */
const sreMembers = config.getObject<string[]>("sreMembers") ?? [];

const CRUD: ("create" | "read" | "update" | "delete")[] = ["create", "read", "update", "delete"];

const sre = new obs.Role("sre", {
  name: "sre",
  description:
    "Site reliability: owns monitors, notifiers and annotations; ingests and queries service data.",
  members: sreMembers,
  orgCapabilities: {
    monitors: CRUD,
    notifiers: CRUD,
    annotations: CRUD,
    dashboards: ["create", "read", "update"],
    datasets: ["read"],
    auditLog: ["read"],
    billing: ["read"],
  },
  datasetCapabilities: {
    "http-logs": { ingest: ["create"], query: ["read"], starredQueries: CRUD, trim: ["update"] },
    "app-logs": { ingest: ["create"], query: ["read"], starredQueries: CRUD },
  },
  viewCapabilities: {
    "checkout-errors": { query: ["read"], share: ["create", "read", "delete"] },
  },
});

const support = new obs.Role("support-readonly", {
  name: "support-readonly",
  description: "Customer support: reads dashboards and the app logs, nothing else.",
  orgCapabilities: {
    dashboards: ["read"],
    annotations: ["read"],
  },
  datasetCapabilities: {
    "app-logs": { query: ["read"] },
  },
  viewCapabilities: {
    "checkout-errors": { query: ["read"] },
  },
});

const org = new obs.OrganizationName("org-name", {
  organizationId: orgId,
  name: orgName,
});

/** The roles' ids, by name. */
export const roleIds = { sre: sre.id, support: support.id };
/** The organization's name as the service now reports it. */
export const organizationName = org.name;
