/**
 * The package schema is generated from the kinds' declarations and zod schemas, and nothing else: each rule
 * below compares the schema with those sources directly (names, types, enums, required fields, defaults,
 * secrets), and a tampered copy shows the comparison fails. The schema validates against Pulumi's package
 * metaschema (pulumi/pulumi pkg/codegen/schema/pulumi.json, from the Go module cache the CLI is built from), the
 * build writes the same schema the generator makes, and the property tables of docs/resources agree with it.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { z } from "zod";
import { COMPONENTS } from "../../provider/native/components";
import { LOOKUP_FUNCTIONS } from "../../provider/native/functions";
import { defaultOf, isOptional, secretKeysOf, unwrap, type PackageSpec } from "../../provider/native/schema";
import { KINDS, type ResourceKind } from "../../provider/resources/registry";
import { REPO_ROOT, generatedSchema, schemaJson } from "../helpers/native";

/* eslint-disable @typescript-eslint/no-explicit-any */
const schema = (): PackageSpec => JSON.parse(schemaJson());
const token = (kind: string) => `observability:index:${kind}`;

/** The referenced type of a property, or the property itself. */
const resolve = (s: PackageSpec, spec: any): any =>
  typeof spec?.$ref === "string" && spec.$ref.startsWith("#/types/")
    ? s.types[spec.$ref.slice("#/types/".length)]
    : spec;

/** Every way `s` disagrees with the declarations and zod schemas, one line each. */
function disagreements(s: PackageSpec): string[] {
  const out: string[] = [];
  for (const [kind, declared] of KINDS) {
    const resource = s.resources[token(kind)];
    if (!resource) {
      out.push(`${kind}: no resource ${token(kind)}`);
      continue;
    }
    const rules = declared.rules;
    const shape = (unwrap(rules.schema)._zod.def as any).shape as Record<string, z.core.$ZodType>;
    const expectedInputs = [...rules.inputKeys, ...(rules.adoptable ? ["adopt"] : [])].sort();
    const inputs = Object.keys(resource.inputProperties ?? {}).sort();
    if (JSON.stringify(inputs) !== JSON.stringify(expectedInputs))
      out.push(`${kind}: inputs ${inputs.join(",")} but the declaration has ${expectedInputs.join(",")}`);
    const required = Object.keys(shape)
      .filter((k) => !isOptional(shape[k]))
      .sort();
    if (JSON.stringify([...(resource.requiredInputs ?? [])].sort()) !== JSON.stringify(required))
      out.push(`${kind}: requiredInputs ${resource.requiredInputs} but the zod schema requires ${required}`);
    for (const [key, field] of Object.entries(shape)) {
      const spec = resource.inputProperties?.[key];
      if (!spec) continue;
      // A service default is told in the description, never as `default`, which Pulumi's SDK generators would
      // put into every resource's inputs (and so its state) when undeclared (provider/native/schema.ts, field).
      const d = defaultOf(field);
      if (spec.default !== undefined)
        out.push(`${kind}.${key}: default ${JSON.stringify(spec.default)}, which the SDKs would fill in`);
      const primitive = d && ["string", "number", "boolean"].includes(typeof d.value);
      if (
        primitive &&
        !String(spec.description ?? "").includes(JSON.stringify(d!.value).replace(/^"|"$/g, ""))
      )
        out.push(`${kind}.${key}: the description does not tell the default ${JSON.stringify(d!.value)}`);
      const inner = unwrap(field)._zod.def as any;
      const type = resolve(s, spec);
      if (inner.type === "enum") {
        const values = (type?.enum ?? []).map((e: { value: unknown }) => e.value);
        if (JSON.stringify(values) !== JSON.stringify(Object.values(inner.entries)))
          out.push(`${kind}.${key}: enum ${values} but zod has ${Object.values(inner.entries)}`);
      }
      const primitiveType: Record<string, string> = { string: "string", boolean: "boolean" };
      if (primitiveType[inner.type] && type?.type !== primitiveType[inner.type])
        out.push(`${kind}.${key}: type ${type?.type} but zod has ${inner.type}`);
      if (inner.type === "number" && !["number", "integer"].includes(type?.type))
        out.push(`${kind}.${key}: type ${type?.type} but zod has a number`);
      if (inner.type === "array" && type?.type !== "array") out.push(`${kind}.${key}: not an array`);
      if (inner.type === "object" && type?.type !== "object") out.push(`${kind}.${key}: not an object type`);
    }
    const secrets = secretKeysOf(kind as ResourceKind);
    for (const key of secrets.outputs)
      if (resource.properties?.[key]?.secret !== true)
        out.push(`${kind}.${key}: a secret output not marked secret`);
    for (const key of secrets.inputs)
      if (resource.inputProperties?.[key]?.secret !== true)
        out.push(`${kind}.${key}: a secret input not marked secret`);
    for (const key of rules.replaceKeys ?? [])
      if (resource.inputProperties?.[key]?.willReplaceOnChanges !== true)
        out.push(`${kind}.${key}: replaces, but the schema does not say so`);
  }
  for (const fn of LOOKUP_FUNCTIONS) {
    for (const name of [`get${fn.noun}`, `get${fn.plural}`])
      if (!s.functions[token(name)]) out.push(`no function ${token(name)}`);
  }
  for (const where of [s.config?.variables, s.provider?.inputProperties]) {
    if (where?.token?.secret !== true) out.push("the provider's token is not secret");
    for (const key of ["url", "region", "token", "orgId"])
      if (!where?.[key]) out.push(`no provider config ${key}`);
  }
  return out;
}

