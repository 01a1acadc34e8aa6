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
