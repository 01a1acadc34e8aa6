/**
 * A Terraform project with the awkward cases a real state holds, for the migration's tests (test/cli/
 * migrate-terraform.test.ts, and test/e2e-native/terraform-migration-awkward.test.ts under the real engine):
 * for_each keys with an emoji, a tab, `;`, `?`, `.`, spaces, quotes, a line break and template introducers; count;
 * nested modules whose resources share a name; a provider alias; a module that declares its own provider
 * configuration; tainted, deposed, duplicate, deleted and drifted objects; MatchEvent monitors, whose threshold the
 * service leaves out and Terraform records as 0. Objects are made on the emulator as terraform-provider-axiom makes
 * them, and the state as Terraform writes it (test/helpers/terraform.ts).
 *
 * {@link AwkwardRow}s name, for each object of the state, the rule it shows and what the migration does with it; and
 * {@link afterHandover} says, for every object the service has, which tools' states hold it once step 5 is done.
 */
import { parseState, type StateInstance } from "../../cli/migrate/tfstate";
import { addressOf } from "../../cli/migrate/tfstate";
import type { ObservabilityClient } from "../../provider/client";
import { TERRAFORM_RESOURCES } from "../../provider/terraform";
import { api } from "./emulator";
import { serviceContents } from "./service-contents";
import type { RunningEmulator } from "../../emulator";
import {
  axiomProvider,
  counted,
  createAsTerraform,
  forEach,
  single,
  terraformState,
  type Service,
  type StateResource,
  type TerraformState,
} from "./terraform";
import { AWS, monitorConfig } from "./terraform-fixture";

/** What the migration does with one object of the state. */
export interface AwkwardRow {
  /** The object's address as Terraform writes it (a deposed object's key after it). */
  address: string;
  /** The rule it shows. */
  rule: string;
  /**
   * `taken`: into the import file, its address handed over; `forgotten`: not imported, but its record is handed
   * over with a taken object's; `kept`: Terraform keeps it.
   */
  outcome: "taken" | "forgotten" | "kept";
  /** For one taken, its name in the program. */
  name?: string;
  /** For one taken, the name in its URN where that is not its address (cli/migrate/names.ts). */
  logicalName?: string;
  /** A part of the report's line for it. */
  says?: string;
}

/** The for_each keys of the MatchEvent monitors, each with the name it gets. */
export const AWKWARD_KEYS: readonly [
  key: string,
  name: string,
  logicalName: string | undefined,
  rule: string,
][] = [
  [
    "🚀 launch",
    "channel__u1f680__launch",
    "axiom_monitor.channel[🚀 launch]",
    "an emoji is encoded by its code point, a space made _",
  ],
  [
    "tab\there",
    "channel_tab_u9_here",
    undefined,
    "a tab is encoded; no generator can write it in the logical name",
  ],
  ["semi;colon", "channel_semi_u3b_colon", "axiom_monitor.channel[semi;colon]", "`;` is encoded"],
  [
    "new line?no",
    "channel_new_line_u3f_no",
    "axiom_monitor.channel[new line?no]",
    "`?` is encoded (HCL would read a conditional)",
  ],
  [
    "pager.duty",
    "channel_pager_duty",
    "axiom_monitor.channel[pager.duty]",
    "`.` is made _, as Pulumi's converter does",
  ],
  ["on call", "channel_on_call", "axiom_monitor.channel[on call]", "a space is made _"],
  [
    `it's "quoted"`,
    "channel_it_s__quoted_",
    undefined,
    'quotes are made _; the Node.js and Python generators would not escape the `"`',
  ],
  ["line\nbreak", "channel_line_ua_break", undefined, "a line break is encoded"],
  [
    "${var} %{if}",
    "channel___u7b_var_u7d____u7b_if_u7d_",
    undefined,
    "template introducers are escaped in the address, mapped in the name; Pulumi YAML would read the `$`",
  ],
];

