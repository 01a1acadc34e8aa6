/** Datasets: `/v2/datasets`, with their fields, map fields, trim and vacuum. The id is the name. */
import { z } from "zod";
import {
  DatasetFieldSchema,
  DatasetSchema,
  type Dataset,
  type DatasetCreate,
  type DatasetField,
  type DatasetFieldUpdate,
  type DatasetUpdate,
  type MapField,
  type TrimOptions,
} from "../../schemas";
import { path } from "../path";
import type { RequestOptions } from "../transport";
import { CrudResource } from "./base";

const MapFieldListSchema = z.array(z.string());
const MapFieldReplySchema = z.looseObject({ name: z.string() });
const FieldListSchema = z.array(DatasetFieldSchema);

/**
 * Create, read, update, delete and list datasets; names are unique, so a clash is a ConflictError (409). Update
 * changes only `description`, `retentionDays` and `useRetentionPeriod`. Ingest and queries are the client's own
 * `ingest` and `query`, which need the dataset to exist (a 404 otherwise).
 * @see GET, POST /v2/datasets
 * @see GET, PUT, DELETE /v2/datasets/{id}
 */
export class Datasets extends CrudResource<Dataset, DatasetCreate, DatasetUpdate> {
  protected readonly collection = "/v2/datasets";
  /** @internal The response schema (zod stays out of the published typings). */
  protected readonly schema = DatasetSchema;

  /** Lists every dataset.
   * @see GET /v2/datasets */
  async list(options?: RequestOptions): Promise<Dataset[]> {
    return this.listWith("", options);
  }

  /** The fields ingest has seen in a dataset.
   * @see GET /v2/datasets/{id}/fields */
  async listFields(id: string, options?: RequestOptions): Promise<DatasetField[]> {
    return this.transport.request(
      { method: "GET", path: this.itemPath(id) + "/fields", schema: FieldListSchema },
      options,
    );
  }

  /** One field of a dataset.
   * @see GET /v2/datasets/{id}/fields/{field} */
  async getField(id: string, field: string, options?: RequestOptions): Promise<DatasetField> {
    return this.transport.request(
      { method: "GET", path: this.itemPath(id) + path`/fields/${field}`, schema: DatasetFieldSchema },
      options,
    );
  }

  /** Edits a field's description, unit and hidden flag (`name` and `type` are sent as the field has them).
   * @see PUT /v2/datasets/{id}/fields/{field} */
  async updateField(
    id: string,
    field: string,
    body: DatasetFieldUpdate,
    options?: RequestOptions,
  ): Promise<DatasetField> {
    return this.transport.request(
      {
        method: "PUT",
        path: this.itemPath(id) + path`/fields/${field}`,
        json: body,
        schema: DatasetFieldSchema,
      },
      options,
    );
  }

  /** The dataset's map-field names.
   * @see GET /v2/datasets/{id}/mapfields */
  async listMapFields(id: string, options?: RequestOptions): Promise<string[]> {
    return this.transport.request(
      { method: "GET", path: this.itemPath(id) + "/mapfields", schema: MapFieldListSchema },
      options,
    );
  }

  /** Replaces the whole list of map fields (`[]` empties it); returns the list.
   * @see PUT /v2/datasets/{id}/mapfields */
  async putMapFields(id: string, names: string[], options?: RequestOptions): Promise<string[]> {
    return this.transport.request(
      { method: "PUT", path: this.itemPath(id) + "/mapfields", json: names, schema: MapFieldListSchema },
      options,
    );
  }

  /** Adds one map field; one that exists already is a ConflictError (409).
   * @see POST /v2/datasets/{id}/mapfields */
  async addMapField(id: string, body: MapField, options?: RequestOptions): Promise<MapField> {
    return this.transport.request(
      { method: "POST", path: this.itemPath(id) + "/mapfields", json: body, schema: MapFieldReplySchema },
      options,
    );
  }

  /** Removes one map field; a missing one is a NotFoundError.
   * @see DELETE /v2/datasets/{id}/mapfields/{name} */
  async deleteMapField(id: string, name: string, options?: RequestOptions): Promise<void> {
    await this.transport.request(
      { method: "DELETE", path: this.itemPath(id) + path`/mapfields/${name}` },
      options,
    );
  }

  /** Deletes data older than `maxDuration` (a Go duration such as `24h`); the service queues it (204).
   * @see POST /v2/datasets/{id}/trim */
  async trim(id: string, body: TrimOptions, options?: RequestOptions): Promise<void> {
    await this.transport.request({ method: "POST", path: this.itemPath(id) + "/trim", json: body }, options);
  }

  /** Compacts the dataset's fields (drops those no longer seen); the service queues it (200). A second one too
   * soon is a 429 with `Retry-After`, which the client's retry rules handle.
   * @see POST /v2/datasets/{id}/vacuum */
  async vacuum(id: string, options?: RequestOptions): Promise<void> {
    await this.transport.request({ method: "POST", path: this.itemPath(id) + "/vacuum" }, options);
  }
}
