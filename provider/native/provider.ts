/**
 * The native provider's behaviour, apart from gRPC: its configuration (Configure, CheckConfig, DiffConfig), the
 * kinds' lifecycles and the lookup functions, all from the same declarations and lifecycle engine as the dynamic
 * resources (resources/lifecycle.ts, kinds.ts). server.ts puts it on the wire. Nothing here loads
 * @pulumi/pulumi's index: the kinds come without their Resource classes (kinds.ts), and the lookups module is
 * loaded at the first function called (functions.ts).
 *
 * One instance serves one provider: the engine starts a plugin process per provider resource (default or
 * explicit), so two providers pointed at two organizations never share a client.
 */
import type { ObservabilityClient } from "../client";
import { CONFIG_KEYS, ProviderConfigError, resolveSettings, type ProviderSettings } from "../config";
import { scrub } from "../client/errors";
import type { Connection, connectionFor as ConnectionFor } from "../lookups";
import { signalCancellation } from "../resources/cancellation";
import { DECLARATIONS as KINDS } from "../resources/kinds";
import type { Lifecycle, LifecycleContext, LifecycleDiff } from "../resources/lifecycle";
import type { ResourceKind } from "../resources/registry";
import { UNKNOWN } from "../resources/unknowns";
import type { ValidationFailure, validate as Validate } from "../schemas";
import { LOOKUP_FUNCTIONS, type LookupFunction } from "./functions";
import { PACKAGE, secretKeysOf, typeToken } from "./tokens";

type Props = Record<string, unknown>;

/** The value the engine sends for a configuration value not known yet (resources/unknowns.ts). */
const UNKNOWN_CONFIG = UNKNOWN;

/** The configuration keys, as the schema's `config.variables` and the provider's inputs name them. */
export const CONFIG_NAMES = Object.keys(CONFIG_KEYS) as (keyof typeof CONFIG_KEYS)[];

/**
 * The configuration from a Configure request: its `args` (the provider resource's inputs, or the stack's config
 * for the default provider) first, then its `variables` (keyed `observability:config:<key>`), as full config keys
 * (`observability:token`) for resolveSettings. Secret markers must already be removed.
 */
export function configFromRequest(args: Props, variables: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of CONFIG_NAMES) {
    const fromArgs = args[name];
    const fromVariables = variables[`${PACKAGE}:config:${name}`] ?? variables[`${PACKAGE}:${name}`];
    const value = typeof fromArgs === "string" ? fromArgs : fromVariables;
    // A value not known yet (a provider input computed from another resource, at preview) configures nothing:
    // the Configure at `pulumi up` carries it.
    if (typeof value === "string" && value !== "" && value !== UNKNOWN_CONFIG) out[CONFIG_KEYS[name]] = value;
  }
  return out;
}

/** What CheckConfig finds wrong with a provider's inputs: each failure names the key. */
export function configFailures(news: Props): ValidationFailure[] {
  const failures: ValidationFailure[] = [];
  for (const name of CONFIG_NAMES) {
    const v = news[name];
    if (v === undefined || v === null || v === UNKNOWN_CONFIG) continue;
    if (typeof v !== "string") failures.push({ property: name, reason: "must be a string" });
  }
  const region = news.region;
  if (
    typeof region === "string" &&
    region !== UNKNOWN_CONFIG &&
    region !== "" &&
    region !== "us" &&
    region !== "eu"
  )
    failures.push({ property: "region", reason: `must be "us" or "eu", got ${JSON.stringify(region)}` });
  const url = news.url;
  if (typeof url === "string" && url !== UNKNOWN_CONFIG && url !== "" && !URL.canParse(url))
    failures.push({ property: "url", reason: "must be a URL" });
  return failures;
}

/** The kind a type token names, or undefined for a token this provider does not serve. */
export function kindOfType(type: string): ResourceKind | undefined {
  const prefix = `${PACKAGE}:index:`;
  if (!type.startsWith(prefix)) return undefined;
  const kind = type.slice(prefix.length) as ResourceKind;
  return KINDS.has(kind) ? kind : undefined;
}

/** The kind of a URN (`urn:pulumi:<stack>::<project>::<type>::<name>`), or undefined. */
export function kindOfUrn(urn: string): ResourceKind | undefined {
  const parts = urn.split("::");
  if (parts.length < 4) return undefined;
  // The type is the last `$`-separated element of the type chain (a parent's types come first).
  const chain = parts[2].split("$");
  return kindOfType(chain[chain.length - 1]);
}

/** An error the engine shows as it is: its message names what failed and holds no secret. */
export class ProviderError extends Error {}

/** One provider: its configuration, client, lifecycles and functions. */
export class NativeProvider {
  private config: Record<string, string> = {};
  private client?: ObservabilityClient;
  private settings?: ProviderSettings;
  private connection?: Connection;
  private readonly lifecycles = new Map<ResourceKind, Lifecycle>();
  private readonly context: LifecycleContext = {
    client: () => this.configuredClient(),
    secrets: () => this.secrets(),
  };

