/**
 * `npm run --silent test:count -- <results dir> [expected files]` (`.ci/run`'s last step): one closing line that sums every suite
 * the run wrote results for, `ci: N passed, N failed, N skipped`. CI reads a run's count from its closing line, and
 * jest's own summary is not a line it reads, so without this a run of thousands of tests was reported as one that
 * ran none.
 *
 * Each `*.json` in the folder is one suite's machine-readable results, known by its fields:
 * - jest's `--json --outputFile` (`npm test`, and both real-engine configs through scripts/test-e2e.mts): passed
 *   `numPassedTests`; failed `numFailedTests`, plus one for each file that could not run at all
 *   (`numRuntimeErrorTestSuites`: its tests never counted, so without this a file that fails to load would leave
 *   "0 failed"); skipped `numPendingTests` and `numTodoTests`.
 * - schemathesis's JSON run report (`--report json`, schemathesis/cli/json_report.py): its `test_cases`, which
 *   split as its own summary splits them (schemathesis/cli/output.py `display_test_cases`): failed the cases with
 *   a failed check and the errored ones, skipped the cases no check ran on, passed the rest of `generated`. A run
 *   that failed (`exit_code` not 0) with no failing case, such as an unreadable document, counts one failure.
 *
 * A line per file, worded so that it is not itself a count line, comes before the closing line. A file of any
 * other shape is an error naming it, and the exit code is 1: the sum must not leave out silently what it cannot
 * read. The closing line is still printed, summing the files that could be read.
 */
import { readFileSync, readdirSync } from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

export interface Count {
  passed: number;
  failed: number;
  skipped: number;
}

type Json = Record<string, unknown>;

const num = (file: string, doc: Json, key: string): number => {
  const v = doc[key];
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0)
    throw new Error(`${file}: ${key} is ${JSON.stringify(v)}, not a count`);
  return v;
};

/** A jest `--json` result's count. */
function jestCount(file: string, doc: Json): Count {
  return {
    passed: num(file, doc, "numPassedTests"),
    failed: num(file, doc, "numFailedTests") + num(file, doc, "numRuntimeErrorTestSuites"),
    skipped: num(file, doc, "numPendingTests") + num(file, doc, "numTodoTests"),
  };
}

/** A schemathesis JSON run report's count. */
function schemathesisCount(file: string, doc: Json): Count {
  const cases = doc.test_cases;
  if (typeof cases !== "object" || cases === null) throw new Error(`${file}: no test_cases`);
  const c = cases as Json;
  const where = `${file}: test_cases`;
  const generated = num(where, c, "generated");
  const withFailures = num(where, c, "with_failures");
  const errored = num(where, c, "errored");
  const skipped = num(where, c, "without_checks");
  let failed = withFailures + errored;
  if (failed === 0 && doc.exit_code !== 0) failed = 1;
  const passed = generated - withFailures - errored - skipped;
  if (passed < 0) throw new Error(`${where}: more failed and skipped cases than generated`);
  return { passed, failed, skipped };
}

/** The count of one results file, by its shape. */
export function countOf(file: string, text: string): { kind: string; count: Count } {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new Error(`${file}: not JSON (${(e as Error).message})`);
  }
  if (typeof doc === "object" && doc !== null && !Array.isArray(doc)) {
    const d = doc as Json;
    if ("numTotalTests" in d) return { kind: "jest", count: jestCount(file, d) };
    if ("schemathesis_version" in d) return { kind: "schemathesis", count: schemathesisCount(file, d) };
  }
  throw new Error(`${file}: neither jest's --json results nor a schemathesis JSON report`);
}

/**
 * A line of a suite's output as `.ci/run` shows it. schemathesis closes on `===== 2 warnings in 21.17s =====`,
 * which has the shape of pytest's closing line, and CI reads a pytest closing line that names no passed test as a
 * run that executed none, ahead of the plain count line below. Such a line keeps its words and loses the frame.
 */
export function unframed(output: string): string {
  const framed = /^=+ (.+ in [\d.]+s) =+$/.exec(output);
  return framed ? `schemathesis: ${framed[1]}` : output;
}

export const line = (c: Count): string => `ci: ${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped`;

/**
 * Every results file of `dir`, counted, in name order; the files it could not read; and the sum. Each name of
 * `expected` that is not there counts as one failure: a suite that never wrote its results (its build failed, or
 * jest's global teardown threw before jest wrote the file) must not leave the sum looking whole.
 */
export function countDir(
  dir: string,
  expected: readonly string[] = [],
): {
  files: { file: string; kind: string; count: Count }[];
  problems: string[];
  total: Count;
} {
  const files: { file: string; kind: string; count: Count }[] = [];
  const problems: string[] = [];
  const present = readdirSync(dir)
    .filter((name) => name.endsWith(".json"))
    .sort();
  for (const f of present) {
    try {
      files.push({ file: f, ...countOf(f, readFileSync(path.join(dir, f), "utf8")) });
    } catch (e) {
      problems.push((e as Error).message);
    }
  }
  for (const f of expected.filter((name) => !present.includes(name)))
    files.push({
      file: f,
      kind: "missing: its suite wrote no results",
      count: { passed: 0, failed: 1, skipped: 0 },
    });
  const total = { passed: 0, failed: 0, skipped: 0 };
  for (const { count } of files) {
    total.passed += count.passed;
    total.failed += count.failed;
    total.skipped += count.skipped;
  }
  return { files, problems, total };
}

function main(args: string[]): number {
  const [dir, ...expected] = args;
  if (!dir || expected.some((name) => !name.endsWith(".json"))) {
    console.error("usage: node scripts/ci-count.mts <results dir> [<expected results file>.json ...]");
    return 2;
  }
  const { files, problems, total } = countDir(dir, expected);
  for (const { file, kind, count } of files)
    console.log(
      `ci: ${file} (${kind}): passed ${count.passed}; failed ${count.failed}; skipped ${count.skipped}`,
    );
  for (const problem of problems) console.error(`ci-count: ${problem}`);
  console.log(line(total));
  return problems.length > 0 ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (e) {
    console.error(`ci-count: ${(e as Error).message}`);
    process.exitCode = 1;
  }
}
