/**
 * What one resource kind is, as data: its rules (schema, keys, defaults, comparison paths), its client family,
 * how its objects map to inputs and outputs, and how an uncertain create finds its object. The lifecycle engine
 * (lifecycle.ts) and the uncertain-create search (reconcile.ts) both read it; neither imports the other's types.
 *
 * Also here: the comparison every diff and every uncertain create uses (`normalize`, `canonical`,
 * `inputChanges`), since it needs nothing but a kind's rules.
 */
import type { z } from "zod";
import type { ObservabilityClient } from "../client";
import type { CrudFamily } from "../client/resources/base";
import type { CrossFieldIssue } from "../schemas";
import { canonicalTime } from "../time";
import { clone, dropNulls, mapAtPath, pick, sameJson, sortAtPath, type Props } from "./values";

/** The input that carries the serialized provider; never validated, never sent. */
export const PROVIDER_KEY = "__provider";
/** The optional input that takes an existing object under management. */
export const ADOPT_KEY = "adopt";

/** The rules of a kind that do not depend on its object type: what check, diff and the comparisons read. */
export interface KindRules<K extends string = string> {
  /** The kind, as the shim names it and as errors name it. */
  kind: K;
  /** The strict input schema from provider/schemas: unknown fields refused. Cross-field rules are not in it. */
  schema: z.ZodType;
  /** Every Args field except `adopt`. */
  inputKeys: readonly string[];
  /** Values the service assumes for absent fields; absent and default compare equal. */
  defaults: Props;
  /** Fields the service fills in when not declared (e.g. an annotation's `time`): not diffed while undeclared. */
  serverSet?: readonly string[];
  /** Paths of lists compared without regard to order; `*` matches every key of a map. */
  setPaths: readonly string[];
  /**
   * Paths of date-times compared as instants, since the service may echo `+02:00` as `Z` or drop the
   * milliseconds; the zero time some clients and services use for "unset" compares equal to absent.
   */
  timePaths?: readonly string[];
  /** Fields whose change the API cannot apply in place. */
  replaceKeys?: readonly string[];
  /** Whether `adopt` is accepted (every kind but OrganizationName and ApiToken). */
  adoptable: boolean;
  /** For a kind that is not adoptable: why, as `check` reports it on `adopt` at preview. */
  adoptRefusal?: string;
  /** A replacement must delete first (a unique name would otherwise clash). */
  deleteBeforeReplace?: boolean;
  /** Outputs kept from the prior state across update and read (e.g. OrganizationName's `previousName`). */
  carryKeys?: readonly string[];
  /**
   * The kind's cross-field rules, stated in its schema file and run once by `check`, with unknown values
   * (preview) treated as "could be anything valid".
   */
  crossField?(inputs: Props): CrossFieldIssue[];
  /** Extra canonicalization for diffs, after defaults and set sorting (e.g. dropping empty capability lists). */
  canonicalize?(inputs: Props): Props;
  /** Credential strings in the inputs, scrubbed from every error message. */
  secretStrings?(inputs: Props): string[];
}

/** How one family is searched after an uncertain create (reconcile.ts explains the method). */
export interface ReconcileRule<T> {
  /** The objects a create of `declared` may have made (a superset is fine: candidates are matched after). */
  list(client: ObservabilityClient, declared: Props, since: Date): Promise<T[]>;
  /**
   * The parameters `list` takes from `declared` (a filter such as a dataset or a name), as a string: creates
   * whose values are equal share one baseline listing (reconcile.ts), so two values that may list different
   * objects must differ. `""` for a family listed whole. Only the ids of the baseline are read.
   */
  listedBy(declared: Props): string;
  /** Whether the service records when an object of this body was created; without, the baseline decides. */
  timed(declared: Props): boolean;
  /** When the service created `obj` (read only where {@link timed}). */
  createdAt?(obj: T): unknown;
  /**
   * The created object holds a secret that only the create's answer carries (an API token's value), so an
   * object found after an uncertain create cannot be taken: it is deleted as an orphan, and the POST sent again.
   */
  valueLost?: boolean;
}

/** The reconcile rule of a kind whose create sends no POST (nothing can be left behind by an unknown outcome). */
export const CREATE_SENDS_NO_POST = "create sends no POST";

/**
 * How a read (a refresh, a `Resource.get`) finds its object in a listing of the family that it shares with the
 * other reads of the burst (lifecycle.ts `read`, listings.ts), instead of sending a GET of its own. A listed
 * object must be exactly what the family's `get` would have returned, since the read maps it the same way: a
 * family whose listing returns less than a GET does reads one by one ({@link READS_ONE_BY_ONE}).
 */
export interface ReadAllRule<T> {
  /**
   * The parameters of the listing that can answer a read with these prior outputs (a filter such as a virtual
   * field's dataset), as a string; `""` for a family listed whole. Reads whose strings are equal share one
   * listing, so two values that may list different objects must differ. Undefined when the props do not say (a
   * `Resource.get` has none): that read sends its GET.
   */
  listedBy(props: Props): string | undefined;
  /** Every object of that listing, every page, each as the family's `get` returns it before {@link asRead}. */
  list(client: ObservabilityClient, props: Props): Promise<T[]>;
  /** The id the listing holds the object of a read of `id` under (an API token's current token); default `id`. */
  listedId?(id: string, props: Props): string;
  /**
   * The listed object as `family(client, props).get(id)` returns it: what the family's get adds from the prior
   * outputs (a dataset's `forceDestroy`) or the resource's id; by default the object as listed.
   */
  asRead?(listed: T, id: string, props: Props): T;
}

