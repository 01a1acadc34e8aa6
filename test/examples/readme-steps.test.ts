/**
 * The by-hand steps in each example's README work after `npm run demo`: they use the demo's state backend
 * (`.pulumi-state/`), its passphrase (the one scripts/shared/engine.ts documents, LOCAL_PASSPHRASE), its stack name and its
 * emulator data file. A stack's secrets are encrypted with the passphrase it was created with, so a README with
 * another passphrase fails at its first `pulumi config set --secret` on the stack the demo made.
 *
 * What the demo uses is read from scripts/demo.mts and scripts/shared/engine.ts with the TypeScript parser (declarations,
 * not text), so a reformat of either changes nothing here.
 */
import { readdirSync, readFileSync } from "node:fs";
import * as path from "node:path";
import ts from "typescript";

const ROOT = path.resolve(__dirname, "..", "..");
const EXAMPLES = path.join(ROOT, "examples");

/** The source of a script, parsed. */
function parse(file: string): ts.SourceFile {
  const full = path.join(ROOT, file);
  return ts.createSourceFile(full, readFileSync(full, "utf8"), ts.ScriptTarget.ES2022, true);
}

/**
 * The value of the `const name` declared anywhere in `source`: a string literal, or `path.join(...)` of string
 * literals and other such consts, with `REPO_ROOT` standing for the repository (so the result is relative to it).
 */
function constValue(source: ts.SourceFile, name: string): string {
  let init: ts.Expression | undefined;
  const visit = (node: ts.Node): void => {
    if (init) return;
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.name.text === name) {
      init = node.initializer;
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  if (!init) throw new Error(`${path.relative(ROOT, source.fileName)} declares no const ${name}`);
  const evaluate = (e: ts.Expression): string => {
    if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return e.text;
    if (ts.isIdentifier(e)) return e.text === "REPO_ROOT" ? "" : constValue(source, e.text);
    if (ts.isCallExpression(e) && e.expression.getText(source) === "path.join")
      return path.join(...e.arguments.map(evaluate));
    throw new Error(`${name} in ${path.relative(ROOT, source.fileName)} is not a value this test reads`);
  };
  return evaluate(init);
}

const demo = parse("scripts/demo.mts");
const engine = parse("scripts/shared/engine.ts");
/** What `npm run demo` uses. */
const DEMO = {
  passphrase: constValue(engine, "LOCAL_PASSPHRASE"),
  stateDir: constValue(demo, "STATE_DIR"),
  stack: constValue(demo, "STACK"),
  dataFile: constValue(demo, "dataFile"),
};

/** Every example folder with a README. */
const READMES = readdirSync(EXAMPLES, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .filter((name) => readdirSync(path.join(EXAMPLES, name)).includes("README.md"));

/** The `sh` blocks of a README, joined. */
function shell(name: string): string {
  const text = readFileSync(path.join(EXAMPLES, name, "README.md"), "utf8");
  return [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]).join("\n");
}

/** Every value given to `NAME=` in `text`, unquoted. */
const assigned = (text: string, name: string) =>
  [...text.matchAll(new RegExp(`\\b${name}=("[^"]*"|'[^']*'|\\S+)`, "g"))].map((m) =>
    m[1].replace(/^["']|["']$/g, ""),
  );

it("reads what the demo uses", () => {
  expect(DEMO).toEqual({
    passphrase: expect.stringMatching(/\S/),
    stateDir: ".pulumi-state",
    stack: expect.stringMatching(/^[\w-]+$/),
    dataFile: path.join(".demo", "emulator.json"),
  });
  expect(READMES).toEqual(expect.arrayContaining(["monitors-to-notifiers", "adopt-existing", "team-access"]));
});

describe.each(READMES)("examples/%s/README.md", (name) => {
  const text = readFileSync(path.join(EXAMPLES, name, "README.md"), "utf8");
  const steps = shell(name);

  it("sets the demo's passphrase wherever it sets one, and sets it in its by-hand steps", () => {
    expect(assigned(steps, "PULUMI_CONFIG_PASSPHRASE")).not.toHaveLength(0);
    for (const value of assigned(text, "PULUMI_CONFIG_PASSPHRASE")) expect(value).toBe(DEMO.passphrase);
  });

  it("uses the demo's state folder as its backend", () => {
    expect(assigned(steps, "PULUMI_BACKEND_URL")).not.toHaveLength(0);
    for (const value of assigned(text, "PULUMI_BACKEND_URL"))
      expect(value).toBe(`file://$(git rev-parse --show-toplevel)/${DEMO.stateDir}`);
  });

  it("selects the demo's stack name", () => {
    const stacks = [...steps.matchAll(/pulumi stack select --create (\S+)/g)].map((m) => m[1]);
    expect(stacks).not.toHaveLength(0);
    for (const stack of stacks) expect(stack).toBe(DEMO.stack);
  });

  it("starts the emulator on the demo's data file", () => {
    const starts = steps.split("\n").filter((line) => /observability emulator\b/.test(line));
    expect(starts).not.toHaveLength(0);
    for (const line of starts)
      expect(line).toMatch(new RegExp(`--data ${DEMO.dataFile.replace(".", "\\.")}(\\s|$)`));
  });

  it("is the project the demo would make of its folder (the demo names a project after its folder)", () => {
    const yaml = readFileSync(path.join(EXAMPLES, name, "Pulumi.yaml"), "utf8");
    expect(/^name:\s*(\S+)/m.exec(yaml)?.[1]).toBe(name);
  });
});
