/**
 * `npm run docs:languages`: writes, in each docs/resources/<kind>.md, the section that declares the kind in
 * TypeScript, Python, Go and YAML on the native provider's SDKs (sdk/). Each kind's example inputs are written
 * once, below, and rendered into each language from the package schema as the build wrote it
 * (dist/provider/native/schema.json; the npm script builds first), with each SDK's naming: camelCase in
 * TypeScript and YAML, snake_case keywords and keys in Python
 * (pkg/codegen/python PyName), and typed `Args` structs, `pulumi.String(…)` and enum conversions in Go
 * (pkg/codegen/go). `--check` fails, naming the files, when a section is not what the schema gives;
 * `--programs <dir>` also writes each language's thirteen declarations as one program (the e2e test previews them).
 *
 * The section sits between `<!-- languages:begin -->` and `<!-- languages:end -->`, before `## Inputs`.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { builtSchema, prettierFormatted, writeOrCheck } from "./generated.mts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const BEGIN = "<!-- languages:begin -->";
const END = "<!-- languages:end -->";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
/* eslint-disable @typescript-eslint/no-explicit-any */
type Spec = Record<string, any>;

/** One kind's example: its doc file, the resource's logical name, and its inputs. */
interface KindExample {
  kind: string;
  doc: string;
  name: string;
  inputs: Record<string, Json>;
  /**
   * For a kind whose identity is unique: what a forced replacement created first would do (it ends "…, created
   * first, would <this>"). The example then sets the `deleteBeforeReplace` resource option, and the page says why.
   */
  forcedReplacement?: string;
}

/** The clash of a unique name or uid, for {@link KindExample.forcedReplacement}. */
const clash = (what: string) => `clash with the old object's ${what} (409)`;

export const EXAMPLES: KindExample[] = [
  {
    kind: "Dataset",
    forcedReplacement: clash("name"),
    doc: "dataset.md",
    name: "http-logs",
    inputs: {
      name: "http-logs",
      description: "Access logs of the checkout API.",
      retentionDays: 30,
      useRetentionPeriod: true,
    },
  },
  {
    kind: "ApiToken",
    doc: "api-token.md",
    name: "checkout-ingest",
    inputs: {
      name: "checkout ingest",
      description: "Ingest into http-logs only.",
      datasetCapabilities: { "http-logs": { ingest: ["create"] } },
    },
  },
  {
    kind: "Notifier",
    doc: "notifier.md",
    name: "oncall-email",
    inputs: { name: "On-call email", properties: { email: { emails: ["oncall@example.com"] } } },
  },
  {
    kind: "Monitor",
    doc: "monitor.md",
    name: "checkout-5xx",
    inputs: {
      name: "Checkout: 5xx above 50 a minute",
      type: "Threshold",
      aplQuery: "['http-logs'] | where status >= 500 | summarize count() by bin(_time, 1m)",
      operator: "Above",
      threshold: 50,
      intervalMinutes: 1,
      rangeMinutes: 5,
    },
  },
  {
    kind: "Role",
    forcedReplacement: clash("name"),
    doc: "role.md",
    name: "oncall",
    inputs: {
      name: "checkout on-call",
      orgCapabilities: { monitors: ["read", "update"], notifiers: ["read"] },
      datasetCapabilities: { "http-logs": { query: ["read"] } },
    },
  },
  {
    kind: "Group",
    forcedReplacement: clash("name"),
    doc: "group.md",
    name: "sre",
    inputs: { name: "SRE", description: "Site reliability engineers." },
  },
  {
    kind: "User",
    forcedReplacement: clash("email"),
    doc: "user.md",
    name: "alice",
    inputs: { name: "Alice Example", email: "alice@example.com", role: "user" },
  },
  {
    kind: "VirtualField",
    doc: "virtual-field.md",
    name: "duration-ms",
    inputs: {
      dataset: "http-logs",
      name: "duration_ms",
      expression: "duration / 1000000",
      type: "number",
      unit: "ms",
    },
  },
  {
    kind: "View",
    forcedReplacement: clash("name"),
    doc: "view.md",
    name: "checkout-errors",
    inputs: {
      name: "checkout-errors",
      aplQuery: "['http-logs'] | where status >= 500",
      datasets: ["http-logs"],
      description: "Server errors of the checkout API.",
    },
  },
  {
    kind: "Annotation",
    doc: "annotation.md",
    name: "deploy",
    inputs: {
      type: "deploy",
      datasets: ["http-logs"],
      title: "checkout 2024.06.1",
      time: "2024-06-01T12:00:00Z",
    },
  },
  {
    kind: "StarredQuery",
    doc: "starred-query.md",
    name: "oncall-5xx-by-route",
    inputs: {
      kind: "apl",
      name: "On-call: 5xx by route",
      who: "team",
      dataset: "http-logs",
      query: {
        apl: "['http-logs'] | where status >= 500 | summarize count() by route",
        defaultLimit: 100,
        defaultOrder: [{ field: "_time", desc: true }],
      },
      metadata: { owner: "sre" },
    },
  },
  {
    kind: "Dashboard",
    forcedReplacement: clash("uid"),
    doc: "dashboard.md",
    name: "service-health",
    inputs: {
      uid: "service-health",
      dashboard: {
        name: "Service health",
        charts: [{ id: "runbook", type: "Note", text: "Runbook: https://runbooks.example/5xx" }],
        layout: [{ i: "runbook", x: 0, y: 0, w: 12, h: 2 }],
        refreshTime: 60,
        schemaVersion: 2,
        timeWindowStart: "qr-now-1h",
        timeWindowEnd: "qr-now",
      },
    },
  },
  {
    kind: "OrganizationName",
    forcedReplacement:
      "rename the organization it already names, and the old resource's delete would then give the " +
      "organization its previous name back",
    doc: "organization-name.md",
    name: "org-name",
    inputs: { organizationId: "my-org", name: "Example Corp" },
  },
  {
    kind: "Slo",
    doc: "slo.md",
    name: "checkout-availability",
    inputs: {
      displayName: "Checkout availability",
      dataset: "http-logs",
      events: { bad: "status >= 500" },
      objective: 99.9,
      groupBy: ["route"],
      alertWindows: { ticket: { enabled: false } },
    },
  },
];

