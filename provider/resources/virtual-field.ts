/**
 * VirtualField: a field of a dataset computed by an APL expression at query time. POST `/v2/vfields`, GET/PUT/DELETE
 * `/v2/vfields/{id}`; PUT sends the whole field. A change of `dataset` replaces the field.
 */
import * as pulumi from "@pulumi/pulumi";
import { VirtualFieldInputSchema, fieldNames, type VirtualField as ApiVirtualField } from "../schemas";
import { adoptableOptions, resourceProps, type ArgsMatchSchema, type Assert } from "./common";
import { KindResource } from "./kind-resource";
import { declareKind, fromSchema, plainFamily } from "./lifecycle";

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

const INPUT_KEYS = fieldNames(VirtualFieldInputSchema);
type _ArgsMatchSchema = Assert<ArgsMatchSchema<VirtualFieldArgs, typeof VirtualFieldInputSchema>>;
const OUTPUT_KEYS = [...INPUT_KEYS, "adopt"] as const;

/** @internal How the lifecycle engine handles virtual fields. */
const declaration = declareKind<ApiVirtualField, "VirtualField">({
  kind: "VirtualField",
  ...fromSchema(VirtualFieldInputSchema),
  setPaths: [],
  // Terraform's provider PUTs a new dataset in place (terraform-provider-axiom resource_virtual_field.go); a field
  // belongs to its dataset, so here a new dataset means a new field. Names are not unique, so no delete first.
  replaceKeys: ["dataset"],
  adoptable: true,
  ...plainFamily((client) => client.virtualFields, INPUT_KEYS),
  // No creation time and no unique field: the baseline decides, listed by the declared dataset.
  reconcile: {
    list: (client, declared) => client.virtualFields.list({ dataset: String(declared.dataset) }),
    listedBy: (declared) => String(declared.dataset),
    timed: () => false,
  },
  // Listed only by dataset (the service refuses a listing without one): a read lists the dataset its prior
  // outputs name, which a field keeps for life (a new dataset replaces it); one moved out of band is not in that
  // listing, and is read by its GET. A `Resource.get` names no dataset, so it sends its GET.
  readAll: {
    listedBy: (props) =>
      typeof props.dataset === "string" && props.dataset !== "" ? props.dataset : undefined,
    list: (client, props) => client.virtualFields.list({ dataset: String(props.dataset) }),
  },
});

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
