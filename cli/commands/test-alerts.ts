/**
 * `observability test alerts FILE…`: unit tests for monitors, in the spirit of promtool's `test rules`. Each file
 * names monitors and notifiers (a stack's, read from `pulumi preview --json`, or written inline), events, and the
 * notifications expected; each runs on an emulator in this process on a manual clock, and the command prints
 * expected against got. Exit 0 when every file passes, 1 when one fails, 2 when one cannot be read (docs/testing-alerts.md).
 */
import { writeFile } from "node:fs/promises";
import { Command } from "commander";
import { loadAlertTest, type LoadedTest } from "../alert-test/load";
import { formatComparison } from "../alert-test/print";
import { renderReport } from "../alert-test/report";
import { runAlertTest, SetupError, type RunOutcome } from "../alert-test/run";
import { FileProblems, formatProblem } from "../alert-test/source";
import { action, EXIT, UsageError, type ExitCode } from "../exit";
import { toJson, toJunit, type FileResult } from "../alert-test/formats";

/** Options of {@link testAlerts}. */
export interface TestAlertsOptions {
  /** Write the HTML report here. */
  report?: string;
  /** Write JUnit XML here (one test suite per file, one test case per expectation). */
  junit?: string;
  /** `text` (default): the tables. `json`: one JSON document on stdout instead (docs/testing-alerts.md). */
  format?: "text" | "json";
  /** Resolves the files (default: the process's working directory). */
  cwd?: string;
  /** Where the table goes, a line at a time (default: stdout). */
  out?: (line: string) => void;
  /** Where problems go, a line at a time (default: stderr). */
  err?: (line: string) => void;
}

/** What {@link testAlerts} ran, for callers in process (the tests, the report). */
export interface TestAlertsResult {
  code: ExitCode;
  outcomes: RunOutcome[];
}

const EXAMPLE = `
Example:
  $ observability test alerts examples/monitors-to-notifiers/alerts.test.yaml --report alerts.html

The file format, and how to run it in a pull request's CI: docs/testing-alerts.md.`;

/**
 * Runs every file and prints each one's table. A file that cannot be read or checked is reported (each problem on
 * its own line, naming file, line and field) and the others still run; the code is the worst of them.
 */
export async function testAlerts(
  files: readonly string[],
  options: TestAlertsOptions = {},
): Promise<TestAlertsResult> {
  const stdout = options.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  const err = options.err ?? ((line: string) => process.stderr.write(`observability test alerts: ${line}\n`));
  const json = options.format === "json";
  // With --format json, stdout holds the document alone; the tables are not printed.
  const out = json ? () => {} : stdout;
  const results: FileResult[] = [];
  let code: ExitCode = EXIT.ok;
  const worst = (c: ExitCode) => {
    if (c > code) code = c;
  };
  const outcomes: RunOutcome[] = [];
  if (files.length === 0) {
    err("give at least one alert-test file");
    return { code: EXIT.usage, outcomes };
  }
  for (const file of files) {
    const startedAt = new Date();
    const began = performance.now();
    const result = (r: Partial<FileResult>) =>
      results.push({ file, startedAt, seconds: (performance.now() - began) / 1000, ...r });
    let test: LoadedTest;
    try {
      test = await loadAlertTest(file, options.cwd);
    } catch (e) {
      if (!(e instanceof FileProblems)) throw e;
      for (const p of e.problems) err(formatProblem(p));
      worst(EXIT.usage);
      result({ problems: e.problems });
      continue;
    }
    let outcome: RunOutcome;
    try {
      outcome = await runAlertTest(test);
    } catch (e) {
      if (!(e instanceof SetupError)) throw e;
      err(`${file}: the test could not be set up: ${e.message}`);
      worst(EXIT.failed);
      result({ setupError: e.message });
      continue;
    }
    result({ outcome });
    outcomes.push(outcome);
    for (const line of formatComparison(file, outcome.comparison, test.startMs, outcome.warnings)) out(line);
    if (!outcome.ok) worst(EXIT.failed);
  }
  const write = async (flag: string, path: string, content: () => string) => {
    try {
      await writeFile(path, content());
      out(`${flag.slice(2)}: ${path}`);
    } catch (e) {
      err(`${flag} ${path}: cannot write it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
      worst(EXIT.usage);
    }
  };
  if (options.report !== undefined) await write("--report", options.report, () => renderReport(outcomes));
  if (options.junit !== undefined) await write("--junit", options.junit, () => toJunit(results));
  if (json) stdout(JSON.stringify(toJson(results, code), null, 2));
  return { code, outcomes };
}

/** Adds `test alerts` (under a `test` command that future test kinds can share). */
export function registerTestCommand(program: Command): void {
  const test = program.command("test").description("Test what you declare before you deploy it.");
  test
    .command("alerts")
    .description(
      "Run alert tests: monitors on a manual-clock emulator against the notifications a file expects.",
    )
    .argument("<files...>", "alert-test files (YAML)")
    .option(
      "--report <file.html>",
      "also write one self-contained HTML page: each monitor's values, alerts and notifications",
    )
    .option(
      "--junit <file.xml>",
      "also write JUnit XML for CI test reports: a test suite per file, a test case per expectation",
    )
    .option(
      "--format <format>",
      "text (default): a table per file; json: one JSON document on stdout (its shape: docs/testing-alerts.md)",
      "text",
    )
    .addHelpText("after", EXAMPLE)
    .action(
      action(
        "test alerts",
        async (files: string[], flags: { report?: string; junit?: string; format: string }) => {
          if (flags.format !== "text" && flags.format !== "json")
            throw new UsageError(`--format: must be text or json, not ${JSON.stringify(flags.format)}`);
          const { code } = await testAlerts(files, {
            report: flags.report,
            junit: flags.junit,
            format: flags.format,
          });
          return code;
        },
      ),
    );
}
