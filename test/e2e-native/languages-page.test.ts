/**
 * docs/languages.md, followed as a new user of each language would: every `sh` block of the page runs, in order,
 * with bash from the repository's root, against a fresh emulator. Two lines of the page are not run, and the test
 * stands in for them: `npm ci` and `npm run build` (`npm run test:languages` builds before the tests), and
 * `npx observability emulator` (the emulator runs in this process, on a free port; the page's programs read its
 * address and token from OBSERVABILITY_URL and OBSERVABILITY_TOKEN, as the page says). Of the two blocks of Python,
 * Go and TypeScript, `pulumi up` runs where that language's host is on PATH, else the tests' driver on the same
 * program file (no host is served to the machines these tests run on).
 */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { ObservabilityClient } from "../../provider/client";
import { exec } from "../../scripts/shared/commands";
import { flagshipObjects, NODE, ROOT, shellBlocks, toolPath } from "./flagship";

/** Lines of the page the test stands in for (above). */
const STOOD_IN = new Set(["npm ci", "npm run build", "npx observability emulator"]);

const PAGE = readFileSync(path.join(ROOT, "docs", "languages.md"), "utf8");
const BLOCKS = shellBlocks(PAGE);
const cli = toolPath("pulumi-path.mts");
if (!cli.path) console.warn(`docs/languages.md: skipped: ${cli.reason}`);
const maybe = cli.path ? describe : describe.skip;

maybe("docs/languages.md, followed block by block", () => {
  let em: RunningEmulator;
  let client: ObservabilityClient;
  let env: NodeJS.ProcessEnv;
  let baseline: Record<string, string[]>;

  /** Runs one block with bash, stopping at the first command that fails. */
  async function runBlock(block: string): Promise<string> {
    const script = block
      .split("\n")
      .filter((l) => !STOOD_IN.has(l.trim()))
      .join("\n");
    const r = await exec("bash", ["-euo", "pipefail", "-c", script], { cwd: ROOT, env });
    if (r.code !== 0) {
      throw new Error(
        `the block failed (exit ${r.code}):\n${script}\n---\n${`${r.stdout}\n${r.stderr}`.trim().split("\n").slice(-30).join("\n")}`,
      );
    }
    return r.stdout;
  }

  beforeAll(async () => {
    const token = `xaat-page-${Math.random().toString(36).slice(2, 12)}`;
    em = await startEmulator({ port: 0, host: "127.0.0.1", token });
    client = new ObservabilityClient({ url: em.url, token: em.token, orgId: em.orgId });
    baseline = await flagshipObjects(client);
    env = {
      ...process.env,
      PULUMI_HOME: mkdtempSync(path.join(os.tmpdir(), "obs-page-home-")),
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      PATH: [path.dirname(cli.path!), path.dirname(NODE), process.env.PATH ?? ""].join(path.delimiter),
      OBSERVABILITY_URL: em.url,
      OBSERVABILITY_TOKEN: em.token,
    };
    delete env.PULUMI_BACKEND_URL;
    delete env.PULUMI_CONFIG_PASSPHRASE;
  });
  afterAll(async () => {
    await client?.close();
    await em?.close();
  });

  test("the page has a block for the plugin and one per language", () => {
    expect([...BLOCKS.keys()]).toEqual(
      expect.arrayContaining([
        "Once: the CLI, the plugin and the emulator",
        "Python",
        "Go",
        "TypeScript",
        "YAML",
      ]),
    );
  });

  test("Once: the plugin is installed as the page says", async () => {
    for (const block of BLOCKS.get("Once: the CLI, the plugin and the emulator") ?? []) await runBlock(block);
    const plugins = await exec(cli.path!, ["plugin", "ls", "--json"], { env });
    expect(JSON.parse(plugins.stdout)).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: "observability", kind: "resource" })]),
    );
  });

  /** The JSON lines the Automation API programs print, by operation. */
  const reported = (stdout: string) =>
    Object.fromEntries(
      stdout
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l) as { operation: string; changes: Record<string, number> })
        .map((r) => [r.operation, r.changes]),
    );

  /** Whether `name` is an executable in one of PATH's folders. */
  const onPath = (name: string) =>
    (env.PATH ?? "").split(path.delimiter).some((dir) => dir !== "" && existsSync(path.join(dir, name)));

  for (const [language, host] of [
    ["Python", "pulumi-language-python"],
    ["Go", "pulumi-language-go"],
    ["TypeScript", "pulumi-language-nodejs"],
  ]) {
    test(`${language}: the page's \`pulumi up\` block with ${host}, else its block for the tests' driver, creates the flagship and destroys it`, async () => {
      const blocks = BLOCKS.get(language)!;
      expect(blocks).toHaveLength(2);
      expect(blocks[0]).toMatch(/^pulumi up --yes$/m);
      expect(blocks[1]).toMatch(/^node \.\.\/\.\.\/test\/e2e-native\/drivers\/inline\.mts \. up$/m);
      if (onPath(host)) {
        const out = await runBlock(blocks[0]);
        expect(out).toMatch(/\+ 7 created/);
        expect(out).toMatch(/- 7 deleted/);
      } else {
        console.warn(`docs/languages.md, ${language}: no ${host} on PATH; the tests' block runs instead`);
        const out = await runBlock(blocks[1]);
        expect(reported(out)).toEqual({ up: { create: 7 }, destroy: { delete: 7 } });
      }
      expect(await flagshipObjects(client)).toEqual(baseline);
    });
  }

  test("YAML: the page's block creates the flagship and destroys it", async () => {
    const out = await runBlock(BLOCKS.get("YAML")![0]);
    expect(out).toMatch(/\+ 7 created/);
    expect(out).toMatch(/- 7 deleted/);
    expect(await flagshipObjects(client)).toEqual(baseline);
  });
});
