/**
 * The Terraform table (provider/terraform) and the mapping the plugin answers with:
 * - every attribute of terraform-provider-axiom v1.6.1's resources and data sources (axiomhq/terraform-provider-axiom
 *   `axiom/resource_*.go`, `axiom/data_source_*.go`) maps to a field of our package schema, or is listed as left
 *   out; every rename points at a real field and is needed (the plain camel case is not one of ours); a tampered
 *   schema shows the check names the attribute;
 * - the mapping has the shape pulumi-terraform-bridge's `MarshallableProvider` reads (pkg/tfbridge/info/info.go:
 *   its Go structs' JSON tags, including `MarshallableSchema.Type`'s tag, which is literally `typeomitempty`, and
 *   `shim.ValueType`'s numbering in pkg/tfshim/shim.go), its data sources name our lookup functions, and every list
 *   and renamed field spells out its name, since the bridge's default naming (pkg/tfbridge/internal/naming)
 *   pluralizes a list's name;
 * - `inputs()` turns attributes as the Terraform provider records them into inputs our kinds' schemas accept.
 */
import { LOOKUP_FUNCTIONS } from "../../provider/native/functions";
import type { PackageSpec } from "../../provider/native/schema";
import { DECLARATIONS, type DeclaredKindName } from "../../provider/resources/kinds";
import { CONFIG_KEYS } from "../../provider/config";
import {
  CONFIG_RENAMES,
  TERRAFORM_PROVIDER,
  TERRAFORM_RESOURCES,
  attributePaths,
  camelCase,
  fieldMappings,
  terraformMapping,
} from "../../provider/terraform";
import { TF_SCHEMAS } from "../../provider/terraform/attributes";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { REPO_ROOT, schemaJson } from "../helpers/native";

/* eslint-disable @typescript-eslint/no-explicit-any */
const schema = (): PackageSpec => JSON.parse(schemaJson());

/** The spec at our dotted `path` (`*` a map's value) below `props`, following `$ref`s; undefined when absent. */
function specAt(s: PackageSpec, props: Record<string, any> | undefined, path: string): any {
  let spec: any = { properties: props };
  for (const step of path.split(".")) {
    if (typeof spec?.$ref === "string") spec = s.types[spec.$ref.slice("#/types/".length)];
    spec = step === "*" ? spec?.additionalProperties : spec?.properties?.[step];
    if (spec === undefined) return undefined;
  }
  return spec;
}

/**
 * Every attribute of `tfType` (or of its data source) whose field our schema does not have, one line each,
 * naming the attribute; and every attribute neither mapped nor left out.
 */
function unresolved(s: PackageSpec, tfType: string, dataSource: boolean): string[] {
  const resource = TERRAFORM_RESOURCES.get(tfType)!;
  const { fields, leftOut } = fieldMappings(tfType, { dataSource });
  const out: string[] = [];
  const tf = TF_SCHEMAS[tfType];
  const mapped = new Set(fields.map((f) => f.tfPath));
  const under = (p: string) => Object.keys(leftOut).some((l) => p === l || p.startsWith(`${l}.`));
  for (const p of attributePaths(dataSource ? tf.dataSource : tf.attributes))
    if (!mapped.has(p) && !under(p)) out.push(`${tfType}.${p}: neither mapped nor left out`);
  if (dataSource) {
    const fn = s.functions[resource.dataSource.functionToken];
    if (!fn) return [`${tfType}: no function ${resource.dataSource.functionToken}`];
    for (const f of fields) {
      const found = specAt(s, fn.inputs?.properties, f.path) ?? specAt(s, fn.outputs?.properties, f.path);
      if (found === undefined)
        out.push(`data ${tfType}.${f.tfPath}: no ${f.path} in ${resource.dataSource.functionToken}`);
    }
    return out;
  }
  const spec = s.resources[resource.token];
  if (!spec) return [`${tfType}: no resource ${resource.token}`];
  for (const f of fields) {
    // An input is among the inputs at its path; an output only (`createdAt`) is a top-level property.
    const found = f.input ? specAt(s, spec.inputProperties, f.path) : specAt(s, spec.properties, f.path);
    if (found === undefined)
      out.push(`${tfType}.${f.tfPath}: no ${f.input ? "input" : "output"} ${f.path} in ${resource.token}`);
  }
  return out;
}

const TYPES = [
  "axiom_dataset",
  "axiom_monitor",
  "axiom_notifier",
  "axiom_token",
  "axiom_user",
  "axiom_virtual_field",
  "axiom_dashboard",
];

