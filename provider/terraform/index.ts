/**
 * terraform-provider-axiom's types as this package's: for each of its seven resources, our kind, type token,
 * lookup function, the id our import takes, the attributes as our inputs, and which are secret; and, from the
 * same table, the mapping the plugin answers `GetMapping("terraform", "axiom")` with (the bridge's
 * `MarshallableProviderInfo`, which `pulumi import --from terraform` and `pulumi convert --from terraform` read).
 *
 * The Terraform side is written once, in attributes.ts. Everything of ours is derived from the kinds'
 * declarations (resources/kinds.ts: their zod input schemas and secret keys), tokens.ts and functions.ts: an
 * attribute's field is the plain camel case of its name unless {@link DECLARED} renames it, and whether that
 * field is an input is what the kind's schema says. test/native/terraform-mapping.test.ts holds every attribute
 * to a field of the package schema, or to the list of those left out.
 *
 * Pure: no @pulumi/pulumi, no client. The plugin loads it at the first GetMapping only.
 */
import { z } from "zod";
import { DECLARATIONS, type DeclaredKindName } from "../resources/kinds";
import { SECRET_CHANNEL_FIELDS, CHANNEL_KEYS, unwrap } from "../schemas";
import { LOOKUP_FUNCTIONS } from "../native/functions";
import { PACKAGE, functionToken, secretKeysOf, typeToken } from "../native/tokens";
import {
  TF_PROVIDER_CONFIG,
  TF_PROVIDER_VERSION,
  TF_SCHEMAS,
  type TfAttribute,
  type TfAttributes,
} from "./attributes";
import { isPlainObject } from "../resources/values";

export { TF_PROVIDER_VERSION } from "./attributes";
export type { TfAttribute, TfAttributes } from "./attributes";

export { TERRAFORM_KEY, TERRAFORM_PROVIDER } from "./name";
/** Its registry source, as a state file's `provider` field names it. */
export const TERRAFORM_PROVIDER_SOURCE = "registry.terraform.io/axiomhq/axiom";

export interface TerraformResource {
  /** `axiom_monitor`. */
  tfType: string;
  /** Our kind, `Monitor`. */
  kind: string;
  /** `observability:index:Monitor`. */
  token: string;
  /** The data source of the same name, and our lookup function it maps to. */
  dataSource: { tfType: string; functionToken: string };
  /** The schema_version terraform-provider-axiom writes. */
  schemaVersion: number;
  /** The id our kind's import takes, from the state's attributes. */
  importId(attributes: Record<string, unknown>): string;
  /** The attributes as our kind's inputs (renamed, nested, Terraform-only ones dropped). */
  inputs(attributes: Record<string, unknown>): Record<string, unknown>;
  /** Attribute paths (dotted Terraform names) whose values are secret; a path covers all below it. */
  secretPaths: readonly string[];
}

/**
 * What the table states beyond the attributes: the kind, the renames (Terraform path to our field name, where
 * ours is not the plain camel case), the attributes with no field of ours and why, and the few conversions of a
 * value. A path is dotted Terraform names; `*` is any key of a map.
 */
interface Declared {
  kind: DeclaredKindName;
  renames?: Readonly<Record<string, string>>;
  leftOut?: Readonly<Record<string, string>>;
  /** The data source's own renames (the resource's apply to it too). */
  dataSourceRenames?: Readonly<Record<string, string>>;
  /** The import id; the `id` attribute by default. */
  importId?: (attributes: Record<string, unknown>) => unknown;
  /** Conversions of one attribute's value into our input's; `undefined` leaves it out. */
  convert?: Readonly<Record<string, (value: unknown, tfType: string) => unknown>>;
  /** Our paths that are credentials, where the kind's secret keys are coarser than the fields. */
  credentials?: () => string[];
}

const ID_LEFT_OUT = "the object's id: the resource's id, which the import takes (importId), not a property";

