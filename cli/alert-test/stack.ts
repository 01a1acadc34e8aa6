/**
 * The monitors, notifiers, datasets and virtual fields a Pulumi stack declares, read from `pulumi preview --json`
 * without credentials and without a deployment.
 *
 * What the preview prints (pulumi/pulumi pkg/backend/display/json.go, `ShowPreviewDigest`): one JSON document
 * `{config, steps: [{op, urn, provider, oldState?, newState?, ...}], diagnostics, changeSummary, duration}`, each
 * state an `apitype.ResourceV3` (`urn`, `type`, `id`, `inputs`, `outputs`, `dependencies`,
 * `propertyDependencies`, ...). Two things in it shape this module:
 *
 * - A secret is printed as the string `[secret]` (display/json.go `MassageSecrets`, showSecrets false), so a
 *   notifier's webhook URL or routing key is never in the file. A test needs no real one: URLs go to the run's
 *   local receiver and keys get a stand-in (model.ts).
 * - A value not known until apply is printed as `04da6b54-80e4-46f7-96ec-b56ff0331ba9`
 *   (pkg/resource/stack/deployment.go, `computedValuePlaceholder`). A notifier being created has no id yet, so a
 *   monitor's `notifierIds: [slack.id, pagerduty.id]` reads `[<unknown>, <unknown>]`. Which notifiers they are is
 *   read from the monitor's `propertyDependencies.notifierIds`: the URNs of the resources whose outputs made that
 *   input (the SDK records them for each input). Each notifier among them fills one unknown entry; an id already
 *   known (a notifier that exists: an update or no-op preview) is matched to the notifier whose state holds it.
 *   When the counts differ (an entry computed from something other than a notifier's id), the monitor is refused
 *   with the reason, rather than guessed.
 *
 * Measured on a real preview (test/e2e-native/alert-tests-preview.test.ts, the YAML flagship on the native
 * provider): the notifier's whole `properties` is printed as `[secret]` (any secret field in it marks the object),
 * the monitors' `propertyDependencies.notifierIds` name the notifier's URN, and a preview after `up` lists the
 * resources that do not change only with `--show-sames`.
 *
 * A resource is this package's by its type: the native provider's `observability:index:<Kind>`, or a dynamic
 * resource `pulumi-nodejs:dynamic/observability:<Kind>` (or older states' `pulumi-nodejs:dynamic:Resource`, whose
 * serialized provider names the kind), as `observability recover` reads them (provider/resources/recovery.ts).
 */
import { kindOfResource } from "../../provider/resources/recovery";
import { UNKNOWN } from "../../provider/resources/unknowns";
import type { DocPath, Problem, SourceDocument } from "./source";

export { UNKNOWN };
/** What the preview prints for a secret value (display/json.go `massagePropertyValue`). */
export const SECRET = "[secret]";

/** The step operations whose new state is a resource the stack keeps (deletes have none; reads are not managed). */
const KEPT_OPS = new Set([
  "create",
  "same",
  "update",
  "replace",
  "create-replacement",
  "import",
  "import-replacement",
]);

/** A resource of the stack as the test needs it. */
export interface StackResource {
  kind: "Monitor" | "Notifier" | "Dataset" | "VirtualField";
  urn: string;
  /** The resource's name, the last part of its URN: what the program passed as `name`. */
  name: string;
  /** Its ids where the preview knows them (an existing resource's), to resolve known `notifierIds`. */
  ids: string[];
  /** Its inputs, without the dynamic provider's `__provider` and the `adopt` option. */
  inputs: Record<string, unknown>;
  /** URNs each input depends on. */
  propertyDependencies: Record<string, string[]>;
  /** Resource-level dependencies (the fallback when an engine records no property dependencies). */
  dependencies: string[];
  /** Where the inputs are in the preview's document. */
  path: DocPath;
}

const KINDS = new Set(["Monitor", "Notifier", "Dataset", "VirtualField"]);

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

/** The resource name of a URN: `urn:pulumi:<stack>::<project>::<type>::<name>`. */
export function urnName(urn: string): string {
  const parts = urn.split("::");
  return parts.length >= 4 ? parts.slice(3).join("::") : urn;
}

/**
 * This package's monitors, notifiers, datasets and virtual fields in a preview's document, one per URN (a
 * replacement's several steps give one), with a problem for a document that is not a preview.
 */
