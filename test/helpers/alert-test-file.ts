/** Alert-test files run in process, as the tests of `observability test alerts` run them. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { testAlerts } from "../../cli/commands/test-alerts";

/** Writes an alert-test file `name` holding `text` into `dir` and runs it in process, its lines collected. */
export async function runAlertTestFile(dir: string, name: string, text: string) {
  writeFileSync(join(dir, name), text);
  const out: string[] = [];
  const err: string[] = [];
  const result = await testAlerts([name], { cwd: dir, out: (l) => out.push(l), err: (l) => err.push(l) });
  return { ...result, out, err };
}
