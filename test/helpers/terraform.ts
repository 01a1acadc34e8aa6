/**
 * Terraform's side of a migration, for tests: objects made on a running emulator as terraform-provider-axiom
 * v1.6.1 makes them, and a Terraform state (format 4) recording them as that provider and Terraform record them.
 *
 * - {@link createAsTerraform}: the request each resource's `Create` sends (axiomhq/terraform-provider-axiom
 *   v1.6.1 `axiom/resource_*.go`, through axiomhq/axiom-go v0.31.1, the version its go.mod requires: Go's JSON
 *   encoding of axiom-go's request structs, so zero times, `null` slices and untagged fields go as Go sends them),
 *   and the attributes its `flatten*` functions record from the service's answer.
 * - {@link terraformState}: the document `terraform.tfstate` holds and `terraform state pull` prints, as
 *   hashicorp/terraform internal/states/statefile/version4.go writes it (`stateV4`, `resourceStateV4`,
 *   `instanceObjectStateV4`; sensitive paths as `marshalPaths` writes them; resources and instances in its
 *   `normalize` order).
 */
import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import type { RunningEmulator } from "../../emulator";
import { TERRAFORM_PROVIDER_SOURCE, TERRAFORM_RESOURCES } from "../../provider/terraform";
import { TF_SCHEMAS, type TfAttributes } from "../../provider/terraform/attributes";
import { api } from "./emulator";

type Attrs = Record<string, unknown>;
/** Where the emulator is, and the token Terraform's provider is configured with. */
export type Service = Pick<RunningEmulator, "url" | "token">;

/** Go's zero `time.Time`, as encoding/json writes it: axiom-go sends it for every unset time. */
const GO_ZERO_TIME = "0001-01-01T00:00:00Z";

/** A time as Go's `t.Format(time.RFC3339)` writes one the service returned (whole seconds, `Z` for UTC). */
function rfc3339(value: unknown): string | null {
  if (typeof value !== "string" || value === "" || value.startsWith("0001-01-01")) return null;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new Error(`not a time: ${value}`);
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

/**
 * `value` as Go's `json.Marshal` writes a `map[string]any` decoded from JSON: object keys sorted, and `<`, `>`,
 * `&`, U+2028 and U+2029 escaped (encoding/json's HTML-safe default). The provider normalizes a dashboard's
 * document this way before sending and recording it.
 */
export function goJson(value: unknown): string {
  const sorted = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sorted)
      : v && typeof v === "object"
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, sorted((v as Attrs)[k])]),
          )
        : v;
  return JSON.stringify(sorted(value)).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** Terraform's `jsonencode` of an object (cty writes an object's attributes in name order). */
export const jsonencode = (value: unknown): string => JSON.stringify(JSON.parse(goJson(value)));

async function call(service: Service, method: string, path: string, body?: unknown): Promise<Attrs> {
  const res = await api(service as RunningEmulator, method, path, body);
  if (res.status < 200 || res.status >= 300)
    throw new Error(`${method} ${path} answered ${res.status}: ${res.text}`);
  return res.body as Attrs;
}

const orNull = <T>(v: T | undefined): T | null => (v === undefined ? null : v);
const emptyToNull = (v: unknown): unknown => (v === "" || v === undefined || v === null ? null : v);
const list = (v: unknown): string[] => (Array.isArray(v) ? (v as string[]) : []);
/** `flattenStringSlice`: an empty list is recorded null. */
const stringsOrNull = (v: unknown): string[] | null => (list(v).length === 0 ? null : list(v));

/** The configuration with the schema's defaults (`Default:` in each resource's Schema) where it sets nothing. */
function withDefaults(config: Attrs, defaults: Attrs): Attrs {
  const out = { ...defaults };
  for (const [k, v] of Object.entries(config)) if (v !== undefined && v !== null) out[k] = v;
  return out;
}

