/**
 * The package itself as a release serves it: `pulumi-observability-<version>.tgz` in dist/release/, listed in the
 * checksums file, installed from the served release into a fresh folder as a user installs it (`npm install
 * <url>` beside the peer @pulumi/pulumi), then the installed `observability` command (`--version`, the emulator,
 * an ingest and a query through it), and a program of dynamic resources on the installed package under the real
 * engine (the Automation API of the folder's own @pulumi/pulumi, whose dynamic-provider host loads the installed
 * package's shims).
 *
 * The install needs the npm registry, or a warm npm cache (`--prefer-offline`), for the package's dependencies.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { exec, mustExec } from "../../scripts/shared/commands";
import { NODE, toolPath } from "./flagship";
import {
  RELEASE_DIR,
  VERSION,
  checksumsFile,
  ensureRelease,
  serveRelease,
  type ReleaseServer,
} from "./release-support";

const ROOT = path.resolve(__dirname, "..", "..");
const TARBALL = `pulumi-observability-${VERSION}.tgz`;
const PULUMI_VERSION = (
  JSON.parse(readFileSync(path.join(ROOT, "node_modules", "@pulumi", "pulumi", "package.json"), "utf8")) as {
    version: string;
  }
).version;
const cli = toolPath("pulumi-path.mts");

let server: ReleaseServer;
let work: string;
/** The fresh folder's environment: this Node and its npm first on PATH, no OBSERVABILITY_* of the caller. */
let env: NodeJS.ProcessEnv;
const started: ChildProcess[] = [];

beforeAll(async () => {
  await ensureRelease();
  server = await serveRelease();
  work = mkdtempSync(path.join(os.tmpdir(), "release-package-"));
  env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("OBSERVABILITY_")));
  env.PATH = [path.dirname(NODE), env.PATH ?? ""].join(path.delimiter);
}, 20 * 60_000);

afterAll(async () => {
  for (const child of started)
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
  await server?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

test("the package's tarball is in dist/release and its checksum is listed", () => {
  const listed = readFileSync(checksumsFile(), "utf8")
    .trim()
    .split("\n")
    .map((line) => line.split(/\s+/))
    .find(([, file]) => file === TARBALL);
  const actual = createHash("sha256")
    .update(readFileSync(path.join(RELEASE_DIR, TARBALL)))
    .digest("hex");
  expect(listed).toEqual([actual, TARBALL]);
});

test(
  "npm installs it from the served release into a fresh folder, and `observability --version` says the release",
  async () => {
    writeFileSync(
      path.join(work, "package.json"),
      JSON.stringify({ name: "release-package-user", version: "1.0.0", private: true }),
    );
    await mustExec(
      "npm",
      [
        "install",
        "--prefer-offline",
        "--no-audit",
        "--no-fund",
        `${server.url}${TARBALL}`,
        `@pulumi/pulumi@${PULUMI_VERSION}`,
      ],
      { cwd: work, env },
    );
    expect(server.requests).toContain(`/${TARBALL}`);
    const installed = JSON.parse(
      readFileSync(path.join(work, "node_modules", "pulumi-observability", "package.json"), "utf8"),
    ) as { version: string };
    expect(installed.version).toBe(VERSION);
    const version = await mustExec(path.join(work, "node_modules", ".bin", "observability"), ["--version"], {
      cwd: work,
      env,
    });
    expect(version.trim()).toBe(VERSION);
  },
  10 * 60_000,
);

describe("the installed emulator", () => {
  let url: string;

  beforeAll(async () => {
    const child = spawn(
      path.join(work, "node_modules", ".bin", "observability"),
      ["emulator", "--port", "0", "--dataset", "logs"],
      {
        cwd: work,
        env,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    started.push(child);
    url = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout!.setEncoding("utf8").on("data", (c: string) => {
        out += c;
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m) resolve(m[1]);
      });
      child.once("exit", (code) => reject(new Error(`the emulator exited ${code} before listening: ${out}`)));
    });
  }, 60_000);

  test("serves the API: the installed command ingests into it and queries it back", async () => {
    const obsEnv = { ...env, OBSERVABILITY_URL: url, OBSERVABILITY_TOKEN: "xaat-local-development-token" };
    const bin = path.join(work, "node_modules", ".bin", "observability");
    const events = path.join(work, "events.ndjson");
    writeFileSync(events, '{"status":500,"path":"/checkout"}\n{"status":200,"path":"/"}\n');
    const ingested = await mustExec(bin, ["ingest", "logs", events], { cwd: work, env: obsEnv });
    expect(ingested).toMatch(/^ingested 2 events into logs, 0 failed/);
    const answer = await exec(
      bin,
      ["query", "['logs'] | where status >= 500 | project path, status", "--format", "ndjson"],
      { cwd: work, env: obsEnv },
    );
    expect({ code: answer.code, stderr: answer.stderr }).toEqual({ code: 0, stderr: "" });
    const rows = answer.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(rows).toEqual([expect.objectContaining({ path: "/checkout", status: 500 })]);
  });

  (cli.path ? test : test.skip)(
    "a program of dynamic resources on the installed package: up creates, destroy removes (the real engine)",
    async () => {
      // The folder's own @pulumi/pulumi runs the program inline; its dynamic-provider host (beside the CLI) loads
      // each resource's shim, which requires the installed pulumi-observability from this folder.
      writeFileSync(
        path.join(work, "program.mjs"),
        `import { LocalWorkspace } from "@pulumi/pulumi/automation/index.js";
import * as obs from "pulumi-observability";
const program = async () => {
  const logs = new obs.Dataset("logs", { name: "released-logs", description: "from the released package" });
  return { name: logs.name };
};
const stack = await LocalWorkspace.createOrSelectStack(
  { stackName: "dev", projectName: "release-package", program },
  { workDir: process.cwd(), envVars: process.env },
);
const up = await stack.up();
const destroyed = await stack.destroy();
process.stdout.write(JSON.stringify({ up: up.summary.resourceChanges, name: up.outputs.name.value,
  destroy: destroyed.summary.resourceChanges }));
`,
      );
      writeFileSync(path.join(work, "Pulumi.yaml"), "name: release-package\nruntime: nodejs\n");
      const state = mkdtempSync(path.join(os.tmpdir(), "release-package-state-"));
      try {
        const out = await mustExec(NODE, ["program.mjs"], {
          cwd: work,
          env: {
            ...env,
            OBSERVABILITY_URL: url,
            OBSERVABILITY_TOKEN: "xaat-local-development-token",
            OBSERVABILITY_ORG_ID: "local-org",
            PULUMI_BACKEND_URL: `file://${state}`,
            PULUMI_HOME: path.join(state, ".pulumi-home"),
            PULUMI_CONFIG_PASSPHRASE: "pulumi-observability-local",
            PULUMI_SKIP_UPDATE_CHECK: "true",
            PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
            PATH: [path.dirname(cli.path!), env.PATH].join(path.delimiter),
          },
        });
        const result = JSON.parse(out) as Record<string, unknown>;
        expect(result).toEqual({
          up: { create: 2 },
          name: "released-logs",
          destroy: { delete: 2 },
        });
      } finally {
        rmSync(state, { recursive: true, force: true });
      }
    },
    10 * 60_000,
  );
});