/** The objects made, and the state with the rows that say what becomes of each. */
export interface AwkwardProject {
  state: TerraformState;
  rows: AwkwardRow[];
  /** The ids of the objects that drift: the monitor whose threshold Terraform records otherwise. */
  drifted: { address: string; path: string; terraform: string; service: string };
}

/**
 * Makes the awkward project's objects on `service` and returns the state recording them (and some the service no
 * longer has), with a row for each object.
 */
export async function makeAwkwardTerraformProject(
  service: Service,
  client: ObservabilityClient,
): Promise<AwkwardProject> {
  const tf = (type: string, config: Record<string, unknown>) => createAsTerraform(service, type, config);
  const dataset = (name: string) => tf("axiom_dataset", { name });
  // A MatchEvent monitor: Terraform sends and records threshold 0; the service keeps no threshold for one (a PUT
  // without it stands for the service's answer that the trial met).
  const matchEvent = async (name: string) => {
    const attrs = await tf("axiom_monitor", {
      name,
      type: "MatchEvent",
      apl_query: "['tf-aw-logs-0'] | where level == 'error'",
    });
    const got = await api(service as RunningEmulator, "GET", `/v2/monitors/${String(attrs.id)}`);
    const rest = { ...(got.body as Record<string, unknown>) };
    for (const key of ["threshold", "id", "createdAt", "createdBy"]) delete rest[key];
    const put = await api(service as RunningEmulator, "PUT", `/v2/monitors/${String(attrs.id)}`, rest);
    if (put.status !== 200) throw new Error(`PUT monitor answered ${put.status}: ${put.text}`);
    if ("threshold" in (put.body as object)) throw new Error("the emulator kept a threshold");
    return attrs;
  };

  const logs0 = await dataset("tf-aw-logs-0");
  const logs1 = await dataset("tf-aw-logs-1");
  const errorsDataset = await dataset("tf-aw-errors");
  const prodEu = await dataset("tf-aw-prod-eu");
  const prodEuOld = await dataset("tf-aw-prod-eu-old");
  const staging = await dataset("tf-aw-staging");
  const stagingOld = await dataset("tf-aw-staging-old");
  await client.datasets.delete("tf-aw-staging-old");
  const euLogs = await dataset("tf-aw-eu-logs");

  const errors0 = await tf("axiom_monitor", monitorConfig("aw errors 0", 10));
  const errors1 = await tf("axiom_monitor", monitorConfig("aw errors 1", 20));
  const shaky = await tf("axiom_monitor", monitorConfig("aw shaky", 5));
  const gone = await tf("axiom_monitor", monitorConfig("aw gone", 1));
  await client.monitors.delete(String(gone.id));
  const alertsAB = await tf("axiom_monitor", monitorConfig("aw team a b alerts", 3));
  const alertsC = await tf("axiom_monitor", monitorConfig("aw team c alerts", 4));
  const legacyFound = await tf("axiom_monitor", monitorConfig("aw legacy", 7));
  const channels: Record<string, Record<string, unknown>> = {};
  for (const [key] of AWKWARD_KEYS) channels[key] = await matchEvent(`aw channel ${key}`);

  const legacyProvider = `module.legacy.${axiomProvider()}`;
  const resources: StateResource[] = [
    counted("axiom_dataset", "logs", [logs0, logs1]),
    single("axiom_dataset", "dup", logs1),
    single("axiom_dataset", "errors_0", errorsDataset),
    {
      type: "axiom_dataset",
      name: "by_key",
      each: "map",
      instances: [
        { attributes: prodEu, indexKey: "prod.eu" },
        { attributes: prodEuOld, indexKey: "prod.eu", deposed: "00c0ffee" },
        { attributes: staging, indexKey: "staging" },
        { attributes: stagingOld, indexKey: "staging", deposed: "0dead0ff" },
      ],
    },
    single("axiom_dataset", "eu_logs", euLogs, { provider: axiomProvider("eu") }),
    // errors[1]: Terraform's record says 99, the service 20.
    counted("axiom_monitor", "errors", [errors0, { ...errors1, threshold: 99 }]),
    single("axiom_monitor", "shadow", errors0, { tainted: true }),
    single("axiom_monitor", "shaky", shaky, { tainted: true }),
    single("axiom_monitor", "old", gone),
    forEach("axiom_monitor", "channel", channels),
    single("axiom_monitor", "alerts", alertsAB, { module: 'module.team["a b"].module.inner' }),
    single("axiom_monitor", "alerts", alertsC, { module: 'module.team["c"].module.inner', tainted: true }),
    single("axiom_monitor", "found", legacyFound, { module: "module.legacy", provider: legacyProvider }),
    single(
      "axiom_monitor",
      "elsewhere",
      { ...errors1, id: "mon_in_another_org" },
      { module: "module.legacy", provider: legacyProvider },
    ),
    single("axiom_dataset", "existing", logs0, { mode: "data" }),
    single("aws_s3_bucket", "archive", { id: "archive", bucket: "archive" }, { provider: AWS }),
  ];
  const state = terraformState(resources, { serial: 41, terraformVersion: "1.9.8" });

  const rows: AwkwardRow[] = [
    {
      address: "axiom_dataset.logs[0]",
      rule: "count: the index in the name",
      outcome: "taken",
      name: "logs_0",
    },
    {
      address: "axiom_dataset.dup",
      rule: "the first record of an object, in the state's order, takes it",
      outcome: "taken",
      name: "dup",
    },
    {
      address: "axiom_dataset.logs[1]",
      rule: "a second resource holding an object already taken is handed over too",
      outcome: "forgotten",
      says: "the same object (Dataset tf-aw-logs-1) as axiom_dataset.dup, which is taken",
    },
    {
      address: "axiom_dataset.errors_0",
      rule: "names are unique across types: the dataset keeps errors_0, the monitor errors[0] is numbered",
      outcome: "taken",
      name: "errors_0",
    },
    {
      address: 'axiom_dataset.by_key["prod.eu"]',
      rule: "an address that also records a live deposed object is not handed over: the rm would forget both",
      outcome: "kept",
      says: "not taken: its address also records the deposed object 00c0ffee (Dataset tf-aw-prod-eu-old, which the service still has)",
    },
    {
      address: 'axiom_dataset.by_key["prod.eu"] (deposed object 00c0ffee)',
      rule: "a deposed object the service has stays with Terraform, which deletes it",
      outcome: "kept",
      says: "a deposed object",
    },
    {
      address: 'axiom_dataset.by_key["staging"]',
      rule: "a deposed object the service no longer has does not hold its address back",
      outcome: "taken",
      name: "by_key_staging",
      logicalName: "axiom_dataset.by_key[staging]",
    },
    {
      address: 'axiom_dataset.by_key["staging"] (deposed object 0dead0ff)',
      rule: "the record of a deposed object gone from the service is forgotten with its address",
      outcome: "forgotten",
      says: "a deposed object the service no longer has (Dataset tf-aw-staging-old)",
    },
    {
      address: "axiom_dataset.eu_logs",
      rule: "an aliased provider configuration is migrated on its own (--alias)",
      outcome: "kept",
      says: "made through the provider configuration axiom.eu",
    },
    {
      address: "axiom_monitor.errors[0]",
      rule: "numbered: a dataset already holds errors_0",
      outcome: "taken",
      name: "errors_0_2",
    },
    {
      address: "axiom_monitor.errors[1]",
      rule: "drift is reported, the service's value imported",
      outcome: "taken",
      name: "errors_1",
    },
    {
      address: "axiom_monitor.shadow",
      rule: "a tainted record of an object taken elsewhere is forgotten, or Terraform would replace Pulumi's object",
      outcome: "forgotten",
      says: "tainted, and the same object",
    },
    {
      address: "axiom_monitor.shaky",
      rule: "tainted: settled in Terraform first",
      outcome: "kept",
      says: "tainted: Terraform would replace it",
    },
    {
      address: "axiom_monitor.old",
      rule: "deleted since: nothing to take",
      outcome: "kept",
      says: "the service no longer has Monitor",
    },
    ...AWKWARD_KEYS.map(([key, name, logicalName, rule]): AwkwardRow => ({
      address: addressOf({
        module: "",
        mode: "managed",
        type: "axiom_monitor",
        name: "channel",
        indexKey: key,
      }),
      rule: `for_each: ${rule}; a MatchEvent monitor's threshold is no drift`,
      outcome: "taken",
      name,
      logicalName: logicalName ?? name,
    })),
    {
      address: 'module.team["a b"].module.inner.axiom_monitor.alerts',
      rule: "nested modules: the module path where two resources share a name, though the other is skipped",
      outcome: "taken",
      name: "team_a_b_inner_alerts",
      logicalName: "module.team[a b].module.inner.axiom_monitor.alerts",
    },
    {
      address: 'module.team["c"].module.inner.axiom_monitor.alerts',
      rule: "a tainted sibling keeps its own record",
      outcome: "kept",
      says: "tainted",
    },
    {
      address: "module.legacy.axiom_monitor.found",
      rule: "a module's own provider configuration: taken with these credentials",
      outcome: "taken",
      name: "found",
    },
    {
      address: "module.legacy.axiom_monitor.elsewhere",
      rule: "not found under a module's own provider configuration: maybe another organization, not deleted",
      outcome: "kept",
      says: "that module.legacy declares, which may point at another organization",
    },
    { address: "data.axiom_dataset.existing", rule: "a data source", outcome: "kept", says: "a data source" },
    {
      address: "aws_s3_bucket.archive",
      rule: "another provider's resource",
      outcome: "kept",
      says: "another provider's resource",
    },
  ];
  return {
    state,
    rows,
    drifted: { address: "axiom_monitor.errors[1]", path: "threshold", terraform: "99", service: "20" },
  };
}

