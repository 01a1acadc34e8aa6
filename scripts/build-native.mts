/**
 * After `tsc`: the native provider plugin.
 *
 * 1. dist/provider/native/schema.json: the Pulumi package schema, generated from the kinds' declarations and zod
 *    schemas and the descriptions in the TypeScript sources (provider/native/schema.ts, docs.ts). The plugin
 *    serves this file from GetSchema, so it needs no TypeScript at run time.
 * 2. dist/plugin/pulumi-resource-observability: the executable the Pulumi engine starts (pulumi/pulumi
 *    sdk/go/common/workspace/plugins.go looks for `pulumi-resource-<name>` on PATH or in `plugins.providers`). It
 *    runs the plugin on this package's Node, named by absolute path: the machine's `node` may be too old.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import {
  NATIVE_DIST,
  PLUGIN_DIR,
  PLUGIN_NAME,
  nodeForPlugin,
  packageVersion,
  writeSchemaFile,
} from "./native-lib.mts";

writeSchemaFile(path.join(NATIVE_DIST, "schema.json"));
fs.mkdirSync(PLUGIN_DIR, { recursive: true });
fs.writeFileSync(
  path.join(PLUGIN_DIR, PLUGIN_NAME),
  "#!/bin/sh\n" +
    `# Written by scripts/build-native.mts (pulumi-observability ${packageVersion()}): the resource provider plugin\n` +
    "# on this package's Node, by absolute path. The engine passes the address of its gRPC server.\n" +
    `exec ${JSON.stringify(nodeForPlugin())} ${JSON.stringify(path.join(NATIVE_DIST, "main.js"))} "$@"\n`,
  { mode: 0o755 },
);
