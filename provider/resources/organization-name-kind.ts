/**
 * How the lifecycle engine handles OrganizationName (its declaration), apart from the Resource class in organization-name.ts, which
 * imports @pulumi/pulumi: the native provider plugin loads this file and not that one (kinds.ts).
 */
import { z } from "zod";
import type { ObservabilityClient } from "../client";
import { fieldNames, NonEmptyStringSchema, OrgUpdateSchema, type Org } from "../schemas";
import { CREATE_SENDS_NO_POST, READS_ONE_BY_ONE } from "./descriptor";
import { declareKind, fromSchema } from "./lifecycle";

/** @internal What a user declares: the org id and the `PUT /v2/orgs/{id}` body, unknown fields refused. */
export const OrganizationNameInputSchema = z.strictObject({
  organizationId: NonEmptyStringSchema,
  ...OrgUpdateSchema.shape,
});

/** The organization as returned, plus the name it had before this resource renamed it. */
type Renamed = Org & { previousName?: string };

const INPUT_KEYS = fieldNames(OrganizationNameInputSchema);
export const OUTPUT_KEYS = [
  ...INPUT_KEYS,
  "previousName",
  "lastUsageSync",
  "license",
  "paymentStatus",
  "plan",
  "planCreated",
  "primaryEmail",
  "firstFailedPayment",
  "metaCreated",
  "metaModified",
  "metaVersion",
  "role",
] as const;

/** @internal How the lifecycle engine handles the organization's name. */
export const declaration = declareKind<Renamed, "OrganizationName">({
  kind: "OrganizationName",
  ...fromSchema(OrganizationNameInputSchema),
  setPaths: [],
  replaceKeys: ["organizationId"],
  adoptable: false,
  adoptRefusal:
    "it needs no `adopt`: declaring one already takes the organization of its " +
    "`organizationId` under management (its create renames it, and its delete restores the name it had)",
  carryKeys: ["previousName"],
  family: (client: ObservabilityClient, olds) => ({
    get: (id) => client.orgs.get(id),
    async create(body) {
      const id = String(body.organizationId);
      const before = await client.orgs.get(id);
      const after = await client.orgs.update(id, { name: String(body.name) });
      return { ...after, previousName: before.name };
    },
    update: (id, body) => client.orgs.update(id, { name: String(body.name) }),
    async delete(id) {
      // Restores the name the org had before; without a recorded name there is nothing to undo.
      if (typeof olds.previousName === "string" && olds.previousName !== "") {
        await client.orgs.update(id, { name: olds.previousName });
      }
    },
  }),
  // Create is a GET and an idempotent PUT: no POST whose outcome could be unknown.
  reconcile: CREATE_SENDS_NO_POST,
  // An organization has one name, so a refresh reads one OrganizationName per organization: a listing of the
  // organizations would answer no other read, and costs more bytes than the one GET.
  readAll: READS_ONE_BY_ONE,
  toBody: (inputs) => ({ organizationId: inputs.organizationId, name: inputs.name }),
  toInputs: (org) => ({ organizationId: org.id, name: org.name }),
  toOutputs: (org) => ({ ...org, organizationId: org.id }),
});
