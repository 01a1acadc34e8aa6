/**
 * The package's own artifact of `npm run release` (scripts/release.mts calls writePackageArtifact with its staging
 * folder): `pulumi-observability-<version>.tgz`, this package as `npm pack` makes it and as npm publishes it, with
 * the dynamic resources, the `observability` command and the emulator, which the README installs first. The
 * release has just built dist/ (or `--skip-build` names a fresh build), so prepack's rebuild is skipped.
 *
 * What a release writes beside it (the plugin, the SDKs) lives under dist/ too, and package.json's `files` leaves
 * it out: the pack is refused when any of it, or anything outside dist/ and the package's own files, is in it.
 */
import { mkdtempSync, renameSync, rmSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { mustExec, npm } from "./shared/commands.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** The tarball's name for `version`, as npm names a pack of this package. */
export function packageTarballName(version: string): string {
  return `pulumi-observability-${version}.tgz`;
}

/** What `npm pack --json` says of one pack. */
interface Packed {
  filename: string;
  version: string;
  files: { path: string }[];
}

/** The files a pack must not hold: the release's and the plugin's own outputs, maps, work folders. */
export function unwantedInPack(files: string[]): string[] {
  return files.filter(
    (f) =>
      /^dist\/(release|plugin|provider-tarball)\//.test(f) ||
      /^dist\/\.release-/.test(f) ||
      f.endsWith(".map") ||
      !(/^dist\//.test(f) || /^(package\.json|README\.md|LICENSE|CHANGELOG\.md)$/.test(f)),
  );
}

/** Packs the package into `stagingDir`; resolves to the file names written there. */
export async function writePackageArtifact(stagingDir: string, version: string): Promise<string[]> {
  // Packed outside dist/ first: the staging folder is under dist/, and the pack must not see itself.
  const work = mkdtempSync(path.join(os.tmpdir(), "obs-pack-"));
  try {
    const [cmd, args] = npm(["pack", "--ignore-scripts", "--json", "--pack-destination", work]);
    const stdout = await mustExec(cmd, args, { cwd: ROOT });
    const [packed] = JSON.parse(stdout) as Packed[];
    if (packed.version !== version)
      throw new Error(`npm pack made version ${packed.version}, not package.json's ${version}`);
    if (packed.filename !== packageTarballName(version))
      throw new Error(`npm pack wrote ${packed.filename}, not ${packageTarballName(version)}`);
    const unwanted = unwantedInPack(packed.files.map((f) => f.path));
    if (unwanted.length > 0)
      throw new Error(
        `the pack holds what it must not: ${unwanted.slice(0, 5).join(", ")} (package.json "files")`,
      );
    renameSync(path.join(work, packed.filename), path.join(stagingDir, packed.filename));
    return [packed.filename];
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
