/**
 * The Pulumi CLI's pin in engine/pulumi-cli/go.mod: the module has no Go file, so a `require` alone is something
 * `go mod tidy` deletes (it keeps only what the module's packages and tools import). Go 1.24's `tool` directive
 * (https://go.dev/ref/mod#go-mod-file-tool) names the CLI's main package, which keeps its module required.
 * The CLI must also be no older than the Node.js SDK it drives: the two are released together from
 * pulumi/pulumi, and an engine older than its SDK may lack what the SDK asks of it.
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";

const ROOT = path.resolve(__dirname, "../..");
const goMod = readFileSync(path.join(ROOT, "engine", "pulumi-cli", "go.mod"), "utf8");

function semver(v: string): number[] {
  return v.replace(/^v/, "").split(".").map(Number);
}

function notOlder(a: number[], b: number[]): boolean {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] > b[i];
  return true;
}

describe("the Pulumi CLI's pin", () => {
  it("names the CLI's package with a tool directive, so `go mod tidy` keeps the pin", () => {
    expect(goMod).toMatch(/^tool github\.com\/pulumi\/pulumi\/pkg\/v3\/cmd\/pulumi$/m);
  });

  it("pins the CLI and the Go SDK at one version, no older than the @pulumi/pulumi in package-lock.json", () => {
    const cli = /^\s*github\.com\/pulumi\/pulumi\/pkg\/v3 (v3\.\d+\.\d+)/m.exec(goMod)?.[1];
    const sdk = /^\s*github\.com\/pulumi\/pulumi\/sdk\/v3 (v3\.\d+\.\d+)/m.exec(goMod)?.[1];
    expect(cli).toBeDefined();
    expect(sdk).toBe(cli);
    const lock = JSON.parse(readFileSync(path.join(ROOT, "package-lock.json"), "utf8")) as {
      packages: Record<string, { version: string }>;
    };
    const nodeSdk = lock.packages["node_modules/@pulumi/pulumi"].version;
    expect({ cli, nodeSdk, notOlder: notOlder(semver(cli!), semver(nodeSdk)) }).toEqual({
      cli,
      nodeSdk,
      notOlder: true,
    });
  });
});
