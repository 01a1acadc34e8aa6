/**
 * The one lifecycle engine behind every resource: check, diff, create, read, update and delete, driven by a
 * per-kind {@link Descriptor}. It runs in the dynamic-provider host (loaded by `dynamic.ts`), never serialized.
 *
 * Create, read, update and delete map to POST, GET, PUT and DELETE on the resource's path; retries and typed
 * errors come from the client.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";
import { ApiError, NotFoundError, type ObservabilityClient } from "../client";
import { scrub } from "../client/errors";
import { fieldNames, serviceDefaults, validate, type ValidationFailure } from "../schemas";
import { canonicalTime } from "../time";
import { claim, createReconciled } from "./reconcile";
import type { ResourceKind } from "./shim";
import { blamesUnknown, unknownPaths, UNKNOWN } from "./unknowns";
import {
  clone,
  dropNulls,
  dropUndefined,
  mapAtPath,
  pick,
  sortAtPath,
  stableStringify,
  type Props,
} from "./values";

// Re-exported because the resource files, the public index and the tests import them with the engine.
export { UNKNOWN, type Props };

/** The input that carries the serialized provider; never validated, never sent. */
export const PROVIDER_KEY = "__provider";
/** The optional input that takes an existing object under management. */
export const ADOPT_KEY = "adopt";

/** The four verbs the engine needs from a resource family; `T` is the object as the service returns it. */
export interface Verbs<T> {
  /** Reads one object; rejects with NotFoundError when it is gone. */
  get(id: string): Promise<T>;
  /** Creates an object from a request body. */
  create(body: Props): Promise<T>;
  /** Brings an existing object to the declared body; `olds` are the prior outputs (or the adopted object). */
  update(id: string, body: Props, olds: Props): Promise<T>;
  /** Deletes an object; `olds` are the prior outputs. */
  delete(id: string, olds: Props): Promise<void>;
}

/** Everything that makes one resource kind different from another. */
export interface Descriptor<T = Props> {
  /** The kind, as the shim names it and as errors name it. */
  kind: ResourceKind;
  /** The strict input schema from provider/schemas: unknown fields refused. */
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
  /** Whether `adopt` is accepted (every kind but OrganizationName). */
  adoptable: boolean;
  /** A replacement must delete first (a unique name would otherwise clash). */
  deleteBeforeReplace?: boolean;
  /** Outputs kept from the prior state across update and read (e.g. OrganizationName's `previousName`). */
  carryKeys?: readonly string[];
  /** Cross-field rules, evaluated with unknown values treated as "could be anything valid". */
  crossField?(inputs: Props): ValidationFailure[];
  /** Extra canonicalization for diffs, after defaults and set sorting (e.g. dropping empty capability lists). */
  canonicalize?(inputs: Props): Props;
  /** The client family, as the engine's four verbs. */
  verbs(client: ObservabilityClient): Verbs<T>;
  /** Request body from normalized inputs. */
  toBody(inputs: Props): Props;
  /** The object mapped back into the Args shape (before normalization). */
  toInputs(obj: T): Props;
  /** Every output: the service's fields, including server-set ones. */
  toOutputs(obj: T): Props;
  /** Credential strings in the inputs, scrubbed from every error message. */
  secretStrings?(inputs: Props): string[];
}

/** A client family with the four verbs, as the client's resource classes have them. */
export interface CrudFamily<T> {
  get(id: string): Promise<T>;
  create(body: never): Promise<T>;
  update(id: string, body: never): Promise<T>;
  delete(id: string): Promise<void>;
}

/**
 * The descriptor part shared by the kinds whose request body is their inputs and whose object maps straight
 * back: verbs from a client family, the body without undefined values, inputs picked, every field an output.
 */
