/**
 * `npm run --silent pulumi:path`: prints the absolute path of a working `pulumi` (the executable) and exits 0, or
 * prints one line saying why there is none and exits 1. `npm run --silent pulumi:dir` (`--dir`) prints the folder
 * holding it instead, the one to put on PATH: `export PATH="$(npm run --silent pulumi:dir):$PATH"`.
 *
 * A `pulumi` on PATH that answers `pulumi version` comes first (npm's node_modules/.bin is passed over); else the
 * CLI built here from Go modules (pulumi-cli.mts), from its cache or built now: minutes on a cold machine.
 */
import * as path from "node:path";
import { findPulumiCli } from "./lib.mts";

/** The script's name as npm runs it, for its one-line errors. */
const DIR = process.argv.includes("--dir");
const NAME = DIR ? "pulumi:dir" : "pulumi:path";

async function main(): Promise<number> {
  const found = await findPulumiCli({
    build: true,
    onBuildStart: (version) => {
      // Only where someone watches: when the build fails, the one line saying why is all that is printed.
      if (process.stderr.isTTY)
        process.stderr.write(
          `building the Pulumi CLI ${version} from Go modules (minutes on a cold machine)…\n`,
        );
    },
  });
  if (!found.cli) {
    console.error(`${NAME}: ${found.reason}`);
    return 1;
  }
  console.log(DIR ? path.dirname(found.cli.pulumi) : found.cli.pulumi);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    console.error(`${NAME}: ${err.message.split("\n")[0]}`);
    process.exit(1);
  },
);
