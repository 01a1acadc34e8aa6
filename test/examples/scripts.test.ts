/**
 * `npm run demo`, `npm run test:e2e` and `npm run pulumi:path` around the Pulumi CLI: how the CLI is found (PATH,
 * else the build from Go modules in its cache, else a new build), what the scripts say when none can be had, and
 * their answers to bad input. The runs themselves are test/e2e/ (`npm run test:e2e`).
 *
 * "No CLI can be had" is made certain whatever the machine: PATH holds only Node, the cache folder
 * (XDG_CACHE_HOME) is empty, and GO names no executable. A stand-in `go` that fails as a build does when a module
 * cannot be downloaded checks what a failed build reports, without the network.
 */
import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import * as http from "node:http";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";

const ROOT = path.resolve(__dirname, "../..");
/** `npm run test:e2e` as package.json runs it (jest with the real-engine config), without npm: Node's arguments. */
const E2E = (() => {
  const [node, ...args] = (
    JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }
  ).scripts["test:e2e"].split(" ");
  if (node !== "node") throw new Error(`npm run test:e2e starts with ${node}, not node`);
  return args;
})();
/** The version engine/pulumi-cli/go.mod pins, which the cache is keyed by. */
const PINNED = /github\.com\/pulumi\/pulumi\/pkg\/v3 (v3\.\d+\.\d+)/.exec(
  readFileSync(path.join(ROOT, "engine", "pulumi-cli", "go.mod"), "utf8"),
)![1];

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

let sandbox: string;
beforeAll(() => {
  sandbox = mkdtempSync(path.join(os.tmpdir(), "obs-scripts-"));
});
afterAll(() => rmSync(sandbox, { recursive: true, force: true }));

/** An environment in which no Pulumi CLI can be had: none on PATH, none cached, no Go. */
function noCliEnv(): NodeJS.ProcessEnv {
  const cache = mkdtempSync(path.join(sandbox, "cache-"));
  return {
    ...process.env,
    PATH: path.dirname(process.execPath),
    XDG_CACHE_HOME: cache,
    GO: path.join(sandbox, "no-go-here"),
  };
}