describe("the schema agrees with the declarations and zod schemas", () => {
  test("every kind, input, required field, default, enum, secret and function agrees", () => {
    expect(disagreements(schema())).toEqual([]);
  });

  test("a schema that disagrees is caught, naming what disagrees", () => {
    const tampered = schema();
    const monitor = tampered.resources[token("Monitor")];
    monitor.requiredInputs = monitor.requiredInputs.filter((k: string) => k !== "aplQuery");
    monitor.inputProperties.intervalMinutes.default = 5;
    delete tampered.resources[token("Notifier")].properties.properties.secret;
    tampered.types[token("MonitorType")].enum.pop();
    delete tampered.functions[token("getDatasets")];
    delete tampered.config.variables.token.secret;
    expect(disagreements(tampered)).toEqual([
      expect.stringMatching(/^Monitor: requiredInputs /),
      "Monitor.type: enum Threshold,MatchEvent but zod has Threshold,MatchEvent,AnomalyDetection",
      "Monitor.intervalMinutes: default 5, which the SDKs would fill in",
      "Notifier.properties: a secret output not marked secret",
      "no function observability:index:getDatasets",
      "the provider's token is not secret",
    ]);
  });

  test("every kind and every component is a resource under its own type token, and nothing else is", () => {
    expect(Object.keys(schema().resources).sort()).toEqual(
      [...KINDS.keys(), ...Object.keys(COMPONENTS)].map(token).sort(),
    );
  });

  test("the Slo is a component (pulumi/pulumi pkg/codegen/schema: isComponent), its inputs those of its zod schema", () => {
    const slo = schema().resources[token("Slo")];
    expect(slo.isComponent).toBe(true);
    const shape = (unwrap(COMPONENTS.Slo.inputs)._zod.def as unknown as { shape: Record<string, z.ZodType> })
      .shape;
    expect(Object.keys(slo.inputProperties).sort()).toEqual(Object.keys(shape).sort());
    expect(slo.requiredInputs.sort()).toEqual(["dataset", "objective"]);
    expect(Object.keys(slo.properties).sort()).toEqual(["burnRates", "dashboardId", "monitorIds", "queries"]);
    expect(slo.required.sort()).toEqual(["burnRates", "monitorIds", "queries"]);
    expect(slo.inputProperties.alertWindows.additionalProperties).toEqual({
      $ref: `#/types/${token("SloAlertWindow")}`,
    });
  });

  test("the credentials are secret: a notifier's channels, an API token's value, the provider's token", () => {
    const s = schema();
    expect(s.resources[token("Notifier")].inputProperties.properties.secret).toBe(true);
    expect(s.resources[token("Notifier")].properties.properties.secret).toBe(true);
    expect(s.resources[token("ApiToken")].properties.token.secret).toBe(true);
    expect(s.provider.inputProperties.token.secret).toBe(true);
    expect(s.config.variables.token.secret).toBe(true);
    expect(s.types[token("NotifierResult")].properties.properties.secret).toBe(true);
  });

  test("descriptions come from the sources: the class, the Args interface, nested types and lookups", () => {
    const s = schema();
    expect(s.resources[token("Monitor")].description).toMatch(/alert rule/);
    expect(s.resources[token("Monitor")].inputProperties.aplQuery.description).toMatch(/APL query/);
    expect(s.types[token("NotifierPropertiesSlack")].properties.slackUrl.description).toBeUndefined();
    expect(s.resources[token("Notifier")].inputProperties.properties.description).toMatch(
      /exactly one channel/,
    );
    expect(s.functions[token("getMonitor")].description).toBe("A monitor by id or by name.");
    expect(s.config.variables.token.description).toMatch(/OBSERVABILITY_TOKEN/);
  });

  test("the build writes the schema the generator makes (dist/provider/native/schema.json)", () => {
    const fromBuild = schema();
    const generated = generatedSchema();
    // Where it is released (version, repository, pluginDownloadURL) comes from package.json: version.test.ts.
    for (const key of ["version", "repository", "pluginDownloadURL"]) {
      delete fromBuild[key];
      delete generated[key];
    }
    // The build adds each resource's example per language (withExamples, rendered by scripts/native-lib.mts).
    for (const [t, resource] of Object.entries(fromBuild.resources as Record<string, any>)) {
      const [description, example] = resource.description.split("\n\n{{% examples %}}");
      expect({ t, example: example !== undefined }).toEqual({ t, example: true });
      for (const lang of ["typescript", "python", "go", "yaml"])
        expect({ t, lang, shown: example.includes("```" + lang + "\n") }).toEqual({ t, lang, shown: true });
      expect(example).toMatch(/\{\{% example %\}\}[\s\S]*\{\{% \/example %\}\}\n\{\{% \/examples %\}\}$/);
      resource.description = description;
    }
    expect(fromBuild).toEqual(generated);
  });
});

