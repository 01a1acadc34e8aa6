/**
 * How the lifecycle engine handles Group (its declaration), apart from the Resource class in group.ts, which
 * imports @pulumi/pulumi: the native provider plugin loads this file and not that one (kinds.ts).
 */
import { GroupInputSchema, fieldNames, type Group as ApiGroup } from "../schemas";
import { declareKind, fromSchema, plainFamily } from "./lifecycle";

const INPUT_KEYS = fieldNames(GroupInputSchema);
export const OUTPUT_KEYS = [...INPUT_KEYS, "isManaged", "adopt"] as const;

/** @internal How the lifecycle engine handles groups. */
export const declaration = declareKind<ApiGroup, "Group">({
  kind: "Group",
  ...fromSchema(GroupInputSchema),
  setPaths: ["members", "roles"],
  adoptable: true,
  // Names are unique (the OpenAPI document: "Unique name identifier for the group"): the replacement could not
  // take the name while the old group holds it.
  deleteBeforeReplace: true,
  ...plainFamily((client) => client.groups, INPUT_KEYS),
  // The name is the natural key, as for roles: no creation time, so the baseline listing decides (a group absent
  // from the listing taken before the POST and matching the declared body), and a 409 on a resend means the
  // name was taken since: the group of that name is taken when it matches.
  reconcile: { list: (client) => client.groups.list(), listedBy: () => "", timed: () => false },
  // The listing holds every group, each as its GET returns it.
  readAll: { listedBy: () => "", list: (client) => client.groups.list() },
});
