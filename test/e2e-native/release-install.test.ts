/**
 * The released plugin fetched as the engine fetches it: dist/release/ served over HTTP on 127.0.0.1, `pulumi plugin
 * install resource observability v<version> --server <url>` into a fresh PULUMI_HOME with no plugin folder on
 * PATH, then `pulumi plugin ls` showing the whole plugin (not a 300-byte pointer into a checkout), the engine
 * getting its schema from it, and a YAML program on it (when the YAML host can be had) through preview, up, a
 * no-change preview and destroy against an emulator.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { ObservabilityClient } from "../../provider/client";
import { toolPath } from "./flagship";
import {
  PLUGIN_NAME,
  VERSION,
  ensureRelease,
  freshPulumiEnv,
  installPlugin,
  listPlugins,
  pulumiRun,
  serveRelease,
  type ReleaseServer,
} from "./release-support";

const cli = toolPath("pulumi-path.mts");
const yaml = cli.path ? toolPath("pulumi-yaml.mts") : { reason: "no CLI" };
const MB = 1024 * 1024;
const describeWithCli = cli.path ? describe : describe.skip;
if (!cli.path) console.warn(`release install: skipped: ${cli.reason}`);

describeWithCli("the released plugin, installed from a plugin server", () => {
  const pulumi = cli.path!;
  let server: ReleaseServer;
  let env: NodeJS.ProcessEnv;
  let pluginDir: string;

  beforeAll(async () => {
    await ensureRelease();
    server = await serveRelease();
    env = freshPulumiEnv(pulumi, yaml.path ? [yaml.path] : []).env;
  }, 20 * 60_000);
  afterAll(async () => {
    await server?.close();
    if (env?.HOME) rmSync(env.HOME, { recursive: true, force: true });
  });

  test(
    "pulumi plugin install --server fetches this platform's tarball, and pulumi plugin ls shows the whole plugin",
    async () => {
      pluginDir = await installPlugin(pulumi, env, server.url);
      const platform = `${os.platform()}-${os.arch() === "x64" ? "amd64" : os.arch()}`;
      expect(server.requests).toContain(`/${PLUGIN_NAME}-v${VERSION}-${platform}.tar.gz`);
      expect(statSync(path.join(pluginDir, PLUGIN_NAME)).mode & 0o111).not.toBe(0);
      expect(existsSync(path.join(pluginDir, "node"))).toBe(true);

      const listed = (await listPlugins(pulumi, env)).filter((p) => p.name === "observability");
      expect(listed).toEqual([expect.objectContaining({ kind: "resource", version: VERSION })]);
      // The runtime and the program: over 100 MB, where the old checkout route installed a 299-byte script.
      expect(listed[0].size).toBeGreaterThan(100 * MB);
    },
    10 * 60_000,
  );

  test(
    "the engine starts the installed plugin and gets its schema",
    async () => {
      const schema = JSON.parse(
        await pulumiRun(pulumi, ["package", "get-schema", path.join(pluginDir, PLUGIN_NAME)], { env }),
      ) as { name: string; version: string; pluginDownloadURL: string };
      expect(schema).toEqual(
        expect.objectContaining({
          name: "observability",
          version: VERSION,
          pluginDownloadURL: expect.stringMatching(/^github:\/\/api\.github\.com\//),
        }),
      );
    },
    5 * 60_000,
  );

  (yaml.path ? describe : describe.skip)("a YAML program on the installed plugin", () => {
    let em: RunningEmulator;
    let client: ObservabilityClient;
    let work: string;
    let runEnv: NodeJS.ProcessEnv;
    const stack = (args: string[]) =>
      pulumiRun(pulumi, [...args, "--stack", "dev", "--non-interactive"], { env: runEnv, cwd: work });

    beforeAll(async () => {
      em = await startEmulator({ port: 0, host: "127.0.0.1", token: "xaat-release-e2e" });
      client = new ObservabilityClient({ url: em.url, token: em.token, orgId: em.orgId });
      work = mkdtempSync(path.join(os.tmpdir(), "release-yaml-"));
      mkdirSync(work, { recursive: true });
      writeFileSync(
        path.join(work, "Pulumi.yaml"),
        [
          "name: release-yaml",
          "runtime: yaml",
          "resources:",
          "  logs:",
          "    type: observability:index:Dataset",
          "    properties:",
          "      name: release-logs",
          "      description: made by the released plugin",
          "outputs:",
          "  datasetId: ${logs.id}",
          "",
        ].join("\n"),
      );
      runEnv = {
        ...env,
        OBSERVABILITY_URL: em.url,
        OBSERVABILITY_TOKEN: em.token,
        OBSERVABILITY_ORG_ID: em.orgId,
      };
      await pulumiRun(
        pulumi,
        ["stack", "init", "dev", "--secrets-provider", "passphrase", "--non-interactive"],
        {
          env: runEnv,
          cwd: work,
        },
      );
    }, 5 * 60_000);
    afterAll(async () => {
      await client?.close();
      await em?.close();
      if (work) rmSync(work, { recursive: true, force: true });
    });

    test(
      "preview, up, a no-change preview, destroy",
      async () => {
        const preview = JSON.parse(await stack(["preview", "--json"])) as {
          changeSummary: Record<string, number>;
        };
        expect(preview.changeSummary).toEqual(expect.objectContaining({ create: 2 }));
        await stack(["up", "--yes", "--skip-preview"]);
        expect((await client.datasets.list()).map((d) => d.name)).toEqual(["release-logs"]);
        const again = JSON.parse(await stack(["preview", "--json"])) as {
          changeSummary: Record<string, number>;
        };
        expect(Object.entries(again.changeSummary).filter(([op, n]) => op !== "same" && n > 0)).toEqual([]);
        await stack(["destroy", "--yes", "--skip-preview"]);
        expect(await client.datasets.list()).toEqual([]);
      },
      10 * 60_000,
    );
  });
});
