/** Role (RBAC): the API reference's Role object (axiom.co/docs/restapi) and the OpenAPI v2 document's capability action lists. Endpoints: `/v2/rbac/roles`. */
import { z } from "zod";
import { NonEmptyStringSchema, absentWhenUnset, serviceDefault, uniqueList } from "./common";

const CRUD = ["create", "read", "update", "delete"] as const;
type Action = (typeof CRUD)[number];

/** The actions each organization capability allows. */
export const ORG_CAPABILITY_ACTIONS: Record<string, readonly Action[]> = {
  annotations: CRUD,
  apiTokens: CRUD,
  auditLog: ["read"],
  billing: ["read", "update"],
  dashboards: CRUD,
  datasets: CRUD,
  endpoints: CRUD,
  flows: CRUD,
  integrations: CRUD,
  monitors: CRUD,
  notifiers: CRUD,
  rbac: CRUD,
  sharedAccessKeys: ["read", "update"],
  users: CRUD,
  views: CRUD,
};

/** The actions each per-dataset capability allows. */
export const DATASET_CAPABILITY_ACTIONS: Record<string, readonly Action[]> = {
  ingest: ["create"],
  query: ["read"],
  data: ["delete"],
  trim: ["update"],
  vacuum: ["update"],
  share: ["create", "read", "delete"],
  starredQueries: CRUD,
  virtualFields: CRUD,
};

/** The actions each per-view capability allows. */
export const VIEW_CAPABILITY_ACTIONS: Record<string, readonly Action[]> = {
  query: ["read"],
  share: ["create", "read", "delete"],
};

function actionList(allowed: readonly Action[]) {
  const message = `each action must be one of ${allowed.join(", ")}`;
  return uniqueList(z.enum(allowed as [Action, ...Action[]], { error: message }));
}

/** An object of capabilities from `table`, each a list of its allowed actions (shared with API tokens). */
export function capabilityObject(table: Record<string, readonly Action[]>, strict: boolean) {
  const shape = Object.fromEntries(
    Object.entries(table).map(([k, allowed]) => [k, actionList(allowed).optional()]),
  );
  return strict ? z.strictObject(shape) : z.object(shape);
}

export type Capabilities = Partial<Record<string, Action[]>>;

const roleFields = (strict: boolean) => ({
  /** Required; unique in the organization. */
  name: NonEmptyStringSchema,
  description: serviceDefault(z.string({ error: "must be a string" }).optional(), ""),
  /** User ids assigned to the role. */
  members: serviceDefault(uniqueList(NonEmptyStringSchema).optional(), []),
  /** Organization-wide permissions: capability to actions. */
  orgCapabilities: serviceDefault(capabilityObject(ORG_CAPABILITY_ACTIONS, strict).optional(), {}),
  /** Dataset name to its capabilities. */
  datasetCapabilities: serviceDefault(
    z.record(NonEmptyStringSchema, capabilityObject(DATASET_CAPABILITY_ACTIONS, strict)).optional(),
    {},
  ),
  /** View name to its capabilities. */
  viewCapabilities: serviceDefault(
    z.record(NonEmptyStringSchema, capabilityObject(VIEW_CAPABILITY_ACTIONS, strict)).optional(),
    {},
  ),
});

/** Body of `POST /v2/rbac/roles` and `PUT /v2/rbac/roles/{id}`. Unknown capability keys are refused even here,
 * since silently dropping a permission would grant less than asked. */
const RoleObjectSchema = z.object(roleFields(true));
export const RoleCreateSchema = absentWhenUnset(RoleObjectSchema);
export const RoleUpdateSchema = RoleCreateSchema;
/** What a user declares. */
export const RoleInputSchema = z.strictObject(roleFields(true));

export type RoleCreate = z.input<typeof RoleObjectSchema>;
export type RoleUpdate = RoleCreate;

/** A role as the service returns it; unknown fields survive. A capability sent as null reads as absent
 * (`orgCapabilities: {apiTokens: null}`), and a field of an unexpected type is kept as sent, so the provider's
 * read shows drift instead of failing. */
export const RoleSchema = absentWhenUnset(
  z
    .looseObject({
      name: z.string(),
      description: z.string(),
      members: z.array(z.string()),
      orgCapabilities: z.record(z.string(), z.array(z.string())),
      datasetCapabilities: z.record(z.string(), z.record(z.string(), z.array(z.string()))),
      viewCapabilities: z.record(z.string(), z.record(z.string(), z.array(z.string()))),
    })
    .partial()
    .extend({ id: z.string() }),
  { keepMismatched: true },
);
export type Role = z.infer<typeof RoleSchema>;
