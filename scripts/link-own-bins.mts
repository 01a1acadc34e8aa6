/**
 * Links every bin of package.json into the checkout's own node_modules/.bin, as npm links a dependency's bins.
 *
 * Why: in a clone of this repository, the project IS pulumi-observability. `npx -p pulumi-observability
 * observability …` (the docs' command) asks npm for a package the local tree already holds, its root, so npm
 * installs nothing and runs the command with the project's node_modules/.bin on PATH; but npm never links a root
 * project's own bins there, so the shell answered "observability: not found" (exit 127). With this link, the
 * docs' command finds the bin in a clone as it does in a project that depends on the package. Run by `prepare`
 * (npm install and npm ci in the clone) and as the build's last step; the bin itself is the build's output, so
 * the command answers once `npm run build` has run.
 */
import * as fs from "node:fs";
import * as path from "node:path";

// The package whose bins to link: the checkout, or the one given (the tests link a scratch package).
const ROOT = process.argv[2] ?? path.resolve(import.meta.dirname, "..");
const { bin } = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
  bin: Record<string, string>;
};
const binDir = path.join(ROOT, "node_modules", ".bin");
fs.mkdirSync(binDir, { recursive: true });

for (const [name, file] of Object.entries(bin)) {
  const link = path.join(binDir, name);
  const target = path.relative(binDir, path.join(ROOT, file));
  let existing: string | undefined;
  try {
    existing = fs.readlinkSync(link);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    // EINVAL: a file that is not a link, a bin some dependency installed under the same name: left alone.
    if (code === "EINVAL") {
      console.warn(`link-own-bins: node_modules/.bin/${name} is another package's bin; not replaced`);
      continue;
    }
    if (code !== "ENOENT") throw e;
  }
  if (existing === target) continue;
  if (existing !== undefined) {
    // A link npm made for a dependency's bin of the same name points into that dependency: left alone.
    if (path.resolve(binDir, existing).includes(`${path.sep}node_modules${path.sep}`)) {
      console.warn(`link-own-bins: node_modules/.bin/${name} is another package's bin; not replaced`);
      continue;
    }
    fs.unlinkSync(link);
  }
  if (process.platform === "win32") {
    // cmd.exe runs no symlinked script: a shim, as npm writes for a dependency's bin.
    fs.writeFileSync(`${link}.cmd`, `@node "%~dp0\\${target.replaceAll("/", "\\")}" %*\r\n`);
  } else fs.symlinkSync(target, link);
}