const TYPE_PREFIX = "#/types/";

/** The spec of a property's type: a local type (object or enum) or the property itself. */
function resolve(schema: Spec, prop: Spec): Spec {
  if (typeof prop.$ref === "string" && prop.$ref.startsWith(TYPE_PREFIX)) {
    const token = prop.$ref.slice(TYPE_PREFIX.length);
    const t = schema.types[token];
    if (!t) throw new Error(`the schema has no type ${prop.$ref}`);
    return { ...t, typeName: token.split(":").at(-1) };
  }
  return prop;
}

/**
 * The member of a `oneOf` that `v` is: by the discriminator's mapping (a chart by its `type`), else the first
 * member of `v`'s JSON type (a list, an object, a string…). Any other property is itself.
 */
function member(schema: Spec, prop: Spec, v: Json): Spec {
  if (!Array.isArray(prop.oneOf)) return prop;
  const d = prop.discriminator;
  if (d && v !== null && typeof v === "object" && !Array.isArray(v)) {
    const ref = d.mapping?.[String((v as Record<string, Json>)[d.propertyName])];
    if (ref) return { $ref: ref };
  }
  const jsonType = (m: Spec): string => {
    const t = resolve(schema, m);
    if (t.type === "array") return "array";
    if (t.properties || t.type === "object") return "object";
    return t.type === "integer" ? "number" : t.type;
  };
  const want = Array.isArray(v) ? "array" : v === null ? "null" : typeof v;
  const found = (prop.oneOf as Spec[]).find((m) => jsonType(m) === want);
  if (!found) throw new Error(`no member of a oneOf takes ${JSON.stringify(v)}`);
  return found;
}

function inputsOf(schema: Spec, kind: string): Spec {
  const r = schema.resources[`observability:index:${kind}`];
  if (!r) throw new Error(`the schema has no resource observability:index:${kind}`);
  return r.inputProperties ?? {};
}

function field(props: Spec, key: string, where: string): Spec {
  const p = props[key];
  if (!p) throw new Error(`${where}: the schema declares no input ${JSON.stringify(key)}`);
  return p;
}

/** snake_case as Pulumi's Python SDKs name properties: `aplQuery` → `apl_query`, `isEU` → `is_eu`. */
export function pyName(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .toLowerCase();
}

const goField = (name: string) => name[0].toUpperCase() + name.slice(1);
const isIdent = (k: string) => /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(k);

