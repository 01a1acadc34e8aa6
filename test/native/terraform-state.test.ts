/**
 * The Terraform helpers (test/helpers/terraform.ts) that the migration's tests stand on:
 * - objects made on the emulator as terraform-provider-axiom v1.6.1 makes them record every attribute of the
 *   provider's schema, and the table's `inputs()` of that record are what the native provider reads back from the
 *   service: its diff says no change (so an import of a Terraform-made object shows none);
 * - the state file has the layout of hashicorp/terraform internal/states/statefile/version4.go, and the facts of
 *   ../shared/design/TERRAFORM-MIGRATION.md: format 4, `provider["registry.terraform.io/axiomhq/axiom"]`, schema
 *   versions (1, the dashboard 0), sensitive paths, count and for_each keys, modules, data sources, another
 *   provider's resource, tainted and deposed objects.
 */
import { DECLARATIONS, type DeclaredKindName } from "../../provider/resources/kinds";
import { TERRAFORM_RESOURCES } from "../../provider/terraform";
import { TF_SCHEMAS, type TfAttributes } from "../../provider/terraform/attributes";
import { useEmulator } from "../helpers/emulator";
import { secret, startNative, type NativeClient } from "../helpers/native";
import {
  axiomProvider,
  counted,
  createAsTerraform,
  forEach,
  goJson,
  jsonencode,
  single,
  terraformState,
} from "../helpers/terraform";

type Attrs = Record<string, unknown>;

/** Every attribute the schema declares is recorded, and nothing else, at every level (framework state is whole). */
function shapeProblems(attrs: TfAttributes, values: Attrs, at = ""): string[] {
  const out: string[] = [];
  const declared = Object.keys(attrs).sort();
  const recorded = Object.keys(values).sort();
  if (JSON.stringify(declared) !== JSON.stringify(recorded))
    out.push(`${at || "<root>"}: recorded ${recorded.join(",")}, declared ${declared.join(",")}`);
  for (const [name, attr] of Object.entries(attrs)) {
    const v = values[name];
    if (attr.type === "object" && attr.attributes && v && typeof v === "object")
      out.push(...shapeProblems(attr.attributes, v as Attrs, `${at}${name}.`));
    if (attr.type === "map" && attr.element?.attributes && v && typeof v === "object")
      for (const [k, e] of Object.entries(v as Attrs))
        out.push(...shapeProblems(attr.element.attributes, e as Attrs, `${at}${name}["${k}"].`));
  }
  return out;
}

