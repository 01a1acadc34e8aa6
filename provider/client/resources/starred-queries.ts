/** Starred (saved APL) queries: `/v2/apl-starred-queries`. */
import {
  StarredQuerySchema,
  type StarredQuery,
  type StarredQueryCreate,
  type StarredQueryListParams,
  type StarredQueryUpdate,
} from "../../schemas";
import { queryString } from "../path";
import type { RequestOptions } from "../transport";
import { CrudResource } from "./base";

/**
 * Create, read, update, delete and list starred (saved APL) queries.
 * @see GET, POST /v2/apl-starred-queries
 * @see GET, PUT, DELETE /v2/apl-starred-queries/{id}
 */
export class StarredQueries extends CrudResource<StarredQuery, StarredQueryCreate, StarredQueryUpdate> {
  protected readonly collection = "/v2/apl-starred-queries";
  /** @internal The response schema (zod stays out of the published typings). */
  protected readonly schema = StarredQuerySchema;

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
    return this.listWith(q, options);
  }
}
