/** The real `__provider` text of every resource: small, free of secrets, and the same whatever the config. */
import * as pulumi from "@pulumi/pulumi";
import * as closure from "@pulumi/pulumi/runtime/closure/serializeClosure";
// The built package, as a user's program loads it: the shim's serialized size is measured on the shipped code,
// never on sources that `--coverage` instruments (that would inflate it past the budget).
import * as obs from "../../dist/provider";
import { recordRegistrations, registered, type Registration } from "../helpers/provider-text";

const TOKEN = "xaat-serialization-secret-0123456789";
const MAX_BYTES = 3072;

let seen: Registration[];
const transformedOpts: Record<string, pulumi.CustomResourceOptions> = {};
// A resource transformation sees the options the class finally passed to dynamic.Resource.
const capture: pulumi.ResourceTransformation = (args) => {
  transformedOpts[args.name] = args.opts as pulumi.CustomResourceOptions;
  return undefined;
};

beforeAll(async () => {
  process.env.OBSERVABILITY_TOKEN = TOKEN;
  process.env.PULUMI_CONFIG = JSON.stringify({ "observability:token": TOKEN });
  seen = await recordRegistrations({
    "observability:token": TOKEN,
    "observability:url": "http://127.0.0.1:1",
  });
  const notifier = new obs.Notifier(
    "notifier",
    { name: "pager", properties: { pagerduty: { routingKey: "rk-0123456789", token: "pd-0123456789" } } },
    { transformations: [capture] },
  );
  const resources: pulumi.Resource[] = [
    notifier,
    new obs.Monitor("monitor", {
      name: "errors",
      aplQuery: "['logs'] | count",
      type: "Threshold",
      operator: "Above",
      threshold: 1,
      notifierIds: [notifier.id],
    }),
    new obs.Annotation("annotation", { datasets: ["logs"], type: "deploy" }),
    new obs.Role("role", { name: "readers", orgCapabilities: { datasets: ["read"] } }),
    new obs.StarredQuery("starred", {
      kind: "apl",
      name: "q",
      who: "team",
      query: { apl: "['logs']" },
      metadata: {},
    }),
    new obs.OrganizationName("orgname", { organizationId: "local-org", name: "Renamed" }),
    obs.Monitor.get("existing", "mon_123"),
  ];
  await Promise.all(resources.map(registered));
});

afterAll(() => {
  delete process.env.OBSERVABILITY_TOKEN;
  delete process.env.PULUMI_CONFIG;
});

const KINDS = ["Notifier", "Monitor", "Annotation", "Role", "StarredQuery", "OrganizationName"];

describe("__provider text", () => {
  it.each(KINDS)("%s has the type pulumi-nodejs:dynamic/observability:<Name>", (kind) => {
    expect(seen.map((r) => r.type)).toContain(`pulumi-nodejs:dynamic/observability:${kind}`);
  });

  it.each(KINDS)("%s serializes to at most 3,072 bytes", (kind) => {
    const r = seen.find((x) => x.type.endsWith(`:${kind}`))!;
    const bytes = Buffer.byteLength(r.providerText);
    console.log(`__provider size ${kind}: ${bytes} bytes`);
    expect(bytes).toBeGreaterThan(0);
    expect(bytes).toBeLessThanOrEqual(MAX_BYTES);
  });

  it.each(KINDS)("%s contains no token, although it is in stack config and the environment", (kind) => {
    const r = seen.find((x) => x.type.endsWith(`:${kind}`))!;
    expect(r.providerWasSecret).toBe(false);
    expect(r.providerText).not.toContain(TOKEN);
    expect(JSON.stringify(r.inputs)).not.toContain(TOKEN);
  });

  it.each(KINDS)("%s loads the implementation at call time and captures only its kind", (kind) => {
    const r = seen.find((x) => x.type.endsWith(`:${kind}`))!;
    expect(r.providerText).toContain('require("pulumi-observability/dynamic")');
    expect(r.providerText).toContain(`kind: "${kind}"`);
    // No copied client, schema or class: those would bring their code (and traps) into state.
    expect(r.providerText).not.toMatch(/zod|undici|class |ObservabilityClient|safeParse/);
  });

  it("Resource.get registers with the id to read and no args", () => {
    const r = seen.find((x) => x.name === "existing")!;
    expect(r.type).toBe("pulumi-nodejs:dynamic/observability:Monitor");
    expect(r.inputs.name).toBeUndefined();
  });

  it("Notifier asks for its credentials to be secret outputs, merged with the user's own", () => {
    expect(transformedOpts.notifier?.additionalSecretOutputs).toEqual(["properties"]);
    new obs.Notifier(
      "notifier-2",
      { name: "x", properties: { slack: { slackUrl: "https://hooks.slack.test/x" } } },
      { additionalSecretOutputs: ["name"], transformations: [capture] },
    );
    expect(transformedOpts["notifier-2"]?.additionalSecretOutputs).toEqual(["name", "properties"]);
  });

  it("each kind's shim is serialized once per program, not once per resource", async () => {
    // Every resource stores the text twice (inputs and outputs) and sends it with every call, so its size
    // matters per resource; serializing it anew for each would add the serializer's cost too (bench/engine.mts).
    const serialize = jest.spyOn(closure, "serializeFunction");
    try {
      const resources = Array.from({ length: 20 }, (_, i) => [
        new obs.Monitor(`many-m-${i}`, { name: `m${i}`, aplQuery: "['logs'] | count", type: "MatchEvent" }),
        new obs.Dataset(`many-d-${i}`, { name: `d${i}` }),
      ]).flat();
      await Promise.all(resources.map(registered));
      // The monitors' shim was serialized before (beforeAll); the datasets' is serialized here, once.
      expect(serialize).toHaveBeenCalledTimes(1);
      const texts = (prefix: string) =>
        new Set(seen.filter((r) => r.name.startsWith(prefix)).map((r) => r.providerText));
      expect(texts("many-m-")).toEqual(new Set([seen.find((r) => r.name === "monitor")!.providerText]));
      expect(texts("many-d-").size).toBe(1);
    } finally {
      serialize.mockRestore();
    }
  });
});
