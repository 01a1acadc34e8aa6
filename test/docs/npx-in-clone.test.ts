/**
 * The pages' `npx -p pulumi-observability observability …` lines, run inside this repository's clone, where a
 * contributor runs them (test/e2e-native/docs-commands.test.ts runs the same lines outside a project, against the
 * release's tarball). In the clone the package is the project itself: npm finds `pulumi-observability` in the local
 * tree (its root), installs nothing and runs the command with the project's node_modules/.bin on PATH, where npm
 * never links a root's own bins, so the line failed with "observability: not found" (exit 127) until
 * scripts/link-own-bins.mts (run by `prepare` and by the build) linked them there.
 *
 * Needs the build's bin (dist/cli/index.js), as the pages say: `npm run build` first.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { exec } from "../../scripts/shared/commands";
import { docsCommands, npxCheck } from "../helpers/docs-commands";

const ROOT = path.resolve(__dirname, "..", "..");
const PACKAGE = require(path.join(ROOT, "package.json")) as { version: string; bin: Record<string, string> };
const LINES = docsCommands(ROOT).filter((c) => c.kind === "npx");

test("every npx line of the pages runs in the clone, as written, and npm runs this checkout's bin", async () => {
  expect(existsSync(path.join(ROOT, PACKAGE.bin.observability))).toBe(true); // else: npm run build first
  // One run per distinct check (the lines differ in arguments that become `--help`), each naming its lines.
  const byCheck = new Map<string, { sub?: string; bin: string[]; lines: string[] }>();
  for (const line of LINES) {
    const check = npxCheck(line.command);
    expect({ line: `${line.page}:${line.line}`, form: check !== undefined }).toEqual({
      line: `${line.page}:${line.line}`,
      form: true,
    });
    const key = check!.bin.join(" ");
    const entry = byCheck.get(key) ?? { ...check!, lines: [] };
    entry.lines.push(`${line.page}:${line.line}`);
    byCheck.set(key, entry);
  }
  expect(byCheck.size).toBeGreaterThanOrEqual(5);
  const outcomes = await Promise.all(
    [...byCheck.values()].map(async ({ sub, bin, lines }) => {
      const run = await exec("npx", ["-p", "pulumi-observability", ...bin], {
        cwd: ROOT,
        env: {
          ...process.env,
          // Offline: in the clone nothing is to be fetched; a run that tried would fail here, not reach the registry.
          npm_config_offline: "true",
          npm_config_audit: "false",
          npm_config_fund: "false",
          npm_config_update_notifier: "false",
        },
      });
      const answered = sub
        ? run.stdout.includes(`Usage: observability ${sub}`)
        : run.stdout.trim() === PACKAGE.version;
      return {
        lines,
        code: run.code,
        answered,
        stderr: run.code === 0 ? "" : run.stderr.trim().split("\n").slice(-3),
      };
    }),
  );
  expect(outcomes).toEqual(outcomes.map((o) => ({ ...o, code: 0, answered: true, stderr: "" })));
}, 60_000);

describe("scripts/link-own-bins.mts", () => {
  const scratch: string[] = [];
  afterAll(() => scratch.forEach((d) => rmSync(d, { recursive: true, force: true })));
  const pkg = () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "own-bins-"));
    scratch.push(dir);
    writeFileSync(
      path.join(dir, "package.json"),
      JSON.stringify({ bin: { tool: "dist/cli/index.js", other: "x.js" } }),
    );
    return dir;
  };
  const link = (dir: string) =>
    execFileSync(process.execPath, [path.join(ROOT, "scripts", "link-own-bins.mts"), dir], {
      encoding: "utf8",
      stdio: "pipe",
    });

  test("links each bin into the package's own node_modules/.bin, relative, and again without change", () => {
    const dir = pkg();
    link(dir);
    link(dir);
    expect(readlinkSync(path.join(dir, "node_modules", ".bin", "tool"))).toBe(
      path.join("..", "..", "dist", "cli", "index.js"),
    );
    expect(readlinkSync(path.join(dir, "node_modules", ".bin", "other"))).toBe(path.join("..", "..", "x.js"));
  });

  test("leaves a dependency's bin of the same name alone", () => {
    const dir = pkg();
    mkdirSync(path.join(dir, "node_modules", ".bin"), { recursive: true });
    writeFileSync(path.join(dir, "node_modules", ".bin", "tool"), "#!/bin/sh\n");
    link(dir);
    expect(() => readlinkSync(path.join(dir, "node_modules", ".bin", "tool"))).toThrow();
    expect(readlinkSync(path.join(dir, "node_modules", ".bin", "other"))).toBe(path.join("..", "..", "x.js"));
  });
});

test("the docs' list of the bin's commands is the program's own (a command missing from it is run as --version, so its line would check nothing)", () => {
  const { buildProgram } = require("../../cli/program") as typeof import("../../cli/program");
  const { BIN_COMMANDS } = require("../helpers/docs-commands") as typeof import("../helpers/docs-commands");
  expect([...BIN_COMMANDS].sort()).toEqual(
    buildProgram()
      .commands.map((c) => c.name())
      .sort(),
  );
});
