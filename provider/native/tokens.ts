/**
 * The native provider's names and the kinds' secret keys: what the plugin needs at run time from the schema's
 * vocabulary, kept apart from the schema's generator (schema.ts), which walks the Resource classes and zod
 * schemas at build time and is not loaded by the plugin.
 */
import { SECRET_KEYS, type SecretKeys } from "../resources/kinds";
import type { ResourceKind } from "../resources/registry";

/** The package's name: the plugin is `pulumi-resource-observability`, the types `observability:index:<Kind>`. */
export const PACKAGE = "observability";
/** The module every token lives in. */
export const MODULE = "index";

/** A kind's type token. */
export const typeToken = (kind: string): string => `${PACKAGE}:${MODULE}:${kind}`;
/** A lookup function's token: `observability:index:getMonitor`. */
export const functionToken = (name: string): string => `${PACKAGE}:${MODULE}:${name}`;

const NONE: SecretKeys = { outputs: [], inputs: [] };

/** The keys a kind always makes secret: outputs, and inputs registered secret. */
export function secretKeysOf(kind: ResourceKind): SecretKeys {
  return SECRET_KEYS.get(kind) ?? NONE;
}
