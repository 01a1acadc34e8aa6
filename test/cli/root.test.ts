/** The root `observability` command's own options, run from the build output as a user would. */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";

const root = join(__dirname, "..", "..");
const node = join(root, "node_modules", ".bin", "node");
const cli = join(root, "dist", "cli", "index.js");
const run = promisify(execFile);
const packageVersion = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string })
  .version;

it.each(["--version", "-V"])("%s prints package.json's version and exits 0", async (flag) => {
  const { stdout, stderr } = await run(node, [cli, flag]);
  expect(stdout.trim()).toBe(packageVersion);
  expect(stderr).toBe("");
});

it.each(["-h", "--help"])("%s prints the usage with the subcommands and exits 0", async (flag) => {
  const { stdout } = await run(node, [cli, flag]);
  expect(stdout).toMatch(/^Usage: observability \[options\] \[command\]/);
  expect(stdout).toContain("-V, --version");
  expect(stdout).toContain("emulator");
});

it("an unknown option still exits 2 with a usage hint", async () => {
  await expect(run(node, [cli, "--no-such-option"])).rejects.toMatchObject({
    code: 2,
    stderr: expect.stringContaining("unknown option"),
  });
});

it.each([
  ["query", "['logs']", "--token=xaat-secret-on-the-command-line"],
  ["ingest", "logs", "--token", "xaat-secret-on-the-command-line"],
  ["annotate", "--dataset", "logs", "--type", "deploy", "--token=xaat-secret-on-the-command-line"],
  ["migrate", "terraform", "terraform.tfstate", "--token", "xaat-secret-on-the-command-line"],
  ["backtest", "--preview", "preview.json", "--since", "7d", "--token=xaat-secret-on-the-command-line"],
])("a token given as a flag to %s is refused in one line that never echoes it (exit 2)", async (...args) => {
  const failure = await run(node, [cli, ...args]).then(
    () => undefined,
    (e: { code: number; stdout: string; stderr: string }) => e,
  );
  expect(failure).toMatchObject({ code: 2 });
  expect(failure!.stderr.trimEnd().split("\n")).toHaveLength(1);
  expect(failure!.stderr).toMatch(/--token is not accepted.*OBSERVABILITY_TOKEN.*--token-file/);
  expect(failure!.stdout + failure!.stderr).not.toContain("xaat-secret-on-the-command-line");
});

it("the --token refusal covers exactly the commands that take --token-file (every command that talks to the service)", () => {
  const { buildProgram } = require("../../cli/program") as typeof import("../../cli/program");
  const { SERVICE_COMMANDS } = require("../../cli/token-flag") as typeof import("../../cli/token-flag");
  // A command counts when it or one of its subcommands (`migrate terraform`) takes --token-file.
  type Cmd = ReturnType<typeof buildProgram>;
  const takes = (c: Cmd): boolean =>
    c.options.some((o) => o.long === "--token-file") || c.commands.some((s) => takes(s as Cmd));
  const withTokenFile = buildProgram()
    .commands.filter((c) => takes(c as Cmd))
    .map((c) => c.name())
    .sort();
  expect(withTokenFile).toEqual([...SERVICE_COMMANDS].sort());
});

it("a reader that closes the pipe early (`--help | head -1`) ends it quietly: exit 0, no EPIPE stack trace", async () => {
  // The shell's pipe, with its reader gone before the help is written: stdout is a pipe whose read end is closed.
  const { spawn } = await import("node:child_process");
  const child = spawn(node, [cli, "emulator", "--help"], { stdio: ["ignore", "pipe", "pipe"] });
  child.stdout.destroy();
  let stderr = "";
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
});
