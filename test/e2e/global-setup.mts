/**
 * Before any real-engine test, dynamic or native (jest.e2e.config.js runs both in one jest run): the Pulumi CLI,
 * the YAML language host, the built package, and a fresh folder for this run's projects and states. The test files
 * learn them from the environment (run-env.ts), which jest hands on.
 *
 * The CLI is a `pulumi` on PATH, else the one built here from Go modules (scripts/pulumi-cli.mts), from its cache
 * or built now (minutes, once); the YAML host likewise (scripts/pulumi-yaml.mts). Without Go to build them, every
 * test is skipped, nothing is built, and the run's last line says why (global-teardown.mts); with Go, a build
 * that fails (a module that could not be had, named) fails the run before any test.
 */
import { mkdirSync, mkdtempSync } from "node:fs";
import * as path from "node:path";
import { INSTALL_HINT, REPO_ROOT, build, findPulumiCli } from "../../scripts/lib.mts";
import { findGo } from "../../scripts/go-build.mts";
import { ensureYamlHost } from "../../scripts/pulumi-yaml.mts";
import { CLI_ENV, SKIP_ENV, WORK_ROOT_ENV } from "./run-env.ts";

export default async function globalSetup(): Promise<void> {
  // The provider falls back to these; a run must see only what each stack sets. (The tests' own switches are
  // named E2E_*, such as E2E_RECORD_STATE, so that this leaves them.)
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
  // The YAML programs' host (the native suites' YAML flagship, the migration's generated program). It is found
  // where it is cached (test/e2e-native/native-support.ts findLanguageHost).
  if (findGo()) {
    const yaml = await ensureYamlHost();
    if (yaml.builtInSeconds !== undefined)
      console.log(`» YAML language host ${yaml.version} built in ${yaml.builtInSeconds} s`);
  } else {
    console.warn("» no Go toolchain: no YAML language host, and the suites that need it are skipped");
  }
  console.log("» building the package (npm run build)");
  await build();
  mkdirSync(path.join(REPO_ROOT, ".demo"), { recursive: true });
  process.env[WORK_ROOT_ENV] = mkdtempSync(path.join(REPO_ROOT, ".demo", "e2e-"));
  process.env[CLI_ENV] = JSON.stringify(found.cli);
}
