/**
 * `observability migrate terraform`, run from the build output against an emulator: objects made as
 * terraform-provider-axiom makes them, a Terraform state (format 4) recording them, and the import file and the
 * report the command writes.
 *
 * The state's layout is hashicorp/terraform internal/states/statefile/version4.go (`stateV4`: `resources`, each with
 * `mode`, `type`, `name`, `provider`, `module`, `each`, `instances` with `index_key`, `status`, `deposed`,
 * `schema_version`, `attributes`, `sensitive_attributes`). The names expected are those of Pulumi's converter,
 * pulumi/pulumi-converter-terraform pkg/convert/tf_state.go (`TranslateState`): `<name>-<index>` and
 * `<name>-<key>`, with its special characters made `_`.
 */
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ObservabilityClient } from "../../provider/client";
import { nameAll } from "../../cli/migrate/plan";
import { TERRAFORM_RESOURCES } from "../../provider/terraform";
import { emulatorEnv, oneLine, runCli, useTempDir } from "../helpers/cli";
import { useEmulator } from "../helpers/emulator";

const em = useEmulator({ record: true });
const tmp = useTempDir();
const env = () => emulatorEnv(em.current);

const AXIOM = 'provider["registry.terraform.io/axiomhq/axiom"]';
const AWS = 'provider["registry.terraform.io/hashicorp/aws"]';

// Real-looking credentials: none may appear anywhere but where the import file must carry one as a secret.
const SLACK_URL = "https://hooks.slack.com/services/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";
const ROUTING_KEY = "R0uT1nGk3y5ecr3tA8c9D0e1F2a3B4c5";
const OTHER_SLACK = "https://hooks.slack.com/services/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01";

interface Instance {
  index_key?: number | string;
  status?: "tainted";
  deposed?: string;
  schema_version: number;
  attributes: Record<string, unknown>;
  sensitive_attributes: unknown[];
}

const instance = (attributes: Record<string, unknown>, extra: Partial<Instance> = {}): Instance => ({
  schema_version: 1,
  attributes,
  sensitive_attributes: [],
  ...extra,
});

const resource = (
  type: string,
  name: string,
  instances: Instance[],
  extra: { mode?: "managed" | "data"; module?: string; each?: "list" | "map"; provider?: string } = {},
) => ({ mode: "managed", type, name, provider: AXIOM, ...extra, instances });

const state = (resources: unknown[]) => ({
  version: 4,
  terraform_version: "1.9.8",
  serial: 12,
  lineage: "3f1c2a4e-7b1d-4c55-9a0e-2f6d8b9c1e7a",
  outputs: {},
  resources,
  check_results: null,
});

