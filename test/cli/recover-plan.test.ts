/**
 * `observability recover`'s decisions about a stack's pending operations, on deployments in the format
 * `pulumi stack export --show-secrets` writes (pulumi/pulumi sdk/go/common/apitype/core.go: DeploymentV3,
 * OperationV2, ResourceV3; secrets as `{"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
 * "plaintext": …}`, sdk/go/common/resource/sig/sig.go), against an emulator holding what the interrupted
 * creates may have made. test/fixtures/recover/ holds a deployment recorded from a real `kill -9` of
 * `pulumi up` (test/e2e-native/recover.test.ts makes them).
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { ObservabilityClient } from "../../provider/client";
import { normalize } from "../../provider/resources/descriptor";
import type { DeclaredKindName } from "../../provider/resources/kinds";
import { descriptorOf, kindOfResource, kindOfShim } from "../../provider/resources/recovery";
import {
  editedDeployment,
  placeAfterDependencies,
  planRecovery,
  SECRET_SIG,
  unwrapSecrets,
  wrapSecret,
  type Deployment,
  type ExportedStack,
  type PendingOperation,
  type StateResource,
} from "../../cli/recover/plan";
import { useEmulator } from "../helpers/emulator";

const em = useEmulator();
let client: ObservabilityClient;
beforeAll(() => {
  client = new ObservabilityClient({ url: em.current.url, token: em.current.token, orgId: em.current.orgId });
});
afterAll(() => client.close());

const STACK = "urn:pulumi:dev::recover-test::pulumi:pulumi:Stack::recover-test-dev";
const PROVIDER = "urn:pulumi:dev::recover-test::pulumi:providers:observability::default";
const urnOf = (type: string, name: string) => `urn:pulumi:dev::recover-test::${type}::${name}`;

let serial = 0;
/** Monitor inputs unique to this test file's run. */
const monitor = (name = `m-${++serial}`) => ({
  name,
  type: "MatchEvent",
  aplQuery: "['logs'] | where level == 'panic'",
  intervalMinutes: 1,
  rangeMinutes: 1,
});

/** Makes the object a create of `inputs` makes, as the provider sends it. */
async function make(kind: DeclaredKindName, inputs: Record<string, unknown>): Promise<{ id: string }> {
  const d = descriptorOf(kind);
  return d.family(client, {}).create(d.toBody(normalize(d, inputs)));
}

function native(kind: string, name: string, inputs: Record<string, unknown>, id?: string): StateResource {
  return {
    urn: urnOf(`observability:index:${kind}`, name),
    type: `observability:index:${kind}`,
    custom: true,
    ...(id ? { id } : {}),
    inputs,
    parent: STACK,
    provider: `${PROVIDER}::04b5d0a2-provider-id`,
  };
}

function deployment(resources: StateResource[], pending: PendingOperation[]): Deployment {
  return {
    manifest: { time: "2026-01-01T00:00:00Z" },
    resources: [
      { urn: STACK, type: "pulumi:pulumi:Stack", custom: false },
      { urn: PROVIDER, type: "pulumi:providers:observability", custom: true, id: "04b5d0a2-provider-id" },
      ...resources,
    ],
    pending_operations: pending,
  };
}

const creating = (resource: StateResource): PendingOperation => ({ type: "creating", resource });

