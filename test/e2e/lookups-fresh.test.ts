/**
 * Lookups are fresh per deployment, under the real engine: one Automation API process runs `preview`, the object
 * looked up is changed elsewhere, then the same process runs `up`, and the update's program sees the change. The
 * program is an inline one, run by the CLI in this very process (pulumi/pulumi sdk/nodejs/automation/server.ts),
 * so the lookups module, and any listing it kept, lives from the preview to the update: exactly the case where a
 * listing kept for the process would answer the update with what the preview saw.
 *
 * The CLI is the one scripts/lib.mts finds (`findPulumiCli`: a `pulumi` on PATH, else the one built here from Go
 * modules). Without one the test is skipped, and its title says why.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import * as automation from "@pulumi/pulumi/automation";
import * as obs from "../../provider";
import { ObservabilityClient } from "../../provider/client";
import { resetLookups } from "../../provider/lookups";
import { useEmulator } from "../helpers/emulator";

const ROOT = path.resolve(__dirname, "..", "..");

interface FoundCli {
  cli?: { pulumi: string; binDir: string; version: string };
  reason?: string;
}

/**
 * What scripts/lib.mts's `findPulumiCli` finds, without building one. lib.mts is an ES module run by Node's type
 * stripping, which this CommonJS test cannot import, so a Node of the repository's own runs it.
 */
function findPulumiCli(): FoundCli {
  const lib = pathToFileURL(path.join(ROOT, "scripts", "lib.mts")).href;
  const script =
    `const { findPulumiCli } = await import(${JSON.stringify(lib)});\n` +
    "process.stdout.write(JSON.stringify(await findPulumiCli({ build: false })));";
  try {
    const out = execFileSync(
      path.join(ROOT, "node_modules", ".bin", "node"),
      ["--disable-warning=MODULE_TYPELESS_PACKAGE_JSON", "--input-type=module", "-e", script],
      { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
    );
    return JSON.parse(out) as FoundCli;
  } catch (err) {
    return { reason: `scripts/lib.mts could not look for one: ${(err as Error).message.split("\n")[0]}` };
  }
}

const found = findPulumiCli();
const withCli = found.cli ? describe : describe.skip;
const title = found.cli
  ? `under the Pulumi CLI ${found.cli.version}`
  : `skipped: no Pulumi CLI (${found.reason}); put one on PATH, or run \`npm run pulumi:path\``;

withCli(`lookups in one Automation API process, ${title}`, () => {
  const em = useEmulator({ record: true });
  let client: ObservabilityClient;
  let dir: string;
  let stack: automation.Stack;

  /** What each run of the program saw: the promise form's and the Output form's `aplQuery`. */
  const seen: { promise: string; output?: string }[] = [];
  const program = async () => {
    const byName = await obs.getMonitor({ name: "e2e-fresh" });
    const entry: { promise: string; output?: string } = { promise: String(byName.aplQuery) };
    seen.push(entry);
    const viaOutput = obs.getMonitorOutput({ name: "e2e-fresh" }).apply((m) => {
      entry.output = String(m.aplQuery);
      return m.aplQuery;
    });
    return { aplQuery: byName.aplQuery, viaOutput };
  };

  beforeAll(async () => {
    client = new ObservabilityClient({ url: em.current.url, token: em.current.token });
    dir = mkdtempSync(path.join(os.tmpdir(), "obs-e2e-lookups-"));
    const cli = found.cli!;
    // The Automation API runs `<root>/bin/pulumi`: a CLI in a folder not named bin is linked into one that is.
    let root = path.dirname(cli.binDir);
    if (path.basename(cli.binDir) !== "bin") {
      root = path.join(dir, "cli");
      mkdirSync(path.join(root, "bin"), { recursive: true });
      symlinkSync(cli.pulumi, path.join(root, "bin", "pulumi"));
    }
    const state = path.join(dir, "state");
    const home = path.join(dir, "home");
    mkdirSync(state);
    mkdirSync(home);
    const envVars = {
      PULUMI_BACKEND_URL: `file://${state}`,
      PULUMI_HOME: home,
      // Guards only the emulator's public development token in this throwaway stack.
      PULUMI_CONFIG_PASSPHRASE: "lookups-fresh-test",
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    };
    const pulumiCommand = await automation.PulumiCommand.get({ root, skipVersionCheck: true });
    const workDir = path.join(dir, "project");
    mkdirSync(workDir);
    stack = await automation.LocalWorkspace.createOrSelectStack(
      { stackName: "fresh", projectName: "lookups-fresh", program },
      { workDir, pulumiCommand, envVars, secretsProvider: "passphrase" },
    );
    await stack.setAllConfig({
      "observability:url": { value: em.current.url },
      "observability:token": { value: em.current.token, secret: true },
    });
  }, 120_000);

  afterAll(async () => {
    await stack?.workspace.removeStack("fresh").catch(() => undefined);
    await client?.close();
    await resetLookups();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("preview, a change made elsewhere, then up: the update's lookups see the change", async () => {
    const made = await client.monitors.create({ name: "e2e-fresh", aplQuery: "['v1']", type: "MatchEvent" });
    const listings = () =>
      em.current.received.filter((r) => r.method === "GET" && r.path === "/v2/monitors").length;
    const before = listings();

    await stack.preview();
    expect(seen).toEqual([{ promise: "['v1']", output: "['v1']" }]);

    await client.monitors.update(made.id, { name: "e2e-fresh", aplQuery: "['v2']", type: "MatchEvent" });

    const result = await stack.up();
    expect(seen).toHaveLength(2);
    expect(seen[1]).toEqual({ promise: "['v2']", output: "['v2']" });
    expect(result.outputs.aplQuery.value).toBe("['v2']");
    expect(result.outputs.viaOutput.value).toBe("['v2']");
    // One listing per run, shared by the run's two lookups by name: fresh per run, not per lookup.
    expect(listings() - before).toBe(2);
  }, 180_000);
});
