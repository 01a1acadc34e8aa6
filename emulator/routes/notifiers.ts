/** Notifiers: `/v2/notifiers` and `/v2/notifiers/{id}`; exactly one channel per notifier. */
import { NotifierCreateSchema } from "../../provider/schemas";
import type { EmulatorContext } from "../context";
import { Router, sendJson, sendNoContent, validateOr400 } from "../http";
import { LOCAL_USER, type StoredObject } from "../state";
import { bodyWithoutReadOnly, compact, getOr404, nowIso, ok } from "./common";

/** The parsed body as stored: only the configured channel, `disabledUntil` null when enabled. */
function normalize(body: {
  name: string;
  properties: Record<string, unknown>;
  disabledUntil?: string | null;
}) {
  const properties: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body.properties)) {
    if (v !== undefined && v !== null) properties[k] = compact({ ...(v as Record<string, unknown>) });
  }
  return { name: body.name, properties, disabledUntil: body.disabledUntil ?? null };
}

/** Registers the notifier routes. */
export function registerNotifiers(router: Router, em: EmulatorContext): void {
  const col = em.state.notifiers;

  router.add("GET", "/v2/notifiers", ({ res }) => sendJson(res, 200, col.list()));

  router.add("POST", "/v2/notifiers", (ctx) => {
    const body = validateOr400(NotifierCreateSchema, bodyWithoutReadOnly(ctx));
    const notifier = col.set({
      id: col.newId(),
      ...normalize(body as never),
      createdAt: nowIso(),
      createdBy: LOCAL_USER,
    } as StoredObject);
    em.changed();
    ok(ctx, notifier);
  });

  router.add("GET", "/v2/notifiers/:id", (ctx) => ok(ctx, getOr404(col, ctx.params.id)));

  router.add("PUT", "/v2/notifiers/:id", (ctx) => {
    const current = getOr404(col, ctx.params.id);
    const body = validateOr400(NotifierCreateSchema, bodyWithoutReadOnly(ctx));
    const notifier = col.set({
      id: current.id,
      ...normalize(body as never),
      createdAt: current.createdAt,
      createdBy: current.createdBy,
    } as StoredObject);
    em.changed();
    ok(ctx, notifier);
  });

  router.add("DELETE", "/v2/notifiers/:id", (ctx) => {
    getOr404(col, ctx.params.id);
    col.delete(ctx.params.id);
    em.changed();
    sendNoContent(ctx.res);
  });
}
