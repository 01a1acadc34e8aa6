/**
 * docs/installation-configuration.md (the Registry's installation page, rendered by scripts/registry-docs.mts),
 * followed as a user would: each `sh` block of its Installation section runs with bash, against the release served
 * locally (dist/release, as release-install.test.ts serves it) in the place of the repository's GitHub releases and
 * of the registries, which do not hold this build:
 *
 * - the plugin: the page's command, its `--server` (the schema's pluginDownloadURL, a `github://` source, which
 *   `pulumi plugin install --server` takes since pulumi/pulumi#9984) replaced by the local server's URL;
 * - npm: the page's command, its `@pulumi-observability/sdk@<version>` replaced by the served tarball's URL;
 * - pip: the page's command verbatim in a fresh virtual environment, pip finding the release's wheel first
 *   (PIP_FIND_LINKS) and Pulumi's SDK on PyPI;
 * - go get: the page's command verbatim in a fresh module, through the release's file-tree proxy before the
 *   public one (release-support.ts releaseGoEnv);
 * - the checkout: the page's block with `npm ci && npm run build` stood in for (the run has built), so
 *   `npm run provider:tarball` writes this machine's tarball and `--file` takes the path it prints, which must be
 *   the one the page names.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { exec, mustExec } from "../../scripts/shared/commands";
import { NODE, ROOT, shellBlocks, toolPath } from "./flagship";
import {
  GO,
  GO_MODULE,
  PYTHON,
  VERSION,
  ensureRelease,
  forgetCachedGoSdk,
  freshPulumiEnv,
  listPlugins,
  missingToolchains,
  releaseGoEnv,
  RELEASE_DIR,
  serveRelease,
  type ReleaseServer,
} from "./release-support";

const PAGE = readFileSync(path.join(ROOT, "docs", "installation-configuration.md"), "utf8");
const BLOCKS = shellBlocks(PAGE.slice(0, PAGE.indexOf("\n## Configuration")));
const SCHEMA = JSON.parse(
  readFileSync(path.join(ROOT, "dist", "provider", "native", "schema.json"), "utf8"),
) as {
  pluginDownloadURL: string;
};
const cli = toolPath("pulumi-path.mts");
const missing = [cli.path ? undefined : `no Pulumi CLI: ${cli.reason}`, ...missingToolchains()].filter(
  (m) => m !== undefined,
);
if (missing.length > 0) console.warn(`installation page: skipped: ${missing.join("; ")}`);
const maybe = missing.length === 0 ? describe : describe.skip;

/** The one block of a section, which must hold exactly one line starting with `command`. */
function block(section: string, command: string): string {
  const blocks = (BLOCKS.get(section) ?? []).filter((b) => b.split("\n").some((l) => l.startsWith(command)));
  if (blocks.length !== 1) throw new Error(`"${section}" has ${blocks.length} blocks running ${command}`);
  return blocks[0];
}

/** Runs a block with bash in `cwd`, stopping at the first command that fails; resolves to its stdout. */
async function runBlock(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  const r = await exec("bash", ["-euo", "pipefail", "-c", script], { cwd, env });
  if (r.code !== 0)
    throw new Error(
      `the block failed (exit ${r.code}):\n${script}\n---\n${`${r.stdout}\n${r.stderr}`.trim().split("\n").slice(-30).join("\n")}`,
    );
  return r.stdout;
}

