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
import { CONFIG_KEYS } from "../config";
import { ENV_NAMES } from "../client/env";
import { LOOKUP_FUNCTIONS } from "./functions";
import { ADOPT_KEY } from "../resources/descriptor";
import { KINDS } from "../resources/registry";
import { PACKAGE, functionToken, secretKeysOf, typeToken } from "./tokens";

export { MODULE, PACKAGE, functionToken, secretKeysOf, typeToken } from "./tokens";

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
  | { type: "enum"; values: string[] };

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

/** The zod wrappers that change nothing about the type's shape. */
const WRAPPERS = new Set(["optional", "nullable", "default", "prefault", "catch", "readonly", "nonoptional"]);

/** `schema` without its wrappers and preprocessing: the type its values have. */
/**
 * Where a function of the plugin answers otherwise than the program's function of the same name, whose comment the
 * description is read from: the program's promise forms of a notifier leave its channel's credentials out (a plain
 * value cannot be marked secret), while the plugin returns them marked secret, as an Output form does.
 */
const NATIVE_FUNCTION_DOCS: Readonly<Record<string, string>> = {
  getNotifier: "A notifier by id or by name, its channel's credentials included and marked secret.",
  getNotifiers: "Every notifier, their channels' credentials included and marked secret.",
};

export function unwrap(schema: z.core.$ZodType): z.core.$ZodType {
  let s = schema;
  for (let i = 0; i < 32; i++) {
    const def = s._zod.def as any;
    if (WRAPPERS.has(def.type)) s = def.innerType;
    // A preprocess is a pipe from a transform; a pipe into a transform keeps its input's type; any other pipe
    // (a discriminating object piped into a union) has its output's.
    else if (def.type === "pipe") s = def.out._zod.def.type === "transform" ? def.in : def.out;
    else return s;
  }
  return s;
}

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

/** Builds the schema's types while it walks the kinds' zod schemas. */
class Walker {
  readonly types: Record<string, any> = {};
  /** Enum tokens by their values: a set of values declared in several places is one type. */
  private readonly enums = new Map<string, string>();

  constructor(private readonly docs: SourceDocs) {}

  /** The description the sources give the input at `path` of `kind`. */
  private doc(kind: string, path: string): string | undefined {
    return this.docs.kinds[kind]?.inputs[path];
  }

  /** The spec of one field: its type, description and default. */
  field(kind: string, path: string, field: z.core.$ZodType): PropertySpec {
    const spec: PropertySpec = { ...this.type(kind, path, field) };
    const description = this.doc(kind, path) ?? metaOf(field, "description")?.value;
    if (typeof description === "string" && description) spec.description = description;
    const d = defaultOf(field);
    // The metaschema takes a primitive default only; a default list or null stays in the description.
    if (
      d &&
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
    const name = kind + pascal(path.replace(/\[\]/g, "Item"));
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
        return { type: "object", additionalProperties: this.type(kind, `${path}[]`, def.valueType) };
      case "enum":
        return this.enumType(name, kind, path, Object.values(def.entries));
      case "literal": {
        const values = def.values as unknown[];
        if (values.length === 1)
          return { type: typeof values[0] === "number" ? "number" : typeof values[0], const: values[0] };
        return this.enumType(name, kind, path, values);
      }
      case "object": {
        const token = typeToken(name);
        if (!this.types[token]) {
          // Registered before its fields are walked, so a type that refers to itself ends.
          this.types[token] = { type: "object", properties: {} };
          const spec = this.object(kind, path, def.shape);
          const description = this.doc(kind, path);
          this.types[token] = { ...(description ? { description } : {}), type: "object", ...spec };
        }
        return { $ref: `#/types/${token}` };
      }
      default:
        // A union (a dashboard's charts), `unknown`, and anything else: any JSON value, checked by `check`.
        return { $ref: "pulumi.json#/Any" };
    }
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

  private enumType(name: string, kind: string, path: string, values: unknown[]): PropertySpec {
    const key = JSON.stringify(values);
    const known = this.enums.get(key);
    if (known) return { $ref: `#/types/${known}` };
    const token = typeToken(name);
    this.enums.set(key, token);
    const numeric = values.every((v) => typeof v === "number");
    this.types[token] = {
      ...(this.doc(kind, path) ? { description: this.doc(kind, path) } : {}),
      type: numeric ? (values.every((v) => Number.isInteger(v)) ? "integer" : "number") : "string",
      enum: values.map((value) => ({ value, name: enumName(value) })),
    };
    return { $ref: `#/types/${token}` };
  }
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

/**
 * The package schema: every kind as `observability:index:<Kind>`, every lookup as a function, the provider's
 * configuration as `config.variables` and `provider.inputProperties` (an explicit provider resource takes them).
 */
export function packageSchema(docs: SourceDocs, version?: string): PackageSpec {
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
  return {
    name: PACKAGE,
    displayName: "Observability",
    ...(version ? { version } : {}),
    description:
      "Manage an observability service (datasets, monitors, notifiers, dashboards, tokens, users, roles and more) " +
      "with Pulumi, from any Pulumi language.",
    keywords: ["pulumi", "observability", "category/monitoring", "kind/native"],
    license: "Apache-2.0",
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
