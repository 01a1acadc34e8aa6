/**
 * `npm run --silent provider:dir`: prints the absolute path of the folder holding the native provider's launcher
 * `pulumi-resource-observability` and exits 0, or prints one line saying why it cannot and exits 1. Put the folder
 * first on PATH (or name it in Pulumi.yaml's `plugins.providers`) and the engine runs this build of the plugin.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { NATIVE_DIST, PLUGIN_DIR, PLUGIN_NAME, nodeProblem } from "./native-lib.mts";

function problem(): string | undefined {
  const launcher = path.join(PLUGIN_DIR, PLUGIN_NAME);
  if (!fs.existsSync(launcher)) return `${launcher} does not exist: run npm run build`;
  try {
    fs.accessSync(launcher, fs.constants.X_OK);
  } catch {
    return `${launcher} is not executable: run npm run build`;
  }
  for (const file of ["main.js", "schema.json"]) {
    if (!fs.existsSync(path.join(NATIVE_DIST, file)))
      return `${path.join(NATIVE_DIST, file)} does not exist: run npm run build`;
  }
  // The Node the launcher names, which a `npm ci` elsewhere may have moved or removed.
  const node = /^exec "([^"]+)"/m.exec(fs.readFileSync(launcher, "utf8"))?.[1];
  if (!node) return `${launcher} names no Node: run npm run build`;
  const bad = nodeProblem(node);
  return bad ? `the launcher's Node: ${bad}; run npm run build` : undefined;
}

const why = problem();
if (why) {
  console.error(`provider:dir: ${why}`);
  process.exit(1);
}
console.log(PLUGIN_DIR);