describe("the table", () => {
  test("covers terraform-provider-axiom v1.6.1's seven resources (provider.go Resources), each with its data source", () => {
    expect([...TERRAFORM_RESOURCES.keys()].sort()).toEqual([...TYPES].sort());
    for (const r of TERRAFORM_RESOURCES.values()) expect(r.dataSource.tfType).toBe(r.tfType);
    expect(TERRAFORM_PROVIDER).toBe("axiom");
  });

  test.each(TYPES)("%s: every attribute maps to a field of our schema or is left out, with why", (tfType) => {
    const s = schema();
    expect(unresolved(s, tfType, false)).toEqual([]);
    expect(unresolved(s, tfType, true)).toEqual([]);
    for (const why of Object.values(fieldMappings(tfType).leftOut)) expect(why.length).toBeGreaterThan(20);
  });

  test("a schema without the renamed field fails, naming the attribute", () => {
    const s = schema();
    delete s.resources["observability:index:Monitor"].inputProperties.secondDelay;
    delete s.resources["observability:index:Monitor"].properties.secondDelay;
    expect(unresolved(s, "axiom_monitor", false)).toEqual([
      "axiom_monitor.delay: no input secondDelay in observability:index:Monitor",
    ]);
    const t = schema();
    const opsgenie = t.types["observability:index:NotifierPropertiesOpsgenie"];
    delete opsgenie.properties.isEU;
    expect(unresolved(t, "axiom_notifier", false)).toEqual([
      "axiom_notifier.properties.opsgenie.is_eu: no input properties.opsgenie.isEU in observability:index:Notifier",
    ]);
  });

  test("renames are the names that are not Terraform's in plain camel case, and each is needed", () => {
    const s = schema();
    const renamed: Record<string, string> = {};
    for (const tfType of TYPES) {
      for (const f of fieldMappings(tfType).fields.filter((x) => x.renamed)) {
        renamed[`${tfType}.${f.tfPath}`] = f.path;
        // The plain camel case is no field of ours: without the rename the attribute would land nowhere.
        const plain = f.path
          .split(".")
          .slice(0, -1)
          .concat(camelCase(f.tfPath.split(".").at(-1)!))
          .join(".");
        const spec = s.resources[TERRAFORM_RESOURCES.get(tfType)!.token];
        expect(specAt(s, spec.properties, plain)).toBeUndefined();
      }
    }
    expect(renamed).toEqual({
      "axiom_monitor.delay": "secondDelay",
      "axiom_notifier.properties.opsgenie.is_eu": "properties.opsgenie.isEU",
    });
    const dashboardData = fieldMappings("axiom_dashboard", { dataSource: true }).fields.filter(
      (f) => f.renamed,
    );
    expect(Object.fromEntries(dashboardData.map((f) => [f.tfPath, f.path]))).toEqual({
      uid: "id",
      id: "dashboardId",
    });
  });

  test("the Terraform-only and output-only attributes are not inputs: id left out, created_at/created_by/token outputs", () => {
    const inputOf = (tfType: string, p: string) =>
      fieldMappings(tfType).fields.find((f) => f.tfPath === p)?.input;
    for (const tfType of TYPES) expect(fieldMappings(tfType).leftOut).toHaveProperty("id");
    expect(inputOf("axiom_monitor", "created_at")).toBe(false);
    expect(inputOf("axiom_monitor", "created_by")).toBe(false);
    expect(inputOf("axiom_token", "token")).toBe(false);
    expect(inputOf("axiom_token", "rotation_grace_period")).toBe(true);
    expect(inputOf("axiom_dashboard", "overwrite")).toBe(true);
    expect(inputOf("axiom_token", "dataset_capabilities.*.starred_queries")).toBe(true);
  });

  test("schema versions are those the provider's Schema() declares (dashboard has none: 0)", () => {
    const versions = Object.fromEntries([...TERRAFORM_RESOURCES].map(([t, r]) => [t, r.schemaVersion]));
    expect(versions).toEqual({
      axiom_dataset: 1,
      axiom_monitor: 1,
      axiom_notifier: 1,
      axiom_token: 1,
      axiom_user: 1,
      axiom_virtual_field: 1,
      axiom_dashboard: 0,
    });
  });

  test("secret paths: Terraform's sensitive attributes and every channel credential of ours, never emails", () => {
    expect(TERRAFORM_RESOURCES.get("axiom_token")!.secretPaths).toEqual(["token"]);
    expect(TERRAFORM_RESOURCES.get("axiom_notifier")!.secretPaths).toEqual([
      "properties.custom_webhook.headers",
      "properties.custom_webhook.url",
      "properties.discord.discord_token",
      "properties.discord_webhook.discord_webhook_url",
      "properties.opsgenie.api_key",
      "properties.pagerduty.routing_key",
      "properties.pagerduty.token",
      "properties.slack.slack_url",
      "properties.webhook.url",
    ]);
    for (const t of [
      "axiom_dataset",
      "axiom_monitor",
      "axiom_user",
      "axiom_virtual_field",
      "axiom_dashboard",
    ])
      expect(TERRAFORM_RESOURCES.get(t)!.secretPaths).toEqual([]);
  });

  test("import ids: the `id` attribute (ImportStatePassthroughID); a dashboard's is its uid", () => {
    expect(TERRAFORM_RESOURCES.get("axiom_monitor")!.importId({ id: "mon_1", name: "x" })).toBe("mon_1");
    expect(TERRAFORM_RESOURCES.get("axiom_dataset")!.importId({ id: "logs", name: "logs" })).toBe("logs");
    expect(TERRAFORM_RESOURCES.get("axiom_dashboard")!.importId({ id: "ops", uid: "ops" })).toBe("ops");
    expect(TERRAFORM_RESOURCES.get("axiom_dashboard")!.importId({ uid: "ops" })).toBe("ops");
    expect(() => TERRAFORM_RESOURCES.get("axiom_user")!.importId({ name: "x" })).toThrow(
      'axiom_user: the instance has no id (its "id" attribute is null)',
    );
  });
});

