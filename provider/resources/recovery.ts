/**
 * Finding, after the fact, the object an interrupted create made: what `observability recover` asks of the kinds.
 * A create interrupted with the engine (a `kill -9` of `pulumi up`) leaves a pending operation holding the
 * create's checked inputs and no id; the object may or may not exist. The search is the uncertain create's
 * (reconcile.ts): the family's listing (`ReconcileRule.list`), the declared body compared as `diff` compares
 * (`inputChanges`), and the creation stamp where the service keeps one. What the live search has and this one
 * has not is its baseline (a listing taken just before the POST): here, what marks an object as someone else's
 * is that a resource of the stack's state holds it, or, for a stamped family, that it was made before the
 * interrupted operation began (its lock's timestamp, less the allowed clock skew).
 */
import type { ObservabilityClient } from "../client";
import { CREATE_SENDS_NO_POST, inputChanges, PROVIDER_KEY, type Descriptor } from "./descriptor";
import { DECLARATIONS, type DeclaredKindName } from "./kinds";
import { CLOCK_SKEW_MS } from "./reconcile";
import { readStamp } from "./service-clock";
import type { Props } from "./values";

/** The native provider's type tokens: `observability:index:<Kind>`. */
const NATIVE_PREFIX = "observability:index:";
/** The dynamic resources' type tokens: `pulumi-nodejs:dynamic/observability:<Kind>`. */
const DYNAMIC_PREFIX = "pulumi-nodejs:dynamic/observability:";

/** The kind's declaration as data (declareKind keeps the whole descriptor as `rules`). */
export function descriptorOf(kind: DeclaredKindName): Descriptor<{ id: string }> {
  const declared = DECLARATIONS.get(kind);
  if (!declared) throw new Error(`no kind named ${kind}`);
  return declared.rules as Descriptor<{ id: string }>;
}

/** Whether `name` is a kind this package declares. */
function isKind(name: string | undefined): name is DeclaredKindName {
  return name !== undefined && DECLARATIONS.has(name as DeclaredKindName);
}

/**
 * The kind a dynamic resource's serialized provider names. Two forms are in users' states (shim.ts): the
 * installed one `require("pulumi-observability/dist/provider/shims/<Kind>.js")`, and the one serialized by value,
 * whose closure captures `kind: "<Kind>"`.
 */
export function kindOfShim(shim: unknown): DeclaredKindName | undefined {
  if (typeof shim !== "string") return undefined;
  const installed = /pulumi-observability\/dist\/provider\/shims\/(\w+)\.js/.exec(shim)?.[1];
  if (isKind(installed)) return installed;
  const byValue = /\bkind: "(\w+)"/.exec(shim)?.[1];
  return isKind(byValue) ? byValue : undefined;
}

/**
 * The kind of a resource in a deployment: the native provider's by its type token, a dynamic resource's by the
 * shim in its `__provider` input (which is what runs it), else undefined (not this package's).
 */
export function kindOfResource(type: string, inputs: Props | undefined): DeclaredKindName | undefined {
  if (type.startsWith(NATIVE_PREFIX)) {
    const kind = type.slice(NATIVE_PREFIX.length);
    return isKind(kind) ? kind : undefined;
  }
  if (type.startsWith("pulumi-nodejs:dynamic")) {
    const fromShim = kindOfShim(inputs?.[PROVIDER_KEY]);
    if (fromShim) return fromShim;
    const named = type.startsWith(DYNAMIC_PREFIX) ? type.slice(DYNAMIC_PREFIX.length) : undefined;
    return isKind(named) ? named : undefined;
  }
  return undefined;
}

/** What the search concluded for one interrupted create. */
export type Finding =
  /** The kind's create sends no POST (an organization's name): nothing can have been left behind. */
  | { outcome: "nothing to find" }
  /** No object could be this create's: it never landed. */
  | { outcome: "absent" }
  /** Exactly one object can be this create's. `stamped`: its creation time shows it is new, not only its body. */
  | { outcome: "found"; object: { id: string }; stamped: boolean }
  /** More than one could be: named, not chosen. */
  | { outcome: "ambiguous"; ids: string[] }
  /** Found, but unusable: the object's secret value was only in the lost answer (an API token). */
  | { outcome: "value lost"; ids: string[] };

/** The family's objects that an interrupted create of `declared` may have made. */
export async function createdCandidates(
  kind: DeclaredKindName,
  client: ObservabilityClient,
  declared: Props,
  options: {
    /** Ids a resource of the stack's state holds, or another interrupted create was given: never taken. */
    held: ReadonlySet<string>;
    /** When the interrupted operation began (its lock's timestamp), if known. */
    since?: Date;
    /** Inputs whose values are not known (a preview shows secrets as `[secret]`): not compared. */
    unknownKeys?: readonly string[];
  },
): Promise<{ objects: { id: string }[]; stamped: boolean } | "nothing to find"> {
  const d = descriptorOf(kind);
  if (d.reconcile === CREATE_SENDS_NO_POST) return "nothing to find";
  const rule = d.reconcile;
  const since = options.since ? new Date(options.since.getTime() - CLOCK_SKEW_MS) : new Date(0);
  const stamped = options.since !== undefined && rule.timed(declared);
  const listed = await rule.list(client, declared, since);
  const objects = listed.filter((obj) => {
    if (options.held.has(obj.id)) return false;
    if (stamped) {
      const stamp = readStamp(rule.createdAt?.(obj));
      if (stamp === undefined || stamp.ms + stamp.precisionMs <= since.getTime()) return false;
    }
    const found = d.toInputs(obj);
    const compared = { ...declared };
    for (const key of options.unknownKeys ?? []) compared[key] = found[key];
    return inputChanges(d, found, compared).diffs.length === 0;
  });
  return { objects, stamped };
}

/** Whether the kind's created object holds a value only the create's answer carried (an API token's). */
export function valueLost(kind: DeclaredKindName): boolean {
  const d = descriptorOf(kind);
  return d.reconcile !== CREATE_SENDS_NO_POST && d.reconcile.valueLost === true;
}

/** The object's inputs, as the kind's Args hold them. */
export function inputsOf(kind: DeclaredKindName, obj: { id: string }): Props {
  return descriptorOf(kind).toInputs(obj);
}

/** The outputs the provider would have recorded for `obj` (a create's result, before the engine adds the id). */
export function outputsOf(kind: DeclaredKindName, obj: { id: string }): Props {
  return descriptorOf(kind).toOutputs(obj);
}
