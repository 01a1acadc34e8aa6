/**
 * The plugin half of a release: one tarball per platform, `pulumi-resource-observability-v<version>-<os>-<arch>.tar.gz`
 * (the name `pulumi plugin install` asks a server for: pulumi/pulumi sdk/go/common/workspace/plugins.go), each
 * holding, at its root:
 *
 * - the launcher the engine runs: `pulumi-resource-observability`, a POSIX shell script, or on Windows
 *   `pulumi-resource-observability.cmd` (the engine probes `.exe`, then `.cmd`: plugins.go getCandidateExtensions,
 *   as Pulumi ships its own Node plugins). It runs the Node beside it on the program beside it, found from its own
 *   path, so it names no path of the machine that built it and works wherever it is extracted;
 * - `node` (`node.exe`): that platform's Node runtime (release-runtimes.mts: pinned, digest-checked);
 * - `provider.js`: the plugin's runtime code, dist/provider/native/main.js and everything it requires, bundled by
 *   esbuild into one program. @pulumi/pulumi's index is left out: only the lookups' program forms load it, which
 *   the plugin never calls (provider/lookups.ts); its generated gRPC stubs, which the plugin serves, are in;
 * - `schema.json`, which the plugin serves and whose version it answers GetPluginInfo with;
 * - `LICENSE` (this package's) and `THIRD-PARTY-NOTICES` (Node's license and those of the bundled packages).
 *
 * No devDependency, test or source map goes in: the bundle holds only what main.js reaches.
 */
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { pipeline } from "node:stream/promises";
import * as zlib from "node:zlib";
import * as esbuild from "esbuild";
import { NATIVE_DIST, PLUGIN_NAME, ROOT, githubRepository } from "./native-lib.mts";
import { PLATFORMS, nodeLicense, readManifest, writeRuntime, type Platform } from "./release-runtimes.mts";

export { PLATFORMS, type Platform };

/** The bundled program's name inside a tarball. */
export const BUNDLE = "provider.js";

/** A platform's tarball name: what the engine asks a plugin server for. */
export function pluginTarballName(version: string, platform: Platform): string {
  return `${PLUGIN_NAME}-v${version}-${platform}.tar.gz`;
}

/** What a platform's runtime must be, as {@link executableFormat} names it. */
export const EXPECTED_FORMAT: Record<Platform, string> = {
  "linux-amd64": "ELF x86-64",
  "linux-arm64": "ELF aarch64",
  "darwin-amd64": "Mach-O x86_64",
  "darwin-arm64": "Mach-O arm64",
  "windows-amd64": "PE x64",
};

/** The files at a platform's tarball root, sorted. */
export function tarballFiles(platform: Platform): string[] {
  const windows = platform.startsWith("windows-");
  return [
    windows ? `${PLUGIN_NAME}.cmd` : PLUGIN_NAME,
    "LICENSE",
    "THIRD-PARTY-NOTICES",
    windows ? "node.exe" : "node",
    BUNDLE,
    "schema.json",
  ].sort();
}

/**
 * The executable format of `header` (a file's first bytes, 4 KB is plenty), read from its header as the loaders
 * do: ELF's class and e_machine, Mach-O's magic and cputype, PE's "PE\0\0" signature (at e_lfanew) and Machine.
 */
export function executableFormat(header: Buffer): string {
  if (header.length >= 20 && header.readUInt32BE(0) === 0x7f454c46) {
    const bits = header[4] === 2 ? 64 : 32;
    const le = header[5] === 1;
    const machine = le ? header.readUInt16LE(18) : header.readUInt16BE(18);
    const name = { 0x3e: "x86-64", 0xb7: "aarch64", 0x03: "i386", 0x28: "arm" }[machine];
    return `ELF ${name ?? `machine 0x${machine.toString(16)}`}${bits === 64 ? "" : " (32-bit)"}`;
  }
  if (header.length >= 8 && header.readUInt32LE(0) === 0xfeedfacf) {
    const cpu = header.readUInt32LE(4);
    const name = { 0x01000007: "x86_64", 0x0100000c: "arm64" }[cpu];
    return `Mach-O ${name ?? `cputype 0x${cpu.toString(16)}`}`;
  }
  if (header.length >= 4 && header.readUInt32BE(0) === 0xcafebabe) return "Mach-O universal";
  if (header.length >= 0x40 && header.toString("latin1", 0, 2) === "MZ") {
    const pe = header.readUInt32LE(0x3c);
    if (header.length >= pe + 6 && header.toString("latin1", pe, pe + 4) === "PE\0\0") {
      const machine = header.readUInt16LE(pe + 4);
      const name = { 0x8664: "x64", 0xaa64: "arm64", 0x14c: "x86" }[machine];
      return `PE ${name ?? `machine 0x${machine.toString(16)}`}`;
    }
    return "MZ without a PE header";
  }
  return "not an executable";
}