describe("finding an interrupted create's object", () => {
  it("imports the one object that matches and clears the create that never landed", async () => {
    const landed = monitor();
    const lost = monitor();
    const obj = await make("Monitor", landed);
    const plan = await planRecovery(
      deployment(
        [],
        [creating(native("Monitor", "landed", landed)), creating(native("Monitor", "lost", lost))],
      ),
      client,
      { since: new Date(Date.now() - 1000) },
    );
    expect(plan.decisions).toEqual([
      expect.objectContaining({ action: "import", id: obj.id, kind: "Monitor" }),
      expect.objectContaining({ action: "clear", kind: "Monitor" }),
    ]);
    expect(plan.decisions[0].evidence).toMatch(/made after the interrupted operation began/);
    expect(plan.objects.get(urnOf("observability:index:Monitor", "landed"))?.id).toBe(obj.id);
  });

  it("never takes an object a resource of the stack holds, nor a stamped one made before the operation", async () => {
    const inputs = monitor();
    const held = await make("Monitor", inputs);
    const plan = await planRecovery(
      deployment([native("Monitor", "twin", inputs, held.id)], [creating(native("Monitor", "new", inputs))]),
      client,
      { since: new Date(Date.now() - 1000) },
    );
    expect(plan.decisions[0]).toMatchObject({ action: "clear" });

    // An identical object made before the operation began (its lock's timestamp, here in the future by more than
    // the allowed clock skew): someone else's.
    const other = monitor();
    await make("Monitor", other);
    const later = await planRecovery(deployment([], [creating(native("Monitor", "x", other))]), client, {
      since: new Date(Date.now() + 5 * 60_000),
    });
    expect(later.decisions[0]).toMatchObject({ action: "clear" });
  });

  it("shares interchangeable objects among creates of one body, and names them when there are more", async () => {
    const body = monitor();
    const a = await make("Monitor", body);
    const b = await make("Monitor", body);
    const two = await planRecovery(
      deployment([], [creating(native("Monitor", "a", body)), creating(native("Monitor", "b", body))]),
      client,
      { since: new Date(Date.now() - 1000) },
    );
    expect(two.decisions.map((d) => d.action)).toEqual(["import", "import"]);
    expect(new Set(two.decisions.map((d) => (d.action === "import" ? d.id : "")))).toEqual(
      new Set([a.id, b.id]),
    );

    // One create, two objects: which is its own cannot be told.
    const one = await planRecovery(deployment([], [creating(native("Monitor", "c", body))]), client, {
      since: new Date(Date.now() - 1000),
    });
    expect(one.decisions[0]).toMatchObject({ action: "leave" });
    expect(one.decisions[0].action === "leave" && one.decisions[0].candidates.sort()).toEqual(
      [a.id, b.id].sort(),
    );
  });

  it("matches on the body as diff compares it: a secret input shown by --show-secrets, defaults, set order", async () => {
    const properties = { slack: { slackUrl: "https://hooks.slack.test/RECOVER-SECRET" } };
    const obj = await make("Notifier", { name: `n-${++serial}`, properties });
    const name = (await client.notifiers.get(obj.id)).name;
    const plan = await planRecovery(
      deployment([], [creating(native("Notifier", "n", { name, properties: wrapSecret(properties) }))]),
      client,
      { since: new Date(Date.now() - 1000) },
    );
    expect(plan.decisions[0]).toMatchObject({ action: "import", id: obj.id });
  });

  it("does not compare a secret a preview hid, and records the object's value in its place", async () => {
    const properties = { slack: { slackUrl: "https://hooks.slack.test/HIDDEN-SECRET" } };
    const name = `n-${++serial}`;
    const obj = await make("Notifier", { name, properties });
    const exported: ExportedStack = {
      version: 3,
      deployment: deployment(
        [],
        [{ ...creating(native("Notifier", "n", { name, properties: "[secret]" })), declaredOnly: true }],
      ),
    };
    const plan = await planRecovery(exported.deployment, client, { since: new Date(Date.now() - 1000) });
    expect(plan.decisions[0]).toMatchObject({ action: "import", id: obj.id });
    expect(plan.decisions[0].evidence).toMatch(/its secret properties, hidden by the preview, not compared/);
    const added = editedDeployment(exported, plan).deployment.resources!.find((r) => r.urn.endsWith("::n"))!;
    expect(unwrapSecrets(added.inputs!.properties)).toEqual(properties);
  });

  it("decides by the inputs alone for a kind without a creation time (a role), and says so", async () => {
    const inputs = {
      name: `role-${++serial}`,
      description: "recover",
      orgCapabilities: { monitors: ["read"] },
    };
    const obj = await make("Role", inputs);
    const plan = await planRecovery(deployment([], [creating(native("Role", "r", inputs))]), client, {
      since: new Date(Date.now() - 1000),
    });
    expect(plan.decisions[0]).toMatchObject({ action: "import", id: obj.id });
    expect(plan.decisions[0].evidence).toMatch(/no creation time to check: its inputs decide/);
  });

  it("leaves to the refresh what it settles, and to the user what it cannot decide", async () => {
    const held = await make("Monitor", monitor());
    const plan = await planRecovery(
      deployment(
        [native("Monitor", "upd", monitor(), held.id)],
        [
          { type: "updating", resource: native("Monitor", "upd", monitor(), held.id) },
          { type: "deleting", resource: native("Monitor", "del", monitor(), "gone") },
          creating({
            urn: urnOf("aws:s3/bucket:Bucket", "b"),
            type: "aws:s3/bucket:Bucket",
            custom: true,
            inputs: {},
          }),
          creating(
            native("ApiToken", "t", { name: `t-${++serial}`, orgCapabilities: { monitors: ["read"] } }),
          ),
          creating(native("OrganizationName", "o", { name: "acme" })),
          creating(native("Monitor", "adopted", { ...monitor(), adopt: held.id })),
        ],
      ),
      client,
      { since: new Date(Date.now() - 1000) },
    );
    expect(plan.decisions.map((d) => d.action)).toEqual([
      "refresh",
      "refresh",
      "leave",
      "clear",
      "clear",
      "import",
    ]);
    expect(plan.decisions[2].evidence).toMatch(/not a resource of this package/);
    expect(plan.decisions[5]).toMatchObject({ id: held.id });
  });

  it("leaves an API token found for the user: its value was only in the lost answer", async () => {
    const inputs = { name: `tok-${++serial}`, orgCapabilities: { monitors: ["read"] } };
    const made = await make("ApiToken", inputs);
    const plan = await planRecovery(deployment([], [creating(native("ApiToken", "t", inputs))]), client, {
      since: new Date(Date.now() - 1000),
    });
    expect(plan.decisions[0]).toMatchObject({ action: "leave", candidates: [made.id] });
    expect(plan.decisions[0].evidence).toMatch(/secret value was only in the lost answer/);
  });
});