// ── TypeScript ────────────────────────────────────────────────────────────────────────────────────────────
function ts(v: Json, indent: string): string {
  if (Array.isArray(v)) return `[${v.map((x) => ts(x, indent)).join(", ")}]`;
  if (v !== null && typeof v === "object") {
    const inner = indent + "  ";
    const entries = Object.entries(v).map(
      ([k, x]) => `${inner}${isIdent(k) ? k : JSON.stringify(k)}: ${ts(x, inner)},`,
    );
    return `{\n${entries.join("\n")}\n${indent}}`;
  }
  return JSON.stringify(v);
}

function typescript(ex: KindExample): string {
  const opts = ex.forcedReplacement ? ", { deleteBeforeReplace: true }" : "";
  return `new obs.${ex.kind}(${JSON.stringify(ex.name)}, ${ts(ex.inputs, "")}${opts});`;
}

// ── Python ────────────────────────────────────────────────────────────────────────────────────────────────
function py(schema: Spec, prop: Spec, v: Json, indent: string, where: string): string {
  const t = resolve(schema, member(schema, prop, v));
  if (Array.isArray(v)) return `[${v.map((x) => py(schema, t.items ?? {}, x, indent, where)).join(", ")}]`;
  if (v !== null && typeof v === "object") {
    const inner = indent + "    ";
    const entries = Object.entries(v).map(([k, x]) => {
      // An object type's keys are its properties, snake_cased; a map's keys are data, kept.
      if (t.properties)
        return `${inner}${JSON.stringify(pyName(k))}: ${py(schema, field(t.properties, k, where), x, inner, where)},`;
      return `${inner}${JSON.stringify(k)}: ${py(schema, t.additionalProperties ?? {}, x, inner, where)},`;
    });
    return `{\n${entries.join("\n")}\n${indent}}`;
  }
  if (typeof v === "boolean") return v ? "True" : "False";
  if (v === null) return "None";
  return JSON.stringify(v);
}

function python(schema: Spec, ex: KindExample): string {
  const props = inputsOf(schema, ex.kind);
  const args = Object.entries(ex.inputs).map(
    ([k, v]) => `    ${pyName(k)}=${py(schema, field(props, k, ex.kind), v, "    ", ex.kind)},`,
  );
  if (ex.forcedReplacement) args.push("    opts=pulumi.ResourceOptions(delete_before_replace=True),");
  return `obs.${ex.kind}(\n    ${JSON.stringify(ex.name)},\n${args.join("\n")}\n)`;
}

// ── Go ────────────────────────────────────────────────────────────────────────────────────────────────────
const GO_SCALARS: Record<string, [string, string]> = {
  string: ["pulumi.String", "pulumi.StringArray"],
  integer: ["pulumi.Int", "pulumi.IntArray"],
  number: ["pulumi.Float64", "pulumi.Float64Array"],
  boolean: ["pulumi.Bool", "pulumi.BoolArray"],
};

/** A Go literal for any JSON, as `pulumi.Any` takes it. */
function goAny(v: Json, indent: string): string {
  if (Array.isArray(v)) return `[]any{${v.map((x) => goAny(x, indent)).join(", ")}}`;
  if (v !== null && typeof v === "object") {
    const inner = indent + "\t";
    return `map[string]any{\n${Object.entries(v)
      .map(([k, x]) => `${inner}${JSON.stringify(k)}: ${goAny(x, inner)},`)
      .join("\n")}\n${indent}}`;
  }
  return v === null ? "nil" : JSON.stringify(v);
}

