/**
 * Organizations, every operation of the OpenAPI v2 document: `GET`/`POST /v2/orgs`, `POST /v2/orgs/provision`,
 * `GET /v2/orgs/{id}` and `PUT /v2/orgs/{id}` (only the name changes).
 *
 * The emulator serves one organization's data. An organization made by `POST /v2/orgs` or provisioned is a record
 * (listed, read, renamed), not a second set of data: a request names no organization but the emulator's own.
 * A provisioned organization's token is a real API token granting every capability, on the emulator's data; its
 * `expiresAt` (a day on) is when that token stops working, and the organization stays listed (no claim is served).
 */
import { randomUUID } from "node:crypto";
import {
  API_TOKEN_PREFIX,
  DATASET_CAPABILITY_ACTIONS,
  ORG_CAPABILITY_ACTIONS,
  OrgCreateSchema,
  OrgProvisionSchema,
  OrgUpdateSchema,
} from "../../provider/schemas";
import { HttpError, INVALID_FIELD_STATUS, json, jsonObjectBody, validateBody } from "../http";
import type { StoredObject } from "../state";
import { isoSeconds } from "../time";
import { OPEN, PUBLIC, TOKEN_HASH_FIELD, TOKENS_COLLECTION, tokenHash } from "../auth";
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

/** The edge deployment a body names, one of {@link EDGE_DEPLOYMENTS}; the default when it names none. */
function edgeDeploymentOf(given: string | undefined): string {
  if (given === undefined || given === "") return DEFAULT_EDGE_DEPLOYMENT;
  if (!EDGE_DEPLOYMENTS.some((e) => e.id === given)) {
    const known = EDGE_DEPLOYMENTS.map((e) => e.id).join(", ");
    throw new HttpError(INVALID_FIELD_STATUS, `edgeDeployment: must be one of ${known}`);
  }
  return given;
}

/** A new organization record `id` named `name`, on `edgeDeployment`. */
function newOrg(id: string, name: string, edgeDeployment: string): StoredObject {
  const org = defaultOrg(id);
  const license = { ...(org.license as Record<string, unknown>), defaultEdgeDeployment: edgeDeployment };
  return { ...org, name, defaultEdgeDeployment: edgeDeployment, license };
}

/** Every action of every capability: what a provisioned organization's token may do. */
function everything(actions: Record<string, readonly string[]>): Record<string, string[]> {
  return Object.fromEntries(Object.entries(actions).map(([k, v]) => [k, [...v]]));
}

/** How long a provisioned organization's token works (the document leaves the TTL to the service). */
const PROVISION_TTL_MS = 24 * 3_600_000;

/** The organization family: the emulator's org exists with it; no DELETE (405), and PUT changes only the name. */
export const orgs: CollectionFamily = {
  name: "orgs",
  idPrefix: "org_",
  path: "/v2/orgs",
  deletable: false,
  // The OpenAPI document asks no capability (`security: [{Auth: []}]`); creating and renaming are for the
  // developer tokens, as an API token belongs to one organization.
  capability: (action) =>
    action === "read"
      ? OPEN
      : {
          kind: "developer",
          why: `${action === "create" ? "creating" : "renaming"} an organization needs a user's token`,
        },
  seed: (orgId) => [defaultOrg(orgId)],
  routes: (col, em) => ({
    create: (raw, id) => {
      const body = validateBody(OrgCreateSchema, raw);
      return newOrg(id, body.name, edgeDeploymentOf(body.edgeDeployment));
    },
    more: (router) =>
      router.add(
        "POST",
        "/v2/orgs/provision",
        (ctx) => {
          const body = validateBody(OrgProvisionSchema, jsonObjectBody(ctx));
          const id = col.newId();
          const named = body.name ?? `Agent organization ${id}`;
          const org = col.set(newOrg(id, named, edgeDeploymentOf(body.edgeDeployment)));
          const expiresAt = isoSeconds(new Date(em.clock.nowMs() + PROVISION_TTL_MS));
          const value = `${API_TOKEN_PREFIX}${randomUUID()}`;
          const tokens = em.state.collection(TOKENS_COLLECTION);
          tokens.set({
            id: tokens.newId(),
            name: `provisioned ${org.id}`,
            description: `the token of the provisioned organization ${org.id}`,
            expiresAt,
            datasetCapabilities: { "*": everything(DATASET_CAPABILITY_ACTIONS) },
            orgCapabilities: everything(ORG_CAPABILITY_ACTIONS),
            viewCapabilities: {},
            samlAuthenticated: false,
            [TOKEN_HASH_FIELD]: tokenHash(value),
          });
          em.changed();
          return json({
            id: org.id,
            name: named,
            defaultEdgeDeployment: org.defaultEdgeDeployment,
            expiresAt,
            claimUrl: `https://claim.localhost/orgs/${encodeURIComponent(String(org.id))}`,
            token: value,
          });
        },
        PUBLIC,
      ),
    update: (raw, current) => {
      const { name } = validateBody(OrgUpdateSchema, raw);
      const version = Number(current.metaVersion ?? "0");
      return {
        ...current,
        name,
        metaModified: isoSeconds(new Date(em.clock.nowMs())),
        metaVersion: String(Number.isFinite(version) ? version + 1 : 1),
      };
    },
  }),
};
