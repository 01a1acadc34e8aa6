/** Organizations: `GET /v2/orgs`, `GET /v2/orgs/{id}` and `PUT /v2/orgs/{id}` (only the name changes). */
import { OrgUpdateSchema } from "../../provider/schemas";
import type { EmulatorContext } from "../context";
import { Router, sendJson, validateOr400 } from "../http";
import { bodyWithoutReadOnly, getOr404, nowIso, ok } from "./common";

/** Registers the organization routes. */
export function registerOrgs(router: Router, em: EmulatorContext): void {
  const col = em.state.orgs;

  router.add("GET", "/v2/orgs", ({ res }) => sendJson(res, 200, col.list()));

  router.add("GET", "/v2/orgs/:id", (ctx) => ok(ctx, getOr404(col, ctx.params.id)));

  router.add("PUT", "/v2/orgs/:id", (ctx) => {
    const current = getOr404(col, ctx.params.id);
    const { name } = validateOr400(OrgUpdateSchema, bodyWithoutReadOnly(ctx));
    const version = Number(current.metaVersion ?? "0");
    const org = col.set({
      ...current,
      name,
      metaModified: nowIso(),
      metaVersion: String(Number.isFinite(version) ? version + 1 : 1),
    });
    em.changed();
    ok(ctx, org);
  });
}
