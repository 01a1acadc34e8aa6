/** Notifiers: `/v2/notifiers`. */
import { z } from "zod";
import { NotifierSchema, type Notifier, type NotifierCreate, type NotifierUpdate } from "../../schemas";
import { path } from "../path";
import { callOptions, type RequestOptions } from "../transport";
import { ApiResource } from "./base";

// The loose schema types `properties` as a record; the public type names the channels.
const One = NotifierSchema as unknown as z.ZodType<Notifier>;
const Many = z.array(NotifierSchema) as unknown as z.ZodType<Notifier[]>;

/** Create, read, update, delete and list notifiers. */
export class Notifiers extends ApiResource {
  /** Lists every notifier.
   * @see GET /v2/notifiers */
  async list(options?: RequestOptions): Promise<Notifier[]> {
    return this.transport.request({
      method: "GET",
      path: "/v2/notifiers",
      schema: Many,
      ...callOptions(options),
    });
  }

  /** Reads one notifier (`notify_…`).
   * @see GET /v2/notifiers/{id} */
  async get(id: string, options?: RequestOptions): Promise<Notifier> {
    return this.transport.request({
      method: "GET",
      path: path`/v2/notifiers/${id}`,
      schema: One,
      ...callOptions(options),
    });
  }

  /** Creates a notifier with exactly one channel in `properties`.
   * @see POST /v2/notifiers */
  async create(body: NotifierCreate, options?: RequestOptions): Promise<Notifier> {
    return this.transport.request({
      method: "POST",
      path: "/v2/notifiers",
      json: body,
      schema: One,
      ...callOptions(options),
    });
  }

  /** Replaces a notifier.
   * @see PUT /v2/notifiers/{id} */
  async update(id: string, body: NotifierUpdate, options?: RequestOptions): Promise<Notifier> {
    return this.transport.request({
      method: "PUT",
      path: path`/v2/notifiers/${id}`,
      json: body,
      schema: One,
      ...callOptions(options),
    });
  }

  /** Deletes a notifier.
   * @see DELETE /v2/notifiers/{id} */
  async delete(id: string, options?: RequestOptions): Promise<void> {
    await this.transport.request({
      method: "DELETE",
      path: path`/v2/notifiers/${id}`,
      ...callOptions(options),
    });
  }
}
