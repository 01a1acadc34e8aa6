/** Dashboards: `/v2/dashboards`, addressed by uid at `/v2/dashboards/uid/{uid}`. */
import { z } from "zod";
import {
  DashboardResourceSchema,
  DashboardWriteResponseSchema,
  type Dashboard,
  type DashboardChartPatchOptions,
  type DashboardUpsert,
  type DashboardWriteResponse,
} from "../../schemas";
import { path, queryString } from "../path";
import type { RequestOptions } from "../transport";
import { ApiResource, allPages } from "./base";

const DashboardListSchema = z.array(DashboardResourceSchema);
/** The largest page `GET /v2/dashboards` serves (`limit` is 1–1000). */
export const DASHBOARD_PAGE_MAX = 1000;

/** Paging of `GET /v2/dashboards`. */
export interface DashboardListParams {
  /** 1–1000; the service's default is 100. */
  limit?: number;
  /** At least 0; default 0. */
  offset?: number;
}

/**
 * Create, read, update, delete and list dashboards, and patch one chart. A dashboard is addressed by its `uid`
 * (unique in the organization). Every write carries the version it was based on, unless `overwrite` is set: a
 * stale one fails with PreconditionFailedError (412, `currentVersion` says the service's), and a create of a uid
 * that exists without `overwrite` with ConflictError (409).
 * @see GET, POST /v2/dashboards
 * @see GET, PUT, DELETE /v2/dashboards/uid/{uid}
 * @see PATCH /v2/dashboards/uid/{uid}/charts/{chartId}
 */
export class Dashboards extends ApiResource {
  private readonly collection = "/v2/dashboards";

  private item(uid: string): string {
    return this.collection + path`/uid/${uid}`;
  }

  /** One page of the dashboards visible to the caller (an API token does not see private ones).
   * @see GET /v2/dashboards */
  async list(params: DashboardListParams = {}, options?: RequestOptions): Promise<Dashboard[]> {
    return this.transport.request(
      {
        method: "GET",
        path: this.collection + queryString({ limit: params.limit, offset: params.offset }),
        schema: DashboardListSchema,
      },
      options,
    );
  }

  /** Every dashboard visible to the caller, page by page (1000 at a time).
   * @see GET /v2/dashboards */
  async listAll(options?: RequestOptions): Promise<Dashboard[]> {
    return allPages(DASHBOARD_PAGE_MAX, (offset) =>
      this.list({ limit: DASHBOARD_PAGE_MAX, offset }, options),
    );
  }

  /** Reads one dashboard; rejects with NotFoundError when no dashboard has this uid.
   * @see GET /v2/dashboards/uid/{uid} */
  async get(uid: string, options?: RequestOptions): Promise<Dashboard> {
    return this.transport.request(
      { method: "GET", path: this.item(uid), schema: DashboardResourceSchema },
      options,
    );
  }

  /** Creates a dashboard (201), or with `overwrite: true` (or the current `version`) writes over the one of
   * that uid (200); never sent twice.
   * @see POST /v2/dashboards */
  async create(body: DashboardUpsert, options?: RequestOptions): Promise<DashboardWriteResponse> {
    return this.transport.request(
      { method: "POST", path: this.collection, json: body, schema: DashboardWriteResponseSchema },
      options,
    );
  }

  /** Writes the whole dashboard of this uid: `version` (the one last read) or `overwrite: true` is needed.
   * @see PUT /v2/dashboards/uid/{uid} */
  async update(
    uid: string,
    body: Omit<DashboardUpsert, "uid">,
    options?: RequestOptions,
  ): Promise<DashboardWriteResponse> {
    return this.transport.request(
      { method: "PUT", path: this.item(uid), json: body, schema: DashboardWriteResponseSchema },
      options,
    );
  }

  /** Deletes a dashboard.
   * @see DELETE /v2/dashboards/uid/{uid} */
  async delete(uid: string, options?: RequestOptions): Promise<void> {
    await this.transport.request({ method: "DELETE", path: this.item(uid) }, options);
  }

  /** Applies `chart` as a JSON merge patch to one chart (an `id` in it must be `chartId`); like every write it
   * needs `version` or `overwrite: true`. Not resent on failure: a retry would meet its own new version.
   * @see PATCH /v2/dashboards/uid/{uid}/charts/{chartId} */
  async patchChart(
    uid: string,
    chartId: string,
    chart: Record<string, unknown>,
    write: DashboardChartPatchOptions = {},
    options?: RequestOptions,
  ): Promise<DashboardWriteResponse> {
    return this.transport.request(
      {
        method: "PATCH",
        path: this.item(uid) + path`/charts/${chartId}`,
        json: { ...write, chart },
        schema: DashboardWriteResponseSchema,
        idempotent: false,
      },
      options,
    );
  }
}
