/**
 * `pulumi up` of the declared resources (declared.ts) as the package's dynamic resources: a TypeScript Automation
 * API inline program, run by Node's type stripping in a process of its own, so that the test
 * (test/e2e-native/recover.test.ts) can `kill -9` it, with the `pulumi` CLI it started, in the middle.
 * Arguments: the project folder (whose Pulumi.yaml and stack exist), the CLI's root (its `bin/pulumi`), the
 * stack, and `up:<parallel>`, or `preview` for a preview that fails on any change.
 */
import type * as Automation from "@pulumi/pulumi/automation";
import type * as Declared from "./declared";

const auto = require("@pulumi/pulumi/automation") as typeof Automation;
const { declared } = require("./declared.ts") as typeof Declared;
// Resolved as a program resolves it: the package installed beside it (here, the checkout, linked).
const obs = require("pulumi-observability") as Record<
  Declared.Kind,
  new (name: string, args: Record<string, unknown>) => unknown
>;

async function main(): Promise<void> {
  const [workDir, cliRoot, stackName, mode] = process.argv.slice(2);
  const program = async () => {
    for (const r of declared()) new obs[r.kind](r.name, r.inputs);
  };
  const pulumiCommand = await auto.PulumiCommand.get({ root: cliRoot, skipVersionCheck: true });
  const envVars = Object.fromEntries(
    Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined),
  );
  const stack = await auto.LocalWorkspace.selectStack(
    { stackName, projectName: "recover-dynamic", program },
    { workDir, pulumiCommand, envVars },
  );
  const onOutput = (s: string) => process.stdout.write(s);
  if (mode === "preview") await stack.preview({ expectNoChanges: true, onOutput });
  else await stack.up({ parallel: Number(mode.replace("up:", "")), onOutput });
}

main().then(
  () => process.exit(0),
  (e: Error) => {
    process.stderr.write(`${e.message}\n`);
    process.exit(1);
  },
);
