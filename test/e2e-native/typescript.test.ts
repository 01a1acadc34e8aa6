/**
 * TypeScript: examples/typescript-flagship, an Automation API inline program (LocalWorkspace.createOrSelectStack
 * with `program`) on the generated Node.js SDK, installed by npm from sdk/nodejs as a package (install-links: its
 * postinstall compiles it, and it shares the program's @pulumi/pulumi), and run by Node's type stripping.
 */
import { copyFileSync } from "node:fs";
import { describeFlagship, driverOperation, expectDocsInputs, mustExec, NODE, ROOT } from "./flagship";
import * as path from "node:path";

/** npm as this test was started with it (npm_execpath inside npm scripts), else the one on PATH. */
const npm = (args: string[]): [string, string[]] =>
  process.env.npm_execpath ? [NODE, [process.env.npm_execpath, ...args]] : ["npm", args];

describeFlagship("TypeScript", {
  example: "typescript-flagship",
  install: async (h) => {
    // The copy lives elsewhere than the example: its dependency on the SDK names this checkout's sdk/nodejs.
    const [setCmd, setArgs] = npm([
      "pkg",
      "set",
      `dependencies.@pulumi-observability/sdk=file:${path.join(ROOT, "sdk", "nodejs")}`,
    ]);
    await mustExec(setCmd, setArgs, { cwd: h.work, env: h.env });
    const [cmd, args] = npm(["install", "--no-audit", "--no-fund", "--loglevel=error"]);
    await mustExec(cmd, args, { cwd: h.work, env: h.env });
  },
  operation: (h, op, env) => driverOperation(h, NODE, ["main.ts"], op, env),
  edit: { file: "flagship.ts", from: "threshold: 25,", to: "threshold: 40," },
  importDataset: async (h, id) => {
    const env = { IMPORT_DATASET_ID: id };
    return { changes: await driverOperation(h, NODE, ["main.ts"], "up", env), env };
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
    const tsc = path.join(ROOT, "node_modules", "typescript", "bin", "tsc");
    await mustExec(
      NODE,
      [
        tsc,
        "--noEmit",
        "--strict",
        "--skipLibCheck",
        "--target",
        "es2022",
        "--module",
        "nodenext",
        "--moduleResolution",
        "nodenext",
        "--allowImportingTsExtensions",
        "--types",
        "node",
        "main.ts",
        "flagship.ts",
        "docs.ts",
      ],
      { cwd: h.work, env: h.env },
    );
  },
});
