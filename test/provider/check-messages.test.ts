/**
 * Check messages in the project's words: a field left out of an object "is required" (not "must be a string"),
 * and none of zod's default wordings ("Invalid key in record", "Invalid input: expected object, received
 * string") reach a user; each failure names its field. The emulator's 422s say the same.
 */
import { api } from "../helpers/emulator";
import type { ResourceKind } from "../../provider/resources/registry";
import { useProvider, type Props } from "./support";

const p = useProvider();

/** [what, kind, inputs, property, reason] */
const rows: [string, ResourceKind, Props, string, string][] = [
  [
    "a channel's required field left out",
    "Notifier",
    { name: "n", properties: { slack: {} } },
    "properties.slack.slackUrl",
    "is required",
  ],
  [
    "customWebhook without body",
    "Notifier",
    { name: "n", properties: { customWebhook: { url: "https://h.test" } } },
    "properties.customWebhook.body",
    "is required",
  ],
  [
    "properties given as a string",
    "Notifier",
    { name: "n", properties: "slack" },
    "properties",
    "must be an object",
  ],
  [
    "query given as a string",
    "StarredQuery",
    { kind: "apl", name: "s", who: "team", query: "x", metadata: {} },
    "query",
    "must be an object",
  ],
  [
    "metadata given as a list",
    "StarredQuery",
    { kind: "apl", name: "s", who: "team", query: { apl: "x" }, metadata: ["a"] },
    "metadata",
    "must be a map",
  ],
  [
    "a dataset's capabilities given as a string",
    "Role",
    { name: "r", datasetCapabilities: { logs: "read" } },
    "datasetCapabilities.logs",
    "must be an object",
  ],
  [
    "an empty dataset name as a key",
    "Role",
    { name: "r", datasetCapabilities: { "": { query: ["read"] } } },
    "datasetCapabilities",
    'key "": must not be empty',
  ],
  ["members given as a string", "Role", { name: "r", members: "u1" }, "members", "must be a list"],
  [
    "a top-level required field left out",
    "Monitor",
    { aplQuery: "x", type: "MatchEvent" },
    "name",
    "is required",
  ],
  // An enum, a literal or a union left out is missing too, not "must be one of …" or "must be apl".
  ["an enum left out", "Monitor", { name: "m", aplQuery: "x" }, "type", "is required"],
  [
    "a literal left out",
    "StarredQuery",
    { name: "s", who: "team", query: { apl: "x" }, metadata: {} },
    "kind",
    "is required",
  ],
  [
    "a present enum with another value still names the allowed ones",
    "Monitor",
    { name: "m", aplQuery: "x", type: "Sometimes" },
    "type",
    "must be one of Threshold, MatchEvent, AnomalyDetection",
  ],
  [
    // The emulator reads null as absent, but what a user declares stays strict; the message says what was sent.
    "a required field given as null",
    "Monitor",
    { name: null, aplQuery: "x", type: "MatchEvent" },
    "name",
    "must not be null",
  ],
  [
    "a channel's optional field given as null (the emulator would take it as absent; check does not)",
    "Notifier",
    { name: "n", properties: { customWebhook: { url: "https://h.test", body: "{}", headers: null } } },
    "properties.customWebhook.headers",
    "must not be null",
  ],
  [
    "a wrong type where a value is present",
    "Monitor",
    { name: 5, aplQuery: "x", type: "MatchEvent" },
    "name",
    "must be a string",
  ],
];

describe("check failures are worded in the project's style and name the field", () => {
  it.each(rows)("%s", async (_what, kind, inputs, property, reason) => {
    const { failures } = await p.impl(kind).check({}, inputs);
    expect(failures).toContainEqual({ property, reason });
    for (const f of failures ?? [])
      expect(f.reason).not.toMatch(/Invalid (input|key)|expected \w+, received/);
  });

  it("the emulator's 422 says the same: `properties.slack.slackUrl: is required`", async () => {
    const res = await api(p.em.current, "POST", "/v2/notifiers", { name: "n", properties: { slack: {} } });
    expect(res.status).toBe(422);
    expect(res.body.message).toContain("properties.slack.slackUrl: is required");
  });

  it.each([
    ["/v2/monitors", { name: "m", aplQuery: "x" }, "type: is required"],
    [
      "/v2/apl-starred-queries",
      { name: "s", who: "team", query: { apl: "x" }, metadata: {} },
      "kind: is required",
    ],
  ])("the emulator's 422 for POST %s without an enum or literal says `%s`", async (path, body, expected) => {
    const res = await api(p.em.current, "POST", path, body);
    expect(res.status).toBe(422);
    expect(res.body.message).toContain(expected);
  });
});
