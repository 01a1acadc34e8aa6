/**
 * What the release's tests share (the plugin's here, the SDKs' and the four languages' on top): the release built
 * once per test run, dist/release/ served over HTTP as a plugin server is, a fresh PULUMI_HOME with no plugin
 * folder on PATH, the plugin installed from that server as `pulumi plugin install` fetches it, a launcher started
 * and its port read, the executable format of a file read from its header, and the Go proxy's environment for
 * the release's module. Commands run through flagship.ts's exec/mustExec, the runner of every e2e-native file.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from "node:child_process";
import {
  chmodSync,
  createReadStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
} from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { exec, findOnPath, mustExec, type Outcome } from "../../scripts/shared/commands";

export const ROOT = path.resolve(__dirname, "..", "..");
export const RELEASE_DIR = path.join(ROOT, "dist", "release");
export const VERSION = (
  JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string }
).version;
export const PLUGIN_NAME = "pulumi-resource-observability";
/** The platforms a release serves, and the executable format each one's runtime must have. */
export const PLATFORM_FORMATS = {
  "linux-amd64": "ELF x86-64",
  "linux-arm64": "ELF aarch64",
  "darwin-amd64": "Mach-O x86_64",
  "darwin-arm64": "Mach-O arm64",
  "windows-amd64": "PE x64",
} as const;
export type Platform = keyof typeof PLATFORM_FORMATS;

/** A platform's plugin tarball in dist/release. */
export function pluginTarball(platform: Platform, version = VERSION): string {
  return path.join(RELEASE_DIR, `${PLUGIN_NAME}-v${version}-${platform}.tar.gz`);
}

/** The checksums file of dist/release. */
export function checksumsFile(version = VERSION): string {
  return path.join(RELEASE_DIR, `pulumi-observability_${version}_checksums.txt`);
}

/** Runs scripts/release.mts with `args` and extra `env`, on the Node running the tests. */
export function runRelease(args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<Outcome> {
  return exec(process.execPath, [path.join(ROOT, "scripts", "release.mts"), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
  });
}

/**
 * Whether dist/release was written after the build it packs and the scripts that pack it: then the test files of
 * one run share it (the global setup builds the package afresh at every run, so an older release is rebuilt).
 */
function releaseIsCurrent(): boolean {
  if (!existsSync(checksumsFile())) return false;
  const written = statSync(checksumsFile()).mtimeMs;
  const inputs = [
    path.join(ROOT, "dist", "provider", "native", "schema.json"),
    path.join(ROOT, "dist", "provider", "native", "main.js"),
    ...readdirSync(path.join(ROOT, "scripts"))
      .filter((f) => f.startsWith("release"))
      .map((f) => path.join(ROOT, "scripts", f)),
  ];
  return inputs.every((f) => existsSync(f) && statSync(f).mtimeMs < written);
}

let built: Promise<void> | undefined;
/**
 * dist/release, built (`npm run release -- --skip-build`: the global setup has just built the package) unless it is
 * current; throws with the release's own line when it fails. Minutes: five platforms' runtimes are packed, and
 * downloaded first on a machine whose cache lacks them.
 */
export function ensureRelease(): Promise<void> {
  built ??= releaseIsCurrent()
    ? Promise.resolve()
    : runRelease(["--skip-build"]).then((r) => {
        if (r.code !== 0) throw new Error(`npm run release failed: ${r.stderr.trim().split("\n").at(-1)}`);
      });
  return built;
}

/** A running HTTP server of a folder's files. */
export interface ReleaseServer {
  /** `http://127.0.0.1:<port>/`, what `--server` takes. */
  url: string;
  /** The paths asked for, in order, for assertions on what the engine fetched. */
  requests: string[];
  close(): Promise<void>;
}

/**
 * Serves the files of `dir` (dist/release by default) on 127.0.0.1, as a GitHub release or any plugin server
 * serves its assets: GET of `/<file>` answers the file, anything else 404.
 */
export function serveRelease(dir = RELEASE_DIR): Promise<ReleaseServer> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    const name = decodeURIComponent((req.url ?? "/").split("?")[0].slice(1));
    requests.push(`/${name}`);
    const file = path.join(dir, name);
    if (req.method !== "GET" || name.includes("/") || name === "" || !existsSync(file)) {
      res.writeHead(404).end("not found\n");
      return;
    }
    res.writeHead(200, {
      "content-type": "application/octet-stream",
      "content-length": String(statSync(file).size),
    });
    createReadStream(file).pipe(res);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}/`,
        requests,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
  });
}

/**
 * The environment of a CLI with a fresh PULUMI_HOME and a file backend, whose PATH holds the CLI's folder, the
 * system's and `extraPath` only: no plugin folder of this checkout (dist/plugin), so the engine can only run the
 * plugin it installed. No OBSERVABILITY_* variable of the caller leaks in.
 */
export function freshPulumiEnv(
  pulumi: string,
  extraPath: string[] = [],
): { home: string; env: NodeJS.ProcessEnv } {
  const root = mkdtempSync(path.join(os.tmpdir(), "release-e2e-"));
  const home = path.join(root, "pulumi-home");
  const state = path.join(root, "state");
  mkdirSync(home, { recursive: true });
  mkdirSync(state, { recursive: true });
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith("OBSERVABILITY_") && !k.startsWith("PULUMI_")) env[k] = v;
  }
  return {
    home,
    env: {
      ...env,
      HOME: root,
      PULUMI_HOME: home,
      PULUMI_BACKEND_URL: `file://${state}`,
      PULUMI_CONFIG_PASSPHRASE: "pulumi-observability-local",
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      PATH: [path.dirname(pulumi), ...extraPath, "/usr/bin", "/bin"].join(path.delimiter),
    },
  };
}

