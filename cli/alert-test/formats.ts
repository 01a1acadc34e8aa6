/**
 * The command's results for CI: JUnit XML (`--junit FILE.xml`), which GitHub's test-report actions and GitLab's
 * `artifacts:reports:junit` read, and one JSON document (`--format json`) whose shape docs/testing-alerts.md states.
 *
 * JUnit: one `<testsuite>` per file, one `<testcase>` per expectation, under one `<testsuites>`, valid against the
 * schema of Ant's JUnit report (test/fixtures/junit/ant-junit.xsd, the strictest of the readers' schemas) and
 * Jenkins' junit-10.xsd: a suite's `name`, `package`, `id`, `hostname`, `tests`, `failures`, `errors`, `skipped`,
 * `time` and `timestamp`, with its `<properties>`, `<system-out>` and `<system-err>`; a case's `name`, `classname`
 * and `time`; a `<failure message type>` whose text is the row as printed and what happened instead; an `<error
 * message type>` where a file could not be read or set up (it ran no expectation).
 * A notification no expectation describes, a failed run and a failed send (the strict rules) are a case each, so a
 * report lists every reason a file failed. Warnings go in the suite's `<system-out>`.
 */
import { hostname as osHostname } from "node:os";
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

/**
 * Characters XML 1.0 cannot hold at all, even as a character reference (§2.2): the C0 controls but tab, LF and CR,
 * lone surrogates, U+FFFE and U+FFFF. A document holding one is not well-formed, and a CI reader refuses the whole
 * report, so each is replaced by U+FFFD (the replacement character): the reader sees that something was there.
 */
const XML_INVALID = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

const escapeMarkup = (text: string) =>
  text
    .replace(XML_INVALID, "\uFFFD")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");

/**
 * Text safe as element content: markup escaped, characters XML cannot hold replaced, and CR written as `&#13;`
 * (a parser turns a literal CR, or CR LF, into LF: §2.11), so the text reads back as written.
 */
export function xmlText(text: string): string {
  return escapeMarkup(text).replace(/\r/g, "&#13;");
}

/**
 * Text safe as an attribute value: as {@link xmlText}, and tab, LF and CR written as `&#9;`, `&#10;`, `&#13;`: a
 * parser replaces each literal one in an attribute with a space (attribute-value normalisation, XML 1.0 §3.3.3), so
 * a failure's message with a line break would read back as one line.
 */
export function xmlAttribute(text: string): string {
  return escapeMarkup(text).replace(/[\t\n\r]/g, (c) => `&#${c.charCodeAt(0)};`);
}

const attrs = (a: Record<string, string | number | undefined>) =>
  Object.entries(a)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` ${k}="${xmlAttribute(String(v))}"`)
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

/** Where the JUnit document says the tests ran: the schema requires a host, and "localhost" where none is known. */
export interface JunitOptions {
  hostname?: string;
}

/** The JUnit XML document of the results. */
export function toJunit(results: readonly FileResult[], options: JunitOptions = {}): string {
  const hostname = (options.hostname ?? osHostname()).trim() || "localhost";
  const suites = results.map((r, id) => {
    // Ant's aggregated form: `package` and `id` are required in <testsuites>. A file has no package, so `package` is
    // the file, as `name` and each case's `classname` are; `id` counts the suites from 0, as the schema says.
    const head = {
      name: r.file,
      package: r.file,
      id,
      hostname,
      timestamp: timestamp(r.startedAt),
      time: seconds(r.seconds),
    };
    let cases: string[];
    let counts: { tests: number; failures: number; errors: number };
    let out: string[] = [];
    if (r.outcome === undefined) {
      const message = r.problems
        ? `${r.problems.length} ${r.problems.length === 1 ? "problem" : "problems"} in the file: it ran nothing`
        : `the test could not be set up: ${r.setupError ?? ""}`;
      const text = r.problems ? r.problems.map(formatProblem).join("\n") : (r.setupError ?? "");
      counts = { tests: 1, failures: 0, errors: 1 };
      cases = [
        `    <testcase${attrs({ name: r.problems ? "the file loads" : "the test is set up", classname: r.file, time: seconds(r.seconds) })}>\n` +
          `      <error${attrs({ message, type: r.problems ? "problems" : "setup" })}>${xmlText(text)}</error>\n` +
          `    </testcase>`,
      ];
    } else {
      const all = casesOf(r.outcome);
      counts = { tests: all.length, failures: all.filter((c) => c.failure).length, errors: 0 };
      cases = all.map(
        (c) =>
          `    <testcase${attrs({ name: c.name, classname: r.file, time: "0.000" })}` +
          (c.failure
            ? `>\n      <failure${attrs({ message: c.failure.message, type: c.failure.type })}>${xmlText(c.failure.text)}</failure>\n    </testcase>`
            : " />"),
      );
      out = r.outcome.warnings.map((w) => `warning: ${formatWarning(w)}`);
    }
    // The schema's sequence: <properties>, the cases, <system-out>, <system-err>, each of the three required even
    // when empty. The command has no properties to give and writes nothing to stderr while a file runs.
    return (
      `  <testsuite${attrs({ ...head, ...counts, skipped: 0 })}>\n` +
      `    <properties />\n` +
      cases.map((c) => `${c}\n`).join("") +
      `    <system-out>${xmlText(out.join("\n"))}</system-out>\n` +
      `    <system-err />\n` +
      `  </testsuite>`
    );
  });
  // <testsuites> carries no attributes: Ant's schema allows none there, and the readers add up the suites' counts.
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<testsuites>\n` +
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