async function createDataset(service: Service, config: Attrs): Promise<Attrs> {
  const plan = withDefaults(config, { kind: "axiom:events:v1" });
  // axiom-go DatasetCreateRequest: kind and edgeDeployment omitempty, the rest always.
  const body: Attrs = {
    name: plan.name,
    ...(plan.kind ? { kind: plan.kind } : {}),
    description: plan.description ?? "",
    useRetentionPeriod: plan.use_retention_period === true,
    retentionDays: plan.retention_days ?? 0,
    ...(plan.edge_deployment ? { edgeDeployment: plan.edge_deployment } : {}),
  };
  const ds = await call(service, "POST", "/v2/datasets", body);
  // Map fields are a second request, sent only when configured (unknown otherwise: optional and computed).
  if (config.map_fields !== undefined && config.map_fields !== null) {
    const mapped = await call(
      service,
      "PUT",
      `/v2/datasets/${encodeURIComponent(String(ds.id))}/mapfields`,
      config.map_fields,
    );
    ds.mapFields = mapped;
  }
  // flattenDatasetWithOrgDefault: a dataset with no edge deployment records the organization's default.
  let edge = emptyToNull(ds.edgeDeployment);
  if (edge === null) {
    const orgs = (await call(service, "GET", "/v2/orgs")) as unknown as Attrs[];
    edge = orgs.map((o) => o.defaultEdgeDeployment).find((d) => typeof d === "string" && d !== "") ?? null;
  }
  return {
    id: ds.id,
    name: ds.name,
    kind: ds.kind,
    description: emptyToNull(ds.description),
    edge_deployment: edge,
    use_retention_period: ds.useRetentionPeriod === true,
    retention_days: ds.retentionDays ?? 0,
    map_fields: list(ds.mapFields),
  };
}

const MONITOR_DEFAULTS: Attrs = {
  alert_on_no_data: false,
  notify_by_group: false,
  interval_minutes: 1,
  operator: "",
  range_minutes: 1,
  threshold: 0,
  resolvable: false,
  delay: 0,
  notify_every_run: false,
  skip_resolved: false,
  tolerance: 0,
  trigger_from_n_runs: 1,
  trigger_after_n_positive_results: 0,
  compare_days: 0,
};

async function createMonitor(service: Service, config: Attrs): Promise<Attrs> {
  const plan = withDefaults(config, MONITOR_DEFAULTS);
  // axiom-go Monitor's fields in declaration order, through its MarshalJSON (minutes and seconds as numbers);
  // `omitempty` ones left out at their zero value; the zero time for no `disabledUntil`.
  const body: Attrs = {
    createdAt: GO_ZERO_TIME,
    createdBy: "",
    name: plan.name,
    type: plan.type,
    ...(plan.description ? { description: plan.description } : {}),
    aplQuery: plan.apl_query,
    operator: plan.operator,
    threshold: plan.threshold,
    alertOnNoData: plan.alert_on_no_data,
    notifyByGroup: plan.notify_by_group,
    resolvable: plan.resolvable,
    notifierIDs: list(plan.notifier_ids),
    intervalMinutes: plan.interval_minutes,
    rangeMinutes: plan.range_minutes,
    disabled: false,
    disabledUntil: plan.disabled_until ? new Date(String(plan.disabled_until)).toISOString() : GO_ZERO_TIME,
  };
  for (const [attr, field] of [
    ["delay", "secondDelay"],
    ["notify_every_run", "notifyEveryRun"],
    ["skip_resolved", "skipResolved"],
    ["tolerance", "tolerance"],
    ["trigger_from_n_runs", "triggerFromNRuns"],
    ["trigger_after_n_positive_results", "triggerAfterNPositiveResults"],
    ["compare_days", "compareDays"],
  ] as const)
    if (plan[attr] !== 0 && plan[attr] !== false) body[field] = plan[attr];
  const m = await call(service, "POST", "/v2/monitors", body);
  return {
    id: m.id,
    name: m.name,
    description: emptyToNull(m.description),
    alert_on_no_data: m.alertOnNoData === true,
    notify_by_group: m.notifyByGroup === true,
    apl_query: m.aplQuery,
    disabled_until: rfc3339(m.disabledUntil),
    interval_minutes: m.intervalMinutes ?? 0,
    notifier_ids: stringsOrNull(m.notifierIds ?? m.notifierIDs),
    operator: m.operator ?? "",
    range_minutes: m.rangeMinutes ?? 0,
    threshold: m.threshold ?? 0,
    resolvable: m.resolvable === true,
    delay: m.secondDelay ?? 0,
    notify_every_run: m.notifyEveryRun === true,
    skip_resolved: m.skipResolved === true,
    tolerance: m.tolerance ?? 0,
    trigger_from_n_runs: m.triggerFromNRuns ?? 0,
    trigger_after_n_positive_results: m.triggerAfterNPositiveResults ?? 0,
    compare_days: m.compareDays ?? 0,
    type: m.type,
    created_by: m.createdBy ?? "",
    created_at: rfc3339(m.createdAt) ?? GO_ZERO_TIME,
  };
}

