/**
 * How the lifecycle engine handles Monitor (its declaration), apart from the Resource class in monitor.ts, which
 * imports @pulumi/pulumi: the native provider plugin loads this file and not that one (kinds.ts).
 */
import {
  MonitorFieldsSchema,
  monitorCrossFieldIssues,
  type CrossFieldIssue,
  type Monitor as ApiMonitor,
  fieldNames,
} from "../schemas";
import { declareKind, fromSchema, plainFamily, type Props, UNKNOWN } from "./lifecycle";

const INPUT_KEYS = fieldNames(MonitorFieldsSchema);
export const OUTPUT_KEYS = [...INPUT_KEYS, "createdAt", "createdBy", "adopt"] as const;

/** The schema's cross-field rules, with a type not yet known counting as "any type" (unknown fields count as
 * present already). */
function crossField(inputs: Props): CrossFieldIssue[] {
  return monitorCrossFieldIssues({ ...inputs, type: inputs.type === UNKNOWN ? undefined : inputs.type });
}

/** How the lifecycle engine handles monitors. */
export const declaration = declareKind<ApiMonitor, "Monitor">({
  kind: "Monitor",
  ...fromSchema(MonitorFieldsSchema),
  setPaths: ["notifierIds"],
  timePaths: ["disabledUntil"],
  adoptable: true,
  crossField,
  ...plainFamily((client) => client.monitors, INPUT_KEYS),
  // The service stamps `createdAt` (to the second): a guard beside the baseline listing (reconcile.ts).
  reconcile: {
    list: (client) => client.monitors.list(),
    listedBy: () => "",
    timed: () => true,
    createdAt: (obj) => obj.createdAt,
  },
  // The listing holds every monitor, each as its GET returns it.
  readAll: { listedBy: () => "", list: (client) => client.monitors.list() },
});
