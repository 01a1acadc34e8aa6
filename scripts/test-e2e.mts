/**
 * `npm run test:e2e`: every test under the real Pulumi engine, dynamic and native, in one jest run
 * (jest.e2e.config.js); its arguments go to jest (`npm run test:e2e -- <path pattern>` filters). Its global setup
 * gets the CLI, building it from Go modules when needed; without one, every test is skipped and the last line says
 * why (and the native files, which need it in their hooks, are left out).
 *
 * Every process the run starts is marked with its id (the environment, test/helpers/run-processes.ts), and the
 * global teardown fails if any plugin or host of the run is still running. `--results-dir <dir>` (which `.ci/run`
 * passes) has jest write its JSON results there as `e2e.json`, for scripts/ci-count.mts to sum.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { PROCESS_MARK } from "../test/helpers/run-processes.ts";
import { findGo } from "./go-build.mts";
import { findPulumiCli } from "./lib.mts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const JEST = path.join(ROOT, "node_modules", "jest", "bin", "jest.js");

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const at = args.indexOf("--results-dir");
  const dir = at >= 0 ? args.splice(at, 2)[1] : undefined;
  if (at >= 0 && !dir) throw new Error("--results-dir needs a folder");
  const json = dir ? ["--json", `--outputFile=${path.resolve(dir, "e2e.json")}`] : [];
  // With no CLI, and no Go to build one, the setup skips the run and its last line says why. The dynamic files skip
  // each test themselves; the native ones, whose hooks need the CLI or the build, are then not collected at all.
  const canHaveCli = Boolean((await findPulumiCli({ build: false })).cli) || findGo() !== undefined;
  const projects = canHaveCli ? [] : ["--selectProjects", "dynamic"];
  // Every process of the run carries the run's id, so that the global teardown can tell whether any plugin or host
  // the run started outlived it (test/helpers/run-processes.ts).
  const env = { ...process.env, [PROCESS_MARK]: randomUUID() };
  // The terminal is jest's own (its colours, its progress), so this is a spawn with stdio inherited, not
  // scripts/shared/commands.ts, which collects output.
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        // The dynamic files are ES modules (jest.e2e.config.js).
        "--experimental-vm-modules",
        "--disable-warning=ExperimentalWarning",
        JEST,
        "-c",
        "jest.e2e.config.js",
        "--passWithNoTests",
        ...projects,
        ...json,
        ...args,
      ],
      { cwd: ROOT, env, stdio: "inherit" },
    );
    child.once("error", () => resolve(1));
    child.once("close", (code) => resolve(code ?? 1));
  });
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    console.error(`test:e2e: ${err.message.split("\n")[0]}`);
    process.exit(1);
  },
);
