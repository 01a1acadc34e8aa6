/** Annotation: the API reference's Annotation object (axiom.co/docs/restapi). Endpoints: `/v2/annotations`. */
import { z } from "zod";
import { DateTimeSchema, NonEmptyStringSchema, absentWhenUnset, serviceDefault } from "./common";

const annotationFields = {
  /** Dataset names on whose charts the annotation appears; at least one, each non-empty. */
  datasets: z
    .array(NonEmptyStringSchema, { error: "must be a list of dataset names" })
    .min(1, "must contain at least 1 dataset"),
  /** At most 256 characters, matching `^[a-z0-9-]+$`. */
  type: z
    .string({ error: "must be a string" })
    .max(256, "must be at most 256 characters")
    .regex(/^[a-z0-9-]+$/, "must match ^[a-z0-9-]+$"),
  /** At most 512 characters. */
  description: serviceDefault(
    z.string({ error: "must be a string" }).max(512, "must be at most 512 characters").optional(),
    "",
  ),
  /** RFC 3339; null means no end. */
  endTime: serviceDefault(DateTimeSchema.nullable().optional(), null),
  /** RFC 3339; defaults to the time of the request. */
  time: DateTimeSchema.optional(),
  /** At most 256 characters. */
  title: serviceDefault(
    z.string({ error: "must be a string" }).max(256, "must be at most 256 characters").optional(),
    "",
  ),
  /** At most 512 characters. */
  url: serviceDefault(
    z.string({ error: "must be a string" }).max(512, "must be at most 512 characters").optional(),
    "",
  ),
};

const AnnotationObjectSchema = z.object(annotationFields);

/** Body of `POST /v2/annotations`: `datasets` and `type` required. Unknown fields are ignored; null and the zero
 * time mean absent (axiom-py sends every unset field as null). */
export const AnnotationCreateSchema = absentWhenUnset(AnnotationObjectSchema, { zeroIsAbsent: true });
/** What a user declares: the create body, with unknown fields refused. */
export const AnnotationInputSchema = z.strictObject(annotationFields);
/** Body of `PUT /v2/annotations/{id}`: every field optional (partial update); null leaves a field as it is. */
export const AnnotationUpdateSchema = absentWhenUnset(AnnotationObjectSchema.partial(), {
  zeroIsAbsent: true,
});
/** An annotation as the service returns it: shape only, `id` required, unknown fields kept, a field of an
 * unexpected type kept as sent (drift for the provider, not an error). */
export const AnnotationSchema = absentWhenUnset(
  z
    .looseObject({
      datasets: z.array(z.string()),
      type: z.string(),
      description: z.string(),
      endTime: z.string().nullable(),
      time: z.string(),
      title: z.string(),
      url: z.string(),
    })
    .partial()
    .extend({ id: z.string() }),
  { zeroIsAbsent: true, keepMismatched: true },
);

export type AnnotationCreate = z.input<typeof AnnotationObjectSchema>;
export type AnnotationUpdate = Partial<AnnotationCreate>;
export type Annotation = z.infer<typeof AnnotationSchema>;