const DECLARED: Readonly<Record<string, Declared>> = {
  axiom_dataset: { kind: "Dataset", leftOut: { id: `${ID_LEFT_OUT}; a dataset's id is its name` } },
  axiom_monitor: {
    kind: "Monitor",
    // Seconds, as ours: terraform-provider-axiom sends `delay` as the service's `secondDelay`.
    renames: { delay: "secondDelay" },
    leftOut: { id: ID_LEFT_OUT },
    // Terraform records "" for a monitor with no operator (its default); ours leaves the field out.
    convert: { operator: (v) => (v === "" ? undefined : v) },
  },
  axiom_notifier: {
    kind: "Notifier",
    renames: { "properties.opsgenie.is_eu": "isEU" },
    leftOut: { id: ID_LEFT_OUT },
    credentials: () =>
      CHANNEL_KEYS.flatMap((channel) =>
        SECRET_CHANNEL_FIELDS[channel].map((field) => `properties.${channel}.${field}`),
      ),
  },
  axiom_token: { kind: "ApiToken", leftOut: { id: ID_LEFT_OUT } },
  axiom_user: { kind: "User", leftOut: { id: ID_LEFT_OUT } },
  axiom_virtual_field: { kind: "VirtualField", leftOut: { id: ID_LEFT_OUT } },
  axiom_dashboard: {
    kind: "Dashboard",
    leftOut: { id: `${ID_LEFT_OUT}; the same value as \`uid\`` },
    // The data source is looked up by `uid` (our function's `id`, which is a dashboard's uid) and answers the
    // service's internal id as `id` (our `dashboardId`).
    dataSourceRenames: { uid: "id", id: "dashboardId" },
    importId: (a) => a.id ?? a.uid,
    // Terraform holds the document as a JSON string; ours is the object.
    convert: {
      dashboard: (v, tfType) => {
        if (typeof v !== "string") return v;
        try {
          return JSON.parse(v) as unknown;
        } catch (e) {
          throw new Error(
            `${tfType}: dashboard is not valid JSON (${e instanceof Error ? e.message : String(e)})`,
          );
        }
      },
    },
  },
};

/** Terraform's name in plain camel case: `apl_query` is `aplQuery`. */
export const camelCase = (name: string): string =>
  name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** Our name of the attribute at `path` (its last step). */
function ourName(declared: Declared, path: string, name: string, dataSource = false): string {
  return (
    (dataSource ? declared.dataSourceRenames?.[path] : undefined) ??
    declared.renames?.[path] ??
    camelCase(name)
  );
}

/** The zod shape of an object schema, or of a map's element when `key` is `*`; undefined for anything else. */
function shapeOf(schema: z.core.$ZodType | undefined): Record<string, z.core.$ZodType> | undefined {
  if (!schema) return undefined;
  const def = unwrap(schema)._zod.def as { type: string; shape?: Record<string, z.core.$ZodType> };
  return def.type === "object" ? def.shape : undefined;
}
function valueOf(schema: z.core.$ZodType | undefined): z.core.$ZodType | undefined {
  if (!schema) return undefined;
  const def = unwrap(schema)._zod.def as { type: string; valueType?: z.core.$ZodType };
  return def.type === "record" ? def.valueType : undefined;
}

/** A kind's input schema (its declaration's zod schema). */
function inputSchema(kind: DeclaredKindName): z.core.$ZodType {
  const declared = DECLARATIONS.get(kind);
  if (!declared) throw new Error(`terraform mapping: no kind ${kind} is declared`);
  return declared.rules.schema;
}

/** Every attribute path of `attrs` (`*` for a map's element), depth first. */
export function attributePaths(attrs: TfAttributes, prefix = ""): string[] {
  const out: string[] = [];
  for (const [name, attr] of Object.entries(attrs)) {
    const path = prefix ? `${prefix}.${name}` : name;
    out.push(path);
    if (attr.type === "object" && attr.attributes) out.push(...attributePaths(attr.attributes, path));
    if (attr.element?.type === "object" && attr.element.attributes)
      out.push(...attributePaths(attr.element.attributes, `${path}.*`));
  }
  return out;
}

