/**
 * How global-setup.mts hands the run's facts to the test files, dynamic (ES modules) and native (ts-jest) alike:
 * environment variables, which the tests see because the run is in band, in the process that ran the setup. It
 * imports no module of the repository's, so both kinds of file load it.
 */
import type { PulumiCli } from "../../scripts/shared/engine.ts";

/** The CLI found or built, as JSON. */
export const CLI_ENV = "E2E_PULUMI_CLI";
/** The folder of this run's projects and states, removed at the end. */
export const WORK_ROOT_ENV = "E2E_WORK_ROOT";
/** Set, to the reason, when no CLI can be had and every test is skipped. */
export const SKIP_ENV = "E2E_SKIPPED";

/** The CLI of this run, or undefined when the run is skipped. */
export function cliOfRun(): PulumiCli | undefined {
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
