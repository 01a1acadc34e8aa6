/**
 * The generated SDKs name their types after the schema's type tokens (pkg/codegen nodejs, python and go take the
 * token's last part, adding `Args`, `ArgsDict`, `Output`…), so a token's name is what a Python or Go user types.
 * These tests walk every type reachable from each resource's inputs and outputs and from each function's inputs
 * and outputs, and fail on a name that belongs to another resource (a Role's type reached from an API token) or
 * that repeats a word (`DashboardDashboard`, `StarredQueryQueryQueryOptions`); and they list every
 * `pulumi.json#/Any` left in the schema, each with the reason written in docs/native-provider.md.
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { LOOKUP_FUNCTIONS } from "../../provider/native/functions";
import { typeNameAt } from "../../provider/native/schema";
import { REPO_ROOT, schemaJson } from "../helpers/native";

/* eslint-disable @typescript-eslint/no-explicit-any */
type Spec = Record<string, any>;
const schema = (): Spec => JSON.parse(schemaJson());
const PREFIX = "observability:index:";
const LOCAL = `#/types/${PREFIX}`;
const pascal = (s: string) => s[0].toUpperCase() + s.slice(1);
/** A PascalCase name's words: `StarredQueryQueryOptions` → Starred, Query, Query, Options. */
const words = (name: string) => name.match(/[A-Z][a-z0-9]*|[a-z0-9]+/g) ?? [];

/** The names of the types `spec` reaches, transitively. */
function reachable(s: Spec, spec: unknown, seen = new Set<string>()): Set<string> {
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(visit);
    if (!v || typeof v !== "object") return;
    const ref = (v as Spec).$ref;
    if (typeof ref === "string" && ref.startsWith(LOCAL)) {
      const name = ref.slice(LOCAL.length);
      if (seen.has(name)) return;
      seen.add(name);
      visit(s.types[PREFIX + name]);
    }
    for (const [k, x] of Object.entries(v)) if (k !== "$ref") visit(x);
  };
  visit(spec);
  return seen;
}

/**
 * A name belongs to a resource when it is the resource's name followed by one of its inputs' names (how the
 * schema's types used to be named by their first use: `RoleOrgCapabilities…`), or by `Result`.
 */
function owner(s: Spec, name: string): string | undefined {
  for (const [token, r] of Object.entries(s.resources as Spec)) {
    const kind = token.slice(PREFIX.length);
    if (!name.startsWith(kind)) continue;
    const rest = name.slice(kind.length);
    const parts = [...Object.keys(r.inputProperties ?? {}).map(pascal), "Result"];
    if (parts.some((p) => rest.startsWith(p))) return kind;
  }
  return undefined;
}

/** Every misleading name, one line each: whose type it is, where it was reached, or the word it repeats. */
function misnamed(s: Spec): string[] {
  const problems = new Set<string>();
  const check = (where: string, own: string | undefined, spec: unknown) => {
    for (const name of reachable(s, spec)) {
      const o = owner(s, name);
      if (o && o !== own) problems.add(`${name} (reached from ${where}) belongs to ${o}`);
      const ws = words(name).map((w) => w.toLowerCase());
      const twice = ws.find((w, i) => ws.indexOf(w) !== i);
      if (twice) problems.add(`${name} repeats "${twice}"`);
    }
  };
  for (const [token, r] of Object.entries(s.resources as Spec)) {
    const kind = token.slice(PREFIX.length);
    check(kind, kind, r.inputProperties);
    check(kind, kind, r.properties);
  }
  // getMonitor and getMonitors return the Monitor's types.
  const kindOf = new Map(
    LOOKUP_FUNCTIONS.flatMap((l) => [
      [`get${l.noun}`, l.kind],
      [`get${l.plural}`, l.kind],
    ]),
  );
  for (const [token, f] of Object.entries(s.functions as Spec)) {
    const name = token.slice(PREFIX.length);
    check(name, kindOf.get(name), f);
  }
  check("the provider", undefined, s.provider);
  return [...problems].sort();
}

