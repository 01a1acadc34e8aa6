/**
 * The object handed to `pulumi.dynamic.Resource`, and therefore serialized into every resource's state. It holds
 * only the resource kind: each method `require`s the installed implementation when the host calls it, so the
 * text stays small, captures no secret, class, schema or agent, and refresh/destroy run the installed code.
 *
 * THE SHIM INTERFACE (permanent). Every shim text a released version writes stays in users' state and keeps
 * running after they upgrade, because Read and Delete load it from the old outputs. So what it calls is frozen:
 *
 *     require("pulumi-observability/dynamic").v1(kind, method, args)
 *
 * - `kind`: the kind's name, one of the registry's (`ResourceKind`, registry.ts);
 * - `method`: the name of the shim method the host called, one of {@link SHIM_METHODS};
 * - `args`: the host's arguments to that method, as an array, untouched;
 * - returns: a promise of what that method of `pulumi.dynamic.ResourceProvider` returns.
 *
 * `v1` may never change its meaning or disappear; a different contract gets a new name (`v2`) beside it. The
 * golden copies in `test/fixtures/shims/<version>/` are run through the host against the current code.
 *
 * Since 0.4.0 each kind's shim is also the exports of `pulumi-observability/dist/provider/shims/<Kind>.js`
 * (scripts/build-shims.mts), which a program that installed the package serializes as a `require` of that path
 * (`<version>-installed/` golden copies): that path is permanent too, as is `v1`.
 */
import type * as pulumi from "@pulumi/pulumi";

/** The resource kinds the implementation module serves. */

/** The seven methods of `pulumi.dynamic.ResourceProvider` the shim offers, each passing its own name. */
export const SHIM_METHODS = ["configure", "check", "diff", "create", "read", "update", "delete"] as const;

/** A method name the shim passes to the `v1` entry point. */
export type ShimMethod = (typeof SHIM_METHODS)[number];

/** Builds the thin provider for one kind; see the module comment for why it must stay this small. */
export function providerShim(kind: string): pulumi.dynamic.ResourceProvider {
  // Serialized by value, so only a plain Error is thrown (a copied Error subclass loses its message). Each
  // method names itself rather than leaving the package to guess from the host's argument count: a host that
  // passed one more or one fewer argument would otherwise run the wrong method.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const c = (m: ShimMethod, a: unknown[]): Promise<any> => {
    try {
      var d = require("pulumi-observability/dynamic"); // eslint-disable-line no-var
    } catch (e) {
      throw new Error(
        `The package pulumi-observability cannot be resolved from the program's directory ${process.cwd()}: ` +
          `run npm install pulumi-observability there. (${e})`,
      );
    }
    if (typeof d.v1 !== "function") {
      throw new Error(
        "The installed pulumi-observability is older than the version that wrote this resource's state: " +
          "upgrade it in the program's directory.",
      );
    }
    return d.v1(kind, m, a);
  };
  return {
    configure: (...a: unknown[]) => c("configure", a),
    check: (...a: unknown[]) => c("check", a),
    diff: (...a: unknown[]) => c("diff", a),
    create: (...a: unknown[]) => c("create", a),
    read: (...a: unknown[]) => c("read", a),
    update: (...a: unknown[]) => c("update", a),
    delete: (...a: unknown[]) => c("delete", a),
  };
}
