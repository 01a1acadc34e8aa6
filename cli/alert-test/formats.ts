/**
 * The command's results for CI: JUnit XML (`--junit FILE.xml`), which GitHub's test-report actions and GitLab's
 * `artifacts:reports:junit` read, and one JSON document (`--format json`) whose shape docs/testing-alerts.md states.
 *
 * JUnit: one `<testsuite>` per file, one `<testcase>` per expectation, under one `<testsuites>`. The elements and
 * attributes are those of the JUnit schema the CI readers follow (Jenkins' junit.xsd, which GitLab's parser and
 * the GitHub actions read): a suite's `name`, `tests`, `failures`, `errors`, `skipped`, `time` and `timestamp`; a
 * case's `name`, `classname` and `time`; a `<failure message type>` whose text is the row as printed and what
 * happened instead; an `<error message type>` where a file could not be read or set up (it ran no expectation).
 * A notification no expectation describes, a failed run and a failed send (the strict rules) are a case each, so a
 * report lists every reason a file failed. Warnings go in the suite's `<system-out>`.
 */
import { describeAlert, formatOffset, type RunFailure } from "./compare";
import type { RunWarning } from "./check";
import { describeWhen, formatWarning, rowLine } from "./print";
import type { RunOutcome } from "./run";
import { formatProblem, type Problem } from "./source";

/** What happened to one file. */
export interface FileResult {
  file: string;
  /** How long it took, in seconds (reading, checking and running). */
  seconds: number;
  /** When it started. */
  startedAt: Date;
  /** The run, when the file ran. */
  outcome?: RunOutcome;
  /** Why it did not run: its problems (exit 2), or the emulator refused what it declares (exit 1). */
  problems?: readonly Problem[];
  setupError?: string;
}

/** Text safe in XML content and attributes: `&<>"'` escaped, and characters XML 1.0 cannot hold dropped. */
export function xmlText(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

const attrs = (a: Record<string, string | number | undefined>) =>
  Object.entries(a)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` ${k}="${xmlText(String(v))}"`)
    .join("");

/** The schema's timestamp: ISO 8601 without a zone (xs:dateTime as junit.xsd restricts it), UTC. */
const timestamp = (d: Date) => d.toISOString().slice(0, 19);
const seconds = (s: number) => s.toFixed(3);

interface Case {
  name: string;
  failure?: { message: string; type: string; text: string };
}

/** The cases of a file that ran: its expectations, then its unexpected notifications and its failed runs and sends. */
function casesOf(o: RunOutcome): Case[] {
  const { comparison, test } = o;
  const cases: Case[] = comparison.rows.map((r) => {
    const e = r.expectation;
    const name =
      `line ${e.line ?? "?"}: ${e.monitorKey} ${e.action ?? "Open"}` +
      (e.group === undefined ? "" : ` group ${JSON.stringify(e.group)}`) +
      (e.notifierKey === undefined ? "" : ` to ${e.notifierKey}`) +
      ` ${describeWhen(r)}, want ${r.wanted}`;
    return r.ok
      ? { name }
      : {
          name,
          failure: {
            message: `expected ${r.wanted}, got ${r.got.length}`,
            type: "expectation",
            text: [rowLine(r, test.startMs), ...r.hints].join("\n"),
          },
        };
  });
  if (comparison.unexpected.length > 0)
    cases.push({
      name: "no unexpected notification",
      failure:
        test.unexpected === "ignore"
          ? undefined
          : {
              message: `${comparison.unexpected.length} notifications no expectation describes`,
              type: "unexpected",
              text: comparison.unexpected.map((a) => describeAlert(a, test.startMs)).join("\n"),
            },
    });
  for (const f of comparison.failures) cases.push(failureCase(f));
  return cases;
}

function failureCase(f: RunFailure): Case {
  return {
    name:
      f.kind === "query-failed"
        ? `monitor ${f.monitor}: its runs succeed`
        : `notifier ${f.notifier}: notifications from ${f.monitor} are sent`,
    failure: { message: f.message, type: f.kind, text: f.message },
  };
}

