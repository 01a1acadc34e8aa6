/** Helpers shared by the management route families: CRUD over a collection with schema validation. */
import type { EmulatorContext } from "../context";
import {
  HttpError,
  NOT_FOUND_MESSAGE,
  jsonObjectBody,
  sendJson,
  sendNoContent,
  type Handler,
  type RequestContext,
  type Router,
} from "../http";
import type { Collection, StoredObject } from "../state";

/** Fields the server owns; bodies that carry them (official clients send objects back) have them ignored. */
export const READ_ONLY_FIELDS = ["id", "createdAt", "createdBy", "updatedAt", "updatedBy"] as const;

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

/** Sends 200 (or `status`) with the object. */
export function ok(ctx: RequestContext, body: unknown, status = 200): void {
  sendJson(ctx.res, status, body);
}

/**
 * One management family: what differs between them. The routes around it (list, create, read, update,
 * delete, each 404 for a missing id before the body is even looked at) are {@link registerCollection}'s.
 */
export interface CollectionRoutes {
  /** The collection's path, e.g. `/v2/notifiers`; one object lives at `<path>/:id`. */
  path: string;
  collection: Collection;
  /** `GET <path>`; by default every object, in creation order. */
  list?: Handler;
  /**
   * `POST <path>`: the new object, with `id`, built from the body without read-only fields (validating it
   * throws the 400). Without it the family takes no POST.
   */
  create?: (body: Record<string, unknown>, id: string) => StoredObject;
  /** Status of a successful create; the service answers 200 except where API-FACTS says 201. */
  createdStatus?: number;
  /** `PUT <path>/:id`: the object that replaces `current`, built from the body without read-only fields. */
  update: (body: Record<string, unknown>, current: StoredObject) => StoredObject;
  /** Whether `DELETE <path>/:id` (204) is served; default true. */
  deletable?: boolean;
  /** Called with a deleted object's id, to drop what hangs off it. */
  onDelete?: (id: string) => void;
}

/** Registers a family's CRUD routes; every mutation marks the state changed so that `--data` is written. */
export function registerCollection(router: Router, em: EmulatorContext, family: CollectionRoutes): void {
  const { path, collection: col } = family;
  const item = `${path}/:id`;

  router.add("GET", path, family.list ?? (({ res }) => sendJson(res, 200, col.list())));

  const { create } = family;
  if (create) {
    router.add("POST", path, (ctx) => {
      const created = col.set(create(bodyWithoutReadOnly(ctx), col.newId()));
      em.changed();
      ok(ctx, created, family.createdStatus);
    });
  }

  router.add("GET", item, (ctx) => ok(ctx, getOr404(col, ctx.params.id)));

  router.add("PUT", item, (ctx) => {
    const current = getOr404(col, ctx.params.id);
    const updated = col.set({ ...family.update(bodyWithoutReadOnly(ctx), current), id: current.id });
    em.changed();
    ok(ctx, updated);
  });

  if (family.deletable ?? true) {
    router.add("DELETE", item, (ctx) => {
      getOr404(col, ctx.params.id);
      col.delete(ctx.params.id);
      family.onDelete?.(ctx.params.id);
      em.changed();
      sendNoContent(ctx.res);
    });
  }
}
