/**
 * How the lifecycle engine handles Role (its declaration), apart from the Resource class in role.ts, which
 * imports @pulumi/pulumi: the native provider plugin loads this file and not that one (kinds.ts).
 */
import { RoleInputSchema, fieldNames, type Role as ApiRole } from "../schemas";
import { declareKind, fromSchema, plainFamily, type Props } from "./lifecycle";

const INPUT_KEYS = fieldNames(RoleInputSchema);
export const OUTPUT_KEYS = [...INPUT_KEYS, "adopt"] as const;

/** An empty action list grants nothing, so it equals an absent one; likewise a dataset or view with none. */
function canonicalize(inputs: Props): Props {
  const prune = (caps: unknown): Props => {
    const out: Props = {};
    if (!caps || typeof caps !== "object") return out;
    for (const [k, v] of Object.entries(caps)) if (!Array.isArray(v) || v.length > 0) out[k] = v;
    return out;
  };
  const pruneNested = (byName: unknown): Props => {
    const out: Props = {};
    if (!byName || typeof byName !== "object") return out;
    for (const [name, caps] of Object.entries(byName)) {
      const kept = typeof caps === "string" ? caps : prune(caps);
      if (typeof kept === "string" || Object.keys(kept).length > 0) out[name] = kept;
    }
    return out;
  };
  const out = { ...inputs };
  if (out.orgCapabilities !== undefined && typeof out.orgCapabilities === "object")
    out.orgCapabilities = prune(out.orgCapabilities);
  if (out.datasetCapabilities !== undefined && typeof out.datasetCapabilities === "object")
    out.datasetCapabilities = pruneNested(out.datasetCapabilities);
  if (out.viewCapabilities !== undefined && typeof out.viewCapabilities === "object")
    out.viewCapabilities = pruneNested(out.viewCapabilities);
  return out;
}

/** @internal How the lifecycle engine handles roles. */
export const declaration = declareKind<ApiRole, "Role">({
  kind: "Role",
  ...fromSchema(RoleInputSchema),
  setPaths: ["members", "orgCapabilities.*", "datasetCapabilities.*.*", "viewCapabilities.*.*"],
  adoptable: true,
  // Names are unique: the replacement could not take the name while the old role holds it.
  deleteBeforeReplace: true,
  canonicalize,
  ...plainFamily((client) => client.roles, INPUT_KEYS),
  // The name is the natural key: no creation time, so the baseline listing decides (a 409 on a resend is ours).
  reconcile: { list: (client) => client.roles.list(), listedBy: () => "", timed: () => false },
  // The listing holds every role, each as its GET returns it.
  readAll: { listedBy: () => "", list: (client) => client.roles.list() },
});
