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
