/**
 * Team access: who may do what, declared as code.
 *
 * The view both roles may query, an SRE role that owns alerting and can ingest and query the service's datasets,
 * a read-only support role limited to one dataset and that view, two users, an on-call group that gives those
 * users both roles, and the organization's display name. Deleting the stack restores the name the organization
 * had before.
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

/** The saved query the roles grant access to; a view's id is its name, which is what a role's viewCapabilities name. */
const checkoutErrors = new obs.View("checkout-errors", {
  name: "checkout-errors",
  aplQuery: `['http-logs'] | where service == "checkout" and status >= 500`,
  datasets: ["http-logs"],
  description: "5xx answers of the checkout service",
});
/** The roles name the view in their capabilities: created after it, deleted before it. */
const onView = { dependsOn: [checkoutErrors] };

const sre = new obs.Role(
  "sre",
  {
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
  },
  onView,
);

const support = new obs.Role(
  "support-readonly",
  {
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
  },
  onView,
);

// Creating a user invites them to the organization; a built-in role is their base, the group adds the rest.
const alice = new obs.User("alice", { name: "Alice Moreau", email: "alice@example.com", role: "user" });
const bob = new obs.User("bob", { name: "Bob Okafor", email: "bob@example.com", role: "read-only" });

/** Whoever carries the pager: its members hold both roles, wired by id (users and roles are created first). */
const oncall = new obs.Group("oncall", {
  name: "oncall",
  description: "Whoever carries the checkout pager this quarter.",
  members: [alice.id, bob.id],
  roles: [sre.id, support.id],
});

const org = new obs.OrganizationName("org-name", {
  organizationId: orgId,
  name: orgName,
});

/** The roles' ids, by name. */
export const roleIds = { sre: sre.id, support: support.id };
/** The users' ids, the on-call group's id, and the view's name (its id). */
export const userIds = { alice: alice.id, bob: bob.id };
export const groupId = oncall.id;
export const viewName = checkoutErrors.id;
/** The organization's name as the service now reports it. */
export const organizationName = org.name;
