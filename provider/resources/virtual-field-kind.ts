/**
 * How the lifecycle engine handles VirtualField (its declaration), apart from the Resource class in virtual-field.ts, which
 * imports @pulumi/pulumi: the native provider plugin loads this file and not that one (kinds.ts).
 */
import { VirtualFieldInputSchema, fieldNames, type VirtualField as ApiVirtualField } from "../schemas";
import { declareKind, fromSchema, plainFamily } from "./lifecycle";

const INPUT_KEYS = fieldNames(VirtualFieldInputSchema);
export const OUTPUT_KEYS = [...INPUT_KEYS, "adopt"] as const;

/** @internal How the lifecycle engine handles virtual fields. */
export const declaration = declareKind<ApiVirtualField, "VirtualField">({
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
