/**
 * `npm run demo` and `npm run test:e2e` around the Pulumi CLI: how the CLI is found (PATH, else the npm
 * launcher, in bounded time), what the scripts do when none can be had, and their answers to bad input. The
 * runs through the driver itself are in offline-demo.test.ts.
 *
 * "No CLI can be had" is made certain whatever the network: PATH holds only Node, PULUMI_HOME is empty (no
 * cached CLI), and the launcher's download goes through a proxy (NODE_USE_ENV_PROXY) that refuses or stalls.
 */
import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import * as http from "node:http";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";

const ROOT = path.resolve(__dirname, "../..");

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

/** An environment in which no Pulumi CLI can be had: `proxyPort` is where the launcher's download goes. */
function offlineEnv(proxyPort: number): NodeJS.ProcessEnv {
  const home = path.join(sandbox, "pulumi-home");
  mkdirSync(home, { recursive: true });
  return {
    ...process.env,
    PATH: path.dirname(process.execPath),
    PULUMI_HOME: home,
    NODE_USE_ENV_PROXY: "1",
    HTTPS_PROXY: `http://127.0.0.1:${proxyPort}`,
    // The demo's own calls to the emulator stay direct, as they do for a user behind a proxy.
    NO_PROXY: "127.0.0.1,localhost",
  };
}

/** A port on which nothing listens, so every connection is refused at once. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
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
async function findPulumiCli(env: NodeJS.ProcessEnv, timeoutMs: number) {
  const lib = JSON.stringify(path.join(ROOT, "scripts", "lib.mts"));
  const code = `const { findPulumiCli } = await import(${lib});
    const t0 = Date.now();
    const found = await findPulumiCli({ timeoutMs: ${timeoutMs} });
    console.log(JSON.stringify({ ...found, ms: Date.now() - t0 }));`;
  const out = await runNode(["--input-type=module", "-e", code], env);
  expect(out.stderr).toBe("");
  return JSON.parse(out.stdout) as {
    cli?: { argv: string[]; source: string; version: string };
    reason?: string;
    ms: number;
  };
}

describe("getting the Pulumi CLI", () => {
  it("offline, the launcher's failure is reported in one line, at once", async () => {
    const found = await findPulumiCli(offlineEnv(await closedPort()), 60_000);
    expect(found.cli).toBeUndefined();
    expect(found.reason).toMatch(
      /^no `pulumi` on PATH; the npm launcher `pulumi` [\d.]+ could not get the CLI/,
    );
    expect(found.reason).toContain("fetch failed");
    expect(found.reason).not.toContain("\n");
  });

  it("a download that never answers is given up after the time bound, with whatever it started", async () => {
    const stalled: net.Socket[] = [];
    let closed = 0;
    const proxy = net.createServer((socket) => {
      stalled.push(socket);
      socket.on("close", () => closed++).resume();
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    try {
      const found = await findPulumiCli(offlineEnv((proxy.address() as net.AddressInfo).port), 1500);
      expect(found.reason).toContain("gave no answer within 1.5 s");
      expect(found.ms).toBeLessThan(10_000);
      // The launcher did try (it reached the proxy) and was ended: its connection is closed.
      expect(stalled.length).toBeGreaterThan(0);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(closed).toBe(stalled.length);
    } finally {
      for (const s of stalled) s.destroy();
      proxy.close();
    }
  });

  it("a `pulumi` on PATH comes first, and npm's node_modules/.bin (the launcher) is not taken for one", async () => {
    const bin = path.join(sandbox, "bin");
    const npmBin = path.join(sandbox, "node_modules", ".bin");
    for (const [dir, version] of [
      [npmBin, "v0.0.0-npm-bin"],
      [bin, "v3.999.0-on-path"],
    ]) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, "pulumi"), `#!/bin/sh\necho ${version}\n`);
      chmodSync(path.join(dir, "pulumi"), 0o755);
    }
    const env = offlineEnv(await closedPort());
    env.PATH = [npmBin, bin, env.PATH].join(path.delimiter);
    const found = await findPulumiCli(env, 10_000);
    expect(found.cli).toEqual({
      argv: [path.join(bin, "pulumi")],
      source: "PATH",
      version: "v3.999.0-on-path",
    });
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
      const out = await runNode(
        [path.join(ROOT, "scripts", "demo.mts"), ...args],
        offlineEnv(await closedPort()),
      );
      expect(out.code).toBe(2);
      expect(out.stderr).toBe(`${message}\nusage: npm run demo [-- [up | destroy] [--keep] [--port N]]\n`);
      expect(out.stdout).toBe("");
    },
  );

  it("npm run demo explains the mode first, and names a port held by something else", async () => {
    const other = http.createServer((_req, res) => res.writeHead(404).end());
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    const port = (other.address() as net.AddressInfo).port;
    try {
      const out = await runNode(
        [path.join(ROOT, "scripts", "demo.mts"), "--port", String(port)],
        offlineEnv(await closedPort()),
      );
      expect(out.code).toBe(1);
      const lines = out.stdout.split("\n");
      expect(lines[0]).toMatch(/^The Pulumi CLI could not be had \(no `pulumi` on PATH; .*fetch failed\)\.$/);
      const explanation = lines.slice(0, lines.indexOf("")).join(" ");
      for (const said of [
        "the flagship's program",
        "real dynamic-provider host",
        "real provider code",
        "Pulumi's engine and state backend",
        "refresh, replacement",
        "curl -fsSL https://get.pulumi.com | sh",
      ])
        expect(explanation).toContain(said);
      expect(out.stderr).toContain(
        `npm run demo: port ${port} is in use by something that is not the emulator (HTTP 404 on GET /v2/orgs); ` +
          "free it, or choose another port with --port N",
      );
      // Reported before the build (npm test has built already), and nothing was started.
      expect(out.stdout).not.toContain("building");
      expect(out.stdout).not.toContain("starting the emulator");
    } finally {
      other.close();
    }
  });

  it("npm run test:e2e skips, saying why, and exits 0 having built nothing", async () => {
    const out = await runNode([path.join(ROOT, "scripts", "e2e.mts")], offlineEnv(await closedPort()));
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(
      /^test:e2e skipped: the Pulumi CLI could not be had \(no `pulumi` on PATH; .*\)/,
    );
    expect(out.stdout).toContain("fetch failed");
    expect(out.stdout).toContain("curl -fsSL https://get.pulumi.com | sh");
    expect(out.stdout).not.toContain("building");
  });
});
