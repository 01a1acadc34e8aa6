/**
 * `observability migrate terraform`, run from the build output against an emulator: objects made as
 * terraform-provider-axiom makes them and the Terraform state (format 4) recording them (test/helpers/terraform.ts,
 * composed in test/helpers/terraform-fixture.ts), then the import file and the report the command writes.
 *
 * The state's layout is hashicorp/terraform internal/states/statefile/version4.go (`stateV4`: `resources`, each with
 * `mode`, `type`, `name`, `provider`, `module`, `each`, `instances` with `index_key`, `status`, `deposed`,
 * `schema_version`, `attributes`, `sensitive_attributes`). The names expected are those of Pulumi's converter,
 * pulumi/pulumi-converter-terraform pkg/convert/tf_state.go (`TranslateState`): `<name>-<index>` and
 * `<name>-<key>`, with its special characters made `_`. The import file's shape is the CLI's, pulumi/pulumi
 * pkg/cmd/pulumi/operations/import.go (`importFile`, `importSpec`) at v3.274.1, the version engine/pulumi-cli pins;
 * the requests are counted at the emulator (`record`).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ObservabilityClient } from "../../provider/client";
import { migrateTerraform } from "../../cli/commands/migrate";
import { identifierOf, isIdentifier, nameAll } from "../../cli/migrate/names";
import { hclQuoted, hclUnquoted } from "../../cli/migrate/tfstate";
import { stateRm } from "../../cli/migrate/plan";
import {
  afterHandover,
  makeAwkwardTerraformProject,
  type AwkwardProject,
} from "../helpers/terraform-awkward";
import { emulatorEnv, oneLine, runCli, useTempDir } from "../helpers/cli";
import { useEmulator } from "../helpers/emulator";
import {
  axiomProvider,
  createAsTerraform,
  counted,
  forEach,
  single,
  terraformState,
} from "../helpers/terraform";
import {
  AWS,
  OTHER_SLACK,
  ROUTING_KEY,
  SLACK_URL,
  makeTerraformProject,
  monitorConfig,
  type Recorded,
  type TerraformMade,
} from "../helpers/terraform-fixture";

const em = useEmulator({ record: true });
const tmp = useTempDir();
const env = () => emulatorEnv(em.current);

let client: ObservabilityClient;
let made: TerraformMade;
let recorded: Recorded;
let full: ReturnType<typeof terraformState>;

beforeAll(async () => {
  client = new ObservabilityClient({ url: em.current.url, token: em.current.token });
  ({ made, recorded, state: full } = await makeTerraformProject(em.current, client));
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
    expect(
      file.resources.map(({ type, name, logicalName, id }) => ({ type, name, logicalName, id })),
    ).toEqual([
      // A dashboard's id is its uid. The logical name (the URN's) is the Terraform address, its keys bare.
      {
        type: "observability:index:Dashboard",
        name: "board",
        logicalName: "axiom_dashboard.board",
        id: "tf-board",
      },
      {
        type: "observability:index:Dataset",
        name: "logs",
        logicalName: "axiom_dataset.logs",
        id: made.dataset,
      },
      // count: the index kept.
      {
        type: "observability:index:Monitor",
        name: "errors_0",
        logicalName: "axiom_monitor.errors[0]",
        id: made.monitors[0],
      },
      {
        type: "observability:index:Monitor",
        name: "errors_1",
        logicalName: "axiom_monitor.errors[1]",
        id: made.monitors[1],
      },
      // for_each: the key kept; the converter makes the `.` and `-` of a name `_`.
      {
        type: "observability:index:Notifier",
        name: "oncall_pager_duty",
        logicalName: "axiom_notifier.oncall[pager.duty]",
        id: made.pagerduty,
      },
      {
        type: "observability:index:Notifier",
        name: "oncall_slack",
        logicalName: "axiom_notifier.oncall[slack]",
        id: made.slack,
      },
      { type: "observability:index:ApiToken", name: "ci", logicalName: "axiom_token.ci", id: made.token.id },
      { type: "observability:index:User", name: "ada", logicalName: "axiom_user.ada", id: made.user },
      // A module's resource whose name clashes with none keeps its name: the module path is dropped.
      {
        type: "observability:index:VirtualField",
        name: "dur",
        logicalName: "module.fields.axiom_virtual_field.dur",
        id: made.vfield,
      },
      // `errors` of module.team["a"] has no index, so it clashes with neither `errors-0` nor `errors-1`.
      {
        type: "observability:index:Monitor",
        name: "errors",
        logicalName: "module.team[a].axiom_monitor.errors",
        id: made.moduleMonitor,
      },
    ]);
  });

  it("names each skipped object and why, on stderr", () => {
    const err = result.stderr;
    expect(err).toMatch(/^ {2}data\.axiom_dataset\.existing: a data source.*observability:index:getDataset/m);
    expect(err).toMatch(
      /^ {2}aws_s3_bucket\.archive: another provider's resource \(registry\.terraform\.io\/hashicorp\/aws/m,
    );
    expect(err).toMatch(/^ {2}axiom_monitor\.shaky: tainted/m);
    expect(err).toMatch(/^ {2}axiom_monitor\.swapped \(deposed object 0a1b2c3d\): a deposed object/m);
    expect(err).toContain(`axiom_monitor.old: the service no longer has Monitor ${made.deleted}`);
    expect(err).toMatch(/Skipped \(5\)/);
    expect(err).toMatch(/Taken \(10\)/);
  });

  it("prints the terraform state rm commands for exactly what was taken, quoted for a shell", () => {
    const rms = result.stderr
      .split("\n")
      .filter((l) => l.trim().startsWith("terraform state rm "))
      .map((l) => l.trim());
    expect(rms).toEqual([
      "terraform state rm 'axiom_dashboard.board'",
      "terraform state rm 'axiom_dataset.logs'",
      "terraform state rm 'axiom_monitor.errors[0]'",
      "terraform state rm 'axiom_monitor.errors[1]'",
      `terraform state rm 'axiom_notifier.oncall["pager.duty"]'`,
      `terraform state rm 'axiom_notifier.oncall["slack"]'`,
      "terraform state rm 'axiom_token.ci'",
      "terraform state rm 'axiom_user.ada'",
      "terraform state rm 'module.fields.axiom_virtual_field.dur'",
      `terraform state rm 'module.team["a"].axiom_monitor.errors'`,
    ]);
  });

  it("prints the adopt lines of the dynamic resources, and says the token cannot adopt", () => {
    expect(result.stderr).toContain(
      `axiom_monitor.errors[0]: new obs.Monitor("axiom_monitor.errors[0]", { /* its inputs */ adopt: "${made.monitors[0]}" })`,
    );
    expect(result.stderr).toContain(
      `axiom_notifier.oncall["slack"]: new obs.Notifier("axiom_notifier.oncall[slack]", { /* its inputs */ adopt: "${made.slack}" })`,
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
    expect(token.inputs).toMatchObject({
      name: "ci",
      datasetCapabilities: { "tf-logs": { ingest: ["create"] } },
    });
    expect(result.stderr).toMatch(
      /axiom_token\.ci: its token .* is carried from Terraform's state as a secret/,
    );
  });

  it("prints no secret of the state: not on stderr, and on stdout only the token, inside its secret", () => {
    for (const secret of [SLACK_URL, ROUTING_KEY, made.token.value])
      expect(result.stderr).not.toContain(secret);
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

describe("a token's value and a terminal", () => {
  const io = (stdoutIsTerminal: boolean) => {
    const out: string[] = [];
    const said: string[] = [];
    return {
      out,
      said,
      io: {
        env: env(),
        readStdin: () => Promise.reject(new Error("no stdin in this test")),
        stdout: (text: string) => void out.push(text),
        stdoutIsTerminal,
        say: (line: string) => void said.push(line),
      },
    };
  };

  it("refuses to show the import file on a terminal while it carries a token's value, naming the token", async () => {
    const t = io(true);
    await expect(migrateTerraform(writeState("tty.tfstate", full), {}, t.io)).rejects.toThrow(
      /carries the value of axiom_token\.ci .*standard output is a terminal: pass --out FILE/,
    );
    expect(t.out).toEqual([]);
    expect([...t.said, ...t.out].join("\n")).not.toContain(made.token.value);
  });

  it("writes the same file to a pipe, the token inside its secret", async () => {
    const t = io(false);
    await migrateTerraform(writeState("pipe.tfstate", full), {}, t.io);
    expect(t.out.join("").split(made.token.value)).toHaveLength(2);
  });
});

it("names the fields that drifted, and never a secret's values", async () => {
  const slack = recorded.slack.properties as { slack: Record<string, unknown> };
  const drifted = terraformState([
    counted("axiom_monitor", "errors", [recorded.errors0, { ...recorded.errors1, threshold: 99, delay: 60 }]),
    forEach("axiom_notifier", "oncall", {
      slack: { ...recorded.slack, properties: { ...slack, slack: { slack_url: OTHER_SLACK } } },
      "pager.duty": recorded.pagerduty,
    }),
  ]);
  const r = await runCli(["migrate", "terraform", writeState("drift.tfstate", drifted)], { env: env() });
  expect(r.code).toBe(0);
  expect(r.stderr).toMatch(/Drift \(2\)/);
  expect(r.stderr).toContain("axiom_monitor.errors[1]: threshold (Terraform 99, service 20)");
  // Named as ours: Terraform's `delay` is the kind's `secondDelay`.
  expect(r.stderr).toContain("axiom_monitor.errors[1]: secondDelay (Terraform 60, service 0)");
  expect(r.stderr).toContain(
    `axiom_notifier.oncall["slack"]: properties.slack.slackUrl (secret: values not shown)`,
  );
  for (const secret of [SLACK_URL, OTHER_SLACK, ROUTING_KEY]) {
    expect(r.stderr).not.toContain(secret);
    expect(r.stdout).not.toContain(secret);
  }
});

it("every notifier channel: no drift where none is, and none of their credentials printed", async () => {
  const secrets = {
    discordToken: "MTA5ODc2NTQzMjEwOTg3NjU0.GhIjKl.discord-bot-token-0123456789abcdef",
    discordWebhook: "https://discord.com/api/webhooks/109876543210987654/Zq9xW8vU7tS6rR5qP4oN3mM2lL1kK0jJ",
    opsgenie: "0f1e2d3c-4b5a-6978-8a9b-acbdcedfe0f1",
    pagerdutyToken: "u+PdLegacyT0kenAbc123xyz",
    webhook: "https://hooks.example.com/alerts/4f8c1d2e9a7b6c5d",
    customUrl: "https://api.example.com/incidents?key=ck_live_51Hx9Yq2eZvKYlo2C",
    customHeader: "Bearer sk_live_4eC39HqLyjWDarjtT1zdp7dc",
  };
  const channels: Record<string, Record<string, unknown>> = {
    discord: { discord: { discord_channel: "alerts", discord_token: secrets.discordToken } },
    discord_webhook: { discord_webhook: { discord_webhook_url: secrets.discordWebhook } },
    email: { email: { emails: ["oncall@example.com"] } },
    opsgenie: { opsgenie: { api_key: secrets.opsgenie, is_eu: true } },
    pagerduty: { pagerduty: { routing_key: ROUTING_KEY, token: secrets.pagerdutyToken } },
    webhook: { webhook: { url: secrets.webhook } },
    custom_webhook: {
      custom_webhook: {
        url: secrets.customUrl,
        body: '{"text": "{{.Title}}"}',
        headers: { Authorization: secrets.customHeader },
      },
    },
  };
  const objects: Record<string, Record<string, unknown>> = {};
  for (const [key, properties] of Object.entries(channels))
    objects[key] = await createAsTerraform(em.current, "axiom_notifier", { name: `via ${key}`, properties });
  const r = await runCli(
    [
      "migrate",
      "terraform",
      writeState("channels.tfstate", terraformState([forEach("axiom_notifier", "by", objects)])),
    ],
    { env: env() },
  );
  expect(r.code).toBe(0);
  expect(r.stderr).toMatch(/Taken \(7\)/);
  expect(r.stderr).toContain("Drift: none");
  for (const secret of [...Object.values(secrets), ROUTING_KEY]) {
    expect(r.stderr).not.toContain(secret);
    expect(r.stdout).not.toContain(secret);
  }
});

it("reads `terraform state pull` from standard input, and --out writes the file for this user alone", async () => {
  const out = join(tmp.path, "import.json");
  const r = await runCli(["migrate", "terraform", "-", "--out", out], {
    env: env(),
    stdin: JSON.stringify(full),
  });
  expect(r.code).toBe(0);
  expect(r.stdout).toBe("");
  expect(statSync(out).mode & 0o777).toBe(0o600);
  const written = readFileSync(out, "utf8");
  expect((JSON.parse(written) as ImportFileShape).resources).toHaveLength(10);
  expect(written).not.toContain(SLACK_URL);
  expect(written).not.toContain(ROUTING_KEY);
  expect(r.stderr).toContain(`pulumi import --file ${out} --yes`);
  expect(r.stderr).toMatch(/Read standard input: a Terraform 1\.9\.8 state \(serial 12\), 15 object\(s\)/);
});

it("takes an aliased provider configuration's objects only with --alias", async () => {
  const aliased = terraformState([
    single("axiom_dataset", "logs", recorded.dataset, { provider: axiomProvider("eu") }),
    single("axiom_monitor", "m", recorded.errors0),
  ]);
  const file = writeState("aliased.tfstate", aliased);
  const plain = await runCli(["migrate", "terraform", file], { env: env() });
  expect(plain.code).toBe(0);
  expect((JSON.parse(plain.stdout) as ImportFileShape).resources.map((x) => x.id)).toEqual([
    made.monitors[0],
  ]);
  expect(plain.stderr).toMatch(
    /axiom_dataset\.logs: made through the provider configuration axiom\.eu.*--alias eu/,
  );
  const eu = await runCli(["migrate", "terraform", file, "--alias", "eu"], { env: env() });
  expect((JSON.parse(eu.stdout) as ImportFileShape).resources.map((x) => x.id)).toEqual([made.dataset]);
});

it("a provider configuration declared in a module: its objects are taken, and one not found is not called deleted", async () => {
  const inModule = `module.legacy.${axiomProvider()}`;
  const state = terraformState([
    single("axiom_monitor", "found", recorded.errors0, { module: "module.legacy", provider: inModule }),
    single(
      "axiom_monitor",
      "elsewhere",
      { ...recorded.errors1, id: "mon_in_another_org" },
      {
        module: "module.legacy",
        provider: inModule,
      },
    ),
  ]);
  const r = await runCli(["migrate", "terraform", writeState("module-provider.tfstate", state)], {
    env: env(),
  });
  expect(r.code).toBe(0);
  expect((JSON.parse(r.stdout) as ImportFileShape).resources.map((x) => x.id)).toEqual([made.monitors[0]]);
  expect(r.stderr).toContain(
    "module.legacy.axiom_monitor.elsewhere: the service these credentials reach has no Monitor mon_in_another_org; " +
      "it was made through the provider configuration that module.legacy declares, which may point at another organization",
  );
});

it("a token whose value Terraform's state does not hold: imported by id, and the command says what is lost and what to do", async () => {
  const tokenOnly = terraformState([single("axiom_token", "ci", { ...recorded.token, token: null })]);
  const r = await runCli(["migrate", "terraform", writeState("lost.tfstate", tokenOnly)], { env: env() });
  expect(r.code).toBe(0);
  const [spec] = (JSON.parse(r.stdout) as ImportFileShape).resources;
  expect(spec).toEqual({
    type: "observability:index:ApiToken",
    name: "ci",
    logicalName: "axiom_token.ci",
    id: made.token.id,
  });
  expect(r.stderr).toMatch(
    /axiom_token\.ci: Terraform's state holds no token, and the service never returns it again: the Pulumi state will not have it\..*rotate the token/,
  );
});

it("says when an instance was recorded under another schema version than the provider writes", async () => {
  const old = terraformState([
    single("axiom_monitor", "m", recorded.errors0, { schemaVersion: 0 }),
    // OpenTofu's registry names the same provider.
    single("axiom_dataset", "d", recorded.dataset, {
      provider: 'provider["registry.opentofu.org/axiomhq/axiom"]',
    }),
    single("axiom_dataset", "legacy", recorded.dataset, { provider: "provider.axiom" }),
  ]);
  const r = await runCli(["migrate", "terraform", writeState("schema.tfstate", old)], { env: env() });
  expect(r.code).toBe(0);
  expect(r.stderr).toContain(
    "axiom_monitor.m: recorded under schema version 0, where terraform-provider-axiom v1.6.1 writes 1",
  );
  expect((JSON.parse(r.stdout) as ImportFileShape).resources.map((x) => x.id).sort()).toEqual(
    [made.monitors[0], made.dataset].sort(),
  );
  expect(r.stderr).toMatch(
    /axiom_dataset\.legacy: recorded with the legacy provider address of Terraform 0\.12/,
  );
});

it("reads count and for_each as today's Terraform writes them, without `each`", async () => {
  const modern = terraformState([
    counted("axiom_monitor", "errors", [recorded.errors0, recorded.errors1], { each: undefined }),
    forEach("axiom_notifier", "oncall", { slack: recorded.slack }, { each: undefined }),
  ]);
  expect(JSON.stringify(modern)).not.toContain('"each"');
  const r = await runCli(["migrate", "terraform", writeState("modern.tfstate", modern)], { env: env() });
  expect(r.code).toBe(0);
  expect((JSON.parse(r.stdout) as ImportFileShape).resources.map((x) => x.name)).toEqual([
    "errors_0",
    "errors_1",
    "oncall_slack",
  ]);
});

describe("refusals: one line naming what is wrong, never a stack trace", () => {
  it.each([
    [
      "format 3",
      JSON.stringify({ version: 3, terraform_version: "0.11.14", modules: [] }),
      1,
      /version: format 3 is not read here: it was written by Terraform 0\.11 or older/,
    ],
    [
      "not JSON",
      'resource "axiom_dataset" "x" {}',
      1,
      /is not JSON( at line \d+, column \d+)?: is it a Terraform state\?/,
    ],
    [
      // V8's own message would quote the text beside the break: here, a token's value.
      "not JSON where a secret is",
      '{\n  "version": 4,\n  "token": xaat-0123456789abcdef0123\n}',
      1,
      /^(?!.*xaat-)(?!.*0123456789).*is not JSON( at line 3, column \d+)?: is it a Terraform state\?/,
    ],
    [
      "terraform show -json",
      JSON.stringify({ format_version: "1.0", terraform_version: "1.9.8", values: { root_module: {} } }),
      1,
      /`terraform show -json`.*not a state/,
    ],
    [
      "a broken instance",
      JSON.stringify({
        ...terraformState([]),
        resources: [
          {
            mode: "managed",
            type: "axiom_monitor",
            name: "m",
            provider: axiomProvider(),
            instances: [{ schema_version: 1 }],
          },
        ],
      }),
      1,
      /resources\[0\]\.instances\[0\]\.attributes: must be an object, not undefined/,
    ],
    [
      "an index key of the wrong kind",
      JSON.stringify(
        terraformState([
          {
            type: "axiom_monitor",
            name: "m",
            each: "list",
            instances: [{ attributes: { id: "x" }, indexKey: "a" }],
          },
        ]),
      ),
      1,
      /resources\[0\]\.instances\[0\]\.index_key: must be a count index/,
    ],
  ])("%s", async (_what, text, code, message) => {
    const r = await runCli(["migrate", "terraform", writeState("bad.tfstate", text)], { env: env() });
    expect(r.code).toBe(code);
    expect(oneLine(r.stderr)).toMatch(message);
    expect(r.stdout).toBe("");
  });

  it("--out and --rm-script naming one file (the script would replace the import file)", async () => {
    const out = join(tmp.path, "same.out");
    const r = await runCli(
      ["migrate", "terraform", writeState("same.tfstate", full), "--out", out, "--rm-script", out],
      { env: env() },
    );
    expect(r.code).toBe(2);
    expect(oneLine(r.stderr)).toMatch(/--out and --rm-script both name .*same\.out/);
  });

  it("--out over a file readable by others leaves it readable by this user alone", async () => {
    const out = join(tmp.path, "shared.json");
    writeFileSync(out, "{}", { mode: 0o644 });
    const r = await runCli(["migrate", "terraform", writeState("over.tfstate", full), "--out", out], {
      env: env(),
    });
    expect(r.code).toBe(0);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    expect(readFileSync(out, "utf8")).toContain(made.token.value);
  });

  it("--out naming the state file itself (which would lose it)", async () => {
    const file = writeState("keep.tfstate", full);
    const r = await runCli(["migrate", "terraform", file, "--out", file], { env: env() });
    expect(r.code).toBe(2);
    expect(oneLine(r.stderr)).toMatch(/--out .*keep\.tfstate is the state file itself/);
    expect(readFileSync(file, "utf8")).toBe(JSON.stringify(full, null, 2));
  });

  it("nothing to take: the report, then exit 1 and no import file", async () => {
    const r = await runCli(
      [
        "migrate",
        "terraform",
        writeState(
          "none.tfstate",
          terraformState([single("aws_s3_bucket", "b", { id: "b" }, { provider: AWS })]),
        ),
      ],
      { env: env() },
    );
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/aws_s3_bucket\.b: another provider's resource/);
    expect(r.stderr.trimEnd().split("\n").at(-1)).toMatch(
      /^observability migrate terraform: nothing to take: .* holds no object of terraform-provider-axiom that the service has$/,
    );
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
    expect(oneLine(r.stderr)).toMatch(
      /no token: set OBSERVABILITY_TOKEN, pass --token-file FILE, or --stack/,
    );
  });

  it("a token the service refuses: exit 1, and no secret of the state in the line", async () => {
    const r = await runCli(["migrate", "terraform", writeState("t.tfstate", full)], {
      env: { OBSERVABILITY_URL: em.current.url, OBSERVABILITY_TOKEN: "xaat-not-a-token-of-this-org" },
    });
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toMatch(/the service refused the token \(403/);
  });
});

it("two modules' resources of the same name: each named with its module path, and the report says why", async () => {
  const clash = terraformState([
    single("axiom_monitor", "errors", recorded.errors0, { module: "module.team_a" }),
    single("axiom_monitor", "errors", recorded.errors1, { module: "module.team_b" }),
  ]);
  const r = await runCli(["migrate", "terraform", writeState("clash.tfstate", clash)], { env: env() });
  expect(r.code).toBe(0);
  expect((JSON.parse(r.stdout) as ImportFileShape).resources.map((x) => [x.name, x.logicalName])).toEqual([
    ["team_a_errors", "module.team_a.axiom_monitor.errors"],
    ["team_b_errors", "module.team_b.axiom_monitor.errors"],
  ]);
  expect(r.stderr).toContain(
    `module.team_a.axiom_monitor.errors -> observability:index:Monitor team_a_errors (id ${made.monitors[0]}); its module path is in its name`,
  );
});

it("--rm-script writes the hand-over as a script that gives terraform each address as it is, quotes and all", async () => {
  const quotes = terraformState([forEach("axiom_monitor", "q", { 'it\'s "one"': recorded.errors0 })]);
  const script = join(tmp.path, "handover.sh");
  const r = await runCli(
    [
      "migrate",
      "terraform",
      writeState("quotes.tfstate", quotes),
      "--rm-script",
      script,
      "--out",
      join(tmp.path, "q.json"),
    ],
    { env: env() },
  );
  expect(r.code).toBe(0);
  // A terraform that prints the address it was given, one argument a line.
  const bin = join(tmp.path, "bin");
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, "terraform"), '#!/bin/sh\nshift 2\nprintf "%s\\n" "$@"\n', { mode: 0o755 });
  const given = execFileSync("sh", [script], {
    encoding: "utf8",
    env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ""}` },
  });
  expect(given).toBe(`axiom_monitor.q["it's \\"one\\""]\n`);
});