describe("dynamic resources", () => {
  const installed = readFileSync(
    path.join(__dirname, "..", "fixtures", "shims", "0.4.0-installed", "Monitor.js"),
    "utf8",
  );
  const byValue = readFileSync(
    path.join(__dirname, "..", "fixtures", "shims", "0.2.0", "Notifier.js"),
    "utf8",
  );

  it("reads the kind from the serialized provider, in both forms users' states hold", () => {
    expect(kindOfShim(installed)).toBe("Monitor");
    expect(kindOfShim(byValue)).toBe("Notifier");
    expect(kindOfResource("pulumi-nodejs:dynamic:Resource", { __provider: installed })).toBe("Monitor");
    expect(kindOfResource("observability:index:Role", {})).toBe("Role");
    expect(kindOfResource("observability:index:Nope", {})).toBeUndefined();
    expect(kindOfResource("aws:s3/bucket:Bucket", { __provider: installed })).toBeUndefined();
  });

  it("finds a dynamic monitor's object and keeps its shim in the outputs the refresh reads with", async () => {
    const inputs = monitor();
    const obj = await make("Monitor", inputs);
    const resource: StateResource = {
      urn: urnOf("pulumi-nodejs:dynamic/observability:Monitor", "dyn"),
      type: "pulumi-nodejs:dynamic/observability:Monitor",
      custom: true,
      inputs: { ...inputs, __provider: installed },
      parent: STACK,
      provider: "urn:pulumi:dev::recover-test::pulumi:providers:pulumi-nodejs::default::abc",
    };
    const exported: ExportedStack = {
      version: 3,
      deployment: {
        ...deployment([], [creating(resource)]),
      },
    };
    exported.deployment.resources!.push({
      urn: "urn:pulumi:dev::recover-test::pulumi:providers:pulumi-nodejs::default",
      type: "pulumi:providers:pulumi-nodejs",
      custom: true,
      id: "abc",
    });
    const plan = await planRecovery(exported.deployment, client, { since: new Date(Date.now() - 1000) });
    expect(plan.decisions[0]).toMatchObject({ action: "import", id: obj.id, kind: "Monitor" });
    const edited = editedDeployment(exported, plan);
    expect(edited.deployment.pending_operations).toEqual([]);
    const added = edited.deployment.resources!.find((r) => r.urn === resource.urn)!;
    expect(added).toMatchObject({ id: obj.id, outputs: { __provider: installed, name: inputs.name } });
    // Listed after its provider, which it refers to.
    const urns = edited.deployment.resources!.map((r) => r.urn);
    expect(urns.indexOf(resource.urn)).toBeGreaterThan(
      urns.indexOf("urn:pulumi:dev::recover-test::pulumi:providers:pulumi-nodejs::default"),
    );
  });
});

describe("the edited deployment", () => {
  it("imports, clears and keeps as decided, and marks the native provider's secret outputs secret", async () => {
    const properties = { slack: { slackUrl: "https://hooks.slack.test/EDITED-SECRET" } };
    const name = `n-${++serial}`;
    await make("Notifier", { name, properties });
    const left = monitor();
    await make("Monitor", left);
    await make("Monitor", left);
    const exported: ExportedStack = {
      version: 3,
      deployment: deployment(
        [],
        [
          creating(native("Notifier", "n", { name, properties: wrapSecret(properties) })),
          creating(native("Monitor", "gone", monitor())),
          creating(native("Monitor", "left", left)),
          { type: "updating", resource: native("Monitor", "u", monitor(), "m-1") },
        ],
      ),
    };
    const plan = await planRecovery(exported.deployment, client, { since: new Date(Date.now() - 1000) });
    expect(plan.decisions.map((d) => d.action)).toEqual(["import", "clear", "leave", "refresh"]);
    const edited = editedDeployment(exported, plan);
    expect(
      edited.deployment.pending_operations!.map((p) => [p.type, p.resource.urn.split("::").at(-1)]),
    ).toEqual([
      ["creating", "left"],
      ["updating", "u"],
    ]);
    const notifier = edited.deployment.resources!.find((r) => r.urn.endsWith("::n"))!;
    expect((notifier.outputs!.properties as Record<string, unknown>)[SECRET_SIG]).toBeDefined();
    expect(unwrapSecrets(notifier.outputs!.properties)).toEqual(properties);
    // The original is untouched.
    expect(exported.deployment.pending_operations).toHaveLength(4);
  });

  it("lists each added resource after its parent, provider and dependencies", () => {
    const r = (urn: string, extra: Partial<StateResource> = {}): StateResource => ({
      urn,
      type: "t",
      ...extra,
    });
    const out = placeAfterDependencies(
      [r("stack"), r("prov"), r("a"), r("b")],
      [r("x", { parent: "stack", provider: "prov::id", dependencies: ["a"] })],
    );
    expect(out.map((o) => o.urn)).toEqual(["stack", "prov", "a", "x", "b"]);
  });

  it("refuses a deployment whose secrets are encrypted rather than guess", () => {
    expect(() =>
      unwrapSecrets({ [SECRET_SIG]: "1b47061264138c4ac30d75fd1eb44270", ciphertext: "v1:abc" }),
    ).toThrow(/--show-secrets/);
  });
});