/** The Go input expression of `v` for a property of spec `prop`. */
function go(schema: Spec, union: Spec, v: Json, indent: string, where: string): string {
  const prop = member(schema, union, v);
  if (prop.$ref === "pulumi.json#/Any") return `pulumi.Any(${goAny(v, indent)})`;
  const t = resolve(schema, prop);
  if (t.enum) return `obs.${t.typeName}(${JSON.stringify(v)})`;
  if (t.properties) {
    const inner = indent + "\t";
    const obj = v as Record<string, Json>;
    const entries = Object.entries(obj).map(
      ([k, x]) => `${inner}${goField(k)}: ${go(schema, field(t.properties, k, where), x, inner, where)},`,
    );
    return `obs.${t.typeName}Args{\n${entries.join("\n")}\n${indent}}`;
  }
  if (t.type === "array") {
    const items = resolve(schema, t.items);
    // A list of a union's members is a plain `pulumi.Array` in Go (pkg/codegen/go renders a union as `pulumi.Input`).
    const arrayType = items.typeName
      ? `obs.${items.typeName}Array`
      : t.items.$ref === "pulumi.json#/Any" || t.items.oneOf
        ? "pulumi.Array"
        : GO_SCALARS[items.type][1];
    const inner = indent + "\t";
    const elems = (v as Json[]).map((x) => go(schema, t.items, x, inner, where));
    const oneLine = `${arrayType}{${elems.join(", ")}}`;
    return oneLine.length < 80 && !oneLine.includes("\n")
      ? oneLine
      : `${arrayType}{\n${elems.map((e) => `${inner}${e},`).join("\n")}\n${indent}}`;
  }
  if (t.type === "object") {
    const values = t.additionalProperties ? resolve(schema, t.additionalProperties) : { type: "string" };
    const mapType = values.typeName
      ? `obs.${values.typeName}Map`
      : values.type === "string"
        ? "pulumi.StringMap"
        : "pulumi.Map";
    const inner = indent + "\t";
    const entries = Object.entries(v as Record<string, Json>).map(
      ([k, x]) =>
        `${inner}${JSON.stringify(k)}: ${go(schema, t.additionalProperties ?? { type: "string" }, x, inner, where)},`,
    );
    return `${mapType}{\n${entries.join("\n")}\n${indent}}`;
  }
  const scalar = GO_SCALARS[t.type];
  if (!scalar) throw new Error(`${where}: no Go rendering for the type ${JSON.stringify(t.type ?? t.$ref)}`);
  return `${scalar[0]}(${JSON.stringify(v)})`;
}

function golang(schema: Spec, ex: KindExample): string {
  const props = inputsOf(schema, ex.kind);
  const fields = Object.entries(ex.inputs).map(
    ([k, v]) => `\t${goField(k)}: ${go(schema, field(props, k, ex.kind), v, "\t", ex.kind)},`,
  );
  const opts = ex.forcedReplacement ? ", pulumi.DeleteBeforeReplace(true)" : "";
  return `_, err = obs.New${ex.kind}(ctx, ${JSON.stringify(ex.name)}, &obs.${ex.kind}Args{\n${fields.join("\n")}\n}${opts})\nif err != nil {\n\treturn err\n}`;
}

