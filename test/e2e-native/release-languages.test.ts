/**
 * Issue 32, point 8: the release as a user gets it, in every language. dist/release (built by `npm run release`
 * once per run, release-support.ts ensureRelease) is served over HTTP; the plugin is installed from that server
 * into a fresh PULUMI_HOME (`pulumi plugin install resource observability v<version> --server <url>`), with no
 * plugin folder on PATH; then the flagship (examples/<language>-flagship) runs on each SDK's artifact, never on a
 * path of this checkout:
 *
 * - TypeScript: `npm install <tarball> @pulumi/pulumi` in the program's copy, type-checked by tsc, run by Node;
 * - Python: `pip install <wheel>` (and Pulumi's SDK from PyPI) into a fresh virtual environment;
 * - Go: `go get <module>@v<version>` through `GOPROXY=file://<release>/goproxy,https://proxy.golang.org`;
 * - YAML: the `pulumi` CLI with the YAML language host (`npm run --silent yaml:path`), which reads the schema from
 *   the installed plugin.
 *
 * TypeScript, Python and Go run as Automation API inline programs (no language host of theirs is served here).
 * Each goes through preview, up, a preview proposing no change, and destroy, against a fresh emulator.
 */
import { existsSync, readFileSync, readdirSync, rmSync } from "node:fs";
import * as path from "node:path";
import { npm, mustExec } from "../../scripts/shared/commands";
import {
  type Changes,
  changesOf,
  FLAGSHIP_CREATES,
  flagshipObjects,
  type Harness,
  inlineOperation,
  type InstalledPlugin,
  noChanges,
  NODE,
  openHarness,
  toolPath,
  typecheckProgram,
} from "./flagship";
import {
  GO,
  GO_MODULE,
  PYTHON,
  RELEASE_DIR,
  VERSION,
  ensureRelease,
  forgetCachedGoSdk,
  freshPulumiEnv,
  installPlugin,
  missingToolchains,
  releaseGoEnv,
  serveRelease,
  type ReleaseServer,
} from "./release-support";

const NPM_TARBALL = path.join(RELEASE_DIR, `pulumi-observability-sdk-${VERSION}.tgz`);
const WHEEL = path.join(RELEASE_DIR, `pulumi_observability-${VERSION}-py3-none-any.whl`);
const cli = toolPath("pulumi-path.mts");
const yamlHost = toolPath("pulumi-yaml.mts");
const missing = [
  cli.path ? undefined : `no Pulumi CLI: ${cli.reason}`,
  yamlHost.path ? undefined : `no YAML language host: ${yamlHost.reason}`,
  ...missingToolchains(),
].filter((m) => m !== undefined);
if (missing.length > 0) console.warn(`release languages: skipped: ${missing.join("; ")}`);
const maybe = missing.length === 0 ? describe : describe.skip;

/** How one language installs its SDK's artifact into the flagship's copy and runs an operation there. */
interface Language {
  example: string;
  extraPath?: string[];
  install(h: Harness): Promise<void>;
  operation(h: Harness, op: "preview" | "up" | "destroy"): Promise<Changes>;
}

const goEnv = (h: Harness): NodeJS.ProcessEnv => releaseGoEnv(h.env);

