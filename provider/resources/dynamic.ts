/**
 * The implementation the serialized shim loads in the dynamic-provider host: package export
 * `pulumi-observability/dynamic`. Module state is fine here because this module is required, never serialized.
 */
import { ObservabilityClient } from "../client";
import "./engine-health"; // In the dynamic-provider host: exits when its engine is gone (engine-health.ts).
import { resolveSettings, snapshotConfig, type ConfigSource } from "../config";
import type { Lifecycle } from "./lifecycle";
import { resetClaims } from "./reconcile";
import { KINDS, type ResourceKind } from "./registry";
import { SHIM_METHODS, type ShimMethod } from "./shim";

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
      });
    }
    return client;
  },
  secrets(): string[] {
    return token ? [token] : [];
  },
};

/**
 * The configuration in force, or on its way. The host caches the provider before it awaits `configure`
 * (`getProvider` in @pulumi/pulumi's cmd/dynamic-provider), so parallel steps can call a method while `configure`
 * is still running; every method waits on this first, and a configuration that failed fails them too, rather
 * than leaving them to fall back to the environment's credentials.
 */
let configured: Promise<void> = Promise.resolve();

/** Stores the provider's stack config (token, orgId, url, region); the client is built at first use. */
export function configure(req: { config: ConfigSource }): Promise<void> {
  // Chained, so two configures (one per shim text the host loads) apply in the order they were called.
  const run = configured.catch(() => undefined).then(() => apply(req));
  configured = run;
  return run;
}

async function apply(req: { config: ConfigSource }): Promise<void> {
  let next: Record<string, string>;
  try {
    next = snapshotConfig(req.config);
  } catch (e) {
    // The host builds its config object from the Configure RPC's arguments; without them every lookup throws.
    throw new Error(`pulumi-observability: the provider's configuration could not be read: ${e}`);
  }
  if (JSON.stringify(next) !== JSON.stringify(config)) {
    config = next;
    // A changed configuration needs a new client; the old one's connections are released.
    const old = client;
    client = undefined;
    token = undefined;
    await old?.close();
  }
}

/** The lifecycle (check, diff, create, read, update, delete) of one resource kind; `v1` has checked the kind. */
export function implementation(kind: ResourceKind): Lifecycle {
  return (implementations[kind] ??= KINDS.get(kind)!.lifecycle(context));
}

type Shape = "string" | "object" | "object?" | "config";

/** The arguments each method takes from the host, in order; anything else is a call this version cannot serve. */
const SHAPES: Record<ShimMethod, { params: string; shape: readonly Shape[] }> = {
  configure: { params: "req", shape: ["config"] },
  check: { params: "olds, news", shape: ["object", "object"] },
  diff: { params: "id, olds, news", shape: ["string", "object", "object"] },
  create: { params: "inputs", shape: ["object"] },
  read: { params: "id, props?", shape: ["string", "object?"] },
  update: { params: "id, olds, news", shape: ["string", "object", "object"] },
  delete: { params: "id, props", shape: ["string", "object"] },
};

function fits(shape: Shape, v: unknown): boolean {
  if (shape === "string") return typeof v === "string";
  if (shape === "object?" && v === undefined) return true;
  if (shape === "config") {
    return typeof (v as { config?: { get?: unknown } } | undefined)?.config?.get === "function";
  }
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

/** Throws, naming kind, method and both shapes, unless `args` is a call `method` takes. */
export function assertCallShape(kind: string, method: ShimMethod, args: readonly unknown[]): void {
  const { params, shape } = SHAPES[method];
  const required = shape.filter((s) => s !== "object?").length;
  if (args.length >= required && args.length <= shape.length && shape.every((s, i) => fits(s, args[i])))
    return;
  throw new Error(
    `pulumi-observability: the dynamic-provider host called ${kind}.${method}(${args.map(describe).join(", ")}), ` +
      `but ${method} takes (${params}). This version of pulumi-observability does not support this ` +
      "@pulumi/pulumi host; install a version that does.",
  );
}

/**
 * THE SHIM'S ENTRY POINT, a permanent interface (see shim.ts): every released shim text calls
 * `v1(kind, method, args)` with the name of the method the host called and the host's arguments as an array.
 * An unknown kind or method, or arguments of an unexpected shape, fail loudly instead of running anything.
 */
export async function v1(kind: ResourceKind, method: ShimMethod, args: unknown[]): Promise<unknown> {
  if (!KINDS.has(kind)) {
    throw new Error(
      `pulumi-observability: unknown resource kind ${JSON.stringify(kind)}; ` +
        `this version serves ${[...KINDS.keys()].join(", ")}`,
    );
  }
  if (!(SHIM_METHODS as readonly unknown[]).includes(method)) {
    throw new Error(
      `pulumi-observability: unknown provider method ${JSON.stringify(method)} for ${kind}; ` +
        `the shim's methods are ${SHIM_METHODS.join(", ")}`,
    );
  }
  if (!Array.isArray(args)) {
    throw new Error(
      `pulumi-observability: ${kind}.${method} was called with ${describe(args)}, not an array`,
    );
  }
  assertCallShape(kind, method, args);
  if (method === "configure") return configure(args[0] as { config: ConfigSource });
  await configured;
  const impl = implementation(kind) as unknown as Record<ShimMethod, (...a: unknown[]) => Promise<unknown>>;
  return impl[method](...args);
}

/** Forgets the configuration and the ids claimed, and closes the client; for tests that configure more than once. */
export async function reset(): Promise<void> {
  resetClaims();
  const old = client;
  config = {};
  client = undefined;
  token = undefined;
  configured = Promise.resolve();
  await old?.close();
}
