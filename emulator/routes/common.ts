/** Helpers shared by the management route families: CRUD over a collection with schema validation. */
import { HttpError, NOT_FOUND_MESSAGE, jsonObjectBody, sendJson, type RequestContext } from "../http";
import type { Collection, StoredObject } from "../state";

/** Fields the server owns; bodies that carry them (official clients send objects back) have them ignored. */
export const READ_ONLY_FIELDS = ["id", "createdAt", "createdBy", "updatedAt", "updatedBy"] as const;

/** The current time as RFC 3339 with second precision, as the service writes `createdAt`. */
export function nowIso(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** The object with this id, or the service's 404. */
export function getOr404(collection: Collection, id: string): StoredObject {
  const obj = collection.get(id);
  if (!obj) throw new HttpError(404, NOT_FOUND_MESSAGE);
  return obj;
}

/** The JSON object body with the read-only fields removed. */
export function bodyWithoutReadOnly(ctx: RequestContext): Record<string, unknown> {
  const body = jsonObjectBody(ctx);
  for (const f of READ_ONLY_FIELDS) delete body[f];
  return body;
}

/** Drops undefined values, so stored objects are plain JSON. */
export function compact<T extends Record<string, unknown>>(obj: T): T {
  for (const k of Object.keys(obj)) if (obj[k] === undefined) delete obj[k];
  return obj;
}

/** Sends 200 with the object. */
export function ok(ctx: RequestContext, body: unknown, status = 200): void {
  sendJson(ctx.res, status, body);
}
