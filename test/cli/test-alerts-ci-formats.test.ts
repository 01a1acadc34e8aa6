/**
 * `--junit FILE.xml` and `--format json`: what CI reads. The XML is parsed by a maintained XML parser (not matched
 * by patterns) and held to the structure of the JUnit schema that GitHub's test-report actions and GitLab's
 * `artifacts:reports:junit` read (Jenkins' junit.xsd): `testsuites` > `testsuite` (name, tests, failures, errors,
 * skipped, time, timestamp) > `testcase` (name, classname, time) with an optional `failure` or `error` (message,
 * type, text); counts that add up. One suite per file, one case per expectation.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { testAlerts } from "../../cli/commands/test-alerts";
import { useTempDir } from "../helpers/cli";

const tmp = useTempDir();

const PASSING = `until: 10m
monitors:
  fatal: { name: Fatal, type: MatchEvent, aplQuery: "['app'] | where level == 'fatal'" }
events:
  - { at: 2m, dataset: app, event: { level: fatal } }
expect:
  - { monitor: fatal, at: 2m }
  - { monitor: fatal, action: Closed, never: true }
`;

/** A row that fails, a notification nobody expected, a send that fails to render (its reason holds quotes), and
 * a monitor key and notifier name that XML must escape. */
const FAILING = `until: 10m
notifiers:
  hook: { name: 'Hook <"ops"> & co', properties: { customWebhook: { url: "https://example.com/h", body: "{{.NoSuchField}}" } } }
monitors:
  "fatal<&>":
    name: Fatal
    type: MatchEvent
    aplQuery: "['app'] | where level == 'fatal'"
    notifierIds: [hook]
events:
  - { at: 2m, dataset: app, event: { level: fatal } }
  - { at: 6m, dataset: app, event: { level: fatal } }
expect:
  - { monitor: "fatal<&>", at: 2m }
  - { monitor: "fatal<&>", at: 4m }
`;

const BROKEN = `until: soon\nexpect: []\n`;

async function runAll() {
  writeFileSync(join(tmp.path, "passing.yaml"), PASSING);
  writeFileSync(join(tmp.path, "failing.yaml"), FAILING);
  writeFileSync(join(tmp.path, "broken.yaml"), BROKEN);
  const out: string[] = [];
  const err: string[] = [];
  const junit = join(tmp.path, "alerts.xml");
  const result = await testAlerts(["passing.yaml", "failing.yaml", "broken.yaml"], {
    cwd: tmp.path,
    junit,
    format: "json",
    out: (l) => out.push(l),
    err: (l) => err.push(l),
  });
  return { result, out, err, xml: readFileSync(junit, "utf8") };
}

type Node = Record<string, unknown>;
const asArray = (v: unknown): Node[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]) as Node[];