/** The notifier's channels: Terraform's attribute, axiom-go's JSON key, and each field (Terraform's, the wire's). */
const CHANNELS: readonly { tf: string; wire: string; fields: readonly [string, string][] }[] = [
  { tf: "slack", wire: "slack", fields: [["slack_url", "slackUrl"]] },
  {
    tf: "discord",
    wire: "discord",
    fields: [
      ["discord_channel", "discordChannel"],
      ["discord_token", "discordToken"],
    ],
  },
  { tf: "discord_webhook", wire: "discordWebhook", fields: [["discord_webhook_url", "discordWebhookUrl"]] },
  { tf: "email", wire: "email", fields: [["emails", "emails"]] },
  {
    tf: "opsgenie",
    wire: "opsgenie",
    fields: [
      ["api_key", "apiKey"],
      ["is_eu", "isEU"],
    ],
  },
  {
    tf: "pagerduty",
    wire: "pagerduty",
    fields: [
      ["routing_key", "routingKey"],
      ["token", "token"],
    ],
  },
  { tf: "webhook", wire: "webhook", fields: [["url", "url"]] },
  // axiom-go's CustomWebhook has no JSON tags: Go sends the field names as they are.
  {
    tf: "custom_webhook",
    wire: "customWebhook",
    fields: [
      ["url", "URL"],
      ["headers", "Headers"],
      ["body", "Body"],
    ],
  },
];

async function createNotifier(service: Service, config: Attrs): Promise<Attrs> {
  const props = (config.properties ?? {}) as Record<string, Attrs | null | undefined>;
  const configured = CHANNELS.filter((c) => props[c.tf]);
  if (configured.length !== 1)
    throw new Error(`axiom_notifier: properties must set exactly one channel, got ${configured.length}`);
  const channel = configured[0];
  const given = props[channel.tf]!;
  const wire: Attrs = {};
  for (const [tf, key] of channel.fields) {
    const v = given[tf];
    // Every tagged field is omitempty (emails and the untagged custom webhook's aside).
    if (channel.tf === "custom_webhook") wire[key] = tf === "headers" ? (v ?? {}) : (v ?? "");
    else if (tf === "emails") wire[key] = list(v);
    else if (v !== undefined && v !== null && v !== "" && v !== false) wire[key] = v;
  }
  const body = {
    id: "",
    name: config.name,
    disabledUntil: GO_ZERO_TIME,
    properties: { [channel.wire]: wire },
    createdAt: GO_ZERO_TIME,
    createdBy: "",
  };
  const n = await call(service, "POST", "/v2/notifiers", body);
  const answered = (n.properties ?? {}) as Record<string, Attrs | null>;
  const properties: Attrs = {};
  for (const c of CHANNELS) {
    const got = answered[c.wire];
    if (!got) {
      properties[c.tf] = null;
      continue;
    }
    const read = (key: string) => got[key] ?? got[key.toLowerCase()];
    const rec: Attrs = {};
    for (const [tf, key] of c.fields) {
      const v = read(key);
      if (tf === "emails") rec[tf] = stringsOrNull(v);
      else if (tf === "headers") rec[tf] = (v ?? {}) as Attrs;
      else if (tf === "is_eu") rec[tf] = v === true;
      else rec[tf] = typeof v === "string" ? v : "";
    }
    // mergeNotifierState: PagerDuty's routing key and token, when the answer has none, are the configuration's.
    if (c.tf === "pagerduty") {
      if (rec.routing_key === "") rec.routing_key = orNull(given.routing_key as string | undefined);
      if (rec.token === "") rec.token = orNull(given.token as string | undefined);
    }
    properties[c.tf] = rec;
  }
  return { id: n.id, name: n.name, properties };
}

const DATASET_ACTIONS = [
  "ingest",
  "query",
  "starred_queries",
  "virtual_fields",
  "data",
  "trim",
  "vacuum",
] as const;
const ORG_ACTIONS = [
  "annotations",
  "api_tokens",
  "audit_log",
  "billing",
  "dashboards",
  "datasets",
  "endpoints",
  "flows",
  "integrations",
  "monitors",
  "notifiers",
  "rbac",
  "shared_access_keys",
  "users",
] as const;
const camel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

