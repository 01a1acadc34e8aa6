/**
 * terraform-provider-axiom v1.6.1's schemas, as its sources declare them (axiomhq/terraform-provider-axiom, tag
 * v1.6.1, `axiom/resource_*.go` and `axiom/data_source_*.go`): each attribute's name, type and flags, and each
 * resource's schema version. This is the one place a Terraform attribute name is written; what ours is, which are
 * secret, and the mapping the plugin answers are derived from it and from the kinds' declarations (index.ts).
 */

/** A Terraform attribute (terraform-plugin-framework): its type, element or nested attributes, and flags. */
export interface TfAttribute {
  type: "string" | "bool" | "int" | "float" | "list" | "map" | "object";
  /** A list's or map's element. */
  element?: TfAttribute;
  /** An object's (a `SingleNestedAttribute`'s, or a nested map's element's) attributes. */
  attributes?: Readonly<Record<string, TfAttribute>>;
  required?: boolean;
  optional?: boolean;
  computed?: boolean;
  /** `Sensitive: true`: Terraform lists its path in the instance's `sensitive_attributes`. */
  sensitive?: boolean;
  /** `WriteOnly: true`: taken from the configuration, never recorded in state. */
  writeOnly?: boolean;
  /** `RequiresReplace()`. */
  forceNew?: boolean;
  deprecated?: string;
}
export type TfAttributes = Readonly<Record<string, TfAttribute>>;

const str = (flags: Omit<TfAttribute, "type"> = {}): TfAttribute => ({ type: "string", ...flags });
const bool = (flags: Omit<TfAttribute, "type"> = {}): TfAttribute => ({ type: "bool", ...flags });
const int = (flags: Omit<TfAttribute, "type"> = {}): TfAttribute => ({ type: "int", ...flags });
const float = (flags: Omit<TfAttribute, "type"> = {}): TfAttribute => ({ type: "float", ...flags });
const strings = (flags: Omit<TfAttribute, "type" | "element"> = {}): TfAttribute => ({
  type: "list",
  element: { type: "string" },
  ...flags,
});
const object = (
  attributes: TfAttributes,
  flags: Omit<TfAttribute, "type" | "attributes"> = {},
): TfAttribute => ({
  type: "object",
  attributes,
  ...flags,
});

const REQUIRED = { required: true } as const;
const OPTIONAL = { optional: true } as const;
const OPTIONAL_COMPUTED = { optional: true, computed: true } as const;
const COMPUTED = { computed: true } as const;

/** resource_dataset.go (schema Version 1). */
const DATASET: TfAttributes = {
  id: str(COMPUTED),
  name: str({ ...REQUIRED, forceNew: true }),
  kind: str({ ...OPTIONAL_COMPUTED, forceNew: true }),
  description: str(OPTIONAL_COMPUTED),
  edge_deployment: str(OPTIONAL_COMPUTED),
  use_retention_period: bool(OPTIONAL_COMPUTED),
  retention_days: int(OPTIONAL_COMPUTED),
  map_fields: strings(OPTIONAL_COMPUTED),
};

/** resource_monitor.go (schema Version 1). */
const MONITOR: TfAttributes = {
  id: str(COMPUTED),
  name: str(REQUIRED),
  description: str(OPTIONAL),
  alert_on_no_data: bool(OPTIONAL_COMPUTED),
  notify_by_group: bool(OPTIONAL_COMPUTED),
  apl_query: str(REQUIRED),
  disabled_until: str(OPTIONAL),
  interval_minutes: int(OPTIONAL_COMPUTED),
  notifier_ids: strings(OPTIONAL),
  operator: str(OPTIONAL_COMPUTED),
  range_minutes: int(OPTIONAL_COMPUTED),
  threshold: float(OPTIONAL_COMPUTED),
  resolvable: bool(OPTIONAL_COMPUTED),
  delay: int(OPTIONAL_COMPUTED),
  notify_every_run: bool(OPTIONAL_COMPUTED),
  skip_resolved: bool(OPTIONAL_COMPUTED),
  created_by: str(COMPUTED),
  created_at: str(COMPUTED),
  tolerance: float(OPTIONAL_COMPUTED),
  trigger_from_n_runs: int(OPTIONAL_COMPUTED),
  trigger_after_n_positive_results: int(OPTIONAL_COMPUTED),
  compare_days: int(OPTIONAL_COMPUTED),
  type: str(REQUIRED),
};

/** resource_notifier.go (schema Version 1): `properties` holds exactly one channel, the others null. */
const NOTIFIER: TfAttributes = {
  id: str(COMPUTED),
  name: str(REQUIRED),
  properties: object(
    {
      slack: object({ slack_url: str(REQUIRED) }, OPTIONAL),
      discord: object({ discord_channel: str(REQUIRED), discord_token: str(REQUIRED) }, OPTIONAL),
      discord_webhook: object({ discord_webhook_url: str(REQUIRED) }, OPTIONAL),
      email: object({ emails: strings(REQUIRED) }, OPTIONAL),
      opsgenie: object({ api_key: str(REQUIRED), is_eu: bool(REQUIRED) }, OPTIONAL),
      pagerduty: object(
        {
          routing_key: str(REQUIRED),
          token: str({ ...OPTIONAL, deprecated: "token is deprecated, and is not used" }),
        },
        OPTIONAL,
      ),
      webhook: object({ url: str(REQUIRED) }, OPTIONAL),
      custom_webhook: object(
        {
          url: str(REQUIRED),
          body: str(REQUIRED),
          headers: { type: "map", element: { type: "string" }, optional: true, sensitive: true },
        },
        OPTIONAL,
      ),
    },
    REQUIRED,
  ),
};