/** Attributes as terraform-provider-axiom v1.6.1 records them in state (flatten* in each resource_*.go). */
const RECORDED: Record<string, Record<string, unknown>> = {
  axiom_dataset: {
    id: "logs",
    name: "logs",
    kind: "axiom:events:v1",
    description: null,
    edge_deployment: "cloud.us-east-1.aws",
    use_retention_period: true,
    retention_days: 30,
    map_fields: ["attrs"],
  },
  axiom_monitor: {
    id: "mon_1",
    name: "errors",
    description: null,
    alert_on_no_data: false,
    notify_by_group: false,
    apl_query: "['logs'] | count",
    disabled_until: null,
    interval_minutes: 5,
    notifier_ids: ["ntf_1"],
    operator: "",
    range_minutes: 5,
    threshold: 0,
    resolvable: false,
    delay: 30,
    notify_every_run: false,
    skip_resolved: false,
    tolerance: 0,
    trigger_from_n_runs: 1,
    trigger_after_n_positive_results: 0,
    compare_days: 0,
    type: "MatchEvent",
    created_by: "usr_1",
    created_at: "2026-11-01T00:00:00Z",
  },
  axiom_notifier: {
    id: "ntf_1",
    name: "ops",
    properties: {
      slack: null,
      discord: null,
      discord_webhook: null,
      email: null,
      opsgenie: { api_key: "og-key", is_eu: true },
      pagerduty: null,
      webhook: null,
      custom_webhook: null,
    },
  },
  axiom_token: {
    id: "tok_1",
    name: "ingest",
    description: null,
    expires_at: null,
    rotation_grace_period: null,
    token: "xaat-secret",
    dataset_capabilities: {
      logs: {
        ingest: ["create"],
        query: [],
        starred_queries: [],
        virtual_fields: [],
        data: [],
        trim: [],
        vacuum: [],
      },
    },
    org_capabilities: null,
  },
  axiom_user: { id: "usr_1", name: "Ada", email: "ada@example.com", role: "user" },
  axiom_virtual_field: {
    id: "vf_1",
    dataset: "logs",
    name: "status_ok",
    expression: "status == 200",
    description: "",
    type: "",
    unit: "",
  },
  axiom_dashboard: {
    id: "ops",
    uid: "ops",
    dashboard: JSON.stringify({
      name: "Ops",
      charts: [],
      layout: [],
      refreshTime: 60,
      schemaVersion: 2,
      timeWindowStart: "qr-now-1h",
      timeWindowEnd: "qr-now",
    }),
    overwrite: false,
  },
};

