/** Notifiers: `/v2/notifiers` and `/v2/notifiers/{id}`; exactly one channel per notifier. */
import { NotifierCreateSchema } from "../../provider/schemas";
import { validateBody } from "../http";
import { compact, type CollectionFamily } from "./common";

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

/** The notifier family; PUT replaces the whole notifier. */
export const notifiers: CollectionFamily = {
  name: "notifiers",
  idPrefix: "notify_",
  path: "/v2/notifiers",
  capability: "notifiers",
  stamp: true,
  routes: () => ({
    create: (raw, id) => ({ id, ...normalize(validateBody(NotifierCreateSchema, raw)) }),
    update: (raw, current) => ({
      id: current.id,
      ...normalize(validateBody(NotifierCreateSchema, raw)),
    }),
  }),
};
