/**
 * A management family declared once: its collection, its path and what differs in its CRUD routes. The family's
 * route file exports one {@link CollectionFamily}; the registry (./index.ts) lists it, and from that one line come
 * its collection in the state, the snapshot, the journal and the routes {@link registerCollection} serves.
 */
import { ServerOwnedFieldsSchema } from "../../provider/schemas";
import { actionOf, orgNeed, type AccessRouter, type Action, type Need, type RouteAccess } from "../auth";
import type { EmulatorContext } from "../context";
import {
  HttpError,
  NOT_FOUND_MESSAGE,
  json,
  jsonObjectBody,
  noContent,
  validateBody,
  type Handler,
  type RequestContext,
} from "../http";
import { LOCAL_USER, type Collection, type CollectionSpec, type StoredObject } from "../state";
import { isoSeconds } from "../time";

/** Fields the server owns; bodies that carry them (official clients send objects back) have them ignored. */
export const READ_ONLY_FIELDS = ["id", "createdAt", "createdBy", "updatedAt", "updatedBy"] as const;

/** The object with this id, or the service's 404. */
export function getOr404(collection: Collection, id: string): StoredObject {
  const obj = collection.get(id);
  if (!obj) throw new HttpError(404, NOT_FOUND_MESSAGE);
  return obj;
}

/**
 * The JSON object body with the read-only fields removed, once each given one is checked against its type in the
 * document (a 422 naming it otherwise): ignored does not mean unchecked.
 */
function bodyWithoutReadOnly(ctx: RequestContext): Record<string, unknown> {
  const body = jsonObjectBody(ctx);
  validateBody(ServerOwnedFieldsSchema, Object.fromEntries(READ_ONLY_FIELDS.map((f) => [f, body[f]])));
  for (const f of READ_ONLY_FIELDS) delete body[f];
  return body;
}

/** Drops undefined values, so stored objects are plain JSON. */
export function compact<T extends Record<string, unknown>>(obj: T): T {
  for (const k of Object.keys(obj)) if (obj[k] === undefined) delete obj[k];
  return obj;
}

/** How a family registers its own routes: each gets the family's need for its method, unless it states its own. */
export interface FamilyRouter {
  add(method: string, pattern: string, handler: Handler, access?: RouteAccess): void;
}

/** One management family, as its route file declares it. */
export interface CollectionFamily extends CollectionSpec {
  /** The collection's path, e.g. `/v2/notifiers`; one object lives at `<path>/:id`. */
  readonly path: string;
  /** Whether the server stamps `createdAt`/`createdBy` on create and keeps them through every update. */
  readonly stamp?: boolean;
  /** Status of a successful create; the service answers 200 except where its OpenAPI v2 document says 201 (annotations). */
  readonly createdStatus?: number;
  /** A query string `GET <path>` needs (e.g. `?dataset=logs` for virtual fields), which lists refuse without. */
  readonly listQuery?: string;
  /**
   * What a minted API token needs for the family's routes (emulator/auth.ts): an `orgCapabilities` key, e.g.
   * `"monitors"`, whose action follows the method (GET read, POST create, PUT update, DELETE delete), as the
   * OpenAPI document's `security` names them; or, where that is not one key, the need per action and request.
   */
  readonly capability: string | ((action: Action, ctx: RequestContext) => Need);
  /** Whether `DELETE <path>/:id` (204) is served; default true. */
  readonly deletable?: boolean;
  /**
   * Whether the common CRUD routes are served; default true. A family whose objects live elsewhere than
   * `<path>/:id`, or whose replies are not the object itself (dashboards: `/v2/dashboards/uid/{uid}`, writes
   * answering `{status, dashboard}`), sets it to false and serves every route through `more`.
   */
  readonly crud?: boolean;
  /** What differs from one family to another, given the family's own collection. */
  routes(collection: Collection, em: EmulatorContext): CollectionRoutes;
}

/**
 * The family-specific parts of the routes. The routes around them (list, create, read, update, delete, each 404
 * for a missing id before the body is even looked at) are {@link registerCollection}'s.
 */
export interface CollectionRoutes {
  /** `GET <path>`; by default every object, in creation order. */
  list?: Handler;
  /**
   * `POST <path>`: the new object, with `id`, built from the body without read-only fields (validating it
   * throws the 400). Without it the family takes no POST.
   */
  create?: (body: Record<string, unknown>, id: string) => StoredObject;
  /** Called with a created object as stored (stamped), to record what hangs off it. */
  onCreate?: (created: StoredObject) => void;
  /**
   * `PUT <path>/:id`: the object that replaces `current`, built from the body without read-only fields. Without
   * it the family takes no PUT (a 405).
   */
  update?: (body: Record<string, unknown>, current: StoredObject) => StoredObject;
  /** What a reply shows of a stored object; by default all of it. For fields the service keeps to itself. */
  view?: (stored: StoredObject) => Record<string, unknown>;
  /** Called with a deleted object's id, to drop what hangs off it. */
  onDelete?: (id: string) => void;
  /** Routes of the family beyond its CRUD, e.g. `<path>/:id/history`. */
  more?: (router: FamilyRouter) => void;
}

/** Registers a family's CRUD routes; every mutation marks the state changed so that `--data` is written. */
export function registerCollection(
  router: AccessRouter,
  em: EmulatorContext,
  family: CollectionFamily,
): void {
  const { path } = family;
  const col = em.state.collection(family.name);
  const routes = family.routes(col, em);
  const item = `${path}/:id`;
  const { capability } = family;
  /** The family's need for one action (see {@link CollectionFamily.capability}). */
  const access = (action: Action): RouteAccess =>
    typeof capability === "string" ? orgNeed(capability, action) : (ctx) => capability(action, ctx);

  /** Registers one route with the family's need for its method's action, unless it states its own. */
  const add = (method: string, pattern: string, handler: Handler, own?: RouteAccess) =>
    void router.add(method, pattern, handler, own ?? access(actionOf(method)));
  if (family.crud === false) {
    routes.more?.({ add });
    return;
  }
  const view = routes.view ?? ((obj: StoredObject) => obj);

  add("GET", path, routes.list ?? (() => json(col.list().map(view))));

  const { create } = routes;
  if (create) {
    add("POST", path, (ctx) => {
      const built = create(bodyWithoutReadOnly(ctx), col.newId());
      const created = col.set(
        family.stamp
          ? { ...built, createdAt: isoSeconds(new Date(em.clock.nowMs())), createdBy: LOCAL_USER }
          : built,
      );
      routes.onCreate?.(created);
      em.changed();
      return json(view(created), family.createdStatus);
    });
  }

  add("GET", item, (ctx) => json(view(getOr404(col, ctx.params.id))));

  const { update } = routes;
  if (update) {
    add("PUT", item, (ctx) => {
      const current = getOr404(col, ctx.params.id);
      const replacement = { ...update(bodyWithoutReadOnly(ctx), current), id: current.id };
      // What the server stamped at creation is the server's: no body replaces it.
      const stamped = family.stamp
        ? { ...replacement, createdAt: current.createdAt, createdBy: current.createdBy }
        : replacement;
      const updated = col.set(stamped);
      em.changed();
      return json(view(updated));
    });
  }

  if (family.deletable ?? true) {
    add("DELETE", item, (ctx) => {
      getOr404(col, ctx.params.id);
      col.delete(ctx.params.id);
      routes.onDelete?.(ctx.params.id);
      em.changed();
      return noContent();
    });
  }

  routes.more?.({ add });
}
