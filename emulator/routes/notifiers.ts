/** Notifiers: `/v2/notifiers` and `/v2/notifiers/{id}`; exactly one channel per notifier. */
import { NotifierCreateSchema } from "../../provider/schemas";
import type { EmulatorContext } from "../context";
import { Router, validateOr400 } from "../http";
import { LOCAL_USER } from "../state";
import { isoSeconds } from "../time";
import { compact, registerCollection } from "./common";

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

  registerCollection(router, em, {
    path: "/v2/notifiers",
    collection: col,
    create: (raw, id) => ({
      id,
      ...normalize(validateOr400(NotifierCreateSchema, raw) as never),
      createdAt: isoSeconds(),
      createdBy: LOCAL_USER,
    }),
    update: (raw, current) => ({
      id: current.id,
      ...normalize(validateOr400(NotifierCreateSchema, raw) as never),
      createdAt: current.createdAt,
      createdBy: current.createdBy,
    }),
  });
}
