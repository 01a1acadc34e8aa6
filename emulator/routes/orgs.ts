/** Organizations: `GET /v2/orgs`, `GET /v2/orgs/{id}` and `PUT /v2/orgs/{id}` (only the name changes). */
import { OrgUpdateSchema } from "../../provider/schemas";
import { validateBody } from "../http";
import type { StoredObject } from "../state";
import { isoSeconds } from "../time";
import { OPEN } from "../auth";
import type { CollectionFamily } from "./common";

/**
 * The edge deployments the emulated organization may use, each `{id, instanceName, deploymentType, cloud, domain,
 * description, environmentDefault}` (the OpenAPI document's `EdgeDeployment`). The license lists only their ids:
 * `License.edgeDeployments` is an array of strings (axiomhq/docs content/docs/(api-reference)/restapi/versions/v2.json).
 * A dataset created without `edgeDeployment` gets the default; its `edgeDeploymentUrl` comes from the domain here.
 */
export const EDGE_DEPLOYMENTS = [
  {
    id: "cloud.us-east-1.aws",
    instanceName: "US East 1 (AWS)",
    deploymentType: "cloud",
    cloud: "aws",
    domain: "us-east-1.aws.edge.localhost",
    description: "United States, AWS us-east-1 (emulated)",
    environmentDefault: true,
  },
  {
    id: "cloud.eu-central-1.aws",
    instanceName: "EU Central 1 (AWS)",
    deploymentType: "cloud",
    cloud: "aws",
    domain: "eu-central-1.aws.edge.localhost",
    description: "Europe, AWS eu-central-1 (emulated)",
    environmentDefault: false,
  },
] as const;
/** The license's default edge deployment. */
export const DEFAULT_EDGE_DEPLOYMENT = EDGE_DEPLOYMENTS[0].id;

/** The emulator organization: a realistic org object whose license carries every field the API reference names. */
function defaultOrg(orgId: string, now = new Date()): StoredObject {
  const day = 86_400_000;
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  const created = new Date(now.getTime() - 30 * day);
  return {
    id: orgId,
    name: "Local Development",
    slug: orgId,
    plan: "personal",
    planCreated: isoSeconds(created),
    paymentStatus: "na",
    primaryEmail: "dev@localhost",
    lastUsageSync: isoSeconds(now),
    firstFailedPayment: "",
    role: "owner",
    metaCreated: isoSeconds(created),
    metaModified: isoSeconds(created),
    metaVersion: "1",
    defaultEdgeDeployment: DEFAULT_EDGE_DEPLOYMENT,
    license: {
      id: `lic_${orgId}`,
      tier: "personal",
      issuer: "observability-emulator",
      issuedTo: orgId,
      issuedAt: isoSeconds(created),
      validFrom: isoSeconds(created),
      expiresAt: isoSeconds(new Date(now.getTime() + 365 * day)),
      billingPeriodStart: isoSeconds(start),
      billingPeriodEnd: isoSeconds(end),
      apiRateLimitPerSecond: 100,
      maxAuditWindowSeconds: 7 * 86_400,
      maxDatasets: 100,
      maxEndpoints: 10,
      maxFields: 2048,
      maxMonitors: 100,
      maxQueryWindowSeconds: 30 * 86_400,
      maxUsers: 10,
      monthlyIngestGb: 500,
      monthlyQueryGbHours: 10,
      storageAllowanceGB: 500,
      withAuths: ["api-token", "personal-token"],
      features: { rbac: true, apl: true, monitors: true, annotations: true },
      defaultEdgeDeployment: DEFAULT_EDGE_DEPLOYMENT,
      edgeDeployments: EDGE_DEPLOYMENTS.map((e) => e.id),
    },
  };
}

/** The organization family: the emulator's org exists with it, so no POST, no DELETE (405), and PUT changes only the name. */
export const orgs: CollectionFamily = {
  name: "orgs",
  idPrefix: "org_",
  path: "/v2/orgs",
  deletable: false,
  // The OpenAPI document asks no capability (`security: [{Auth: []}]`); renaming is for the developer tokens.
  capability: (action) =>
    action === "read" ? OPEN : { kind: "developer", why: "renaming the organization needs a user's token" },
  seed: (orgId) => [defaultOrg(orgId)],
  routes: () => ({
    update: (raw, current) => {
      const { name } = validateBody(OrgUpdateSchema, raw);
      const version = Number(current.metaVersion ?? "0");
      return {
        ...current,
        name,
        metaModified: isoSeconds(),
        metaVersion: String(Number.isFinite(version) ? version + 1 : 1),
      };
    },
  }),
};