/** The JUnit XML document of the results. */
export function toJunit(results: readonly FileResult[]): string {
  const suites: string[] = [];
  let total = 0;
  let failures = 0;
  let errors = 0;
  let time = 0;
  for (const r of results) {
    time += r.seconds;
    const head = { name: r.file, timestamp: timestamp(r.startedAt), time: seconds(r.seconds) };
    if (r.outcome === undefined) {
      const message = r.problems
        ? `${r.problems.length} ${r.problems.length === 1 ? "problem" : "problems"} in the file: it ran nothing`
        : `the test could not be set up: ${r.setupError ?? ""}`;
      const text = r.problems ? r.problems.map(formatProblem).join("\n") : (r.setupError ?? "");
      total += 1;
      errors += 1;
      suites.push(
        `  <testsuite${attrs({ ...head, tests: 1, failures: 0, errors: 1, skipped: 0 })}>\n` +
          `    <testcase${attrs({ name: r.problems ? "the file loads" : "the test is set up", classname: r.file, time: seconds(r.seconds) })}>\n` +
          `      <error${attrs({ message, type: r.problems ? "problems" : "setup" })}>${xmlText(text)}</error>\n` +
          `    </testcase>\n  </testsuite>`,
      );
      continue;
    }
    const cases = casesOf(r.outcome);
    const failed = cases.filter((c) => c.failure).length;
    total += cases.length;
    failures += failed;
    const body = cases.map(
      (c) =>
        `    <testcase${attrs({ name: c.name, classname: r.file, time: "0.000" })}` +
        (c.failure
          ? `>\n      <failure${attrs({ message: c.failure.message, type: c.failure.type })}>${xmlText(c.failure.text)}</failure>\n    </testcase>`
          : " />"),
    );
    const out = r.outcome.warnings.map((w) => `warning: ${formatWarning(w)}`);
    suites.push(
      `  <testsuite${attrs({ ...head, tests: cases.length, failures: failed, errors: 0, skipped: 0 })}>\n` +
        body.map((b) => `${b}\n`).join("") +
        (out.length ? `    <system-out>${xmlText(out.join("\n"))}</system-out>\n` : "") +
        `  </testsuite>`,
    );
  }
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<testsuites${attrs({ name: "observability test alerts", tests: total, failures, errors, time: seconds(time) })}>\n` +
    suites.map((s) => `${s}\n`).join("") +
    `</testsuites>\n`
  );
}

/** A warning as the JSON document gives it. */
type JsonWarning = RunWarning;

/** The `--format json` document; docs/testing-alerts.md states its shape (`version` changes if it does). */
export interface AlertTestReport {
  version: 1;
  /** The command's exit code: 0 every file passed, 1 one failed, 2 one could not be read or checked. */
  code: number;
  files: {
    file: string;
    /** `pass`, `fail`, or `error` (the file did not run: see `problems` or `setupError`). */
    status: "pass" | "fail" | "error";
    seconds: number;
    start?: string;
    expectations: {
      line: number | null;
      monitor: string;
      action: "Open" | "Closed";
      group: unknown;
      notifier: string | null;
      when: string;
      want: string;
      got: number;
      /** The matching notifications' times, as offsets from start (`+31m`). */
      sentAt: string[];
      ok: boolean;
      /** For a failed row: what happened instead. */
      hints: string[];
    }[];
    unexpected: {
      monitor: string;
      action: "Open" | "Closed";
      at: string;
      group: string[] | null;
      notifications: { notifier: string; outcome: string; reason?: string }[];
    }[];
    failures: (Omit<RunFailure, "firstMs"> & {
      firstAt: string;
      query?: { file: string; line?: number; column?: number };
    })[];
    warnings: JsonWarning[];
    problems: Problem[];
    setupError?: string;
  }[];
}

/** The JSON document of the results. */
export function toJson(results: readonly FileResult[], code: number): AlertTestReport {
  return {
    version: 1,
    code,
    files: results.map((r) => {
      const o = r.outcome;
      const startMs = o?.test.startMs ?? 0;
      return {
        file: r.file,
        status: o === undefined ? "error" : o.ok ? "pass" : "fail",
        seconds: Number(r.seconds.toFixed(3)),
        start: o === undefined ? undefined : new Date(startMs).toISOString(),
        expectations: (o?.comparison.rows ?? []).map((row) => ({
          line: row.expectation.line ?? null,
          monitor: row.expectation.monitorKey,
          action: row.expectation.action ?? "Open",
          group: row.expectation.group ?? null,
          notifier: row.expectation.notifierKey ?? null,
          when: describeWhen(row),
          want: row.wanted,
          got: row.got.length,
          sentAt: row.got.map((g) => formatOffset(g.timeMs - startMs)),
          ok: row.ok,
          hints: row.hints,
        })),
        unexpected: (o?.comparison.unexpected ?? []).map((a) => ({
          monitor: a.monitorKey,
          action: a.action,
          at: formatOffset(a.timeMs - startMs),
          group: a.groupValues,
          notifications: a.entries.map((e) => ({
            notifier: e.notifierKey,
            outcome: e.outcome,
            reason: e.reason,
          })),
        })),
        failures: (o?.comparison.failures ?? []).map(({ firstMs, ...f }) => ({
          ...f,
          firstAt: formatOffset(firstMs - startMs),
        })),
        warnings: o?.warnings ?? [],
        problems: [...(r.problems ?? [])],
        setupError: r.setupError,
      };
    }),
  };
}