/** Writes an executable shell script `dir/name` and returns its path. */
function script(dir: string, name: string, body: string): string {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

/** A `go` that fails as `go build` does when the module proxy refuses a module. */
function failingGo(): string {
  return script(
    mkdtempSync(path.join(sandbox, "go-")),
    "go",
    [
      "echo 'go: downloading github.com/example/gone v1.2.3' >&2",
      "echo 'go: github.com/example/gone@v1.2.3: reading https://modules.test/github.com/example/gone/@v/v1.2.3.zip: 403 Forbidden' >&2",
      "exit 1",
    ].join("\n"),
  );
}

function runNode(args: string[], env: NodeJS.ProcessEnv): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Calls lib.mts's findPulumiCli in a Node process of its own (jest cannot load the .mts) and returns its answer. */
async function findPulumiCli(env: NodeJS.ProcessEnv, build = false) {
  const lib = JSON.stringify(path.join(ROOT, "scripts", "lib.mts"));
  const code = `const { findPulumiCli } = await import(${lib});
    console.log(JSON.stringify(await findPulumiCli({ build: ${build} })));`;
  const out = await runNode(["--input-type=module", "-e", code], env);
  expect(out.stderr).toBe("");
  return JSON.parse(out.stdout) as {
    cli?: { pulumi: string; binDir: string; source: string; version: string };
    reason?: string;
    fatal?: boolean;
  };
}

describe("getting the Pulumi CLI", () => {
  it("with no CLI and no Go, the reason is one line, and not a failure", async () => {
    const found = await findPulumiCli(noCliEnv(), true);
    expect(found.cli).toBeUndefined();
    expect(found.fatal).toBe(false);
    expect(found.reason).toMatch(
      new RegExp(`^no \`pulumi\` on PATH; no CLI ${PINNED} built here, and no Go toolchain \\(`),
    );
    expect(found.reason).not.toContain("\n");
  });

  it("a `pulumi` on PATH comes first, and npm's node_modules/.bin is not taken for one", async () => {
    const bin = path.join(sandbox, "bin");
    const npmBin = path.join(sandbox, "node_modules", ".bin");
    script(npmBin, "pulumi", "echo v0.0.0-npm-bin");
    script(bin, "pulumi", "echo v3.999.0-on-path");
    const env = noCliEnv();
    env.PATH = [npmBin, bin, env.PATH].join(path.delimiter);
    const found = await findPulumiCli(env);
    expect(found.cli).toEqual({
      pulumi: path.join(bin, "pulumi"),
      binDir: bin,
      source: "PATH",
      version: "v3.999.0-on-path",
    });
  });

  it("without one on PATH, the build in the cache is taken when it answers the pinned version, and only then", async () => {
    const env = noCliEnv();
    const binDir = path.join(env.XDG_CACHE_HOME!, "pulumi-observability", "pulumi-cli", PINNED, "bin");
    script(binDir, "pulumi", "echo v3.0.0-some-other");
    const stale = await findPulumiCli(env);
    expect(stale.cli).toBeUndefined();
    expect(stale.reason).toContain(`no CLI ${PINNED} built here`);

    script(binDir, "pulumi", `echo ${PINNED}`);
    const found = await findPulumiCli(env);
    expect(found.cli).toMatchObject({ pulumi: path.join(binDir, "pulumi"), binDir, version: PINNED });
    expect(found.cli!.source).toContain("built here from Go modules");
  });

  it("npm run pulumi:path prints the cached CLI's path", async () => {
    const env = noCliEnv();
    const binDir = path.join(env.XDG_CACHE_HOME!, "pulumi-observability", "pulumi-cli", PINNED, "bin");
    script(binDir, "pulumi", `echo ${PINNED}`);
    const out = await runNode([path.join(ROOT, "scripts", "pulumi-path.mts")], env);
    expect(out).toEqual({ code: 0, stdout: `${path.join(binDir, "pulumi")}\n`, stderr: "" });
  });

  it("npm run pulumi:dir prints the folder holding it, the one PATH takes", async () => {
    const env = noCliEnv();
    const binDir = path.join(env.XDG_CACHE_HOME!, "pulumi-observability", "pulumi-cli", PINNED, "bin");
    script(binDir, "pulumi", `echo ${PINNED}`);
    const out = await runNode([path.join(ROOT, "scripts", "pulumi-path.mts"), "--dir"], env);
    expect(out).toEqual({ code: 0, stdout: `${binDir}\n`, stderr: "" });
    const failed = await runNode([path.join(ROOT, "scripts", "pulumi-path.mts"), "--dir"], noCliEnv());
    expect(failed.stderr).toMatch(/^pulumi:dir: no `pulumi` on PATH; /);
  });

  it("npm run pulumi:path with no CLI and no Go exits 1 with one line", async () => {
    const out = await runNode([path.join(ROOT, "scripts", "pulumi-path.mts")], noCliEnv());
    expect(out.code).toBe(1);
    expect(out.stdout).toBe("");
    expect(out.stderr).toMatch(/^pulumi:path: no `pulumi` on PATH; .*no Go toolchain.*\n$/);
    expect(out.stderr.trim()).not.toContain("\n");
  });

  it("a build whose module cannot be had fails in one line naming the module, and is fatal", async () => {
    const env = { ...noCliEnv(), GO: failingGo() };
    const found = await findPulumiCli(env, true);
    expect(found.fatal).toBe(true);
    expect(found.reason).toContain(
      `building the Pulumi CLI ${PINNED}: module github.com/example/gone@v1.2.3 could not be had: 403 Forbidden`,
    );
    expect(found.reason).not.toContain("modules.test");
    const out = await runNode([path.join(ROOT, "scripts", "pulumi-path.mts")], env);
    expect(out.code).toBe(1);
    expect(out.stderr.trim().split("\n")).toHaveLength(1);
    expect(out.stderr).toContain("module github.com/example/gone@v1.2.3 could not be had");
  });
});

describe("npm run demo and npm run test:e2e without a CLI", () => {
  it.each([
    ["an unknown action", ["apply"], 'unknown action "apply"'],
    ["an unknown flag", ["--dry-run"], 'unknown flag "--dry-run"'],
    ["two actions", ["up", "destroy"], 'one action only, not "up" and "destroy"'],
    ["a bad port", ["--port", "http"], "--port needs a port number, not http"],
  ])(
    "npm run demo rejects %s with its usage and exit 2, before anything else",
    async (_what, args, message) => {
      const out = await runNode([path.join(ROOT, "scripts", "demo.mts"), ...args], noCliEnv());
      expect(out.code).toBe(2);
      expect(out.stderr).toBe(`${message}\nusage: npm run demo [-- [up | destroy] [--keep] [--port N]]\n`);
      expect(out.stdout).toBe("");
    },
  );

  it("npm run demo names a port held by something else before it gets the CLI or builds anything", async () => {
    const other = http.createServer((_req, res) => res.writeHead(404).end());
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    const port = (other.address() as net.AddressInfo).port;
    try {
      // A `go` that would fail loudly: the port is reported before any build is tried.
      const env = { ...noCliEnv(), GO: failingGo() };
      const out = await runNode([path.join(ROOT, "scripts", "demo.mts"), "--port", String(port)], env);
      expect(out.code).toBe(1);
      expect(out.stderr).toBe(
        `npm run demo: port ${port} is in use by something that is not the emulator (HTTP 404 on GET /v2/orgs); ` +
          "free it, or choose another port with --port N\n",
      );
      expect(out.stdout).toBe("");
    } finally {
      other.close();
    }
  });

  it("npm run demo without a CLI and without Go stops, saying why and how to get one, having started nothing", async () => {
    const out = await runNode([path.join(ROOT, "scripts", "demo.mts")], noCliEnv());
    expect(out.code).toBe(1);
    const [first, ...hint] = out.stderr.trim().split("\n");
    expect(first).toMatch(
      /^npm run demo needs the Pulumi CLI, and none could be had: no `pulumi` on PATH; .*no Go toolchain.*\.$/,
    );
    expect(hint.join(" ")).toContain("curl -fsSL https://get.pulumi.com | sh");
    expect(out.stdout).not.toContain("building");
    expect(out.stdout).not.toContain("starting the emulator");
  });

  it("npm run demo fails, naming the module, when Go cannot build the CLI, having said it would build", async () => {
    const out = await runNode([path.join(ROOT, "scripts", "demo.mts")], { ...noCliEnv(), GO: failingGo() });
    expect(out.code).toBe(1);
    expect(out.stdout).toContain(`building the Pulumi CLI ${PINNED} from Go modules`);
    expect(out.stdout).toContain("curl -fsSL https://get.pulumi.com | sh");
    expect(out.stderr).toContain("module github.com/example/gone@v1.2.3 could not be had");
    expect(out.stdout).not.toContain("building the package");
  });

  it("npm run test:e2e skips every test, saying why in its last line, and exits 0 having built nothing", async () => {
    const out = await runNode(E2E, noCliEnv());
    expect(out.code).toBe(0);
    expect(out.stdout).toContain("curl -fsSL https://get.pulumi.com | sh");
    expect(out.stdout.trim().split("\n").at(-1)).toMatch(
      /^test:e2e skipped: no Pulumi CLI can be had here, .*\(no `pulumi` on PATH; .*no Go toolchain.*\)\.$/,
    );
    expect(out.stdout).not.toContain("building");
    // jest's summary: every test of every file collected, none run.
    expect(out.stderr).toMatch(/Tests: +(\d+) skipped, \1 total/);
  });

  it("npm run test:e2e fails, naming the module, when Go cannot build the CLI", async () => {
    const out = await runNode(E2E, { ...noCliEnv(), GO: failingGo() });
    expect(out.code).toBe(1);
    expect(out.stderr).toContain("module github.com/example/gone@v1.2.3 could not be had");
    expect(out.stdout).not.toContain("building the package");
  });
});

describe("package.json's scripts", () => {
  const scripts = (
    JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }
  ).scripts;

  // npm runs each script with `sh -c` on POSIX (npm's @npmcli/run-script); `sh -n` parses without running.
  // test:languages once failed at once with `sh: 1: Syntax error: "(" unexpected`.
  it.each(Object.keys(scripts))("%s parses in a POSIX shell", async (name) => {
    const out = await new Promise<Outcome>((resolve) => {
      const child = spawn("sh", ["-n", "-c", scripts[name]], { stdio: ["ignore", "pipe", "pipe"] });
      let stderr = "";
      child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
      child.once("close", (code) => resolve({ code, stdout: "", stderr }));
    });
    expect(out).toEqual({ code: 0, stdout: "", stderr: "" });
  });

  it("each `<tool>:path` prints a file and each `<tool>:dir` a folder, as their names say", () => {
    const tools = Object.keys(scripts).filter((n) => /:(path|dir)$/.test(n));
    expect(tools.sort()).toEqual(["provider:dir", "pulumi:dir", "pulumi:path", "yaml:dir"]);
  });
});
