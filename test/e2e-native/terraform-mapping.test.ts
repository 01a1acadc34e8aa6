/**
 * The plugin's Terraform mapping through the real CLI: `pulumi package get-mapping <key> <plugin> [provider]`
 * (pulumi/pulumi pkg/cmd/pulumi/packagecmd/package_extract_mapping.go) starts the built plugin, calls its
 * GetMapping, prints `<plugin> maps to provider <name>` on stderr and the data on stdout or to `--out`; an answer
 * with no provider is its error `no mapping found for key "<key>"`. This is the call the converter's mapper makes
 * for `pulumi import --from terraform` (pulumi-converter-terraform, which is not served on this machine, so the
 * conversion itself is not run here).
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { terraformMapping } from "../../provider/terraform";
import type { PulumiCli } from "../../scripts/shared/engine";
import { PLUGIN, ROOT, engineEnv, findCliAndPlugin, removeTempDirs, runCli, tempDir } from "./native-support";

const found = findCliAndPlugin();
const cli: PulumiCli | undefined = "cli" in found ? found.cli : undefined;
if (!cli) console.warn(`terraform mapping e2e skipped: ${"reason" in found ? found.reason : ""}`);
const maybe = cli ? describe : describe.skip;

maybe("pulumi package get-mapping terraform <plugin>", () => {
  let work: string;
  let env: Record<string, string>;
  const version = (): string =>
    (
      JSON.parse(readFileSync(path.join(ROOT, "dist", "provider", "native", "schema.json"), "utf8")) as {
        version: string;
      }
    ).version;

  beforeAll(() => {
    work = tempDir("tf-mapping-");
    env = engineEnv(cli!, tempDir("tf-mapping-state-"));
  });
  afterAll(() => removeTempDirs());

  test("axiom: the plugin maps to provider axiom, and the data is the table's mapping", async () => {
    const out = path.join(work, "axiom.json");
    const said = await runCli(
      cli!,
      ["package", "get-mapping", "terraform", PLUGIN, "axiom", "--out", out],
      work,
      env,
    );
    expect(said).toContain(`${PLUGIN} maps to provider axiom`);
    const mapping = JSON.parse(readFileSync(out, "utf8"));
    expect(mapping).toEqual(terraformMapping(version()));
    expect(mapping.resources.axiom_monitor).toMatchObject({
      tok: "observability:index:Monitor",
      fields: { delay: { name: "secondDelay" } },
    });
    expect(mapping.dataSources.axiom_dashboard.tok).toBe("observability:index:getDashboard");
  });

  test("no provider key (the engine's blind call): the same mapping, on stdout", async () => {
    const said = await runCli(cli!, ["package", "get-mapping", "terraform", PLUGIN], work, env);
    const json = said.slice(0, said.lastIndexOf("}") + 1);
    expect(JSON.parse(json)).toEqual(terraformMapping(version()));
    expect(said).toContain("maps to provider axiom");
  });

  test("another key, or another Terraform provider: no mapping, and the CLI says which key", async () => {
    await expect(
      runCli(cli!, ["package", "get-mapping", "helm", PLUGIN, "axiom"], work, env),
    ).rejects.toThrow('no mapping found for key "helm"');
    // The CLI names the key only, even when the provider is what has no mapping.
    await expect(
      runCli(cli!, ["package", "get-mapping", "terraform", PLUGIN, "aws"], work, env),
    ).rejects.toThrow('no mapping found for key "terraform"');
  });
});
