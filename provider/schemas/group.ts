/**
 * Group (RBAC): a named set of users and the roles they all hold. Endpoints: `/v2/rbac/groups` and
 * `/v2/rbac/groups/{id}`. The OpenAPI document's `Group` (axiomhq/docs `…/restapi/versions/v2.json`): `name`
 * (required, "Unique name identifier for the group"), `description`, `members` ("List of user IDs"), `roles`
 * ("List of role IDs"), `isManaged` (readOnly); `GroupWithID` adds the required `id`. Create answers 200.
 */
import { z } from "zod";
import { NonEmptyStringSchema, absentWhenUnset, serviceDefault, uniqueList } from "./common";

const groupFields = {
  /** Required; unique in the organization. */
  name: NonEmptyStringSchema,
  description: serviceDefault(z.string({ error: "must be a string" }).optional(), ""),
  /** User ids in the group; a set. */
  members: serviceDefault(uniqueList(NonEmptyStringSchema).optional(), []),
  /** Role ids the group's members hold; a set. */
  roles: serviceDefault(uniqueList(NonEmptyStringSchema).optional(), []),
};

/** Body of `POST /v2/rbac/groups` and `PUT /v2/rbac/groups/{id}`; `isManaged`, read-only, is dropped. */
const GroupObjectSchema = z.object(groupFields);
export const GroupCreateSchema = absentWhenUnset(GroupObjectSchema);
export const GroupUpdateSchema = GroupCreateSchema;
/** What a user declares. */
export const GroupInputSchema = z.strictObject(groupFields);

export type GroupCreate = z.input<typeof GroupObjectSchema>;
export type GroupUpdate = GroupCreate;

/** A group as the service returns it (`GroupWithID`); unknown fields survive, odd ones are kept as sent. */
export const GroupSchema = absentWhenUnset(
  z
    .looseObject({
      name: z.string(),
      description: z.string(),
      members: z.array(z.string()),
      roles: z.array(z.string()),
      /** Whether the service manages the group (read-only). */
      isManaged: z.boolean(),
    })
    .partial()
    .extend({ id: z.string() }),
  { keepMismatched: true },
);
export type Group = z.infer<typeof GroupSchema>;
