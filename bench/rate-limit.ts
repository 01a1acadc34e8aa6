/**
 * The rate-limit run at full size: test/provider/rate-limit.test.ts (240 operations through the real
 * dynamic-provider host, 16 at a time, against an emulator enforcing 120 requests a minute) with the service's
 * one-minute window instead of the test's 6 s. Prints the operations, failures and the longest wait; the bound
 * is 70 s. Takes about three minutes. Run after `npm run build`:
 *   node_modules/.bin/node bench/rate-limit.ts
 */
// A block, not a module: `export {}` would make Node parse this file as ESM, where `require` is absent;
// the block keeps these names out of the global scope the other bench scripts share when type-checked.
{
  const { spawnSync } = require("node:child_process") as typeof import("node:child_process");
  const path = require("node:path") as typeof import("node:path");

  const root = path.resolve(__dirname, "..");
  // The same run as the test, so the figures here and there come from one piece of code.
  const run = spawnSync(
    path.join(root, "node_modules/.bin/node"),
    [path.join(root, "node_modules/jest/bin/jest.js"), "test/provider/rate-limit.test.ts", "--maxWorkers=1"],
    { cwd: root, env: { ...process.env, RATE_LIMIT_WINDOW_MS: "60000" }, encoding: "utf8" },
  );
  const output = `${run.stdout}\n${run.stderr}`;
  const summary = /\d+ operations through the host[^\n]*/.exec(output)?.[0];
  console.log(summary ?? "the run printed no summary");
  if (run.status !== 0) {
    console.log(output);
    process.exitCode = 1;
  }
}
