/** Virtual fields: `/v2/vfields?dataset=` and `/v2/vfields/{id}`. */
import {
  VirtualFieldSchema,
  type VirtualField,
  type VirtualFieldCreate,
  type VirtualFieldListParams,
  type VirtualFieldUpdate,
} from "../../schemas";
import { queryString } from "../path";
import type { RequestOptions } from "../transport";
import { CrudResource } from "./base";

/**
 * Create, read, update (the whole field, PUT), delete and list a dataset's virtual fields.
 * @see GET, POST /v2/vfields
 * @see GET, PUT, DELETE /v2/vfields/{id}
 */
export class VirtualFields extends CrudResource<VirtualField, VirtualFieldCreate, VirtualFieldUpdate> {
  protected readonly collection = "/v2/vfields";
  /** @internal The response schema (zod stays out of the published typings). */
  protected readonly schema = VirtualFieldSchema;

  /** Lists one dataset's virtual fields; the dataset is required (the service refuses a list without it).
   * @see GET /v2/vfields?dataset= */
  async list(params: VirtualFieldListParams, options?: RequestOptions): Promise<VirtualField[]> {
    if (typeof params?.dataset !== "string" || params.dataset === "") {
      throw new TypeError("virtualFields.list: `dataset` is required (the dataset whose fields are listed)");
    }
    return this.listWith(queryString({ dataset: params.dataset }), options);
  }
}
