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
import { path, queryString } from "../path";
import { callOptions, type RequestOptions } from "../transport";
import { ApiResource } from "./base";

/** Window of {@link Monitors.history}; both bounds are required by the service. */
export interface MonitorHistoryParams {
  /** RFC 3339 start of the window. */
  startTime: string;
  /** RFC 3339 end of the window. */
  endTime: string;
}

/** Create, read, update, delete and list monitors; read their history. */
export class Monitors extends ApiResource {
  /** Lists every monitor.
   * @see GET /v2/monitors */
  async list(options?: RequestOptions): Promise<Monitor[]> {
    return this.transport.request({
      method: "GET",
      path: "/v2/monitors",
      schema: z.array(MonitorSchema),
      ...callOptions(options),
    });
  }

  /** Reads one monitor (`mon_…`).
   * @see GET /v2/monitors/{id} */
  async get(id: string, options?: RequestOptions): Promise<Monitor> {
    return this.transport.request({
      method: "GET",
      path: path`/v2/monitors/${id}`,
      schema: MonitorSchema,
      ...callOptions(options),
    });
  }

  /** Creates a monitor.
   * @see POST /v2/monitors */
  async create(body: MonitorCreate, options?: RequestOptions): Promise<Monitor> {
    return this.transport.request({
      method: "POST",
      path: "/v2/monitors",
      json: body,
      schema: MonitorSchema,
      ...callOptions(options),
    });
  }

  /** Replaces a monitor (PUT sends the whole monitor).
   * @see PUT /v2/monitors/{id} */
  async update(id: string, body: MonitorUpdate, options?: RequestOptions): Promise<Monitor> {
    return this.transport.request({
      method: "PUT",
      path: path`/v2/monitors/${id}`,
      json: body,
      schema: MonitorSchema,
      ...callOptions(options),
    });
  }

  /** Deletes a monitor.
   * @see DELETE /v2/monitors/{id} */
  async delete(id: string, options?: RequestOptions): Promise<void> {
    await this.transport.request({
      method: "DELETE",
      path: path`/v2/monitors/${id}`,
      ...callOptions(options),
    });
  }

  /** The monitor's alert history between two times.
   * @see GET /v2/monitors/{id}/history */
  async history(
    id: string,
    params: MonitorHistoryParams,
    options?: RequestOptions,
  ): Promise<MonitorHistoryEntry[]> {
    const q = queryString({ startTime: params.startTime, endTime: params.endTime });
    return this.transport.request({
      method: "GET",
      path: path`/v2/monitors/${id}/history` + q,
      schema: z.array(MonitorHistoryEntrySchema),
      ...callOptions(options),
    });
  }
}
