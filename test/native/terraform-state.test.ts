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

describe("createAsTerraform: objects as terraform-provider-axiom makes and records them", () => {
  const em = useEmulator();
  let native: NativeClient;
  const made: Record<string, Attrs> = {};

  beforeAll(async () => {
    native = await startNative();
    await native.configure({ url: em.current.url, token: secret(em.current.token) });
    const tf = (type: string, config: Attrs) => createAsTerraform(em.current, type, config);
    made.axiom_dataset = await tf("axiom_dataset", {
      name: "tf-logs",
      description: "from terraform",
      use_retention_period: true,
      retention_days: 30,
      map_fields: ["attrs"],
    });
    made.axiom_notifier = await tf("axiom_notifier", {
      name: "ops hook",
      properties: {
        custom_webhook: {
          url: "https://hooks.example.com/ops",
          body: '{"text": "{{.Title}}"}',
          headers: { Authorization: "Bearer hook-secret" },
        },
      },
    });
    made.axiom_monitor = await tf("axiom_monitor", {
      name: "errors",
      apl_query: "['tf-logs'] | where status >= 500 | count",
      type: "Threshold",
      operator: "Above",
      threshold: 5,
      interval_minutes: 5,
      range_minutes: 10,
      delay: 30,
      notifier_ids: [made.axiom_notifier.id],
    });
    made.axiom_token = await tf("axiom_token", {
      name: "ingest",
      description: "ingest into tf-logs",
      dataset_capabilities: { "tf-logs": { ingest: ["create"], query: ["read"] } },
      org_capabilities: { monitors: ["read"] },
    });
    made.axiom_user = await tf("axiom_user", { name: "Ada", email: "ada@example.com", role: "user" });
    made.axiom_virtual_field = await tf("axiom_virtual_field", {
      dataset: "tf-logs",
      name: "is_error",
      expression: "status >= 500",
      description: "server errors",
    });
    made.axiom_dashboard = await tf("axiom_dashboard", {
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
    });
  });
  afterAll(async () => {
    await native?.close();
  });

  const TYPES = [
    "axiom_dataset",
    "axiom_monitor",
    "axiom_notifier",
    "axiom_token",
    "axiom_user",
    "axiom_virtual_field",
    "axiom_dashboard",
  ];

  test.each(TYPES)("%s: every attribute of the schema is recorded, and only those", (tfType) => {
    expect(shapeProblems(TF_SCHEMAS[tfType].attributes, made[tfType])).toEqual([]);
    expect(typeof made[tfType].id).toBe("string");
  });

  test("recorded as the provider's flatten functions do", () => {
    expect(made.axiom_dataset).toMatchObject({
      id: "tf-logs",
      kind: "axiom:events:v1",
      map_fields: ["attrs"],
    });
    expect(typeof made.axiom_dataset.edge_deployment).toBe("string");
    expect(made.axiom_monitor).toMatchObject({
      delay: 30,
      operator: "Above",
      description: null,
      disabled_until: null,
    });
    expect(made.axiom_monitor.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(made.axiom_notifier.properties).toMatchObject({
      slack: null,
      custom_webhook: {
        url: "https://hooks.example.com/ops",
        headers: { Authorization: "Bearer hook-secret" },
      },
    });
    expect(made.axiom_token.token).toMatch(/^xaat-/);
    expect(made.axiom_token.rotation_grace_period).toBeNull();
    expect((made.axiom_token.dataset_capabilities as Attrs)["tf-logs"]).toEqual({
      ingest: ["create"],
      query: ["read"],
      starred_queries: [],
      virtual_fields: [],
      data: [],
      trim: [],
      vacuum: [],
    });
    expect(made.axiom_virtual_field.type).toBe("");
    // The document as Go re-encodes it: keys sorted, `>` and `&` escaped; the uid only when the document has one.
    expect(made.axiom_dashboard).toMatchObject({ id: "tf-ops", uid: "tf-ops", overwrite: false });
    expect(made.axiom_dashboard.dashboard).toContain("errors \\u003e 0 \\u0026 rising");
    expect(made.axiom_dashboard.dashboard).toMatch(/^\{"charts":/);
  });

  test.each(TYPES)(
    "%s: the table's inputs of the record are what the native provider reads back (no diff)",
    async (tfType) => {
      const r = TERRAFORM_RESOURCES.get(tfType)!;
      const id = r.importId(made[tfType]);
      const read = await native.read(r.kind, id);
      expect(read.id).toBe(id);
      const inputs = r.inputs(made[tfType]);
      const parsed = DECLARATIONS.get(r.kind as DeclaredKindName)!.rules.schema.safeParse(inputs);
      expect(parsed.error?.issues ?? []).toEqual([]);
      const checked = await native.check(r.kind, {}, inputs);
      expect(checked.failures).toEqual([]);
      const diff = await native.diff(r.kind, id, read.properties, checked.inputs);
      expect({ tfType, diffs: diff.diffs }).toEqual({ tfType, diffs: [] });
    },
  );

  test("a record that the service no longer matches shows as a diff: the comparison can fail", async () => {
    const r = TERRAFORM_RESOURCES.get("axiom_monitor")!;
    const id = r.importId(made.axiom_monitor);
    const read = await native.read(r.kind, id);
    const checked = await native.check(
      r.kind,
      {},
      r.inputs({ ...made.axiom_monitor, threshold: 6, delay: 60 }),
    );
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
