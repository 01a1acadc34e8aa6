/**
 * templates/<language>, the projects `pulumi new <path or URL>` makes, checked without running them: every resource
 * type, input (nested ones too) and enum member each program names exists in the generated schema
 * (dist/provider/native/schema.json), so that a renamed field fails here rather than in a user's first `pulumi up`;
 * the `template:` section asks for the same settings in every language, the provider's by their schema names, the
 * token as a secret; and each names this package's released SDK at its version, beside the Pulumi SDK its flagship
 * (examples/<language>-flagship) names. test/e2e-native/templates.test.ts runs them.
 *
 * Each language's program is read as the SDK spells it: TypeScript through the TypeScript compiler's parser; Python
 * and Go by a reader of the literal forms these templates use (calls with keyword arguments, dict and struct
 * literals), which fails on a form it does not know rather than skip it.
 */
import { readFileSync, readdirSync } from "node:fs";
import * as path from "node:path";
import { parseYaml } from "../helpers/yaml";
import * as ts from "typescript";

const ROOT = path.resolve(__dirname, "../..");
const TEMPLATES = path.join(ROOT, "templates");
const VERSION = (JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string }).version;

interface PropertySpec {
  type?: string;
  $ref?: string;
  items?: PropertySpec;
  additionalProperties?: PropertySpec;
  secret?: boolean;
}
interface TypeSpec {
  type?: string;
  properties?: Record<string, PropertySpec>;
  enum?: { name: string; value: string }[];
}
interface Schema {
  config: { variables: Record<string, PropertySpec & { description?: string }> };
  resources: Record<string, { inputProperties: Record<string, PropertySpec> }>;
  types: Record<string, TypeSpec>;
}
const SCHEMA = JSON.parse(
  readFileSync(path.join(ROOT, "dist", "provider", "native", "schema.json"), "utf8"),
) as Schema;
const token = (name: string) => `observability:index:${name}`;

/** What a program gives a property: a literal object (its properties), a literal string, or anything else. */
type Value = { object: Record<string, Value> } | { scalar: string } | { other: true };
/** One resource a program declares: its kind and its literal inputs, by the schema's names. */
interface Declared {
  kind: string;
  inputs: Record<string, Value>;
}
/** What a program names of the SDK: resources, and enum members (`MonitorType.Threshold`). */
interface Program {
  resources: Declared[];
  enums: { type: string; member: string }[];
  /** SDK names that are neither (a Go `...Args` type, say), each as the schema type it must be. */
  types: string[];
}

/** The mistakes in `inputs` against the properties `props` of `where`. */
function checkInputs(where: string, props: Record<string, PropertySpec>, inputs: Record<string, Value>): string[] {
  const errors: string[] = [];
  for (const [key, value] of Object.entries(inputs)) {
    const spec = props[key];
    if (!spec) errors.push(`${where}: no input ${key} in the schema`);
    else errors.push(...checkValue(`${where}.${key}`, spec, value));
  }
  return errors;
}

function checkValue(where: string, spec: PropertySpec, value: Value): string[] {
  const target = spec.$ref ? SCHEMA.types[spec.$ref.replace("#/types/", "")] : undefined;
  if (spec.$ref && !target) return [`${where}: the schema's ${spec.$ref} is missing`];
  if ("object" in value) {
    if (target?.properties) return checkInputs(where, target.properties, value.object);
    // A map (dataset name to capabilities, say): its keys are the user's, its values of one type.
    if (spec.additionalProperties)
      return Object.entries(value.object).flatMap(([k, v]) =>
        checkValue(`${where}[${k}]`, spec.additionalProperties!, v),
      );
    return [`${where}: an object given where the schema has no object`];
  }
  if ("scalar" in value && target?.enum && !target.enum.some((e) => e.value === value.scalar))
    return [`${where}: ${value.scalar} is not one of ${target.enum.map((e) => e.value).join(", ")}`];
  return [];
}

/** The mistakes of a whole program against the schema. */
function checkProgram(program: Program): string[] {
  const errors: string[] = [];
  for (const r of program.resources) {
    const resource = SCHEMA.resources[token(r.kind)];
    if (!resource) errors.push(`${r.kind}: no resource ${token(r.kind)} in the schema`);
    else errors.push(...checkInputs(r.kind, resource.inputProperties, r.inputs));
  }
  for (const e of program.enums) {
    const type = SCHEMA.types[token(e.type)];
    if (!type?.enum) errors.push(`${e.type}: no enum ${token(e.type)} in the schema`);
    else if (!type.enum.some((m) => m.name === e.member)) errors.push(`${e.type}.${e.member}: no such member`);
  }
  for (const t of program.types)
    if (!SCHEMA.types[token(t)] && !SCHEMA.resources[token(t)]) errors.push(`${t}: no type ${token(t)}`);
  return errors;
}

