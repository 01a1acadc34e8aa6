/**
 * Before `npm test`: marks every process of the run with its id (test/helpers/run-processes.ts), so that the global
 * teardown can tell whether a dynamic-provider host or plugin a test started outlived it. The workers, and every
 * process they start, inherit the mark.
 */
import { randomUUID } from "node:crypto";
import { PROCESS_MARK } from "../helpers/run-processes";

export default async function globalSetup(): Promise<void> {
  process.env[PROCESS_MARK] ??= `npm-test-${randomUUID()}`;
}
