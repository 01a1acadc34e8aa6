/**
 * Every line of the user pages that installs the plugin or runs the bin (test/helpers/docs-commands.ts), run as
 * written, with only what this build cannot be stood in for (test/docs/install-lines.test.ts holds them to the
 * rules without running them):
 *
 * - the plugin: each `pulumi plugin install` line in a fresh PULUMI_HOME, its `--server` (the repository's GitHub
 *   releases, or a placeholder for another server) replaced by dist/release served locally, `<version>` by the
 *   package's version, and `--file` paths as the checkout has them (`npm run provider:tarball` writes the tarball the
 *   pages name); then `pulumi plugin ls` lists the plugin at that version;
 * - the bin: each `npx -p pulumi-observability observability <command>` line in a fresh folder whose project does
 *   not depend on the package (the pages' setting), `pulumi-observability` replaced by the release's package tarball
 *   (the npm registry does not hold this build); the line's arguments become `--help` of its command, since the
 *   commands themselves (an emulator left running, a migration of a state the folder lacks) are other tests'.
 *   npm must run this package's bin: the help names the command.
 *
 * The same lines inside a clone of this repository, where the package is the project itself: test/docs/npx-in-clone.test.ts.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { exec } from "../../scripts/shared/commands";
import { docsCommands, npxCheck } from "../helpers/docs-commands";
import { NODE, ROOT, toolPath } from "./flagship";
import {
  VERSION,
  ensureRelease,
  freshPulumiEnv,
  listPlugins,
  RELEASE_DIR,
  serveRelease,
} from "./release-support";

const COMMANDS = docsCommands(ROOT);
const cli = toolPath("pulumi-path.mts");
if (!cli.path) console.warn(`docs commands: skipped: no Pulumi CLI: ${cli.reason}`);
const maybe = cli.path ? describe : describe.skip;

/** The same line with the placeholders of versions and servers filled in. */
function pluginLine(command: string, serverUrl: string, releasesUrl: string, platform: string): string {
  return command
    .replace(/v?<version>/g, `v${VERSION}`)
    .replace(/<os>-<arch>/g, platform)
    .replace(releasesUrl, serverUrl)
    .replace(/--server <[^>]+>/, `--server ${serverUrl}`);
}

maybe("the pages' install and run lines, run", () => {
  const pulumi = cli.path!;
  const scratch: string[] = [];
  const fresh = (prefix: string) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
    scratch.push(dir);
    return dir;
  };
  let server: Awaited<ReturnType<typeof serveRelease>>;
  let releasesUrl: string;

  beforeAll(async () => {
    await ensureRelease();
    server = await serveRelease();
    const schema = require(path.join(ROOT, "dist", "provider", "native", "schema.json")) as {
      pluginDownloadURL: string;
    };
    releasesUrl = schema.pluginDownloadURL;
    // The tarball the pages' `--file dist/provider-tarball/...` lines name, for this machine.
    const tarball = await exec("npm", ["run", "--silent", "provider:tarball"], { cwd: ROOT });
    if (tarball.code !== 0) throw new Error(`npm run provider:tarball failed: ${tarball.stderr}`);
  }, 20 * 60_000);
  afterAll(async () => {
    await server?.close();
    for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
  });

  const platform = `${os.platform()}-${os.arch() === "x64" ? "amd64" : os.arch()}`;
  const pluginLines = [
    ...new Set(
      COMMANDS.filter((c) => c.kind === "plugin install")
        // A page names one platform's tarball as its example; only this machine's can install here.
        .filter(
          (c) =>
            !/-(linux|darwin|windows)-(amd64|arm64)\.tar\.gz/.test(c.command) || c.command.includes(platform),
        )
        .map((c) => c.command),
    ),
  ];
  test.each(pluginLines)(
    "%s",
    async (command) => {
      const { env, home } = freshPulumiEnv(pulumi, [path.dirname(NODE)]);
      scratch.push(path.dirname(home));
      const line = pluginLine(command, server.url, releasesUrl, platform);
      // A tarball named bare (`--file pulumi-resource-observability-v….tar.gz`) is the one the reader downloaded
      // from the release into the folder they are in: here, the release's own folder.
      const bare = /--file [^/\s]+\.tar\.gz/.test(line);
      const run = await exec("bash", ["-euo", "pipefail", "-c", line], {
        cwd: bare ? RELEASE_DIR : ROOT,
        env,
      });
      expect({ line, code: run.code, stderr: run.stderr.trim().split("\n").slice(-5) }).toMatchObject({
        code: 0,
      });
      const listed = (await listPlugins(pulumi, env)).filter((p) => p.name === "observability");
      expect(listed).toEqual([expect.objectContaining({ kind: "resource", version: VERSION })]);
    },
    10 * 60_000,
  );

  const npxLines = [...new Set(COMMANDS.filter((c) => c.kind === "npx").map((c) => c.command))];
  test.each(npxLines)(
    "%s",
    async (command) => {
      const check = npxCheck(command);
      expect(check).toBeDefined();
      const { sub, bin } = check!;
      const dir = fresh("docs-npx-");
      writeFileSync(path.join(dir, "package.json"), '{ "name": "not-a-dependent", "private": true }\n');
      const tgz = path.join(RELEASE_DIR, `pulumi-observability-${VERSION}.tgz`);
      const args = ["-y", "-p", tgz, ...bin];
      const run = await exec("npx", args, {
        cwd: dir,
        env: {
          ...process.env,
          npm_config_audit: "false",
          npm_config_fund: "false",
          npm_config_update_notifier: "false",
        },
      });
      expect({ command, code: run.code, stderr: run.stderr.trim().split("\n").slice(-5) }).toMatchObject({
        code: 0,
      });
      if (sub) expect(run.stdout).toContain(`Usage: observability ${sub}`);
      else expect(run.stdout.trim()).toBe(VERSION);
    },
    10 * 60_000,
  );
});
