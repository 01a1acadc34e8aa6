/**
 * How the lifecycle engine handles View (its declaration), apart from the Resource class in view.ts, which
 * imports @pulumi/pulumi: the native provider plugin loads this file and not that one (kinds.ts).
 */
import { ViewInputSchema, fieldNames, type View as ApiView } from "../schemas";
import { declareKind, fromSchema, plainFamily } from "./lifecycle";

const INPUT_KEYS = fieldNames(ViewInputSchema);
export const OUTPUT_KEYS = [...INPUT_KEYS, "sharedByOrg", "sharedByOrgName", "adopt"] as const;

/** @internal How the lifecycle engine handles views. */
export const declaration = declareKind<ApiView, "View">({
  kind: "View",
  ...fromSchema(ViewInputSchema),
  setPaths: ["datasets"],
  adoptable: true,
  // The name is the id: a view cannot be renamed at its own URL, so a new name is a new view.
  replaceKeys: ["name"],
  // And the name is unique: a replacement of the same name created first would fail with 409.
  deleteBeforeReplace: true,
  ...plainFamily((client) => client.views, INPUT_KEYS),
  // Recognized by its name, which is unique: a view absent from the listing taken before the POST and matching
  // the declared body (no creation time, so the baseline decides; a 409 on a resend means the name was taken
  // since, and the view of that name is taken when it matches).
  reconcile: { list: (client) => client.views.list(), listedBy: () => "", timed: () => false },
  // The listing holds every view, each as its GET returns it (the client gives each its name as id).
  readAll: { listedBy: () => "", list: (client) => client.views.list() },
});
