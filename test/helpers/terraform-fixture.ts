/**
 * The Terraform project the migration tests take over (test/cli/migrate-terraform.test.ts, and the page's test
 * under the real engine): one of each of terraform-provider-axiom's seven types, made on the emulator as that
 * provider makes them, and the state recording every case a migration meets: count, for_each (a key with a dot),
 * modules (one whose resource name another uses too), a data source, another provider's resource, a tainted and a
 * deposed instance, and an object deleted since. Objects and state come from test/helpers/terraform.ts.
 */
import type { ObservabilityClient } from "../../provider/client";
import {
  counted,
  createAsTerraform,
  forEach,
  single,
  terraformState,
  type Service,
  type TerraformState,
} from "./terraform";

// Real-looking credentials: none may appear anywhere but where the import file must carry one as a secret.
export const SLACK_URL = "https://hooks.slack.com/services/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";
export const ROUTING_KEY = "R0uT1nGk3y5ecr3tA8c9D0e1F2a3B4c5";
export const OTHER_SLACK = "https://hooks.slack.com/services/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01";

/** The AWS provider's default configuration, for another provider's resource. */
export const AWS = 'provider["registry.terraform.io/hashicorp/aws"]';

/** A monitor's configuration, as a `.tf` block sets it. */
export const monitorConfig = (name: string, threshold: number) => ({
  name,
  type: "Threshold",
  apl_query: "['tf-logs'] | count",
  operator: "Above",
  threshold,
  interval_minutes: 5,
  range_minutes: 5,
});

/** The ids of what {@link makeTerraformProject} made, and the token's value. */
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

/** Every attribute recorded for each object made, by a name of the test's. */
export type Recorded = Record<string, Record<string, unknown>>;

/**
 * Makes the objects on `service` as terraform-provider-axiom's creates make them, and returns the state recording
 * them, with one monitor deleted since (still in the state).
 */
export async function makeTerraformProject(
  service: Service,
  client: ObservabilityClient,
): Promise<{ made: TerraformMade; recorded: Recorded; state: TerraformState }> {
  const tf = (type: string, config: Record<string, unknown>) => createAsTerraform(service, type, config);
  const recorded: Recorded = {
    dataset: await tf("axiom_dataset", { name: "tf-logs", description: "from terraform" }),
    errors0: await tf("axiom_monitor", monitorConfig("errors 0", 10)),
    errors1: await tf("axiom_monitor", monitorConfig("errors 1", 20)),
    team: await tf("axiom_monitor", monitorConfig("team errors", 30)),
    gone: await tf("axiom_monitor", monitorConfig("gone", 1)),
    // Objects of their own: a tainted or deposed record of an object taken elsewhere is another case
    // (test/helpers/terraform-awkward.ts).
    shaky: await tf("axiom_monitor", monitorConfig("shaky", 2)),
    swapped: await tf("axiom_monitor", monitorConfig("swapped", 3)),
    slack: await tf("axiom_notifier", {
      name: "oncall-slack",
      properties: { slack: { slack_url: SLACK_URL } },
    }),
    pagerduty: await tf("axiom_notifier", {
      name: "oncall-pd",
      properties: { pagerduty: { routing_key: ROUTING_KEY } },
    }),
    token: await tf("axiom_token", {
      name: "ci",
      dataset_capabilities: { "tf-logs": { ingest: ["create"] } },
    }),
    vfield: await tf("axiom_virtual_field", { dataset: "tf-logs", name: "dur", expression: "a + b" }),
    user: await tf("axiom_user", { name: "Ada Lovelace", email: "ada@example.com", role: "user" }),
    dashboard: await tf("axiom_dashboard", {
      uid: "tf-board",
      dashboard: {
        name: "Terraform board",
        owner: "X-AXIOM-EVERYONE",
        charts: [{ id: "note", type: "Note", text: "made by terraform" }],
        layout: [{ i: "note", x: 0, y: 0, w: 12, h: 2 }],
        refreshTime: 60,
        schemaVersion: 2,
        timeWindowStart: "qr-now-1h",
        timeWindowEnd: "qr-now",
      },
    }),
  };
  await client.monitors.delete(String(recorded.gone.id));
  const id = (name: string) => String(recorded[name].id);
  const made: TerraformMade = {
    dataset: id("dataset"),
    monitors: [id("errors0"), id("errors1")],
    slack: id("slack"),
    pagerduty: id("pagerduty"),
    token: { id: id("token"), value: String(recorded.token.token) },
    vfield: id("vfield"),
    deleted: id("gone"),
    moduleMonitor: id("team"),
    user: id("user"),
    dashboard: id("dashboard"),
  };
  const state = terraformState(
    [
      single("axiom_dataset", "logs", recorded.dataset),
      counted("axiom_monitor", "errors", [recorded.errors0, recorded.errors1]),
      forEach("axiom_notifier", "oncall", { slack: recorded.slack, "pager.duty": recorded.pagerduty }),
      single("axiom_token", "ci", recorded.token),
      single("axiom_user", "ada", recorded.user),
      single("axiom_dashboard", "board", recorded.dashboard),
      single("axiom_virtual_field", "dur", recorded.vfield, { module: "module.fields" }),
      single("axiom_monitor", "errors", recorded.team, { module: 'module.team["a"]' }),
      single("axiom_monitor", "old", recorded.gone),
      single("axiom_monitor", "shaky", recorded.shaky, { tainted: true }),
      single("axiom_monitor", "swapped", recorded.swapped, { deposed: "0a1b2c3d" }),
      single("axiom_dataset", "existing", { ...recorded.dataset }, { mode: "data" }),
      single(
        "aws_s3_bucket",
        "archive",
        { id: "archive-bucket", bucket: "archive-bucket" },
        { provider: AWS },
      ),
    ],
    { serial: 12, terraformVersion: "1.9.8" },
  );
  return { made, recorded, state };
}
