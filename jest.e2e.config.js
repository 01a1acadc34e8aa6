/**
 * `npm run test:e2e`: every test under the real Pulumi engine, in one jest run with one setup
 * (test/e2e/global-setup.mts: the CLI, the YAML host, the build, the run's folder), one teardown (no plugin or host
 * may outlive the run), one environment and one order. The files come in two kinds, which differ only in how
 * jest loads them:
 * - test/e2e (`*.test.mts`): the examples and the engine's paths on the dynamic resources. ES modules through
 *   Node's own type stripping (test/e2e/strip-types.js), as `node` runs the scripts they share with the demo; jest
 *   needs Node's --experimental-vm-modules for them, which scripts/test-e2e.mts passes.
 * - test/e2e-native (`*.test.ts`): the native provider plugin and the SDKs of every language, through ts-jest like
 *   `npm test`'s files, because they load the provider's sources.
 * Both run their commands through scripts/shared/commands.ts and their stacks through scripts/shared/engine.ts.
 *
 * The environment (test/e2e/environment.js) lets a Pulumi program's own error handling work as under Node. The
 * files run one at a time, in this process: each drives a CLI that is itself busy, and coverage.test.mts, last
 * (test/e2e/sequencer.js), reads what the others deployed.
 *
 * @type {import('jest').Config}
 */
const shared = {
  testEnvironment: "<rootDir>/test/e2e/environment.js",
};

module.exports = {
  projects: [
    {
      ...shared,
      displayName: "dynamic",
      roots: ["<rootDir>/test/e2e"],
      testMatch: ["**/*.test.mts"],
      moduleFileExtensions: ["mts", "ts", "js", "cjs", "mjs", "json", "node"],
      extensionsToTreatAsEsm: [".mts", ".ts"],
      transform: { "^.+\\.m?ts$": "<rootDir>/test/e2e/strip-types.js" },
    },
    {
      ...shared,
      displayName: "native",
      roots: ["<rootDir>/test/e2e-native"],
      testMatch: ["**/*.test.ts"],
      transform: { "^.+\\.ts$": ["ts-jest", { tsconfig: "tsconfig.test.json" }] },
    },
  ],
  globalSetup: "<rootDir>/test/e2e/global-setup.mts",
  globalTeardown: "<rootDir>/test/e2e/global-teardown.mts",
  testSequencer: "<rootDir>/test/e2e/sequencer.js",
  maxWorkers: 1,
  // Each step sets its own (harness.mts, STEP_TIMEOUT_MS); this is for hooks and tests that do not.
  testTimeout: 10 * 60_000,
};