async function createToken(service: Service, config: Attrs): Promise<Attrs> {
  const datasets = (config.dataset_capabilities ?? {}) as Record<string, Attrs>;
  // axiom-go DatasetCapabilities: no omitempty, so an empty list is `[]` and `share` (not Terraform's) is null.
  const datasetCapabilities = Object.fromEntries(
    Object.entries(datasets).map(([name, caps]) => [
      name,
      {
        ...Object.fromEntries(DATASET_ACTIONS.map((a) => [camel(a), list(caps[a])])),
        share: null,
      },
    ]),
  );
  // OrganisationCapabilities: every list omitempty.
  const org = (config.org_capabilities ?? {}) as Attrs;
  const orgCapabilities = Object.fromEntries(
    ORG_ACTIONS.filter((a) => list(org[a]).length > 0).map((a) => [camel(a), list(org[a])]),
  );
  const body = {
    name: config.name,
    description: config.description ?? "",
    expiresAt: config.expires_at ? new Date(String(config.expires_at)).toISOString() : GO_ZERO_TIME,
    datasetCapabilities,
    orgCapabilities,
  };
  const t = await call(service, "POST", "/v2/tokens", body);
  const caps = (v: unknown, keys: readonly string[]) =>
    Object.fromEntries(keys.map((k) => [k, list((v as Attrs | undefined)?.[camel(k)])]));
  const answeredOrg = (t.orgCapabilities ?? {}) as Attrs;
  return {
    token: t.token,
    id: t.id,
    name: t.name,
    description: emptyToNull(t.description),
    expires_at: rfc3339(t.expiresAt),
    // Write-only: never recorded.
    rotation_grace_period: null,
    dataset_capabilities: Object.fromEntries(
      Object.entries((t.datasetCapabilities ?? {}) as Attrs).map(([name, c]) => [
        name,
        caps(c, DATASET_ACTIONS),
      ]),
    ),
    // flattenOrgCapabilities: null when every list is empty.
    org_capabilities: ORG_ACTIONS.some((a) => list(answeredOrg[camel(a)]).length > 0)
      ? caps(answeredOrg, ORG_ACTIONS)
      : null,
  };
}

async function createUser(service: Service, config: Attrs): Promise<Attrs> {
  const u = await call(service, "POST", "/v2/users", {
    name: config.name,
    email: config.email,
    role: config.role,
  });
  return { id: u.id, name: u.name, email: u.email, role: (u.role as Attrs | undefined)?.id ?? "" };
}

async function createVirtualField(service: Service, config: Attrs): Promise<Attrs> {
  const plan = withDefaults(config, { type: "", unit: "" });
  const body: Attrs = { dataset: plan.dataset, name: plan.name, expression: plan.expression };
  for (const k of ["description", "type", "unit"]) if (plan[k]) body[k] = plan[k];
  const v = await call(service, "POST", "/v2/vfields", body);
  // flattenVirtualField records every string as it is, "" included.
  const s = (x: unknown) => (typeof x === "string" ? x : "");
  return {
    id: v.id,
    dataset: s(v.dataset),
    name: s(v.name),
    expression: s(v.expression),
    description: s(v.description),
    type: s(v.type),
    unit: s(v.unit),
  };
}

const DASHBOARD_SERVER_FIELDS = ["id", "version", "createdAt", "updatedAt", "createdBy", "updatedBy"];
const DASHBOARD_DEFAULT_OWNER = "x-axiom-everyone";

async function createDashboard(service: Service, config: Attrs): Promise<Attrs> {
  const text = typeof config.dashboard === "string" ? config.dashboard : jsonencode(config.dashboard);
  const configured = JSON.parse(text) as Attrs;
  const docUid = typeof configured.uid === "string" && configured.uid !== "" ? configured.uid : undefined;
  const uid = docUid ?? (typeof config.uid === "string" ? config.uid : undefined);
  // dashboardUpsertRequest: the document as Go re-encodes it, `uid` omitempty, no version or overwrite on create.
  const raw = `{"dashboard":${goJson(configured)}${uid ? `,"uid":${JSON.stringify(uid)}` : ""}}`;
  const answer = await call(service, "POST", "/v2/dashboards", raw);
  const made = answer.dashboard as Attrs;
  // normalizeDashboardRaw: only the configured keys, the owner's case as configured, the default owner dropped
  // when not configured, the service's fields dropped, `uid` only when configured, an empty `overrides` dropped.
  const doc = { ...(made.dashboard as Attrs) };
  for (const key of Object.keys(doc)) if (!(key in configured)) delete doc[key];
  if (
    typeof doc.owner === "string" &&
    typeof configured.owner === "string" &&
    doc.owner.toLowerCase() === configured.owner.toLowerCase()
  )
    doc.owner = configured.owner;
  if (
    typeof doc.owner === "string" &&
    doc.owner.toLowerCase() === DASHBOARD_DEFAULT_OWNER &&
    !("owner" in configured)
  )
    delete doc.owner;
  for (const key of DASHBOARD_SERVER_FIELDS) delete doc[key];
  if (!docUid) delete doc.uid;
  const overrides = doc.overrides;
  if (
    overrides &&
    typeof overrides === "object" &&
    Object.keys(overrides).length === 0 &&
    !("overrides" in configured)
  )
    delete doc.overrides;
  return { id: made.uid, uid: made.uid, dashboard: goJson(doc), overwrite: config.overwrite === true };
}

