/** Organization: the API reference's Organization object (axiom.co/docs/restapi). Endpoints: `/v2/orgs`. */
import { z } from "zod";
import { NonEmptyStringSchema, absentWhenUnset } from "./common";
import { EdgeDeploymentSchema } from "./dataset";

export const PAYMENT_STATUSES = ["na", "failed", "success", "blocked"] as const;
/** The API reference's plans, plus `accelerator`, which the service also returns. */
export const PLANS = [
  "personal",
  "basicDirect",
  "teamMonthlyDirect",
  "teamMonthlyAws",
  "axiomCloud",
  "teamPlus",
  "enterprise",
  "comped",
  "accelerator",
] as const;

/** Body of `PUT /v2/orgs/{id}`: only the name may change. */
export const OrgUpdateSchema = z.object({ name: NonEmptyStringSchema });
export type OrgUpdate = z.input<typeof OrgUpdateSchema>;

/** Body of `POST /v2/orgs` (the OpenAPI v2 document's `PostOrg`): a name, and the default edge deployment. */
export const OrgCreateSchema = z.object({
  name: NonEmptyStringSchema,
  edgeDeployment: z.string({ error: "must be a string" }).optional(),
});
export type OrgCreate = z.input<typeof OrgCreateSchema>;

/** Body of `POST /v2/orgs/provision` (`ProvisionOrg`): both optional; the service names the org when not given. */
export const OrgProvisionSchema = z.object({
  name: NonEmptyStringSchema.optional(),
  edgeDeployment: z.string({ error: "must be a string" }).optional(),
});
export type OrgProvision = z.input<typeof OrgProvisionSchema>;

/** The license the org carries: shape only, every field optional (the service adds and drops licence fields),
 * unknown fields kept. */
export const LicenseSchema = absentWhenUnset(
  z
    .looseObject({
      apiRateLimitPerSecond: z.number(),
      billingPeriodEnd: z.string(),
      billingPeriodStart: z.string(),
      // Any shape: the service has sent both a map of flags and a list of names here.
      features: z.unknown(),
      id: z.string(),
      issuedAt: z.string(),
      issuedTo: z.string(),
      issuer: z.string(),
      maxAuditWindowSeconds: z.number(),
      maxDatasets: z.number(),
      maxEndpoints: z.number(),
      maxFields: z.number(),
      maxMonitors: z.number(),
      maxQueryWindowSeconds: z.number(),
      maxUsers: z.number(),
      monthlyIngestGb: z.number(),
      monthlyQueryGbHours: z.number(),
      tier: z.string(),
      validFrom: z.string(),
      withAuths: z.array(z.string()),
      expiresAt: z.string(),
      storageAllowanceGB: z.number(),
      /** The edge deployment a dataset gets when it names none. */
      defaultEdgeDeployment: z.string(),
      /** A list of deployment ids (OpenAPI `License`); objects, which an older page described, read too. */
      edgeDeployments: z.array(z.union([z.string(), EdgeDeploymentSchema])),
    })
    .partial(),
  { keepMismatched: true },
);

/** An organization as the service returns it: shape only (a new plan or payment status reads fine), only `id`
 * required, unknown fields kept, the zero time (`lastUsageSync` of an org never synced) read as absent, a field of an
 * unexpected type kept as sent. */
export const OrgSchema = absentWhenUnset(
  z
    .looseObject({
      name: z.string(),
      lastUsageSync: z.string(),
      license: LicenseSchema,
      paymentStatus: z.string(),
      plan: z.string(),
      planCreated: z.string(),
      primaryEmail: z.string(),
      firstFailedPayment: z.string(),
      metaCreated: z.string(),
      metaModified: z.string(),
      metaVersion: z.string(),
      role: z.string(),
      /** The organization's default edge deployment (optional in the OpenAPI document's `Org`). */
      defaultEdgeDeployment: z.string(),
    })
    .partial()
    .extend({ id: z.string() }),
  { zeroIsAbsent: true, keepMismatched: true },
);
export type Org = z.infer<typeof OrgSchema>;
export type License = z.infer<typeof LicenseSchema>;