const actions = strings(OPTIONAL_COMPUTED);

/** resource_tokens.go (schema Version 1). */
const TOKEN: TfAttributes = {
  token: str({ ...COMPUTED, sensitive: true }),
  id: str(COMPUTED),
  name: str(REQUIRED),
  description: str(OPTIONAL),
  expires_at: str(OPTIONAL),
  rotation_grace_period: str({ ...OPTIONAL, writeOnly: true }),
  dataset_capabilities: {
    type: "map",
    ...OPTIONAL_COMPUTED,
    element: object({
      ingest: actions,
      query: actions,
      starred_queries: actions,
      virtual_fields: actions,
      data: actions,
      trim: actions,
      vacuum: actions,
    }),
  },
  org_capabilities: object(
    {
      annotations: actions,
      api_tokens: actions,
      audit_log: actions,
      billing: actions,
      dashboards: actions,
      datasets: actions,
      endpoints: actions,
      flows: actions,
      integrations: actions,
      monitors: actions,
      notifiers: actions,
      rbac: actions,
      shared_access_keys: actions,
      users: actions,
    },
    OPTIONAL,
  ),
};

/** resource_user.go (schema Version 1). */
const USER: TfAttributes = {
  id: str(COMPUTED),
  name: str(REQUIRED),
  email: str({ ...REQUIRED, forceNew: true }),
  role: str(REQUIRED),
};

/** resource_virtual_field.go (schema Version 1). */
const VIRTUAL_FIELD: TfAttributes = {
  id: str(COMPUTED),
  dataset: str(REQUIRED),
  name: str(REQUIRED),
  expression: str(REQUIRED),
  description: str(OPTIONAL),
  type: str(OPTIONAL_COMPUTED),
  unit: str(OPTIONAL_COMPUTED),
};

/** resource_dashboard.go (no schema Version: 0). `dashboard` is the document as a JSON string. */
const DASHBOARD: TfAttributes = {
  id: str(COMPUTED),
  uid: str({ ...OPTIONAL_COMPUTED, forceNew: true }),
  dashboard: str(REQUIRED),
  overwrite: bool(OPTIONAL_COMPUTED),
};

/** data_source_dashboard.go: its own schema, looked up by `uid`; `id` is the service's internal id. */
const DASHBOARD_DATA: TfAttributes = {
  uid: str(REQUIRED),
  id: str(COMPUTED),
  dashboard: str(COMPUTED),
  version: int(COMPUTED),
  created_at: str(COMPUTED),
  updated_at: str(COMPUTED),
  created_by: str(COMPUTED),
  updated_by: str(COMPUTED),
};

/**
 * A data source built from its resource's schema (utils.go `frameworkDatasourceSchemaFromFrameworkResourceSchema`
 * and `convertAttribute`): every attribute computed, at every level, with its type and nothing else (no
 * sensitivity, deprecation or write-only flag); `id` required.
 */
export function dataSourceOf(resource: TfAttributes): TfAttributes {
  const computed = (attrs: TfAttributes): TfAttributes =>
    Object.fromEntries(
      Object.entries(attrs).map(([name, a]) => {
        const out: TfAttribute = { type: a.type, computed: true };
        if (a.element)
          out.element = a.element.attributes
            ? { ...a.element, attributes: computed(a.element.attributes) }
            : a.element;
        if (a.attributes) out.attributes = computed(a.attributes);
        return [name, out];
      }),
    );
  return { ...computed(resource), id: { type: "string", required: true } };
}

/** One Terraform resource type of the provider, and its data source of the same name. */
export interface TfResourceSchema {
  /** `schema.Schema.Version`: what the provider writes as each instance's `schema_version`. */
  schemaVersion: number;
  attributes: TfAttributes;
  dataSource: TfAttributes;
}

/** The provider's seven resources (provider.go `Resources`), each with its data source (`DataSources`). */
export const TF_SCHEMAS: Readonly<Record<string, TfResourceSchema>> = {
  axiom_dataset: { schemaVersion: 1, attributes: DATASET, dataSource: dataSourceOf(DATASET) },
  axiom_monitor: { schemaVersion: 1, attributes: MONITOR, dataSource: dataSourceOf(MONITOR) },
  axiom_notifier: { schemaVersion: 1, attributes: NOTIFIER, dataSource: dataSourceOf(NOTIFIER) },
  axiom_token: { schemaVersion: 1, attributes: TOKEN, dataSource: dataSourceOf(TOKEN) },
  axiom_user: { schemaVersion: 1, attributes: USER, dataSource: dataSourceOf(USER) },
  axiom_virtual_field: {
    schemaVersion: 1,
    attributes: VIRTUAL_FIELD,
    dataSource: dataSourceOf(VIRTUAL_FIELD),
  },
  axiom_dashboard: { schemaVersion: 0, attributes: DASHBOARD, dataSource: DASHBOARD_DATA },
};

/** The provider's own configuration (provider.go `Schema`). */
export const TF_PROVIDER_CONFIG: TfAttributes = {
  api_token: str({ ...OPTIONAL, sensitive: true }),
  base_url: str(OPTIONAL),
};

/** The release these schemas were read at. */
export const TF_PROVIDER_VERSION = "1.6.1";
