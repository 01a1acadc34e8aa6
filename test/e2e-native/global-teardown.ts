/** After test/e2e-native: no plugin or host the run started may still be running (test/helpers/run-processes.ts). */
import { checkNoneOutlive, PROCESS_MARK } from "../helpers/run-processes";

export default async function globalTeardown(): Promise<void> {
  await checkNoneOutlive(process.env[PROCESS_MARK], "test/e2e-native");
}