/** What each case's `.tf` block sets, in order (a later one may refer to what an earlier one made). */
const CASES: { label: string; tfType: string; config: (made: Record<string, Attrs>) => Attrs }[] = [
  {
    label: "dataset",
    tfType: "axiom_dataset",
    config: () => ({
      name: "tf-logs",
      description: "from terraform",
      use_retention_period: true,
      retention_days: 30,
      map_fields: ["attrs"],
    }),
  },
  { label: "dataset, defaults", tfType: "axiom_dataset", config: () => ({ name: "tf-plain" }) },
  {
    label: "notifier",
    tfType: "axiom_notifier",
    config: () => ({
      name: "ops hook",
      properties: {
        custom_webhook: {
          url: "https://hooks.example.com/ops",
          body: '{"text": "{{.Title}}"}',
          headers: { Authorization: "Bearer hook-secret" },
        },
      },
    }),
  },
  {
    label: "notifier, slack",
    tfType: "axiom_notifier",
    config: () => ({
      name: "slack",
      properties: { slack: { slack_url: "https://hooks.slack.com/services/T/B/x" } },
    }),
  },
  {
    label: "notifier, opsgenie (is_eu)",
    tfType: "axiom_notifier",
    config: () => ({ name: "og", properties: { opsgenie: { api_key: "og-key", is_eu: true } } }),
  },
  {
    label: "notifier, pagerduty",
    tfType: "axiom_notifier",
    config: () => ({ name: "pd", properties: { pagerduty: { routing_key: "rk-123" } } }),
  },
  {
    label: "notifier, email",
    tfType: "axiom_notifier",
    config: () => ({ name: "mail", properties: { email: { emails: ["a@example.com", "b@example.com"] } } }),
  },
  {
    label: "notifier, discord",
    tfType: "axiom_notifier",
    config: () => ({
      name: "dc",
      properties: { discord: { discord_channel: "alerts", discord_token: "dt" } },
    }),
  },
  {
    label: "notifier, discord webhook",
    tfType: "axiom_notifier",
    config: () => ({
      name: "dcw",
      properties: { discord_webhook: { discord_webhook_url: "https://discord.com/api/webhooks/1/x" } },
    }),
  },
  {
    label: "notifier, webhook",
    tfType: "axiom_notifier",
    config: () => ({ name: "wh", properties: { webhook: { url: "https://example.com/hook" } } }),
  },
  {
    label: "monitor",
    tfType: "axiom_monitor",
    config: (made) => ({
      name: "errors",
      apl_query: "['tf-logs'] | where status >= 500 | count",
      type: "Threshold",
      operator: "Above",
      threshold: 5,
      interval_minutes: 5,
      range_minutes: 10,
      delay: 30,
      notifier_ids: [made.notifier.id],
    }),
  },
  {
    label: "monitor, match event",
    tfType: "axiom_monitor",
    config: () => ({
      name: "any error",
      apl_query: "['tf-logs'] | where level == 'error'",
      type: "MatchEvent",
    }),
  },
  {
    label: "monitor, anomaly detection",
    tfType: "axiom_monitor",
    config: () => ({
      name: "odd",
      description: "odd traffic",
      apl_query: "['tf-logs'] | summarize count() by bin_auto(_time)",
      type: "AnomalyDetection",
      operator: "Above",
      compare_days: 7,
      tolerance: 20,
      disabled_until: "2027-01-01T00:00:00Z",
      notify_by_group: true,
      trigger_from_n_runs: 2,
    }),
  },
  {
    label: "token",
    tfType: "axiom_token",
    config: () => ({
      name: "ingest",
      description: "ingest into tf-logs",
      dataset_capabilities: { "tf-logs": { ingest: ["create"], query: ["read"] } },
      org_capabilities: { monitors: ["read"] },
    }),
  },
  {
    label: "token, expiring, org only",
    tfType: "axiom_token",
    config: () => ({
      name: "ro",
      expires_at: "2027-06-01T00:00:00Z",
      org_capabilities: { datasets: ["read"] },
    }),
  },
  {
    label: "user",
    tfType: "axiom_user",
    config: () => ({ name: "Ada", email: "ada@example.com", role: "user" }),
  },
  {
    label: "virtual field",
    tfType: "axiom_virtual_field",
    config: () => ({
      dataset: "tf-logs",
      name: "is_error",
      expression: "status >= 500",
      description: "server errors",
    }),
  },
  {
    label: "virtual field, typed",
    tfType: "axiom_virtual_field",
    config: () => ({
      dataset: "tf-logs",
      name: "ms",
      expression: "duration * 1000",
      type: "number",
      unit: "ms",
    }),
  },
  {
    label: "dashboard",
    tfType: "axiom_dashboard",
    config: () => ({
      uid: "tf-ops",
      dashboard: jsonencode({
        name: "Ops",
        charts: [{ id: "note", type: "Note", text: "errors > 0 & rising" }],
        layout: [{ i: "note", x: 0, y: 0, w: 12, h: 2 }],
        refreshTime: 60,
        schemaVersion: 2,
        timeWindowStart: "qr-now-1h",
        timeWindowEnd: "qr-now",
      }),
    }),
  },
  {
    label: "dashboard, uid assigned",
    tfType: "axiom_dashboard",
    config: () => ({
      dashboard: jsonencode({
        name: "Assigned",
        description: "no uid declared",
        charts: [],
        layout: [],
        refreshTime: 300,
        schemaVersion: 2,
        timeWindowStart: "qr-now-24h",
        timeWindowEnd: "qr-now",
      }),
    }),
  },
];

