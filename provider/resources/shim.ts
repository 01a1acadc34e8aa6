/**
 * The object handed to `pulumi.dynamic.Resource`, and therefore serialized into every resource's state. It holds
 * only the resource kind: each method `require`s the installed implementation when the host calls it, so the
 * text stays small, captures no secret, class, schema or agent, and refresh/destroy run the installed code.
 */
import type * as pulumi from "@pulumi/pulumi";

/** The resource kinds the implementation module serves. */
export type ResourceKind =
  "Annotation" | "Monitor" | "Notifier" | "Role" | "StarredQuery" | "OrganizationName";

/**
 * Which shared entry point a call came through: 0 serves configure, check, diff, create and read; 1 serves
 * update and delete. Within a group the host's call shapes differ, so `dispatch` can tell them apart.
 */
export type EntryGroup = 0 | 1;

/** Builds the thin provider for one kind; see the module comment for why it must stay this small. */
export function providerShim(kind: ResourceKind): pulumi.dynamic.ResourceProvider {
  // Serialized by value. Each distinct function costs ~200 bytes of serializer boilerplate, and seven methods
  // plus a loader came to ~2,350 bytes, over the 2,048 budget. So the seven methods share two entry functions
  // (diff/update and read/delete have the same call shapes, hence two) and `dispatch` recovers the method from
  // the call's shape. Only a plain Error is thrown: a copied Error subclass loses its message.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const c = (g: EntryGroup, a: unknown[]): Promise<any> => {
    try {
      var d = require("pulumi-observability/dynamic"); // eslint-disable-line no-var
    } catch (e) {
      throw new Error(
        `The package pulumi-observability cannot be resolved from the program's directory ${process.cwd()}: ` +
          `run npm install pulumi-observability there. (${e})`,
      );
    }
    return d.dispatch(kind, g, a);
  };
  const m = (...a: unknown[]) => c(0, a);
  const u = (...a: unknown[]) => c(1, a);
  return { configure: m, check: m, diff: m, create: m, read: m, update: u, delete: u };
}
