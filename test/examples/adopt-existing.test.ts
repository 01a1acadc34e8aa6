/**
 * examples/adopt-existing, run for real: a notifier and a monitor made outside Pulumi (through the client) are
 * found by name with the lookups and taken over by `adopt`; afterwards the same ids carry the declared state and
 * nothing new exists.
 */
import { useExampleRun } from "./harness";

let notifierId: string;
let monitorId: string;

const run = useExampleRun({
  example: "adopt-existing",
  // Made by hand, as the README shows with curl.
  async prepare(client) {
    const notifier = await client.notifiers.create({
      name: "Platform team email",
      properties: { email: { emails: ["ops@example.com"] } },
    });
    notifierId = notifier.id;
    monitorId = (
      await client.monitors.create({
        name: "Hosts: disk above 90%",
        type: "Threshold",
        operator: "Above",
        threshold: 1,
        aplQuery: "['host-metrics'] | where disk_used_pct > 95",
      })
    ).id;
    return { plain: {} };
  },
});

describe("examples/adopt-existing", () => {
  it("keeps the adopted ids and outputs them", () => {
    expect(run.first.exports).toEqual({ notifierId, monitorId });
    expect(run.first.registrations.map((r) => r.id).sort()).toEqual([monitorId, notifierId].sort());
  });

  it("creates no new object: the service still holds exactly one notifier and one monitor", async () => {
    expect((await run.client.notifiers.list()).map((n) => String(n.id))).toEqual([notifierId]);
    expect((await run.client.monitors.list()).map((m) => m.id)).toEqual([monitorId]);
  });

  it("the adopted notifier now carries the declared state", async () => {
    const notifier = await run.client.notifiers.get(notifierId);
    expect(notifier.name).toBe("Platform team email");
    expect([...(notifier.properties?.email?.emails ?? [])].sort()).toEqual([
      "platform-leads@example.com",
      "platform-oncall@example.com",
    ]);
  });

  it("the adopted monitor now carries the declared state, wired to the adopted notifier", async () => {
    const monitor = await run.client.monitors.get(monitorId);
    expect(monitor).toMatchObject({
      name: "Hosts: disk above 90%",
      type: "Threshold",
      operator: "Above",
      threshold: 0,
      intervalMinutes: 5,
      rangeMinutes: 5,
      aplQuery: "['host-metrics'] | where disk_used_pct > 90 | summarize count() by bin(_time, 5m)",
      notifierIds: [notifierId],
    });
  });

  it("a second pass of check and diff over the same program reports no changes", () => {
    expect(run.diffs).toHaveLength(2);
    expect(run.diffs.filter((d) => d.changed || d.replaces.length > 0)).toEqual([]);
    expect(run.second.registrations.map((r) => r.id).sort()).toEqual(
      run.first.registrations.map((r) => r.id).sort(),
    );
  });
});
