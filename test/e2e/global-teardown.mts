/**
 * After the real-engine tests, dynamic and native: this run's folder goes; no plugin or host the run started may
 * still be running (test/helpers/run-processes.ts); a skipped run says why in the last line of the output.
 */
import { rmSync } from "node:fs";
import { checkNoneOutlive, PROCESS_MARK } from "../helpers/run-processes.ts";
import { SKIP_ENV, WORK_ROOT_ENV } from "./run-env.ts";

export default async function globalTeardown(): Promise<void> {
  const workRoot = process.env[WORK_ROOT_ENV];
  if (workRoot) rmSync(workRoot, { recursive: true, force: true });
  await checkNoneOutlive(process.env[PROCESS_MARK], "the real-engine tests");
  const skipped = process.env[SKIP_ENV];
  if (skipped !== undefined) {
    console.log(
      `test:e2e skipped: no Pulumi CLI can be had here, so the examples cannot be deployed for real (${skipped}).`,
    );
  }
}
