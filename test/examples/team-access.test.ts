/**
 * examples/team-access, run for real: its roles must exist in the emulator with the capabilities the program
 * declares, the organization must carry the new name, and an unchanged second pass must diff as no change.
 */
import { useExampleRun } from "./harness";
import { ofKind } from "./program";

const ORG_NAME = "Team Access Test Org";
let originalOrgName: string | undefined;

const run = useExampleRun({
  example: "team-access",
  async prepare(client, em) {
    originalOrgName = (await client.orgs.get(em.orgId)).name;
    return { plain: { orgName: ORG_NAME, sreMembers: JSON.stringify(["usr_alice", "usr_bob"]) } };
  },
});

const CRUD = ["create", "delete", "read", "update"];
/** Capability maps compared without regard to the order of actions. */
function normalized(caps: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(caps ?? {})) {
    out[k] = Array.isArray(v) ? [...v].sort() : normalized(v as Record<string, unknown>);
  }
  return out;
}

describe("examples/team-access", () => {
  it("creates the sre role with its org, dataset and view capabilities and its members", async () => {
    const role = await run.client.roles.get((run.first.exports.roleIds as Record<string, string>).sre);
    expect(role.name).toBe("sre");
    expect([...(role.members ?? [])].sort()).toEqual(["usr_alice", "usr_bob"]);
    expect(normalized(role.orgCapabilities)).toEqual({
      monitors: CRUD,
      notifiers: CRUD,
      annotations: CRUD,
      dashboards: ["create", "read", "update"],
      datasets: ["read"],
      auditLog: ["read"],
      billing: ["read"],
    });
    expect(normalized(role.datasetCapabilities)).toEqual({
      "http-logs": { ingest: ["create"], query: ["read"], starredQueries: CRUD, trim: ["update"] },
      "app-logs": { ingest: ["create"], query: ["read"], starredQueries: CRUD },
    });
    expect(normalized(role.viewCapabilities)).toEqual({
      "checkout-errors": { query: ["read"], share: ["create", "delete", "read"] },
    });
  });

  it("creates the read-only support role with nothing beyond reads", async () => {
    const role = await run.client.roles.get((run.first.exports.roleIds as Record<string, string>).support);
    expect(role.name).toBe("support-readonly");
    const actions = [
      ...Object.values(role.orgCapabilities ?? {}),
      ...Object.values(role.datasetCapabilities ?? {}).flatMap((c) => Object.values(c)),
      ...Object.values(role.viewCapabilities ?? {}).flatMap((c) => Object.values(c)),
    ].flat();
    expect(actions.length).toBeGreaterThan(0);
    expect(new Set(actions)).toEqual(new Set(["read"]));
    expect((await run.client.roles.list()).map((r) => r.name).sort()).toEqual(["sre", "support-readonly"]);
  });

  it("renames the organization and outputs the new name", async () => {
    expect(originalOrgName).toEqual(expect.any(String));
    expect(originalOrgName).not.toBe(ORG_NAME);
    expect((await run.client.orgs.get(run.em.orgId)).name).toBe(ORG_NAME);
    expect(run.first.exports.organizationName).toBe(ORG_NAME);
    expect(ofKind(run.first, "OrganizationName")).toHaveLength(1);
  });

  it("a second pass of check and diff over the same program reports no changes", async () => {
    expect(run.first.registrations).toHaveLength(3);
    expect(run.diffs).toHaveLength(3);
    expect(run.diffs.filter((d) => d.changed || d.replaces.length > 0)).toEqual([]);
    expect(run.second.registrations.map((r) => r.id).sort()).toEqual(
      run.first.registrations.map((r) => r.id).sort(),
    );
    expect(await run.client.roles.list()).toHaveLength(2);
  });
});