maybe("docs/installation-configuration.md, followed block by block", () => {
  const pulumi = cli.path!;
  let server: ReleaseServer;
  let home: string;
  let env: NodeJS.ProcessEnv;
  const scratch: string[] = [];
  const fresh = (prefix: string) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
    scratch.push(dir);
    return dir;
  };

  beforeAll(async () => {
    await ensureRelease();
    server = await serveRelease();
    // A fresh PULUMI_HOME, with this Node (and its npm) and Go's folder on PATH after the CLI's.
    ({ env } = freshPulumiEnv(pulumi, [path.dirname(NODE), path.dirname(GO)]));
    home = env.HOME!;
  }, 20 * 60_000);
  afterAll(async () => {
    await server?.close();
    for (const dir of [home, ...scratch]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test("the Installation section leads with the plugin, then each package manager, the checkout last", () => {
    expect([...BLOCKS.keys()]).toEqual(["The plugin", "The SDK", "From a checkout"]);
    expect(BLOCKS.get("The plugin")).toEqual([
      `pulumi plugin install resource observability v${VERSION} --server ${SCHEMA.pluginDownloadURL}`,
    ]);
    expect(BLOCKS.get("The SDK")!.map((b) => b.split(" ").slice(0, 2).join(" "))).toEqual([
      "npm install",
      "pip install",
      "go get",
    ]);
  });

  test(
    "the plugin: the page's command installs the release's tarball for this platform",
    async () => {
      const script = block("The plugin", "pulumi plugin install").replace(
        SCHEMA.pluginDownloadURL,
        server.url,
      );
      await runBlock(script, os.tmpdir(), env);
      const platform = `${os.platform()}-${os.arch() === "x64" ? "amd64" : os.arch()}`;
      expect(server.requests).toContain(`/pulumi-resource-observability-v${VERSION}-${platform}.tar.gz`);
      const listed = (await listPlugins(pulumi, env)).filter((p) => p.name === "observability");
      expect(listed).toEqual([expect.objectContaining({ kind: "resource", version: VERSION })]);
    },
    10 * 60_000,
  );

  test(
    "npm: the page's command installs the SDK and Pulumi's beside it",
    async () => {
      const dir = fresh("install-page-npm-");
      writeFileSync(path.join(dir, "package.json"), '{ "name": "install-page", "private": true }\n');
      const named = `@pulumi-observability/sdk@${VERSION}`;
      const script = block("The SDK", "npm install");
      expect(script).toContain(named);
      await runBlock(script.replace(named, `${server.url}pulumi-observability-sdk-${VERSION}.tgz`), dir, {
        ...env,
        npm_config_prefer_offline: "true",
        npm_config_audit: "false",
        npm_config_fund: "false",
      });
      const loaded = await mustExec(
        NODE,
        ["-e", 'const o = require("@pulumi-observability/sdk"); process.stdout.write(typeof o.Dataset)'],
        { cwd: dir, env },
      );
      expect(loaded).toBe("function");
      const installed = JSON.parse(
        readFileSync(path.join(dir, "node_modules", "@pulumi-observability", "sdk", "package.json"), "utf8"),
      ) as { version: string };
      expect(installed.version).toBe(VERSION);
    },
    10 * 60_000,
  );

  test(
    "pip: the page's command installs the release's wheel into a fresh virtual environment",
    async () => {
      const dir = fresh("install-page-pip-");
      await mustExec(PYTHON, ["-m", "venv", "venv"], { cwd: dir, env });
      const venvEnv = {
        ...env,
        // The user's HOME for pip's cache (the fresh HOME has none).
        HOME: os.homedir(),
        PATH: [path.join(dir, "venv", "bin"), env.PATH].join(path.delimiter),
        PIP_FIND_LINKS: RELEASE_DIR,
        PIP_DISABLE_PIP_VERSION_CHECK: "1",
      };
      await runBlock(block("The SDK", "pip install"), dir, venvEnv);
      const version = await mustExec(
        path.join(dir, "venv", "bin", "python"),
        [
          "-c",
          "import importlib.metadata as m, pulumi_observability as o; print(m.version('pulumi_observability'), o.Dataset.__name__)",
        ],
        { cwd: dir, env: venvEnv },
      );
      expect(version.trim()).toBe(`${VERSION} Dataset`);
    },
    15 * 60_000,
  );

  test(
    "go get: the page's command adds the release's module to a fresh module",
    async () => {
      const dir = fresh("install-page-go-");
      const goEnv = { ...releaseGoEnv(env), HOME: os.homedir() };
      await forgetCachedGoSdk(goEnv);
      await mustExec(GO, ["mod", "init", "example.com/install-page"], { cwd: dir, env: goEnv });
      await runBlock(block("The SDK", "go get"), dir, goEnv);
      expect(readFileSync(path.join(dir, "go.mod"), "utf8")).toContain(`${GO_MODULE} v${VERSION}`);
    },
    15 * 60_000,
  );

  test(
    "the checkout: provider:tarball writes the path the page names, and the plugin installs from it",
    async () => {
      const script = block("From a checkout", "pulumi plugin install");
      const run = script
        .split("\n")
        .filter((l) => l.trim() !== "npm ci && npm run build")
        .join("\n");
      await runBlock(run, ROOT, { ...env, PULUMI_HOME: path.join(home, "checkout-home") });
      const named = /`(dist\/provider-tarball\/[^`]+)`/.exec(PAGE)?.[1];
      const platform = `${os.platform()}-${os.arch() === "x64" ? "amd64" : os.arch()}`;
      expect(named).toBe(
        `dist/provider-tarball/pulumi-resource-observability-v${VERSION}-<os>-<arch>.tar.gz`,
      );
      expect(existsSync(path.join(ROOT, named!.replace("<os>-<arch>", platform)))).toBe(true);
      const listed = (
        await listPlugins(pulumi, { ...env, PULUMI_HOME: path.join(home, "checkout-home") })
      ).filter((p) => p.name === "observability");
      expect(listed).toEqual([expect.objectContaining({ kind: "resource", version: VERSION })]);
    },
    10 * 60_000,
  );
});
