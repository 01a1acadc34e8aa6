/** Provider configuration: stack config, then env. */
import { MISSING_TOKEN_MESSAGE, ProviderConfigError, resolveSettings } from "../../provider/config";
import * as dynamic from "../../provider/resources/dynamic";

const cfg = (values: Record<string, string>) => ({ get: (k: string) => values[k] });

describe("resolveSettings", () => {
  it("prefers stack config over the environment", () => {
    const s = resolveSettings(cfg({ "observability:token": "from-config", "observability:region": "eu" }), {
      OBSERVABILITY_TOKEN: "from-env",
      OBSERVABILITY_ORG_ID: "org-env",
    });
    expect(s).toEqual({ token: "from-config", region: "eu", orgId: "org-env", url: undefined });
  });

  it("falls back to OBSERVABILITY_* variables", () => {
    expect(
      resolveSettings(undefined, { OBSERVABILITY_TOKEN: "t", OBSERVABILITY_URL: "http://127.0.0.1:1" }),
    ).toEqual({
      token: "t",
      url: "http://127.0.0.1:1",
      orgId: undefined,
      region: undefined,
    });
  });

  it("names both places to set a missing token", () => {
    expect(() => resolveSettings(cfg({}), {})).toThrow(ProviderConfigError);
    expect(MISSING_TOKEN_MESSAGE).toContain("pulumi config set --secret observability:token");
    expect(MISSING_TOKEN_MESSAGE).toContain("OBSERVABILITY_TOKEN");
  });

  it("refuses a region other than us or eu, without echoing a secret", () => {
    expect(() =>
      resolveSettings(cfg({ "observability:token": "secret-1", "observability:region": "ap" }), {}),
    ).toThrow(/region must be "us" or "eu", got "ap"/);
  });

  it("fails a create readably when no token is configured", async () => {
    await dynamic.reset();
    await dynamic.configure({ config: cfg({ "observability:url": "http://127.0.0.1:1" }) });
    const saved = process.env.OBSERVABILITY_TOKEN;
    delete process.env.OBSERVABILITY_TOKEN;
    try {
      await expect(dynamic.implementation("Role").create({ name: "r" })).rejects.toThrow(
        "observability Role create failed: observability: no API token is configured",
      );
    } finally {
      if (saved !== undefined) process.env.OBSERVABILITY_TOKEN = saved;
      await dynamic.reset();
    }
  });
});
