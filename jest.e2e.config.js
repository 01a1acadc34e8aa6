/**
 * The suites under the real Pulumi engine (test/e2e): each builds or finds the CLI and runs programs against
 * fresh emulators, one file at a time (two cores: each run starts the engine, a plugin and a language's runtime).
 */
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/test/e2e"],
  testMatch: ["**/*.test.ts"],
  transform: { "^.+\\.ts$": ["ts-jest", { tsconfig: "tsconfig.test.json" }] },
  testTimeout: 10 * 60_000,
  maxWorkers: 1,
};