describe("type names say what they are", () => {
  test("no type reachable from a resource or function belongs to another resource or repeats a word", () => {
    expect(misnamed(schema())).toEqual([]);
  });

  test("a schema named by first use is caught: a Role's type in an API token, a repeated word", () => {
    const s = schema();
    // The names of the SDKs before: an API token's dataset capabilities typed with the Role's enum.
    const rename = (from: string, to: string) => {
      s.types[PREFIX + to] = s.types[PREFIX + from];
      delete s.types[PREFIX + from];
      const text = JSON.stringify(s).split(`"${LOCAL}${from}"`).join(`"${LOCAL}${to}"`);
      Object.assign(s, JSON.parse(text));
    };
    rename("CapabilityAction", "RoleOrgCapabilitiesAuditLogItem");
    rename("AplRequest", "StarredQueryQuery");
    const found = misnamed(s);
    expect(found).toContain("RoleOrgCapabilitiesAuditLogItem (reached from ApiToken) belongs to Role");
    expect(found).toContain('StarredQueryQuery repeats "query"');
  });

  test("shared types take neutral names; map values are not items", () => {
    const s = schema();
    const role = s.resources[`${PREFIX}Role`].inputProperties;
    const token = s.resources[`${PREFIX}ApiToken`].inputProperties;
    expect(role.orgCapabilities.$ref).toBe(`${LOCAL}OrgCapabilities`);
    expect(token.orgCapabilities.$ref).toBe(`${LOCAL}OrgCapabilities`);
    expect(token.datasetCapabilities.additionalProperties.$ref).toBe(`${LOCAL}DatasetCapabilities`);
    expect(role.viewCapabilities.additionalProperties.$ref).toBe(`${LOCAL}ViewCapabilities`);
    const dataset = s.types[`${PREFIX}DatasetCapabilities`].properties;
    expect(dataset.query.items.$ref).toBe(`${LOCAL}CapabilityAction`);
    expect(dataset.vacuum.items.$ref).toBe(`${LOCAL}CapabilityAction`);
    expect(s.types[`${PREFIX}CapabilityAction`].enum.map((e: Spec) => e.value)).toEqual([
      "create",
      "read",
      "update",
      "delete",
    ]);
    expect(Object.keys(s.types).filter((t) => /Item$/.test(t) && !/LayoutItem$/.test(t))).toEqual([]);
  });

  test("the naming rules name a place no rule matches by its kind and path, marks left out", () => {
    expect(typeNameAt("Notifier", "properties.slack")).toBe("NotifierPropertiesSlack");
    expect(typeNameAt("Dashboard", "dashboard.charts[]<TimeSeries>")).toBe("TimeSeriesChart");
    expect(typeNameAt("Dashboard", "dashboard.charts[]<SmartFilter>.filters[]<select><list>")).toBe(
      "SmartFilterSelectList",
    );
    expect(typeNameAt("Example", "a.b{}.c[]")).toBe("ExampleABC");
  });
});

describe("dashboards are typed in every language", () => {
  test("each chart kind is its own type, told apart by its `type`", () => {
    const s = schema();
    const charts = s.types[`${PREFIX}DashboardDocument`].properties.charts.items;
    expect(charts.discriminator.propertyName).toBe("type");
    const kinds = Object.keys(charts.discriminator.mapping);
    // The document's twelve, and the two the live service takes beyond it.
    expect(kinds).toEqual([
      "TimeSeries",
      "Heatmap",
      "LogStream",
      "Pie",
      "Scatter",
      "Table",
      "TopK",
      "Statistic",
      "Note",
      "MonitorList",
      "SmartFilter",
      "Spacer",
      "SectionHeader",
      "Placeholder",
    ]);
    for (const kind of kinds) {
      const ref = charts.discriminator.mapping[kind];
      expect(charts.oneOf).toContainEqual({ $ref: ref });
      expect(s.types[ref.slice("#/types/".length)].properties.type).toEqual({ type: "string", const: kind });
    }
    expect(s.types[`${PREFIX}NoteChart`].required).toEqual(["id", "type", "text"]);
  });
});

/** Every `pulumi.json#/Any` in the schema, by where it is (`types/<name>/…`, `resources/<Kind>/…`). */
function anys(s: Spec): string[] {
  const out: string[] = [];
  const walk = (v: unknown, at: string): void => {
    if (Array.isArray(v)) return v.forEach((x, i) => walk(x, `${at}[${i}]`));
    if (!v || typeof v !== "object") return;
    if ((v as Spec).$ref === "pulumi.json#/Any") out.push(at);
    for (const [k, x] of Object.entries(v)) walk(x, `${at}/${k}`);
  };
  for (const section of ["types", "resources", "functions"])
    for (const [token, spec] of Object.entries(s[section] as Spec))
      walk(spec, `${section}/${token.slice(PREFIX.length)}`);
  return out.sort();
}

/** The places listed in docs/native-provider.md's table under "## What stays untyped". */
function documentedAnys(): string[] {
  const doc = readFileSync(path.join(REPO_ROOT, "docs", "native-provider.md"), "utf8");
  const section = doc.split("\n## What stays untyped")[1]?.split("\n## ")[0] ?? "";
  return [...section.matchAll(/^\| `([^`]+)`\s+\|/gm)].map((m) => m[1]).sort();
}

describe("every Any left in the schema is listed with its reason", () => {
  test("docs/native-provider.md lists exactly the schema's Anys", () => {
    expect(anys(schema())).toEqual(documentedAnys());
  });

  test("a new Any is caught", () => {
    const s = schema();
    s.resources[`${PREFIX}Monitor`].inputProperties.aplQuery = { $ref: "pulumi.json#/Any" };
    expect(anys(s)).not.toEqual(documentedAnys());
    expect(anys(s)).toContain("resources/Monitor/inputProperties/aplQuery");
  });
});
