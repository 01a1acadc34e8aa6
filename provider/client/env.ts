/**
 * The `OBSERVABILITY_*` environment variables: their names and the one reader. The client's options, the
 * provider's configuration and the CLI all read them here, so a variable means the same thing everywhere.
 */

/** The variable each connection setting falls back to. */
export const ENV_NAMES = {
  url: "OBSERVABILITY_URL",
  region: "OBSERVABILITY_REGION",
  token: "OBSERVABILITY_TOKEN",
  orgId: "OBSERVABILITY_ORG_ID",
} as const;

/** A connection setting an environment variable can supply. */
export type EnvSetting = keyof typeof ENV_NAMES;

/** The value of `setting`'s variable without surrounding whitespace; undefined when it is unset or blank. */
export function fromEnv(setting: EnvSetting, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const value = env[ENV_NAMES[setting]]?.trim();
  return value ? value : undefined;
}

/**
 * `OBSERVABILITY_SHARED_LISTINGS=0` turns off the listings the provider shares between calls of one host process
 * (provider/resources/listings.ts): each refresh read is then one GET, as before reads were batched. It exists so
 * that `bench/create-refresh.ts` can measure both sides in one run; any other value, or none, leaves sharing on.
 */
export const SHARED_LISTINGS_ENV = "OBSERVABILITY_SHARED_LISTINGS";

/** Whether listings are shared (see {@link SHARED_LISTINGS_ENV}). */
export function sharedListingsEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return env[SHARED_LISTINGS_ENV]?.trim() !== "0";
}
