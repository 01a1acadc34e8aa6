/**
 * VirtualField: a field of a dataset computed by an APL expression at query time. POST `/v2/vfields`, GET/PUT/DELETE
 * `/v2/vfields/{id}`; PUT sends the whole field. A change of `dataset` replaces the field.
 */
import * as pulumi from "@pulumi/pulumi";
import { VirtualFieldInputSchema } from "../schemas";
import { adoptableOptions, resourceProps, type ArgsMatchSchema, type Assert } from "./common";
import { KindResource } from "./kind-resource";
import { OUTPUT_KEYS, declaration } from "./virtual-field-kind";

/** Inputs of a {@link VirtualField}. */
export interface VirtualFieldArgs {
  /** Required: the dataset the field belongs to, non-empty; a change replaces the field. */
  dataset: pulumi.Input<string>;
  /** Required: the field's name, non-empty, as queries refer to it. */
  name: pulumi.Input<string>;
  /** Required: the APL expression computing the field, non-empty, e.g. `a + b`. */
  expression: pulumi.Input<string>;
  /** Free text. Defaults to "". */
  description?: pulumi.Input<string>;
  /** The value's type, e.g. `number` or `string`. Defaults to "". */
  type?: pulumi.Input<string>;
  /** The unit of the value, e.g. `ms`. Defaults to "". */
  unit?: pulumi.Input<string>;
  /** Id of an existing virtual field to take under management instead of creating one; changing it replaces. */
  adopt?: pulumi.Input<string>;
}

type _ArgsMatchSchema = Assert<ArgsMatchSchema<VirtualFieldArgs, typeof VirtualFieldInputSchema>>;

/** A virtual field: a dataset field computed by an APL expression. */
export class VirtualField extends KindResource {
  /** @internal The kind's declaration, which the dynamic provider's registry collects. */
  static readonly declaration = declaration;

  /** The dataset the field belongs to. */
  declare readonly dataset: pulumi.Output<string>;
  /** Name. */
  declare readonly name: pulumi.Output<string>;
  /** The APL expression. */
  declare readonly expression: pulumi.Output<string>;
  /** Free text, when set. */
  declare readonly description: pulumi.Output<string | undefined>;
  /** The value's type, when set. */
  declare readonly type: pulumi.Output<string | undefined>;
  /** The value's unit, when set. */
  declare readonly unit: pulumi.Output<string | undefined>;
  /** The adopted id, when the field was adopted. */
  declare readonly adopt: pulumi.Output<string | undefined>;

  /** Declares a virtual field. */
  constructor(name: string, args: VirtualFieldArgs, opts?: pulumi.CustomResourceOptions);
  /** @internal What {@link VirtualField.get} declares: no inputs, and the existing object's id in `opts`. */
  constructor(name: string, args: undefined, opts?: pulumi.CustomResourceOptions);
  constructor(name: string, args: VirtualFieldArgs | undefined, opts?: pulumi.CustomResourceOptions) {
    super(
      declaration,
      name,
      resourceProps(args, OUTPUT_KEYS),
      adoptableOptions(declaration.kind, name, args, opts),
    );
  }

  /** Looks up an existing virtual field by id without managing it. */
  static get(name: string, id: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): VirtualField {
    return new VirtualField(name, undefined, { ...opts, id });
  }
}
