/**
 * The Pulumi package schema of the native provider, generated from the kinds' declarations (registry.ts), their
 * zod input schemas, the lookups' argument schemas (lookups.ts) and the descriptions written beside them in the
 * TypeScript sources (docs.ts reads those at build time). Nothing here is a copy kept by hand: a kind added to the
 * registry appears in the schema, with the names, types, enums, required fields, defaults and secrets its zod
 * schema and declaration state.
 *
 * The schema's form is Pulumi's package metaschema (pulumi/pulumi pkg/codegen/schema/pulumi.json).
 */
import { z } from "zod";
import { INT64_SCHEMAS } from "../schemas/int64";
import { WRAPPERS, unwrap } from "../schemas/common";
import { CONFIG_KEYS } from "../config";
import { ENV_NAMES } from "../client/env";
import { LOOKUP_FUNCTIONS } from "./functions";
import { ADOPT_KEY } from "../resources/descriptor";
import { KINDS } from "../resources/registry";
import { COMPONENTS } from "./components";
import { PACKAGE, functionToken, secretKeysOf, typeToken } from "./tokens";

export { MODULE, PACKAGE, functionToken, secretKeysOf, typeToken } from "./tokens";
export { unwrap } from "../schemas/common";

/* eslint-disable @typescript-eslint/no-explicit-any */
/** A property or type reference of the metaschema (`propertySpec`, `typeSpec`). */
export type PropertySpec = Record<string, any>;
/** An object type, resource or function of the schema. */
export type ObjectSpec = {
  description?: string;
  properties: Record<string, PropertySpec>;
  required?: string[];
  [key: string]: unknown;
};
export type PackageSpec = Record<string, any>;

/** A declared output that is not an input, as docs.ts reads its TypeScript type. */
export type OutputType =
  | { type: "string" | "number" | "boolean" | "any" }
  | { type: "array"; items: OutputType }
  | { type: "map"; values: OutputType }
  | { type: "enum"; values: string[] }
  | { type: "oneOf"; of: ("string" | "number" | "boolean")[] };

/** What the TypeScript sources say about one kind: descriptions, and the declared outputs with their types. */
export interface KindDocs {
  /** The Resource class's description. */
  description?: string;
  /** Descriptions of the inputs by dotted path (`properties.slack.slackUrl`), from the Args interface. */
  inputs: Record<string, string>;
  /** The class's declared outputs: description and type. */
  outputs: Record<string, { description?: string; type: OutputType }>;
}

/** Descriptions from the sources, by kind, and of the lookup functions by name. */
export interface SourceDocs {
  kinds: Record<string, KindDocs>;
  functions: Record<string, string>;
  /** The provider's configuration keys' descriptions (ProviderSettings in config.ts). */
  config: Record<string, string>;
}

const pascal = (s: string): string =>
  s
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join("");

/**
 * Where a function of the plugin answers otherwise than the program's function of the same name, whose comment the
 * description is read from: the program's promise forms of a notifier leave its channel's credentials out (a plain
 * value cannot be marked secret), while the plugin returns them marked secret, as an Output form does.
 */
const NATIVE_FUNCTION_DOCS: Readonly<Record<string, string>> = {
  getNotifier: "A notifier by id or by name, its channel's credentials included and marked secret.",
  getNotifiers: "Every notifier, their channels' credentials included and marked secret.",
};

/** Whether an object's field may be left out. */
export function isOptional(field: z.core.$ZodType): boolean {
  return (field as z.ZodType).safeParse(undefined).success;
}

/** The metadata `key` recorded on a field or on one of its wrappers (zod's `.meta()`). */
function metaOf(field: z.core.$ZodType, key: string): { value: unknown } | undefined {
  let s = field;
  for (let i = 0; i < 32; i++) {
    const meta = z.globalRegistry.get(s as z.ZodType);
    if (meta && key in meta) return { value: meta[key] };
    const def = s._zod.def as any;
    if (!WRAPPERS.has(def.type)) return undefined;
    s = def.innerType;
  }
  return undefined;
}

/** The service default recorded on a field (schemas/common.ts `serviceDefault`). */
export function defaultOf(field: z.core.$ZodType): { value: unknown } | undefined {
  return metaOf(field, "default");
}

