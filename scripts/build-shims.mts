/**
 * After `tsc`: writes dist/provider/shims/<Kind>.js for every kind the registry serves, each a module whose exports
 * are that kind's provider shim (provider/resources/shim.ts).
 *
 * Why a module per kind: when a resource's provider is the exports of a module inside node_modules, @pulumi/pulumi
 * serializes it as `require("pulumi-observability/dist/provider/shims/<Kind>.js")` (about 250 bytes) instead of
 * copying its functions into the text (about 2.6 KB). That text is stored twice in every resource's state
 * (inputs and outputs), and the engine writes the whole state after every step of `pulumi up`, so its size is what
 * a large stack pays for most. The modules are generated from the registry, so a new kind needs no file of its own.
 * Their path is a permanent interface, as the shim's `v1` is: states written by this version require it.
 */
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..");
const DIR = path.join(ROOT, "dist", "provider", "shims");
const require = createRequire(import.meta.url);
const { KINDS } = require(path.join(ROOT, "dist", "provider", "resources", "registry.js")) as {
  KINDS: Map<string, unknown>;
};

fs.mkdirSync(DIR, { recursive: true });
for (const kind of KINDS.keys()) {
  fs.writeFileSync(
    path.join(DIR, `${kind}.js`),
    `"use strict";\n// Written by scripts/build-shims.mts: the ${kind} shim, required by name from resources' state.\n` +
      `module.exports = require("../resources/shim").providerShim(${JSON.stringify(kind)});\n`,
  );
}
