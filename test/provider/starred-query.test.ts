/** StarredQuery through the provider's lifecycle. */
import { checked, created, useProvider } from "./support";

const p = useProvider();
const impl = () => p.impl("StarredQuery");
const top = {
  kind: "apl",
  name: "slowest",
  who: "team",
  dataset: "logs",
  query: { apl: "['logs'] | top 10 by duration", startTime: "now-1h", queryOptions: { priority: "low" } },
  metadata: { owner: "sre" },
};

describe("StarredQuery lifecycle", () => {
  it("creates, diffs none, updates, reads drift and deletion", async () => {
    const { id, outs, inputs } = await created(impl(), top);
    expect(await impl().diff(id, outs, inputs)).toMatchObject({ changes: false });
    const read = await impl().read(id, outs);
    expect(await impl().diff(id, read.props!, inputs)).toMatchObject({ changes: false });

    const news = await checked(impl(), { ...top, query: { ...top.query, startTime: "now-2h" } });
    expect(await impl().diff(id, outs, news)).toMatchObject({ changes: true, diffs: ["query"] });
    const updated = await impl().update(id, outs, news);
    expect((await p.client().starredQueries.get(id)).query).toMatchObject({ startTime: "now-2h" });

    const current = await p.client().starredQueries.get(id);
    await p.client().starredQueries.update(id, { ...current, metadata: { owner: "someone-else" } } as never);
    const drifted = await impl().read(id, updated.outs);
    expect(await impl().diff(id, drifted.props!, news)).toMatchObject({ changes: true, diffs: ["metadata"] });
    await impl().delete(id, drifted.props!);
    expect(await impl().read(id, drifted.props)).toEqual({ id: "" });
  });

  it("adopts an existing starred query", async () => {
    const existing = await p.client().starredQueries.create({ ...top, name: "old" } as never);
    const { id, outs } = await created(impl(), { ...top, adopt: existing.id });
    expect(id).toBe(existing.id);
    expect(outs).toMatchObject({ name: "slowest", adopt: existing.id });
  });
});