/** Whether a number schema takes integers only (zod's `.int()` sets the `safeint` format). */
const isInteger = (s: z.core.$ZodType): boolean => {
  const format = (s as any).format;
  return typeof format === "string" && /int/.test(format);
};

/**
 * The names of the schema's object and enum types, by where the walk meets them: `<Kind>.<path>`, the path's
 * fields joined by `.`, a list's item marked `[]`, a map's value `{}`, and a discriminated union's member
 * `<value>` (its discriminator's value). The first rule whose pattern matches names the type (`$1` is the
 * pattern's first group); a place no rule matches is named `<Kind><Path>` (its words in PascalCase, the marks
 * left out).
 *
 * A type met in several places, or by several kinds, takes one neutral name here, as aws-native points every
 * `tags` property at its one `Tag` type: a Role's and an API token's capabilities are one `OrgCapabilities`, one
 * `DatasetCapabilities`, one `ViewCapabilities`, whose lists all hold a `CapabilityAction` (an enum named by
 * several places holds every value of those places; `check` refuses, naming the field, an action that a
 * capability does not allow, such as `create` on `auditLog`). Objects given one name must have one shape: the
 * walk throws, naming both places, when they differ. test/native/schema-names.test.ts reads every name reachable
 * from each resource and function and fails on a name that another resource owns or that repeats a word.
 */
export const TYPE_NAMES: readonly (readonly [RegExp, string])[] = [
  [/^(Role|ApiToken)\.orgCapabilities$/, "OrgCapabilities"],
  [/^(Role|ApiToken)\.datasetCapabilities\{\}$/, "DatasetCapabilities"],
  [/^(Role|ApiToken)\.viewCapabilities\{\}$/, "ViewCapabilities"],
  [/^(Role|ApiToken)\.\w+Capabilities(\{\})?\.\w+\[\]$/, "CapabilityAction"],
  [/^Slo\.alertWindows\{\}$/, "SloAlertWindow"],
  [/^Slo\.alertWindows\{\}\.severity$/, "SloSeverity"],
  [/^StarredQuery\.query$/, "AplRequest"],
  [/^StarredQuery\.query\.defaultOrder\[\]$/, "QueryOrder"],
  [/^StarredQuery\.query\.queryOptions$/, "QueryOptions"],
  [/^Dashboard\.dashboard$/, "DashboardDocument"],
  [/^Dashboard\.dashboard\.layout\[\]$/, "DashboardLayoutItem"],
  [/^Dashboard\.dashboard\.overrides$/, "DashboardOverrides"],
  [/^Dashboard\.dashboard\.refreshTime$/, "DashboardRefreshTime"],
  [/^Dashboard\.dashboard\.against$/, "DashboardAgainst"],
  [/^Dashboard\.dashboard\.charts\[\]<(\w+)>$/, "$1Chart"],
  [/<(TimeSeries|Heatmap)>\.query$/, "$1ChartQuery"],
  [/<(TimeSeries|Heatmap)>\.query\.queryOptions$/, "$1QueryOptions"],
  [/\.queryOptions\.timeSeriesView$/, "TimeSeriesView"],
  [/<TimeSeries>\.query\.queryOptions\.displayNull$/, "TimeSeriesDisplayNull"],
  [/<TimeSeries>\.query\.queryOptions\.overlayCharts$/, "TimeSeriesOverlayCharts"],
  [/<TimeSeries>\.query\.queryOptions\.timeSeriesVariant$/, "TimeSeriesVariant"],
  [/^Dashboard\.dashboard\.charts\[\].*\.query$/, "ChartQuery"],
  [/\.tableSettings$/, "TableSettings"],
  [/\.tableSettings\.settings$/, "TableDisplaySettings"],
  [/\.tableSettings\.columns\[\]$/, "TableColumn"],
  [/<Statistic>\.(ok|warning|error)ColorProps$/, "StatisticColorProps"],
  [/<Statistic>\.(error|warning)Threshold$/, "StatisticThreshold"],
  [/<Statistic>\.colorScheme$/, "StatisticColorScheme"],
  [/<Note>\.variant$/, "NoteVariant"],
  [/<MonitorList>\.columns$/, "MonitorListColumns"],
  [/<SmartFilter>\.filters\[\]<search>$/, "SmartFilterSearch"],
  [/<SmartFilter>\.filters\[\]<select><(list|query)>$/, "SmartFilterSelect $1"],
  [/<SmartFilter>\.filters\[\].*\.options\[\]$/, "SmartFilterOption"],
];

