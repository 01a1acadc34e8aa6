/** examples/team-access, deployed by the real engine (lifecycle.mts). */
import { exampleLifecycle, id } from "../lifecycle.mts";

exampleLifecycle({
  example: "team-access",
  config: async (_client, em) => ({
    plain: { "observability:orgId": em.orgId, orgName: "E2E Org" },
    secret: {},
  }),
  // A role's description edited, and a member taken out of the on-call group, by hand.
  driftUpdates: 2,
  drift: async (client, outputs) => {
    const roleId = id(outputs, "roleIds", "sre");
    const before = await client.roles.get(roleId);
    await client.roles.update(roleId, { ...before, description: "edited by hand" });
    const groupId = id(outputs, "groupId");
    const group = await client.groups.get(groupId);
    const bob = id(outputs, "userIds", "bob");
    await client.groups.update(groupId, {
      name: group.name,
      description: group.description,
      roles: group.roles,
      members: (group.members as string[]).filter((m) => m !== bob),
    });
    return async () => {
      expect((await client.roles.get(roleId)).description).toBe(before.description);
      expect((await client.groups.get(groupId)).members).toContain(bob);
    };
  },
  // The organization's name comes from the stack's config; only the OrganizationName changes.
  edit: {
    config: { orgName: "E2E Org (renamed)" },
    check: async (client, outputs, em) => {
      expect((await client.orgs.get(em.orgId)).name).toBe("E2E Org (renamed)");
      expect(outputs.organizationName).toBe("E2E Org (renamed)");
    },
  },
});
