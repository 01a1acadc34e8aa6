/** Runs the built `observability` bin (dist/cli/index.js) as a child process, as a pipeline would. */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = join(__dirname, "..", "..");
const node = join(root, "node_modules", ".bin", "node");
const bin = join(root, "dist", "cli", "index.js");

/** What a run left behind. */
export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Options of {@link runCli}. */
export interface CliOptions {
  /** Variables added to a clean environment (no OBSERVABILITY_* is inherited from the test's). */
  env?: Record<string, string>;
  /** Written to standard input (a pipe), which is then closed; without it the pipe is empty. `"none"` gives
   * the child /dev/null instead of a pipe. */
  stdin?: string | Buffer;
}

/** Runs `observability ...args` and waits for it to exit. */
export function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith("OBSERVABILITY_")) env[k] = v;
  }
  Object.assign(env, options.env);
  const none = options.stdin === "none";
  const child = spawn(node, [bin, ...args], {
    cwd: root,
    env,
    stdio: [none ? "ignore" : "pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  if (!none) {
    // The child may exit without reading standard input (a usage error); that is not the test's failure.
    child.stdin!.on("error", () => undefined);
    child.stdin!.end(options.stdin ?? "");
  }
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** The environment that points the bin at an emulator with its token. */
export function emulatorEnv(em: { url: string; token: string }): Record<string, string> {
  return { OBSERVABILITY_URL: em.url, OBSERVABILITY_TOKEN: em.token };
}

/** Asserts `stderr` is exactly one line, without a stack trace, and returns it. */
export function oneLine(stderr: string): string {
  const lines = stderr.trimEnd().split("\n");
  expect(lines).toHaveLength(1);
  expect(stderr).not.toMatch(/^\s+at /m);
  return lines[0];
}

/** A temporary folder for the file's inputs, removed after its tests. */
export function useTempDir(): { readonly path: string } {
  let dir: string | undefined;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "observability-cli-"));
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return {
    get path(): string {
      if (!dir) throw new Error("useTempDir: use it inside a test or hook");
      return dir;
    },
  };
}
