/** OrganizationName: records the old name, renames, and restores the old name on delete. */
import { checked, created, messageOf, useProvider } from "./support";

const p = useProvider();
const impl = () => p.impl("OrganizationName");

describe("OrganizationName lifecycle", () => {
  it("records the previous name, renames, restores it on delete", async () => {
    const orgId = p.em.current.orgId;
    const original = (await p.client().orgs.get(orgId)).name;
    const { id, outs, inputs } = await created(impl(), { organizationId: orgId, name: "Acme Observability" });
    expect(id).toBe(orgId);
    expect(outs).toMatchObject({
      organizationId: orgId,
      name: "Acme Observability",
      previousName: original,
      plan: expect.any(String),
      paymentStatus: expect.any(String),
      primaryEmail: expect.any(String),
      license: expect.objectContaining({ maxMonitors: expect.any(Number) }),
    });
    expect((await p.client().orgs.get(orgId)).name).toBe("Acme Observability");
    expect(await impl().diff(id, outs, inputs)).toMatchObject({ changes: false });

    const news = await checked(impl(), { organizationId: orgId, name: "Acme 2" });
    expect(await impl().diff(id, outs, news)).toMatchObject({ changes: true, replaces: [], diffs: ["name"] });
    const updated = await impl().update(id, outs, news);
    expect(updated.outs).toMatchObject({ name: "Acme 2", previousName: original });

    await p.client().orgs.update(orgId, { name: "Renamed in the console" });
    const read = await impl().read(id, updated.outs);
    expect(read.props).toMatchObject({ name: "Renamed in the console", previousName: original });
    expect(read.inputs).toEqual({ organizationId: orgId, name: "Renamed in the console" });
    expect(await impl().diff(id, read.props!, news)).toMatchObject({ changes: true, diffs: ["name"] });

    await impl().delete(id, read.props!);
    expect((await p.client().orgs.get(orgId)).name).toBe(original);
  });

  it("replaces when organizationId changes", async () => {
    const news = await checked(impl(), { organizationId: "org_other", name: "x" });
    const diff = await impl().diff("local-org", { organizationId: "local-org", name: "x" }, news);
    expect(diff).toMatchObject({ changes: true, replaces: ["organizationId"], deleteBeforeReplace: false });
  });

  it("refreshes a missing organization as gone, fails its get, and names a missing org on create", async () => {
    // A refresh reads with the prior outputs; a `Resource.get` with nothing but `__provider`.
    expect(await impl().read("org_missing", { organizationId: "org_missing", name: "x" })).toEqual({
      id: "",
    });
    expect(await messageOf(impl().read("org_missing", {}))).toBe(
      "observability OrganizationName get failed: no object with id org_missing exists",
    );
    const inputs = await checked(impl(), { organizationId: "org_missing", name: "x" });
    expect(await messageOf(impl().create(inputs))).toMatch(
      /OrganizationName create failed: GET \/v2\/orgs\/org_missing failed with 404/,
    );
  });
});