export function plainCrud<T extends object>(
  family: (client: ObservabilityClient) => CrudFamily<T>,
  inputKeys: readonly string[],
): Pick<Descriptor<T>, "verbs" | "toBody" | "toInputs" | "toOutputs"> {
  return {
    verbs(client) {
      const f = family(client);
      return {
        get: (id) => f.get(id),
        create: (body) => f.create(body as never),
        update: (id, body) => f.update(id, body as never),
        delete: (id) => f.delete(id),
      };
    },
    toBody: (inputs) => dropUndefined(inputs),
    toInputs: (obj) => pick(obj, inputKeys),
    toOutputs: (obj) => ({ ...obj }) as Props,
  };
}

/** The descriptor part an input schema decides: the schema, its fields as the input keys, its service defaults. */
export function fromSchema(schema: z.ZodObject): Pick<Descriptor, "schema" | "inputKeys" | "defaults"> {
  return { schema, inputKeys: fieldNames(schema), defaults: serviceDefaults(schema) };
}

/** Diff result with the changed property names (the host only forwards changes/replaces). */
export interface LifecycleDiff extends pulumi.dynamic.DiffResult {
  /** Names of the inputs that differ. */
  readonly diffs: string[];
}

/** The provider the host calls for one kind. */
export interface Lifecycle {
  check(olds: Props, news: Props): Promise<pulumi.dynamic.CheckResult>;
  diff(id: string, olds: Props, news: Props): Promise<LifecycleDiff>;
  create(inputs: Props): Promise<pulumi.dynamic.CreateResult>;
  read(id: string, props?: Props): Promise<pulumi.dynamic.ReadResult>;
  update(id: string, olds: Props, news: Props): Promise<pulumi.dynamic.UpdateResult>;
  delete(id: string, props: Props): Promise<void>;
}

/** What the engine needs from its surroundings: a client, and the secrets to scrub (the token). */
export interface LifecycleContext {
  /** The configured client; throws a readable error when configuration is missing. */
  client(): ObservabilityClient;
  /** Strings that must never appear in an error (the token). */
  secrets(): string[];
}

/** Only the declared fields of `props` (no `__provider`, no `adopt`, no outputs). */
export function pickInputs(d: Descriptor<unknown>, props: Props): Props {
  return pick(props, d.inputKeys);
}

/** Declared fields with defaults applied where absent or null; unknown values kept as they are. */
export function normalize(d: Descriptor<unknown>, inputs: Props): Props {
  const out = clone(pickInputs(d, inputs));
  for (const [key, value] of Object.entries(d.defaults)) {
    if (out[key] === undefined || out[key] === null) out[key] = clone(value);
  }
  return out;
}

/** The form diffs compare: normalized, nulls dropped, set-like lists sorted, kind-specific cleanup. */
export function canonical(d: Descriptor<unknown>, inputs: Props): Props {
  let out = dropNulls(normalize(d, inputs)) as Props;
  for (const path of d.setPaths) sortAtPath(out, path);
  for (const path of d.timePaths ?? []) mapAtPath(out, path, canonicalTime);
  if (d.canonicalize) out = d.canonicalize(out);
  return out;
}

/**
 * The declared fields that differ between `olds` and `news` in canonical form, as `diff` reports them; a
 * server-set field not declared in `news` never differs. Also how an uncertain create recognizes its object.
 */
export function inputChanges(
  d: Descriptor<unknown>,
  olds: Props,
  news: Props,
): { diffs: string[]; stables: string[] } {
  const before = canonical(d, olds);
  const after = canonical(d, news);
  const diffs: string[] = [];
  const stables: string[] = [];
  for (const key of d.inputKeys) {
    if (news[key] === undefined && d.serverSet?.includes(key)) stables.push(key);
    else if (stableStringify(before[key]) !== stableStringify(after[key])) diffs.push(key);
    else stables.push(key);
  }
  return { diffs, stables };
}

/**
 * What a Pulumi user does after a create whose outcome is unknown: the object may exist without being in the
 * stack's state, and `pulumi up` would create a second one.
 */
