/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  testMatch: ["**/*.test.ts"],
  // The language suites under the real engine run by their own config (jest.e2e.config.js, npm run test:languages).
  testPathIgnorePatterns: [
    "/node_modules/",
    "<rootDir>/test/e2e/(python|go|typescript|yaml|languages-page)\\.test\\.ts$",
  ],
  transform: { "^.+\\.ts$": ["ts-jest", { tsconfig: "tsconfig.test.json" }] },
  testTimeout: 60000,
  // Coverage of the sources only: tests, dist/ (the build that some tests load as users would) and dependencies
  // are not what is measured, and instrumenting dist/ would inflate what those tests measure.
  collectCoverageFrom: ["provider/**/*.ts", "emulator/**/*.ts", "cli/**/*.ts", "!**/*.d.ts"],
  coveragePathIgnorePatterns: ["/node_modules/", "<rootDir>/dist/"],
  // Two cores: two workers keep the emulator-backed suites from starving each other.
  maxWorkers: 2,
};