/** The first 4 KB of `file`. */
export function headerOf(file: string): Buffer {
  const fd = fs.openSync(file, "r");
  try {
    const buf = Buffer.alloc(4096);
    return buf.subarray(0, fs.readSync(fd, buf, 0, buf.length, 0));
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The plugin side of "one version everywhere": the built schema's `version` (which the plugin also answers
 * GetPluginInfo with, provider/native/main.ts) is `version`, and its `pluginDownloadURL` names the releases of the
 * repository package.json names. Throws one line saying which disagrees.
 */
export function checkPluginVersions(version: string): void {
  const file = path.join(NATIVE_DIST, "schema.json");
  if (!fs.existsSync(file)) throw new Error(`${path.relative(ROOT, file)} does not exist: run npm run build`);
  const schema = JSON.parse(fs.readFileSync(file, "utf8")) as {
    version?: string;
    pluginDownloadURL?: string;
  };
  if (schema.version !== version)
    throw new Error(
      `the plugin's schema (${path.relative(ROOT, file)}) has version ${schema.version}, package.json ${version}: run npm run build`,
    );
  const url = `github://api.github.com/${githubRepository()}`;
  if (schema.pluginDownloadURL !== url)
    throw new Error(
      `the plugin's schema has pluginDownloadURL ${schema.pluginDownloadURL}, package.json's repository gives ${url}: run npm run build`,
    );
}

/** One line per launcher: run the Node beside it on the bundle beside it, with the engine's arguments. */
function launcher(platform: Platform, version: string): { name: string; text: string } {
  if (platform.startsWith("windows-")) {
    // %~dp0 is this file's folder, with its trailing backslash; %* the engine's arguments.
    return {
      name: `${PLUGIN_NAME}.cmd`,
      text:
        "@echo off\r\n" +
        `rem pulumi-observability ${version}: the resource provider plugin, on the Node beside this file.\r\n` +
        `"%~dp0node.exe" "%~dp0${BUNDLE}" %*\r\n`,
    };
  }
  return {
    name: PLUGIN_NAME,
    text:
      "#!/bin/sh\n" +
      `# pulumi-observability ${version}: the resource provider plugin, on the Node beside this script.\n` +
      'here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd -P) || exit 1\n' +
      `exec "$here/node" "$here/${BUNDLE}" "$@"\n`,
  };
}

/** The license files of the packages the bundle holds, each once, as one text. */
function bundledNotices(inputs: string[]): string {
  const dirs = new Set<string>();
  for (const input of inputs) {
    const m = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (m) dirs.add(path.resolve(ROOT, m[1]));
  }
  const parts: string[] = [];
  for (const dir of [...dirs].sort()) {
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as {
      name: string;
      version: string;
      license?: string;
    };
    const file = fs.readdirSync(dir).find((f) => /^(licen[cs]e|copying)(\.(md|txt))?$/i.test(f));
    const text = file ? fs.readFileSync(path.join(dir, file), "utf8").trim() : `License: ${pkg.license}`;
    parts.push(`Package: ${pkg.name} ${pkg.version}\n\n${text}`);
  }
  return parts.join(`\n\n${"-".repeat(78)}\n\n`);
}

/**
 * Bundles the built plugin (dist/provider/native/main.js) into `dir`/provider.js and writes the schema, the
 * licenses and the notices beside it: what every platform's tarball shares.
 */
export async function bundlePlugin(dir: string, nodeVersion: string): Promise<void> {
  const entry = path.join(NATIVE_DIST, "main.js");
  if (!fs.existsSync(entry))
    throw new Error(`${path.relative(ROOT, entry)} does not exist: run npm run build`);
  const result = await esbuild.build({
    entryPoints: [entry],
    outfile: path.join(dir, BUNDLE),
    bundle: true,
    platform: "node",
    format: "cjs",
    target: `node${nodeVersion.split(".")[0]}`,
    minify: true,
    legalComments: "none",
    sourcemap: false,
    metafile: true,
    logLevel: "silent",
    plugins: [
      {
        // @pulumi/pulumi's index, which only the lookups' program forms require (at their call): the plugin never
        // calls them. Its subpaths (the generated gRPC stubs) are bundled.
        name: "leave-out-the-pulumi-sdk",
        setup(build) {
          build.onResolve({ filter: /^@pulumi\/pulumi$/ }, (args) => ({ path: args.path, external: true }));
        },
      },
    ],
  });
  if (result.errors.length > 0) throw new Error(`bundling the plugin: ${result.errors[0].text}`);
  fs.copyFileSync(path.join(NATIVE_DIST, "schema.json"), path.join(dir, "schema.json"));
  fs.copyFileSync(path.join(ROOT, "LICENSE"), path.join(dir, "LICENSE"));
  fs.writeFileSync(
    path.join(dir, "THIRD-PARTY-NOTICES"),
    `The plugin carries Node.js ${nodeVersion} and, bundled in ${BUNDLE}, the packages below.\n\n` +
      `${"=".repeat(78)}\nNode.js ${nodeVersion}\n\n${nodeLicense().trim()}\n\n${"=".repeat(78)}\n\n` +
      bundledNotices(Object.keys(result.metafile!.inputs)) +
      "\n",
  );
}

/** The time every file in the tarballs carries: SOURCE_DATE_EPOCH, else the last commit's, else now. */
function archiveTime(): number {
  if (process.env.SOURCE_DATE_EPOCH) return Number(process.env.SOURCE_DATE_EPOCH);
  try {
    return Number(execFileSync("git", ["log", "-1", "--format=%ct"], { cwd: ROOT, encoding: "utf8" }).trim());
  } catch {
    return Math.floor(Date.now() / 1000);
  }
}

/**
 * `files` of `dir` as a gzipped tar at `out`, entries sorted, owned by 0:0, at one time (GNU tar; Node's gzip,
 * whose header carries no time), so the same inputs give the same bytes.
 */
async function writeTarball(dir: string, files: string[], out: string, mtime: number): Promise<void> {
  const tar = spawn(
    "tar",
    [
      "--sort=name",
      "--owner=0",
      "--group=0",
      "--numeric-owner",
      `--mtime=@${mtime}`,
      "-cf",
      "-",
      "-C",
      dir,
      ...files,
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let stderr = "";
  tar.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number>((resolve, reject) => {
    tar.once("error", reject);
    tar.once("close", (code) => resolve(code ?? 1));
  });
  await pipeline(tar.stdout, zlib.createGzip(), fs.createWriteStream(out));
  const code = await exited;
  if (code !== 0) throw new Error(`tar of ${path.basename(out)} failed: ${stderr.trim().split("\n")[0]}`);
}

/**
 * Writes one plugin tarball per platform (all of {@link PLATFORMS} unless given) into `stagingDir`; returns their
 * paths. Run `npm run build` first.
 */
export async function writePluginArtifacts(
  stagingDir: string,
  version: string,
  platforms: readonly Platform[] = PLATFORMS,
): Promise<string[]> {
  const manifest = readManifest();
  const work = fs.mkdtempSync(path.join(stagingDir, ".plugin-"));
  try {
    await bundlePlugin(work, manifest.node);
    const mtime = archiveTime();
    const written: string[] = [];
    for (const platform of platforms) {
      const node = path.join(work, platform.startsWith("windows-") ? "node.exe" : "node");
      writeRuntime(platform, node, manifest);
      const format = executableFormat(headerOf(node));
      if (format !== EXPECTED_FORMAT[platform])
        throw new Error(
          `the runtime for ${platform} (${manifest.platforms[platform].archive}) is ${format}, not ${EXPECTED_FORMAT[platform]}`,
        );
      const { name, text } = launcher(platform, version);
      fs.writeFileSync(path.join(work, name), text, { mode: 0o755 });
      const out = path.join(stagingDir, pluginTarballName(version, platform));
      await writeTarball(work, tarballFiles(platform), out, mtime);
      fs.rmSync(node);
      fs.rmSync(path.join(work, name));
      written.push(out);
    }
    return written;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
