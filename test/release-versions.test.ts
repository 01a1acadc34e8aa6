/**
 * One version everywhere (issue 32, point 6): scripts/release-versions.mts holds package.json's version against the
 * plugin's GetPluginInfo answer (the built plugin, started and asked), the schema's, the Python distribution's, the
 * npm SDK's and the Go tag of CONTRIBUTING's release checklist. The checkout passes; a copy with one place tampered
 * fails, naming that place and only it; a copy whose package.json moves on fails naming every other place.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const ROOT = path.resolve(__dirname, "..");
const SCRIPT = path.join(ROOT, "scripts", "release-versions.mts");
const PLUGIN = path.join(ROOT, "dist", "plugin", "pulumi-resource-observability");
const VERSION = (JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string })
  .version;

/** The files the check reads, copied from the checkout. */
const PLACES = [
  "package.json",
  "CONTRIBUTING.md",
  "sdk/python/pyproject.toml",
  "sdk/python/pulumi_observability/pulumi-plugin.json",
  "sdk/nodejs/package.json",
  "sdk/go/go.mod",
  "dist/provider/native/schema.json",
];

function check(args: string[] = []): { code: number | null; said: string } {
  const r = spawnSync(process.execPath, [SCRIPT, ...args], { cwd: ROOT, encoding: "utf8" });
  return { code: r.status, said: r.stderr.trim() };
}

let copy: string;
beforeEach(() => {
  copy = mkdtempSync(path.join(os.tmpdir(), "obs-versions-"));
  for (const f of PLACES) {
    mkdirSync(path.dirname(path.join(copy, f)), { recursive: true });
    cpSync(path.join(ROOT, f), path.join(copy, f));
  }
});
afterEach(() => rmSync(copy, { recursive: true, force: true }));

/** Replaces `from` by `to` in the copy's `file`, which must hold it. */
function tamper(file: string, from: string | RegExp, to: string): void {
  const target = path.join(copy, file);
  const text = readFileSync(target, "utf8");
  const changed = text.replace(from, to);
  if (changed === text) throw new Error(`${file} does not hold ${String(from)}`);
  writeFileSync(target, changed);
}

test("rule: the checkout's versions agree, the plugin's answer included", () => {
  const r = check();
  expect(r.said).toBe(`release-versions: every place says ${VERSION}`);
  expect(r.code).toBe(0);
});

test("an untouched copy passes, so the failures below are the tampering's", () => {
  expect(check(["--root", copy, "--plugin", PLUGIN]).code).toBe(0);
});

test.each([
  [
    "sdk/python/pyproject.toml",
    /version = "[^"]+"/,
    'version = "0.0.9"',
    "the Python distribution's version (sdk/python/pyproject.toml)",
  ],
  [
    "sdk/nodejs/package.json",
    /"version": "[^"]+"/,
    '"version": "0.0.9"',
    "the npm SDK's version (sdk/nodejs/package.json)",
  ],
  [
    "dist/provider/native/schema.json",
    /"version": "[^"]+"/,
    '"version": "0.0.9"',
    "the schema's version (dist/provider/native/schema.json)",
  ],
  [
    "CONTRIBUTING.md",
    `sdk/go/v${VERSION}`,
    "sdk/go/v0.0.9",
    "the Go tag of CONTRIBUTING.md's release checklist",
  ],
])("a tampered %s fails, naming it and nothing else", (file, from, to, place) => {
  tamper(file, from, to);
  const r = check(["--root", copy, "--plugin", PLUGIN]);
  expect(r.code).toBe(1);
  expect(r.said).toBe(
    `release-versions: versions disagree with package.json's ${VERSION}: ${place} is "0.0.9"`,
  );
});

test("a package.json that moves on alone fails, naming every other place, the plugin's answer first", () => {
  tamper("package.json", `"version": "${VERSION}"`, '"version": "0.9.9"');
  const r = check(["--root", copy, "--plugin", PLUGIN]);
  expect(r.code).toBe(1);
  const places = r.said
    .replace(/^release-versions: versions disagree with package.json's 0\.9\.9: /, "")
    .split("; ");
  expect(places).toEqual([
    `the plugin's GetPluginInfo is "${VERSION}"`,
    `the schema's version (dist/provider/native/schema.json) is "${VERSION}"`,
    `the Python distribution's version (sdk/python/pyproject.toml) is "${VERSION}"`,
    `the Python SDK's plugin version (sdk/python/pulumi_observability/pulumi-plugin.json) is "${VERSION}"`,
    `the npm SDK's version (sdk/nodejs/package.json) is "${VERSION}"`,
    `the npm SDK's plugin version (sdk/nodejs/package.json pulumi.version) is "${VERSION}"`,
    `the Go tag of CONTRIBUTING.md's release checklist is "${VERSION}"`,
  ]);
});

test("a Go module path that is not the repository's is named", () => {
  tamper("sdk/go/go.mod", /^module \S+/m, "module github.com/someone-else/fork/sdk/go");
  const r = check(["--root", copy, "--plugin", PLUGIN]);
  expect(r.code).toBe(1);
  expect(r.said).toContain(
    "sdk/go/go.mod's module is github.com/someone-else/fork/sdk/go, not github.com/pulumi-observability/pulumi-observability/sdk/go (package.json's repository)",
  );
});
