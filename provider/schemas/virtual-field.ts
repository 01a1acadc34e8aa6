/**
 * Virtual field: the OpenAPI v2 document's `VirtualField` and `VirtualFieldWithId` (axiomhq/docs
 * `restapi/versions/v2.json`; axiom-go axiom/vfields.go:12-31). Endpoints: `/v2/vfields?dataset=` and
 * `/v2/vfields/{id}`.
 */
import { z } from "zod";
import { NonEmptyStringSchema, absentWhenUnset, serviceDefault } from "./common";

const optionalText = () => serviceDefault(z.string({ error: "must be a string" }).optional(), "");

const virtualFieldFields = {
  /** Required: the dataset the field belongs to. */
  dataset: NonEmptyStringSchema,
  /** Required: the field's name, as queries refer to it. */
  name: NonEmptyStringSchema,
  /** Required: the APL expression that computes the field, e.g. `a + b`. */
  expression: NonEmptyStringSchema,
  /** Free text; absent reads as "" (axiom-go sends it omitempty). */
  description: optionalText(),
  /** The value's type, e.g. `number` or `string`; absent reads as "". */
  type: optionalText(),
  /** The unit of the value; absent reads as "". */
  unit: optionalText(),
};

/** Body of `POST /v2/vfields` and `PUT /v2/vfields/{id}` (the document's required `VirtualField`, whole each time). */
const VirtualFieldObjectSchema = z.object(virtualFieldFields);
export const VirtualFieldCreateSchema = absentWhenUnset(VirtualFieldObjectSchema);
export const VirtualFieldUpdateSchema = VirtualFieldCreateSchema;
export type VirtualFieldCreate = z.input<typeof VirtualFieldObjectSchema>;
export type VirtualFieldUpdate = VirtualFieldCreate;

/** What a user declares: the body, unknown fields refused. */
export const VirtualFieldInputSchema = z.strictObject(virtualFieldFields);

/** Parameters of `GET /v2/vfields`: the dataset is required (axiom-go sends `?dataset=`, vfields.go:44-46). */
export interface VirtualFieldListParams {
  /** The dataset whose virtual fields are listed. */
  dataset: string;
}

/** A virtual field as the service returns it (`VirtualFieldWithId`, flat); unknown fields survive. */
export const VirtualFieldSchema = absentWhenUnset(
  z
    .looseObject({
      dataset: z.string(),
      name: z.string(),
      expression: z.string(),
      description: z.string(),
      type: z.string(),
      unit: z.string(),
    })
    .partial()
    .extend({ id: z.string() }),
  { keepMismatched: true },
);
export type VirtualField = z.infer<typeof VirtualFieldSchema>;