/** One attribute and the field of ours it maps to. */
export interface FieldMapping {
  /** The Terraform path: `properties.opsgenie.is_eu`. */
  tfPath: string;
  /** Our path: `properties.opsgenie.isEU`. */
  path: string;
  /** Whether the name is not Terraform's in plain camel case. */
  renamed: boolean;
  /** Whether the field is one of the kind's inputs (else an output only, such as `createdAt`). */
  input: boolean;
}

/** Every attribute of a resource (or its data source) that maps to a field of ours, and those left out. */
export function fieldMappings(
  tfType: string,
  options: { dataSource?: boolean } = {},
): { fields: FieldMapping[]; leftOut: Readonly<Record<string, string>> } {
  const declared = DECLARED[tfType];
  const tf = TF_SCHEMAS[tfType];
  if (!declared || !tf) throw new Error(`terraform mapping: ${tfType} is not a type of the axiom provider`);
  const leftOut = options.dataSource ? {} : (declared.leftOut ?? {});
  const fields: FieldMapping[] = [];
  const walk = (
    attrs: TfAttributes,
    tfPrefix: string,
    ourPrefix: string,
    shape?: Record<string, z.core.$ZodType>,
  ) => {
    for (const [name, attr] of Object.entries(attrs)) {
      const tfPath = tfPrefix ? `${tfPrefix}.${name}` : name;
      if (tfPath in leftOut) continue;
      const ours = ourName(declared, tfPath, name, options.dataSource);
      const path = ourPrefix ? `${ourPrefix}.${ours}` : ours;
      const field = shape?.[ours];
      fields.push({ tfPath, path, renamed: ours !== camelCase(name), input: field !== undefined });
      if (attr.type === "object" && attr.attributes) walk(attr.attributes, tfPath, path, shapeOf(field));
      if (attr.element?.type === "object" && attr.element.attributes)
        walk(attr.element.attributes, `${tfPath}.*`, `${path}.*`, shapeOf(valueOf(field)));
    }
  };
  walk(options.dataSource ? tf.dataSource : tf.attributes, "", "", shapeOf(inputSchema(declared.kind)));
  return { fields, leftOut };
}

/** The attributes' values as our inputs: renamed at every level, nulls and non-inputs dropped. */
function toInputs(
  tfType: string,
  declared: Declared,
  attrs: TfAttributes,
  values: Record<string, unknown>,
  tfPrefix: string,
  shape: Record<string, z.core.$ZodType> | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, attr] of Object.entries(attrs)) {
    const tfPath = tfPrefix ? `${tfPrefix}.${name}` : name;
    if (declared.leftOut && tfPath in declared.leftOut) continue;
    const ours = ourName(declared, tfPath, name);
    const field = shape?.[ours];
    if (field === undefined) continue; // an output of ours (createdAt), not an input
    let value = values[name];
    const convert = declared.convert?.[tfPath];
    if (convert) value = convert(value, tfType);
    if (value === null || value === undefined) continue;
    if (attr.type === "object" && attr.attributes) {
      if (!isPlainObject(value))
        throw new Error(`${tfType}: ${tfPath} must be an object, got ${typeof value}`);
      out[ours] = toInputs(tfType, declared, attr.attributes, value, tfPath, shapeOf(field));
    } else if (attr.type === "map" && attr.element?.type === "object" && attr.element.attributes) {
      if (!isPlainObject(value)) throw new Error(`${tfType}: ${tfPath} must be a map, got ${typeof value}`);
      const elementShape = shapeOf(valueOf(field));
      const elementAttrs = attr.element.attributes;
      out[ours] = Object.fromEntries(
        Object.entries(value).map(([key, element]) => {
          if (!isPlainObject(element))
            throw new Error(`${tfType}: ${tfPath}["${key}"] must be an object, got ${typeof element}`);
          return [key, toInputs(tfType, declared, elementAttrs, element, `${tfPath}.*`, elementShape)];
        }),
      );
    } else if (attr.type === "list" && !Array.isArray(value)) {
      throw new Error(`${tfType}: ${tfPath} must be a list, got ${typeof value}`);
    } else {
      out[ours] = value;
    }
  }
  return out;
}

