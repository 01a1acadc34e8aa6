/**
 * `--junit FILE.xml` and `--format json`: what CI reads. The XML is validated by libxml2 against the JUnit schemas
 * the CI readers follow (test/fixtures/junit/), read back through it as a conforming parser does (so a message's
 * line breaks must survive attribute-value normalisation), and its counts checked. One suite per file, one case per
 * expectation.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hostname } from "node:os";
import { XMLParser } from "fast-xml-parser";
import { validateXML } from "xmllint-wasm";
import { toJunit } from "../../cli/alert-test/formats";
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

/**
 * The schemas the CI readers follow, as published (test/fixtures/junit/README.md says where from): Ant's, which
 * GitLab's and the GitHub actions' `testsuites > testsuite > testcase > failure|error|skipped, system-out,
 * system-err` comes from and which requires every suite's `package`, `id`, `hostname` and `timestamp`; and
 * Jenkins' junit-10.xsd. libxml2 (compiled to WebAssembly, so no system package) validates against them.
 */
const SCHEMAS = ["ant-junit.xsd", "jenkins-junit-10.xsd"];
const fixture = (name: string) => readFileSync(join(__dirname, "..", "fixtures", "junit", name), "utf8");

/** libxml2's complaints about the document against one schema; none when it is valid. */
async function schemaErrors(xml: string, schema: string): Promise<string[]> {
  const result = await validateXML({
    xml: [{ fileName: "alerts.xml", contents: xml }],
    schema: [{ fileName: schema, contents: fixture(schema) }],
  });
  return result.valid ? [] : result.errors.map((e) => e.rawMessage);
}

/** The document as libxml2, a conforming parser, reads it (canonical XML: attribute values normalised as XML 1.0
 * says, every remaining tab, line break and CR written as a reference), then parsed into a tree. */
async function readAsConformingParser(xml: string): Promise<Node> {
  const result = await validateXML({
    xml: [{ fileName: "alerts.xml", contents: xml }],
    normalization: "c14n",
  });
  expect(result.errors.map((e) => e.rawMessage)).toEqual([]);
  return new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: "@_",
    parseAttributeValue: false,
    // canonical XML writes tab, LF and CR as hexadecimal references
    htmlEntities: true,
  }).parse(result.normalized) as Node;
}

/** What the schemas cannot say: each suite's counts are those of its cases, and every case is the file's. */
function checkCounts(root: Node): void {
  const suites = root.testsuites as Node;
  asArray(suites.testsuite).forEach((suite, id) => {
    const cases = asArray(suite.testcase);
    expect(Number(suite["@_tests"])).toBe(cases.length);
    expect(Number(suite["@_failures"])).toBe(cases.filter((c) => c.failure !== undefined).length);
    expect(Number(suite["@_errors"])).toBe(cases.filter((c) => c.error !== undefined).length);
    expect([suite["@_id"], suite["@_package"], suite["@_hostname"]]).toEqual([
      String(id),
      suite["@_name"],
      hostname(),
    ]);
    for (const c of cases) expect(c["@_classname"]).toBe(suite["@_name"]);
  });
}

it.each(SCHEMAS)(
  "--junit writes a document valid against %s: a file that passes, one that fails and one that did not load",
  async (schema) => {
    const { xml } = await runAll();
    expect(await schemaErrors(xml, schema)).toEqual([]);
  },
);

it("the schema check can fail: a suite without the hostname Ant's schema requires is refused, naming it", async () => {
  const { xml } = await runAll();
  const errors = await schemaErrors(xml.replace(/ hostname="[^"]*"/, ""), "ant-junit.xsd");
  expect(errors).toEqual([expect.stringMatching(/testsuite.*The attribute 'hostname' is required/)]);
});

it("--junit writes a JUnit XML document: a suite per file, a case per expectation, failures with the row and what happened", async () => {
  const { result, xml } = await runAll();
  expect(result.code).toBe(2);
  const root = await readAsConformingParser(xml);
  checkCounts(root);
  const suites = asArray((root.testsuites as Node).testsuite);
  expect(suites.map((s) => [s["@_name"], s["@_tests"], s["@_failures"], s["@_errors"]])).toEqual([
    ["passing.yaml", "2", "0", "0"],
    // two expectations, the unexpected notification (+7m), the failed sends
    ["failing.yaml", "4", "3", "0"],
    ["broken.yaml", "1", "0", "1"],
  ]);
  // xs:dateTime without a zone, as the schemas' timestamp is restricted: when the file started, in UTC.
  for (const s of suites) expect(s["@_timestamp"]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
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

it("a message keeps its line breaks, tabs and CRs, and characters XML cannot hold are replaced, never ill-formed", async () => {
  // A setup error holding a line break, a tab, a CR, a control character (U+0001) and a lone surrogate: the error
  // reaches both the <error> message attribute and its text.
  const setupError = "first line\nsecond\tcolumn\rthird \u0001 \uD800 end";
  const xml = toJunit(
    [{ file: "odd.yaml", seconds: 0.5, startedAt: new Date(Date.UTC(2024, 5, 3)), setupError }],
    { hostname: "ci-runner" },
  );
  for (const schema of SCHEMAS) expect(await schemaErrors(xml, schema)).toEqual([]);
  const suite = (await readAsConformingParser(xml)).testsuites as Node;
  const error = (suite.testsuite as Node).testcase as Node;
  const readBack = "first line\nsecond\tcolumn\rthird \uFFFD \uFFFD end";
  expect((error.error as Node)["@_message"]).toBe(`the test could not be set up: ${readBack}`);
  expect((error.error as Node)["#text"]).toBe(readBack);
  expect((suite.testsuite as Node)["@_timestamp"]).toBe("2024-06-03T00:00:00");
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
