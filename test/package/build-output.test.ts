/**
 * What `npm run build` leaves in dist/ (issue: the bin and the release after a build). `npm test` builds first
 * (pretest), so the checkout's own dist/ is a fresh build here; the two build steps are also run on scratch copies,
 * so their rules are checked whatever an earlier command did to dist/.
 */
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const ROOT = path.resolve(__dirname, "..", "..");
const PACKAGE = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
  version: string;
  bin: Record<string, string>;
};

const scratch: string[] = [];
function scratchDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "dist-steps-"));
  scratch.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

function runStep(script: string, arg: string): void {
  execFileSync(process.execPath, [path.join(ROOT, "scripts", script), arg], { stdio: "pipe" });
}

describe("the bin after npm run build", () => {
  test.each(Object.entries(PACKAGE.bin))(
    "%s (%s) is executable by everyone, as npm installs a bin",
    (_name, file) => {
      expect(statSync(path.join(ROOT, file)).mode & 0o777).toBe(0o755);
    },
  );

  test("run directly, as npx runs it in the checkout, it answers --version with package.json's version", () => {
    // An executable without its execute bits fails here with EACCES ("Permission denied"), before Node starts.
    // spawnSync's error refers to itself (`error.error`), which jest cannot report: a plain Error carries its message.
    let out: string;
    try {
      out = execFileSync(path.join(ROOT, PACKAGE.bin.observability), ["--version"], { encoding: "utf8" });
    } catch (err) {
      throw new Error(`running the bin failed: ${(err as Error).message}`);
    }
    expect(out.trim()).toBe(PACKAGE.version);
  });

  test("the last build step gives a bin written 0644 (tsc's mode) its execute bits", () => {
    const pkg = scratchDir();
    mkdirSync(path.join(pkg, "dist", "cli"), { recursive: true });
    const bin = path.join(pkg, "dist", "cli", "index.js");
    writeFileSync(bin, "#!/usr/bin/env node\n");
    chmodSync(bin, 0o644);
    writeFileSync(path.join(pkg, "package.json"), JSON.stringify({ bin: { tool: "dist/cli/index.js" } }));
    runStep("mark-bins-executable.mts", pkg);
    expect(statSync(bin).mode & 0o777).toBe(0o755);
  });
});

describe("the build's first step empties dist/ but for the release", () => {
  test("dist/release/ and its files stay; every other entry goes", () => {
    const dist = scratchDir();
    for (const dir of ["release", "cli", "provider/native", "plugin", "provider-tarball"])
      mkdirSync(path.join(dist, dir), { recursive: true });
    writeFileSync(path.join(dist, "release", "pulumi-observability-0.5.0.tgz"), "tarball");
    writeFileSync(path.join(dist, "cli", "index.js"), "stale");
    writeFileSync(path.join(dist, "stale.js"), "stale");
    runStep("clean-dist.mts", dist);
    expect(readdirSync(dist)).toEqual(["release"]);
    expect(readdirSync(path.join(dist, "release"))).toEqual(["pulumi-observability-0.5.0.tgz"]);
  });

  test("a dist/ that does not exist yet is no error", () => {
    const missing = path.join(scratchDir(), "dist");
    expect(() => runStep("clean-dist.mts", missing)).not.toThrow();
  });
});
