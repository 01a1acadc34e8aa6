/**
 * CI's count: `.ci/run` ends with one line `ci: N passed, N failed, N skipped` that sums every suite it ran
 * (scripts/ci-count.mts). CI reads a run's count from its closing line when that line is a known runner's summary
 * or the plain `N passed, N failed` (with `, N skipped` after it and one word with a colon before it allowed); jest's
 * own summary is neither, so a run of thousands of tests was reported as one that ran none.
 *
 * The fixtures are real results (test/fixtures/ci-count/), never written by hand:
 * - jest-passing.json and jest-failing.json: jest 29's `--json --outputFile` over jest-project/ (`npx jest -c
 *   jest.config.js passing` and `npx jest -c jest.config.js` there): passes, a failure, `test.skip`, `test.todo`,
 *   a skipped `describe`, and a file that cannot load (`numRuntimeErrorTestSuites`).
 * - schemathesis-emulator.json: schemathesis 4.32.5's `--report json` of `npm run test:schemathesis -- --max-examples
 *   2` against the emulator; schemathesis-failing.json: the same against schemathesis-api/server.py (a server
 *   error on some ids, and a 200 for TRACE), `-n 20`; schemathesis-unreachable.json: against a port where nothing
 *   listens (every case errored).
 */
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const ROOT = path.resolve(__dirname, "../..");
const FIXTURES = path.join(ROOT, "test", "fixtures", "ci-count");
const COUNTER = path.join(ROOT, "scripts", "ci-count.mts");
/** CI's plain closing line (the env README's form): optional `word:`, `N passed, N failed`, optional `, N skipped`. */
const PLAIN_COUNT = /^(\w+: )?\d+ passed, \d+ failed(, \d+ skipped)?$/;

const sandboxes: string[] = [];
function sandbox(files: Record<string, string> = {}): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "ci-count-"));
  sandboxes.push(dir);
  for (const [name, fixture] of Object.entries(files))
    copyFileSync(path.join(FIXTURES, fixture), path.join(dir, name));
  return dir;
}
afterAll(() => {
  for (const dir of sandboxes) rmSync(dir, { recursive: true, force: true });
});

function count(dir: string, expected: string[] = []) {
  const r = spawnSync(process.execPath, [COUNTER, dir, ...expected], { encoding: "utf8" });
  const lines = r.stdout.trimEnd().split("\n");
  return { code: r.status, lines, last: lines[lines.length - 1], stderr: r.stderr };
}