// ---- YAML: the program is the project file.

function yamlValue(v: unknown): Value {
  if (v !== null && typeof v === "object" && !Array.isArray(v))
    return { object: Object.fromEntries(Object.entries(v).map(([k, x]) => [k, yamlValue(x)])) };
  // An interpolation is the program's, not a literal the schema can judge.
  if (typeof v === "string" && !v.includes("${")) return { scalar: v };
  return { other: true };
}

function readYaml(text: string): Program {
  const project = parseYaml(text) as { resources?: Record<string, { type: string; properties?: object }> };
  const resources = Object.values(project.resources ?? {}).map((r) => {
    const kind = /^observability:(?:index:)?(\w+)$/.exec(r.type)?.[1];
    if (!kind) throw new Error(`a resource of type ${r.type}, not this package's`);
    const inputs = yamlValue(r.properties ?? {});
    return { kind, inputs: "object" in inputs ? inputs.object : {} };
  });
  return { resources, enums: [], types: [] };
}

// ---- TypeScript: the compiler's syntax tree.

function tsValue(node: ts.Expression): Value {
  if (ts.isObjectLiteralExpression(node)) return { object: tsObject(node) };
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return { scalar: node.text };
  return { other: true };
}

function tsObject(node: ts.ObjectLiteralExpression): Record<string, Value> {
  const out: Record<string, Value> = {};
  for (const p of node.properties) {
    if (ts.isShorthandPropertyAssignment(p)) out[p.name.text] = { other: true };
    else if (ts.isPropertyAssignment(p) && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)))
      out[p.name.text] = tsValue(p.initializer);
    else if (ts.isPropertyAssignment(p) && ts.isComputedPropertyName(p.name)) out["[computed]"] = { other: true };
    else throw new Error(`index.ts: an input of a form this check does not read: ${p.getText()}`);
  }
  return out;
}

function readTypeScript(text: string): Program {
  const file = ts.createSourceFile("index.ts", text, ts.ScriptTarget.Latest, true);
  const program: Program = { resources: [], enums: [], types: [] };
  const isObs = (e: ts.Expression) => ts.isIdentifier(e) && e.text === "obs";
  const visit = (node: ts.Node): void => {
    if (ts.isNewExpression(node) && ts.isPropertyAccessExpression(node.expression) && isObs(node.expression.expression)) {
      const args = node.arguments ?? [];
      const inputs = args[1];
      if (!inputs || !ts.isObjectLiteralExpression(inputs))
        throw new Error(`index.ts: ${node.getText().slice(0, 60)}… has no literal inputs`);
      program.resources.push({ kind: node.expression.name.text, inputs: tsObject(inputs) });
    } else if (
      ts.isPropertyAccessExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      isObs(node.expression.expression)
    ) {
      program.enums.push({ type: node.expression.name.text, member: node.name.text });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return program;
}

// ---- Python and Go: a reader of brackets, strings and comments.

/** `text` without its comments (`#` or `//` to the end of a line, outside strings). */
function stripComments(text: string, marker: "#" | "//"): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"' || c === "'" || c === "`") {
      const end = closingQuote(text, i);
      out += text.slice(i, end + 1);
      i = end;
    } else if (text.startsWith(marker, i)) {
      while (i < text.length && text[i] !== "\n") i++;
      out += "\n";
    } else out += c;
  }
  return out;
}

function closingQuote(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === text[start]) return i;
  }
  throw new Error(`an unclosed string at ${text.slice(start, start + 40)}`);
}

/** The index of the bracket closing the one at `open`. */
function closingBracket(text: string, open: number): number {
  const pairs: Record<string, string> = { "(": ")", "[": "]", "{": "}" };
  const stack: string[] = [];
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === '"' || c === "'" || c === "`") i = closingQuote(text, i);
    else if (pairs[c]) stack.push(pairs[c]);
    else if (c === stack.at(-1)) {
      stack.pop();
      if (stack.length === 0) return i;
    }
  }
  throw new Error(`an unclosed bracket at ${text.slice(open, open + 40)}`);
}