const CREATE: Record<string, (service: Service, config: Attrs) => Promise<Attrs>> = {
  axiom_dataset: createDataset,
  axiom_monitor: createMonitor,
  axiom_notifier: createNotifier,
  axiom_token: createToken,
  axiom_user: createUser,
  axiom_virtual_field: createVirtualField,
  axiom_dashboard: createDashboard,
};

/**
 * (a) Makes one `axiom_*` object on the service as terraform-provider-axiom v1.6.1's `Create` does, from its
 * configuration in Terraform's attribute names (what a `.tf` block sets; a dashboard's `dashboard` a JSON string
 * or an object, which is `jsonencode`d), and answers the attributes its state records for it.
 */
export async function createAsTerraform(service: Service, tfType: string, config: Attrs): Promise<Attrs> {
  const create = CREATE[tfType];
  if (!create) throw new Error(`createAsTerraform: ${tfType} is not a resource of the axiom provider`);
  return create(service, config);
}

/* (b) The state file. */

/** `provider["registry.terraform.io/axiomhq/axiom"]`, or with an alias. */
export const axiomProvider = (alias?: string): string =>
  `provider["${TERRAFORM_PROVIDER_SOURCE}"]${alias ? `.${alias}` : ""}`;

/** One object of a resource, current or deposed. */
export interface StateInstance {
  attributes: Attrs;
  /** `count`'s number or `for_each`'s key. */
  indexKey?: number | string;
  /** A tainted object: Terraform replaces it at the next apply. */
  tainted?: boolean;
  /** A deposed object's key (8 hex characters): left by a create-before-destroy that did not finish. */
  deposed?: string;
  /** `type.name` addresses it depends on (with their module path). */
  dependencies?: string[];
  /** Its schema version; axiom_* types take terraform-provider-axiom's, data sources and others 0. */
  schemaVersion?: number;
  /** Terraform's sensitive paths; for axiom_* types, those its schema marks sensitive where present. */
  sensitivePaths?: string[][];
}

/** One resource block's record. */
export interface StateResource {
  type: string;
  name: string;
  mode?: "managed" | "data";
  /** `module.a.module.b`; the root module when absent. */
  module?: string;
  /** The provider configuration's address; terraform-provider-axiom's default configuration when absent. */
  provider?: string;
  /** `list` for count, `map` for for_each, as older Terraform releases record it. */
  each?: "list" | "map";
  instances: StateInstance[];
}

/** A resource with one object (no count or for_each). */
export const single = (
  type: string,
  name: string,
  attributes: Attrs,
  extra: Partial<Omit<StateResource, "type" | "name" | "instances">> & Partial<StateInstance> = {},
): StateResource => {
  const { mode, module, provider, each, ...instance } = extra;
  return { type, name, mode, module, provider, each, instances: [{ ...instance, attributes }] };
};

/** A resource with `count`: index keys 0, 1, …, `each` "list". */
export const counted = (
  type: string,
  name: string,
  objects: Attrs[],
  extra: Partial<StateResource> = {},
): StateResource => ({
  type,
  name,
  each: "list",
  ...extra,
  instances: objects.map((attributes, i) => ({ attributes, indexKey: i })),
});

/** A resource with `for_each`: index keys the map's keys, `each` "map". */
export const forEach = (
  type: string,
  name: string,
  objects: Record<string, Attrs>,
  extra: Partial<StateResource> = {},
): StateResource => ({
  type,
  name,
  each: "map",
  ...extra,
  instances: Object.entries(objects).map(([key, attributes]) => ({ attributes, indexKey: key })),
});

