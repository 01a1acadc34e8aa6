/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  testMatch: ["**/*.test.ts"],
  // The real engine's suites run by their own configs (npm run test:e2e): test/e2e's files are *.test.mts, and
  // test/e2e-native's are left out here.
  testPathIgnorePatterns: ["/node_modules/", "<rootDir>/test/e2e-native/"],
  transform: { "^.+\\.ts$": ["ts-jest", { tsconfig: "tsconfig.test.json" }] },
  testTimeout: 60000,
  // The run's processes are marked, and none of the hosts or plugins it starts may outlive it.
  globalSetup: "<rootDir>/test/run/global-setup.ts",
  globalTeardown: "<rootDir>/test/run/global-teardown.ts",
  // Coverage of the sources only: tests, dist/ (the build that some tests load as users would) and dependencies
  // are not what is measured, and instrumenting dist/ would inflate what those tests measure.
  collectCoverageFrom: ["provider/**/*.ts", "emulator/**/*.ts", "cli/**/*.ts", "!**/*.d.ts"],
  coveragePathIgnorePatterns: ["/node_modules/", "<rootDir>/dist/"],
  // Two cores: two workers keep the emulator-backed suites from starving each other.
  maxWorkers: 2,
  // A worker's memory grows file after file (its heap to 1.8 GB and its resident size to 7 GB over a whole run,
  // measured with --logHeapUsage and ps), and two such workers in each of two suites run side by side filled the
  // machine's 24 GiB: the kernel killed one (a fault-runs file "terminated by another process: SIGKILL"). A worker
  // whose heap passes this after a file is replaced by a fresh one.
  workerIdleMemoryLimit: "600MB",
};
