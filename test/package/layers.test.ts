/**
 * The package's layers point one way: the emulator and the CLI may import the provider, the provider imports
 * neither (README's architecture: "emulator ──validates with the same zod schemas"). The provider is what users'
 * programs and the native plugin load; an import of emulator/ would drag the service's stand-in into both (the
 * notifier schema once imported the custom webhook's template parser from emulator/, until it moved to
 * provider/go-template/). Each file is read with TypeScript's own import scanner, as import-cycles.test.ts does.
 */
import { readFileSync, readdirSync, statSync } from "node:fs";
import * as path from "node:path";
import * as ts from "typescript";

const ROOT = path.resolve(__dirname, "..", "..");

function sources(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((f) => path.join(dir, f))
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts") && statSync(f).isFile());
}

/** Every relative import of a file under `layer` that lands in one of `forbidden`, as `file → specifier`. */
function crossings(layer: string, forbidden: string[]): string[] {
  const out: string[] = [];
  for (const file of sources(path.join(ROOT, layer))) {
    for (const imported of ts.preProcessFile(readFileSync(file, "utf8"), true, true).importedFiles) {
      if (!imported.fileName.startsWith(".")) continue;
      const target = path.relative(ROOT, path.resolve(path.dirname(file), imported.fileName));
      if (forbidden.some((f) => target === f || target.startsWith(`${f}/`)))
        out.push(`${path.relative(ROOT, file)} → ${imported.fileName}`);
    }
  }
  return out.sort();
}

it.each([
  ["provider", ["emulator", "cli"]],
  ["emulator", ["cli"]],
])("rule: %s/ imports nothing of %j", (layer, forbidden) => {
  expect(crossings(layer as string, forbidden as string[])).toEqual([]);
});