/** The paths the schema of `tfType` marks sensitive that are present in `attributes` (their parents not null). */
function sensitivePathsOf(attrs: TfAttributes, values: Attrs, prefix: string[] = []): string[][] {
  const out: string[][] = [];
  for (const [name, attr] of Object.entries(attrs)) {
    if (!(name in values)) continue;
    const path = [...prefix, name];
    if (attr.sensitive) out.push(path);
    else if (attr.type === "object" && attr.attributes && values[name] && typeof values[name] === "object")
      out.push(...sensitivePathsOf(attr.attributes, values[name] as Attrs, path));
  }
  return out;
}

/** A Terraform state, format 4. */
export interface TerraformState {
  version: 4;
  terraform_version: string;
  serial: number;
  lineage: string;
  outputs: Record<string, { value: unknown; type: unknown; sensitive?: boolean }>;
  resources: unknown[];
  check_results: unknown[] | null;
}

const keyOrder = (k: unknown): [number, number | string] =>
  k === undefined ? [0, 0] : typeof k === "number" ? [1, k] : [2, String(k)];

/**
 * (b) The state recording `resources`, as Terraform writes it: resources in module, mode, type, name order;
 * instances by key (none, numbers, strings) then deposed key; every instance's `schema_version` and
 * `sensitive_attributes` (as `[[{"type":"get_attr","value":…}]]`); `index_key`, `status`, `deposed` and
 * `dependencies` only when set. `each` is written when given (older Terraform releases wrote it; the
 * version4.go read here never sets it).
 */
export function terraformState(
  resources: StateResource[],
  options: { terraformVersion?: string; serial?: number; lineage?: string } = {},
): TerraformState {
  const records = resources.map((r) => {
    const mode = r.mode ?? "managed";
    // A module that declares its own configuration records it under its path (`module.x.provider[...]`).
    const ours =
      r.provider === undefined ||
      r.provider.slice(r.provider.indexOf("provider[")).startsWith(axiomProvider());
    const schema = ours ? TF_SCHEMAS[r.type] : undefined;
    if (ours && !schema) throw new Error(`terraformState: ${r.type} is not a type of the axiom provider`);
    const instances = [...r.instances]
      .sort((a, b) => {
        const [ka, va] = keyOrder(a.indexKey);
        const [kb, vb] = keyOrder(b.indexKey);
        if (ka !== kb) return ka - kb;
        if (va !== vb) return va < vb ? -1 : 1;
        return (a.deposed ?? "") < (b.deposed ?? "") ? -1 : (a.deposed ?? "") > (b.deposed ?? "") ? 1 : 0;
      })
      .map((i) => {
        if (i.deposed !== undefined && !/^[0-9a-f]{8}$/.test(i.deposed))
          throw new Error(`terraformState: deposed key ${i.deposed} is not 8 hex characters`);
        const schemaVersion =
          i.schemaVersion ??
          (schema && mode === "managed" ? TERRAFORM_RESOURCES.get(r.type)!.schemaVersion : 0);
        const paths =
          i.sensitivePaths ??
          (schema
            ? sensitivePathsOf(mode === "managed" ? schema.attributes : schema.dataSource, i.attributes)
            : []);
        return {
          ...(i.indexKey !== undefined ? { index_key: i.indexKey } : {}),
          ...(i.tainted ? { status: "tainted" } : {}),
          ...(i.deposed !== undefined ? { deposed: i.deposed } : {}),
          schema_version: schemaVersion,
          attributes: i.attributes,
          sensitive_attributes: paths.map((p) => p.map((step) => ({ type: "get_attr", value: step }))),
          ...(i.dependencies?.length ? { dependencies: i.dependencies } : {}),
        };
      });
    return {
      ...(r.module ? { module: r.module } : {}),
      mode,
      type: r.type,
      name: r.name,
      ...(r.each ? { each: r.each } : {}),
      provider: r.provider ?? axiomProvider(),
      instances,
    };
  });
  records.sort((a, b) => {
    for (const k of ["module", "mode", "type", "name"] as const) {
      const x = (a as { [key: string]: unknown })[k] ?? "";
      const y = (b as { [key: string]: unknown })[k] ?? "";
      if (x !== y) return String(x) < String(y) ? -1 : 1;
    }
    return 0;
  });
  return {
    version: 4,
    terraform_version: options.terraformVersion ?? "1.9.8",
    serial: options.serial ?? 1,
    lineage: options.lineage ?? randomUUID(),
    outputs: {},
    resources: records,
    check_results: null,
  };
}

/** Writes `state` as `terraform.tfstate` holds it (two-space indent, a final newline). */
export function writeTerraformState(file: string, state: TerraformState): void {
  writeFileSync(file, `${JSON.stringify(state, null, 2)}\n`);
}
