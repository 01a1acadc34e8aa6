/**
 * The plugin's entry point, run by the launcher `pulumi-resource-observability`: serves the ResourceProvider
 * service and prints its port as the first line of stdout, which is how the engine finds it (pulumi/pulumi
 * pkg/resource/plugin/plugin.go). Nothing else may be printed to stdout before the port.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { serve } from "./server";

async function main(): Promise<void> {
  const schema = fs.readFileSync(path.join(__dirname, "schema.json"), "utf8");
  const { version } = JSON.parse(
    fs.readFileSync(path.join(__dirname, "..", "..", "..", "package.json"), "utf8"),
  ) as { version: string };
  const { port } = await serve({ version, schema });
  process.stdout.write(`${port}\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(`pulumi-resource-observability: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
