/**
 * Diff compares what the service holds (olds, as read or created) with what the program declares (news, as
 * check returns them): equal meaning must diff as no change, whatever form the service echoes it in, and a
 * real change must show, naming the property. Pure: no service involved.
 */
import { implementation } from "../../provider/resources/dynamic";
import type { ResourceKind } from "../../provider/resources/registry";

type Props = Record<string, unknown>;

const monitor = { name: "m", aplQuery: "x", type: "MatchEvent" };
const notifier = { name: "n", properties: { email: { emails: ["a@x.test"] } } };
const annotation = { datasets: ["logs"], type: "deploy" };
const starred = { kind: "apl", name: "q", who: "team", query: { apl: "x" }, metadata: {} };

/** [rule, kind, olds as the service returns them, news as declared, properties that must differ] */
const rows: [string, ResourceKind, Props, Props, string[]][] = [
  [
    "a monitor's disabledUntil in another offset is the same instant",
    "Monitor",
    { ...monitor, disabledUntil: "2029-12-31T22:00:00Z" },
    { ...monitor, disabledUntil: "2030-01-01T00:00:00.000+02:00" },
    [],
  ],
  [
    "a monitor's disabledUntil at another instant is a change",
    "Monitor",
    { ...monitor, disabledUntil: "2030-01-01T00:00:00Z" },
    { ...monitor, disabledUntil: "2030-01-01T00:00:00+02:00" },
    ["disabledUntil"],
  ],
  [
    "a monitor's zero-time disabledUntil equals an absent one",
    "Monitor",
    { ...monitor, disabledUntil: "0001-01-01T00:00:00Z" },
    monitor,
    [],
  ],
  [
    "a notifier's disabledUntil without milliseconds equals one with",
    "Notifier",
    { ...notifier, disabledUntil: "2030-01-01T00:00:00Z" },
    { ...notifier, disabledUntil: "2030-01-01T00:00:00.000Z" },
    [],
  ],
  [
    "an annotation's time and endTime compare as instants",
    "Annotation",
    { ...annotation, time: "2024-05-01T08:00:00Z", endTime: "2024-05-01T09:30:00Z" },
    { ...annotation, time: "2024-05-01T10:00:00+02:00", endTime: "2024-05-01T11:30:00.000+02:00" },
    [],
  ],
  [
    "an annotation's moved time is a change",
    "Annotation",
    { ...annotation, time: "2024-05-01T08:00:00Z" },
    { ...annotation, time: "2024-05-01T08:00:01Z" },
    ["time"],
  ],
  [
    "a starred query's relative times are compared as written",
    "StarredQuery",
    { ...starred, query: { apl: "x", startTime: "now-1h" } },
    { ...starred, query: { apl: "x", startTime: "now-2h" } },
    ["query"],
  ],
  [
    "a starred query's absolute times compare as instants",
    "StarredQuery",
    { ...starred, query: { apl: "x", startTime: "2024-05-01T08:00:00Z" } },
    { ...starred, query: { apl: "x", startTime: "2024-05-01T10:00:00+02:00" } },
    [],
  ],
  [
    "an Opsgenie isEU the service echoes as false equals an absent one",
    "Notifier",
    { name: "n", properties: { opsgenie: { apiKey: "k", isEU: false } } },
    { name: "n", properties: { opsgenie: { apiKey: "k" } } },
    [],
  ],
  [
    "an Opsgenie isEU turned on is a change",
    "Notifier",
    { name: "n", properties: { opsgenie: { apiKey: "k" } } },
    { name: "n", properties: { opsgenie: { apiKey: "k", isEU: true } } },
    ["properties"],
  ],
  [
    "empty custom webhook header maps equal absent ones",
    "Notifier",
    { name: "n", properties: { customWebhook: { url: "https://h.test", body: "b", headers: {} } } },
    { name: "n", properties: { customWebhook: { url: "https://h.test", body: "b" } } },
    [],
  ],
  [
    "monitor defaults given explicitly equal defaults omitted",
    "Monitor",
    monitor,
    {
      ...monitor,
      intervalMinutes: 1,
      rangeMinutes: 1,
      triggerFromNRuns: 1,
      disabled: false,
      notifierIds: [],
    },
    [],
  ],
  [
    "notifier ids in another order are no change",
    "Monitor",
    { ...monitor, notifierIds: ["notify_b", "notify_a"] },
    { ...monitor, notifierIds: ["notify_a", "notify_b"] },
    [],
  ],
  [
    "role capability actions in another order, and empty ones, are no change",
    "Role",
    { name: "r", orgCapabilities: { datasets: ["update", "read"] }, members: ["u2", "u1"] },
    { name: "r", orgCapabilities: { datasets: ["read", "update"], users: [] }, members: ["u1", "u2"] },
    [],
  ],
  [
    "an annotation's datasets in another order are no change",
    "Annotation",
    { ...annotation, datasets: ["b", "a"] },
    { ...annotation, datasets: ["a", "b"] },
    [],
  ],
];

describe("diff compares meaning, not spelling", () => {
  it.each(rows)("%s", async (_rule, kind, olds, declared, changed) => {
    const impl = implementation(kind);
    const checked = await impl.check({}, declared);
    expect(checked.failures).toEqual([]);
    const diff = await impl.diff("id_1", olds, checked.inputs as Props);
    expect(diff.diffs).toEqual(changed);
    expect(diff.changes).toBe(changed.length > 0);
  });
});
