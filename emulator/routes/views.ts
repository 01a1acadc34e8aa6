/**
 * Views: `/v2/views` and `/v2/views/{id}`, where a view's id is its name (provider/schemas/view.ts says why:
 * the OpenAPI document's View has no id field, and Alchemy addresses views by name). Views are stored under
 * their names and replies carry no `id`, as the document's View has none; they add `sharedByOrg` and
 * `sharedByOrgName` (empty: a view made here is not shared by another organization). A name that exists is a
 * 409 on create; a PUT cannot rename (the name in the body must be the one in the path, else 422), since the
 * view would then no longer be at its own URL.
 */
import { ViewCreateSchema } from "../../provider/schemas";
import { HttpError, INVALID_FIELD_STATUS, validateBody } from "../http";
import type { StoredObject } from "../state";
import { compact, type CollectionFamily } from "./common";

/** Fields the service owns on a view; a body that echoes them back has them ignored (the schema drops them). */
const NOT_SHARED = { sharedByOrg: "", sharedByOrgName: "" };

/** The view family. */
export const views: CollectionFamily = {
  name: "views",
  idPrefix: "view_",
  path: "/v2/views",
  capability: "views",
  routes: (col) => {
    const view = (raw: Record<string, unknown>): StoredObject => {
      const body = validateBody(ViewCreateSchema, raw);
      return compact({ id: body.name, ...body, ...NOT_SHARED }) as StoredObject;
    };
    return {
      // Replies carry no `id`: the document's View has none (the name is the id).
      view: ({ id: _id, ...shown }) => shown,
      create: (raw) => {
        const created = view(raw);
        if (col.get(created.id)) {
          throw new HttpError(409, `name: a view named "${created.id}" already exists`);
        }
        return created;
      },
      update: (raw, current) => {
        const updated = view(raw);
        if (updated.id !== current.id) {
          throw new HttpError(
            INVALID_FIELD_STATUS,
            `name: must be "${current.id}", the view's name in the path: a view's name is its id, and a ` +
              "rename is a new view (create it, then delete this one)",
          );
        }
        return { ...updated, sharedByOrg: current.sharedByOrg, sharedByOrgName: current.sharedByOrgName };
      },
    };
  },
};