describe("inputs()", () => {
  test.each(TYPES)("%s: the recorded attributes are inputs our kind's schema accepts", (tfType) => {
    const r = TERRAFORM_RESOURCES.get(tfType)!;
    const inputs = r.inputs(RECORDED[tfType]);
    const parsed = DECLARATIONS.get(r.kind as DeclaredKindName)!.rules.schema.safeParse(inputs);
    expect(parsed.error?.issues ?? []).toEqual([]);
    expect(inputs).not.toHaveProperty("id");
  });

  test("renamed at every level, nulls and outputs dropped, the dashboard's JSON parsed", () => {
    const monitor = TERRAFORM_RESOURCES.get("axiom_monitor")!.inputs(RECORDED.axiom_monitor);
    expect(monitor).toMatchObject({ secondDelay: 30, aplQuery: "['logs'] | count", notifierIds: ["ntf_1"] });
    for (const gone of ["delay", "createdAt", "createdBy", "description", "disabledUntil", "operator"])
      expect(monitor).not.toHaveProperty(gone);
    expect(TERRAFORM_RESOURCES.get("axiom_notifier")!.inputs(RECORDED.axiom_notifier)).toEqual({
      name: "ops",
      properties: { opsgenie: { apiKey: "og-key", isEU: true } },
    });
    const token = TERRAFORM_RESOURCES.get("axiom_token")!.inputs(RECORDED.axiom_token);
    expect(token).not.toHaveProperty("token");
    expect(token.datasetCapabilities).toEqual({
      logs: {
        ingest: ["create"],
        query: [],
        starredQueries: [],
        virtualFields: [],
        data: [],
        trim: [],
        vacuum: [],
      },
    });
    const dashboard = TERRAFORM_RESOURCES.get("axiom_dashboard")!.inputs(RECORDED.axiom_dashboard);
    expect(dashboard).toMatchObject({
      uid: "ops",
      overwrite: false,
      dashboard: { name: "Ops", refreshTime: 60 },
    });
  });

  test("a bad value names the attribute", () => {
    const dashboard = TERRAFORM_RESOURCES.get("axiom_dashboard")!;
    expect(() => dashboard.inputs({ ...RECORDED.axiom_dashboard, dashboard: "{not json" })).toThrow(
      /^axiom_dashboard: dashboard is not valid JSON/,
    );
    const notifier = TERRAFORM_RESOURCES.get("axiom_notifier")!;
    expect(() => notifier.inputs({ name: "x", properties: "slack" })).toThrow(
      "axiom_notifier: properties must be an object, got string",
    );
    expect(() =>
      TERRAFORM_RESOURCES.get("axiom_monitor")!.inputs({ ...RECORDED.axiom_monitor, notifier_ids: "ntf_1" }),
    ).toThrow("axiom_monitor: notifier_ids must be a list, got string");
  });
});

/** The JSON tags of pulumi-terraform-bridge pkg/tfbridge/info/info.go's marshallable structs. */
const PROVIDER_KEYS = [
  "provider",
  "name",
  "version",
  "config",
  "resources",
  "dataSources",
  "functions",
  "tfProviderVersion",
  "skipDefaultFixups",
];
const RESOURCE_KEYS = ["tok", "csharpName", "fields", "idFields"];
const DATA_SOURCE_KEYS = ["tok", "fields"];
// `typeomitempty` is the tag as the struct spells it (`json:"typeomitempty"`).
const SCHEMA_KEYS = [
  "name",
  "csharpName",
  "typeomitempty",
  "altTypes",
  "element",
  "fields",
  "asset",
  "default",
  "maxItemsOne",
  "deprecated",
  "forceNew",
  "secret",
];
const SHIM_KEYS = [
  "type",
  "optional",
  "required",
  "computed",
  "forceNew",
  "element",
  "maxItems",
  "minItems",
  "deprecated",
  "sensitive",
];