const LANGUAGES: Record<string, Language> = {
  TypeScript: {
    example: "typescript-flagship",
    install: async (h) => {
      const [c1, a1] = npm(["pkg", "delete", "dependencies.@pulumi-observability/sdk"]);
      await mustExec(c1, a1, { cwd: h.work, env: h.env });
      const [c2, a2] = npm([
        "install",
        "--no-audit",
        "--no-fund",
        "--loglevel=error",
        NPM_TARBALL,
        "@pulumi/pulumi",
      ]);
      await mustExec(c2, a2, { cwd: h.work, env: h.env });
      const sdk = path.join(h.work, "node_modules", "@pulumi-observability", "sdk");
      // Compiled already (nothing ran at install), and the program's @pulumi/pulumi the only one.
      expect(existsSync(path.join(sdk, "bin", "index.js"))).toBe(true);
      expect(
        readdirSync(sdk, { recursive: true, encoding: "utf8" }).filter((f) => /(?<!\.d)\.ts$/.test(f)),
      ).toEqual([]);
      expect(existsSync(path.join(sdk, "node_modules", "@pulumi", "pulumi"))).toBe(false);
      await typecheckProgram(["index.ts"], { cwd: h.work, env: h.env });
    },
    operation: (h, op) => inlineOperation(h, op),
  },
  Python: {
    example: "python-flagship",
    install: async (h) => {
      // The folder's `venv`, where `pulumi install` puts it and the inline driver looks. requirements.txt's line
      // naming this checkout's sdk/python is left out: the SDK comes from the released wheel only.
      await mustExec(PYTHON, ["-m", "venv", "venv"], { cwd: h.work, env: h.env });
      const requirements = readFileSync(path.join(h.work, "requirements.txt"), "utf8")
        .split("\n")
        .map((l) => l.trim())
        .filter((l) => l !== "" && !l.startsWith("#") && !l.includes("sdk/python"));
      await mustExec(
        path.join(h.work, "venv", "bin", "python"),
        ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", ...requirements, WHEEL],
        { cwd: h.work, env: h.env },
      );
    },
    operation: (h, op) => inlineOperation(h, op),
  },
  Go: {
    example: "go-flagship",
    install: async (h) => {
      const env = goEnv(h);
      await forgetCachedGoSdk(env);
      await mustExec(GO, ["mod", "edit", `-dropreplace=${GO_MODULE}`], { cwd: h.work, env });
      await mustExec(GO, ["get", `${GO_MODULE}@v${VERSION}`], { cwd: h.work, env });
      const listed = await mustExec(GO, ["list", "-m", "-f", "{{.Version}} {{.Dir}}", GO_MODULE], {
        cwd: h.work,
        env,
      });
      const [version, dir] = listed.trim().split(" ");
      expect(version).toBe(`v${VERSION}`);
      expect(dir.startsWith(path.join(__dirname, "..", ".."))).toBe(false);
      await mustExec(GO, ["build", "-o", "/dev/null", "."], { cwd: h.work, env });
    },
    // The driver builds the example's program with its test (go test -overlay) from the module cache `go get` filled.
    operation: (h, op) => inlineOperation(h, op, { ...goEnv(h), GO }),
  },
  YAML: {
    example: "yaml-flagship",
    extraPath: yamlHost.path ? [yamlHost.path] : [],
    install: async (h) => {
      const pulumi = (args: string[], input?: string) =>
        mustExec(h.pulumi, [...args, "--non-interactive"], { cwd: h.work, env: h.env, input });
      await pulumi(["stack", "init", "dev", "--secrets-provider", "passphrase"]);
      await pulumi(["config", "set", "observability:url", h.em.url, "--stack", "dev"]);
      await pulumi(["config", "set", "--secret", "observability:token", "--stack", "dev"], h.em.token);
      await pulumi(["config", "set", "--secret", "slackWebhookUrl", "--stack", "dev"], h.slackUrl);
    },
    operation: async (h, op) =>
      changesOf(
        await mustExec(
          h.pulumi,
          [
            ...(op === "preview" ? ["preview", "--json"] : [op, "--yes", "--skip-preview", "--json"]),
            "--stack",
            "dev",
            "--non-interactive",
          ],
          { cwd: h.work, env: h.env },
        ),
      ),
  },
};

maybe("the release, installed from its artifacts only, in TypeScript, Python, Go and YAML", () => {
  let server: ReleaseServer;
  let installed: InstalledPlugin;

  beforeAll(async () => {
    // Built once per run and shared with the plugin's release tests (release-support.ts ensureRelease).
    await ensureRelease();
    server = await serveRelease();
    // PATH: the CLI's folder, the YAML host's, Node's (npm's install scripts), /usr/bin and /bin; no plugin.
    const fresh = freshPulumiEnv(cli.path!, [yamlHost.path!, path.dirname(NODE)]);
    // The user's HOME again (the fresh one hides ~/.pulumi; PULUMI_HOME does that too): its npm, pip and Go
    // caches are what make the installs take seconds, not minutes, and hold nothing of this checkout.
    installed = { pulumiHome: fresh.home, baseEnv: { ...fresh.env, HOME: process.env.HOME } };
    await installPlugin(cli.path!, fresh.env, server.url);
    expect(server.requests).toContain(`/pulumi-resource-observability-v${VERSION}-linux-amd64.tar.gz`);
  }, 20 * 60_000);
  afterAll(async () => {
    await server?.close();
    if (installed) rmSync(path.dirname(installed.pulumiHome), { recursive: true, force: true });
  });

  test.each(Object.keys(LANGUAGES))(
    "%s: preview, up, a preview with no change, destroy, on the released SDK and plugin",
    async (name) => {
      const lang = LANGUAGES[name];
      const h = await openHarness(cli.path!, lang.example, lang.extraPath ?? [], installed);
      try {
        for (const dir of (h.env.PATH ?? "").split(path.delimiter))
          expect(existsSync(path.join(dir, "pulumi-resource-observability"))).toBe(false);
        const baseline = await flagshipObjects(h.client);
        await lang.install(h);
        expect(await lang.operation(h, "preview")).toEqual({ create: FLAGSHIP_CREATES });
        expect(await flagshipObjects(h.client)).toEqual(baseline);
        expect(await lang.operation(h, "up")).toEqual({ create: FLAGSHIP_CREATES });
        const after = await flagshipObjects(h.client);
        expect(after.monitors.length - baseline.monitors.length).toBe(2);
        const again = await lang.operation(h, "preview");
        expect(noChanges(again)).toBe(true);
        expect(again.same).toBe(FLAGSHIP_CREATES);
        expect((await lang.operation(h, "destroy")).delete).toBe(FLAGSHIP_CREATES);
        expect(await flagshipObjects(h.client)).toEqual(baseline);
      } finally {
        await h.close();
      }
    },
    10 * 60_000,
  );
});
