/**
 * How global-setup.mts hands the run's facts to the test files: environment variables, which jest passes on to
 * the tests it runs (in this process: the e2e config runs them in band).
 */
import type { PulumiCli } from "../../scripts/lib.mts";

/** The CLI found or built, as JSON. */
export const CLI_ENV = "E2E_PULUMI_CLI";
/** The folder of this run's projects and states, removed at the end. */
export const WORK_ROOT_ENV = "E2E_WORK_ROOT";
/** Set, to the reason, when no CLI can be had and every test is skipped. */
export const SKIP_ENV = "E2E_SKIPPED";
/**
 * The file in dist/ that holds the E2E_RUN_ID of the `npm run test:e2e` whose setup built the package: the
 * native suites' setup (test/e2e-native/global-setup.js) skips its build when it names the current run.
 */
export const BUILT_FOR_RUN = ".built-for-e2e-run";

/** The CLI of this run, or undefined when the run is skipped. */
export function runCli(): PulumiCli | undefined {
  const json = process.env[CLI_ENV];
  return json ? (JSON.parse(json) as PulumiCli) : undefined;
}

/** This run's folder; throws outside a run that has a CLI. */
export function workRoot(): string {
  const dir = process.env[WORK_ROOT_ENV];
  if (!dir)
    throw new Error(`${WORK_ROOT_ENV} is not set: run the real-engine tests with \`npm run test:e2e\``);
  return dir;
}
