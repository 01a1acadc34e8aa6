/** Starred (saved APL) queries: `/v2/apl-starred-queries`. */
import { z } from "zod";
import {
  StarredQuerySchema,
  type StarredQuery,
  type StarredQueryCreate,
  type StarredQueryListParams,
  type StarredQueryUpdate,
} from "../../schemas";
import { path, queryString } from "../path";
import { callOptions, type RequestOptions } from "../transport";
import { ApiResource } from "./base";

const One = StarredQuerySchema as unknown as z.ZodType<StarredQuery>;
const Many = z.array(StarredQuerySchema) as unknown as z.ZodType<StarredQuery[]>;

/** Create, read, update, delete and list starred queries. */
export class StarredQueries extends ApiResource {
  /** Lists starred queries; `who` unset means the caller's own, `all` everyone's, `team` everyone else's.
   * @see GET /v2/apl-starred-queries */
  async list(params: StarredQueryListParams = {}, options?: RequestOptions): Promise<StarredQuery[]> {
    const q = queryString({
      limit: params.limit as number | undefined,
      offset: params.offset as number | undefined,
      dataset: params.dataset,
      who: params.who,
      qs: params.qs,
    });
    return this.transport.request({
      method: "GET",
      path: `/v2/apl-starred-queries${q}`,
      schema: Many,
      ...callOptions(options),
    });
  }

  /** Reads one starred query.
   * @see GET /v2/apl-starred-queries/{id} */
  async get(id: string, options?: RequestOptions): Promise<StarredQuery> {
    return this.transport.request({
      method: "GET",
      path: path`/v2/apl-starred-queries/${id}`,
      schema: One,
      ...callOptions(options),
    });
  }

  /** Saves a query.
   * @see POST /v2/apl-starred-queries */
  async create(body: StarredQueryCreate, options?: RequestOptions): Promise<StarredQuery> {
    return this.transport.request({
      method: "POST",
      path: "/v2/apl-starred-queries",
      json: body,
      schema: One,
      ...callOptions(options),
    });
  }

  /** Replaces a starred query.
   * @see PUT /v2/apl-starred-queries/{id} */
  async update(id: string, body: StarredQueryUpdate, options?: RequestOptions): Promise<StarredQuery> {
    return this.transport.request({
      method: "PUT",
      path: path`/v2/apl-starred-queries/${id}`,
      json: body,
      schema: One,
      ...callOptions(options),
    });
  }

  /** Deletes a starred query.
   * @see DELETE /v2/apl-starred-queries/{id} */
  async delete(id: string, options?: RequestOptions): Promise<void> {
    await this.transport.request({
      method: "DELETE",
      path: path`/v2/apl-starred-queries/${id}`,
      ...callOptions(options),
    });
  }
}
