/**
 * `npm run test:e2e`: the suites under the real Pulumi engine, one config after the other, with the same arguments
 * (`npm run test:e2e -- <path pattern>` filters both):
 * 1. test/e2e (jest.e2e.config.js): the examples and the engine's paths on the dynamic resources. Its global setup
 *    gets the CLI, building it from Go modules when needed; without one, every test is skipped and the last line
 *    says why.
 * 2. test/e2e-native (jest.native.config.js): the native provider plugin and the SDKs of every language. Run only
 *    when a CLI could be had, so a skipped run still ends with the line saying why.
 * Every process the run starts is marked with its id (the environment, test/helpers/run-processes.ts); each config's
 * global teardown fails if any plugin or host of the run is still running. The exit code is the first failure's. `--results-dir <dir>` (which `.ci/run` passes) has each config write jest's
 * JSON results there (`e2e.json`, `e2e-native.json`), for scripts/ci-count.mts to sum. Both configs build the package in their global setup; the second skips
 * its build when the first built it in this run (E2E_RUN_ID, and the mark test/e2e/global-setup.mts leaves in
 * dist/), which saves one build (about 40 s on two busy cores) per run.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { PROCESS_MARK } from "../test/helpers/run-processes.ts";
import { findPulumiCli } from "./lib.mts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const JEST = path.join(ROOT, "node_modules", "jest", "bin", "jest.js");

function jest(config: string, nodeFlags: string[], args: string[], results?: string): Promise<number> {
  const json = results ? ["--json", `--outputFile=${results}`] : [];
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [...nodeFlags, JEST, "-c", config, "--passWithNoTests", ...json, ...args],
      {
        cwd: ROOT,
        stdio: "inherit",
      },
    );
    child.once("error", () => resolve(1));
    child.once("close", (code) => resolve(code ?? 1));
  });
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const at = args.indexOf("--results-dir");
  const dir = at >= 0 ? args.splice(at, 2)[1] : undefined;
  if (at >= 0 && !dir) throw new Error("--results-dir needs a folder");
  const results = (name: string) => (dir ? path.resolve(dir, name) : undefined);
  process.env.E2E_RUN_ID = randomUUID();
  // Every process of the run carries the run's id, so that each config's global teardown can tell whether any
  // plugin or host the run started outlived it (test/helpers/run-processes.ts).
  process.env[PROCESS_MARK] = process.env.E2E_RUN_ID;
  const dynamic = await jest(
    "jest.e2e.config.js",
    ["--experimental-vm-modules", "--disable-warning=ExperimentalWarning"],
    args,
    results("e2e.json"),
  );
  if (!(await findPulumiCli({ build: false })).cli) return dynamic;
  const native = await jest("jest.native.config.js", [], args, results("e2e-native.json"));
  return dynamic !== 0 ? dynamic : native;
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    console.error(`test:e2e: ${err.message.split("\n")[0]}`);
    process.exit(1);
  },
);