describe("scripts/ci-count.mts", () => {
  test("an expected results file that is missing counts as one failure, named", () => {
    const r = count(sandbox({ "npm-test.json": "jest-passing.json" }), ["npm-test.json", "e2e-native.json"]);
    expect(r).toMatchObject({ code: 0, last: "ci: 2 passed, 1 failed, 2 skipped" });
    expect(r.lines).toContain(
      "ci: e2e-native.json (missing: its suite wrote no results): passed 0; failed 1; skipped 0",
    );
  });

  test("jest's results: passed, failed (a failed test and a file that could not load), skipped (skip and todo)", () => {
    expect(count(sandbox({ "npm-test.json": "jest-failing.json" }))).toMatchObject({
      code: 0,
      last: "ci: 3 passed, 2 failed, 4 skipped",
      stderr: "",
    });
    expect(count(sandbox({ "npm-test.json": "jest-passing.json" })).last).toBe(
      "ci: 2 passed, 0 failed, 2 skipped",
    );
  });

  test("schemathesis's report: its cases as its own summary splits them", () => {
    // 7409 generated, 7409 passed: what the run printed.
    expect(count(sandbox({ "schemathesis.json": "schemathesis-emulator.json" })).last).toBe(
      "ci: 7409 passed, 0 failed, 0 skipped",
    );
    // 8 generated, 3 found 5 unique failures: the cases count, not the unique failures.
    expect(count(sandbox({ "schemathesis.json": "schemathesis-failing.json" })).last).toBe(
      "ci: 5 passed, 3 failed, 0 skipped",
    );
    // 27 generated, 27 errored.
    expect(count(sandbox({ "schemathesis.json": "schemathesis-unreachable.json" })).last).toBe(
      "ci: 0 passed, 27 failed, 0 skipped",
    );
  });

  test("a schemathesis run that failed with no failing case counts one failure", () => {
    const dir = sandbox();
    const report = JSON.parse(readFileSync(path.join(FIXTURES, "schemathesis-emulator.json"), "utf8"));
    report.exit_code = 1;
    report.errors = [{ title: "Schema Error", count: 1 }];
    writeFileSync(path.join(dir, "schemathesis.json"), JSON.stringify(report));
    expect(count(dir).last).toBe("ci: 7409 passed, 1 failed, 0 skipped");
  });

  test("every suite summed; a line per file before, none of them a count line; the last one CI's plain form", () => {
    const r = count(
      sandbox({
        "npm-test.json": "jest-failing.json",
        "e2e.json": "jest-passing.json",
        "e2e-native.json": "jest-passing.json",
        "schemathesis.json": "schemathesis-failing.json",
      }),
    );
    expect(r.code).toBe(0);
    expect(r.last).toBe("ci: 12 passed, 5 failed, 8 skipped");
    expect(r.last).toMatch(PLAIN_COUNT);
    expect(r.lines.slice(0, -1)).toEqual([
      "ci: e2e-native.json (jest): passed 2; failed 0; skipped 2",
      "ci: e2e.json (jest): passed 2; failed 0; skipped 2",
      "ci: npm-test.json (jest): passed 3; failed 2; skipped 4",
      "ci: schemathesis.json (schemathesis): passed 5; failed 3; skipped 0",
    ]);
    for (const earlier of r.lines.slice(0, -1)) expect(earlier).not.toMatch(PLAIN_COUNT);
  });

  test("schemathesis's output loses the frame of its pytest-shaped closing line, and keeps every word", () => {
    // schemathesis-stdout.txt: what `npm run test:schemathesis` printed in a CI run of this repository. pytest's
    // closing line (src/_pytest/terminal.py, `summary_stats`): the counts and the time, framed in `=`.
    const PYTEST_CLOSING = /^=+ .* in [\d.]+s =+$/;
    const lines = readFileSync(path.join(FIXTURES, "schemathesis-stdout.txt"), "utf8").trimEnd().split("\n");
    expect(lines.filter((l) => PYTEST_CLOSING.test(l))).toEqual([
      "============================= 2 warnings in 21.17s =============================",
    ]);
    const code = `const { unframed } = await import(${JSON.stringify(COUNTER)});
      const lines = JSON.parse(process.argv[1]);
      console.log(JSON.stringify(lines.map(unframed)));`;
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", code, JSON.stringify(lines)], {
      encoding: "utf8",
    });
    expect(r.stderr).toBe("");
    const shown = JSON.parse(r.stdout) as string[];
    expect(shown.filter((l) => PYTEST_CLOSING.test(l))).toEqual([]);
    expect(shown.at(-1)).toBe("schemathesis: 2 warnings in 21.17s");
    // Every other line as it was: the banner of its summary, its counts of cases.
    expect(shown.slice(0, -1)).toEqual(lines.slice(0, -1));
    expect(shown).toContain(
      "=================================== SUMMARY ====================================",
    );
  });

  test("no results: zero, not silence", () => {
    expect(count(sandbox()).last).toBe("ci: 0 passed, 0 failed, 0 skipped");
  });

  test("a file of another shape is named and fails the count, which still sums the rest", () => {
    const dir = sandbox({ "npm-test.json": "jest-passing.json" });
    writeFileSync(path.join(dir, "junit.json"), JSON.stringify({ tests: 3 }));
    writeFileSync(path.join(dir, "cut.json"), '{"numTotalTests": 4, "numPassedTests"');
    const r = count(dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "ci-count: junit.json: neither jest's --json results nor a schemathesis JSON report",
    );
    expect(r.stderr).toMatch(/ci-count: cut\.json: not JSON/);
    expect(r.last).toBe("ci: 2 passed, 0 failed, 2 skipped");
  });

  test("a count that is not a count is named", () => {
    const dir = sandbox();
    const results = JSON.parse(readFileSync(path.join(FIXTURES, "jest-passing.json"), "utf8"));
    results.numFailedTests = "0";
    writeFileSync(path.join(dir, "npm-test.json"), JSON.stringify(results));
    const r = count(dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('ci-count: npm-test.json: numFailedTests is "0", not a count');
  });
});

/**
 * `.ci/run` itself, with a stand-in `npm` first on PATH: each suite's step writes the results its real command
 * would (the fixtures), the counting step runs the real counter, and one step can be made to fail.
 */
