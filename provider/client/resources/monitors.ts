/** Monitors: `/v2/monitors`, and their alert history. */
import { z } from "zod";
import {
  MonitorHistoryEntrySchema,
  MonitorSchema,
  type Monitor,
  type MonitorCreate,
  type MonitorHistoryEntry,
  type MonitorUpdate,
} from "../../schemas";
import { queryString } from "../path";
import type { RequestOptions } from "../transport";
import { CrudResource } from "./base";

/** Window of {@link Monitors.history}; both bounds are required by the service. */
export interface MonitorHistoryParams {
  /** RFC 3339 start of the window. */
  startTime: string;
  /** RFC 3339 end of the window. */
  endTime: string;
}

/**
 * Create, read, update, delete and list monitors (`mon_…`); read their history. PUT sends the whole monitor.
 * @see GET, POST /v2/monitors
 * @see GET, PUT, DELETE /v2/monitors/{id}
 */
export class Monitors extends CrudResource<Monitor, MonitorCreate, MonitorUpdate> {
  protected readonly collection = "/v2/monitors";
  /** @internal The response schema (zod stays out of the published typings). */
  protected readonly schema = MonitorSchema;

  /** Lists every monitor.
   * @see GET /v2/monitors */
  async list(options?: RequestOptions): Promise<Monitor[]> {
    return this.listWith("", options);
  }

  /** The monitor's alert history between two times.
   * @see GET /v2/monitors/{id}/history */
  async history(
    id: string,
    params: MonitorHistoryParams,
    options?: RequestOptions,
  ): Promise<MonitorHistoryEntry[]> {
    const q = queryString({ startTime: params.startTime, endTime: params.endTime });
    return this.transport.request(
      {
        method: "GET",
        path: this.itemPath(id) + "/history" + q,
        schema: z.array(MonitorHistoryEntrySchema),
      },
      options,
    );
  }
}