export function readPreview(doc: SourceDocument): { resources: StackResource[]; problems: Problem[] } {
  const root = doc.value;
  if (!isObject(root) || !Array.isArray(root.steps)) {
    return {
      resources: [],
      problems: [
        doc.problem(
          [],
          "is not the output of `pulumi preview --json` (a JSON object with a `steps` list); a preview that failed prints its diagnostics instead, so run it by hand to see why",
        ),
      ],
    };
  }
  const byUrn = new Map<string, StackResource>();
  root.steps.forEach((step, i) => {
    if (!isObject(step) || typeof step.op !== "string" || !KEPT_OPS.has(step.op)) return;
    const state = step.newState;
    if (!isObject(state) || typeof state.type !== "string" || typeof state.urn !== "string") return;
    const inputs = isObject(state.inputs) ? state.inputs : {};
    const kind = kindOfResource(state.type, inputs as never);
    if (!kind || !KINDS.has(kind)) return;
    const declared: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(inputs)) if (k !== "__provider" && k !== "adopt") declared[k] = v;
    const old = isObject(step.oldState) ? step.oldState : {};
    const ids = [state.id, old.id, isObject(old.outputs) ? old.outputs.id : undefined].filter(
      (id): id is string => typeof id === "string" && id !== "" && id !== UNKNOWN,
    );
    const deps: Record<string, string[]> = {};
    if (isObject(state.propertyDependencies)) {
      for (const [k, v] of Object.entries(state.propertyDependencies)) deps[k] = strings(v);
    }
    byUrn.set(state.urn, {
      kind: kind as StackResource["kind"],
      urn: state.urn,
      name: urnName(state.urn),
      ids: [...new Set(ids)],
      inputs: declared,
      propertyDependencies: deps,
      dependencies: strings(state.dependencies),
      path: ["steps", i, "newState", "inputs"],
    });
  });
  return { resources: [...byUrn.values()], problems: [] };
}

/** Paths (relative) of every unknown or secret value in `v`. */
export function hiddenPaths(v: unknown, at: (string | number)[] = [], out: (string | number)[][] = []) {
  if (v === UNKNOWN || v === SECRET) out.push(at);
  else if (Array.isArray(v)) v.forEach((x, i) => hiddenPaths(x, [...at, i], out));
  else if (isObject(v)) for (const [k, x] of Object.entries(v)) hiddenPaths(x, [...at, k], out);
  return out;
}

/**
 * The notifiers a stack monitor's `notifierIds` names, as notifier URNs, by the rules in the module's comment;
 * or the reason they cannot be told.
 */
export function resolveStackNotifierIds(
  monitor: StackResource,
  notifiers: readonly StackResource[],
): { urns: string[] } | { problem: string; field: string } {
  const value = monitor.inputs.notifierIds;
  if (value === undefined || value === null) return { urns: [] };
  const byUrn = new Map(notifiers.map((n) => [n.urn, n]));
  const deps =
    monitor.propertyDependencies.notifierIds ??
    (Object.keys(monitor.propertyDependencies).length === 0 ? monitor.dependencies : []);
  const depNotifiers = [...new Set(deps)].filter((urn) => byUrn.has(urn));
  if (value === UNKNOWN) {
    // The whole list is computed (an apply over several ids): every notifier it was computed from.
    if (depNotifiers.length === 0)
      return {
        field: "notifierIds",
        problem:
          "is unknown at preview and depends on no notifier of this stack, so its notifiers cannot be told",
      };
    return { urns: depNotifiers };
  }
  if (!Array.isArray(value)) return { urns: [] };
  const known: string[] = [];
  let unknown = 0;
  for (const [i, id] of value.entries()) {
    if (id === UNKNOWN) {
      unknown++;
      continue;
    }
    const match = notifiers.find((n) => typeof id === "string" && n.ids.includes(id));
    if (!match)
      return {
        field: `notifierIds[${i}]`,
        problem: `${JSON.stringify(id)} is the id of no notifier this stack declares; declare that notifier under notifiers: with ${JSON.stringify(id)} as its name`,
      };
    known.push(match.urn);
  }
  const rest = depNotifiers.filter((urn) => !known.includes(urn));
  if (unknown !== rest.length) {
    return {
      field: "notifierIds",
      problem:
        `has ${unknown} ${unknown === 1 ? "id" : "ids"} unknown at preview, and depends on ${rest.length} other ` +
        `${rest.length === 1 ? "notifier" : "notifiers"} of this stack${rest.length ? ` (${rest.map(urnName).join(", ")})` : ""}, ` +
        "so which notifier each one is cannot be told; declare the monitor under monitors: in the test file",
    };
  }
  return { urns: [...known, ...rest] };
}