/** Runs `pulumi` with `args` (in the temporary folder by default); resolves to stdout, rejects with its tail. */
export function pulumiRun(
  pulumi: string,
  args: string[],
  options: { env: NodeJS.ProcessEnv; cwd?: string; input?: string },
): Promise<string> {
  return mustExec(pulumi, args, { cwd: options.cwd ?? os.tmpdir(), env: options.env, input: options.input });
}

/**
 * `pulumi plugin install resource observability v<version> --server <url>` into the PULUMI_HOME of `env`;
 * resolves to the folder the plugin was installed in (`$PULUMI_HOME/plugins/resource-observability-v<version>`).
 */
export async function installPlugin(
  pulumi: string,
  env: NodeJS.ProcessEnv,
  serverUrl: string,
  version = VERSION,
): Promise<string> {
  await pulumiRun(
    pulumi,
    ["plugin", "install", "resource", "observability", `v${version}`, "--server", serverUrl],
    {
      env,
    },
  );
  const dir = path.join(env.PULUMI_HOME!, "plugins", `resource-observability-v${version}`);
  if (!existsSync(dir))
    throw new Error(
      `pulumi plugin install succeeded, but ${dir} does not exist: ${readdirSync(path.dirname(dir))}`,
    );
  return dir;
}

/** One plugin as `pulumi plugin ls --json` lists it. */
export interface ListedPlugin {
  name: string;
  kind: string;
  version: string;
  size: number;
}

export async function listPlugins(pulumi: string, env: NodeJS.ProcessEnv): Promise<ListedPlugin[]> {
  return JSON.parse(await pulumiRun(pulumi, ["plugin", "ls", "--json"], { env })) as ListedPlugin[];
}

/** A launcher started as the engine starts it, and the port on the first line of its stdout. */
export interface StartedPlugin {
  port: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts `launcher` with `env` (by default only PATH=/usr/bin:/bin, as under `env -i`) and resolves once it has
 * printed its port; rejects with its stderr when it exits first.
 */
export function startPlugin(
  launcher: string,
  env: NodeJS.ProcessEnv = { PATH: "/usr/bin:/bin" },
): Promise<StartedPlugin> {
  return new Promise((resolve, reject) => {
    const child = spawn(launcher, [], { env, cwd: os.tmpdir(), stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stderr.setEncoding("utf8").on("data", (c: string) => (err += c));
    child.stdout.setEncoding("utf8").on("data", (c: string) => {
      out += c;
      const line = /^(\d+)\n/.exec(out);
      if (line)
        resolve({
          port: Number(line[1]),
          child,
          stop: () =>
            new Promise<void>((done) => {
              if (child.exitCode !== null) return done();
              child.once("exit", () => done());
              child.kill();
            }),
        });
      else if (out.includes("\n")) reject(new Error(`the first line is not a port: ${JSON.stringify(out)}`));
    });
    child.once("error", reject);
    child.once("exit", (code) =>
      reject(new Error(`${launcher} exited ${code} before its port: ${err.trim()}`)),
    );
  });
}

/**
 * The executable format of `header` (a file's first bytes), read here independently of the release script's own
 * check (scripts/release-plugin.mts), from the layouts the loaders read: ELF's e_machine (offset 18), Mach-O's
 * 64-bit magic and cputype, PE's signature at e_lfanew and its Machine field.
 */
export function formatOfHeader(header: Buffer): string {
  if (header.subarray(0, 4).equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]))) {
    const machine = header.readUInt16LE(18);
    return machine === 0x3e
      ? "ELF x86-64"
      : machine === 0xb7
        ? "ELF aarch64"
        : `ELF 0x${machine.toString(16)}`;
  }
  if (header.subarray(0, 4).equals(Buffer.from([0xcf, 0xfa, 0xed, 0xfe]))) {
    const cpu = header.readUInt32LE(4);
    return cpu === 0x01000007
      ? "Mach-O x86_64"
      : cpu === 0x0100000c
        ? "Mach-O arm64"
        : `Mach-O 0x${cpu.toString(16)}`;
  }
  if (header.subarray(0, 2).toString("latin1") === "MZ") {
    const pe = header.readUInt32LE(0x3c);
    if (header.subarray(pe, pe + 4).toString("latin1") !== "PE\0\0") return "MZ";
    const machine = header.readUInt16LE(pe + 4);
    return machine === 0x8664 ? "PE x64" : `PE 0x${machine.toString(16)}`;
  }
  return "unknown";
}

