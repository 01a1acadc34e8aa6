/**
 * The base of every Resource class: the kind's shim as its provider and its type token. Kept apart from common.ts
 * so the published typings of the resource classes never reach zod (build-typings checks it).
 */
import { existsSync } from "node:fs";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { providerShim } from "./shim";

/** The dynamic resources' module: types read `pulumi-nodejs:dynamic/observability:<Name>`. */
export const RESOURCE_MODULE = "observability";

const shims = new Map<string, pulumi.dynamic.ResourceProvider>();

/**
 * One shim per kind, so @pulumi/pulumi serializes it once per program rather than once per resource: the exports
 * of the kind's shim module (dist/provider/shims/<Kind>.js, written by scripts/build-shims.mts), which an
 * installed package's program serializes as a `require` of that module, a tenth of the shim's own text, in every
 * resource's state. Run from the sources (no such module) or from a package outside node_modules, the shim is
 * serialized by value, as before.
 */
export function shimFor({ kind }: { kind: string }): pulumi.dynamic.ResourceProvider {
  let shim = shims.get(kind);
  if (!shim) {
    const module = path.join(__dirname, "..", "shims", `${kind}.js`);
    shim = existsSync(module) ? (require(module) as pulumi.dynamic.ResourceProvider) : providerShim(kind);
    shims.set(kind, shim);
  }
  return shim;
}

/**
 * What every Resource class of the package is: a dynamic resource whose provider is its kind's shim, typed
 * `pulumi-nodejs:dynamic/observability:<Kind>`. Each class passes its declaration, its props and its options.
 */
export abstract class KindResource extends pulumi.dynamic.Resource {
  protected constructor(
    declaration: { kind: string },
    name: string,
    props: pulumi.Inputs,
    opts: pulumi.CustomResourceOptions | undefined,
  ) {
    super(shimFor(declaration), name, props, opts, RESOURCE_MODULE, declaration.kind);
  }
}