/** The name of the type met at `kind`'s `path` (the marks of {@link TYPE_NAMES}). */
export function typeNameAt(kind: string, path: string): string {
  const at = `${kind}.${path}`;
  for (const [pattern, name] of TYPE_NAMES) {
    const m = pattern.exec(at);
    if (m) return pascal(name.replace(/\$(\d)/g, (_, i: string) => m[Number(i)] ?? ""));
  }
  return kind + pascal(path.replace(/\[\]|\{\}|<\w+>/g, " "));
}

/** A zod path's docs key, as docs.ts records it: list items and map values `[]`, union members unmarked. */
const docsPath = (path: string): string => path.replace(/\{\}/g, "[]").replace(/<\w+>/g, "");

/** An object or enum type met by the walk: where (`Kind.path`, marked as in {@link TYPE_NAMES}), and its token. */
export interface TypePlace {
  at: string;
  token: string;
  /** An enum's values at this place alone (the type holds those of every place that shares its name). */
  enumValues?: unknown[];
}

/** Builds the schema's types while it walks the kinds' zod schemas. */
class Walker {
  readonly types: Record<string, any> = {};
  /** Every place an object or enum type was met, in the walk's order (scripts/renamed-types.mts reads them). */
  readonly places: TypePlace[] = [];
  /** Where each object or enum type was first met (`Kind.path`), to name both places when two disagree. */
  private readonly firstMet = new Map<string, string>();

  constructor(private readonly docs: SourceDocs) {}

  /** The description the sources give the input at `path` of `kind`. */
  private doc(kind: string, path: string): string | undefined {
    return this.docs.kinds[kind]?.inputs[docsPath(path)];
  }

