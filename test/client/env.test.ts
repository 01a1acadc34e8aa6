/**
 * The `OBSERVABILITY_*` variables are read in one place (provider/client/env.ts): the client's options, the
 * provider's configuration and the CLI's token take the same value from the same environment.
 */
import { readToken } from "../../cli/connection";
import { ENV_NAMES, fromEnv } from "../../provider/client/env";
import { resolveOptions } from "../../provider/client/options";
import { resolveSettings } from "../../provider/config";

it.each<[string, string | undefined, string | undefined]>([
  ["unset", undefined, undefined],
  ["empty", "", undefined],
  ["blank", "  \n", undefined],
  ["a value", "xaat-env", "xaat-env"],
  ["a value with a trailing newline", "xaat-env\n", "xaat-env"],
])("OBSERVABILITY_TOKEN %s: client, provider and CLI read the same token", async (_rule, value, expected) => {
  const env: NodeJS.ProcessEnv = value === undefined ? {} : { [ENV_NAMES.token]: value };
  expect(fromEnv("token", env)).toBe(expected);
  if (expected === undefined) {
    expect(() => resolveOptions({}, env)).toThrow(/No token/);
    expect(() => resolveSettings(undefined, env)).toThrow(/no API token/);
    await expect(readToken({}, env)).rejects.toThrow(/no token/);
  } else {
    expect(resolveOptions({}, env).token).toBe(expected);
    expect(resolveSettings(undefined, env).token).toBe(expected);
    await expect(readToken({}, env)).resolves.toBe(expected);
  }
});

it("every setting's variable is read the same way by the client and the provider", () => {
  const env: NodeJS.ProcessEnv = {
    [ENV_NAMES.token]: " t ",
    [ENV_NAMES.url]: " http://127.0.0.1:9 ",
    [ENV_NAMES.region]: " eu ",
    [ENV_NAMES.orgId]: " org-1 ",
  };
  const settings = resolveSettings(undefined, env);
  expect(settings).toEqual({ token: "t", url: "http://127.0.0.1:9", region: "eu", orgId: "org-1" });
  expect(resolveOptions({}, env)).toMatchObject({ token: "t", origin: "http://127.0.0.1:9", orgId: "org-1" });
  expect(resolveOptions({ url: undefined }, { ...env, [ENV_NAMES.url]: "" }).origin).toBe(
    "https://api.eu.axiom.co",
  );
});
