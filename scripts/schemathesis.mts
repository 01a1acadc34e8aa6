/**
 * `npm run test:schemathesis` (and `.ci/run`): schemathesis, pinned, against a fresh emulator, driven by the
 * emulator's own OpenAPI document (dist/emulator/openapi.json, which the build writes from the routes' zod
 * schemas). It fails on any server error and on any failed check.
 *
 * schemathesis is installed from PyPI into the project's virtual environment `.venv/schemathesis` (made here,
 * reused while its version is the pinned one). The checks' exceptions come from the document itself: an
 * operation's `x-check-exceptions` turns one check off for it, the document's own `x-check-exceptions` turns one
 * off everywhere, each with its written reason. Examples per operation are capped so the run stays bounded.
 *
 * Usage: node scripts/schemathesis.mts [--max-examples N] [extra `st run` arguments]
 */
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import { createInterface } from "node:readline";
import { unframed } from "./ci-count.mts";
import * as os from "node:os";
import * as path from "node:path";

/** The pinned schemathesis (4.x names the checks as `.ci/run` asks for them). */
export const SCHEMATHESIS_VERSION = "4.32.5";
/** What every operation is checked for. */
export const CHECKS = [
  "not_a_server_error",
  "status_code_conformance",
  "content_type_conformance",
  "response_headers_conformance",
  "response_schema_conformance",
  "negative_data_rejection",
  "positive_data_acceptance",
  "unsupported_method",
  "allow_header_conformance",
];
/**
 * schemathesis 4.32's other checks, off: missing_required_header by the document's own exception (its reason is
 * there); the stateful ones (use_after_free, ensure_resource_availability, ignored_auth,
 * object_level_authorization) follow links the document does not declare; max_response_time is off by default.
 */
export const OTHER_CHECKS = [
  "missing_required_header",
  "use_after_free",
  "ensure_resource_availability",
  "ignored_auth",
  "object_level_authorization",
];

const ROOT = path.resolve(import.meta.dirname, "..");
const VENV = path.join(ROOT, ".venv", "schemathesis");
const ST = path.join(VENV, "bin", "st");

function run(command: string, args: string[]): void {
  const result = spawnSync(command, args, { stdio: "inherit" });
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(" ")} failed (${result.status ?? result.signal})`);
}

/** Makes the virtual environment and installs the pinned schemathesis, unless it is there already. */
function ensureSchemathesis(): void {
  const pip = path.join(VENV, "bin", "pip");
  if (fs.existsSync(ST)) {
    const shown = spawnSync(pip, ["show", "schemathesis"], { encoding: "utf8" }).stdout ?? "";
    if (shown.includes(`Version: ${SCHEMATHESIS_VERSION}\n`)) return;
  }
  const python = process.env.PYTHON ?? "python3";
  run(python, ["-m", "venv", VENV]);
  run(pip, ["install", "--quiet", "--disable-pip-version-check", `schemathesis==${SCHEMATHESIS_VERSION}`]);
}

type Document = {
  paths: Record<
    string,
    Record<string, { operationId: string; "x-check-exceptions"?: Record<string, string> }>
  >;
  "x-check-exceptions"?: Record<string, string>;
};

/**
 * schemathesis's configuration: the checks, then the document's exceptions, each with its reason as a comment.
 * The checks are chosen here, not with `--checks`: the command line outranks every per-operation setting, so the
 * operations' exceptions would be ignored.
 */
export function configOf(doc: Document, options: { maxExamples: number }): string {
  const lines = [
    "# Written by scripts/schemathesis.mts from the emulator's OpenAPI document.",
    // Repeatable: the same cases on every run (Hypothesis's derandomize; no seed), whatever the machine's load.
    "generation.deterministic = true",
    `generation.max-examples = ${options.maxExamples}`,
    "",
  ];
  const global = doc["x-check-exceptions"] ?? {};
  for (const check of CHECKS) {
    if (global[check]) lines.push(`# ${global[check]}`);
    lines.push(`[checks.${check}]`, `enabled = ${!global[check]}`, "");
  }
  for (const check of OTHER_CHECKS) {
    if (global[check]) lines.push(`# ${global[check]}`);
    lines.push(`[checks.${check}]`, "enabled = false", "");
  }
  for (const operations of Object.values(doc.paths)) {
    for (const op of Object.values(operations)) {
      for (const [check, reason] of Object.entries(op["x-check-exceptions"] ?? {})) {
        lines.push(
          `# ${reason}`,
          "[[operations]]",
          `include-operation-id = ${JSON.stringify(op.operationId)}`,
          `checks.${check}.enabled = false`,
          "",
        );
      }
    }
  }
  return lines.join("\n");
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const at = args.indexOf("--max-examples");
  const maxExamples = Number(at >= 0 ? args.splice(at, 2)[1] : "10");
  const docFile = path.join(ROOT, "dist", "emulator", "openapi.json");
  if (!fs.existsSync(docFile)) throw new Error(`${docFile} is missing: run npm run build first`);
  ensureSchemathesis();

  const require = createRequire(import.meta.url);
  const { startEmulator } = require(path.join(ROOT, "dist", "emulator", "index.js")) as {
    startEmulator(o: { port: number }): Promise<{ url: string; close(): Promise<void> }>;
  };
  const doc = JSON.parse(fs.readFileSync(docFile, "utf8")) as Document;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "schemathesis-"));
  const config = path.join(work, "schemathesis.toml");
  fs.writeFileSync(config, configOf(doc, { maxExamples }));
  const emulator = await startEmulator({ port: 0 });
  try {
    // Asynchronously: the emulator runs in this process, and a synchronous spawn would stop it from answering.
    const st = spawn(
      ST,
      [
        "--config-file",
        config,
        "run",
        docFile,
        "--url",
        emulator.url,
        "--header",
        "Authorization: Bearer xaat-local-development-token",
        // One worker: with two, schemathesis parses Python sources in two threads at once (Hypothesis describing
        // its lambdas), and CPython 3.11's AST depth counter is shared by threads, so it raised
        // "SystemError: AST constructor recursion depth mismatch", a run error on a random operation. One
        // worker also sends the requests in one order every run: the emulator's state, and the run, repeat.
        "--workers",
        "1",
        "--no-shrink",
        "--report-dir",
        work,
        ...args,
      ],
      // In the run's own directory: schemathesis keeps a cache (`.schemathesis/`) where it runs.
      { stdio: ["ignore", "pipe", "inherit"], cwd: work },
    );
    // Line by line through unframed (scripts/ci-count.mts): schemathesis's last line has pytest's shape.
    const lines = createInterface({ input: st.stdout, crlfDelay: Infinity });
    lines.on("line", (line) => console.log(unframed(line)));
    const [code] = await Promise.all([
      new Promise<number>((resolve) => st.on("exit", (c) => resolve(c ?? 1))),
      new Promise((resolve) => lines.once("close", resolve)),
    ]);
    return code;
  } finally {
    await emulator.close();
  }
}

process.exitCode = await main();
