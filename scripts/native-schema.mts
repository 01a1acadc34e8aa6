/**
 * `npm run --silent schema`: prints the native provider's Pulumi package schema (JSON) to stdout, generated
 * afresh from the built kinds (run `npm run build` first) and the TypeScript sources. SDK generators read it.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { NATIVE_DIST, generateSchema } from "./native-lib.mts";

if (!fs.existsSync(path.join(NATIVE_DIST, "schema.js"))) {
  console.error(
    "schema: the package is not built (no dist/provider/native/schema.js): run npm run build first",
  );
  process.exit(1);
}
process.stdout.write(JSON.stringify(generateSchema(), null, 2) + "\n");