/**
 * The read rule of a kind whose reads each send their GET: its listing returns less than a GET does, or there is
 * nothing to share (each kind's declaration says why).
 */
export const READS_ONE_BY_ONE = "reads one by one";

/** Everything that makes one resource kind different from another; `T` is its object as the service returns it. */
export interface Descriptor<T extends { id: string }, K extends string = string> extends KindRules<K> {
  /**
   * The client family the four verbs go to. `olds` are the prior outputs, for a kind whose verbs need them
   * (OrganizationName's delete restores the name recorded in them); a plain family ignores them.
   */
  family(client: ObservabilityClient, olds: Props): CrudFamily<T, Props>;
  /** How an uncertain create finds its object; required, so that no kind creates without one by omission. */
  reconcile: ReconcileRule<T> | typeof CREATE_SENDS_NO_POST;
  /** How reads share a listing of the family; required, so that a kind's reads are batched or not by decision. */
  readAll: ReadAllRule<T> | typeof READS_ONE_BY_ONE;
  /** Request body from normalized inputs. */
  toBody(inputs: Props): Props;
  /** The object mapped back into the Args shape (before normalization). */
  toInputs(obj: T): Props;
  /** Every output: the service's fields, including server-set ones. */
  toOutputs(obj: T): Props;
}

/** Only the declared fields of `props` (no `__provider`, no `adopt`, no outputs). */
function pickInputs(rules: KindRules, props: Props): Props {
  return pick(props, rules.inputKeys);
}

/** Declared fields with defaults applied where absent or null; unknown values kept as they are. */
export function normalize(rules: KindRules, inputs: Props): Props {
  return clone(withDefaults(rules, inputs));
}

/**
 * What {@link normalize} returns, without copying `inputs`: a new object whose values are those of `inputs`
 * themselves (a default put in is a copy, since the kind's defaults are shared by every call). For
 * {@link canonical}, which copies as it drops nulls; copying the inputs here as well took a third of `diff`'s time.
 */
function withDefaults(rules: KindRules, inputs: Props): Props {
  const out = pickInputs(rules, inputs);
  for (const key in rules.defaults) {
    if (out[key] !== undefined && out[key] !== null) continue;
    const value = rules.defaults[key];
    out[key] = value !== null && typeof value === "object" ? clone(value) : value;
  }
  return out;
}

/** The form diffs compare: normalized, nulls dropped, set-like lists sorted, kind-specific cleanup. */
export function canonical(rules: KindRules, inputs: Props): Props {
  // dropNulls copies every object and list, so the sorting and mapping below never reach the caller's values.
  let out = dropNulls(withDefaults(rules, inputs)) as Props;
  for (const path of rules.setPaths) sortAtPath(out, path);
  for (const path of rules.timePaths ?? []) mapAtPath(out, path, canonicalTime);
  if (rules.canonicalize) out = rules.canonicalize(out);
  return out;
}

/**
 * `props` (an object's outputs or inputs, keyed as the kind's inputs) without the fields that hold the service's
 * default and that `kept` does not name: what the state needs of them. A diff reads an absent field as its
 * default ({@link canonical}), so dropping one changes no comparison; a field is dropped only where the
 * canonical form of what is left, at that field, is the canonical form of `props` (a kind's `canonicalize` may
 * read several fields at once). Every other field stays: what the program declared (`kept`), what differs from
 * the default (drift included), and every field that is not an input (server-set ones, secrets, `adopt`).
 *
 * The engine saves the whole state after every step of `pulumi up`, so its time follows the bytes per resource:
 * a monitor declared with five fields held 22 inputs and as many outputs, most of them defaults.
 */
export function withoutDefaults(rules: KindRules, props: Props, kept: (key: string) => boolean): Props {
  const dropped = new Set<string>();
  for (const key in rules.defaults) if (props[key] !== undefined && !kept(key)) dropped.add(key);
  if (dropped.size === 0) return props;
  const full = canonical(rules, props);
  // Each pass restores the fields whose canonical value moved; a restored field can move another only through
  // `canonicalize`, so this ends within as many passes as fields.
  for (let pass = 0; pass <= dropped.size; pass++) {
    const rest: Props = {};
    for (const key of Object.keys(props)) if (!dropped.has(key)) rest[key] = props[key];
    const slim = canonical(rules, rest);
    const moved = rules.inputKeys.filter((key) => !sameJson(full[key], slim[key]));
    if (moved.length === 0) return rest;
    // A field left in place that moved: the kind's canonicalize ties it to those dropped; keep them all.
    if (moved.some((key) => !dropped.has(key))) return props;
    for (const key of moved) dropped.delete(key);
  }
  return props;
}

/**
 * The declared fields that differ between `olds` and `news` in canonical form, as `diff` reports them; a
 * server-set field not declared in `news` never differs. Also how an uncertain create recognizes its object.
 */
export function inputChanges(
  rules: KindRules,
  olds: Props,
  news: Props,
): { diffs: string[]; stables: string[] } {
  const before = canonical(rules, olds);
  const after = canonical(rules, news);
  const diffs: string[] = [];
  const stables: string[] = [];
  for (const key of rules.inputKeys) {
    if (news[key] === undefined && rules.serverSet?.includes(key)) stables.push(key);
    else if (!sameJson(before[key], after[key])) diffs.push(key);
    else stables.push(key);
  }
  return { diffs, stables };
}
