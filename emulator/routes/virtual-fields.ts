/**
 * Virtual fields: `GET /v2/vfields?dataset=` (the dataset is required), `POST /v2/vfields`, and
 * `GET`/`PUT`/`DELETE /v2/vfields/{id}`. Responses are the document's flat `VirtualFieldWithId`:
 * `{id, dataset, name, expression, type, description?, unit?}` (axiom-go axiom/vfields_test.go fixtures).
 *
 * The expression is required and non-empty, and otherwise taken as sent, as the service takes it; an APL query of
 * the dataset computes it (emulator/catalog answers them to the query engine), and one the emulator's engine cannot compile fails those
 * queries with a 400 naming the field.
 */
import { VirtualFieldCreateSchema } from "../../provider/schemas";
import { datasetNeed, datasetsNamedBy } from "../auth";
import { catalogOf } from "../catalog";
import { HttpError, json, queryParam, validateBody } from "../http";
import type { StoredObject } from "../state";
import { compact, type CollectionFamily } from "./common";

/** The virtual-field family. */
export const virtualFields: CollectionFamily = {
  name: "virtualFields",
  idPrefix: "vfield_",
  path: "/v2/vfields",
  // `virtualFields` is a dataset capability: on the dataset the request names.
  capability: (action, ctx) => datasetNeed("virtualFields", action, datasetsNamedBy(ctx)),
  listQuery: "?dataset=logs",
  routes: (col, em) => {
    const vfield = (raw: Record<string, unknown>, id: string): StoredObject => {
      const body = validateBody(VirtualFieldCreateSchema, raw);
      if (!catalogOf(em.state).exists(body.dataset)) {
        throw new HttpError(422, `dataset: no dataset named "${body.dataset}" exists`);
      }
      // The response always carries `type` ("" when none was given), as the document's fixtures do.
      return compact({ id, ...body, type: body.type ?? "" }) as StoredObject;
    };
    return {
      list: ({ query }) => {
        const dataset = queryParam(query, "dataset");
        if (dataset === undefined || dataset === "") {
          throw new HttpError(400, "dataset: is required (the dataset whose virtual fields are listed)");
        }
        return json(col.list().filter((f) => f.dataset === dataset));
      },
      create: (raw, id) => vfield(raw, id),
      update: (raw, current) => vfield(raw, current.id),
    };
  },
};
