/**
 * `npm run provider:tarball`: builds the release tarball of the native provider,
 * dist/release/pulumi-resource-observability-v<version>-<os>-<arch>.tar.gz, which
 * `pulumi plugin install resource observability <version> --file <tarball>` installs offline (pulumi/pulumi
 * pkg/cmd/pulumi/plugin/plugin_install.go). It holds everything the plugin runs on, so it needs nothing installed:
 *
 * - `pulumi-resource-observability`: the launcher, which runs the Node beside it by absolute path (its own folder,
 *   resolved when it starts), since the plugin cache's folder is only known after install;
 * - `node`: this package's Node (the `node` devDependency), for this machine's OS and architecture;
 * - `dist/provider`: the compiled plugin and the schema;
 * - `node_modules`: the packages it requires at run time, and theirs.
 *
 * Run `npm run build` first.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import { NATIVE_DIST, PLUGIN_NAME, ROOT, nodeForPlugin, packageVersion } from "./native-lib.mts";

/** The packages the plugin's code requires, besides Node's own; their dependencies are added below. */
const RUNTIME_PACKAGES = ["@pulumi/pulumi", "@grpc/grpc-js", "google-protobuf", "undici", "zod"];

if (!fs.existsSync(path.join(NATIVE_DIST, "main.js"))) {
  console.error("provider:tarball: the package is not built: run npm run build first");
  process.exit(1);
}

/** Every package `names` need at run time, each as the folder it is installed in. */
function closure(names: string[]): Map<string, string> {
  const found = new Map<string, string>();
  const visit = (name: string, from: string) => {
    const require = createRequire(path.join(from, "package.json"));
    let manifest: string;
    try {
      manifest = require.resolve(`${name}/package.json`);
    } catch {
      // A package that hides its package.json: find its folder from where it resolves.
      // Not the first package.json above it: packages put `{"type": …}` stubs in their subfolders.
      const named = (d: string) =>
        fs.existsSync(path.join(d, "package.json")) &&
        (JSON.parse(fs.readFileSync(path.join(d, "package.json"), "utf8")) as { name?: string }).name ===
          name;
      let dir = path.dirname(require.resolve(name));
      while (!named(dir)) {
        if (path.dirname(dir) === dir) throw new Error(`cannot find the folder of ${name}`);
        dir = path.dirname(dir);
      }
      manifest = path.join(dir, "package.json");
    }
    const dir = path.dirname(manifest);
    if (found.has(dir)) return;
    found.set(dir, name);
    const pkg = JSON.parse(fs.readFileSync(manifest, "utf8")) as {
      dependencies?: Record<string, string>;
      optionalDependencies?: Record<string, string>;
    };
    for (const dep of Object.keys({ ...pkg.dependencies })) visit(dep, dir);
    for (const dep of Object.keys({ ...pkg.optionalDependencies })) {
      try {
        visit(dep, dir);
      } catch {
        // An optional dependency not installed here is not needed here.
      }
    }
  };
  for (const name of names) visit(name, ROOT);
  return found;
}

const version = packageVersion();
const platform = `${os.platform()}-${os.arch() === "x64" ? "amd64" : os.arch()}`;
const stage = fs.mkdtempSync(path.join(os.tmpdir(), "observability-plugin-"));
try {
  fs.cpSync(path.join(ROOT, "dist", "provider"), path.join(stage, "dist", "provider"), { recursive: true });
  fs.writeFileSync(
    path.join(stage, "package.json"),
    JSON.stringify({ name: "pulumi-observability", version }),
  );
  for (const dir of closure(RUNTIME_PACKAGES).keys()) {
    const rel = path.relative(path.join(ROOT, "node_modules"), dir);
    if (rel.startsWith("..")) throw new Error(`${dir} is outside node_modules`);
    // Without the packages' .bin links: the plugin runs no command of theirs, and `pulumi plugin install`
    // refuses a link that points outside the folder it extracts into.
    fs.cpSync(dir, path.join(stage, "node_modules", rel), {
      recursive: true,
      dereference: true,
      filter: (src) => path.basename(src) !== ".bin",
    });
  }
  fs.copyFileSync(nodeForPlugin(), path.join(stage, "node"));
  fs.chmodSync(path.join(stage, "node"), 0o755);
  fs.writeFileSync(
    path.join(stage, PLUGIN_NAME),
    "#!/bin/sh\n" +
      `# pulumi-observability ${version}: the resource provider plugin, on the Node beside this script.\n` +
      'here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd -P)\n' +
      'exec "$here/node" "$here/dist/provider/native/main.js" "$@"\n',
    { mode: 0o755 },
  );
  const outDir = path.join(ROOT, "dist", "release");
  fs.mkdirSync(outDir, { recursive: true });
  const tarball = path.join(outDir, `pulumi-resource-observability-v${version}-${platform}.tar.gz`);
  execFileSync("tar", ["-czf", tarball, "-C", stage, "."]);
  console.log(tarball);
} finally {
  fs.rmSync(stage, { recursive: true, force: true });
}