/** The first `bytes` of one member of a .tar.gz, read without extracting the rest. */
export function memberHeader(tarball: string, member: string, bytes = 4096): Buffer {
  // `tar -O` writes the member to stdout; `head -c` ends the pipe early, so a 100 MB runtime is not all read.
  return execFileSync("sh", ["-c", `tar -xzOf "$0" "$1" | head -c ${bytes}`, tarball, member], {
    maxBuffer: bytes + 1024,
  });
}

/** The members of a .tar.gz as `tar -tvz` lists them: name, mode string, size. */
export function tarballEntries(tarball: string): { name: string; mode: string; size: number }[] {
  return execFileSync("tar", ["-tvzf", tarball], { encoding: "utf8" })
    .trim()
    .split("\n")
    .map((line) => {
      const fields = line.trim().split(/\s+/);
      return { mode: fields[0], size: Number(fields[2]), name: fields.slice(5).join(" ") };
    });
}

/** The Go SDK's module, as the release's file-tree proxy (dist/release/goproxy) serves it. */
export const GO_MODULE = "github.com/pulumi-observability/pulumi-observability/sdk/go";
/** `go` by its path (the engine's environment has no Go folder on PATH): $GO, else on PATH, else /usr/local/go. */
export const GO = process.env.GO ?? findOnPath("go") ?? "/usr/local/go/bin/go";
export const PYTHON = process.env.PYTHON ?? "python3";
/** Why Go or Python with venv cannot be had here, each named; empty when both can. */
export function missingToolchains(): string[] {
  return [
    spawnSync(GO, ["version"], { stdio: "ignore" }).status === 0 ? undefined : `no Go toolchain (${GO})`,
    spawnSync(PYTHON, ["-c", "import venv"], { stdio: "ignore" }).status === 0
      ? undefined
      : `no Python (${PYTHON})`,
  ].filter((m) => m !== undefined);
}

/** `env` for the go command to take the SDK from the release's proxy, and everything else from the public one. */
export function releaseGoEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    ...env,
    GOTOOLCHAIN: "local",
    GOFLAGS: "-mod=mod",
    GOPROXY: `file://${path.join(RELEASE_DIR, "goproxy")},https://proxy.golang.org`,
    // The checksum database has never seen this version: the go command takes the proxy's zip on trust.
    GONOSUMDB: GO_MODULE,
  };
}

/** The Go module cache's copies of the SDK, removed so `go get` fetches this release's, not an earlier one. */
export async function forgetCachedGoSdk(env: NodeJS.ProcessEnv): Promise<void> {
  const modcache = (await mustExec(GO, ["env", "GOMODCACHE"], { env })).trim();
  const owner = GO_MODULE.split("/").slice(0, 2).join("/");
  for (const dir of [path.join(modcache, owner), path.join(modcache, "cache", "download", owner)]) {
    if (!existsSync(dir)) continue;
    const writable = (d: string) => {
      chmodSync(d, 0o755);
      for (const e of readdirSync(d, { withFileTypes: true }))
        if (e.isDirectory()) writable(path.join(d, e.name));
    };
    writable(dir);
    rmSync(dir, { recursive: true, force: true });
  }
}
