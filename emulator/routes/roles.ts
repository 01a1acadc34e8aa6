/** RBAC roles: `/v2/rbac/roles` and `/v2/rbac/roles/{id}`; names are unique (409 on a clash). */
import { RoleCreateSchema } from "../../provider/schemas";
import type { EmulatorContext } from "../context";
import { HttpError, Router, sendJson, sendNoContent, validateOr400 } from "../http";
import type { StoredObject } from "../state";
import { bodyWithoutReadOnly, compact, getOr404, ok } from "./common";

/** Registers the role routes. */
export function registerRoles(router: Router, em: EmulatorContext): void {
  const col = em.state.roles;
  const assertNameFree = (name: string, exceptId?: string) => {
    if (col.list().some((r) => r.name === name && r.id !== exceptId)) {
      throw new HttpError(409, `name: a role named "${name}" already exists`);
    }
  };

  router.add("GET", "/v2/rbac/roles", ({ res }) => sendJson(res, 200, col.list()));

  router.add("POST", "/v2/rbac/roles", (ctx) => {
    const body = validateOr400(RoleCreateSchema, bodyWithoutReadOnly(ctx));
    assertNameFree(body.name);
    const role = col.set(compact({ id: col.newId(), ...body }) as StoredObject);
    em.changed();
    ok(ctx, role);
  });

  router.add("GET", "/v2/rbac/roles/:id", (ctx) => ok(ctx, getOr404(col, ctx.params.id)));

  router.add("PUT", "/v2/rbac/roles/:id", (ctx) => {
    const current = getOr404(col, ctx.params.id);
    const body = validateOr400(RoleCreateSchema, bodyWithoutReadOnly(ctx));
    assertNameFree(body.name, current.id);
    const role = col.set(compact({ id: current.id, ...body }) as StoredObject);
    em.changed();
    ok(ctx, role);
  });

  router.add("DELETE", "/v2/rbac/roles/:id", (ctx) => {
    getOr404(col, ctx.params.id);
    col.delete(ctx.params.id);
    em.changed();
    sendNoContent(ctx.res);
  });
}
