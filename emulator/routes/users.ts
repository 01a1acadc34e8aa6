/**
 * Users: every users operation of the OpenAPI v2 document — `GET`/`POST /v2/users`, `GET`/`DELETE /v2/users/{id}`,
 * `PUT /v2/users/{id}/role`, `GET`/`PUT /v2/user` — plus `PUT /v2/users/{id} {name}`, which the document lacks but
 * axiom-go `Users.Update` sends (axiom/users.go:185-199) and terraform-provider-axiom uses for every update
 * (resource_user.go:151). That call renames and nothing else: a `role` in its body is ignored, which is why
 * Terraform's role changes never happen.
 *
 * A user's id is a UUID (axiom-go axiom/users_test.go:31-40). Its `role` is `{id, name}`: a built-in role's id is
 * its word (`owner`, `admin`, …), a custom role's id is an RBAC role's id, which must exist. A role that does not
 * exist is a 422 naming `role`: it is a body field that is invalid, not a missing path object (the document's 404
 * is for the user of the path; alchemy-run/distilled's live probes report 422 on `createUser` and `updateUserRole`).
 * Emails are unique in the organization, compared without regard to case: a second user with one is a 409 naming
 * `email` (our decision; the document is silent, and the email is the user's natural key).
 */
import { randomUUID } from "node:crypto";
import {
  BUILT_IN_ROLES,
  isBuiltInRole,
  UserCreateSchema,
  UserNameUpdateSchema,
  UserRoleUpdateSchema,
} from "../../provider/schemas";
import { OPEN, orgNeed } from "../auth";
import type { EmulatorContext } from "../context";
import { HttpError, json, jsonObjectBody, validateBody } from "../http";
import { LOCAL_USER, type Collection, type StoredObject } from "../state";
import { getOr404, type CollectionFamily } from "./common";
import { roles } from "./roles";

/** The user every request acts as (the caller of `/v2/user`), an owner of the organization. */
function callerUser(): StoredObject {
  return { id: LOCAL_USER, name: "Local Developer", email: "dev@localhost", role: roleOf("owner") };
}

/** `{id, name}` of a built-in role. */
function roleOf(id: keyof typeof BUILT_IN_ROLES): { id: string; name: string } {
  return { id, name: BUILT_IN_ROLES[id] };
}

/** The `{id, name}` a role reference names, or a 422 naming `role`. */
function resolveRole(em: EmulatorContext, ref: string): { id: string; name: string } {
  if (isBuiltInRole(ref)) return roleOf(ref);
  const custom = em.state.collection(roles.name).get(ref);
  if (!custom) {
    throw new HttpError(
      422,
      `role: no role with id "${ref}" exists; use a built-in role (${Object.keys(BUILT_IN_ROLES).join(", ")}) ` +
        "or the id of a role from /v2/rbac/roles",
    );
  }
  return { id: custom.id, name: String(custom.name) };
}

/** A 409 naming `email` when another user of the organization has it. */
function ensureEmailFree(col: Collection, email: string): void {
  const lower = email.toLowerCase();
  if (col.list().some((u) => String(u.email).toLowerCase() === lower)) {
    throw new HttpError(409, `email: a user with email "${email}" already exists in the organization`);
  }
}

/** The users family. */
export const users: CollectionFamily = {
  name: "users",
  idPrefix: "usr_",
  path: "/v2/users",
  capability: "users",
  seed: () => [callerUser()],
  routes: (col, em) => ({
    create: (raw) => {
      const body = validateBody(UserCreateSchema, raw);
      const role = resolveRole(em, body.role);
      ensureEmailFree(col, body.email);
      // The registry's id has the collection's prefix; users have UUIDs, as the service's do.
      let id = randomUUID();
      while (col.get(id)) id = randomUUID();
      return { id, name: body.name, email: body.email, role };
    },
    // axiom-go's `PUT /v2/users/{id} {name}`: renames only.
    update: (raw, current) => ({ ...current, name: validateBody(UserNameUpdateSchema, raw).name }),
    more: (router) => {
      router.add(
        "PUT",
        "/v2/users/:id/role",
        (ctx) => {
          const current = getOr404(col, ctx.params.id);
          const { role } = validateBody(UserRoleUpdateSchema, jsonObjectBody(ctx));
          const updated = col.set({ ...current, role: resolveRole(em, role) });
          em.changed();
          return json(updated);
        },
        orgNeed("users", "update"),
      );
      // The caller: the stored user of the local id, or its defaults when it was removed from the organization.
      // The caller's own profile needs no capability.
      const caller = () => json(col.get(LOCAL_USER) ?? callerUser());
      router.add("GET", "/v2/user", caller, OPEN);
      // The v1 document's `GET /user` (axiomhq/docs restapi/versions/v1.json), the same caller.
      router.add("GET", "/v1/user", caller, OPEN);
      router.add(
        "PUT",
        "/v2/user",
        (ctx) => {
          const { name } = validateBody(UserNameUpdateSchema, jsonObjectBody(ctx));
          const current = col.get(LOCAL_USER);
          if (!current) return json({ ...callerUser(), name });
          const updated = col.set({ ...current, name });
          em.changed();
          return json(updated);
        },
        OPEN,
      );
    },
  }),
};
