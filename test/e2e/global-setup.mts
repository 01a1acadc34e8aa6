/**
 * Before any real-engine test: the Pulumi CLI, the built package, and a fresh folder for this run's projects and
 * states. The test files learn them from the environment (E2E_PULUMI_CLI, E2E_WORK_ROOT), which jest hands on.
 *
 * The CLI is a `pulumi` on PATH, else the one built here from Go modules (scripts/pulumi-cli.mts), from its cache
 * or built now (minutes, once). Without a CLI and without Go to build one, every test is skipped and the run's
 * last line says why (global-teardown.mts); with Go, a build that fails (a module that could not be had, named)
 * fails the run before any test.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { INSTALL_HINT, REPO_ROOT, build, findPulumiCli } from "../../scripts/lib.mts";
import { BUILT_FOR_RUN, CLI_ENV, SKIP_ENV, WORK_ROOT_ENV } from "./run-env.mts";

export default async function globalSetup(): Promise<void> {
  // The provider falls back to these; a run must see only what each stack sets.
  for (const key of Object.keys(process.env)) if (key.startsWith("OBSERVABILITY_")) delete process.env[key];
  const t0 = Date.now();
  const found = await findPulumiCli({
    build: true,
    onBuildStart: (version) =>
      console.log(`\n» building the Pulumi CLI ${version} from Go modules (minutes, once)`),
  });
  if (!found.cli) {
    if (found.fatal) throw new Error(`test:e2e failed: no Pulumi CLI: ${found.reason}`);
    process.env[SKIP_ENV] = found.reason;
    console.log(
      [
        "",
        "`npm test` still runs every example through the real dynamic-provider host against an emulator.",
        INSTALL_HINT,
      ].join("\n"),
    );
    return;
  }
  console.log(
    `\n» Pulumi CLI ${found.cli.version} (${found.cli.source}) in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
  );
  console.log("» building the package (tsc)");
  await build();
  // test/e2e-native's setup, next in this `npm run test:e2e` (scripts/test-e2e.mts), need not build it again.
  if (process.env.E2E_RUN_ID)
    writeFileSync(path.join(REPO_ROOT, "dist", BUILT_FOR_RUN), process.env.E2E_RUN_ID);
  mkdirSync(path.join(REPO_ROOT, ".demo"), { recursive: true });
  process.env[WORK_ROOT_ENV] = mkdtempSync(path.join(REPO_ROOT, ".demo", "e2e-"));
  process.env[CLI_ENV] = JSON.stringify(found.cli);
}
