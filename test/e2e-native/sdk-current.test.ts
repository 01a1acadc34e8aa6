/**
 * The committed SDKs (sdk/nodejs, sdk/python, sdk/go) are exactly what Pulumi's code generators give for the
 * native provider's schema: `npm run sdk:check` regenerates them into a temporary folder (engine/sdkgen, built
 * from Go modules and cached outside the repository) and compares, file by file.
 *
 * Without a Go toolchain the generator cannot be built: the tests are skipped, and the reason is printed.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync, appendFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const ROOT = path.resolve(__dirname, "../..");
const GO_FALLBACK = "/usr/local/go/bin/go";

/** A `go` as scripts/go-build.mts finds it: $GO, then PATH, then /usr/local/go. */
function goAvailable(): boolean {
  const candidates = process.env.GO
    ? [process.env.GO]
    : [...(process.env.PATH ?? "").split(path.delimiter).map((d) => path.join(d, "go")), GO_FALLBACK];
  return candidates.some((c) => spawnSync(c, ["version"], { stdio: "ignore" }).status === 0);
}

const HAS_GO = goAvailable();
if (!HAS_GO) console.warn("sdk-current: skipped: no Go toolchain to build the SDK generator (engine/sdkgen)");
const maybe = HAS_GO ? test : test.skip;

/** Runs scripts/sdkgen.mts on this Node with `args`. */
function sdkgen(args: string[]): { code: number | null; stderr: string } {
  const r = spawnSync(process.execPath, [path.join(ROOT, "scripts", "sdkgen.mts"), ...args], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, npm_execpath: process.env.npm_execpath },
  });
  return { code: r.status, stderr: r.stderr };
}

let sandbox: string;
let schemaFile: string;
beforeAll(() => {
  sandbox = mkdtempSync(path.join(os.tmpdir(), "obs-sdk-test-"));
  schemaFile = path.join(sandbox, "schema.json");
  if (!HAS_GO) return;
  // The schema as the plugin prints it (the package is built before the tests run).
  const printed = spawnSync(process.execPath, [path.join(ROOT, "scripts", "native-schema.mts")], {
    cwd: ROOT,
    encoding: "utf8",
  });
  if (printed.status !== 0) throw new Error(`printing the schema failed: ${printed.stderr}`);
  writeFileSync(schemaFile, printed.stdout);
});
afterAll(() => rmSync(sandbox, { recursive: true, force: true }));

describe("the committed SDKs", () => {
  // Building the generator with cold Go caches takes minutes on two cores; warm, a second.
  maybe(
    "rule: sdk/ is what the code generators give for the plugin's schema (npm run sdk:check passes)",
    () => {
      const r = sdkgen(["--check"]);
      expect(r.stderr).toContain("is what the schema gives");
      expect(r.code).toBe(0);
    },
    15 * 60_000,
  );

  maybe(
    "rule: a stale SDK fails the check, naming each file that differs, is missing or is extra",
    () => {
      const copy = path.join(sandbox, "stale");
      cpSync(path.join(ROOT, "sdk"), copy, { recursive: true });
      appendFileSync(path.join(copy, "go", "go.mod"), "// edited by hand\n");
      rmSync(path.join(copy, "nodejs", "index.ts"));
      writeFileSync(path.join(copy, "python", "pulumi_observability", "extra.py"), "x = 1\n");
      const r = sdkgen(["--check", "--schema", schemaFile, "--sdk", copy]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("sdk:check: stale; run `npm run sdk:gen` and commit:");
      expect(r.stderr).toContain("sdk/go/go.mod differs from what the schema gives");
      expect(r.stderr).toContain("sdk/nodejs/index.ts is missing");
      expect(r.stderr).toContain("sdk/python/pulumi_observability/extra.py is not generated from the schema");
    },
    15 * 60_000,
  );

  maybe(
    "rule: a schema whose language section disagrees with the repository's layout is refused, naming the field",
    () => {
      const schema = JSON.parse(readFileSync(schemaFile, "utf8")) as Record<string, unknown>;
      schema.language = { go: { importBasePath: "example.com/elsewhere/observability" } };
      const bad = path.join(sandbox, "bad-language.json");
      writeFileSync(bad, JSON.stringify(schema));
      const r = sdkgen(["--schema", bad, "--sdk", path.join(sandbox, "never-written")]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        'the schema\'s language.go.importBasePath is "example.com/elsewhere/observability"; the SDKs in this ' +
          'repository need "github.com/pulumi-observability/pulumi-observability/sdk/go/observability"',
      );
    },
    15 * 60_000,
  );

  maybe(
    "rule: a schema that is not valid is refused with the binder's reason",
    () => {
      const schema = JSON.parse(readFileSync(schemaFile, "utf8")) as {
        resources: Record<string, { properties: Record<string, unknown> }>;
      };
      schema.resources["observability:index:Dataset"].properties.name = {
        $ref: "#/types/observability:index:Nope",
      };
      const bad = path.join(sandbox, "bad-ref.json");
      writeFileSync(bad, JSON.stringify(schema));
      const r = sdkgen(["--schema", bad, "--sdk", path.join(sandbox, "never-written")]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(
        /sdk:gen: the schema is not valid: [^\n]*type observability:index:Nope not found in package observability/,
      );
    },
    15 * 60_000,
  );
});
