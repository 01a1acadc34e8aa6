/** Role through the provider's lifecycle (set-like members and capability lists). */
import { checked, created, messageOf, useProvider } from "./support";

const p = useProvider();
const impl = () => p.impl("Role");
const readers = {
  name: "readers",
  members: ["u1", "u2"],
  orgCapabilities: { datasets: ["read", "update"], monitors: ["read"] },
  datasetCapabilities: { logs: { query: ["read"], share: ["read", "create"] } },
};

describe("Role lifecycle", () => {
  it("creates and diffs none, with members and actions in any order", async () => {
    const { id, outs, inputs } = await created(impl(), readers);
    expect(await impl().diff(id, outs, inputs)).toMatchObject({ changes: false });
    const shuffled = await checked(impl(), {
      ...readers,
      members: ["u2", "u1"],
      orgCapabilities: { monitors: ["read"], datasets: ["update", "read"], users: [] },
      datasetCapabilities: { logs: { share: ["create", "read"], query: ["read"] } },
    });
    expect(await impl().diff(id, outs, shuffled)).toMatchObject({ changes: false });
    const read = await impl().read(id, outs);
    expect(await impl().diff(id, read.props!, shuffled)).toMatchObject({ changes: false });
  });

  it("updates members in place and shows drift and deletion made elsewhere", async () => {
    const { id, outs } = await created(impl(), { ...readers, name: "writers" });
    const news = await checked(impl(), { ...readers, name: "writers", members: ["u3"] });
    expect(await impl().diff(id, outs, news)).toMatchObject({
      changes: true,
      replaces: [],
      diffs: ["members"],
    });
    const updated = await impl().update(id, outs, news);
    const current = await p.client().roles.get(id);
    await p.client().roles.update(id, { ...current, description: "widened" } as never);
    const read = await impl().read(id, updated.outs);
    expect(await impl().diff(id, read.props!, news)).toMatchObject({ changes: true, diffs: ["description"] });
    await p.client().roles.delete(id);
    expect(await impl().read(id, read.props)).toEqual({ id: "" });
  });

  it("deletes before replacing (names are unique) when adopt names another role", async () => {
    const { id, outs } = await created(impl(), { ...readers, name: "adoptable" });
    const news = await checked(impl(), { ...readers, name: "adoptable", adopt: "role_other" });
    expect(await impl().diff(id, outs, news)).toMatchObject({
      replaces: ["adopt"],
      deleteBeforeReplace: true,
    });
  });

  it("reports a name clash as the service's 409, readably", async () => {
    await created(impl(), { name: "unique-name" });
    const inputs = await checked(impl(), { name: "unique-name" });
    expect(await messageOf(impl().create(inputs))).toMatch(
      /Role create failed: POST \/v2\/rbac\/roles failed with 409/,
    );
  });
});
