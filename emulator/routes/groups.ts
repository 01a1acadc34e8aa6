/**
 * RBAC groups: `/v2/rbac/groups` and `/v2/rbac/groups/{id}` (create answers 200, as the OpenAPI document says).
 * Names are unique (the document: "Unique name identifier for the group"): a clash is a 409. Every role id must
 * be a role of the organization (the `roles` collection) or a built-in role (axiom-go `axiom/users.go` `UserRole`: `none`,
 * `read-only`, `user`, `admin`, `owner`); another is a 422 naming `roles[i]`. Member ids are not checked. The
 * read-only `isManaged` in a body is ignored; groups made here are never managed (`false`).
 */
import { GroupCreateSchema } from "../../provider/schemas";
import { HttpError, INVALID_FIELD_STATUS, validateBody } from "../http";
import type { StoredObject } from "../state";
import { compact, type CollectionFamily } from "./common";

/** Roles every organization has without declaring them. */
const BUILT_IN_ROLES = new Set(["none", "read-only", "user", "admin", "owner"]);

/** The group family. */
export const groups: CollectionFamily = {
  name: "groups",
  idPrefix: "group_",
  path: "/v2/rbac/groups",
  capability: "rbac",
  routes: (col, em) => {
    const roles = em.state.collection("roles");
    /** The validated group; its name must be free but for the group being replaced. */
    const group = (raw: Record<string, unknown>, id: string, replacing?: string): StoredObject => {
      const { isManaged: _readOnly, ...rest } = raw;
      const body = validateBody(GroupCreateSchema, rest);
      const unknown = (body.roles ?? []).flatMap((role, i) =>
        BUILT_IN_ROLES.has(role) || roles.get(role) ? [] : [`roles[${i}]: no role with id "${role}" exists`],
      );
      if (unknown.length > 0) throw new HttpError(INVALID_FIELD_STATUS, unknown.join("; "));
      if (col.list().some((g) => g.name === body.name && g.id !== replacing)) {
        throw new HttpError(409, `name: a group named "${body.name}" already exists`);
      }
      return compact({ id, ...body, isManaged: false }) as StoredObject;
    };
    return {
      create: (raw, id) => group(raw, id),
      update: (raw, current) => ({ ...group(raw, current.id, current.id), isManaged: current.isManaged }),
    };
  },
};
