/**
 * The native provider and the generated SDKs under the real Pulumi engine (test/e2e-native): the plugin
 * `pulumi-resource-observability` driven by TypeScript, Python, Go and YAML programs, and the committed SDKs checked
 * against the code generators. `npm run test:e2e` runs these after test/e2e (scripts/test-e2e.mts); `npm test`
 * does not pick them up. Its global setup gets the CLI, the YAML host and the build, so that no suite is skipped
 * on a machine with Go. One file at a time: each starts the engine, the plugin and a language's runtime.
 *
 * @type {import('jest').Config}
 */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/test/e2e-native"],
  testMatch: ["**/*.test.ts"],
  transform: { "^.+\\.ts$": ["ts-jest", { tsconfig: "tsconfig.test.json" }] },
  globalSetup: "<rootDir>/test/e2e-native/global-setup.js",
  globalTeardown: "<rootDir>/test/e2e-native/global-teardown.ts",
  testTimeout: 10 * 60_000,
  maxWorkers: 1,
};
