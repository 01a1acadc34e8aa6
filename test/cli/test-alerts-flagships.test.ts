/**
 * Each language's flagship carries an alert-test file, run here through the command; the files' monitors and
 * notifier are the flagships' own (Pulumi.yaml's, read as YAML, and each program's, by the values it spells out).
 * The docs' first example runs too, so what docs/testing-alerts.md shows is a test that passes.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { testAlerts } from "../../cli/commands/test-alerts";
import { useTempDir } from "../helpers/cli";

const ROOT = join(__dirname, "..", "..");
const FLAGSHIPS = {
  yaml: "Pulumi.yaml",
  typescript: "index.ts",
  python: "__main__.py",
  go: "main.go",
} as const;
type Language = keyof typeof FLAGSHIPS;

const fileOf = (language: Language) => `examples/${language}-flagship/alerts.test.yaml`;
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");
type Doc = Record<string, Record<string, Record<string, unknown>>>;

describe.each(Object.keys(FLAGSHIPS) as Language[])("examples/%s-flagship/alerts.test.yaml", (language) => {
  it("passes: the burst opens and closes the 5xx monitor, the panic fires the match monitor once", async () => {
    const out: string[] = [];
    const err: string[] = [];
    const result = await testAlerts([fileOf(language)], {
      cwd: ROOT,
      out: (l) => out.push(l),
      err: (l) => err.push(l),
    });
    expect(err).toEqual([]);
    expect(out[0]).toBe(`${fileOf(language)}: PASS, 3 of 3 expectations met`);
    expect(result.code).toBe(0);
    const sent = result.outcomes[0].outbox.map(
      (e) => `${e.monitorName} ${e.action} ${e.time.slice(11, 16)} ${e.outcome}`,
    );
    expect(sent).toEqual([
      "Checkout 5xx rate Open 00:25 delivered",
      "Checkout 5xx rate Closed 00:40 delivered",
      "Checkout panics Open 00:46 delivered",
    ]);
  });

  it("its notifier and monitors are the program's", () => {
    const file = parse(read(fileOf(language))) as Doc;
    const source = read(`examples/${language}-flagship/${FLAGSHIPS[language]}`);
    if (language === "yaml") {
      const program = parse(source) as {
        resources: Record<string, { type: string; properties: Record<string, unknown> }>;
      };
      const ofType = (type: string) =>
        Object.fromEntries(
          Object.entries(program.resources)
            .filter(([, r]) => r.type === type)
            .map(([name, r]) => [name, r.properties]),
        );
      expect(file.monitors).toEqual(ofType("observability:Monitor"));
      const notifiers = ofType("observability:Notifier");
      expect(Object.keys(file.notifiers)).toEqual(Object.keys(notifiers));
      // The URL is the stack's secret (`${slackWebhookUrl}`); the test's goes to its receiver.
      expect({ ...file.notifiers["oncall-slack"], properties: undefined }).toEqual({
        ...notifiers["oncall-slack"],
        properties: undefined,
      });
      return;
    }
    // The other languages declare the YAML flagship's resources (test/e2e-native's languages tests deploy all
    // four); here, every value the file gives is spelt out in the program, and the file equals the YAML one's.
    const yamlFile = parse(read(fileOf("yaml"))) as Doc;
    expect(file).toEqual(yamlFile);
    for (const monitor of Object.values(file.monitors)) {
      for (const key of ["name", "aplQuery", "description"] as const) {
        if (monitor[key] === undefined) continue;
        // The programs name the dataset through a constant (`['${HTTP_LOGS}']`, f"['{HTTP_LOGS}']", …): what
        // follows it is spelt out.
        expect(source).toContain(String(monitor[key]).replace("['http-logs']", ""));
      }
    }
    expect(source).toContain(String(file.notifiers["oncall-slack"].name));
  });
});

const tmp = useTempDir();

it("docs/testing-alerts.md's first example passes as shown", async () => {
  const docs = read("docs/testing-alerts.md");
  const example = /## Write a test\n\n```yaml\n([\s\S]*?)```/.exec(docs)![1];
  writeFileSync(join(tmp.path, "alerts.test.yaml"), example);
  const out: string[] = [];
  const result = await testAlerts(["alerts.test.yaml"], {
    cwd: tmp.path,
    out: (l) => out.push(l),
    err: (l) => out.push(l),
  });
  expect(out[0]).toBe("alerts.test.yaml: PASS, 2 of 2 expectations met");
  expect(result.code).toBe(0);
});