describe("createAsTerraform: objects as terraform-provider-axiom makes and records them", () => {
  const em = useEmulator();
  let native: NativeClient;
  const made: Record<string, Attrs> = {};
  const typeOf = Object.fromEntries(CASES.map((c) => [c.label, c.tfType]));

  beforeAll(async () => {
    native = await startNative();
    await native.configure({ url: em.current.url, token: secret(em.current.token) });
    for (const c of CASES) made[c.label] = await createAsTerraform(em.current, c.tfType, c.config(made));
  });
  afterAll(async () => {
    await native?.close();
  });

  const LABELS = CASES.map((c) => c.label);

  test("the cases cover the seven types", () => {
    expect(new Set(CASES.map((c) => c.tfType))).toEqual(new Set(TERRAFORM_RESOURCES.keys()));
  });

  test.each(LABELS)("%s: every attribute of the schema is recorded, and only those", (label) => {
    expect(shapeProblems(TF_SCHEMAS[typeOf[label]].attributes, made[label])).toEqual([]);
    expect(typeof made[label].id).toBe("string");
  });

  test("recorded as the provider's flatten functions do", () => {
    expect(made.dataset).toMatchObject({
      id: "tf-logs",
      kind: "axiom:events:v1",
      map_fields: ["attrs"],
    });
    expect(typeof made.dataset.edge_deployment).toBe("string");
    expect(made.monitor).toMatchObject({
      delay: 30,
      operator: "Above",
      description: null,
      disabled_until: null,
    });
    expect(made.monitor.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(made.notifier.properties).toMatchObject({
      slack: null,
      custom_webhook: {
        url: "https://hooks.example.com/ops",
        headers: { Authorization: "Bearer hook-secret" },
      },
    });
    expect(made.token.token).toMatch(/^xaat-/);
    expect(made.token.rotation_grace_period).toBeNull();
    expect((made.token.dataset_capabilities as Attrs)["tf-logs"]).toEqual({
      ingest: ["create"],
      query: ["read"],
      starred_queries: [],
      virtual_fields: [],
      data: [],
      trim: [],
      vacuum: [],
    });
    expect(made["virtual field"].type).toBe("");
    // The document as Go re-encodes it: keys sorted, `>` and `&` escaped; the uid only when the document has one.
    expect(made.dashboard).toMatchObject({ id: "tf-ops", uid: "tf-ops", overwrite: false });
    expect(made.dashboard.dashboard).toContain("errors \\u003e 0 \\u0026 rising");
    expect(made.dashboard.dashboard).toMatch(/^\{"charts":/);
  });

  test.each(LABELS)(
    "%s: the table's inputs of the record are what the native provider reads back (no diff)",
    async (label) => {
      const r = TERRAFORM_RESOURCES.get(typeOf[label])!;
      const id = r.importId(made[label]);
      const read = await native.read(r.kind, id);
      expect(read.id).toBe(id);
      const inputs = r.inputs(made[label]);
      const parsed = DECLARATIONS.get(r.kind as DeclaredKindName)!.rules.schema.safeParse(inputs);
      expect(parsed.error?.issues ?? []).toEqual([]);
      const checked = await native.check(r.kind, {}, inputs);
      expect(checked.failures).toEqual([]);
      const diff = await native.diff(r.kind, id, read.properties, checked.inputs);
      expect({ label, diffs: diff.diffs }).toEqual({ label, diffs: [] });
    },
  );

  test("a record that the service no longer matches shows as a diff: the comparison can fail", async () => {
    const r = TERRAFORM_RESOURCES.get("axiom_monitor")!;
    const id = r.importId(made.monitor);
    const read = await native.read(r.kind, id);
    const checked = await native.check(r.kind, {}, r.inputs({ ...made.monitor, threshold: 6, delay: 60 }));
    const diff = await native.diff(r.kind, id, read.properties, checked.inputs);
    expect(diff.diffs.sort()).toEqual(["secondDelay", "threshold"]);
  });
});

describe("terraformState: the state file as Terraform writes it", () => {
  const monitor = { id: "mon_1", name: "errors", type: "Threshold" };
  const token = {
    id: "tok_1",
    name: "ci",
    token: "xaat-value",
    dataset_capabilities: {},
    org_capabilities: null,
  };
  const hook = {
    id: "ntf_1",
    name: "hook",
    properties: { slack: null, custom_webhook: { url: "https://h.example.com", body: "{}", headers: {} } },
  };
  const state = terraformState(
    [
      single("axiom_token", "ci", token),
      counted("axiom_monitor", "errors", [monitor, { ...monitor, id: "mon_2" }]),
      forEach("axiom_notifier", "hooks", { ops: hook, dev: { ...hook, id: "ntf_2" } }),
      single(
        "axiom_dashboard",
        "ops",
        { id: "ops", uid: "ops", dashboard: "{}", overwrite: false },
        {
          module: "module.team.module.boards",
        },
      ),
      single("axiom_dataset", "logs", { id: "logs", name: "logs" }, { mode: "data" }),
      single(
        "random_id",
        "suffix",
        { id: "abcd", byte_length: 2 },
        {
          provider: 'provider["registry.terraform.io/hashicorp/random"]',
        },
      ),
      {
        type: "axiom_user",
        name: "ada",
        instances: [
          { attributes: { id: "usr_1", name: "Ada" }, tainted: true },
          { attributes: { id: "usr_0", name: "Ada" }, deposed: "00c0ffee" },
        ],
      },
    ],
    { serial: 7, lineage: "3f4b1c2a-0000-4000-8000-000000000000" },
  );
  /* eslint-disable @typescript-eslint/no-explicit-any */
  const resources = state.resources as any[];
  const find = (type: string, name: string) => resources.find((r) => r.type === type && r.name === name);

  test("the document: version 4, serial, lineage, outputs, check_results", () => {
    expect(Object.keys(state)).toEqual([
      "version",
      "terraform_version",
      "serial",
      "lineage",
      "outputs",
      "resources",
      "check_results",
    ]);
    expect(state).toMatchObject({ version: 4, serial: 7, lineage: "3f4b1c2a-0000-4000-8000-000000000000" });
    expect(state.terraform_version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(JSON.parse(JSON.stringify(state))).toEqual(state);
  });

  test("each resource: mode, type, name, provider; the axiom provider by its registry address", () => {
    expect(find("axiom_token", "ci")).toMatchObject({
      mode: "managed",
      provider: 'provider["registry.terraform.io/axiomhq/axiom"]',
    });
    expect(axiomProvider("eu")).toBe('provider["registry.terraform.io/axiomhq/axiom"].eu');
    expect(find("random_id", "suffix").provider).toBe('provider["registry.terraform.io/hashicorp/random"]');
    expect(find("axiom_dataset", "logs").mode).toBe("data");
    expect(find("axiom_dashboard", "ops").module).toBe("module.team.module.boards");
    expect(find("axiom_token", "ci")).not.toHaveProperty("module");
  });

  test("resources in Terraform's order: module, mode, type, name (the root module first)", () => {
    expect(resources.map((r) => `${r.module ?? ""}|${r.mode}|${r.type}.${r.name}`)).toEqual([
      "|data|axiom_dataset.logs",
      "|managed|axiom_monitor.errors",
      "|managed|axiom_notifier.hooks",
      "|managed|axiom_token.ci",
      "|managed|axiom_user.ada",
      "|managed|random_id.suffix",
      "module.team.module.boards|managed|axiom_dashboard.ops",
    ]);
  });

  test("schema versions: terraform-provider-axiom's for its resources (the dashboard 0), 0 for data sources and others", () => {
    expect(find("axiom_token", "ci").instances[0].schema_version).toBe(1);
    expect(find("axiom_monitor", "errors").instances[0].schema_version).toBe(1);
    expect(find("axiom_dashboard", "ops").instances[0].schema_version).toBe(0);
    expect(find("axiom_dataset", "logs").instances[0].schema_version).toBe(0);
    expect(find("random_id", "suffix").instances[0].schema_version).toBe(0);
  });

  test("sensitive_attributes: the token's value and a custom webhook's headers, as get_attr paths; [] elsewhere", () => {
    expect(find("axiom_token", "ci").instances[0].sensitive_attributes).toEqual([
      [{ type: "get_attr", value: "token" }],
    ]);
    expect(find("axiom_notifier", "hooks").instances[0].sensitive_attributes).toEqual([
      [
        { type: "get_attr", value: "properties" },
        { type: "get_attr", value: "custom_webhook" },
        { type: "get_attr", value: "headers" },
      ],
    ]);
    expect(find("axiom_monitor", "errors").instances[0].sensitive_attributes).toEqual([]);
    expect(find("random_id", "suffix").instances[0].sensitive_attributes).toEqual([]);
  });

  test("count: index keys 0, 1 and each list; for_each: string keys in order and each map; none without", () => {
    const errors = find("axiom_monitor", "errors");
    expect(errors.each).toBe("list");
    expect(errors.instances.map((i: any) => [i.index_key, i.attributes.id])).toEqual([
      [0, "mon_1"],
      [1, "mon_2"],
    ]);
    const hooks = find("axiom_notifier", "hooks");
    expect(hooks.each).toBe("map");
    expect(hooks.instances.map((i: any) => [i.index_key, i.attributes.id])).toEqual([
      ["dev", "ntf_2"],
      ["ops", "ntf_1"],
    ]);
    expect(find("axiom_token", "ci")).not.toHaveProperty("each");
    expect(find("axiom_token", "ci").instances[0]).not.toHaveProperty("index_key");
  });

  test("a tainted object has status tainted; a deposed one its 8-character key, after the current one", () => {
    const ada = find("axiom_user", "ada").instances;
    expect(ada[0]).toMatchObject({ status: "tainted", attributes: { id: "usr_1" } });
    expect(ada[0]).not.toHaveProperty("deposed");
    expect(ada[1]).toMatchObject({ deposed: "00c0ffee", attributes: { id: "usr_0" } });
    expect(ada[1]).not.toHaveProperty("status");
    expect(() =>
      terraformState([{ type: "axiom_user", name: "x", instances: [{ attributes: {}, deposed: "xyz" }] }]),
    ).toThrow("deposed key xyz is not 8 hex characters");
  });

  test("the attributes are Terraform's names, as given", () => {
    expect(Object.keys(find("axiom_token", "ci").instances[0].attributes)).toContain("dataset_capabilities");
  });

  test("goJson writes what Go's json.Marshal writes for a decoded map", () => {
    expect(goJson({ b: 1, a: { d: "<x & y>", c: [2, 1] } })).toBe(
      '{"a":{"c":[2,1],"d":"\\u003cx \\u0026 y\\u003e"},"b":1}',
    );
  });
});
