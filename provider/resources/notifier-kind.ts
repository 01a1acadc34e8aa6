/**
 * How the lifecycle engine handles Notifier (its declaration), apart from the Resource class in notifier.ts, which
 * imports @pulumi/pulumi: the native provider plugin loads this file and not that one (kinds.ts).
 */
import {
  CHANNEL_KEYS,
  NotifierFieldsSchema,
  SECRET_CHANNEL_FIELDS,
  notifierCrossFieldIssues,
  type ChannelKey,
  type Notifier as ApiNotifier,
  fieldNames,
} from "../schemas";
import { declareKind, fromSchema, plainFamily, type Props } from "./lifecycle";

const INPUT_KEYS = fieldNames(NotifierFieldsSchema);
export const OUTPUT_KEYS = [...INPUT_KEYS, "createdAt", "createdBy", "adopt"] as const;
/**
 * `additionalSecretOutputs` only marks top-level outputs, so all of `properties` is secret: every credential of
 * every channel lives under it, including values read when adopting or refreshing.
 */
export const SECRET_OUTPUTS = ["properties"] as const;

/**
 * Registered secret as a whole, whatever the user passed: a refresh after the channel was changed out of band
 * returns its credential at a path the old inputs never had, and only a secret parent keeps it secret.
 */
export const SECRET_INPUTS = ["properties"] as const;

/** Every credential string in a notifier's properties: scrubbed from errors. */
function secretStrings(inputs: Props): string[] {
  const props = inputs.properties as Record<string, Props | null | undefined> | undefined;
  const out: string[] = [];
  const collect = (v: unknown) => {
    if (typeof v === "string") out.push(v);
    else if (v && typeof v === "object") Object.values(v).forEach(collect);
  };
  for (const key of CHANNEL_KEYS) {
    const channel = props?.[key];
    if (channel && typeof channel === "object") {
      for (const field of SECRET_CHANNEL_FIELDS[key as ChannelKey]) collect(channel[field]);
    }
  }
  return out;
}

/** Drops empty header maps and gives Opsgenie's `isEU` its default: the service may echo or omit them alike. */
function canonicalize(inputs: Props): Props {
  const props = inputs.properties as Record<string, Props> | undefined;
  const opsgenie = props?.opsgenie;
  if (opsgenie && typeof opsgenie === "object" && opsgenie.isEU === undefined) opsgenie.isEU = false;
  const hook = props?.customWebhook;
  if (hook && typeof hook === "object") {
    for (const field of ["headers", "secretHeaders"]) {
      const map = hook[field];
      if (map && typeof map === "object" && Object.keys(map).length === 0) delete hook[field];
    }
  }
  return inputs;
}

/** How the lifecycle engine handles notifiers. */
export const declaration = declareKind<ApiNotifier, "Notifier">({
  kind: "Notifier",
  ...fromSchema(NotifierFieldsSchema),
  setPaths: ["properties.email.emails"],
  timePaths: ["disabledUntil"],
  adoptable: true,
  // The channel rule runs on `properties` even when a channel fails its own rules (a zod refinement would not).
  crossField: notifierCrossFieldIssues,
  canonicalize,
  secretStrings,
  ...plainFamily((client) => client.notifiers, INPUT_KEYS),
  reconcile: {
    list: (client) => client.notifiers.list(),
    listedBy: () => "",
    timed: () => true,
    createdAt: (obj) => obj.createdAt,
  },
  // The listing holds every notifier, each as its GET returns it (credentials included, as there).
  readAll: { listedBy: () => "", list: (client) => client.notifiers.list() },
});
