/**
 * `npm run --silent pulumi:path`: prints the absolute path of a working `pulumi` and exits 0, or prints one line
 * saying why there is none and exits 1.
 *
 * A `pulumi` on PATH that answers `pulumi version` comes first (npm's node_modules/.bin is passed over); else the
 * CLI built here from Go modules (pulumi-cli.mts), from its cache or built now: minutes on a cold machine.
 */
import { findPulumiCli } from "./lib.mts";

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
    console.error(`pulumi:path: ${found.reason}`);
    return 1;
  }
  console.log(found.cli.pulumi);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    console.error(`pulumi:path: ${err.message.split("\n")[0]}`);
    process.exit(1);
  },
);
