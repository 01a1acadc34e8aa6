/**
 * The 100 resources of four kinds that the recovery runs declare (test/e2e-native/recover.test.ts): 25 datasets,
 * 25 monitors, 25 notifiers and 25 roles, every body different, so that each object on the service belongs to
 * exactly one declaration. Shared by the YAML program and the dynamic resources' program.
 */

/** Per kind. */
export const PER_KIND = 25;
export const KINDS = ["Dataset", "Monitor", "Notifier", "Role"] as const;
export type Kind = (typeof KINDS)[number];

/** One declared resource: its logical name, kind and inputs. */
export interface Declared {
  name: string;
  kind: Kind;
  inputs: Record<string, unknown>;
}

/** Every declared resource, in declaration order (kinds interleaved, so any prefix mixes them). */
export function declared(): Declared[] {
  const out: Declared[] = [];
  for (let i = 0; i < PER_KIND; i++) {
    out.push({
      name: `ds-${i}`,
      kind: "Dataset",
      inputs: { name: `rc-logs-${i}`, description: `recovery ${i}` },
    });
    out.push({
      name: `mon-${i}`,
      kind: "Monitor",
      inputs: {
        name: `recovery monitor ${i}`,
        type: "MatchEvent",
        aplQuery: `['rc-logs-${i}'] | where level == 'panic'`,
        intervalMinutes: 1,
        rangeMinutes: 1,
      },
    });
    out.push({
      name: `ntf-${i}`,
      kind: "Notifier",
      inputs: {
        name: `recovery notifier ${i}`,
        properties: { slack: { slackUrl: `https://hooks.slack.test/RECOVERY-${i}` } },
      },
    });
    out.push({
      name: `role-${i}`,
      kind: "Role",
      inputs: {
        name: `recovery role ${i}`,
        description: `reads monitors ${i}`,
        orgCapabilities: { monitors: ["read"] },
      },
    });
  }
  return out;
}

/** The declarations as a Pulumi YAML program of the native provider. */
export function yamlProgram(project: string): string {
  const lines = [`name: ${project}`, "runtime: yaml", "resources:"];
  for (const r of declared()) {
    // JSON is YAML's flow style.
    lines.push(
      `  ${r.name}:`,
      `    type: observability:${r.kind}`,
      `    properties: ${JSON.stringify(r.inputs)}`,
    );
  }
  return `${lines.join("\n")}\n`;
}
