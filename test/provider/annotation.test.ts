/** Annotation through the provider's lifecycle (partial PUT, server-set time). */
import { checked, created, useProvider } from "./support";

const p = useProvider();
const impl = () => p.impl("Annotation");
const deploy = { datasets: ["logs", "traces"], type: "deploy", title: "v1.2.3" };

describe("Annotation lifecycle", () => {
  it("creates with the service's time, and diffs none after create and read although time was not declared", async () => {
    const { id, outs, inputs } = await created(impl(), deploy);
    expect(id).toMatch(/^ann_/);
    expect(outs.time).toEqual(expect.any(String));
    expect(await impl().diff(id, outs, inputs)).toMatchObject({ changes: false });
    const read = await impl().read(id, outs);
    expect(await impl().diff(id, read.props!, inputs)).toMatchObject({ changes: false });
    const reordered = await checked(impl(), { ...deploy, datasets: ["traces", "logs"] });
    expect(await impl().diff(id, read.props!, reordered)).toMatchObject({ changes: false });
  });

  it("clears a removed optional field on update, despite the partial PUT", async () => {
    const { id, outs } = await created(impl(), { ...deploy, url: "https://ci.test/1", description: "d" });
    const news = await checked(impl(), deploy);
    expect((await impl().diff(id, outs, news)).diffs.sort()).toEqual(["description", "url"]);
    await impl().update(id, outs, news);
    const now = await p.client().annotations.get(id);
    expect(now.url ?? "").toBe("");
    expect(now.description ?? "").toBe("");
    expect(now.title).toBe("v1.2.3");
  });

  it("shows drift after an out-of-band change and after an out-of-band delete", async () => {
    const { id, outs, inputs } = await created(impl(), deploy);
    await p.client().annotations.update(id, { title: "edited" });
    const read = await impl().read(id, outs);
    expect(await impl().diff(id, read.props!, inputs)).toMatchObject({ changes: true, diffs: ["title"] });
    await p.client().annotations.delete(id);
    expect(await impl().read(id, outs)).toEqual({ id: "" });
    await expect(impl().delete(id, outs)).resolves.toBeUndefined();
  });

  it("adopts an existing annotation", async () => {
    const existing = await p.client().annotations.create({ datasets: ["logs"], type: "incident" });
    const { id, outs } = await created(impl(), { ...deploy, adopt: existing.id });
    expect(id).toBe(existing.id);
    expect(outs).toMatchObject({ ...deploy, adopt: existing.id });
  });
});
