/**
 * Go: examples/go-flagship, the project a user runs with `pulumi up` (Pulumi.yaml, main.go calling `pulumi.Run`,
 * go.mod), its program function run as an Automation API inline program (drivers/inline_test.go, added to its
 * package at build time) on the generated Go SDK, the SDK's module required as `go get` would and replaced by
 * this checkout's sdk/go. Built before each operation, as `pulumi up` builds it.
 */
import { copyFileSync } from "node:fs";
import * as path from "node:path";
import { mustExec } from "../../scripts/shared/commands";
import { describeFlagship, inlineOperation, ROOT } from "./flagship";
import { spawnSync } from "node:child_process";

const GO_MODULE = "github.com/pulumi-observability/pulumi-observability/sdk/go";
/** `go`: $GO, else on PATH, else /usr/local/go, as scripts/go-build.mts finds it. */
const GO =
  process.env.GO ??
  (spawnSync("go", ["version"], { stdio: "ignore" }).status === 0 ? "go" : "/usr/local/go/bin/go");
const missing =
  spawnSync(GO, ["version"], { stdio: "ignore" }).status === 0 ? undefined : `no Go toolchain (${GO})`;

const binary = (work: string) => path.join(work, "go-flagship");
const build = (work: string, env: NodeJS.ProcessEnv) =>
  mustExec(GO, ["build", "-mod=readonly", "-o", binary(work), "."], {
    cwd: work,
    env: { ...env, GOTOOLCHAIN: "local" },
  });

describeFlagship(
  "Go",
  {
    example: "go-flagship",
    install: async (h) => {
      const env = { ...h.env, GOTOOLCHAIN: "local" };
      await mustExec(GO, ["mod", "edit", "-replace", `${GO_MODULE}=${path.join(ROOT, "sdk", "go")}`], {
        cwd: h.work,
        env,
      });
      await build(h.work, h.env);
    },
    operation: inlineOperation,
    edit: { file: "main.go", from: "pulumi.Float64(25)", to: "pulumi.Float64(40)" },
    importDataset: async (h, id) => {
      const env = { IMPORT_DATASET_ID: id };
      return { changes: await inlineOperation(h, "up", env), env };
    },
    docs: async (h, programs) => {
      // Compiled with the program: every field, type and enum the docs name must exist in the Go SDK.
      copyFileSync(path.join(programs, "go", "docs.go"), path.join(h.work, "docs.go"));
      await build(h.work, h.env);
      await mustExec(GO, ["vet", "."], { cwd: h.work, env: { ...h.env, GOTOOLCHAIN: "local" } });
    },
  },
  missing,
);
