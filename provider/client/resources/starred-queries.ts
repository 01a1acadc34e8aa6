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
import { CrudResource, allPages } from "./base";

/** The largest page `GET /v2/apl-starred-queries` serves (`limit` is 1–1000). */
export const STARRED_QUERY_PAGE_MAX = 1000;

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

  /** Every starred query that matches `params` (by default the caller's own), page by page (1000 at a time).
   * @see GET /v2/apl-starred-queries */
  async listAll(
    params: Omit<StarredQueryListParams, "limit" | "offset"> = {},
    options?: RequestOptions,
  ): Promise<StarredQuery[]> {
    return allPages(STARRED_QUERY_PAGE_MAX, (offset) =>
      this.list({ ...params, limit: STARRED_QUERY_PAGE_MAX, offset }, options),
    );
  }
}
