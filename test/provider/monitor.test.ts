/** Monitor through the provider's lifecycle, in process, against a real emulator. */
import type { MonitorUpdate } from "../../provider/client";
import { UNKNOWN, checked, created, messageOf, useProvider } from "./support";

const p = useProvider();
const impl = () => p.impl("Monitor");

const threshold = {
  name: "errors",
  aplQuery: "['logs'] | where level == 'error' | count",
  type: "Threshold",
  operator: "Above",
  threshold: 10,
};

describe("Monitor lifecycle", () => {
  it("check keeps the declared values and adds no default (create and diff read them in)", async () => {
    const inputs = await checked(impl(), threshold);
    expect(inputs).toEqual(threshold);
  });

  it("creates, then diffs as no change against its own outputs and after a read", async () => {
    const { id, outs, inputs } = await created(impl(), threshold);
    expect(id).toMatch(/^mon_/);
    expect(outs).toMatchObject({
      ...threshold,
      createdBy: expect.any(String),
      createdAt: expect.any(String),
    });
    expect(outs.id).toBeUndefined();
    expect(await impl().diff(id, outs, inputs)).toMatchObject({ changes: false, replaces: [], diffs: [] });

    const read = await impl().read(id, outs);
    expect(read.id).toBe(id);
    expect(await impl().diff(id, read.props!, inputs)).toMatchObject({ changes: false });
    // What read reports as inputs also round-trips: a refresh right after apply shows no drift.
    expect(await impl().diff(id, read.props!, await checked(impl(), read.inputs!))).toMatchObject({
      changes: false,
    });
  });

  it("compares notifierIds without regard to order, and absent equal to default", async () => {
    const channel = { email: { emails: ["oncall@example.com"] } };
    const a = await p.client().notifiers.create({ name: "a", properties: channel });
    const b = await p.client().notifiers.create({ name: "b", properties: channel });
    const m = await created(impl(), { ...threshold, notifierIds: [a.id, b.id] });
    const reordered = await checked(impl(), {
      ...threshold,
      notifierIds: [b.id, a.id],
      intervalMinutes: 1,
      disabled: false,
    });
    expect(await impl().diff(m.id, m.outs, reordered)).toMatchObject({ changes: false });
  });

  it("diffs, updates, and reports the changed property names", async () => {
    const { id, outs } = await created(impl(), threshold);
    const news = await checked(impl(), { ...threshold, threshold: 20, description: "louder" });
    const diff = await impl().diff(id, outs, news);
    expect(diff).toMatchObject({ changes: true, replaces: [] });
    expect(diff.diffs.sort()).toEqual(["description", "threshold"]);
    const updated = await impl().update(id, outs, news);
    expect(updated.outs).toMatchObject({ threshold: 20, description: "louder", createdAt: outs.createdAt });
    expect((await p.client().monitors.get(id)).threshold).toBe(20);
  });

  it("shows drift after an out-of-band change, and is gone after an out-of-band delete", async () => {
    const { id, outs, inputs } = await created(impl(), threshold);
    const current = await p.client().monitors.get(id);
    // PUT sends the whole monitor: the one just read (a response type, every field optional), changed.
    await p.client().monitors.update(id, { ...current, threshold: 99 } as MonitorUpdate);
    const read = await impl().read(id, outs);
    expect(read.props).toMatchObject({ threshold: 99 });
    expect(read.inputs).toMatchObject({ threshold: 99 });
    expect(await impl().diff(id, read.props!, inputs)).toMatchObject({ changes: true, diffs: ["threshold"] });

    await p.client().monitors.delete(id);
    expect(await impl().read(id, outs)).toEqual({ id: "" });
    await expect(impl().delete(id, outs)).resolves.toBeUndefined();
  });

  it("treats an unknown notifier id at preview as a change, never a failure", async () => {
    const { id, outs } = await created(impl(), threshold);
    const result = await impl().check({}, { ...threshold, notifierIds: [UNKNOWN] });
    expect(result.failures).toEqual([]);
    expect(await impl().diff(id, outs, result.inputs)).toMatchObject({
      changes: true,
      diffs: ["notifierIds"],
    });
  });

  it("adopts an existing monitor: reads it, updates it to the declared state, keeps its id", async () => {
    const existing = await p.client().monitors.create({ name: "legacy", aplQuery: "x", type: "MatchEvent" });
    const { id, outs } = await created(impl(), { ...threshold, adopt: existing.id });
    expect(id).toBe(existing.id);
    expect(outs).toMatchObject({ ...threshold, adopt: existing.id });
    expect(await p.client().monitors.get(existing.id)).toMatchObject(threshold);
  });

  it("fails adoption of a missing id with a clear message", async () => {
    const inputs = await checked(impl(), { ...threshold, adopt: "mon_missing" });
    expect(await messageOf(impl().create(inputs))).toContain(
      "observability Monitor adopt failed: no object with id mon_missing exists (the id in `adopt`)",
    );
  });

  it("replaces when adopt names another object, but not when it is dropped", async () => {
    const { id, outs, inputs } = await created(impl(), threshold);
    const other = await checked(impl(), { ...threshold, adopt: "mon_other" });
    expect(await impl().diff(id, outs, other)).toMatchObject({ changes: true, replaces: ["adopt"] });
    expect(await impl().diff(id, { ...outs, adopt: "mon_x" }, inputs)).toMatchObject({ changes: false });
  });

  it("turns a service refusal into a readable error naming method, path and status", async () => {
    const { id, outs } = await created(impl(), threshold);
    // Skipping check on purpose: the service's own 422 must come back readable.
    const message = await messageOf(impl().update(id, outs, { ...threshold, intervalMinutes: 0 }));
    expect(message).toMatch(/Monitor update failed: PUT \/v2\/monitors\/mon_\S+ failed with 422/);
    expect(message).toContain("intervalMinutes");
  });
});
