/**
 * TypeScript: examples/typescript-flagship, the project a user runs with `pulumi up` (Pulumi.yaml, index.ts,
 * package.json, tsconfig.json as `pulumi new typescript` makes them), its index.ts imported as an Automation API
 * inline program (drivers/inline.mts) on the generated Node.js SDK, installed by npm from sdk/nodejs as a package
 * (install-links: its postinstall compiles it, and it shares the program's @pulumi/pulumi), and run by Node's type
 * stripping; the example's own tsconfig.json type-checks it.
 */
import { copyFileSync } from "node:fs";
import { mustExec } from "../../scripts/shared/commands";
import {
  describeFlagship,
  expectDocsInputs,
  inlineOperation,
  installTypeScriptSdk,
  NODE,
  typecheckProgram,
} from "./flagship";
import * as path from "node:path";

describeFlagship("TypeScript", {
  example: "typescript-flagship",
  install: async (h) => {
    // The copy lives elsewhere than the example: its dependency on the SDK names this checkout's sdk/nodejs.
    // The devDependencies (TypeScript, Node's types) are left out: the repository's TypeScript checks the program.
    await installTypeScriptSdk(["--omit=dev"], { cwd: h.work, env: h.env });
  },
  operation: inlineOperation,
  edit: { file: "index.ts", from: "threshold: 25,", to: "threshold: 40," },
  importDataset: async (h, id) => {
    const env = { IMPORT_DATASET_ID: id };
    return { changes: await inlineOperation(h, "up", env), env };
  },
  docs: async (h, programs) => {
    // Under Pulumi's mocks (pulumi.runtime.setMocks), which record what the SDK sends for each resource.
    copyFileSync(path.join(programs, "typescript", "docs.ts"), path.join(h.work, "docs.ts"));
    copyFileSync(path.join(__dirname, "programs", "docs-check.ts"), path.join(h.work, "docs-check.ts"));
    const seen = path.join(h.work, "docs-seen.json");
    await mustExec(NODE, ["docs-check.ts", seen], { cwd: h.work, env: h.env });
    expectDocsInputs(seen, programs);
    // Node runs the programs without checking their types: the repository's TypeScript checks them, the
    // flagship and the docs' declarations, against the installed SDK's typings.
    await typecheckProgram(["index.ts", "docs.ts"], { cwd: h.work, env: h.env });
  },
});
