/** Notifiers: `/v2/notifiers`. */
import { NotifierSchema, type Notifier, type NotifierCreate, type NotifierUpdate } from "../../schemas";
import type { RequestOptions } from "../transport";
import { CrudResource } from "./base";

/**
 * Create, read, update, delete and list notifiers (`notify_…`); a notifier has exactly one channel in
 * `properties`, and PUT replaces it whole.
 * @see GET, POST /v2/notifiers
 * @see GET, PUT, DELETE /v2/notifiers/{id}
 */
export class Notifiers extends CrudResource<Notifier, NotifierCreate, NotifierUpdate> {
  protected readonly collection = "/v2/notifiers";
  /** @internal The response schema (zod stays out of the published typings). */
  protected readonly schema = NotifierSchema;

  /** Lists every notifier.
   * @see GET /v2/notifiers */
  async list(options?: RequestOptions): Promise<Notifier[]> {
    return this.listWith("", options);
  }
}