describe("a state with the awkward cases: each row's rule", () => {
  let project: AwkwardProject;
  let result: Awaited<ReturnType<typeof runCli>>;
  let file: ImportFileShape;
  let script: string;
  const lineOf = (address: string) =>
    result.stderr.split("\n").find((l) => l.startsWith(`  ${address}: `) || l.startsWith(`  ${address} -> `));

  beforeAll(async () => {
    project = await makeAwkwardTerraformProject(em.current, client);
    const rm = join(tmp.path, "awkward-handover.sh");
    result = await runCli(
      [
        "migrate",
        "terraform",
        writeState("awkward.tfstate", project.state),
        "--rm-script",
        rm,
        "--out",
        join(tmp.path, "awkward.json"),
      ],
      { env: env() },
    );
    file = JSON.parse(readFileSync(join(tmp.path, "awkward.json"), "utf8")) as ImportFileShape;
    script = readFileSync(rm, "utf8");
  });

  it("exits 0", () => {
    expect(result.code).toBe(0);
  });

  it("takes exactly the rows marked taken, each by its name, its address as the logical name", () => {
    const taken = project.rows.filter((r) => r.outcome === "taken");
    // Rows go by rule, the file in the state's order.
    expect(file.resources.map((r) => [r.logicalName, r.name]).sort()).toEqual(
      taken.map((r) => [r.logicalName ?? r.address, r.name]).sort(),
    );
  });

  it("every name is an identifier, and no two are alike, whatever their types", () => {
    const names = file.resources.map((r) => r.name);
    for (const name of names) expect(name).toMatch(/^[A-Za-z_][A-Za-z0-9_]*$/);
    expect(new Set(names).size).toBe(names.length);
  });

  it("reports each row as its rule says", () => {
    for (const row of project.rows) {
      const line = lineOf(row.address);
      expect({ row: row.rule, line }).toEqual({ row: row.rule, line: expect.any(String) });
      if (row.says)
        expect({ row: row.rule, line }).toEqual({ row: row.rule, line: expect.stringContaining(row.says) });
    }
    expect(result.stderr).toMatch(
      new RegExp(`Skipped \\(${project.rows.filter((r) => r.outcome === "kept").length}\\)`),
    );
    expect(result.stderr).toMatch(
      new RegExp(
        `Also forgotten by the hand-over \\(${project.rows.filter((r) => r.outcome === "forgotten").length}\\)`,
      ),
    );
  });

  it("the hand-over script forgets the taken rows' addresses and the forgotten ones', nothing else", () => {
    const addresses = project.rows
      .filter((r) => r.outcome !== "kept")
      .map((r) => r.address.replace(/ \(deposed object \w+\)$/, ""));
    expect(
      script
        .split("\n")
        .filter((l) => l.startsWith("terraform state rm "))
        .sort(),
    ).toEqual([...new Set(addresses)].map(stateRm).sort());
  });

  it("after the hand-over, every object the service has is in exactly one tool's state", async () => {
    const removed = script
      .split("\n")
      .filter((l) => l.startsWith("terraform state rm "))
      .map((l) => l.slice("terraform state rm '".length, -1).replace(/'\\''/g, "'"));
    const holders = await afterHandover(project.state, file.resources, removed, client);
    const notOne = Object.entries(holders).filter(([, h]) => h.length !== 1);
    expect(notOne).toEqual([]);
    // Every case is counted: objects kept by Terraform and objects taken by Pulumi.
    expect(Object.values(holders).filter((h) => h[0] === "pulumi")).toHaveLength(file.resources.length);
    expect(Object.values(holders).filter((h) => h[0] === "terraform").length).toBeGreaterThanOrEqual(4);
  });

  it("reports drift where the records differ, and none for a MatchEvent monitor's threshold Terraform records as 0", () => {
    const { address, path, terraform, service } = project.drifted;
    expect(result.stderr).toContain(`${address}: ${path} (Terraform ${terraform}, service ${service})`);
    expect(result.stderr).toMatch(/Drift \(1\)/);
    expect(result.stderr).not.toContain("threshold (Terraform 0");
  });

  it("says how to settle a live deposed object before the rm, quoting the address for a shell", () => {
    expect(lineOf('axiom_dataset.by_key["prod.eu"]')).toContain(
      `\`terraform apply -target='axiom_dataset.by_key["prod.eu"]'\` destroys a deposed object`,
    );
  });

  it("the Next text says what to run and what to delete", () => {
    expect(result.stderr).toContain(
      `5. Hand each object over: Terraform forgets it and the object stays. Run sh ${join(tmp.path, "awkward-handover.sh")}, which runs these commands, and delete the same resources' blocks from the Terraform code:`,
    );
  });
});

it("most objects not on the service: the report says the credentials may be for another organization", async () => {
  const state = terraformState([
    counted("axiom_monitor", "m", [
      recorded.errors0,
      { ...recorded.errors1, id: "mon_elsewhere_1" },
      { ...recorded.errors1, id: "mon_elsewhere_2" },
    ]),
  ]);
  const r = await runCli(["migrate", "terraform", writeState("elsewhere.tfstate", state)], { env: env() });
  expect(r.code).toBe(0);
  expect(r.stderr).toMatch(
    /2 of the 3 objects looked for are not on the service these credentials reach \(the environment\): .*likely for another organization/,
  );
  // One missing of three is a deletion, not a hint.
  const one = terraformState([
    counted("axiom_monitor", "m", [recorded.errors0, recorded.errors1, { ...recorded.errors1, id: "mon_x" }]),
  ]);
  const r2 = await runCli(["migrate", "terraform", writeState("one-missing.tfstate", one)], { env: env() });
  expect(r2.stderr).not.toContain("another organization than");
});

it("a module's own provider configuration is named as such when --alias selects another", async () => {
  const state = terraformState([
    single("axiom_monitor", "m", recorded.errors0, {
      module: "module.legacy",
      provider: `module.legacy.${axiomProvider()}`,
    }),
    single("axiom_dataset", "d", recorded.dataset, { provider: axiomProvider("eu") }),
  ]);
  const r = await runCli(["migrate", "terraform", writeState("own-config.tfstate", state), "--alias", "eu"], {
    env: env(),
  });
  expect(r.code).toBe(0);
  expect(r.stderr).toContain(
    "module.legacy.axiom_monitor.m: made through the provider configuration axiom that module.legacy declares, not axiom.eu",
  );
  expect(r.stderr).not.toContain("default provider configuration");
});

describe("names: identifiers every generator takes, unique across types, the address as the logical name", () => {
  const item = (name: string, module = "", indexKey?: number | string, type = "axiom_monitor") => ({
    module,
    mode: "managed" as const,
    type,
    name,
    ...(indexKey !== undefined ? { indexKey } : {}),
  });

  it("two modules with the same name each get their module path; the root one keeps the plain name", () => {
    expect(
      nameAll([
        item("errors"),
        item("errors", "module.team_a"),
        item("errors", 'module.team["b"].module.inner'),
      ]),
    ).toEqual([
      { name: "errors", logicalName: "axiom_monitor.errors" },
      { name: "team_a_errors", logicalName: "module.team_a.axiom_monitor.errors", renamed: "module" },
      {
        name: "team_b_inner_errors",
        logicalName: "module.team[b].module.inner.axiom_monitor.errors",
        renamed: "module",
      },
    ]);
  });

  it("names are unique across types: a monitor errors[0] and a dataset errors_0 are not both errors_0", () => {
    expect(nameAll([item("errors_0", "", undefined, "axiom_dataset"), item("errors", "", 0)])).toEqual([
      { name: "errors_0", logicalName: "axiom_dataset.errors_0" },
      { name: "errors_0_2", logicalName: "axiom_monitor.errors[0]", renamed: "numbered" },
    ]);
  });

  it("every instance of a module's resource carries the module path when one of them clashes", () => {
    const names = nameAll([item("x", "", 1), item("x", "module.m", 0), item("x", "module.m", 1)]);
    expect(names.map((n) => n.name)).toEqual(["x_1", "m_x_0", "m_x_1"]);
  });

  it("names alike only once made identifiers are numbered in the state's order", () => {
    expect(nameAll([item("a", "", "x.y"), item("a", "", "x_y")])).toEqual([
      { name: "a_x_y", logicalName: "axiom_monitor.a[x.y]" },
      { name: "a_x_y_2", logicalName: "axiom_monitor.a[x_y]", renamed: "numbered" },
    ]);
  });

  it.each([
    ["🚀", "_u1f680_", "an emoji, by its code point"],
    ["a\tb", "a_u9_b", "a tab"],
    ["a;b", "a_u3b_b", "`;`"],
    ["a?b", "a_u3f_b", "`?`, which HCL reads as a conditional"],
    ["é", "_ue9_", "a letter outside ASCII (Go's generator refuses marks the others take)"],
    ["a.b c-d", "a_b_c_d", "the converter's special characters, made _ as it does"],
    ["9lives", "_9lives", "a leading digit"],
    ["null", "_null", "an HCL literal"],
    ["for", "_for", "an HCL keyword"],
  ])("%j is %j: %s", (readable, name) => {
    expect(identifierOf(readable)).toBe(name);
    expect(isIdentifier(identifierOf(readable))).toBe(true);
  });

  it.each([
    ["x::y", "a_x_u3a__u3a_y", "`::`, a URN's separator"],
    ["${x}", "a___u7b_x_u7d_", "`$`, which Pulumi YAML reads"],
    ['say "hi"', "a_say__hi_", '`"`, which the Node.js and Python generators write unescaped'],
    ["back\\slash", "a_back_slash", "`\\`"],
    ["line\nbreak", "a_line_ua_break", "a line break"],
    ["tab\there", "a_tab_u9_here", "a tab"],
    ["[x]", "a__u5b_x_u5d_", "brackets, which would make two bare addresses alike"],
  ])("a key holding %j takes the name %j as the logical name: %s", (key, name) => {
    expect(nameAll([item("a", "", key)])[0]).toEqual({ name, logicalName: name });
  });

  it("a key every generator can write stays in the logical name, bare: an emoji, `;`, `?`, spaces, `'`", () => {
    expect(nameAll([item("a", 'module.m["x y"]', "🚀 it's; ok?")])[0].logicalName).toBe(
      "module.m[x y].axiom_monitor.a[🚀 it's; ok?]",
    );
  });
});

describe("addresses as Terraform writes them (hashicorp/terraform internal/addrs/instance_key.go, toHCLQuotedString)", () => {
  it.each([
    ["pager.duty", '"pager.duty"'],
    ['it\'s "q"', '"it\'s \\"q\\""'],
    ["a\tb\nc\rd", '"a\\tb\\nc\\rd"'],
    ["back\\slash", '"back\\\\slash"'],
    ["${v} %{if} $x %y", '"$${v} %%{if} $x %y"'],
    ["🚀 go", '"🚀 go"'],
    ["nbsp\u00a0here", '"nbsp\\u00a0here"'],
    ["\u{e0001}", '"\\U000e0001"'],
  ])("%j is quoted %s, and read back", (key, quoted) => {
    expect(hclQuoted(key)).toBe(quoted);
    expect(hclUnquoted(quoted.slice(1, -1))).toBe(key);
  });
});

it("a state of 1,000 objects is checked with one listing per family, not a request per object", async () => {
  const monitors = [];
  for (let i = 0; i < 600; i++)
    monitors.push(await createAsTerraform(em.current, "axiom_monitor", monitorConfig(`bulk ${i}`, i)));
  const datasets: Record<string, Record<string, unknown>> = {};
  for (let i = 0; i < 350; i++)
    datasets[`bulk-${i}`] = await createAsTerraform(em.current, "axiom_dataset", { name: `bulk-${i}` });
  // Virtual fields are listed per dataset (the API lists them under one): 50 fields in 2 datasets, 2 listings.
  const fields = [];
  for (let i = 0; i < 50; i++)
    fields.push(
      await createAsTerraform(em.current, "axiom_virtual_field", {
        dataset: `bulk-${i % 2}`,
        name: `f${i}`,
        expression: "a + b",
      }),
    );
  const file = writeState(
    "bulk.tfstate",
    terraformState([
      counted("axiom_monitor", "bulk", monitors),
      forEach("axiom_dataset", "bulk", datasets),
      counted("axiom_virtual_field", "bulk", fields),
    ]),
  );
  em.current.received.length = 0;
  const started = performance.now();
  const r = await runCli(["migrate", "terraform", file, "--out", join(tmp.path, "bulk.json")], {
    env: env(),
  });
  const ms = performance.now() - started;
  expect(r.code).toBe(0);
  expect(r.stderr).toMatch(/Taken \(1000\)/);
  const requests = em.current.received.map((q) => `${q.method} ${q.path}`);
  expect(requests.sort()).toEqual([
    "GET /v2/datasets",
    "GET /v2/monitors",
    "GET /v2/vfields",
    "GET /v2/vfields",
  ]);
  expect(
    em.current.received
      .filter((q) => q.path === "/v2/vfields")
      .map((q) => q.query.dataset)
      .sort(),
  ).toEqual(["bulk-0", "bulk-1"]);
  console.log(`migrate terraform: 1,000 objects checked in ${Math.round(ms)} ms (the whole process)`);
}, 120_000);
