/** Helpers the Resource classes share; they run in the user's program, never in the serialized shim. */
import * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";

/**
 * The props handed to `dynamic.Resource`: the args, plus every output name set to undefined, which is how the
 * Node SDK learns which outputs to resolve on the resource object.
 */
export function resourceProps(args: object | undefined, outputNames: readonly string[]): pulumi.Inputs {
  const props: pulumi.Inputs = {};
  for (const name of outputNames) props[name] = undefined;
  return { ...props, ...(args ?? {}) };
}

/** `opts` with `names` added to `additionalSecretOutputs` (the user's own entries kept). */
export function withSecretOutputs<T extends pulumi.CustomResourceOptions>(
  opts: T | undefined,
  names: readonly string[],
): T {
  const merged = [...new Set([...(opts?.additionalSecretOutputs ?? []), ...names])];
  return { ...(opts ?? {}), additionalSecretOutputs: merged } as T;
}

/**
 * `true` when the Args interface `A` names exactly the fields of the input schema `S`, besides `adopt`;
 * otherwise the keys found on one side only, so that {@link Assert} fails the build and names them.
 */
export type ArgsMatchSchema<A, S extends z.ZodObject> = [
  Exclude<Exclude<keyof A, "adopt">, keyof S["shape"]>,
  Exclude<keyof S["shape"], keyof A>,
] extends [never, never]
  ? true
  : {
      onlyInArgs: Exclude<Exclude<keyof A, "adopt">, keyof S["shape"]>;
      onlyInSchema: Exclude<keyof S["shape"], keyof A>;
    };

/** Compiles only when `T` is `true`: a build-time assertion. */
export type Assert<T extends true> = T;

/**
 * `args` with each of `names` registered as a secret input, whatever the user passed. The host declares
 * `acceptSecrets=false`, so after a refresh the engine re-marks a returned input secret only where the same key
 * path was secret in the old inputs (pulumi/pulumi pkg/resource/plugin/provider_plugin.go, `annotateSecrets`,
 * called from `provider.Read`); a credential that turns up at a new path would otherwise land in plaintext.
 */
export function withSecretInputs<T extends object>(
  args: T | undefined,
  names: readonly (keyof T)[],
): T | undefined {
  if (args === undefined) return args;
  const out = { ...args };
  for (const name of names) {
    if (out[name] !== undefined) out[name] = pulumi.secret(out[name]) as T[keyof T];
  }
  return out;
}

/**
 * `opts` with `deleteBeforeReplace` defaulting to true; the user's own value, true or false, wins. Forced
 * replacements (`--replace`, `replacementTrigger`, `replaceWith`, `deletedWith`) never ask the provider's diff,
 * so only this resource option can make them delete first.
 */
export function withDeleteBeforeReplace<T extends pulumi.CustomResourceOptions>(opts: T | undefined): T {
  return { ...(opts ?? {}), deleteBeforeReplace: opts?.deleteBeforeReplace ?? true } as T;
}

/**
 * `opts`, after refusing `adopt` together with an explicit `deleteBeforeReplace: true` (the `import` option is
 * refused for every kind by the base class, kind-resource.ts). A forced replacement of an
 * adopted resource adopts the same id again; deleting first (pulumi/pulumi pkg/resource/deploy/step_generator.go,
 * `continueStepsFromDiff`, `NewDeleteReplacementStep` before the create) would delete the very object about to
 * be adopted, and the create would then find nothing to adopt: the object lost. Create-before-delete keeps it,
 * because the old resource's delete leaves an id adopted in the same host process to its new owner
 * (lifecycle.ts, `adoptedHere`). `adopt` counts as given when the key holds anything but undefined, an Output
 * included, since its value is not known while the program runs.
 */
export function adoptableOptions<T extends pulumi.CustomResourceOptions>(
  kind: string,
  name: string,
  args: { adopt?: unknown } | undefined,
  opts: T | undefined,
): T | undefined {
  if (args?.adopt !== undefined && opts?.deleteBeforeReplace === true) {
    throw new pulumi.ResourceError(
      `${kind} ${JSON.stringify(name)}: \`adopt\` cannot be combined with \`deleteBeforeReplace: true\`. A ` +
        "replacement would delete the adopted object before adopting it again, and the object would be lost. " +
        "Remove `deleteBeforeReplace` (a replacement then adopts the same object first and the old resource " +
        "leaves it in place), or remove `adopt` once the object is under management.",
      undefined,
    );
  }
  return opts;
}

/**
 * The options of a kind whose name (or other identity) is unique: replacements delete first, since a replacement
 * created first would clash with the old object (409); the user's own `deleteBeforeReplace` wins. An adopted
 * resource keeps create-before-delete (see {@link adoptableOptions}: deleting first would destroy the object its
 * replacement adopts).
 */
export function uniqueIdentityOptions<T extends pulumi.CustomResourceOptions>(
  kind: string,
  name: string,
  args: { adopt?: unknown } | undefined,
  opts: T | undefined,
): T | undefined {
  const adopted = adoptableOptions(kind, name, args, opts);
  return args?.adopt === undefined ? withDeleteBeforeReplace(opts) : adopted;
}
