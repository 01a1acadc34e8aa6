/**
 * docs/_index.md and docs/installation-configuration.md are the Pulumi Registry's pages of the package: the
 * front matter the Registry reads (`title`, `meta_desc`, `layout: package`, as pulumi/pulumi-random's
 * docs/_index.md has it), and what scripts/registry-docs.mts renders from the package schema is what is committed.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import * as path from "node:path";

const ROOT = path.resolve(__dirname, "../..");

test.each(["_index.md", "installation-configuration.md"])("%s has the Registry's front matter", (file) => {
  const text = readFileSync(path.join(ROOT, "docs", file), "utf8");
  const front = /^---\n([\s\S]*?)\n---\n/.exec(text)?.[1] ?? "";
  expect(front).toMatch(/^title: \S.*$/m);
  expect(front).toMatch(/^meta_desc: \S.*$/m);
  expect(front).toMatch(/^layout: package$/m);
});

test("the pages are what the schema gives (npm run docs:registry -- --check)", () => {
  const r = spawnSync(process.execPath, [path.join(ROOT, "scripts", "registry-docs.mts"), "--check"], {
    cwd: ROOT,
    encoding: "utf8",
  });
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: "" });
});

// The schema as the build wrote it (what the generator gives: test/native/schema.test.ts), not generated again.
test("a stale page is caught", () => {
  const r = spawnSync(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `import { registryPages } from ${JSON.stringify(path.join(ROOT, "scripts", "registry-docs.mts"))};
       import { readFileSync } from "node:fs";
       const schema = JSON.parse(readFileSync(${JSON.stringify(path.join(ROOT, "dist", "provider", "native", "schema.json"))}, "utf8"));
       schema.config.variables.url.description = "Somewhere else.";
       const pages = await registryPages(schema);
       process.stdout.write(JSON.stringify(pages));`,
    ],
    { cwd: ROOT, encoding: "utf8" },
  );
  expect(r.stderr.replace(/.*ExperimentalWarning.*\n?|.*--trace-warnings.*\n?/g, "")).toBe("");
  const pages = JSON.parse(r.stdout) as Record<string, string>;
  const committed = readFileSync(path.join(ROOT, "docs", "installation-configuration.md"), "utf8");
  expect(pages["docs/installation-configuration.md"]).toContain("Somewhere else.");
  expect(pages["docs/installation-configuration.md"]).not.toBe(committed);
  expect(pages["docs/_index.md"]).toBe(readFileSync(path.join(ROOT, "docs", "_index.md"), "utf8"));
});
