/**
 * `npm run demo` and `npm run test:e2e` where the Pulumi CLI is absent (as on this project's machines): the
 * demo must say what is missing and how to install it, and exit non-zero before starting anything; the e2e
 * run must skip, saying why, and exit 0.
 */
import { spawn } from "node:child_process";
import * as path from "node:path";

const ROOT = path.resolve(__dirname, "../..");

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a script on this Node with a PATH that holds only Node itself, so `pulumi` is surely absent. */
function runScript(script: string, args: string[] = []): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, "scripts", script), ...args], {
      cwd: ROOT,
      env: { ...process.env, PATH: path.dirname(process.execPath) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("without the pulumi CLI on PATH", () => {
  it.each([["up", []] as const, ["destroy", ["destroy"]] as const])(
    "npm run demo (%s) says the CLI is needed, how to install it, and exits non-zero having started nothing",
    async (_name, args) => {
      const out = await runScript("demo.mts", [...args]);
      expect(out.code).toBe(1);
      expect(out.stderr).toContain("needs the Pulumi CLI");
      expect(out.stderr).toContain("curl -fsSL https://get.pulumi.com | sh");
      expect(out.stderr).toContain("https://www.pulumi.com/docs/install/");
      expect(out.stderr).toContain("Nothing was started");
      // Every step of the demo (build, emulator, stack) announces itself on stdout; none may have run.
      expect(out.stdout).toBe("");
    },
  );

  it("npm run demo rejects an unknown action with its usage, before anything else", async () => {
    const out = await runScript("demo.mts", ["apply"]);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain("usage: npm run demo [-- up | destroy]");
    expect(out.stdout).toBe("");
  });

  it("npm run test:e2e skips, saying why, and exits 0", async () => {
    const out = await runScript("e2e.mts");
    expect(out.code).toBe(0);
    expect(out.stdout).toContain("test:e2e skipped: the Pulumi CLI (`pulumi`) is not on PATH");
    expect(out.stdout).toContain("curl -fsSL https://get.pulumi.com | sh");
    expect(out.stdout).not.toContain("building");
  });
});