/** `text` split at the commas outside brackets and strings, each part trimmed, empty ones dropped. */
function splitTop(text: string): string[] {
  const parts: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"' || c === "'" || c === "`") i = closingQuote(text, i);
    else if ("([{".includes(c)) i = closingBracket(text, i);
    else if (c === ",") {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((p) => p.trim()).filter((p) => p !== "");
}

const camel = (snake: string) => snake.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
const pascalToCamel = (name: string) => name[0].toLowerCase() + name.slice(1);
const upperSnake = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase();

function pythonValue(text: string): Value {
  if (text.startsWith("{") && closingBracket(text, 0) === text.length - 1) {
    const object: Record<string, Value> = {};
    for (const entry of splitTop(text.slice(1, -1))) {
      const m = /^(["'])([^"']*)\1\s*:\s*([\s\S]+)$/.exec(entry);
      if (!m) throw new Error(`__main__.py: a dict entry of a form this check does not read: ${entry}`);
      // A TypedDict's keys are the SDK's snake case; a map's are the user's, left as written.
      object[m[2]] = pythonValue(m[3]);
    }
    return { object };
  }
  const str = /^(["'])([^"'{}]*)\1$/.exec(text);
  return str ? { scalar: str[2] } : { other: true };
}

/** Python's snake-case keys, camel-cased where the schema has an object with properties (not a map). */
function camelKeys(value: Value, spec: PropertySpec | undefined): Value {
  if (!("object" in value) || !spec) return value;
  const target = spec.$ref ? SCHEMA.types[spec.$ref.replace("#/types/", "")] : undefined;
  if (target?.properties) {
    const props = target.properties;
    return {
      object: Object.fromEntries(
        Object.entries(value.object).map(([k, v]) => [camel(k), camelKeys(v, props[camel(k)])]),
      ),
    };
  }
  const inner = spec.additionalProperties;
  return { object: Object.fromEntries(Object.entries(value.object).map(([k, v]) => [k, camelKeys(v, inner)])) };
}

function readPython(source: string): Program {
  const text = stripComments(source, "#");
  const program: Program = { resources: [], enums: [], types: [] };
  for (const m of text.matchAll(/\bobs\.([A-Z]\w*)\(/g)) {
    const open = m.index + m[0].length - 1;
    const args = splitTop(text.slice(open + 1, closingBracket(text, open)));
    const inputs: Record<string, Value> = {};
    const props = SCHEMA.resources[token(m[1])]?.inputProperties ?? {};
    for (const arg of args.slice(1)) {
      const kw = /^([a-z_]\w*)\s*=\s*([\s\S]+)$/.exec(arg);
      if (!kw) throw new Error(`__main__.py: an argument of a form this check does not read: ${arg}`);
      if (kw[1] === "opts") continue;
      inputs[camel(kw[1])] = camelKeys(pythonValue(kw[2]), props[camel(kw[1])]);
    }
    program.resources.push({ kind: m[1], inputs });
  }
  for (const m of text.matchAll(/\bobs\.([A-Z]\w*)\.([A-Z][A-Z0-9_]*)\b/g)) {
    const type = SCHEMA.types[token(m[1])];
    const member = type?.enum?.find((e) => upperSnake(e.name) === m[2]);
    program.enums.push({ type: m[1], member: member?.name ?? m[2] });
  }
  return program;
}

function goStruct(text: string, program: Program): Record<string, Value> {
  const object: Record<string, Value> = {};
  for (const entry of splitTop(text)) {
    const m = /^([A-Z]\w*)\s*:\s*([\s\S]+)$/.exec(entry);
    if (!m) throw new Error(`main.go: a field of a form this check does not read: ${entry}`);
    object[pascalToCamel(m[1])] = goValue(m[2], program);
  }
  return object;
}

function goValue(text: string, program: Program): Value {
  const nested = /^&?obs\.(\w+)Args\{/.exec(text);
  if (nested && closingBracket(text, nested[0].length - 1) === text.length - 1) {
    program.types.push(nested[1]);
    return { object: goStruct(text.slice(nested[0].length, -1), program) };
  }
  return { other: true };
}

function readGo(source: string): Program {
  const text = stripComments(source, "//");
  const program: Program = { resources: [], enums: [], types: [] };
  for (const m of text.matchAll(/\bobs\.New(\w+)\(ctx,\s*"[^"]*",\s*&obs\.(\w+)Args\{/g)) {
    if (m[1] !== m[2]) throw new Error(`main.go: obs.New${m[1]} given obs.${m[2]}Args`);
    const open = m.index + m[0].length - 1;
    program.resources.push({ kind: m[1], inputs: goStruct(text.slice(open + 1, closingBracket(text, open)), program) });
  }
  // Every other name of the SDK: an enum member, as the Go generator names it (type name, then member name).
  for (const m of text.matchAll(/\bobs\.(\w+)\b(?!Args\{)/g)) {
    if (/^New/.test(m[1]) || /Args$/.test(m[1])) continue;
    const found = Object.entries(SCHEMA.types).flatMap(([t, spec]) => {
      const name = t.replace("observability:index:", "");
      const member = spec.enum?.find((e) => m[1] === name + e.name);
      return member ? [{ type: name, member: member.name }] : [];
    });
    if (found.length === 0) program.types.push(m[1]);
    program.enums.push(...found);
  }
  return program;
}

// ---- The templates.

const LANGUAGES = {
  typescript: { file: "index.ts", read: readTypeScript },
  python: { file: "__main__.py", read: readPython },
  go: { file: "main.go", read: readGo },
  yaml: { file: "Pulumi.yaml", read: readYaml },
} as const;

interface TemplateProject {
  name: string;
  description: string;
  runtime: string | { name: string };
  template?: { description?: string; config?: Record<string, { description?: string; default?: string; secret?: boolean }> };
}
const project = (dir: string) =>
  parseYaml(readFileSync(path.join(TEMPLATES, dir, "Pulumi.yaml"), "utf8")) as TemplateProject;
const read = (dir: string, file: string) => readFileSync(path.join(TEMPLATES, dir, file), "utf8");

test("there is one template per language, and nothing else under templates/", () => {
  expect(readdirSync(TEMPLATES).sort()).toEqual(Object.keys(LANGUAGES).sort());
});

describe.each(Object.entries(LANGUAGES))("templates/%s", (dir, language) => {
  test("Pulumi.yaml: the name and description pulumi new substitutes, the runtime, and a template section", () => {
    const p = project(dir);
    expect(p.name).toBe("${PROJECT}");
    expect(p.description).toBe("${DESCRIPTION}");
    const runtime = typeof p.runtime === "string" ? p.runtime : p.runtime.name;
    expect(runtime).toBe({ typescript: "nodejs", python: "python", go: "go", yaml: "yaml" }[dir]);
    expect(p.template?.description).toMatch(/pulumi-observability/);
  });

  test("the template asks for the region or URL and the token, secret, by the provider's schema names", () => {
    const config = project(dir).template?.config ?? {};
    expect(Object.keys(config).sort()).toEqual(
      ["observability:region", "observability:token", "observability:url", "slackWebhookUrl"].sort(),
    );
    for (const [key, entry] of Object.entries(config)) {
      expect({ key, described: (entry.description ?? "").length > 10 }).toEqual({ key, described: true });
      if (!key.startsWith("observability:")) continue;
      const variable = SCHEMA.config.variables[key.slice("observability:".length)];
      expect({ key, inSchema: variable !== undefined }).toEqual({ key, inSchema: true });
      // As secret as the provider holds it, and never a default for a credential.
      expect({ key, secret: entry.secret ?? false }).toEqual({ key, secret: variable.secret ?? false });
    }
    expect(config["observability:token"]).toMatchObject({ secret: true });
    expect(config["observability:token"].default).toBeUndefined();
    expect(config.slackWebhookUrl).toMatchObject({ secret: true });
    expect(config.slackWebhookUrl.default).toBeUndefined();
    const regions = SCHEMA.types[SCHEMA.config.variables.region.$ref!.replace("#/types/", "")].enum!;
    expect(regions.map((r) => r.value)).toContain(config["observability:region"].default);
  });

  test("every resource type, input and enum member the program names is in the schema", () => {
    const program = language.read(read(dir, language.file));
    expect(program.resources.map((r) => r.kind).sort()).toEqual(["Dataset", "Monitor", "Notifier"]);
    expect(checkProgram(program)).toEqual([]);
    // The same inputs in every language: the reader saw them all.
    const inputs = Object.fromEntries(program.resources.map((r) => [r.kind, Object.keys(r.inputs).sort()]));
    expect(inputs).toEqual({
      Dataset: ["description", "name", "retentionDays", "useRetentionPeriod"],
      Notifier: ["name", "properties"],
      Monitor: [
        "aplQuery",
        "description",
        "intervalMinutes",
        "name",
        "notifierIds",
        "operator",
        "rangeMinutes",
        "threshold",
        "type",
      ],
    });
    // The notifier's webhook URL comes from the secret configuration, never a literal.
    const notifier = program.resources.find((r) => r.kind === "Notifier")!;
    expect(notifier.inputs.properties).toEqual({ object: { slack: { object: { slackUrl: { other: true } } } } });
  });
});

test("the check catches a renamed input, a nested one, an unknown kind and an enum member", () => {
  const tsSource = read("typescript", "index.ts")
    .replace("retentionDays:", "retentionDayz:")
    .replace("{ slack: { slackUrl } }", "{ slack: { slackURL: slackUrl } }")
    .replace("new obs.Monitor(", "new obs.Monitr(")
    .replace("MonitorOperator.Above", "MonitorOperator.Over");
  expect(checkProgram(readTypeScript(tsSource))).toEqual([
    "Dataset: no input retentionDayz in the schema",
    "Notifier.properties.slack: no input slackURL in the schema",
    "Monitr: no resource observability:index:Monitr in the schema",
    "MonitorOperator.Over: no such member",
  ]);
  const py = read("python", "__main__.py").replace('{"slack_url": slack_url}', '{"slack_uri": slack_url}');
  expect(checkProgram(readPython(py))).toEqual(["Notifier.properties.slack: no input slackUri in the schema"]);
  const go = read("go", "main.go")
    .replace("obs.NotifierPropertiesSlackArgs{SlackUrl:", "obs.NotifierPropertiesSlackArgs{SlackURI:")
    .replace("obs.MonitorTypeThreshold", "obs.MonitorTypeThreshhold");
  expect(checkProgram(readGo(go))).toEqual([
    "Notifier.properties.slack: no input slackURI in the schema",
    "MonitorTypeThreshhold: no type observability:index:MonitorTypeThreshhold",
  ]);
  const yaml = read("yaml", "Pulumi.yaml").replace("operator: Above", "operator: Over");
  expect(checkProgram(readYaml(yaml))).toEqual([
    "Monitor.operator: Over is not one of Below, BelowOrEqual, Above, AboveOrEqual, AboveOrBelow",
  ]);
});

describe("each template names the released SDK at this package's version, and Pulumi's SDK as its flagship does", () => {
  const [major, minor] = VERSION.split(".").map(Number);
  const flagship = (language: string, file: string) =>
    readFileSync(path.join(ROOT, "examples", `${language}-flagship`, file), "utf8");

  test("TypeScript: @pulumi-observability/sdk ^version", () => {
    const pkg = JSON.parse(read("typescript", "package.json")) as {
      name: string;
      dependencies: Record<string, string>;
    };
    const example = JSON.parse(flagship("typescript", "package.json")) as { dependencies: Record<string, string> };
    expect(pkg.name).toBe("${PROJECT}");
    expect(pkg.dependencies).toEqual({
      "@pulumi-observability/sdk": `^${VERSION}`,
      "@pulumi/pulumi": example.dependencies["@pulumi/pulumi"],
    });
    const sdk = JSON.parse(readFileSync(path.join(ROOT, "sdk", "nodejs", "package.json"), "utf8")) as {
      name: string;
    };
    expect(sdk.name).toBe("@pulumi-observability/sdk");
  });

  test("Python: pulumi_observability from this version up to the next minor", () => {
    const lines = read("python", "requirements.txt").trim().split("\n");
    const pulumi = flagship("python", "requirements.txt")
      .split("\n")
      .find((l) => l.startsWith("pulumi>="));
    expect(lines).toEqual([pulumi, `pulumi_observability>=${VERSION},<${major}.${minor + 1}.0`]);
    expect(readFileSync(path.join(ROOT, "sdk", "python", "pyproject.toml"), "utf8")).toMatch(
      /^\s*name = "pulumi_observability"$/m,
    );
  });

  test.each(Object.keys(LANGUAGES))("%s: the README's versions are this one", (dir) => {
    const readme = read(dir, "README.md");
    expect(readme).toMatch(/^# \$\{PROJECT\}$/m);
    for (const v of readme.match(/\bv\d+\.\d+\.\d+\b/g) ?? []) expect(v).toBe(`v${VERSION}`);
    // YAML's has no SDK to name the plugin's version: its README does.
    if (dir === "yaml") expect(readme).toContain(`pulumi plugin install resource observability v${VERSION} `);
  });

  test("Go: the SDK module at v<version>, module ${PROJECT}", () => {
    const mod = read("go", "go.mod");
    const example = flagship("go", "go.mod");
    const pulumiSdk = /^\s*(github\.com\/pulumi\/pulumi\/sdk\/v3 v\S+)$/m.exec(example)?.[1];
    expect(mod).toMatch(/^module \$\{PROJECT\}$/m);
    expect(mod).toContain(`github.com/pulumi-observability/pulumi-observability/sdk/go v${VERSION}\n`);
    expect(mod).toContain(`${pulumiSdk}\n`);
    expect(mod).not.toMatch(/^replace /m);
    expect(/^go (\S+)$/m.exec(mod)?.[1]).toBe(/^go (\S+)$/m.exec(example)?.[1]);
  });
});
