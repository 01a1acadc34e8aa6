// Gets what the suites of test/e2e-native run on before any starts: the package's build (the plugin's launcher,
// its schema), the Pulumi CLI and the YAML language host (each from its cache, or built from Go modules). With Go
// present, a tool that cannot be had fails the run, named, instead of leaving its suites skipped; without Go,
// the suites skip and say why.
const { spawnSync } = require("node:child_process");
const { readFileSync } = require("node:fs");
const path = require("node:path");

const ROOT = path.resolve(__dirname, "..", "..");

function npmRun(script) {
  const out = spawnSync("npm", ["run", "--silent", script], { cwd: ROOT, encoding: "utf8", stdio: "pipe" });
  return { ok: out.status === 0, said: `${out.stdout}${out.stderr}`.trim().split("\n").at(-1) ?? "" };
}

/** Whether test/e2e's setup built the package in this `npm run test:e2e` (run-env.mts, BUILT_FOR_RUN). */
function builtForThisRun() {
  const run = process.env.E2E_RUN_ID;
  try {
    return Boolean(run) && readFileSync(path.join(ROOT, "dist", ".built-for-e2e-run"), "utf8") === run;
  } catch {
    return false;
  }
}

module.exports = async function globalSetup() {
  if (!builtForThisRun()) {
    const build = npmRun("build");
    if (!build.ok) throw new Error(`npm run build failed: ${build.said}`);
  }
  for (const tool of ["pulumi:path", "yaml:dir"]) {
    const got = npmRun(tool);
    if (got.ok) continue;
    if (/no Go toolchain/.test(got.said)) {
      console.warn(`${tool}: ${got.said}; the suites that need it are skipped`);
      continue;
    }
    throw new Error(`npm run ${tool}: ${got.said}`);
  }
};
