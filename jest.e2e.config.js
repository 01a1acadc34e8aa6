/**
 * `npm run test:e2e`: the real Pulumi engine (the `pulumi` CLI, a file backend and Pulumi's dynamic-provider host)
 * runs every example and the engine paths against fresh emulators. `npm test` does not pick these up (its roots
 * are test/, its files *.test.ts; these are test/e2e/**\/*.test.mts).
 *
 * The files are ES modules run through Node's type stripping (test/e2e/strip-types.js), as `node` runs the
 * scripts they share with the demo; jest needs Node's --experimental-vm-modules for them, which the npm script
 * passes. Their environment (test/e2e/environment.js) lets a Pulumi program's own error handling work as under
 * Node. They run one at a time, in this process: each drives a CLI that is itself busy, and coverage.test.mts,
 * last, reads what the others deployed.
 *
 * @type {import('jest').Config}
 */
module.exports = {
  testEnvironment: "<rootDir>/test/e2e/environment.js",
  roots: ["<rootDir>/test/e2e"],
  testMatch: ["**/*.test.mts"],
  moduleFileExtensions: ["mts", "ts", "js", "cjs", "mjs", "json", "node"],
  extensionsToTreatAsEsm: [".mts", ".ts"],
  transform: { "^.+\\.m?ts$": "<rootDir>/test/e2e/strip-types.js" },
  globalSetup: "<rootDir>/test/e2e/global-setup.mts",
  globalTeardown: "<rootDir>/test/e2e/global-teardown.mts",
  testSequencer: "<rootDir>/test/e2e/sequencer.js",
  maxWorkers: 1,
  // Each step sets its own (harness.mts, STEP_TIMEOUT_MS); this is for hooks that do not.
  testTimeout: 10 * 60_000,
};
