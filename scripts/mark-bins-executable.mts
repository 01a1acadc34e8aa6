/**
 * The build's last step: gives every bin of package.json its execute bits. tsc writes files with mode 0644, and a
 * bin without them fails in the checkout (`npx observability` answers "Permission denied" where npm does not set the
 * mode itself); npm sets them only when it installs the package elsewhere.
 */
import * as fs from "node:fs";
import * as path from "node:path";

// The package whose bins to mark: the checkout, or the one given (the tests mark a scratch package).
const ROOT = process.argv[2] ?? path.resolve(import.meta.dirname, "..");
const { bin } = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
  bin: Record<string, string>;
};

for (const file of Object.values(bin)) {
  const target = path.join(ROOT, file);
  // Read, write and execute for the owner, read and execute for the others, as npm installs a bin.
  fs.chmodSync(target, fs.statSync(target).mode | 0o755);
}