/** Every way `m` departs from the shapes the bridge's structs read, one line each. */
function shapeProblems(m: any): string[] {
  const out: string[] = [];
  const keysIn = (at: string, v: any, allowed: string[]) => {
    if (typeof v !== "object" || v === null || Array.isArray(v)) return out.push(`${at}: not an object`);
    for (const k of Object.keys(v)) if (!allowed.includes(k)) out.push(`${at}.${k}: no such field`);
  };
  const schemaInfo = (at: string, v: any) => {
    keysIn(at, v, SCHEMA_KEYS);
    if (v.name !== undefined && typeof v.name !== "string") out.push(`${at}.name: not a string`);
    if (v.element) schemaInfo(`${at}.element`, v.element);
    for (const [k, f] of Object.entries(v.fields ?? {})) schemaInfo(`${at}.fields.${k}`, f);
  };
  const shim = (at: string, v: any) => {
    keysIn(at, v, SHIM_KEYS);
    // shim.ValueType: TypeBool 1, TypeInt 2, TypeFloat 3, TypeString 4, TypeList 5, TypeMap 6, TypeSet 7.
    if (!Number.isInteger(v.type) || v.type < 1 || v.type > 7) out.push(`${at}.type: not a shim.ValueType`);
    if (v.element) {
      keysIn(`${at}.element`, v.element, ["schema", "resource"]);
      if (v.element.schema) shim(`${at}.element.schema`, v.element.schema);
      for (const [k, a] of Object.entries(v.element.resource ?? {})) shim(`${at}.element.resource.${k}`, a);
    }
  };
  keysIn("mapping", m, PROVIDER_KEYS);
  for (const k of ["name", "version"]) if (typeof m[k] !== "string") out.push(`mapping.${k}: not a string`);
  for (const [t, r] of Object.entries<any>(m.resources ?? {})) {
    keysIn(`resources.${t}`, r, RESOURCE_KEYS);
    if (typeof r.tok !== "string") out.push(`resources.${t}.tok: not a string`);
    if (!Array.isArray(r.idFields)) out.push(`resources.${t}.idFields: not a list`);
    for (const [k, f] of Object.entries(r.fields ?? {})) schemaInfo(`resources.${t}.fields.${k}`, f);
  }
  for (const [t, d] of Object.entries<any>(m.dataSources ?? {})) {
    keysIn(`dataSources.${t}`, d, DATA_SOURCE_KEYS);
    for (const [k, f] of Object.entries(d.fields ?? {})) schemaInfo(`dataSources.${t}.fields.${k}`, f);
  }
  for (const [k, f] of Object.entries(m.config ?? {})) schemaInfo(`config.${k}`, f);
  keysIn("provider", m.provider, ["schema", "resources", "dataSources", "functions"]);
  for (const [k, a] of Object.entries<any>(m.provider?.schema ?? {})) shim(`provider.schema.${k}`, a);
  for (const part of ["resources", "dataSources"])
    for (const [t, attrs] of Object.entries<any>(m.provider?.[part] ?? {}))
      for (const [k, a] of Object.entries(attrs)) shim(`provider.${part}.${t}.${k}`, a);
  return out;
}

