/**
 * Each docs/resources/<kind>.md shows its kind in TypeScript, Python, Go and YAML on the native provider's SDKs:
 * the section scripts/docs-languages.mts renders from the package schema is the one committed. (The e2e suites
 * run each language's declarations through its SDK: test/e2e-native.)
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import * as path from "node:path";

const ROOT = path.resolve(__dirname, "../..");
const KINDS = [
  "annotation",
  "api-token",
  "dashboard",
  "dataset",
  "group",
  "monitor",
  "notifier",
  "organization-name",
  "role",
  "starred-query",
  "user",
  "view",
  "virtual-field",
  "slo",
];

test("rule: every kind's doc has its section in TypeScript, Python, Go and YAML, with its type token", () => {
  for (const kind of KINDS) {
    const doc = readFileSync(path.join(ROOT, "docs", "resources", `${kind}.md`), "utf8");
    const section = doc.slice(doc.indexOf("<!-- languages:begin -->"), doc.indexOf("<!-- languages:end -->"));
    expect({ kind, hasSection: section.length > 0 }).toEqual({ kind, hasSection: true });
    for (const fence of ["```ts", "```python", "```go", "```yaml"]) {
      expect({ kind, fence, present: section.includes(fence) }).toEqual({ kind, fence, present: true });
    }
    expect(section).toMatch(/type token `observability:index:[A-Za-z]+`/);
  }
});

test("rule: the sections are what the schema gives (npm run docs:languages -- --check)", () => {
  const r = spawnSync(process.execPath, [path.join(ROOT, "scripts", "docs-languages.mts"), "--check"], {
    cwd: ROOT,
    encoding: "utf8",
  });
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
}, 60_000);

/** The kinds whose identity is unique: a forced replacement created first would clash (docs/native-provider.md). */
const UNIQUE = ["dashboard", "dataset", "group", "organization-name", "role", "user", "view"];

test("rule: a kind whose identity is unique sets deleteBeforeReplace in each language's syntax, and says why", () => {
  for (const kind of UNIQUE) {
    const doc = readFileSync(path.join(ROOT, "docs", "resources", `${kind}.md`), "utf8");
    const section = doc.slice(doc.indexOf("<!-- languages:begin -->"), doc.indexOf("<!-- languages:end -->"));
    const shown = {
      kind,
      ts: section.includes("{ deleteBeforeReplace: true }"),
      python: section.includes("opts=pulumi.ResourceOptions(delete_before_replace=True)"),
      go: section.includes("pulumi.DeleteBeforeReplace(true))"),
      yaml: /\n {2}options:\n {4}deleteBeforeReplace: true\n/.test(section),
      why: section.includes("`pulumi up --replace`"),
    };
    expect(shown).toEqual({ kind, ts: true, python: true, go: true, yaml: true, why: true });
  }
  for (const kind of KINDS.filter((k) => !UNIQUE.includes(k))) {
    const doc = readFileSync(path.join(ROOT, "docs", "resources", `${kind}.md`), "utf8");
    expect({ kind, option: doc.includes("deleteBeforeReplace: true") }).toEqual({ kind, option: false });
  }
});

test("rule: where a page says deleteBeforeReplace defaults to true, it says that holds for the dynamic class", () => {
  for (const kind of KINDS) {
    const doc = readFileSync(path.join(ROOT, "docs", "resources", `${kind}.md`), "utf8");
    for (const line of doc.split("\n").filter((l) => /`deleteBeforeReplace` (defaults to|is) `true`/.test(l)))
      expect({ kind, line: line.slice(0, 120), dynamic: /dynamic class/.test(line) }).toMatchObject({
        kind,
        dynamic: true,
      });
  }
});