  /**
   * The spec of one field: its type, description and default. A resource's own inputs tell their service default
   * in the description only, never as `default`: Pulumi's SDK generators put a schema `default` into every
   * resource's inputs when it is not declared, so each resource's state would hold every default (the engine
   * saves the whole state after each step), while the provider applies them itself (create and update send them;
   * a diff reads an absent field as its default). The fields of nested types keep theirs: the SDKs export the
   * functions that apply them (`dashboardDocumentArgsProvideDefaults`), and they are few.
   */
  field(kind: string, path: string, field: z.core.$ZodType): PropertySpec {
    const spec: PropertySpec = { ...this.type(kind, path, field) };
    const description = this.doc(kind, path) ?? metaOf(field, "description")?.value;
    if (typeof description === "string" && description) spec.description = description;
    const d = defaultOf(field);
    const resourceInput = !/[.[{<]/.test(path);
    // The metaschema takes a primitive default only; a default list or null stays in the description.
    if (
      d &&
      !resourceInput &&
      ["string", "number", "boolean"].includes(typeof d.value) &&
      !("$ref" in spec && spec.$ref.startsWith("pulumi.json"))
    )
      spec.default = d.value;
    return spec;
  }

  /** The type reference of a zod schema at `path` of `kind`, registering object and enum types as it goes. */
  type(kind: string, path: string, schema: z.core.$ZodType): PropertySpec {
    const s = unwrap(schema);
    const def = s._zod.def as any;
    // An int64 of the document (provider/schemas/int64.ts) is a union of a number and a bigint; to Pulumi, a number.
    if (INT64_SCHEMAS.has(s)) return { type: "integer" };
    switch (def.type) {
      case "string":
        return { type: "string" };
      case "number":
        return { type: isInteger(s) ? "integer" : "number" };
      case "boolean":
        return { type: "boolean" };
      case "array":
        return { type: "array", items: this.type(kind, `${path}[]`, def.element) };
      case "record":
        return { type: "object", additionalProperties: this.type(kind, `${path}{}`, def.valueType) };
      case "enum":
        return this.enumType(kind, path, Object.values(def.entries));
      case "literal": {
        const values = def.values as unknown[];
        if (values.length === 1)
          return { type: typeof values[0] === "number" ? "number" : typeof values[0], const: values[0] };
        return this.enumType(kind, path, values);
      }
      case "object":
        return this.objectType(kind, path, def.shape);
      case "union":
        return this.union(kind, path, def);
      default:
        // `unknown` and anything else: any JSON value, checked by `check` (docs/native-provider.md lists each).
        return { $ref: "pulumi.json#/Any" };
    }
  }

  /**
   * A union: `oneOf` its members. A union discriminated by a field whose every value names one member (a
   * dashboard's chart by its `type`) says so with a `discriminator`, so each SDK can tell its members apart; a
   * member that is itself a union (a smart filter's `select`, by `selectType`) is spread into its members.
   * `null` among the members adds nothing (every field may be left out), a literal is its primitive type.
   */
  private union(kind: string, path: string, def: any): PropertySpec {
    const members: PropertySpec[] = [];
    const values: string[] = [];
    let nested = false;
    const spread = (options: z.core.$ZodType[], at: string, discriminator?: string) => {
      for (const option of options) {
        const o = unwrap(option);
        const odef = o._zod.def as any;
        if (odef.type === "null") continue;
        if (odef.type === "literal" && odef.values.length === 1) {
          members.push({ type: typeof odef.values[0] });
          continue;
        }
        const value = discriminator ? discriminatorValue(o, discriminator) : undefined;
        const here = value === undefined ? at : `${at}<${value}>`;
        if (odef.type === "union" && odef.discriminator) {
          // Its members share the outer value (`select`): the outer field no longer tells them apart.
          nested = true;
          spread(odef.options, here, odef.discriminator);
          continue;
        }
        if (value !== undefined) values.push(value);
        members.push(this.type(kind, here, o));
      }
    };
    spread(def.options, path, def.discriminator);
    const unique = [...new Map(members.map((m) => [JSON.stringify(m), m])).values()];
    if (unique.length === 1) return unique[0];
    const spec: PropertySpec = { oneOf: unique };
    if (
      def.discriminator &&
      !nested &&
      values.length === unique.length &&
      new Set(values).size === values.length
    )
      spec.discriminator = {
        propertyName: def.discriminator,
        mapping: Object.fromEntries(values.map((v, i) => [v, unique[i].$ref])),
      };
    return spec;
  }

  /** An object type's reference, registered under its name; a second place of another shape is an error. */
  private objectType(kind: string, path: string, shape: Record<string, z.core.$ZodType>): PropertySpec {
    const token = typeToken(typeNameAt(kind, path));
    const at = `${kind}.${path}`;
    this.places.push({ at, token });
    const existing = this.types[token];
    if (existing && existing.enum) throw new Error(`${at}: the type name ${token} is an enum's too`);
    if (existing?.pending) return { $ref: `#/types/${token}` };
    // Registered before its fields are walked, so a type that refers to itself ends.
    this.types[token] = { type: "object", properties: {}, pending: true };
    const spec = this.object(kind, path, shape);
    const description = this.doc(kind, path);
    const made = { ...(description ? { description } : {}), type: "object", ...spec };
    if (existing && !sameShape(existing, made))
      throw new Error(
        `${at} and ${this.firstMet.get(token)} are both named ${token} but differ: ` +
          "give one of them another name in TYPE_NAMES (provider/native/schema.ts)",
      );
    this.types[token] = existing ?? made;
    if (!existing) this.firstMet.set(token, at);
    return { $ref: `#/types/${token}` };
  }

  /** The properties and required fields of an object's shape. */
  object(
    kind: string,
    path: string,
    shape: Record<string, z.core.$ZodType>,
  ): { properties: Record<string, PropertySpec>; required?: string[] } {
    const properties: Record<string, PropertySpec> = {};
    const required: string[] = [];
    for (const [key, field] of Object.entries(shape)) {
      const at = path ? `${path}.${key}` : key;
      properties[key] = this.field(kind, at, field);
      if (!isOptional(field)) required.push(key);
    }
    return required.length > 0 ? { properties, required } : { properties };
  }

  /** An enum's reference; the places that share its name share one enum holding all their values. */
  private enumType(kind: string, path: string, values: unknown[]): PropertySpec {
    const token = typeToken(typeNameAt(kind, path));
    this.places.push({ at: `${kind}.${path}`, token, enumValues: values });
    const numeric = values.every((v) => typeof v === "number");
    const existing = this.types[token];
    if (existing && !existing.enum)
      throw new Error(`${kind}.${path}: the type name ${token} is an object's too`);
    const known: unknown[] = existing ? existing.enum.map((e: { value: unknown }) => e.value) : [];
    const all = [...known, ...values.filter((v) => !known.includes(v))];
    const description = existing?.description ?? this.doc(kind, path);
    this.types[token] = {
      ...(description ? { description } : {}),
      type: numeric ? (all.every((v) => Number.isInteger(v)) ? "integer" : "number") : "string",
      enum: all.map((value) => ({ value, name: enumName(value) })),
    };
    return { $ref: `#/types/${token}` };
  }
}

/** The value of `field` that a union's member takes (`z.literal`), if it takes exactly one. */
function discriminatorValue(member: z.core.$ZodType, field: string): string | undefined {
  const values = (member._zod as any).propValues?.[field] as Set<unknown> | undefined;
  if (!values || values.size !== 1) return undefined;
  const [value] = values;
  return typeof value === "string" ? value : undefined;
}

/** Whether two object types have the same fields, types and required list (descriptions aside). */
function sameShape(a: any, b: any): boolean {
  const strip = (t: any): any =>
    JSON.parse(JSON.stringify(t, (k, v) => (k === "description" || k === "pending" ? undefined : v)));
  return JSON.stringify(strip(a)) === JSON.stringify(strip(b));
}

/** A name every SDK can use for an enum value: `Threshold`, `Apl`, `Value15`. */
function enumName(value: unknown): string {
  const base = pascal(String(value));
  return /^[A-Za-z]/.test(base) ? base : `Value${base || "Empty"}`;
}

function outputTypeSpec(t: OutputType): PropertySpec {
  switch (t.type) {
    case "any":
      return { $ref: "pulumi.json#/Any" };
    case "array":
      return { type: "array", items: outputTypeSpec(t.items) };
    case "map":
      return { type: "object", additionalProperties: outputTypeSpec(t.values) };
    case "enum":
      return { type: "string" };
    case "oneOf":
      return { oneOf: t.of.map((type) => ({ type })) };
    default:
      return { type: t.type };
  }
}

/** The description of the provider's configuration keys, with the environment variable each falls back to. */
function configProperties(docs: SourceDocs): Record<string, PropertySpec> {
  const out: Record<string, PropertySpec> = {};
  for (const key of Object.keys(CONFIG_KEYS) as (keyof typeof CONFIG_KEYS)[]) {
    const env = ENV_NAMES[key];
    const spec: PropertySpec =
      key === "region" ? { $ref: `#/types/${typeToken("Region")}` } : { type: "string" };
    const description = docs.config[key];
    if (description) spec.description = `${description} Falls back to the ${env} environment variable.`;
    spec.defaultInfo = { environment: [env] };
    if (key === "token") spec.secret = true;
    out[key] = spec;
  }
  return out;
}

/** Where the package is released: its version, and the GitHub repository whose releases serve the plugin. */
export interface ReleaseInfo {
  version: string;
  /** `owner/name` on GitHub (package.json's `repository`). */
  repository?: string;
}

/**
 * The package schema: every kind as `observability:index:<Kind>`, every lookup as a function, the provider's
 * configuration as `config.variables` and `provider.inputProperties` (an explicit provider resource takes them).
 * With a repository, `pluginDownloadURL` names its GitHub releases, from which the engine fetches the plugin
 * tarball of a version (pulumi/pulumi sdk/go/common/workspace/plugins.go, the `github://` source) and which every
 * generated SDK repeats.
 * `places`, when given, receives every place the walk met an object or enum type ({@link TypePlace}).
 */
export function packageSchema(docs: SourceDocs, release?: ReleaseInfo, places?: TypePlace[]): PackageSpec {
  const walker = new Walker(docs);
  walker.types[typeToken("Region")] = {
    description: "A region of the service, which selects its base URL.",
    type: "string",
    enum: [
      { value: "us", name: "Us" },
      { value: "eu", name: "Eu" },
    ],
  };
  const resources: Record<string, ObjectSpec> = {};
  for (const [kind, declared] of KINDS) {
    const rules = declared.rules;
    const shape = (unwrap(rules.schema)._zod.def as any).shape as Record<string, z.core.$ZodType>;
    const inputs = walker.object(kind, "", shape);
    const secrets = secretKeysOf(kind);
    const kindDocs = docs.kinds[kind];
    const inputProperties: Record<string, PropertySpec> = { ...inputs.properties };
    if (rules.adoptable) {
      inputProperties[ADOPT_KEY] = {
        type: "string",
        description:
          kindDocs?.inputs[ADOPT_KEY] ??
          `The id of an existing ${kind} to take under management instead of creating one; changing it replaces.`,
      };
    }
    for (const key of rules.replaceKeys ?? []) {
      if (inputProperties[key])
        inputProperties[key] = { ...inputProperties[key], willReplaceOnChanges: true };
    }
    if (inputProperties[ADOPT_KEY]) inputProperties[ADOPT_KEY].willReplaceOnChanges = true;
    for (const key of secrets.inputs) inputProperties[key] = { ...inputProperties[key], secret: true };
    const properties: Record<string, PropertySpec> = { ...inputProperties };
    for (const [key, out] of Object.entries(kindDocs?.outputs ?? {})) {
      if (properties[key]) {
        continue;
      }
      properties[key] = {
        ...outputTypeSpec(out.type),
        ...(out.description ? { description: out.description } : {}),
      };
    }
    for (const key of secrets.outputs) properties[key] = { ...properties[key], secret: true };
    resources[typeToken(kind)] = {
      ...(kindDocs?.description ? { description: kindDocs.description } : {}),
      properties,
      ...(inputs.required ? { required: inputs.required } : {}),
      inputProperties,
      ...(inputs.required ? { requiredInputs: inputs.required } : {}),
    };
  }
  for (const [name, component] of Object.entries(COMPONENTS)) {
    const shape = (unwrap(component.inputs)._zod.def as any).shape as Record<string, z.core.$ZodType>;
    const inputs = walker.object(name, "", shape);
    const componentDocs = docs.kinds[name];
    const outputs = Object.entries(componentDocs?.outputs ?? {});
    resources[typeToken(name)] = {
      ...(componentDocs?.description ? { description: componentDocs.description } : {}),
      // Served through Construct: each SDK registers it as a remote component (pulumi/pulumi pkg/codegen/schema).
      isComponent: true,
      properties: Object.fromEntries(
        outputs.map(([key, out]) => [
          key,
          { ...outputTypeSpec(out.type), ...(out.description ? { description: out.description } : {}) },
        ]),
      ),
      required: outputs.map(([key]) => key).filter((key) => !component.optionalOutputs.includes(key)),
      inputProperties: inputs.properties,
      ...(inputs.required ? { requiredInputs: inputs.required } : {}),
    };
  }
  const functions: Record<string, unknown> = {};
  for (const lookup of LOOKUP_FUNCTIONS) {
    const resource = resources[typeToken(lookup.kind)];
    // What a lookup returns is an object read, not declared: its fields have no defaults and replace nothing.
    const result: Record<string, PropertySpec> = {
      id: { type: "string", description: `The ${lookup.noun}'s id.` },
    };
    for (const [key, spec] of Object.entries(resource.properties)) {
      const { default: _default, willReplaceOnChanges: _replaces, ...rest } = spec;
      result[key] = rest;
    }
    const itemToken = typeToken(`${lookup.noun}Result`);
    walker.types[itemToken] = {
      description: `A ${lookup.noun} as a lookup returns it.`,
      type: "object",
      properties: result,
      required: ["id"],
    };
    const argsOf = (schema: z.ZodObject) =>
      walker.object(`${lookup.noun}Lookup`, "", schema.shape as Record<string, z.core.$ZodType>);
    functions[functionToken(`get${lookup.noun}`)] = {
      description:
        NATIVE_FUNCTION_DOCS[`get${lookup.noun}`] ??
        docs.functions[`get${lookup.noun}`] ??
        `A ${lookup.noun} by id or by name.`,
      inputs: argsOf(lookup.oneArgs),
      outputs: { properties: result, required: ["id"] },
    };
    functions[functionToken(`get${lookup.plural}`)] = {
      description:
        NATIVE_FUNCTION_DOCS[`get${lookup.plural}`] ??
        docs.functions[`get${lookup.plural}`] ??
        `Every ${lookup.noun}.`,
      inputs: argsOf(lookup.manyArgs),
      outputs: {
        properties: {
          items: {
            type: "array",
            items: { $ref: `#/types/${itemToken}` },
            description: `The ${lookup.noun}s found.`,
          },
        },
        required: ["items"],
      },
    };
  }
  for (const fn of Object.values(functions) as { inputs: { properties: Record<string, unknown> } }[]) {
    if (Object.keys(fn.inputs.properties).length === 0) delete (fn as { inputs?: unknown }).inputs;
  }
  const config = configProperties(docs);
  places?.push(...walker.places);
  return {
    name: PACKAGE,
    displayName: "Observability",
    ...(release ? { version: release.version } : {}),
    description:
      "Manage an observability service (datasets, monitors, notifiers, dashboards, tokens, users, roles and more) " +
      "with Pulumi, from any Pulumi language.",
    keywords: ["pulumi", "observability", "category/monitoring", "kind/native"],
    license: "Apache-2.0",
    ...(release?.repository
      ? {
          repository: `https://github.com/${release.repository}`,
          pluginDownloadURL: `github://api.github.com/${release.repository}`,
        }
      : {}),
    config: { variables: config },
    provider: {
      description: "The provider: where the service is and the credentials it is called with.",
      properties: config,
      inputProperties: config,
    },
    types: walker.types,
    resources,
    functions,
  };
}

/** One resource's example in each language: the declaration alone, as docs/resources/<kind>.md shows it. */
export interface KindSnippets {
  typescript: string;
  python: string;
  go: string;
  yaml: string;
}

const indent = (text: string, by: string) => text.replace(/^(?=.)/gm, by);

/** A snippet as a whole program of its language: the SDK's import, and Go's `pulumi.Run`. */
function programs(s: KindSnippets): [string, string][] {
  return [
    ["typescript", `import * as obs from "@pulumi-observability/sdk";\n\n${s.typescript}`],
    ["python", `import pulumi_observability as obs\n\n${s.python}`],
    [
      "go",
      "package main\n\nimport (\n" +
        '\tobs "github.com/pulumi-observability/pulumi-observability/sdk/go/observability"\n' +
        '\t"github.com/pulumi/pulumi/sdk/v3/go/pulumi"\n)\n\n' +
        "func main() {\n\tpulumi.Run(func(ctx *pulumi.Context) error {\n" +
        indent(s.go.replace(/^_, err = /, "_, err := "), "\t\t") +
        "\n\t\treturn nil\n\t})\n}",
    ],
    ["yaml", `resources:\n${indent(s.yaml, "  ")}`],
  ];
}

/**
 * `schema` with an example per language at the end of each resource's description, in the `{{% examples %}}` and
 * `{{% example %}}` blocks Pulumi's providers write: each SDK's generator keeps its own language's code block
 * (pkg/codegen FilterExamples: `typescript`, `python`, `go`), so every SDK's docstring shows one, and the
 * Registry shows all four.
 */
export function withExamples(schema: PackageSpec, examples: Record<string, KindSnippets>): PackageSpec {
  const resources: Record<string, ObjectSpec> = {};
  for (const [token, resource] of Object.entries(schema.resources as Record<string, ObjectSpec>)) {
    const kind = token.split(":").at(-1)!;
    const snippets = examples[kind];
    if (!snippets)
      throw new Error(`no example for ${kind}: add one to EXAMPLES (scripts/docs-languages.mts)`);
    const blocks = programs(snippets)
      .map(([lang, code]) => "```" + lang + "\n" + code + "\n```")
      .join("\n");
    const example =
      "{{% examples %}}\n## Example Usage\n{{% example %}}\n" +
      `### A ${kind}\n\n${blocks}\n{{% /example %}}\n{{% /examples %}}`;
    resources[token] = {
      ...resource,
      description: resource.description ? `${resource.description}\n\n${example}` : example,
    };
  }
  return { ...schema, resources };
}
