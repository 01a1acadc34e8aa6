/**
 * What a resource's state holds, per kind: the inputs hold what was declared, the outputs what the service holds
 * apart from the defaults nobody declared, so that a resource costs the engine about what a provider that does
 * nothing costs it. The engine saves the whole state after every step of `pulumi up` (pulumi/pulumi
 * pkg/backend/snapshot.go, `SnapshotManager`: each step's mutation persists the whole snapshot), so `up`'s time
 * follows the bytes per resource (CONTRIBUTING.md, Benchmarks).
 *
 * And the diffs stay exact without the defaults in the state: declaring a value equal to the default changes
 * nothing, and removing a declared value sets the service back to the default.
 */
import { SECRET_KEYS, type DeclaredKindName } from "../../provider/resources/kinds";
import { KINDS, type ResourceKind } from "../../provider/resources/registry";
import { SAMPLES } from "../helpers/samples";
import { checked, created, useProvider, type Props } from "./support";

const { impl, client } = useProvider();

beforeAll(async () => {
  // The samples' annotations, virtual fields and views name it.
  await client().datasets.create({ name: "logs" });
});

/** A value marked secret, as the engine writes it to the state (ciphertext of the passphrase provider). */
function encrypted(value: unknown): Props {
  // v1:<12-byte nonce>:<ciphertext with its 16-byte tag>, base64 (pulumi/pulumi sdk/go/common/resource/config,
  // symmetricCrypter.EncryptValue): the same length for the same plaintext on both sides.
  const plaintext = Buffer.from(JSON.stringify(value));
  const sealed = Buffer.alloc(plaintext.length + 16);
  return {
    "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
    ciphertext: `v1:${Buffer.alloc(12).toString("base64")}:${sealed.toString("base64")}`,
  };
}

/**
 * The bytes one resource adds to `pulumi stack export`'s JSON (four-space indent, as the file backend writes it),
 * with the envelope every resource of a program has (pulumi/pulumi sdk/go/common/apitype/core.go,
 * ResourceV3): the same envelope for both sides, so they differ only by their inputs, outputs and id.
 */
function stateBytes(
  kind: string,
  id: string,
  inputs: Props,
  outputs: Props,
  secret: readonly string[],
): number {
  const seal = (props: Props) =>
    Object.fromEntries(Object.entries(props).map(([k, v]) => [k, secret.includes(k) ? encrypted(v) : v]));
  const stack = "urn:pulumi:dev::bench-engine::pulumi:pulumi:Stack::bench-engine-dev";
  const resource = {
    urn: `urn:pulumi:dev::bench-engine::observability:index:${kind}::${kind.toLowerCase()}-1`,
    custom: true,
    id,
    type: `observability:index:${kind}`,
    inputs: seal(inputs),
    outputs: seal(outputs),
    parent: stack,
    provider:
      "urn:pulumi:dev::bench-engine::pulumi:providers:observability::default_0_5_0::6a4c5e21-0d8c-4c7e-9b5e-2f1c3d4e5f60",
    propertyDependencies: Object.fromEntries(Object.keys(inputs).map((k) => [k, []])),
    created: "2026-11-28T03:00:00.000000000Z",
    modified: "2026-11-28T03:00:00.000000000Z",
    sourcePosition: "project:///index.ts#12,9",
  };
  const text = (resources: unknown[]) =>
    JSON.stringify({ version: 3, deployment: { resources } }, null, 4).length;
  return text([resource, resource]) - text([resource]);
}

describe("bytes per resource, against a provider that does nothing, for the same declaration", () => {
  // A no-op provider's Check returns the declared inputs, and its Create the inputs as outputs
  // (bench/native-noop.mts); its id is as long as `noop-<pid>-<n>`.
  test.each([...KINDS.keys()])(
    "%s: at most 1.2× the no-op's, or what its typed outputs need",
    async (kind) => {
      const declared = SAMPLES[kind].args;
      const lifecycle = impl(kind);
      const { id, outs, inputs } = await created(lifecycle, declared);
      const secret = [
        ...SECRET_KEYS.get(kind as DeclaredKindName)!.outputs,
        ...SECRET_KEYS.get(kind as DeclaredKindName)!.inputs,
      ];
      const ours = stateBytes(kind, id, inputs, outs, secret);
      const noop = stateBytes(kind, "noop-12345-1", declared, declared, secret);
      // The inputs are the declaration itself.
      expect(inputs).toEqual(declared);
      expect(ours / noop).toBeLessThanOrEqual(BOUND[kind] ?? 1.2);
      // Pinned, so a field that creeps back in shows here; ids and times have fixed lengths.
      expect({ kind, noop, ours }).toEqual({ kind, noop: PINNED[kind][0], ours: PINNED[kind][1] });
    },
  );
});

/** Each kind's bytes in the state after create (stateBytes): the no-op's, and ours. */
const PINNED: Record<ResourceKind, [number, number]> = {
  Annotation: [1260, 1324],
  Monitor: [1192, 1304],
  Notifier: [1601, 1716],
  Role: [937, 946],
  StarredQuery: [1487, 1494],
  OrganizationName: [1115, 3527],
  View: [1273, 1354],
  Group: [1147, 1197],
  User: [1186, 1255],
  VirtualField: [1296, 1307],
  ApiToken: [1476, 1878],
  Dashboard: [2748, 3199],
  Dataset: [952, 1307],
};

