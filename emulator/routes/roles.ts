/** RBAC roles: `/v2/rbac/roles` and `/v2/rbac/roles/{id}`; names are unique (409 on a clash). */
import { RoleCreateSchema } from "../../provider/schemas";
import { HttpError, validateBody } from "../http";
import type { StoredObject } from "../state";
import { compact, type CollectionFamily } from "./common";

/** The role family. */
export const roles: CollectionFamily = {
  name: "roles",
  idPrefix: "role_",
  path: "/v2/rbac/roles",
  // The OpenAPI document says `rbac|create` for PUT and DELETE too, which reads as a slip; the method decides.
  capability: "rbac",
  routes: (col) => {
    /** The validated role; its name must be free but for the role being replaced. */
    const role = (raw: Record<string, unknown>, id: string, replacing?: string): StoredObject => {
      const body = validateBody(RoleCreateSchema, raw);
      if (col.list().some((r) => r.name === body.name && r.id !== replacing)) {
        throw new HttpError(409, `name: a role named "${body.name}" already exists`);
      }
      return compact({ id, ...body }) as StoredObject;
    };
    return {
      create: (raw, id) => role(raw, id),
      update: (raw, current) => role(raw, current.id, current.id),
    };
  },
};