  /** Takes the configuration; the client is built at first use, so a preview without credentials works. */
  async configure(config: Record<string, string>): Promise<void> {
    if (JSON.stringify(config) === JSON.stringify(this.config)) return;
    this.config = config;
    const old = this.client;
    this.client = undefined;
    this.settings = undefined;
    this.connection = undefined;
    await old?.close();
  }

  /** The configured client; throws the configuration's own message (which names both sources of a token). */
  configuredClient(): ObservabilityClient {
    if (!this.client) {
      this.settings = resolveSettings({ get: (key) => this.config[key] });
      // Loaded at the first call that needs the service, not at start: the HTTP client (undici) takes a tenth of
      // a second to load, and a preview (Check and Diff only) never needs it.
      const { ObservabilityClient: Client } = require("../client") as typeof import("../client");
      this.client = new Client({
        url: this.settings.url,
        region: this.settings.region,
        token: this.settings.token,
        orgId: this.settings.orgId,
      });
    }
    return this.client;
  }

  /** Strings no message may hold: the token in force. */
  secrets(): string[] {
    const token = this.settings?.token ?? this.config[CONFIG_KEYS.token];
    return token ? [token] : [];
  }

  /** The lifecycle of a kind, for this provider's client. */
  lifecycle(kind: ResourceKind): Lifecycle {
    let lc = this.lifecycles.get(kind);
    if (!lc) {
      lc = KINDS.get(kind)!.lifecycle(this.context);
      this.lifecycles.set(kind, lc);
    }
    return lc;
  }

  /** Keys of a kind whose values are always secret, in outputs and in inputs. */
  secretKeys(kind: ResourceKind): { outputs: readonly string[]; inputs: readonly string[] } {
    return secretKeysOf(kind);
  }

  async check(kind: ResourceKind, olds: Props, news: Props) {
    return this.lifecycle(kind).check(olds, news);
  }

  async diff(kind: ResourceKind, id: string, olds: Props, news: Props): Promise<LifecycleDiff> {
    return this.lifecycle(kind).diff(id, olds, news);
  }

  /** Calls a lookup function (`observability:index:getMonitor` and the rest). */
  async invoke(
    token: string,
    args: Props,
  ): Promise<{ result?: Props; failures: ValidationFailure[]; secretKeys: readonly string[] }> {
    const fn = functionOf(token);
    if (!fn) {
      throw new ProviderError(
        `${PACKAGE}: unknown function ${JSON.stringify(token)}; this provider serves ` +
          LOOKUP_FUNCTIONS.flatMap((f) => [`get${f.noun}`, `get${f.plural}`]).join(", "),
      );
    }
    const many = token === typeToken(`get${fn.lookup.plural}`);
    // Loaded at the first function called, with the lookups: the schemas load zod, which the start does without.
    const { validate } = require("../schemas") as { validate: typeof Validate };
    const checked = validate(many ? fn.lookup.manyArgs.strict() : fn.lookup.oneArgs.strict(), args);
    if (!checked.ok) return { failures: checked.failures, secretKeys: [] };
    const declared = KINDS.get(fn.lookup.kind as ResourceKind)!;
    const secretOutputs = secretKeysOf(fn.lookup.kind as ResourceKind).outputs;
    const asResult = (obj: { id: string }) => ({ ...declared.outputs(obj), id: fn.lookup.lookup.idOf(obj) });
    const connection = this.lookupConnection();
    if (many) {
      const filters = Object.keys(checked.value as Props).length > 0 ? checked.value : undefined;
      const items = await fn.lookup.lookup.manyWith(connection, filters);
      return { result: { items: items.map(asResult) }, failures: [], secretKeys: secretOutputs };
    }
    const obj = await fn.lookup.lookup.oneWith(connection, checked.value);
    return { result: asResult(obj), failures: [], secretKeys: secretOutputs };
  }

  private lookupConnection(): Connection {
    const client = this.configuredClient();
    if (!this.connection || this.connection.client !== client) {
      // Loaded here, with the lookups, rather than at start (functions.ts says why).
      const { connectionFor } = require("../lookups") as { connectionFor: typeof ConnectionFor };
      this.connection = connectionFor(client, this.secrets());
    }
    return this.connection;
  }

  /**
   * The engine's Cancel (Ctrl-C): no new service work from now on, while the requests in flight finish and their
   * results reach the engine (resources/cancellation.ts). The plugin serves this one provider, so the flag is
   * its process's.
   */
  cancel(): void {
    signalCancellation();
  }

  /** A message for the engine, with every secret in force scrubbed. */
  message(e: unknown): string {
    const text = e instanceof Error ? e.message : String(e);
    return scrub(text, this.secrets());
  }

  async close(): Promise<void> {
    await this.client?.close();
    this.client = undefined;
  }
}

function functionOf(token: string): { lookup: LookupFunction } | undefined {
  for (const lookup of LOOKUP_FUNCTIONS) {
    if (token === typeToken(`get${lookup.noun}`) || token === typeToken(`get${lookup.plural}`))
      return { lookup };
  }
  return undefined;
}

export { ProviderConfigError };