/** The Terraform paths whose values are secret: Terraform's sensitive ones, and those of ours that are. */
function secretPathsOf(tfType: string, declared: Declared): string[] {
  const tf = TF_SCHEMAS[tfType];
  const sensitive: string[] = [];
  const walk = (attrs: TfAttributes, prefix: string) => {
    for (const [name, attr] of Object.entries(attrs)) {
      const path = prefix ? `${prefix}.${name}` : name;
      if (attr.sensitive) sensitive.push(path);
      else if (attr.attributes) walk(attr.attributes, path);
      else if (attr.element?.attributes) walk(attr.element.attributes, `${path}.*`);
    }
  };
  walk(tf.attributes, "");
  const secrets = secretKeysOf(declared.kind);
  const ours = new Set(
    declared.credentials ? declared.credentials() : [...secrets.outputs, ...secrets.inputs],
  );
  const mapped = fieldMappings(tfType)
    .fields.filter((f) => ours.has(f.path))
    .map((f) => f.tfPath);
  return [...new Set([...sensitive, ...mapped])].sort();
}

function resourceOf(tfType: string, declared: Declared): TerraformResource {
  const tf = TF_SCHEMAS[tfType];
  const lookup = LOOKUP_FUNCTIONS.find((f) => f.kind === declared.kind);
  if (!lookup) throw new Error(`terraform mapping: no lookup function serves ${declared.kind}`);
  const shape = shapeOf(inputSchema(declared.kind));
  return {
    tfType,
    kind: declared.kind,
    token: typeToken(declared.kind),
    dataSource: { tfType, functionToken: functionToken(`get${lookup.noun}`) },
    schemaVersion: tf.schemaVersion,
    importId(attributes) {
      const id = declared.importId ? declared.importId(attributes) : attributes.id;
      if (typeof id !== "string" || id === "")
        throw new Error(
          `${tfType}: the instance has no id (its "id" attribute is ${JSON.stringify(id ?? null)})`,
        );
      return id;
    },
    inputs: (attributes) => toInputs(tfType, declared, tf.attributes, attributes, "", shape),
    secretPaths: Object.freeze(secretPathsOf(tfType, declared)),
  };
}

/** The seven resources, by Terraform type. */
export const TERRAFORM_RESOURCES: ReadonlyMap<string, TerraformResource> = new Map(
  Object.entries(DECLARED).map(([tfType, declared]) => [tfType, resourceOf(tfType, declared)] as const),
);

/* The mapping: pulumi-terraform-bridge pkg/tfbridge/info/info.go `MarshallableProvider` and the types it holds. */

/** `shim.ValueType` (pulumi-terraform-bridge pkg/tfshim/shim.go): TypeBool = 1 … TypeSet = 7. */
const VALUE_TYPE = { bool: 1, int: 2, float: 3, string: 4, list: 5, map: 6, object: 6 } as const;

/**
 * An attribute as the bridge's `MarshallableSchemaShim`: a single nested object is a map whose element is a
 * resource (shim.go, `Elem()` case 2); a map of objects a map whose element is a map of a resource (as the
 * bridge's pf/tests/schemashim_test.go records a `MapNestedAttribute`).
 */
function shimOf(attr: TfAttribute): Record<string, unknown> {
  const out: Record<string, unknown> = { type: VALUE_TYPE[attr.type] };
  if (attr.optional) out.optional = true;
  if (attr.required) out.required = true;
  if (attr.computed) out.computed = true;
  if (attr.forceNew) out.forceNew = true;
  if (attr.type === "object" && attr.attributes) out.element = { resource: shimResource(attr.attributes) };
  else if (attr.element) out.element = { schema: shimOf(attr.element) };
  if (attr.deprecated) out.deprecated = attr.deprecated;
  if (attr.sensitive) out.sensitive = true;
  return out;
}
function shimResource(attrs: TfAttributes): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(attrs)
      // Never in state nor in a plan: the bridge's shim of a framework provider leaves write-only ones out too.
      .filter(([, a]) => !a.writeOnly)
      .map(([name, a]) => [name, shimOf(a)]),
  );
}

