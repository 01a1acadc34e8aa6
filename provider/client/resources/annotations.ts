/** Annotations: `/v2/annotations`. */
import { z } from "zod";
import {
  AnnotationSchema,
  type Annotation,
  type AnnotationCreate,
  type AnnotationUpdate,
} from "../../schemas";
import { path, queryString } from "../path";
import { callOptions, type RequestOptions } from "../transport";
import { ApiResource } from "./base";

/** Filters of {@link Annotations.list}. */
export interface AnnotationListParams {
  /** Only annotations on these datasets. */
  datasets?: string[];
  /** RFC 3339; only annotations at or after this time. */
  start?: string;
  /** RFC 3339; only annotations at or before this time. */
  end?: string;
}

/** Create, read, update, delete and list annotations. */
export class Annotations extends ApiResource {
  /** Lists annotations, optionally filtered.
   * @see GET /v2/annotations */
  async list(params: AnnotationListParams = {}, options?: RequestOptions): Promise<Annotation[]> {
    const q = queryString({ datasets: params.datasets, start: params.start, end: params.end });
    return this.transport.request({
      method: "GET",
      path: `/v2/annotations${q}`,
      schema: z.array(AnnotationSchema),
      ...callOptions(options),
    });
  }

  /** Reads one annotation.
   * @see GET /v2/annotations/{id} */
  async get(id: string, options?: RequestOptions): Promise<Annotation> {
    return this.transport.request({
      method: "GET",
      path: path`/v2/annotations/${id}`,
      schema: AnnotationSchema,
      ...callOptions(options),
    });
  }

  /** Creates an annotation; `time` defaults to now on the service.
   * @see POST /v2/annotations */
  async create(body: AnnotationCreate, options?: RequestOptions): Promise<Annotation> {
    return this.transport.request({
      method: "POST",
      path: "/v2/annotations",
      json: body,
      schema: AnnotationSchema,
      ...callOptions(options),
    });
  }

  /** Updates the fields given (partial update).
   * @see PUT /v2/annotations/{id} */
  async update(id: string, body: AnnotationUpdate, options?: RequestOptions): Promise<Annotation> {
    return this.transport.request({
      method: "PUT",
      path: path`/v2/annotations/${id}`,
      json: body,
      schema: AnnotationSchema,
      ...callOptions(options),
    });
  }

  /** Deletes an annotation.
   * @see DELETE /v2/annotations/{id} */
  async delete(id: string, options?: RequestOptions): Promise<void> {
    await this.transport.request({
      method: "DELETE",
      path: path`/v2/annotations/${id}`,
      ...callOptions(options),
    });
  }
}