/** junit.xsd's rules for the elements this command writes, checked on the parsed tree. */
function checkJunitSchema(root: Node): void {
  expect(Object.keys(root).filter((k) => !k.startsWith("?"))).toEqual(["testsuites"]);
  const suites = root.testsuites as Node;
  const allowed = (node: Node, attrs: string[], children: string[]) => {
    for (const k of Object.keys(node)) {
      if (k === "#text") continue;
      if (k.startsWith("@_")) expect(attrs).toContain(k.slice(2));
      else expect(children).toContain(k);
    }
  };
  allowed(suites, ["name", "tests", "failures", "errors", "time", "disabled"], ["testsuite"]);
  let tests = 0;
  let failures = 0;
  let errors = 0;
  for (const suite of asArray(suites.testsuite)) {
    allowed(
      suite,
      ["name", "tests", "failures", "errors", "skipped", "time", "timestamp", "hostname", "id", "package"],
      ["properties", "testcase", "system-out", "system-err"],
    );
    for (const required of ["name", "tests", "failures", "errors", "time", "timestamp"])
      expect(suite[`@_${required}`]).toBeDefined();
    // xs:dateTime without a zone, as junit.xsd's timestamp is restricted.
    expect(suite["@_timestamp"]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
    expect(suite["@_time"]).toMatch(/^\d+(\.\d+)?$/);
    const cases = asArray(suite.testcase);
    expect(Number(suite["@_tests"])).toBe(cases.length);
    expect(Number(suite["@_failures"])).toBe(cases.filter((c) => c.failure !== undefined).length);
    expect(Number(suite["@_errors"])).toBe(cases.filter((c) => c.error !== undefined).length);
    for (const c of cases) {
      allowed(
        c,
        ["name", "classname", "time", "assertions", "status"],
        ["failure", "error", "skipped", "system-out", "system-err"],
      );
      expect(typeof c["@_name"]).toBe("string");
      expect(c["@_classname"]).toBe(suite["@_name"]);
      for (const f of [...asArray(c.failure), ...asArray(c.error)]) {
        allowed(f, ["message", "type"], []);
        expect(typeof f["@_message"]).toBe("string");
        expect(typeof f["#text"]).toBe("string");
      }
    }
    tests += cases.length;
    failures += Number(suite["@_failures"]);
    errors += Number(suite["@_errors"]);
  }
  expect([suites["@_tests"], suites["@_failures"], suites["@_errors"]].map(Number)).toEqual([
    tests,
    failures,
    errors,
  ]);
}

it("--junit writes a JUnit XML document: a suite per file, a case per expectation, failures with the row and what happened", async () => {
  const { result, xml } = await runAll();
  expect(result.code).toBe(2);
  expect(XMLValidator.validate(xml)).toBe(true);
  const root = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: "@_",
    parseAttributeValue: false,
  }).parse(xml) as Node;
  checkJunitSchema(root);
  const suites = asArray((root.testsuites as Node).testsuite);
  expect(suites.map((s) => [s["@_name"], s["@_tests"], s["@_failures"], s["@_errors"]])).toEqual([
    ["passing.yaml", "2", "0", "0"],
    // two expectations, the unexpected notification (+7m), the failed sends
    ["failing.yaml", "4", "3", "0"],
    ["broken.yaml", "1", "0", "1"],
  ]);
  const passing = asArray(suites[0].testcase);
  expect(passing.map((c) => c["@_name"])).toEqual([
    "line 7: fatal Open at +2m, want 1",
    "line 8: fatal Closed any time, want 0",
  ]);
  const failing = asArray(suites[1].testcase);
  expect(failing.map((c) => [c["@_name"], (c.failure as Node | undefined)?.["@_type"]])).toEqual([
    ["line 14: fatal<&> Open at +2m, want 1", undefined],
    ["line 15: fatal<&> Open at +4m, want 1", "expectation"],
    ["no unexpected notification", "unexpected"],
    ["notifier hook: notifications from fatal<&> are sent", "notification-failed"],
  ]);
  const row = failing[1].failure as Node;
  expect(row["@_message"]).toBe("expected 1, got 0");
  // The row as a line that names its columns, then what happened instead (the renderer's words are its own).
  expect((row["#text"] as string).split("\n")).toEqual([
    "✗ line 15: fatal<&> Open, group -, to (any), at +4m: want 1, got 0 (sent at -)",
    expect.stringMatching(/^got fatal<&> Open at \+3m to hook \[failed: .*NoSuchField.*\]$/),
    expect.stringMatching(/^got fatal<&> Open at \+7m to hook \[failed: .*NoSuchField.*\]$/),
  ]);
  const broken = asArray(suites[2].testcase)[0].error as Node;
  expect(broken["@_type"]).toBe("problems");
  expect(broken["#text"]).toMatch(/^broken\.yaml:1:8: until: must be a duration/);
});

it("--format json prints one documented document on stdout, and nothing else", async () => {
  const { result, out } = await runAll();
  expect(out).toHaveLength(1);
  const doc = JSON.parse(out[0]) as Record<string, unknown>;
  expect(doc).toMatchObject({ version: 1, code: result.code });
  const files = doc.files as Record<string, unknown>[];
  expect(files.map((f) => [f.file, f.status])).toEqual([
    ["passing.yaml", "pass"],
    ["failing.yaml", "fail"],
    ["broken.yaml", "error"],
  ]);
  expect(files[0].expectations).toEqual([
    {
      line: 7,
      monitor: "fatal",
      action: "Open",
      group: null,
      notifier: null,
      when: "at +2m",
      want: "1",
      got: 1,
      sentAt: ["+3m"],
      ok: true,
      hints: [],
    },
    expect.objectContaining({ line: 8, action: "Closed", want: "0", got: 0, ok: true }),
  ]);
  expect(files[1]).toMatchObject({
    unexpected: [
      {
        monitor: "fatal<&>",
        action: "Open",
        at: "+7m",
        group: null,
        notifications: [
          { notifier: "hook", outcome: "failed", reason: expect.stringContaining("NoSuchField") },
        ],
      },
    ],
    failures: [
      {
        kind: "notification-failed",
        monitor: "fatal<&>",
        notifier: "hook",
        failed: 2,
        of: 2,
        firstAt: "+3m",
      },
    ],
    warnings: [],
    problems: [],
  });
  expect(files[2]).toMatchObject({
    expectations: [],
    problems: [{ file: "broken.yaml", line: 1, column: 8, field: "until", message: expect.any(String) }],
  });
});

it("--format text is the default; an unwritable --junit path is a usage error naming it", async () => {
  writeFileSync(join(tmp.path, "passing.yaml"), PASSING);
  const out: string[] = [];
  const err: string[] = [];
  const r = await testAlerts(["passing.yaml"], {
    cwd: tmp.path,
    junit: join(tmp.path, "no-such-folder", "a.xml"),
    out: (l) => out.push(l),
    err: (l) => err.push(l),
  });
  expect(out[0]).toBe("passing.yaml: PASS, 2 of 2 expectations met");
  expect(r.code).toBe(2);
  expect(err).toEqual([`--junit ${join(tmp.path, "no-such-folder", "a.xml")}: cannot write it (ENOENT)`]);
});
