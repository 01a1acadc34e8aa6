/**
 * examples/adopt-existing, run for real: a notifier and a monitor made outside Pulumi (through the client) are
 * taken over by `adopt`; afterwards the same ids carry the declared state and nothing new exists.
 */
import { ObservabilityClient } from "../../provider/client";
import { useEmulator } from "../helpers/emulator";
import { startProviderHost, type ProviderHost } from "../helpers/host";
import { createStep, diffStep, type DiffRecord } from "./engine";
import { runProgram, type ProgramRun } from "./program";

const PROJECT = "adopt-existing";

const em = useEmulator();
let host: ProviderHost;
let client: ObservabilityClient;
let notifierId: string;
let monitorId: string;
let first: ProgramRun;
let second: ProgramRun;
const diffs: DiffRecord[] = [];

function programOptions() {
  return {
    example: "adopt-existing",
    project: PROJECT,
    config: {
      "observability:url": em.current.url,
      "observability:token": em.current.token,
      "observability:orgId": em.current.orgId,
      [`${PROJECT}:existingNotifierId`]: notifierId,
      [`${PROJECT}:existingMonitorId`]: monitorId,
    },
    secretKeys: ["observability:token"],
  };
}

beforeAll(async () => {
  client = new ObservabilityClient({ url: em.current.url, token: em.current.token, orgId: em.current.orgId });
  // Made by hand, as the README shows with curl.
  const notifier = await client.notifiers.create({
    name: "ops mail",
    properties: { email: { emails: ["ops@example.com"] } },
  });
  // The client's Notifier type loses `id: string` to its index signature (Omit over a loose object).
  notifierId = String(notifier.id);
  monitorId = (
    await client.monitors.create({
      name: "disk",
      type: "Threshold",
      operator: "Above",
      threshold: 1,
      aplQuery: "['host-metrics'] | where disk_used_pct > 95",
    })
  ).id;
  host = await startProviderHost({
    config: {
      "observability:url": em.current.url,
      "observability:token": em.current.token,
      "observability:orgId": em.current.orgId,
    },
    secretKeys: ["observability:token"],
    project: PROJECT,
  });
  await host.configure();
  first = await runProgram({ ...programOptions(), register: createStep(host, PROJECT) });
  second = await runProgram({ ...programOptions(), register: diffStep(host, PROJECT, first, diffs) });
}, 60_000);

afterAll(async () => {
  await host?.close();
  await client?.close();
});

describe("examples/adopt-existing", () => {
  it("keeps the adopted ids and outputs them", () => {
    expect(first.exports).toEqual({ notifierId, monitorId });
    expect(first.registrations.map((r) => r.id).sort()).toEqual([monitorId, notifierId].sort());
  });

  it("creates no new object: the service still holds exactly one notifier and one monitor", async () => {
    expect((await client.notifiers.list()).map((n) => String(n.id))).toEqual([notifierId]);
    expect((await client.monitors.list()).map((m) => m.id)).toEqual([monitorId]);
  });

  it("the adopted notifier now carries the declared state", async () => {
    const notifier = await client.notifiers.get(notifierId);
    expect(notifier.name).toBe("Platform team email");
    expect([...(notifier.properties.email?.emails ?? [])].sort()).toEqual([
      "platform-leads@example.com",
      "platform-oncall@example.com",
    ]);
  });

  it("the adopted monitor now carries the declared state, wired to the adopted notifier", async () => {
    const monitor = await client.monitors.get(monitorId);
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
    expect(diffs).toHaveLength(2);
    expect(diffs.filter((d) => d.changed || d.replaces.length > 0)).toEqual([]);
    expect(second.registrations.map((r) => r.id).sort()).toEqual(first.registrations.map((r) => r.id).sort());
  });
});
