/**
 * The plugin's entry point, run by the launcher `pulumi-resource-observability`: serves the ResourceProvider
 * service and prints its port as the first line of stdout, which is how the engine finds it (pulumi/pulumi
 * pkg/resource/plugin/plugin.go). Nothing else may be printed to stdout before the port.
 *
 * The schema is the file beside this module in both layouts: dist/provider/native/ of a build, and the root of a
 * released plugin, where this module is bundled into one program (scripts/release-plugin.mts). The version the
 * plugin answers GetPluginInfo with is the schema's, which the build writes from package.json's: one source, so
 * the two cannot differ.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { serve } from "./server";

async function main(): Promise<void> {
  const schema = fs.readFileSync(path.join(__dirname, "schema.json"), "utf8");
  const { version } = JSON.parse(schema) as { version?: unknown };
  if (typeof version !== "string" || version === "")
    throw new Error(`${path.join(__dirname, "schema.json")} has no version`);
  // The engine starts a plugin with its own gRPC address as the first argument (pulumi/pulumi
  // pkg/resource/plugin/provider_plugin.go), which Construct registers a component's children with.
  const { port } = await serve({ version, schema, engineAddress: process.argv[2] });
  process.stdout.write(`${port}\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(`pulumi-resource-observability: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
