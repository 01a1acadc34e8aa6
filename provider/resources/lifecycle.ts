/**
 * The one lifecycle engine behind every resource: check, diff, create, read, update and delete, driven by a
 * per-kind {@link Descriptor} (descriptor.ts). It runs in the dynamic-provider host (loaded by `dynamic.ts`),
 * never serialized.
 *
 * Create, read, update and delete map to POST, GET, PUT and DELETE on the resource's path; retries and typed
 * errors come from the client.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";
import type { ObservabilityClient } from "../client";
import { ApiError, NotFoundError } from "../client/errors";
import type { CrudFamily } from "../client/resources/base";
import { sharedListingsEnabled } from "../client/env";
import { scrub } from "../client/errors";
import { fieldNames, serviceDefaults, validate, type ValidationFailure } from "../schemas";
import {
  ADOPT_KEY,
  PROVIDER_KEY,
  READS_ONE_BY_ONE,
  inputChanges,
  normalize,
  withoutDefaults,
  type Descriptor,
  type KindRules,
} from "./descriptor";
import { cancellationSignalled, cancelledBeforeStart } from "./cancellation";
import { sharedListing, trackWrites } from "./listings";
import { claim, createReconciled } from "./reconcile";
import { blamesUnknown, unknownPaths, UNKNOWN } from "./unknowns";
import { PartialCreateError } from "./partial-create";
import { dropUndefined, pick, type Props } from "./values";

// Re-exported because the resource files, the public index and the tests import them with the engine.
export { UNKNOWN, PartialCreateError, type Props };

/**
 * The descriptor part shared by the kinds whose request body is their inputs and whose object maps straight
 * back: a client family, the body without undefined values, inputs picked, every field an output.
 */
export function plainFamily<T extends { id: string }>(
  family: (client: ObservabilityClient) => CrudFamily<T, Props>,
  inputKeys: readonly string[],
): Pick<Descriptor<T>, "family" | "toBody" | "toInputs" | "toOutputs"> {
  return {
    family,
    toBody: (inputs) => dropUndefined(inputs),
    toInputs: (obj) => pick(obj, inputKeys),
    toOutputs: (obj) => ({ ...obj }),
  };
}

/**
 * `body` as the request `schema` describes, typed by it: how a family whose client takes a typed body turns the
 * lifecycle's props into one. `check` has held the inputs to the kind's input schema already, so this fails only
 * where the two schemas disagree; the error then names each field at fault.
 */
export function requestBody<B>(schema: z.ZodType<B>, body: Props): B {
  const result = validate(schema, body);
  if (result.ok) return result.value;
  throw new Error(result.failures.map((f) => `${f.property}: ${f.reason}`).join("; "));
}

/** The descriptor part an input schema decides: the schema, its fields as the input keys, its service defaults. */
export function fromSchema(schema: z.ZodObject): Pick<KindRules, "schema" | "inputKeys" | "defaults"> {
  return { schema, inputKeys: fieldNames(schema), defaults: serviceDefaults(schema) };
}

/**
 * A kind as the registry holds it: its rules, and a factory of its lifecycle. The factory closes over the
 * descriptor's object type, so kinds of different types sit in one table without a cast.
 */
export interface DeclaredKind<K extends string = string> {
  readonly kind: K;
  readonly rules: KindRules<K>;
  lifecycle(ctx: LifecycleContext): Lifecycle;
  /** An object of the kind, as the service returns it, as the kind's outputs (what a lookup function returns). */
  outputs(obj: { id: string }): Props;
}

/** Declares a kind: what its Resource class holds as `declaration`, and what the registry collects. */
export function declareKind<T extends { id: string }, K extends string>(
  d: Descriptor<T, K>,
): DeclaredKind<K> {
  return {
    kind: d.kind,
    rules: d,
    lifecycle: (ctx) => lifecycle(d, ctx),
    outputs: (obj) => d.toOutputs(obj as T),
  };
}

/**
 * What a family's create throws when its object was made and a later step of the same create failed (a dataset's
 * map fields, set by a second request): the object exists, so the create must not be reported as if nothing had
 * happened. The lifecycle turns it into a {@link PartialCreateError}.
 */
