/** RBAC roles: `/v2/rbac/roles` and `/v2/rbac/roles/{id}`; names are unique (409 on a clash). */
import { RoleCreateSchema } from "../../provider/schemas";
import type { EmulatorContext } from "../context";
import { HttpError, Router, validateOr400 } from "../http";
import type { StoredObject } from "../state";
import { compact, registerCollection } from "./common";

/** Registers the role routes. */
export function registerRoles(router: Router, em: EmulatorContext): void {
  const col = em.state.roles;
  const assertNameFree = (name: string, exceptId?: string) => {
    if (col.list().some((r) => r.name === name && r.id !== exceptId)) {
      throw new HttpError(409, `name: a role named "${name}" already exists`);
    }
  };

  /** The validated role; its name must be free but for the role being replaced. */
  const role = (raw: Record<string, unknown>, id: string, replacing?: string): StoredObject => {
    const body = validateOr400(RoleCreateSchema, raw);
    assertNameFree(body.name, replacing);
    return compact({ id, ...body }) as StoredObject;
  };

  registerCollection(router, em, {
    path: "/v2/rbac/roles",
    collection: col,
    create: (raw, id) => role(raw, id),
    update: (raw, current) => role(raw, current.id, current.id),
  });
}
