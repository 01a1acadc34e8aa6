/**
 * examples/team-access, run for real: its view, roles, users and group must exist in the emulator as the program
 * declares them (the group wiring the users to the roles by id), the organization must carry the new name, and an
 * unchanged second pass must diff as no change.
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

  it("creates the view the roles name, before the roles", async () => {
    const view = await run.client.views.get(run.first.exports.viewName as string);
    expect(view).toMatchObject({ name: "checkout-errors", datasets: ["http-logs"] });
    for (const role of ofKind(run.first, "Role"))
      expect(role.dependencies).toContain("pulumi-nodejs:dynamic/observability:View::checkout-errors");
  });

  it("invites the two users with their base roles", async () => {
    const ids = run.first.exports.userIds as Record<string, string>;
    const alice = await run.client.users.get(ids.alice);
    const bob = await run.client.users.get(ids.bob);
    expect(alice).toMatchObject({ email: "alice@example.com", role: { id: "user" } });
    expect(bob).toMatchObject({ email: "bob@example.com", role: { id: "read-only" } });
    expect(ofKind(run.first, "User")).toHaveLength(2);
  });

  it("the on-call group holds exactly the two users and both roles, wired by id", async () => {
    const users = run.first.exports.userIds as Record<string, string>;
    const roles = run.first.exports.roleIds as Record<string, string>;
    const group = await run.client.groups.get(run.first.exports.groupId as string);
    expect(group.name).toBe("oncall");
    expect([...(group.members ?? [])].sort()).toEqual([users.alice, users.bob].sort());
    expect([...(group.roles ?? [])].sort()).toEqual([roles.sre, roles.support].sort());
    const [declared] = ofKind(run.first, "Group");
    for (const dep of ["User::alice", "User::bob", "Role::sre", "Role::support-readonly"])
      expect(declared.dependencies).toContain(`pulumi-nodejs:dynamic/observability:${dep}`);
  });

  it("renames the organization and outputs the new name", async () => {
    expect(originalOrgName).toEqual(expect.any(String));
    expect(originalOrgName).not.toBe(ORG_NAME);
    expect((await run.client.orgs.get(run.em.orgId)).name).toBe(ORG_NAME);
    expect(run.first.exports.organizationName).toBe(ORG_NAME);
    expect(ofKind(run.first, "OrganizationName")).toHaveLength(1);
  });

  it("a second pass of check and diff over the same program reports no changes", async () => {
    expect(run.first.registrations).toHaveLength(7);
    expect(run.diffs).toHaveLength(7);
    expect(run.diffs.filter((d) => d.changed || d.replaces.length > 0)).toEqual([]);
    expect(run.second.registrations.map((r) => r.id).sort()).toEqual(
      run.first.registrations.map((r) => r.id).sort(),
    );
    expect(await run.client.roles.list()).toHaveLength(2);
  });
});
