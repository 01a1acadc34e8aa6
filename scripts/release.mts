/**
 * `npm run release [-- --skip-build]`: writes dist/release/, everything a release publishes, at package.json's
 * version, or nothing. It builds the package (unless `--skip-build`, for a build just made), then runs the steps
 * below into a staging folder beside dist/release, writes the checksums of every artifact, and only then renames
 * the staging folder into place. Any failure removes the staging folder, leaves an earlier dist/release as it was,
 * prints one line saying why and exits 1.
 *
 * The checksums file is named as goreleaser names it for Pulumi's providers (`<project>_<version>_checksums.txt`,
 * the project being the repository, as in pulumi-aws_<version>_checksums.txt): one `<sha256>  <file>` line per
 * artifact, as `sha256sum -c` reads it.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { ROOT, packageVersion } from "./native-lib.mts";
import { writePackageArtifact } from "./release-package.mts";
import { checkPluginVersions, writePluginArtifacts } from "./release-plugin.mts";
import { writeSdkArtifacts } from "./release-sdks.mts";
import { checkVersions } from "./release-versions.mts";

/** A step of the release: checks, or writes its artifacts into the staging folder. */
type Step = { name: string; run: (stagingDir: string, version: string) => unknown };

/** In order; a step that throws stops the release. */
const STEPS: Step[] = [
  { name: "versions", run: (_dir, version) => checkPluginVersions(version) },
  { name: "versions of every artifact", run: () => checkVersions() },
  { name: "package", run: writePackageArtifact },
  { name: "plugin", run: writePluginArtifacts },
  { name: "sdks", run: writeSdkArtifacts },
];

const RELEASE_DIR = path.join(ROOT, "dist", "release");

/** The checksums file's name for `version`. */
function checksumsName(version: string): string {
  return `pulumi-observability_${version}_checksums.txt`;
}

/** The sha256 of a file, streamed (the tarballs are tens of MB). */
async function sha256(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** Every file under `dir`, as paths relative to it with `/`, sorted. */
function filesUnder(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true, withFileTypes: true }) as fs.Dirent[])
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join("/"))
    .sort();
}

async function writeChecksums(dir: string, version: string): Promise<void> {
  const lines: string[] = [];
  for (const file of filesUnder(dir)) lines.push(`${await sha256(path.join(dir, file))}  ${file}`);
  fs.writeFileSync(path.join(dir, checksumsName(version)), lines.join("\n") + "\n");
}

async function release(skipBuild: boolean): Promise<void> {
  const version = packageVersion();
  // The build keeps dist/release/ (scripts/clean-dist.mts), so an earlier release stays in place until the staged
  // one replaces it, and stays if this one fails.
  if (!skipBuild) {
    const built = spawnSync("npm", ["run", "--silent", "build"], {
      cwd: ROOT,
      stdio: ["ignore", "ignore", "pipe"],
    });
    if (built.status !== 0)
      throw new Error(`npm run build failed: ${String(built.stderr).trim().split("\n").at(-1) ?? ""}`);
  }
  await stageAndRename(version);
  for (const file of filesUnder(RELEASE_DIR)) console.log(path.join(RELEASE_DIR, file));
}

/** Every step into a staging folder beside dist/release, the checksums, then the folder renamed into place. */
async function stageAndRename(version: string): Promise<void> {
  fs.mkdirSync(path.dirname(RELEASE_DIR), { recursive: true });
  const staging = fs.mkdtempSync(path.join(path.dirname(RELEASE_DIR), ".release-staging-"));
  fs.chmodSync(staging, 0o755);
  try {
    for (const step of STEPS) {
      const started = Date.now();
      try {
        await step.run(staging, version);
      } catch (e) {
        throw new Error(`${step.name}: ${(e as Error).message.split("\n")[0]}`);
      }
      console.error(`release: ${step.name} done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
    // What a step left beside its artifacts (a dotted work folder) is not published.
    for (const entry of fs.readdirSync(staging)) {
      if (entry.startsWith(".")) fs.rmSync(path.join(staging, entry), { recursive: true, force: true });
    }
    await writeChecksums(staging, version);
    // Into place: the old release aside, the new one in, the old one removed.
    const old = `${staging}-old`;
    if (fs.existsSync(RELEASE_DIR)) fs.renameSync(RELEASE_DIR, old);
    fs.renameSync(staging, RELEASE_DIR);
    fs.rmSync(old, { recursive: true, force: true });
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

const started = Date.now();
release(process.argv.includes("--skip-build")).then(
  () => console.error(`release: dist/release/ written in ${((Date.now() - started) / 1000).toFixed(1)} s`),
  (e: unknown) => {
    console.error(
      `release: ${e instanceof Error ? e.message.split("\n")[0] : String(e)}; nothing was written`,
    );
    process.exit(1);
  },
);
