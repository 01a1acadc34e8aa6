/**
 * `npm run provider:tarball`: the release's plugin tarball for this machine's platform alone
 * (scripts/release-plugin.mts: the pinned Node runtime and one bundled program), written to
 * dist/provider-tarball/pulumi-resource-observability-v<version>-<os>-<arch>.tar.gz, whose path it prints.
 * `pulumi plugin install resource observability v<version> --file <tarball>` installs it offline. `npm run
 * release` builds every platform's, with the checksums. Run `npm run build` first.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { ROOT, packageVersion } from "./native-lib.mts";
import { PLATFORMS, checkPluginVersions, writePluginArtifacts, type Platform } from "./release-plugin.mts";

const platform = `${os.platform() === "win32" ? "windows" : os.platform()}-${os.arch() === "x64" ? "amd64" : os.arch()}`;
const outDir = path.join(ROOT, "dist", "provider-tarball");
try {
  if (!(PLATFORMS as readonly string[]).includes(platform))
    throw new Error(`no release is built for ${platform}; the platforms are ${PLATFORMS.join(", ")}`);
  const version = packageVersion();
  checkPluginVersions(version);
  fs.mkdirSync(outDir, { recursive: true });
  const stage = fs.mkdtempSync(path.join(outDir, ".staging-"));
  try {
    const [tarball] = await writePluginArtifacts(stage, version, [platform as Platform]);
    const out = path.join(outDir, path.basename(tarball));
    fs.renameSync(tarball, out);
    console.log(out);
  } finally {
    fs.rmSync(stage, { recursive: true, force: true });
  }
} catch (e) {
  console.error(`provider:tarball: ${(e as Error).message.split("\n")[0]}`);
  process.exit(1);
}
