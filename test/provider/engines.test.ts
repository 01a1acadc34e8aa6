/** The runtime checks at import: Node.js and @pulumi/pulumi versions, and that they run before undici loads. */
import { execFile, execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import {
  NODE_NEEDED,
  PULUMI_NEEDED,
  compareVersions,
  nodeProblem,
  pulumiProblem,
} from "../../provider/engines";

const root = join(__dirname, "..", "..");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  engines: { node: string };
  peerDependencies: Record<string, string>;
};

describe("the versions stated in package.json", () => {
  it("the peer range starts at PULUMI_NEEDED", () => {
    expect(pkg.peerDependencies["@pulumi/pulumi"]).toBe(`^${PULUMI_NEEDED}`);
  });
  it("engines.node is NODE_NEEDED or later", () => {
    expect(pkg.engines.node).toBe(`>=${NODE_NEEDED}`);
  });
});

describe("nodeProblem", () => {
  it.each([
    ["20.19.0", true],
    ["v18.20.4", true],
    ["21.7.3", true],
    ["22.0.0", true],
    ["22.18.9", true],
    ["22.19.0", false],
    ["23.0.0", false],
    ["24.21.0", false],
  ])("Node.js %s refused: %s", (found, refused) => {
    const problem = nodeProblem(found, "/usr/bin/node");
    if (!refused) return expect(problem).toBeUndefined();
    expect(problem).toContain(`needs Node.js ${NODE_NEEDED} or later`);
    expect(problem).toContain(`this is Node.js ${found} (/usr/bin/node)`);
  });
});

describe("pulumiProblem and compareVersions", () => {
  it.each([
    ["3.215.0", true],
    ["3.139.0", true],
    ["2.25.2", true],
    [PULUMI_NEEDED, false],
    ["3.216.1", false],
    ["3.270.0", false],
  ])("@pulumi/pulumi %s refused: %s", (found, refused) => {
    const problem = pulumiProblem(found, "/p/node_modules/@pulumi/pulumi");
    if (!refused) return expect(problem).toBeUndefined();
    expect(problem).toContain(`needs @pulumi/pulumi ${PULUMI_NEEDED} or later`);
    expect(problem).toContain(`found ${found} at /p/node_modules/@pulumi/pulumi`);
  });

  it.each([
    ["3.216.0", "3.216.0", 0],
    ["3.216.0", "3.215.9", 1],
    ["3.99.0", "3.216.0", -1],
    ["3.216.0-alpha.1", "3.216.0", 0],
    ["4.0.0", "3.999.999", 1],
  ])("compareVersions(%s, %s) has the sign %d", (a, b, sign) => {
    expect(Math.sign(compareVersions(a, b))).toBe(sign);
  });
});

/**
 * The real thing on a real old Node: this machine's system Node is 20 (the npm scripts run on the `node`
 * devDependency, 24). Where no Node older than 22 is installed, there is nothing to run it on.
 */
const OLD_NODE = "/usr/bin/node";
const oldNodeVersion = (() => {
  try {
    return execFileSync(OLD_NODE, ["--version"], { encoding: "utf8" }).trim().replace(/^v/, "");
  } catch {
    return undefined;
  }
})();
const haveOldNode = oldNodeVersion !== undefined && compareVersions(oldNodeVersion, NODE_NEEDED) < 0;
if (!haveOldNode) console.log(`engines.test: no Node older than ${NODE_NEEDED} at ${OLD_NODE}; skipping`);

(haveOldNode ? describe : describe.skip)(`importing on Node ${oldNodeVersion} (${OLD_NODE})`, () => {
  const run = promisify(execFile);
  // Requires an entry point, then reports the error and whether undici was loaded before it was thrown.
  const probe = (entry: string) => `
    let message = "no error";
    try { require(${JSON.stringify(entry)}); } catch (e) { message = e.message; }
    const undici = Object.keys(require.cache).some((k) => k.includes("undici"));
    console.log(JSON.stringify({ message, undici }));`;

  it.each([
    ["the package root", join(root, "dist", "provider", "index.js")],
    ["the emulator", join(root, "dist", "emulator", "index.js")],
  ])("%s fails at once, naming both versions, before undici loads", async (_what, entry) => {
    const { stdout } = await run(OLD_NODE, ["-e", probe(entry)]);
    const { message, undici } = JSON.parse(stdout) as { message: string; undici: boolean };
    expect(message).toBe(
      `pulumi-observability needs Node.js ${NODE_NEEDED} or later, but this is Node.js ${oldNodeVersion} (${OLD_NODE}).`,
    );
    expect(undici).toBe(false);
  });

  it("the CLI exits 1 with the same message, in one line and without a stack trace", async () => {
    await expect(run(OLD_NODE, [join(root, "dist", "cli", "index.js"), "--version"])).rejects.toMatchObject({
      code: 1,
      stderr: `observability: pulumi-observability needs Node.js ${NODE_NEEDED} or later, but this is Node.js ${oldNodeVersion} (${OLD_NODE}).\n`,
    });
  });
});