/**
 * pulumi.json from the pkg/v3 module the CLI is built from (engine/pulumi-cli/go.mod): from the Go module cache,
 * or downloaded into it now (the module alone, a few seconds) when Go is at hand; the test skips only without Go.
 */
function metaschemaFile(): { file?: string; reason?: string } {
  let cache = path.join(os.homedir(), "go", "pkg", "mod");
  try {
    cache = execFileSync("go", ["env", "GOMODCACHE"], { encoding: "utf8" }).trim() || cache;
  } catch {
    // No Go: the default cache folder.
  }
  const mod = readFileSync(path.join(REPO_ROOT, "engine", "pulumi-cli", "go.mod"), "utf8");
  const version = /github\.com\/pulumi\/pulumi\/pkg\/v3 (v[\w.-]+)/.exec(mod)?.[1];
  const pinned = path.join(cache, "github.com", "pulumi", "pulumi", "pkg", `v3@${version}`);
  if (version && !existsSync(pinned)) {
    try {
      execFileSync("go", ["mod", "download", `github.com/pulumi/pulumi/pkg/v3@${version}`], {
        cwd: path.join(REPO_ROOT, "engine", "pulumi-cli"),
        stdio: "ignore",
        timeout: 300_000,
      });
    } catch {
      // No Go, or no module proxy: the cache's other versions, else the reason below.
    }
  }
  const dir = path.join(cache, "github.com", "pulumi", "pulumi", "pkg");
  const candidates = existsSync(dir) ? readdirSync(dir).filter((d) => d.startsWith("v3@")) : [];
  const pick = candidates.find((d) => d === `v3@${version}`) ?? candidates.sort().at(-1);
  const file = pick && path.join(dir, pick, "codegen", "schema", "pulumi.json");
  if (file && existsSync(file)) return { file };
  return { reason: `no pkg/v3 module in ${dir}: the CLI has not been built here` };
}

const meta = metaschemaFile();
(meta.file ? test : test.skip)(
  `the schema validates against Pulumi's package metaschema (${meta.file ?? meta.reason})`,
  () => {
    // The metaschema is JSON Schema 2020-12.
    const Ajv2020 = require("ajv/dist/2020").default;
    const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: false });
    const validate = ajv.compile(JSON.parse(readFileSync(meta.file!, "utf8")));
    const ok = validate(schema());
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
    // And it can fail: a property with two types is not a schema.
    const bad = schema();
    bad.resources[token("Monitor")].inputProperties.name = { type: "string", items: { type: "string" } };
    expect(validate(bad)).toBe(false);
  },
);

describe("the property tables of docs/resources agree with the schema", () => {
  const kebab = (kind: string) => kind.replace(/[A-Z]/g, (c, i) => (i ? "-" : "") + c.toLowerCase());
  /** The rows of the first table under `## Inputs`, by column name. */
  function inputsTable(file: string): Record<string, string>[] {
    const lines = readFileSync(file, "utf8").split("\n");
    const start = lines.findIndex((l) => l.startsWith("## Inputs"));
    const first = lines.findIndex((l, i) => i > start && l.startsWith("|"));
    const rows: string[][] = [];
    for (let i = first; i < lines.length && lines[i].startsWith("|"); i++)
      rows.push(
        lines[i]
          .split(/(?<!\\)\|/)
          .slice(1, -1)
          .map((c) => c.trim()),
      );
    const [header, , ...body] = rows;
    return body.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i]])));
  }

  test.each([...KINDS.keys()])("%s", (kind) => {
    const resource = schema().resources[token(kind)];
    const rows = inputsTable(path.join(REPO_ROOT, "docs", "resources", `${kebab(kind)}.md`));
    const names = rows.map((r) => /^`(\w+)`$/.exec(r.Name)?.[1]).filter((n): n is string => !!n);
    expect(names.sort()).toEqual(Object.keys(resource.inputProperties).sort());
    for (const row of rows) {
      const name = /^`(\w+)`$/.exec(row.Name)?.[1];
      if (!name) continue;
      const required = (resource.requiredInputs ?? []).includes(name);
      // "yes" is required by the schema; "no" or a condition (`Threshold`) is not.
      expect({ name, required: row.Required === "yes" }).toEqual({ name, required });
      const spec = resource.inputProperties[name];
      const shown = /^`(.*)`$/.exec(row.Default ?? "")?.[1];
      if (spec.default !== undefined && shown !== undefined) {
        const documented =
          shown.startsWith('"') || /^(true|false|-?\d+(\.\d+)?)$/.test(shown) ? JSON.parse(shown) : shown;
        expect({ name, default: documented }).toEqual({ name, default: spec.default });
      }
    }
  });
});
