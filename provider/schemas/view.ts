/**
 * View: a named, saved APL query over datasets. Endpoints: `/v2/views` and `/v2/views/{id}`.
 *
 * What identifies a view is its **name**:
 * - the OpenAPI document's `View` schema has no `id` field (`name`, `aplQuery`, `datasets`, `description`,
 *   `sharedByOrg`, `sharedByOrgName`), yet its paths are `/views/{id}` (axiomhq/docs
 *   `content/docs/(api-reference)/restapi/versions/v2.json`, getView/updateView/deleteView);
 * - the document gives no id field, so a client must address a view by something else, and the name is unique;
 * - Alchemy (alchemy-run/alchemy `packages/alchemy/src/Axiom/View.ts`) addresses `getView`/`updateView`/
 *   `deleteView` with the name ("Axiom's view list/get responses don't expose a separate id field") and turns a
 *   rename into a replacement;
 * - axiom-js (`packages/js/src/views.ts`) passes that path id through `encodeURIComponent`, as a free string.
 * So the client reads a view's `id` as its `name` (whatever else the service sends), a view's name is unique,
 * a rename replaces the view, and the emulator stores views under their names.
 */
import { z } from "zod";
import { NonEmptyStringSchema, absentWhenUnset, serviceDefault, uniqueList } from "./common";

/** A view's name is its id, one URL path segment: not empty, and not `.` or `..` (no URL can address those). */
export const ViewNameSchema = NonEmptyStringSchema.refine((s) => s !== "." && s !== "..", {
  error: 'must not be "." or ".." (a view\'s name is its id in the URL path)',
});

const viewFields = {
  /** Required; the view's id, unique in the organization. */
  name: ViewNameSchema,
  /** Required: the APL query the view saves. */
  aplQuery: NonEmptyStringSchema,
  /** Names of the datasets the view reads; a set. */
  datasets: serviceDefault(uniqueList(NonEmptyStringSchema).optional(), []),
  description: serviceDefault(z.string({ error: "must be a string" }).optional(), ""),
};

/**
 * Body of `POST /v2/views` and `PUT /v2/views/{id}`. `sharedByOrg` and `sharedByOrgName`, the service's, may be
 * echoed back: they must be strings, as the document's View types them, and are then ignored.
 */
const ViewObjectSchema = z.object(viewFields).extend({
  sharedByOrg: z.string({ error: "must be a string" }).optional(),
  sharedByOrgName: z.string({ error: "must be a string" }).optional(),
});
export const ViewCreateSchema = absentWhenUnset(ViewObjectSchema);
export const ViewUpdateSchema = ViewCreateSchema;
/** What a user declares. */
export const ViewInputSchema = z.strictObject(viewFields);

export type ViewCreate = z.input<typeof ViewObjectSchema>;
export type ViewUpdate = ViewCreate;

/**
 * A view as the service returns it; unknown fields survive, and `id` is the name (see the file comment): the
 * service sends no id, and one it might send would not be what `/v2/views/{id}` is addressed by.
 */
export const ViewSchema = absentWhenUnset(
  z
    .looseObject({
      aplQuery: z.string(),
      datasets: z.array(z.string()),
      description: z.string(),
      /** Id of the organization that shared this view, when it is shared. */
      sharedByOrg: z.string(),
      /** Name of the organization that shared this view, when it is shared. */
      sharedByOrgName: z.string(),
    })
    .partial()
    .extend({ name: z.string() }),
  { keepMismatched: true },
).transform((view) => ({ ...view, id: view.name }));
export type View = z.output<typeof ViewSchema>;