export function uncertainCreateAdvice(kind: string, adoptable: boolean): string {
  const takeOver = adoptable
    ? `set \`adopt: "<its id>"\` on this ${kind} to take it under management, or delete it,`
    : "delete it";
  return (
    `The ${kind} may have been created even so, and it is not in the stack's state. ` +
    `Before running \`pulumi up\` again, look for it in the service; if it is there, ${takeOver} ` +
    "so that it is not created twice."
  );
}

/** A plain Error the host can show: the action, the client's message (method, path, status), no secret. */
export function engineError(
  kind: string,
  action: string,
  e: unknown,
  secrets: readonly string[],
  advice?: string,
): Error {
  const message = e instanceof Error ? e.message : String(e);
  const trace = e instanceof ApiError && e.traceId ? ` (trace id ${e.traceId})` : "";
  const more = advice ? `. ${advice}` : "";
  return new Error(scrub(`observability ${kind} ${action} failed: ${message}${trace}${more}`, secrets));
}

/** Builds the provider for one kind from its descriptor. */
export function lifecycle<T>(d: Descriptor<T>, ctx: LifecycleContext): Lifecycle {
  const desc = d as unknown as Descriptor<unknown>;
  const secretsOf = (inputs: Props) => [...ctx.secrets(), ...(d.secretStrings?.(inputs) ?? [])];
  const guard = async <R>(action: string, inputs: Props, run: () => Promise<R>): Promise<R> => {
    try {
      return await run();
    } catch (e) {
      // Only a POST can leave its outcome unknown (the client never resends one); updates are idempotent.
      const uncertain = action === "create" && e instanceof ApiError && e.outcomeUnknown;
      const advice = uncertain ? uncertainCreateAdvice(d.kind, d.adoptable) : undefined;
      throw engineError(d.kind, action, e, secretsOf(inputs), advice);
    }
  };
  // Ids that a create in this host process adopted. A forced replacement (`pulumi up --replace`,
  // `replacementTrigger`, `replaceWith`, `deletedWith`) creates the new resource before deleting the old one
  // without consulting diff (pulumi/pulumi pkg/resource/deploy/step_generator.go, generateSteps's replacement
  // branch, and step.go's CreateStep with a replacing old state followed by its DeleteStep), and both run in
  // this one host process. When the new resource adopted the very id the old one holds, the old one's delete
  // must leave the object to its new owner.
  const adoptedHere = new Set<string>();
  const adoptOf = (props: Props): string | undefined =>
    d.adoptable && typeof props[ADOPT_KEY] === "string" && props[ADOPT_KEY] !== ""
      ? (props[ADOPT_KEY] as string)
      : undefined;
  // `id` is the resource's own id, so it is not repeated among the outputs.
  const outputs = (obj: T, inputs: Props, olds: Props = {}): Props => {
    const out = d.toOutputs(obj);
    delete out.id;
    for (const key of d.carryKeys ?? [])
      if (out[key] === undefined && olds[key] !== undefined) out[key] = olds[key];
    const adopt = adoptOf(inputs) ?? adoptOf(olds);
    if (adopt !== undefined) out[ADOPT_KEY] = adopt;
    return out;
  };

  return {
    async check(_olds, news) {
      const failures: ValidationFailure[] = [];
      const declared: Props = { ...news };
      delete declared[PROVIDER_KEY];
      if (d.adoptable && ADOPT_KEY in declared) {
        const adopt = declared[ADOPT_KEY];
        delete declared[ADOPT_KEY];
        if (adopt !== undefined && adopt !== UNKNOWN && (typeof adopt !== "string" || adopt === "")) {
          failures.push({ property: ADOPT_KEY, reason: `must be the id of an existing ${d.kind}` });
        }
      }
      const unknowns = unknownPaths(declared);
      const result = validate(d.schema, declared);
      if (!result.ok) failures.push(...result.failures);
      failures.push(...(d.crossField?.(declared) ?? []));
      const seen = new Set<string>();
      const kept = failures.filter((f) => {
        const key = `${f.property}\u0000${f.reason}`;
        if (seen.has(key) || blamesUnknown(f.property, unknowns)) return false;
        seen.add(key);
        return true;
      });
      const inputs: Props = { ...declared, ...normalize(desc, declared) };
      if (d.adoptable && news[ADOPT_KEY] !== undefined) inputs[ADOPT_KEY] = news[ADOPT_KEY];
      if (news[PROVIDER_KEY] !== undefined) inputs[PROVIDER_KEY] = news[PROVIDER_KEY];
      return { inputs, failures: kept };
    },

    async diff(id, olds, news) {
      // Every id this process sees belongs to a resource, so an uncertain create never takes it (reconcile.ts).
      claim(d.kind, id);
      const { diffs, stables } = inputChanges(desc, olds, news);
      if (d.adoptable) {
        // Dropping `adopt` after adoption changes nothing; naming another object (or this one's own id) does.
        const next = news[ADOPT_KEY];
        if (next !== undefined && next !== olds[ADOPT_KEY] && next !== id) diffs.push(ADOPT_KEY);
      }
      const replaceKeys = [...(d.replaceKeys ?? []), ADOPT_KEY];
      const replaces = diffs.filter((k) => replaceKeys.includes(k));
      return {
        changes: diffs.length > 0,
        replaces,
        stables,
        deleteBeforeReplace: replaces.length > 0 && d.deleteBeforeReplace === true,
        diffs,
      };
    },

    async create(inputs) {
      const declared = normalize(desc, inputs);
      const adopt = adoptOf(inputs);
      return guard(adopt ? "adopt" : "create", inputs, async () => {
        const verbs = d.verbs(ctx.client());
        let obj: T;
        if (adopt !== undefined) {
          let existing: T;
          try {
            existing = await verbs.get(adopt);
          } catch (e) {
            if (e instanceof NotFoundError) throw new Error(`adopt: no ${d.kind} with id ${adopt} exists`);
            throw e;
          }
          obj = await verbs.update(adopt, d.toBody(declared), d.toOutputs(existing));
          adoptedHere.add(adopt);
          claim(d.kind, adopt);
        } else {
          obj = await createReconciled(d, verbs, ctx.client(), declared);
        }
        return { id: String((obj as Props).id), outs: outputs(obj, inputs) };
      });
    },

    async read(id, props = {}) {
      // `Resource.get` reads with nothing but `__provider` (the host falls back to the get's inputs), a refresh
      // with the prior outputs (pulumi/pulumi pkg/resource/deploy/step.go, ReadStep.Apply and RefreshStep.Apply).
      const isGet = Object.keys(props).every((k) => k === PROVIDER_KEY || props[k] === undefined);
      return guard(isGet ? "get" : "read", props, async () => {
        let obj: T;
        try {
          obj = await d.verbs(ctx.client()).get(id);
        } catch (e) {
          // An empty id tells a refresh the object is gone; a get would instead "succeed" with no outputs.
          if (e instanceof NotFoundError && isGet) throw new Error(`no ${d.kind} with id ${id} exists`);
          if (e instanceof NotFoundError) return { id: "" };
          throw e;
        }
        claim(d.kind, id);
        const inputs: Props = normalize(desc, d.toInputs(obj));
        const adopt = adoptOf(props);
        if (adopt !== undefined) inputs[ADOPT_KEY] = adopt;
        return { id, props: outputs(obj, props, props), inputs };
      });
    },

    async update(id, olds, news) {
      claim(d.kind, id);
      return guard("update", news, async () => {
        const obj = await d.verbs(ctx.client()).update(id, d.toBody(normalize(desc, news)), olds);
        return { outs: outputs(obj, news, olds) };
      });
    },

    async delete(id, props) {
      claim(d.kind, id);
      if (adoptedHere.has(id)) return;
      await guard("delete", props, async () => {
        try {
          await d.verbs(ctx.client()).delete(id, props);
        } catch (e) {
          if (!(e instanceof NotFoundError)) throw e;
        }
      });
    },
  };
}
