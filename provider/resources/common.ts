/** Helpers the six Resource classes share; they run in the user's program, never in the serialized shim. */
import type * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";
import { providerShim, type ResourceKind } from "./shim";

/** The dynamic resources' module: types read `pulumi-nodejs:dynamic/observability:<Name>`. */
export const RESOURCE_MODULE = "observability";

const shims: Partial<Record<ResourceKind, pulumi.dynamic.ResourceProvider>> = {};

/** One shim per kind, so @pulumi/pulumi serializes it once per program rather than once per resource. */
export function shimFor(kind: ResourceKind): pulumi.dynamic.ResourceProvider {
  return (shims[kind] ??= providerShim(kind));
}

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