describe("the mapping", () => {
  const m: any = terraformMapping("1.2.3");

  test("has the shape of the bridge's MarshallableProvider, and a departure is named", () => {
    expect(shapeProblems(m)).toEqual([]);
    expect(
      shapeProblems({ ...m, resources: { axiom_user: { tok: "x", fields: {}, idFields: [], token: 1 } } }),
    ).toEqual(["resources.axiom_user.token: no such field"]);
    expect(m.name).toBe("observability");
    expect(m.version).toBe("1.2.3");
    expect(m.tfProviderVersion).toBe("1.6.1");
    expect(JSON.parse(JSON.stringify(m))).toEqual(m);
  });

  test("resources map to our type tokens, data sources to our lookup functions", () => {
    const s = schema();
    for (const [tfType, r] of Object.entries<any>(m.resources)) {
      expect(s.resources[r.tok]).toBeDefined();
      expect(r.tok).toBe(TERRAFORM_RESOURCES.get(tfType)!.token);
    }
    const tokens = Object.fromEntries(Object.entries<any>(m.dataSources).map(([t, d]) => [t, d.tok]));
    expect(tokens).toEqual({
      axiom_dataset: "observability:index:getDataset",
      axiom_monitor: "observability:index:getMonitor",
      axiom_notifier: "observability:index:getNotifier",
      axiom_token: "observability:index:getApiToken",
      axiom_user: "observability:index:getUser",
      axiom_virtual_field: "observability:index:getVirtualField",
      axiom_dashboard: "observability:index:getDashboard",
    });
    for (const tok of Object.values(tokens)) expect(s.functions[tok]).toBeDefined();
    expect(LOOKUP_FUNCTIONS.map((f) => `observability:index:get${f.noun}`)).toEqual(
      expect.arrayContaining(Object.values(tokens)),
    );
  });

  test("renames sit at their nesting; every list names its field (the bridge would pluralize it)", () => {
    expect(m.resources.axiom_monitor.fields.delay).toEqual({ name: "secondDelay" });
    expect(m.resources.axiom_notifier.fields.properties.fields.opsgenie.fields.is_eu).toEqual({
      name: "isEU",
    });
    expect(m.resources.axiom_notifier.fields.properties.fields.email.fields.emails).toEqual({
      name: "emails",
    });
    expect(m.resources.axiom_token.fields.dataset_capabilities.element.fields.ingest).toEqual({
      name: "ingest",
    });
    expect(m.resources.axiom_token.fields.org_capabilities.fields.billing).toEqual({ name: "billing" });
    expect(m.dataSources.axiom_dashboard.fields.uid).toEqual({ name: "id" });
    expect(m.dataSources.axiom_monitor.fields.delay).toEqual({ name: "secondDelay" });
    // Plain camel case needs no entry: the bridge's naming reaches it.
    expect(m.resources.axiom_monitor.fields).not.toHaveProperty("apl_query");
    // Every list of every type, at every level, has its name.
    const lists: string[] = [];
    const walk = (attrs: any, fields: any, at: string) => {
      for (const [k, a] of Object.entries<any>(attrs)) {
        if (a.type === 5 && !fields?.[k]?.name) lists.push(`${at}${k}`);
        if (a.element?.resource) walk(a.element.resource, fields?.[k]?.fields, `${at}${k}.`);
        if (a.element?.schema?.element?.resource)
          walk(a.element.schema.element.resource, fields?.[k]?.element?.fields, `${at}${k}.*.`);
      }
    };
    for (const [t, attrs] of Object.entries<any>(m.provider.resources))
      walk(attrs, m.resources[t].fields, `${t}.`);
    expect(lists).toEqual([]);
  });

  test("the Terraform schema: write-only attributes left out, sensitive ones marked, nested objects as the bridge shims them", () => {
    expect(m.provider.resources.axiom_token).not.toHaveProperty("rotation_grace_period");
    expect(m.provider.resources.axiom_token.token).toEqual({ type: 4, computed: true, sensitive: true });
    expect(m.provider.resources.axiom_notifier.properties.type).toBe(6);
    expect(
      m.provider.resources.axiom_notifier.properties.element.resource.slack.element.resource.slack_url,
    ).toEqual({
      type: 4,
      required: true,
    });
    expect(
      m.provider.resources.axiom_token.dataset_capabilities.element.schema.element.resource.ingest,
    ).toEqual({
      type: 5,
      optional: true,
      computed: true,
      element: { schema: { type: 4 } },
    });
    expect(m.provider.dataSources.axiom_monitor.id).toEqual({ type: 4, required: true });
    // A data source's attributes are all computed, nested ones too, and keep no flag but their type
    // (utils.go convertAttribute).
    expect(
      m.provider.dataSources.axiom_notifier.properties.element.resource.slack.element.resource.slack_url,
    ).toEqual({
      type: 4,
      computed: true,
    });
    expect(m.provider.dataSources.axiom_token.token).toEqual({ type: 4, computed: true });
    expect(m.provider.schema.api_token).toEqual({ type: 4, optional: true, sensitive: true });
  });

  test("the provider's configuration maps to ours", () => {
    for (const [tf, ours] of Object.entries(CONFIG_RENAMES)) {
      expect(m.config[tf]).toEqual({ name: ours });
      expect(CONFIG_KEYS).toHaveProperty(ours);
    }
    expect(Object.keys(m.config).sort()).toEqual(Object.keys(m.provider.schema).sort());
  });
});

describe("docs/native-provider.md's Terraform mapping", () => {
  const doc = readFileSync(path.join(REPO_ROOT, "docs", "native-provider.md"), "utf8");
  const section = doc.slice(
    doc.indexOf("## Terraform mapping"),
    doc.indexOf("\n## ", doc.indexOf("## Terraform mapping") + 3),
  );

  test("its table lists each type with its token and data source function", () => {
    const rows = [...section.matchAll(/^\| `(axiom_\w+)`\s*\| `([^`]+)`\s*\| `([^`]+)`\s*\|$/gm)].map((m) =>
      m.slice(1),
    );
    expect(rows).toEqual(
      [...TERRAFORM_RESOURCES.values()].map((r) => [r.tfType, r.token, r.dataSource.functionToken]),
    );
  });

  test("it names every rename, resource and data source", () => {
    const prose = section.replace(/\s+/g, " ");
    for (const tfType of TYPES)
      for (const dataSource of [false, true])
        for (const f of fieldMappings(tfType, { dataSource }).fields.filter((x) => x.renamed)) {
          expect(prose).toContain(`\`${f.tfPath.split(".").at(-1)}\``);
          expect(prose).toContain(`\`${f.path.split(".").at(-1)}\``);
        }
  });
});
