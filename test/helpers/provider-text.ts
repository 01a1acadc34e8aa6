/**
 * The real `__provider` text of each resource, taken the way `pulumi up` produces it: under
 * `pulumi.runtime.setMocks`, constructing a resource hands the mock its inputs, `__provider` included.
 */
import * as pulumi from "@pulumi/pulumi";

/** The marker key and value @pulumi/pulumi wraps secret values in. */
export const SECRET_SIG = "4dabf18193072939515e22adb298388d";
export const SECRET_VALUE_SIG = "1b47061264138c4ac30d75fd1eb44270";

/** One resource registration the mock saw. */
export interface Registration {
  type: string;
  name: string;
  /** The provider text, unwrapped if it arrived secret-wrapped. */
  providerText: string;
  /** Whether the serializer found a secret in the closure (it must not). */
  providerWasSecret: boolean;
  inputs: Record<string, unknown>;
}

/** Unwraps a value the way the engine does: `{[SECRET_SIG]: SECRET_VALUE_SIG, value}` becomes `value`. */
export function unwrapSecret(v: unknown): { value: unknown; secret: boolean } {
  if (v && typeof v === "object" && (v as Record<string, unknown>)[SECRET_SIG] === SECRET_VALUE_SIG) {
    return { value: (v as Record<string, unknown>).value, secret: true };
  }
  return { value: v, secret: false };
}

/**
 * Installs mocks that record every registration; `config` becomes stack config (set before the program runs,
 * as the engine would). Call before constructing resources.
 */
export async function recordRegistrations(config: Record<string, string> = {}): Promise<Registration[]> {
  const seen: Registration[] = [];
  await pulumi.runtime.setMocks(
    {
      newResource(args) {
        const { value, secret } = unwrapSecret(args.inputs.__provider);
        seen.push({
          type: args.type,
          name: args.name,
          providerText: String(value),
          providerWasSecret: secret,
          inputs: args.inputs,
        });
        return { id: `${args.name}-id`, state: args.inputs };
      },
      call: () => ({}),
    },
    "observability-test",
    "dev",
    false,
  );
  for (const [k, v] of Object.entries(config)) pulumi.runtime.setConfig(k, v);
  return seen;
}

/** Resolves once the resource's registration reached the mock. */
export function registered(resource: pulumi.Resource): Promise<void> {
  return new Promise((resolve) => resource.urn.apply(() => resolve()));
}

/**
 * The options each resource's class finally handed to `dynamic.Resource`, by resource name, and the
 * transformation that records them (pass `{ transformations }` when declaring).
 */
export function captureOptions(): {
  opts: Record<string, pulumi.CustomResourceOptions>;
  transformations: pulumi.ResourceTransformation[];
} {
  const opts: Record<string, pulumi.CustomResourceOptions> = {};
  const capture: pulumi.ResourceTransformation = (args) => {
    opts[args.name] = args.opts as pulumi.CustomResourceOptions;
    return undefined;
  };
  return { opts, transformations: [capture] };
}
