/**
 * The build's first step: empties dist/ for a fresh build, except dist/release/, which `npm run release` writes and
 * which the build has no way to write again (it takes the release's own steps: runtimes, SDKs, checksums). Before
 * this, every build deleted the last release with the rest of dist/.
 */
import * as fs from "node:fs";
import * as path from "node:path";

/** What a build keeps of dist/. */
export const KEPT_BY_BUILD = ["release"];

// The folder to empty: the checkout's dist/, or the one given (the tests empty a scratch copy).
const DIST = process.argv[2] ?? path.resolve(import.meta.dirname, "..", "dist");

for (const entry of fs.existsSync(DIST) ? fs.readdirSync(DIST) : []) {
  if (!KEPT_BY_BUILD.includes(entry)) fs.rmSync(path.join(DIST, entry), { recursive: true, force: true });
}
