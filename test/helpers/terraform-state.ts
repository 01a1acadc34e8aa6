/**
 * Objects on an emulator as terraform-provider-axiom makes them, and a Terraform state (format 4) recording them as
 * that provider does: its attribute names, every attribute with unset ones null, schema versions, and the paths it
 * marks sensitive (hashicorp/terraform internal/states/statefile/version4.go for the layout; the attributes are
 * those of provider/terraform/attributes.ts, read from axiomhq/terraform-provider-axiom v1.6.1). One state holds
 * every case a migration meets: count, for_each, modules, a data source, another provider's resource, tainted and
 * deposed instances, and an object deleted since.
 */
import type { ObservabilityClient } from "../../provider/client";

export const AXIOM = 'provider["registry.terraform.io/axiomhq/axiom"]';
export const AWS = 'provider["registry.terraform.io/hashicorp/aws"]';

// Real-looking credentials: none may appear anywhere but where the import file must carry one as a secret.
export const SLACK_URL = "https://hooks.slack.com/services/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";
export const ROUTING_KEY = "R0uT1nGk3y5ecr3tA8c9D0e1F2a3B4c5";
export const OTHER_SLACK = "https://hooks.slack.com/services/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01";

export interface Instance {
  index_key?: number | string;
  status?: "tainted";
  deposed?: string;
  schema_version: number;
  attributes: Record<string, unknown>;
  sensitive_attributes: unknown[];
}

export const instance = (attributes: Record<string, unknown>, extra: Partial<Instance> = {}): Instance => ({
  schema_version: 1,
  attributes,
  sensitive_attributes: [],
  ...extra,
});

export const resource = (
  type: string,
  name: string,
  instances: Instance[],
  extra: { mode?: "managed" | "data"; module?: string; each?: "list" | "map"; provider?: string } = {},
) => ({ mode: "managed", type, name, provider: AXIOM, ...extra, instances });

export const state = (resources: unknown[]) => ({
  version: 4,
  terraform_version: "1.9.8",
  serial: 12,
  lineage: "3f1c2a4e-7b1d-4c55-9a0e-2f6d8b9c1e7a",
  outputs: {},
  resources,
  check_results: null,
});

/** A monitor as terraform-provider-axiom records it (resource_monitor.go): every attribute, unset ones null. */
export function monitorAttributes(m: Record<string, unknown>): Record<string, unknown> {
  return {
    id: m.id,
    name: m.name,
    description: m.description ?? null,
    alert_on_no_data: m.alertOnNoData ?? false,
    notify_by_group: m.notifyByGroup ?? false,
    apl_query: m.aplQuery,
    disabled_until: null,
    interval_minutes: m.intervalMinutes,
    notifier_ids: m.notifierIds ?? null,
    operator: m.operator ?? "",
    range_minutes: m.rangeMinutes,
    threshold: m.threshold,
    resolvable: m.resolvable ?? false,
    delay: m.secondDelay ?? 0,
    notify_every_run: m.notifyEveryRun ?? false,
    skip_resolved: m.skipResolved ?? false,
    created_by: m.createdBy ?? "",
    created_at: m.createdAt ?? "",
    tolerance: m.tolerance ?? 0,
    trigger_from_n_runs: m.triggerFromNRuns ?? 1,
    trigger_after_n_positive_results: m.triggerAfterNPositiveResults ?? 1,
    compare_days: m.compareDays ?? 0,
    type: m.type,
  };
}

const NO_CHANNELS = {
  slack: null,
  discord: null,
  discord_webhook: null,
  email: null,
  opsgenie: null,
  pagerduty: null,
  webhook: null,
  custom_webhook: null,
};

/** The ids of what {@link makeTerraformObjects} made, and the token's value. */
export interface TerraformMade {
  dataset: string;
  monitors: string[];
  slack: string;
  pagerduty: string;
  token: { id: string; value: string };
  vfield: string;
  deleted: string;
  moduleMonitor: string;
  user: string;
  dashboard: string;
}

/** A dashboard's document, as an HCL `jsonencode(...)` hands it to terraform-provider-axiom. */
export const DASHBOARD_DOCUMENT = {
  name: "Terraform board",
  owner: "X-AXIOM-EVERYONE",
  charts: [{ id: "note", type: "Note", text: "made by terraform" }],
  layout: [{ i: "note", x: 0, y: 0, w: 12, h: 2 }],
  refreshTime: 60,
  schemaVersion: 2,
  timeWindowStart: "qr-now-1h",
  timeWindowEnd: "qr-now",
};

/**
 * Makes the objects on the service `client` talks to, as terraform-provider-axiom's creates make them, and returns
 * the state that records them (with one monitor deleted since, still in the state).
 */
