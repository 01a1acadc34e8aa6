/**
 * One sample per resource kind: valid inputs with nothing optional (`minimal`), valid inputs a test creates
 * (`args`) and a change to them that updates in place (`change`). Typed by the registry, so a kind added without
 * a sample does not compile, and every test that walks the kinds covers it.
 */
import type * as pulumi from "@pulumi/pulumi";
import { KIND_CLASSES, type ResourceKind } from "../../provider/resources/registry";

type Props = Record<string, unknown>;

/** Inputs of one kind. */
export interface KindSample {
  /** The required inputs only. */
  minimal: Props;
  /** Inputs a test creates the resource with. */
  args: Props;
  /** `args` changed in a field that updates in place. */
  change: Props;
}

export const SAMPLES: Record<ResourceKind, KindSample> = {
  Annotation: {
    minimal: { datasets: ["logs"], type: "deploy" },
    args: { datasets: ["logs"], type: "deploy", title: "v1" },
    change: { datasets: ["logs"], type: "deploy", title: "v2" },
  },
  Monitor: {
    minimal: { name: "m", aplQuery: "['logs'] | count", type: "MatchEvent" },
    args: { name: "golden", aplQuery: "['logs'] | count", type: "MatchEvent" },
    change: { name: "golden-2", aplQuery: "['logs'] | count", type: "MatchEvent" },
  },
  Notifier: {
    minimal: { name: "n", properties: { email: { emails: ["oncall@example.com"] } } },
    args: { name: "golden", properties: { slack: { slackUrl: "https://hooks.slack.test/GOLDEN" } } },
    change: { name: "golden", properties: { webhook: { url: "https://hooks.test/GOLDEN" } } },
  },
  Role: {
    minimal: { name: "r" },
    args: { name: "golden-role" },
    change: { name: "golden-role", members: ["u1"] },
  },
  StarredQuery: {
    minimal: { kind: "apl", name: "q", who: "team", query: { apl: "['logs']" }, metadata: {} },
    args: { kind: "apl", name: "golden", who: "team", query: { apl: "['logs']" }, metadata: {} },
    change: { kind: "apl", name: "golden-2", who: "team", query: { apl: "['logs']" }, metadata: {} },
  },
  Dashboard: {
    minimal: {
      dashboard: {
        name: "d",
        charts: [{ id: "n", type: "Note", text: "hi" }],
        layout: [{ i: "n", x: 0, y: 0, w: 4, h: 4 }],
        refreshTime: 60,
        schemaVersion: 2,
        timeWindowStart: "qr-now-1h",
        timeWindowEnd: "qr-now",
      },
    },
    args: {
      uid: "golden-dashboard",
      dashboard: {
        name: "golden",
        charts: [{ id: "n", type: "Note", text: "v1" }],
        layout: [{ i: "n", x: 0, y: 0, w: 4, h: 4 }],
        refreshTime: 60,
        schemaVersion: 2,
        timeWindowStart: "qr-now-1h",
        timeWindowEnd: "qr-now",
      },
    },
    change: {
      uid: "golden-dashboard",
      dashboard: {
        name: "golden",
        charts: [{ id: "n", type: "Note", text: "v2" }],
        layout: [{ i: "n", x: 0, y: 0, w: 6, h: 4 }],
        refreshTime: 300,
        schemaVersion: 2,
        timeWindowStart: "qr-now-1h",
        timeWindowEnd: "qr-now",
      },
    },
  },
  Dataset: {
    minimal: { name: "d" },
    args: { name: "golden-dataset" },
    change: { name: "golden-dataset", description: "changed" },
  },
  OrganizationName: {
    minimal: { organizationId: "local-org", name: "Org" },
    args: { organizationId: "local-org", name: "Golden Org" },
    change: { organizationId: "local-org", name: "Golden Org 2" },
  },
  View: {
    minimal: { name: "v", aplQuery: "['logs']" },
    args: { name: "golden-view", aplQuery: "['logs']", datasets: ["logs"] },
    change: { name: "golden-view", aplQuery: "['logs']", datasets: ["logs"], description: "v2" },
  },
  Group: {
    minimal: { name: "g" },
    args: { name: "golden-group", members: ["u1"] },
    change: { name: "golden-group", members: ["u1", "u2"] },
  },
  User: {
    minimal: { name: "u", email: "u@example.com", role: "user" },
    args: { name: "Golden User", email: "golden@example.com", role: "read-only" },
    change: { name: "Golden User", email: "golden@example.com", role: "admin" },
  },
  VirtualField: {
    minimal: { dataset: "logs", name: "v", expression: "a + b" },
    args: { dataset: "logs", name: "golden", expression: "a + b", type: "number" },
    change: { dataset: "logs", name: "golden", expression: "a * b", type: "number" },
  },
  ApiToken: {
    minimal: { name: "t" },
    args: { name: "golden-token", datasetCapabilities: { logs: { ingest: ["create"] } } },
    change: { name: "golden-token", datasetCapabilities: { logs: { ingest: ["create"], query: ["read"] } } },
  },
};

/** A Resource class as a test declares it: with sample inputs of its own kind. */
type AnyResourceClass = new (name: string, args: Props) => pulumi.CustomResource;

/**
 * A resource of `kind` named `name`, declared with its sample's minimal inputs (or `args`). `classes` is the
 * registry's map, from the sources by default; a test that serializes shims passes the built package's.
 */
export function declareSample(
  kind: ResourceKind,
  name: string,
  options: { args?: Props; classes?: ReadonlyMap<string, unknown> } = {},
): pulumi.CustomResource {
  const Resource = (options.classes ?? KIND_CLASSES).get(kind) as AnyResourceClass;
  return new Resource(name, options.args ?? SAMPLES[kind].minimal);
}
