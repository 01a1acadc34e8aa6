/** Headless Chromium for the tests (scripts/shared/chromium.ts), the project's installer found from here. */
import { join } from "node:path";
import { chromiumPath as pathFrom } from "../../scripts/shared/chromium.ts";

export { Browser } from "../../scripts/shared/chromium.ts";

/** The browser's path: the installed one, or the one scripts/install-chromium.sh installs. */
export function chromiumPath(): string {
  return pathFrom(join(__dirname, "..", ".."));
}