/**
 * The kinds above 1.2×: the service sets outputs that the SDKs type and users read, which a no-op cannot have,
 * none of them a default: an organization's license (a singleton per organization); a token's value (secret,
 * so ciphertext) and its id, which a rotation moves off the resource's id; a dataset's `created`, `updatedAt`,
 * `who`, `canWrite`, `edgeDeployment` and its URL.
 */
const BOUND: Partial<Record<ResourceKind, number>> = { OrganizationName: 3.2, ApiToken: 1.3, Dataset: 1.4 };

/**
 * Per kind, a field with a service default that an update in place sets, a value other than the default, and
 * the default as a program would declare it; a kind without such a field says why.
 */
const DEFAULTED: Record<ResourceKind, { key: string; value: unknown; declaredDefault: unknown } | string> = {
  Annotation: { key: "description", value: "rolled back", declaredDefault: "" },
  Monitor: { key: "notifyByGroup", value: true, declaredDefault: false },
  // The zero time is how a program spells "not disabled" (null is refused by check).
  Notifier: { key: "disabledUntil", value: "2030-01-01T00:00:00Z", declaredDefault: "0001-01-01T00:00:00Z" },
  Role: { key: "description", value: "on call", declaredDefault: "" },
  StarredQuery: "its fields have no service default",
  OrganizationName: "its fields have no service default",
  View: { key: "description", value: "errors only", declaredDefault: "" },
  Group: { key: "description", value: "on call", declaredDefault: "" },
  User: "its fields have no service default",
  VirtualField: { key: "description", value: "in ms", declaredDefault: "" },
  ApiToken: { key: "rotationGracePeriod", value: "1h", declaredDefault: "48h" },
  Dashboard: "its one default, `overwrite`, only tells a create to take over a dashboard of the same uid",
  Dataset: { key: "description", value: "app logs", declaredDefault: "" },
};

describe("diffs stay exact with no default in the state", () => {
  const withDefault = [...KINDS.keys()].filter((k) => typeof DEFAULTED[k] !== "string");

  test("every kind without a defaulted field says why, and every other one is tested", () => {
    for (const kind of KINDS.keys()) {
      const entry = DEFAULTED[kind];
      if (typeof entry === "string") {
        if (kind === "Dashboard") expect(Object.keys(defaultsOf(kind))).toEqual(["overwrite"]);
        else expect(Object.keys(defaultsOf(kind))).toEqual([]);
      } else {
        expect(defaultsOf(kind)).toHaveProperty(entry.key);
      }
    }
  });

  test.each(withDefault)(
    "%s: declaring the default is no change; declaring another value updates; removing it sets the default back",
    async (kind) => {
      const { key, value, declaredDefault } = DEFAULTED[kind] as Exclude<
        (typeof DEFAULTED)[ResourceKind],
        string
      >;
      const lifecycle = impl(kind);
      // Named apart from the objects the bytes' tests made (a dataset's name is unique).
      const sample = SAMPLES[kind].args;
      const base = typeof sample.name === "string" ? { ...sample, name: `${sample.name}-defaults` } : sample;
      const { id, outs, inputs } = await created(lifecycle, base);
      expect(outs).not.toHaveProperty(key);

      // Declared equal to the default: no change, against the outputs and against a refresh's.
      const asDefault = await checked(lifecycle, { ...base, [key]: declaredDefault }, inputs);
      expect(await lifecycle.diff(id, outs, asDefault)).toMatchObject({ changes: false });
      const read = await lifecycle.read(id, outs);
      expect(await lifecycle.diff(id, read.props!, asDefault)).toMatchObject({ changes: false });

      // Another value: an update, whose outputs hold the declared value.
      const changed = await checked(lifecycle, { ...base, [key]: value }, inputs);
      expect(await lifecycle.diff(id, outs, changed)).toMatchObject({ changes: true, diffs: [key] });
      const updated = (await lifecycle.update(id, outs, changed)).outs as Props;
      expect(updated[key]).toEqual(value);
      expect(await lifecycle.diff(id, updated, changed)).toMatchObject({ changes: false });

      // Removed: a change, and the update sets the default back, in the service (read back) and in the state.
      expect(await lifecycle.diff(id, updated, inputs)).toMatchObject({ changes: true, diffs: [key] });
      const reset = (await lifecycle.update(id, updated, inputs)).outs as Props;
      expect(reset).not.toHaveProperty(key);
      const after = await lifecycle.read(id, {});
      // A field the service does not hold (a dashboard's `overwrite`, a token's grace period) reads as absent.
      expect(after.props![key] ?? defaultsOf(kind)[key]).toEqual(defaultsOf(kind)[key]);
      expect(await lifecycle.diff(id, reset, inputs)).toMatchObject({ changes: false });
      expect(await lifecycle.diff(id, after.props!, inputs)).toMatchObject({ changes: false });
    },
  );
});

function defaultsOf(kind: ResourceKind): Props {
  return KINDS.get(kind)!.rules.defaults;
}
