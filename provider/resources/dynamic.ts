/**
 * The implementation the serialized shim loads in the dynamic-provider host: package export
 * `pulumi-observability/dynamic`. Module state is fine here because this module is required, never serialized.
 */
import type * as pulumi from "@pulumi/pulumi";
import { ObservabilityClient } from "../client";
import { resolveSettings, snapshotConfig, type ConfigSource } from "../config";
import { VERSION } from "../client/version";
import { annotationDescriptor } from "./annotation";
import { lifecycle, type Descriptor, type Lifecycle } from "./lifecycle";
import { monitorDescriptor } from "./monitor";
import { notifierDescriptor } from "./notifier";
import { organizationNameDescriptor } from "./organization-name";
import { roleDescriptor } from "./role";
import type { EntryGroup, ResourceKind } from "./shim";
import { starredQueryDescriptor } from "./starred-query";

const DESCRIPTORS: Record<ResourceKind, Descriptor<never>> = {
  Annotation: annotationDescriptor as Descriptor<never>,
  Monitor: monitorDescriptor as Descriptor<never>,
  Notifier: notifierDescriptor as Descriptor<never>,
  Role: roleDescriptor as Descriptor<never>,
  StarredQuery: starredQueryDescriptor as Descriptor<never>,
  OrganizationName: organizationNameDescriptor as Descriptor<never>,
};

let config: Record<string, string> = {};
let client: ObservabilityClient | undefined;
let token: string | undefined;
const implementations: Partial<Record<ResourceKind, Lifecycle>> = {};

const context = {
  client(): ObservabilityClient {
    if (!client) {
      const settings = resolveSettings({ get: (key: string) => config[key] });
      token = settings.token;
      client = new ObservabilityClient({
        url: settings.url,
        region: settings.region,
        token: settings.token,
        orgId: settings.orgId,
        userAgent: `pulumi-observability/${VERSION}`,
      });
    }
    return client;
  },
  secrets(): string[] {
    return token ? [token] : [];
  },
};

/** Stores the provider's stack config (token, orgId, url, region); the client is built at first use. */
export async function configure(req: { config: ConfigSource }): Promise<void> {
  const next = snapshotConfig(req.config);
  if (JSON.stringify(next) !== JSON.stringify(config)) {
    config = next;
    // A changed configuration needs a new client; the old one's connections are released.
    const old = client;
    client = undefined;
    token = undefined;
    await old?.close();
  }
}

/** The lifecycle (check, diff, create, read, update, delete) of one resource kind. */
export function implementation(kind: ResourceKind): Lifecycle {
  const descriptor = DESCRIPTORS[kind];
  if (!descriptor) throw new Error(`pulumi-observability: unknown resource kind ${JSON.stringify(kind)}`);
  return (implementations[kind] ??= lifecycle(descriptor, context));
}

/** Method names the host calls, as recovered by {@link methodOf}. */
export type MethodName = keyof pulumi.dynamic.ResourceProvider;

/**
 * Recovers the method from the shim's entry group and the host's call shape: group 0 takes configure(req),
 * create(inputs), check(olds, news), read(id, props) and diff(id, olds, news); group 1 takes
 * delete(id, props) and update(id, olds, news).
 */
export function methodOf(group: EntryGroup, args: readonly unknown[]): MethodName {
  if (group === 1) return args.length >= 3 ? "update" : "delete";
  if (args.length >= 3) return "diff";
  if (args.length === 2) return typeof args[0] === "string" ? "read" : "check";
  const first = args[0] as { config?: { get?: unknown } } | undefined;
  return typeof first?.config?.get === "function" ? "configure" : "create";
}

/** The shim's single entry: runs `kind`'s method for a call that arrived through entry `group`. */
export async function dispatch(kind: ResourceKind, group: EntryGroup, args: unknown[]): Promise<unknown> {
  const method = methodOf(group, args);
  if (method === "configure") return configure(args[0] as { config: ConfigSource });
  const impl = implementation(kind) as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
  return impl[method](...args);
}

/** Forgets the configuration and closes the client; for tests that configure more than once. */
export async function reset(): Promise<void> {
  const old = client;
  config = {};
  client = undefined;
  token = undefined;
  await old?.close();
}