type MarshallableSchema = {
  name?: string;
  element?: MarshallableSchema;
  fields?: Record<string, MarshallableSchema>;
};

/**
 * The `fields` of a resource or data source: an entry wherever the bridge's own naming (pkg/tfbridge/internal/
 * naming `TerraformToPulumiNameV2`) would not land on our field. That naming is plain camel case except for a
 * list, whose name it pluralizes (an `ingest` list would read `ingests`): so a renamed attribute and every list
 * get their name spelled out. Nested attributes sit in `fields` (an object's) or `element.fields` (a map's).
 */
function fieldsInfo(
  declared: Declared,
  attrs: TfAttributes,
  prefix: string,
  dataSource: boolean,
): Record<string, MarshallableSchema> {
  const out: Record<string, MarshallableSchema> = {};
  for (const [name, attr] of Object.entries(attrs)) {
    const tfPath = prefix ? `${prefix}.${name}` : name;
    if (!dataSource && declared.leftOut && tfPath in declared.leftOut) continue;
    const ours = ourName(declared, tfPath, name, dataSource);
    const entry: MarshallableSchema = {};
    if (ours !== camelCase(name) || attr.type === "list") entry.name = ours;
    if (attr.type === "object" && attr.attributes) {
      const nested = fieldsInfo(declared, attr.attributes, tfPath, dataSource);
      if (Object.keys(nested).length > 0) entry.fields = nested;
    }
    if (attr.element?.type === "object" && attr.element.attributes) {
      const nested = fieldsInfo(declared, attr.element.attributes, `${tfPath}.*`, dataSource);
      if (Object.keys(nested).length > 0) entry.element = { fields: nested };
    }
    if (Object.keys(entry).length > 0) out[name] = entry;
  }
  return out;
}

/** The provider's configuration keys as ours (provider/config.ts `CONFIG_KEYS`): `api_token` is `token`. */
export const CONFIG_RENAMES: Readonly<Record<string, string>> = { api_token: "token", base_url: "url" };

let mapping: Record<string, unknown> | undefined;

/**
 * The bridge's `MarshallableProviderInfo` for terraform-provider-axiom, as GetMapping answers it: our package's
 * name and version, the Terraform schema (`provider`), and each resource's and data source's token and fields.
 * Built at the first call, from the table.
 */
export function terraformMapping(version = "0.0.0"): Record<string, unknown> {
  if (mapping && mapping.version === version) return mapping;
  const resources: Record<string, unknown> = {};
  const dataSources: Record<string, unknown> = {};
  const shim = {
    schema: shimResource(TF_PROVIDER_CONFIG),
    resources: {} as object,
    dataSources: {} as object,
  };
  for (const [tfType, resource] of TERRAFORM_RESOURCES) {
    const declared = DECLARED[tfType];
    const tf = TF_SCHEMAS[tfType];
    resources[tfType] = {
      tok: resource.token,
      fields: fieldsInfo(declared, tf.attributes, "", false),
      idFields: ["id"],
    };
    dataSources[tfType] = {
      tok: resource.dataSource.functionToken,
      fields: fieldsInfo(declared, tf.dataSource, "", true),
    };
    (shim.resources as Record<string, unknown>)[tfType] = shimResource(tf.attributes);
    (shim.dataSources as Record<string, unknown>)[tfType] = shimResource(tf.dataSource);
  }
  mapping = {
    name: PACKAGE,
    version,
    tfProviderVersion: TF_PROVIDER_VERSION,
    provider: shim,
    config: Object.fromEntries(Object.entries(CONFIG_RENAMES).map(([tf, ours]) => [tf, { name: ours }])),
    resources,
    dataSources,
  };
  return mapping;
}
