/** Views: `/v2/views`, each addressed by its name (see provider/schemas/view.ts for why the name is the id). */
import { ViewSchema, type View, type ViewCreate, type ViewUpdate } from "../../schemas";
import type { RequestOptions } from "../transport";
import { CrudResource } from "./base";

/**
 * Create, read, update, delete and list views. A view's `id` is its `name`: `get`, `update` and `delete` take
 * the name, percent-encoded as one path segment (as axiom-js does), and every view returned carries
 * `id === name`. A name that exists already is a ConflictError (409).
 * @see GET, POST /v2/views
 * @see GET, PUT, DELETE /v2/views/{id}
 */
export class Views extends CrudResource<View, ViewCreate, ViewUpdate> {
  protected readonly collection = "/v2/views";
  /** @internal The response schema (zod stays out of the published typings). */
  protected readonly schema = ViewSchema;

  /** Lists every view.
   * @see GET /v2/views */
  async list(options?: RequestOptions): Promise<View[]> {
    return this.listWith("", options);
  }
}
