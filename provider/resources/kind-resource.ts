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

/** What a Resource class tells its base of its kind: the name, and whether (or why not) `adopt` takes an object. */
export interface KindDeclaration {
  readonly kind: string;
  readonly rules: { readonly adoptable: boolean; readonly adoptRefusal?: string };
}

/**
 * The refusal of the `import` resource option, for every kind. The engine imports with a Read that carries no
 * properties (pulumi/pulumi pkg/resource/deploy/step.go, `ImportStep.Apply`), so the dynamic-provider host never
 * finds the serialized provider and fails with a message of its own. Said here instead, with what works: the
 * `adopt` to write, or, for a kind that cannot be adopted, why not.
 */
export function importRefusal(
  { kind, rules }: KindDeclaration,
  name: string,
  opts: pulumi.CustomResourceOptions | undefined,
): string | undefined {
  if (opts?.import === undefined) return undefined;
  const cannot =
    `${kind} ${JSON.stringify(name)}: the \`import\` option cannot work with a dynamic resource: the engine ` +
    "imports without the resource's provider.";
  if (!rules.adoptable) return `${cannot} Nor can \`adopt\` take its place: ${rules.adoptRefusal}.`;
  return `${cannot} Use the \`adopt\` argument instead: adopt: ${JSON.stringify(opts.import)}.`;
}

/**
 * What every Resource class of the package is: a dynamic resource whose provider is its kind's shim, typed
 * `pulumi-nodejs:dynamic/observability:<Kind>`. Each class passes its declaration, its props and its options.
 * The `import` option is refused here, for every kind ({@link importRefusal}).
 */
export abstract class KindResource extends pulumi.dynamic.Resource {
  protected constructor(
    declaration: KindDeclaration,
    name: string,
    props: pulumi.Inputs,
    opts: pulumi.CustomResourceOptions | undefined,
  ) {
    const refusal = importRefusal(declaration, name, opts);
    if (refusal !== undefined) throw new pulumi.ResourceError(refusal, undefined);
    super(shimFor(declaration), name, props, opts, RESOURCE_MODULE, declaration.kind);
  }
}