export async function makeTerraformObjects(
  client: ObservabilityClient,
): Promise<{ made: TerraformMade; state: ReturnType<typeof state> }> {
  const dataset = await client.datasets.create({ name: "tf-logs", description: "from terraform" });
  const monitorBody = (name: string, threshold: number) => ({
    name,
    aplQuery: "['tf-logs'] | count",
    type: "Threshold",
    operator: "Above",
    threshold,
    intervalMinutes: 5,
    rangeMinutes: 5,
  });
  const monitors = [
    await client.monitors.create(monitorBody("errors 0", 10) as never),
    await client.monitors.create(monitorBody("errors 1", 20) as never),
  ];
  const moduleMonitor = await client.monitors.create(monitorBody("team errors", 30) as never);
  const deleted = await client.monitors.create(monitorBody("gone", 1) as never);
  await client.monitors.delete(deleted.id);
  const slack = await client.notifiers.create({
    name: "oncall-slack",
    properties: { slack: { slackUrl: SLACK_URL } },
  });
  const pagerduty = await client.notifiers.create({
    name: "oncall-pd",
    properties: { pagerduty: { routingKey: ROUTING_KEY } },
  });
  const token = await client.tokens.create({
    name: "ci",
    datasetCapabilities: { "tf-logs": { ingest: ["create"] } },
  });
  const vfield = await client.virtualFields.create({ dataset: "tf-logs", name: "dur", expression: "a + b" });
  const user = await client.users.create({ name: "Ada Lovelace", email: "ada@example.com", role: "user" });
  const dashboard = (
    await client.dashboards.create({ uid: "tf-board", dashboard: DASHBOARD_DOCUMENT as never })
  ).dashboard;
  const made: TerraformMade = {
    dataset: dataset.id,
    monitors: monitors.map((m) => m.id),
    slack: slack.id,
    pagerduty: pagerduty.id,
    token: { id: token.id, value: String(token.token) },
    vfield: vfield.id,
    user: user.id,
    dashboard: dashboard.uid,
    deleted: deleted.id,
    moduleMonitor: moduleMonitor.id,
  };
  const doc = state([
    resource("axiom_dataset", "logs", [
      instance({
        id: dataset.id,
        name: "tf-logs",
        kind: dataset.kind ?? "axiom:events:v1",
        description: "from terraform",
        edge_deployment: dataset.edgeDeployment ?? null,
        use_retention_period: false,
        retention_days: 0,
        map_fields: [],
      }),
    ]),
    resource(
      "axiom_monitor",
      "errors",
      monitors.map((m, i) => instance(monitorAttributes(m as never), { index_key: i })),
      { each: "list" },
    ),
    resource(
      "axiom_notifier",
      "oncall",
      [
        instance(
          {
            id: slack.id,
            name: "oncall-slack",
            properties: { ...NO_CHANNELS, slack: { slack_url: SLACK_URL } },
          },
          {
            index_key: "slack",
            sensitive_attributes: [
              [
                { type: "get_attr", value: "properties" },
                { type: "get_attr", value: "slack" },
                { type: "get_attr", value: "slack_url" },
              ],
            ],
          },
        ),
        instance(
          {
            id: pagerduty.id,
            name: "oncall-pd",
            properties: { ...NO_CHANNELS, pagerduty: { routing_key: ROUTING_KEY, token: null } },
          },
          { index_key: "pager.duty" },
        ),
      ],
      { each: "map" },
    ),
    resource("axiom_token", "ci", [
      instance(
        {
          id: token.id,
          name: "ci",
          description: null,
          expires_at: null,
          token: token.token,
          dataset_capabilities: {
            "tf-logs": {
              ingest: ["create"],
              query: null,
              starred_queries: null,
              virtual_fields: null,
              data: null,
              trim: null,
              vacuum: null,
            },
          },
          org_capabilities: null,
        },
        { sensitive_attributes: [[{ type: "get_attr", value: "token" }]] },
      ),
    ]),
    resource(
      "axiom_virtual_field",
      "dur",
      [
        instance({
          id: vfield.id,
          dataset: "tf-logs",
          name: "dur",
          expression: "a + b",
          description: null,
          type: vfield.type ?? "",
          unit: vfield.unit ?? "",
        }),
      ],
      { module: "module.fields" },
    ),
    resource("axiom_monitor", "errors", [instance(monitorAttributes(moduleMonitor as never))], {
      module: 'module.team["a"]',
    }),
    resource("axiom_user", "ada", [
      instance({ id: user.id, name: "Ada Lovelace", email: "ada@example.com", role: "user" }),
    ]),
    // resource_dashboard.go has no schema version: 0. The document is kept as the JSON string it was given.
    resource("axiom_dashboard", "board", [
      instance(
        {
          id: dashboard.uid,
          uid: dashboard.uid,
          dashboard: JSON.stringify(DASHBOARD_DOCUMENT),
          overwrite: null,
        },
        { schema_version: 0 },
      ),
    ]),
    resource("axiom_monitor", "old", [instance(monitorAttributes(deleted as never))]),
    resource("axiom_monitor", "shaky", [
      instance(monitorAttributes(monitors[0] as never), { status: "tainted" }),
    ]),
    resource("axiom_monitor", "swapped", [
      instance(monitorAttributes(monitors[1] as never), { deposed: "00000001" }),
    ]),
    resource(
      "axiom_dataset",
      "existing",
      [instance({ id: "tf-logs", name: "tf-logs" }, { schema_version: 0 })],
      {
        mode: "data",
      },
    ),
    resource("aws_s3_bucket", "archive", [instance({ id: "archive-bucket", bucket: "archive-bucket" })], {
      provider: AWS,
    }),
  ]);
  return { made, state: doc };
}