/** A monitor as terraform-provider-axiom records it (resource_monitor.go): every attribute, unset ones null. */
function monitorAttributes(m: Record<string, unknown>): Record<string, unknown> {
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

let client: ObservabilityClient;
let made: {
  dataset: string;
  monitors: string[];
  slack: string;
  pagerduty: string;
  token: { id: string; value: string };
  vfield: string;
  deleted: string;
  moduleMonitor: string;
};
let full: ReturnType<typeof state>;

beforeAll(async () => {
  client = new ObservabilityClient({ url: em.current.url, token: em.current.token });
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
  const slack = await client.notifiers.create({ name: "oncall-slack", properties: { slack: { slackUrl: SLACK_URL } } });
  const pagerduty = await client.notifiers.create({
    name: "oncall-pd",
    properties: { pagerduty: { routingKey: ROUTING_KEY } },
  });
  const token = await client.tokens.create({
    name: "ci",
    datasetCapabilities: { "tf-logs": { ingest: ["create"] } },
  });
  const vfield = await client.virtualFields.create({ dataset: "tf-logs", name: "dur", expression: "a + b" });
  made = {
    dataset: dataset.id,
    monitors: monitors.map((m) => m.id),
    slack: slack.id,
    pagerduty: pagerduty.id,
    token: { id: token.id, value: String(token.token) },
    vfield: vfield.id,
    deleted: deleted.id,
    moduleMonitor: moduleMonitor.id,
  };
  full = state([
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
    resource(
      "axiom_monitor",
      "errors",
      [instance(monitorAttributes(moduleMonitor as never))],
      { module: 'module.team["a"]' },
    ),
    resource("axiom_monitor", "old", [instance(monitorAttributes(deleted as never))]),
    resource("axiom_monitor", "shaky", [instance(monitorAttributes(monitors[0] as never), { status: "tainted" })]),
    resource("axiom_monitor", "swapped", [
      instance(monitorAttributes(monitors[1] as never), { deposed: "00000001" }),
    ]),
    resource("axiom_dataset", "existing", [instance({ id: "tf-logs", name: "tf-logs" }, { schema_version: 0 })], {
      mode: "data",
    }),
    resource("aws_s3_bucket", "archive", [instance({ id: "archive-bucket", bucket: "archive-bucket" })], {
      provider: AWS,
    }),
  ]);
});

afterAll(async () => {
  await client?.close();
});

const writeState = (name: string, doc: unknown) => {
  const file = join(tmp.path, name);
  writeFileSync(file, typeof doc === "string" ? doc : JSON.stringify(doc, null, 2));
  return file;
};

interface ImportFileShape {
  resources: {
    type: string;
    name: string;
    logicalName: string;
    id: string;
    inputs?: Record<string, unknown>;
    outputs?: Record<string, unknown>;
  }[];
}

describe("a state with every case", () => {
  let result: Awaited<ReturnType<typeof runCli>>;
  let file: ImportFileShape;
  beforeAll(async () => {
    result = await runCli(["migrate", "terraform", writeState("full.tfstate", full)], { env: env() });
    file = JSON.parse(result.stdout) as ImportFileShape;
  });

  it("exits 0 and writes the import file on stdout, each object with our type token and its id", () => {
    expect(result.code).toBe(0);
    expect(file.resources.map(({ type, name, logicalName, id }) => ({ type, name, logicalName, id }))).toEqual([
      { type: "observability:index:Dataset", name: "logs", logicalName: "logs", id: made.dataset },
      // count: the index kept; the root module's `errors-0` keeps its name, the module's one below is told apart.
      { type: "observability:index:Monitor", name: "errors_0", logicalName: "errors-0", id: made.monitors[0] },
      { type: "observability:index:Monitor", name: "errors_1", logicalName: "errors-1", id: made.monitors[1] },
      // for_each: the key kept; the converter makes `.` and `-` in it `_`.
      { type: "observability:index:Notifier", name: "oncall_slack", logicalName: "oncall-slack", id: made.slack },
      {
        type: "observability:index:Notifier",
        name: "oncall_pager_duty",
        logicalName: "oncall-pager.duty",
        id: made.pagerduty,
      },
      { type: "observability:index:ApiToken", name: "ci", logicalName: "ci", id: made.token.id },
      // A module's resource whose name clashes with none keeps its name: the module path is dropped.
      { type: "observability:index:VirtualField", name: "dur", logicalName: "dur", id: made.vfield },
      // `errors` of module.team["a"] has no index, so it clashes with nothing: `errors`.
      { type: "observability:index:Monitor", name: "errors", logicalName: "errors", id: made.moduleMonitor },
    ]);
  });

  it("names each skipped object and why, on stderr", () => {
    const err = result.stderr;
    expect(err).toMatch(/^ {2}data\.axiom_dataset\.existing: a data source.*observability:index:getDataset/m);
    expect(err).toMatch(/^ {2}aws_s3_bucket\.archive: another provider's resource \(registry\.terraform\.io\/hashicorp\/aws/m);
    expect(err).toMatch(/^ {2}axiom_monitor\.shaky: tainted/m);
    expect(err).toMatch(/^ {2}axiom_monitor\.swapped \(deposed object 00000001\): a deposed object/m);
    expect(err).toContain(`axiom_monitor.old: the service no longer has Monitor ${made.deleted}`);
    expect(err).toMatch(/Skipped \(5\)/);
    expect(err).toMatch(/Taken \(8\)/);
  });

  it("prints the terraform state rm commands for exactly what was taken, quoted for a shell", () => {
    const rms = result.stderr
      .split("\n")
      .filter((l) => l.trim().startsWith("terraform state rm "))
      .map((l) => l.trim());
    expect(rms).toEqual([
      "terraform state rm 'axiom_dataset.logs'",
      "terraform state rm 'axiom_monitor.errors[0]'",
      "terraform state rm 'axiom_monitor.errors[1]'",
      `terraform state rm 'axiom_notifier.oncall["slack"]'`,
      `terraform state rm 'axiom_notifier.oncall["pager.duty"]'`,
      "terraform state rm 'axiom_token.ci'",
      "terraform state rm 'module.fields.axiom_virtual_field.dur'",
      `terraform state rm 'module.team["a"].axiom_monitor.errors'`,
    ]);
  });

  it("prints the adopt lines of the dynamic resources, and says the token cannot adopt", () => {
    expect(result.stderr).toContain(
      `axiom_monitor.errors[0]: new observability.Monitor("errors-0", { /* its inputs */ adopt: "${made.monitors[0]}" })`,
    );
    expect(result.stderr).toContain(
      `axiom_notifier.oncall["slack"]: new observability.Notifier("oncall-slack", { /* its inputs */ adopt: "${made.slack}" })`,
    );
    expect(result.stderr).toMatch(/axiom_token\.ci: ApiToken cannot adopt: a token cannot be adopted/);
  });

  it("carries the token's value as a secret in the import file, with the outputs the provider would record", () => {
    const token = file.resources.find((r) => r.type === "observability:index:ApiToken")!;
    expect(token.outputs?.token).toEqual({
      "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
      plaintext: JSON.stringify(made.token.value),
    });
    expect(token.outputs).toMatchObject({ name: "ci", tokenId: made.token.id });
    expect(token.inputs).toMatchObject({ name: "ci", datasetCapabilities: { "tf-logs": { ingest: ["create"] } } });
    expect(result.stderr).toMatch(/axiom_token\.ci: its token .* is carried from Terraform's state as a secret/);
  });

  it("prints no secret of the state: not on stderr, and on stdout only the token, inside its secret", () => {
    for (const secret of [SLACK_URL, ROUTING_KEY, made.token.value]) expect(result.stderr).not.toContain(secret);
    expect(result.stdout).not.toContain(SLACK_URL);
    expect(result.stdout).not.toContain(ROUTING_KEY);
    const withoutSecret = JSON.parse(result.stdout) as ImportFileShape;
    for (const r of withoutSecret.resources) delete r.outputs?.token;
    expect(JSON.stringify(withoutSecret)).not.toContain(made.token.value);
    expect(result.stdout.split(made.token.value)).toHaveLength(2);
  });

  it("reports no drift where Terraform's record matches the service", () => {
    expect(result.stderr).toContain("Drift: none");
  });
});

it("names the fields that drifted, and never a secret's values", async () => {
  const drifted = JSON.parse(JSON.stringify(full)) as typeof full;
  const monitors = drifted.resources.find((r) => (r as { name: string }).name === "errors") as {
    instances: Instance[];
  };
  monitors.instances[1].attributes.threshold = 99;
  const notifiers = drifted.resources.find((r) => (r as { name: string }).name === "oncall") as {
    instances: Instance[];
  };
  (notifiers.instances[0].attributes.properties as { slack: { slack_url: string } }).slack.slack_url = OTHER_SLACK;
  const r = await runCli(["migrate", "terraform", writeState("drift.tfstate", drifted)], { env: env() });
  expect(r.code).toBe(0);
  expect(r.stderr).toMatch(/Drift \(2\)/);
  expect(r.stderr).toContain("axiom_monitor.errors[1]: threshold (Terraform 99, service 20)");
  expect(r.stderr).toContain(`axiom_notifier.oncall["slack"]: properties.slack.slackUrl (secret: values not shown)`);
  for (const secret of [SLACK_URL, OTHER_SLACK, ROUTING_KEY]) {
    expect(r.stderr).not.toContain(secret);
    expect(r.stdout).not.toContain(secret);
  }
});

it("reads `terraform state pull` from standard input, and --out writes the file for this user alone", async () => {
  const out = join(tmp.path, "import.json");
  const r = await runCli(["migrate", "terraform", "-", "--out", out], { env: env(), stdin: JSON.stringify(full) });
  expect(r.code).toBe(0);
  expect(r.stdout).toBe("");
  expect(statSync(out).mode & 0o777).toBe(0o600);
  expect((JSON.parse(readFileSync(out, "utf8")) as ImportFileShape).resources).toHaveLength(8);
  expect(r.stderr).toContain(`pulumi import --file ${out} --yes`);
  expect(r.stderr).toMatch(/Read standard input: a Terraform 1\.9\.8 state \(serial 12\), 13 object\(s\)/);
});

it("takes an aliased provider configuration's objects only with --alias", async () => {
  const aliased = state([
    resource("axiom_dataset", "logs", [instance({ id: made.dataset, name: "tf-logs" })], { provider: `${AXIOM}.eu` }),
    resource("axiom_monitor", "m", [instance(monitorAttributes({ id: made.monitors[0], name: "errors 0" }))]),
  ]);
  const file = writeState("aliased.tfstate", aliased);
  const plain = await runCli(["migrate", "terraform", file], { env: env() });
  expect(plain.code).toBe(0);
  expect((JSON.parse(plain.stdout) as ImportFileShape).resources.map((x) => x.id)).toEqual([made.monitors[0]]);
  expect(plain.stderr).toMatch(/axiom_dataset\.logs: made through the provider configuration axiom\.eu.*--alias eu/);
  const eu = await runCli(["migrate", "terraform", file, "--alias", "eu"], { env: env() });
  expect((JSON.parse(eu.stdout) as ImportFileShape).resources.map((x) => x.id)).toEqual([made.dataset]);
});

describe("refusals: one line naming what is wrong, never a stack trace", () => {
  it.each([
    ["format 3", JSON.stringify({ version: 3, terraform_version: "0.11.14", modules: [] }), 1, /version: format 3 is not read here: it was written by Terraform 0\.11 or older/],
    ["not JSON", "resource \"axiom_dataset\" \"x\" {}", 1, /is not JSON .*: is it a Terraform state\?/],
    [
      "terraform show -json",
      JSON.stringify({ format_version: "1.0", terraform_version: "1.9.8", values: { root_module: {} } }),
      1,
      /`terraform show -json`.*not a state/,
    ],
    [
      "a broken instance",
      JSON.stringify(state([resource("axiom_monitor", "m", [{ schema_version: 1 } as never])])),
      1,
      /resources\[0\]\.instances\[0\]\.attributes: must be an object, not undefined/,
    ],
    [
      "an index key of the wrong kind",
      JSON.stringify(state([resource("axiom_monitor", "m", [instance({ id: "x" }, { index_key: "a" })], { each: "list" })])),
      1,
      /resources\[0\]\.instances\[0\]\.index_key: must be a count index/,
    ],
  ])("%s", async (_what, text, code, message) => {
    const r = await runCli(["migrate", "terraform", writeState("bad.tfstate", text)], { env: env() });
    expect(r.code).toBe(code);
    expect(oneLine(r.stderr)).toMatch(message);
    expect(r.stdout).toBe("");
  });

  it("a missing file is a usage error (exit 2)", async () => {
    const r = await runCli(["migrate", "terraform", join(tmp.path, "nope.tfstate")], { env: env() });
    expect(r.code).toBe(2);
    expect(oneLine(r.stderr)).toMatch(/cannot read the state file .*nope\.tfstate: ENOENT/);
  });

  it("empty standard input", async () => {
    const r = await runCli(["migrate", "terraform", "-"], { env: env(), stdin: "" });
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toMatch(/standard input is empty: pipe in `terraform state pull`/);
  });

  it("the state and the token both on standard input", async () => {
    const r = await runCli(["migrate", "terraform", "-", "--token-file", "-"], { env: env(), stdin: "{}" });
    expect(r.code).toBe(2);
    expect(oneLine(r.stderr)).toMatch(/cannot both come from standard input/);
  });

  it("no token", async () => {
    const r = await runCli(["migrate", "terraform", writeState("t.tfstate", full)], {
      env: { OBSERVABILITY_URL: em.current.url },
    });
    expect(r.code).toBe(2);
    expect(oneLine(r.stderr)).toMatch(/no token: set OBSERVABILITY_TOKEN, pass --token-file FILE, or --stack/);
  });

  it("a token the service refuses: exit 1, and no secret of the state in the line", async () => {
    const r = await runCli(["migrate", "terraform", writeState("t.tfstate", full)], {
      env: { OBSERVABILITY_URL: em.current.url, OBSERVABILITY_TOKEN: "xaat-not-a-token-of-this-org" },
    });
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toMatch(/the service refused the token \(403/);
  });
});

describe("names, as Pulumi's converter forms them, with the module path only where it avoids a clash", () => {
  const monitor = TERRAFORM_RESOURCES.get("axiom_monitor")!;
  const dataset = TERRAFORM_RESOURCES.get("axiom_dataset")!;
  const item = (name: string, module = "", indexKey?: number | string, resource = monitor) => ({
    resource,
    instance: {
      module,
      mode: "managed" as const,
      type: resource.tfType,
      name,
      provider: AXIOM,
      ...(indexKey !== undefined ? { indexKey } : {}),
      status: "current" as const,
      schemaVersion: 1,
      attributes: {},
      sensitivePaths: [],
    },
  });

  it("two modules with the same name each get their module path; the root one keeps the plain name", () => {
    expect(
      nameAll([item("errors"), item("errors", "module.team_a"), item("errors", 'module.team["b"].module.inner')]),
    ).toEqual([
      { name: "errors", logicalName: "errors", prefixed: false },
      { name: "team_a_errors", logicalName: "team_a-errors", prefixed: true },
      { name: "team_b_inner_errors", logicalName: "team-b-inner-errors", prefixed: true },
    ]);
  });

  it("the same name of two types is no clash (their URNs differ by type)", () => {
    expect(nameAll([item("logs"), item("logs", "module.m", undefined, dataset)]).map((n) => n.name)).toEqual([
      "logs",
      "logs",
    ]);
  });

  it("names alike only once made identifiers are numbered in the state's order", () => {
    expect(nameAll([item("a", "", "x.y"), item("a", "", "x_y")])).toEqual([
      { name: "a_x_y", logicalName: "a-x.y", prefixed: false },
      { name: "a_x_y_2", logicalName: "a-x_y-2", prefixed: true },
    ]);
  });
});

it("a state of 1,000 objects is checked with one listing per family, not a request per object", async () => {
  const bulk = (i: number) => ({
    name: `bulk ${i}`,
    aplQuery: "['tf-logs'] | count",
    type: "Threshold",
    operator: "Above",
    threshold: i,
    intervalMinutes: 5,
    rangeMinutes: 5,
  });
  const monitors = [];
  for (let i = 0; i < 600; i++) monitors.push(await client.monitors.create(bulk(i) as never));
  const datasets = [];
  for (let i = 0; i < 400; i++) datasets.push(await client.datasets.create({ name: `bulk-${i}` }));
  const file = writeState(
    "bulk.tfstate",
    state([
      resource(
        "axiom_monitor",
        "bulk",
        monitors.map((m, i) => instance(monitorAttributes(m as never), { index_key: i })),
        { each: "list" },
      ),
      resource(
        "axiom_dataset",
        "bulk",
        datasets.map((d) =>
          instance({ id: d.id, name: d.name, description: d.description ?? null }, { index_key: d.name }),
        ),
        { each: "map" },
      ),
    ]),
  );
  em.current.received.length = 0;
  const started = performance.now();
  const r = await runCli(["migrate", "terraform", file, "--out", join(tmp.path, "bulk.json")], { env: env() });
  const ms = performance.now() - started;
  expect(r.code).toBe(0);
  expect(r.stderr).toMatch(/Taken \(1000\)/);
  const requests = em.current.received.map((q) => `${q.method} ${q.path}`);
  expect(requests.sort()).toEqual(["GET /v2/datasets", "GET /v2/monitors"]);
  console.log(`migrate terraform: 1,000 objects checked in ${Math.round(ms)} ms (the whole process)`);
}, 120_000);
