/** What every resource family shares: the transport it sends through, and the four verbs on `{collection}/{id}`. */
import { z } from "zod";
import { path } from "../path";
import type { RequestOptions, Transport } from "../transport";

/**
 * Every object of a listing paged by `limit` and `offset` (dashboards, starred queries): pages of `pageSize`
 * from offset 0 until one comes back shorter. Objects created or deleted meanwhile may shift the pages; a caller
 * that must find one object falls back to reading it by id.
 */
export async function allPages<T>(pageSize: number, page: (offset: number) => Promise<T[]>): Promise<T[]> {
  const all: T[] = [];
  for (let offset = 0; ; offset += pageSize) {
    const got = await page(offset);
    all.push(...got);
    if (got.length < pageSize) return all;
  }
}

/** Base of the resource families: a thin class over the client's one transport. */
export abstract class ApiResource {
  constructor(protected readonly transport: Transport) {}
}

/**
 * The four verbs of a family whose objects are created, read, written and deleted one by one. The provider's
 * lifecycle drives every resource kind's family through this one interface.
 */
export interface CrudFamily<T, Create, Update = Create> {
  /** Reads one object; rejects with NotFoundError when it does not exist. */
  get(id: string, options?: RequestOptions): Promise<T>;
  /** Creates an object; never sent twice. */
  create(body: Create, options?: RequestOptions): Promise<T>;
  /** Writes an object. */
  update(id: string, body: Update, options?: RequestOptions): Promise<T>;
  /** Deletes an object. */
  delete(id: string, options?: RequestOptions): Promise<void>;
}

/**
 * A family whose objects are created by POST on the collection and read, written and deleted at
 * `{collection}/{id}`: the verbs are the same everywhere but for the path and the response schema, so they are
 * written once here. Each family adds its own `list` over `listWith` (their filters differ) and documents its
 * endpoints.
 */
export abstract class CrudResource<T, Create, Update>
  extends ApiResource
  implements CrudFamily<T, Create, Update>
{
  /** The collection's path, e.g. `/v2/monitors`. */
  protected abstract readonly collection: string;
  /** @internal One object as the service returns it, parsed loosely so unknown fields survive. */
  protected abstract readonly schema: z.ZodType<T>;

  private listSchema?: z.ZodType<T[]>;

  /** `GET {collection}` plus a query string already built (`?…` or ""): the request behind every `list`. */
  protected listWith(query: string, options: RequestOptions | undefined): Promise<T[]> {
    return this.transport.request(
      {
        method: "GET",
        path: this.collection + query,
        schema: (this.listSchema ??= z.array(this.schema)),
      },
      options,
    );
  }

  /** `{collection}/{id}`, the id encoded as one segment. */
  protected itemPath(id: string): string {
    return this.collection + path`/${id}`;
  }

  /** Reads one object; rejects with NotFoundError when it does not exist.
   * @see GET {collection}/{id} */
  async get(id: string, options?: RequestOptions): Promise<T> {
    return this.transport.request(
      {
        method: "GET",
        path: this.itemPath(id),
        schema: this.schema,
      },
      options,
    );
  }

  /** Creates an object; never sent twice (see the transport's retry rules for POST).
   * @see POST {collection} */
  async create(body: Create, options?: RequestOptions): Promise<T> {
    return this.transport.request(
      {
        method: "POST",
        path: this.collection,
        json: body,
        schema: this.schema,
      },
      options,
    );
  }

  /** Writes an object.
   * @see PUT {collection}/{id} */
  async update(id: string, body: Update, options?: RequestOptions): Promise<T> {
    return this.transport.request(
      {
        method: "PUT",
        path: this.itemPath(id),
        json: body,
        schema: this.schema,
      },
      options,
    );
  }

  /** Deletes an object.
   * @see DELETE {collection}/{id} */
  async delete(id: string, options?: RequestOptions): Promise<void> {
    await this.transport.request(
      {
        method: "DELETE",
        path: this.itemPath(id),
      },
      options,
    );
  }
}