/** The service's family of each Terraform type, as {@link serviceContents} names them. */
const FAMILY: Record<string, string> = {
  axiom_dataset: "datasets",
  axiom_monitor: "monitors",
  axiom_notifier: "notifiers",
  axiom_token: "tokens",
  axiom_user: "users",
  axiom_virtual_field: "virtualFields",
  axiom_dashboard: "dashboards",
};

/**
 * Which tools' states hold each object the service has and the state records, once step 5 is done: Terraform's,
 * what is left of its state after `terraform state rm` of each of `removed` (which forgets every object at the
 * address); Pulumi's, the import file's resources. Keyed `<Terraform type> <id>`.
 */
export async function afterHandover(
  state: TerraformState,
  imported: { type: string; id: string }[],
  removed: string[],
  client: ObservabilityClient,
): Promise<Record<string, ("terraform" | "pulumi")[]>> {
  const contents = await serviceContents(client);
  const instances = parseState(JSON.stringify(state), "the state").instances.filter(
    (i) => i.mode === "managed" && TERRAFORM_RESOURCES.has(i.type),
  );
  const idOf = (i: StateInstance) => TERRAFORM_RESOURCES.get(i.type)!.importId(i.attributes);
  const gone = new Set(removed);
  const out: Record<string, ("terraform" | "pulumi")[]> = {};
  for (const i of instances) {
    const id = idOf(i);
    if (!contents[FAMILY[i.type]].includes(id)) continue;
    const key = `${i.type} ${id}`;
    const token = TERRAFORM_RESOURCES.get(i.type)!.token;
    const holders = new Set<"terraform" | "pulumi">();
    for (const j of instances)
      if (j.type === i.type && idOf(j) === id && !gone.has(addressOf(j))) holders.add("terraform");
    if (imported.some((r) => r.type === token && r.id === id)) holders.add("pulumi");
    out[key] = [...holders].sort();
  }
  return out;
}