// ── YAML ──────────────────────────────────────────────────────────────────────────────────────────────────
function yamlScalar(v: Json): string {
  if (typeof v === "string")
    return /^[A-Za-z][A-Za-z0-9 .,_/@-]*$/.test(v) &&
      !/^(true|false|null|yes|no|on|off)$/i.test(v) &&
      !/[:#]/.test(v)
      ? v
      : JSON.stringify(v);
  return JSON.stringify(v);
}

function yaml(v: Json, indent: string): string {
  if (Array.isArray(v)) {
    if (v.every((x) => x === null || typeof x !== "object")) return ` [${v.map(yamlScalar).join(", ")}]`;
    return v
      .map((x) => {
        const body = yaml(x, indent + "  ").replace(/^\n/, "");
        return `\n${indent}- ${body.trimStart()}`;
      })
      .join("");
  }
  if (v !== null && typeof v === "object") {
    return Object.entries(v)
      .map(([k, x]) => `\n${indent}${yamlScalar(k)}:${yaml(x, indent + "  ")}`)
      .join("");
  }
  return ` ${yamlScalar(v)}`;
}

function yamlResource(ex: KindExample): string {
  const opts = ex.forcedReplacement ? "\n  options:\n    deleteBeforeReplace: true" : "";
  return `${ex.name}:\n  type: observability:${ex.kind}\n  properties:${yaml(ex.inputs, "    ")}${opts}`;
}

/** Why the example sets `deleteBeforeReplace`, and for which classes it is the default. */
function forcedReplacementNote(ex: KindExample): string[] {
  if (!ex.forcedReplacement) return [];
  return [
    "",
    "`deleteBeforeReplace` is set above for the replacements Pulumi forces without asking the provider:",
    "`pulumi up --replace`, and the `replacementTrigger` and `replaceWith` options. Without it the replacement,",
    `created first, would ${ex.forcedReplacement}. A replacement the provider's diff decides deletes first`,
    "without it. On the native provider, in every language, the option is yours to set: its default, `true`,",
    `holds only for the dynamic class \`obs.${ex.kind}\` of the \`pulumi-observability\` npm package.`,
  ];
}

/** One kind's declaration in each language, as the section shows it (also the schema's examples: native-lib.mts). */
export function snippets(
  schema: Spec,
  ex: KindExample,
): { typescript: string; python: string; go: string; yaml: string } {
  return {
    typescript: typescript(ex),
    python: python(schema, ex),
    go: golang(schema, ex),
    yaml: yamlResource(ex),
  };
}

/** The section of one kind's doc. */
export function section(schema: Spec, ex: KindExample): string {
  return [
    BEGIN,
    "## In every Pulumi language (native provider)",
    "",
    "The same resource through the native provider plugin (`pulumi-resource-observability`) and the SDKs generated",
    `from its schema, type token \`observability:index:${ex.kind}\` ([docs/languages.md](../languages.md) installs`,
    "them).",
    "",
    'TypeScript (`import * as obs from "@pulumi-observability/sdk";`):',
    "",
    "```ts",
    typescript(ex),
    "```",
    "",
    ex.forcedReplacement
      ? "Python (`import pulumi` and `import pulumi_observability as obs`):"
      : "Python (`import pulumi_observability as obs`):",
    "",
    "```python",
    python(schema, ex),
    "```",
    "",
    'Go (`obs "github.com/pulumi-observability/pulumi-observability/sdk/go/observability"`, inside `pulumi.Run`):',
    "",
    "```go",
    golang(schema, ex),
    "```",
    "",
    "YAML (under `resources:` in Pulumi.yaml):",
    "",
    "```yaml",
    yamlResource(ex),
    "```",
    ...forcedReplacementNote(ex),
    END,
  ].join("\n");
}

/** `doc` with its section replaced by `text` (or inserted before `## Inputs`). */
export function withSection(doc: string, text: string, file: string): string {
  const b = doc.indexOf(BEGIN);
  const e = doc.indexOf(END);
  if (b >= 0 && e > b) return doc.slice(0, b) + text + doc.slice(e + END.length);
  const at = doc.indexOf("\n## Inputs");
  if (at < 0) throw new Error(`${file}: no "## Inputs" heading to put the languages section before`);
  return `${doc.slice(0, at + 1)}${text}\n\n${doc.slice(at + 1)}`;
}

/** Each language's thirteen declarations as one program, in `dir/<language>/`. */
export function writePrograms(schema: Spec, dir: string): void {
  const put = (file: string, text: string) => {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
  };
  put(
    path.join(dir, "typescript", "docs.ts"),
    `import * as obs from "@pulumi-observability/sdk";\n\nexport function docs() {\n  return [\n${EXAMPLES.map((ex) => typescript(ex).replace(/;$/, ",")).join("\n")}\n  ];\n}\n`,
  );
  put(
    path.join(dir, "python", "docs_program.py"),
    `import pulumi\nimport pulumi_observability as obs\n\n\ndef docs() -> None:\n${EXAMPLES.map((ex) => python(schema, ex).replace(/^/gm, "    ")).join("\n")}\n`,
  );
  put(
    path.join(dir, "go", "docs.go"),
    `package main\n\nimport (\n\t"github.com/pulumi/pulumi/sdk/v3/go/pulumi"\n\n\tobs "github.com/pulumi-observability/pulumi-observability/sdk/go/observability"\n)\n\nfunc docs(ctx *pulumi.Context) error {\n\tvar err error\n${EXAMPLES.map((ex) => golang(schema, ex).replace(/^/gm, "\t")).join("\n")}\n\treturn nil\n}\n`,
  );
  // What each resource's inputs must arrive as, by logical name (the SDKs' own names are camelCase on the wire).
  put(
    path.join(dir, "inputs.json"),
    JSON.stringify(Object.fromEntries(EXAMPLES.map((ex) => [ex.name, ex.inputs])), null, 2) + "\n",
  );
  put(
    path.join(dir, "yaml", "resources.yaml"),
    EXAMPLES.map((ex) => yamlResource(ex).replace(/^/gm, "  ")).join("\n") + "\n",
  );
}

async function main(args: string[]): Promise<number> {
  const schema = builtSchema() as Spec;
  const programs = args.indexOf("--programs");
  if (programs >= 0) {
    writePrograms(schema, path.resolve(args[programs + 1]));
    return 0;
  }
  const pages: Record<string, string> = {};
  for (const ex of EXAMPLES) {
    const file = path.join(ROOT, "docs", "resources", ex.doc);
    const doc = readFileSync(file, "utf8");
    pages[path.relative(ROOT, file)] = await prettierFormatted(
      withSection(doc, section(schema, ex), file),
      file,
    );
  }
  return writeOrCheck(pages, {
    check: args.includes("--check"),
    label: "docs:languages",
    fix: "npm run docs:languages",
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: Error) => {
      console.error(`docs:languages: ${err.message.split("\n")[0]}`);
      process.exit(1);
    },
  );
}