describe(".ci/run", () => {
  const scripts = (
    JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }
  ).scripts;

  function ciRun(failing: string) {
    const dir = sandbox();
    const bin = path.join(dir, "bin");
    const log = path.join(dir, "npm.log");
    const fixture = (name: string) => JSON.stringify(path.join(FIXTURES, name));
    // The failing step writes results with failures, as a suite that fails does; the others write passing ones.
    const npm = `#!/usr/bin/env bash
echo "$*" >> ${JSON.stringify(log)}
pick() { if [ "$FAILING" = "$1" ]; then cp "$3" "$4"; exit 1; fi; cp "$2" "$4"; }
case "$*" in
  ci) [ "$FAILING" != ci ] ;;
  "run lint") [ "$FAILING" != lint ] ;;
  "test -- --json --outputFile="*) pick test ${fixture("jest-passing.json")} ${fixture("jest-failing.json")} "\${4#--outputFile=}" ;;
  "run test:schemathesis -- --report json --report-json-path "*) pick schemathesis ${fixture("schemathesis-emulator.json")} ${fixture("schemathesis-failing.json")} "$7" ;;
  "run test:e2e -- --results-dir "*)
    # A global teardown that throws leaves jest's results unwritten, and the step fails.
    if [ "$FAILING" = e2e-teardown ]; then exit 1; fi
    pick e2e ${fixture("jest-passing.json")} ${fixture("jest-failing.json")} "$5/e2e.json" ;;
  "run --silent test:count -- "*) exec ${JSON.stringify(process.execPath)} ${JSON.stringify(COUNTER)} "\${@:5}" ;;
  *) echo "stand-in npm: unexpected: $*" >&2; exit 3 ;;
esac
`;
    mkdirSync(bin);
    writeFileSync(path.join(bin, "npm"), npm);
    chmodSync(path.join(bin, "npm"), 0o755);
    const r = spawnSync("bash", [path.join(ROOT, ".ci", "run")], {
      encoding: "utf8",
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, FAILING: failing },
    });
    const lines = r.stdout.trimEnd().split("\n");
    return {
      code: r.status,
      last: lines[lines.length - 1],
      stdout: r.stdout,
      stderr: r.stderr,
      calls: readFileSync(log, "utf8"),
    };
  }

  test("the counting step is the package's script", () => {
    expect(scripts["test:count"]).toBe("node scripts/ci-count.mts");
  });

  test("a green run exits 0 and closes with the sum of every suite", () => {
    const r = ciRun("");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.last).toBe("ci: 7413 passed, 0 failed, 4 skipped");
    // Each step's time, for the log's parts; none of them a line CI would read as a count.
    const times = r.stdout.split("\n").filter((l) => / took \d+ s$/.test(l));
    expect(times.map((l) => l.replace(/\d+ s$/, "N s"))).toEqual(
      ["npm ci", "chromium", "npm run lint", "npm test", "npm run test:schemathesis", "npm run test:e2e"].map(
        (step) => `ci: ${step} took N s`,
      ),
    );
    expect(r.stdout.split("\n").filter((l) => PLAIN_COUNT.test(l))).toEqual([r.last]);
    expect(r.calls.trimEnd().split("\n")).toEqual([
      "ci",
      "run lint",
      expect.stringMatching(/^test -- --json --outputFile=\//),
      expect.stringMatching(/^run test:schemathesis -- --report json --report-json-path \//),
      expect.stringMatching(/^run test:e2e -- --results-dir \//),
      expect.stringMatching(/^run --silent test:count -- \//),
    ]);
  });

  test.each([
    ["lint", "npm run lint", "ci: 7413 passed, 0 failed, 4 skipped"],
    ["test", "npm test", "ci: 7414 passed, 2 failed, 6 skipped"],
    ["schemathesis", "npm run test:schemathesis", "ci: 9 passed, 3 failed, 4 skipped"],
    ["e2e", "npm run test:e2e", "ci: 7414 passed, 2 failed, 6 skipped"],
    // e2e.json never written: the real-engine suite counts as one failure, not as nothing.
    ["e2e-teardown", "npm run test:e2e", "ci: 7411 passed, 1 failed, 2 skipped"],
  ])(
    "a failing step (%s) fails the run; the later steps still run and the count still closes it",
    (failing, step, last) => {
      const r = ciRun(failing);
      expect(r.code).toBe(1);
      expect(r.last).toBe(last);
      expect(r.last).toMatch(PLAIN_COUNT);
      expect(r.stdout).toContain(`ci: failed: ${step}\n`);
      expect(r.calls.trimEnd().split("\n")).toHaveLength(6);
    },
  );

  test("a failed install stops the run: no suite runs, each counts as one failure, and the count still closes it", () => {
    const r = ciRun("ci");
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("ci: failed: npm ci\n");
    expect(r.last).toBe("ci: 0 passed, 3 failed, 0 skipped");
    expect(r.last).toMatch(PLAIN_COUNT);
    expect(r.calls.trimEnd().split("\n")).toEqual(["ci"]);
  });
});
