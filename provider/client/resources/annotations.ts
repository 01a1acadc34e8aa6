/** Annotations: `/v2/annotations`. */
import {
  AnnotationSchema,
  type Annotation,
  type AnnotationCreate,
  type AnnotationUpdate,
} from "../../schemas";
import { queryString } from "../path";
import type { RequestOptions } from "../transport";
import { CrudResource } from "./base";

/** Filters of {@link Annotations.list}. */
export interface AnnotationListParams {
  /** Only annotations on these datasets. */
  datasets?: string[];
  /** RFC 3339; only annotations at or after this time. */
  start?: string;
  /** RFC 3339; only annotations at or before this time. */
  end?: string;
}

/**
 * Create, read, update, delete and list annotations (`ann_…`). Create answers 201 and sets `time` to now when it
 * is not given; PUT is a partial update.
 * @see GET, POST /v2/annotations
 * @see GET, PUT, DELETE /v2/annotations/{id}
 */
export class Annotations extends CrudResource<Annotation, AnnotationCreate, AnnotationUpdate> {
  protected readonly collection = "/v2/annotations";
  /** @internal The response schema (zod stays out of the published typings). */
  protected readonly schema = AnnotationSchema;

  /** Lists annotations, optionally filtered.
   * @see GET /v2/annotations */
  async list(params: AnnotationListParams = {}, options?: RequestOptions): Promise<Annotation[]> {
    const q = queryString({ datasets: params.datasets, start: params.start, end: params.end });
    return this.listWith(q, options);
  }
}