export class CreateLanded<T extends { id: string } = { id: string }> extends Error {
  constructor(
    /** The object as the service last returned it. */
    readonly object: T,
    /** Why the create could not finish. */
    readonly failure: unknown,
  ) {
    super(failure instanceof Error ? failure.message : String(failure));
  }
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

/**
 * What a Pulumi user does after a create whose outcome is unknown: the object may exist without being in the
 * stack's state, and `pulumi up` would create a second one.
 */
export function uncertainCreateAdvice(adoptable: boolean): string {
  const takeOver = adoptable
    ? 'set `adopt: "<its id>"` on this resource to take it under management, or delete it,'
    : "delete it";
  return (
    "The object may have been created even so, and it is not in the stack's state. " +
    `Before running \`pulumi up\` again, look for it in the service; if it is there, ${takeOver} ` +
    "so that it is not created twice."
  );
}

/**
 * A plain Error the host can show: the kind and the action, then the cause (the client's message: method, path,
 * status), no secret. The kind is named here only: a cause says "the object", so the message names it once.
 */
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

/**
 * How long a family's listing keeps answering reads: while they keep coming, at most this long apart, and for at
 * most {@link READ_MAX_AGE_MS} after it started. A refresh's reads reach the host as fast as the engine's
 * parallelism lets them (each step sends its next read when an answer arrives), milliseconds apart for as long as
 * the refresh runs; a second covers those gaps with room to spare on a loaded machine, so one listing serves a
 * refresh of a thousand resources, where a fixed second after the answer needed three. A listing that old is no
 * staler than a refresh that sends a GET per resource, whose reads are themselves spread over seconds. Whatever
 * its age, a listing never hides a write this process made to the family (listings.ts).
 */
export const READ_REUSE_MS = 1_000;
/** The oldest listing a read takes, however closely the reads follow one another. */
export const READ_MAX_AGE_MS = 10_000;

/**
 * The object a read of `id` reads, taken from a listing of the family shared with the reads around it; undefined
 * when the read must send its own GET: the kind reads one by one, the props do not say which listing (a get),
 * sharing is off, the listing failed or may miss a write of this process, the object is not in it (deleted, or
 * not listed to this token: the GET tells which), or the listing already answered a read of it.
 */
async function listedForRead<T extends { id: string }>(
  d: Descriptor<T>,
  client: ObservabilityClient,
  id: string,
  props: Props,
): Promise<T | undefined> {
  const rule = d.readAll;
  if (rule === READS_ONE_BY_ONE || !sharedListingsEnabled()) return undefined;
  const key = rule.listedBy(props);
  if (key === undefined) return undefined;
  let byId: Map<string, T> | undefined;
  try {
    byId = await sharedListing(client, {
      kind: d.kind,
      key: `read\u0000${key}`,
      list: async () => new Map((await rule.list(client, props)).map((obj) => [obj.id, obj])),
      fresh: (listing, now) =>
        listing.settledAt === undefined ||
        (now - Math.max(listing.settledAt, listing.takenAt) <= READ_REUSE_MS &&
          now - listing.startedAt <= READ_MAX_AGE_MS),
      afterOwnWrites: true,
    });
  } catch {
    // The listing failed even after the client's retries: each read tries its own GET instead.
    return undefined;
  }
  const listedId = rule.listedId?.(id, props) ?? id;
  const listed = byId?.get(listedId);
  if (byId === undefined || listed === undefined) return undefined;
  // A listing answers each object once. A refresh reads each resource once, so this costs it nothing; a second
  // read of the same object in this process wants a newer look than the listing that answered the first (a read
  // after a change made elsewhere), and sends its GET. The object taken is this read's alone, as a GET's would be.
  byId.delete(listedId);
  return rule.asRead ? rule.asRead(listed, id, props) : listed;
}

/** Builds the provider for one kind from its descriptor. */
export function lifecycle<T extends { id: string }>(
  declared: Descriptor<T>,
  ctx: LifecycleContext,
): Lifecycle {
  // Every create, update and delete of the kind goes through these verbs (an uncertain create's orphan deletes
  // too: reconcile.ts is handed them), counted so that no read takes a shared listing they may have outdated.
  const d: Descriptor<T> = {
    ...declared,
    family: (client, olds) => trackWrites(client, declared.kind, declared.family(client, olds)),
  };
  const secretsOf = (inputs: Props) => [...ctx.secrets(), ...(d.secretStrings?.(inputs) ?? [])];
  const guard = async <R>(action: string, inputs: Props, run: () => Promise<R>): Promise<R> => {
    // After the engine's Cancel (Ctrl-C) no operation starts service work (cancellation.ts).
    if (cancellationSignalled()) throw engineError(d.kind, action, cancelledBeforeStart(), []);
    try {
      return await run();
    } catch (e) {
      if (e instanceof PartialCreateError) throw e;
      // Only a POST can leave its outcome unknown (the client never resends one); updates are idempotent.
      const uncertain = action === "create" && e instanceof ApiError && e.outcomeUnknown;
      const advice = uncertain ? uncertainCreateAdvice(d.adoptable) : undefined;
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
  // `id` is the resource's own id, so it is not repeated among the outputs. A field holding the service's
  // default is left out unless `kept` names it (withoutDefaults): after a create or update, what the inputs
  // declare, since a user reads the outputs of what they declared; after a refresh, what the prior outputs held,
  // so that a refresh changes no output that did not change in the service.
  const outputs = (
    obj: T,
    inputs: Props,
    olds: Props = {},
    kept: ((key: string) => boolean) | "every" = (key) => inputs[key] !== undefined,
  ): Props => {
    const all = d.toOutputs(obj);
    delete all.id;
    const out = kept === "every" ? all : withoutDefaults(d, all, kept);
    for (const key of d.carryKeys ?? [])
      if (out[key] === undefined && olds[key] !== undefined) out[key] = olds[key];
    const adopt = adoptOf(inputs) ?? adoptOf(olds);
    if (adopt !== undefined) out[ADOPT_KEY] = adopt;
    return out;
  };

  /** The error that hands the engine an object this create made before a later step failed. */
  const partialCreate = (obj: T, failure: unknown, inputs: Props): PartialCreateError => {
    claim(d.kind, obj.id);
    const advice = `The object ${obj.id} was made and is recorded in the stack's state; the next \`pulumi up\` finishes it`;
    const { message } = engineError(d.kind, "create", failure, secretsOf(inputs), advice);
    const properties = outputs(obj, inputs);
    if (inputs[PROVIDER_KEY] !== undefined) properties[PROVIDER_KEY] = inputs[PROVIDER_KEY];
    return new PartialCreateError(message, obj.id, properties, inputs, [message]);
  };

  return {
    async check(_olds, news) {
      const failures: ValidationFailure[] = [];
      // A kind that takes `adopt`, or refuses it in words of its own, judges it here; any other reports it as
      // an unknown field. The declared fields are copied rather than deleted from a copy: an object that lost
      // a property is slower for everything that reads it after, the schema's parse included.
      const judgesAdopt = d.adoptable || d.adoptRefusal !== undefined;
      const declared: Props = {};
      for (const key of Object.keys(news)) {
        if (key !== PROVIDER_KEY && !(judgesAdopt && key === ADOPT_KEY)) declared[key] = news[key];
      }
      if (judgesAdopt && ADOPT_KEY in news) {
        const adopt = news[ADOPT_KEY];
        if (!d.adoptable) {
          if (adopt !== undefined) failures.push({ property: ADOPT_KEY, reason: d.adoptRefusal! });
        } else if (adopt !== undefined && adopt !== UNKNOWN && (typeof adopt !== "string" || adopt === "")) {
          failures.push({ property: ADOPT_KEY, reason: "must be the id of an existing object" });
        }
      }
      const unknowns = unknownPaths(declared);
      const result = validate(d.schema, declared);
      if (!result.ok) failures.push(...result.failures);
      for (const issue of d.crossField?.(declared) ?? [])
        failures.push({ property: issue.path, reason: issue.message });
      const kept =
        unknowns.length === 0 ? failures : failures.filter((f) => !blamesUnknown(f.property, unknowns));
      // What was declared, as declared: the defaults are the service's, put in by create and update (normalize)
      // and read into every diff (canonical), so the state need not hold them. The host only serializes the
      // answer, so it may share values with `news`.
      const inputs: Props = declared;
      if (d.adoptable && news[ADOPT_KEY] !== undefined) inputs[ADOPT_KEY] = news[ADOPT_KEY];
      if (news[PROVIDER_KEY] !== undefined) inputs[PROVIDER_KEY] = news[PROVIDER_KEY];
      return { inputs, failures: kept };
    },

    async diff(id, olds, news) {
      // Every id this process sees belongs to a resource, so an uncertain create never takes it (reconcile.ts).
      claim(d.kind, id);
      const { diffs, stables } = inputChanges(d, olds, news);
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
      const declared = normalize(d, inputs);
      const adopt = adoptOf(inputs);
      return guard(adopt ? "adopt" : "create", inputs, async () => {
        const family = d.family(ctx.client(), {});
        let obj: T;
        if (adopt !== undefined) {
          let existing: T;
          try {
            existing = await family.get(adopt);
          } catch (e) {
            if (e instanceof NotFoundError)
              throw new Error(`no object with id ${adopt} exists (the id in \`adopt\`)`);
            throw e;
          }
          obj = await d.family(ctx.client(), d.toOutputs(existing)).update(adopt, d.toBody(declared));
          adoptedHere.add(adopt);
          claim(d.kind, adopt);
        } else {
          try {
            obj = await createReconciled(d, family, ctx.client(), declared);
          } catch (e) {
            if (e instanceof CreateLanded) throw partialCreate(e.object as T, e.failure, inputs);
            throw e;
          }
        }
        return { id: obj.id, outs: outputs(obj, inputs) };
      });
    },

    async read(id, props = {}) {
      // `Resource.get` reads with nothing but `__provider` (the host falls back to the get's inputs), a refresh
      // with the prior outputs (pulumi/pulumi pkg/resource/deploy/step.go, ReadStep.Apply and RefreshStep.Apply).
      const isGet = Object.keys(props).every((k) => k === PROVIDER_KEY || props[k] === undefined);
      return guard(isGet ? "get" : "read", props, async () => {
        // One listing of the family answers the reads of a burst (a refresh); the rest send their GET, as before.
        let obj = await listedForRead(d, ctx.client(), id, props);
        if (obj === undefined) {
          try {
            obj = await d.family(ctx.client(), props).get(id);
          } catch (e) {
            // An empty id tells a refresh the object is gone; a get would instead "succeed" with no outputs.
            if (e instanceof NotFoundError && isGet) throw new Error(`no object with id ${id} exists`);
            if (e instanceof NotFoundError) return { id: "" };
            throw e;
          }
        }
        claim(d.kind, id);
        // The inputs a refresh leaves: the object's, without the defaults the prior outputs did not hold.
        const inputs: Props = isGet
          ? normalize(d, d.toInputs(obj))
          : withoutDefaults(d, normalize(d, d.toInputs(obj)), (key) => props[key] !== undefined);
        const adopt = adoptOf(props);
        if (adopt !== undefined) inputs[ADOPT_KEY] = adopt;
        // A get's outputs are the object as the service returns it, every field (docs/engine.md).
        const kept = isGet ? "every" : (key: string) => props[key] !== undefined;
        return { id, props: outputs(obj, props, props, kept), inputs };
      });
    },

    async update(id, olds, news) {
      claim(d.kind, id);
      return guard("update", news, async () => {
        const obj = await d.family(ctx.client(), olds).update(id, d.toBody(normalize(d, news)));
        return { outs: outputs(obj, news, olds) };
      });
    },

    async delete(id, props) {
      claim(d.kind, id);
      if (adoptedHere.has(id)) return;
      await guard("delete", props, async () => {
        try {
          await d.family(ctx.client(), props).delete(id);
        } catch (e) {
          if (!(e instanceof NotFoundError)) throw e;
        }
      });
    },
  };
}
