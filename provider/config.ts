/**
 * Provider configuration: stack config (handed to the dynamic provider's `configure`) first, then the
 * `OBSERVABILITY_*` environment variables. Nothing here is ever captured by a serialized closure.
 */
import { ENV_NAMES, fromEnv } from "./client/env";

/** The stack config keys the provider reads, in their full `<namespace>:<key>` form. */
export const CONFIG_KEYS = {
  token: "observability:token",
  orgId: "observability:orgId",
  url: "observability:url",
  region: "observability:region",
} as const;

/** The settings the provider needs to build its client. */
export interface ProviderSettings {
  /** API token or personal access token; secret. */
  token: string;
  /** Organization id, sent as `X-Axiom-Org-Id` and `x-service-org-id` (needed with a personal access token). */
  orgId?: string;
  /** Base URL of the service (or the emulator); overrides `region`. */
  url?: string;
  /** `us` or `eu`; selects the region's base URL when `url` is unset. */
  region?: "us" | "eu";
}

/** Anything with `get(key)`: Pulumi's `ConfigureRequest.config`, or a plain lookup in tests. */
export interface ConfigSource {
  /** The value of a full config key such as `observability:token`, or undefined. */
  get(key: string): string | undefined;
}

/** The message shown when no token is configured; it names both places a token can come from. */
export const MISSING_TOKEN_MESSAGE =
  "observability: no API token is configured. Set one with " +
  `\`pulumi config set --secret observability:token <token>\`, or set the ${ENV_NAMES.token} environment variable.`;

/** Thrown when the configuration is missing or invalid; the message says how to fix it and holds no secret. */
export class ProviderConfigError extends Error {
  override readonly name = "ProviderConfigError";
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/**
 * Merges stack config and environment into client settings. Throws {@link ProviderConfigError} when the token
 * is missing or the region is not `us`/`eu`.
 */
export function resolveSettings(
  config: ConfigSource | undefined,
  env: NodeJS.ProcessEnv = process.env,
): ProviderSettings {
  // Read here, not left to the client's own fallback: stack config must win, and a missing token gets the
  // provider's message, which names both places.
  const pick = (key: keyof typeof CONFIG_KEYS) =>
    nonEmpty(config?.get(CONFIG_KEYS[key])) ?? fromEnv(key, env);
  const token = pick("token");
  if (!token) throw new ProviderConfigError(MISSING_TOKEN_MESSAGE);
  const region = pick("region");
  if (region !== undefined && region !== "us" && region !== "eu") {
    throw new ProviderConfigError(
      `observability: region must be "us" or "eu", got ${JSON.stringify(region)} ` +
        `(from ${CONFIG_KEYS.region} or ${ENV_NAMES.region})`,
    );
  }
  return { token, orgId: pick("orgId"), url: pick("url"), region };
}

/** Copies the provider's keys out of a config source, so the source itself need not be kept. */
export function snapshotConfig(config: ConfigSource): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of Object.values(CONFIG_KEYS)) {
    const value = config.get(key);
    if (value !== undefined) out[key] = value;
  }
  return out;
}
