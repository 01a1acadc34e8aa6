/**
 * The serialized shim and its permanent entry point, `require("pulumi-observability/dynamic").v1(kind, method,
 * args)` (see provider/resources/shim.ts):
 * - each of the seven methods passes its own name, and an unknown kind, method or call shape fails loudly;
 * - every shim text a released version wrote (golden copies in test/fixtures/shims/<version>/) still runs
 *   through the real host against the current code;
 * - configuration is in place before any call runs, even when Configure and the first calls arrive together.
 *
 * The current version's golden copies must equal what the classes serialize today. After a deliberate change of
 * the shim, bump package.json's version and write that version's copies with
 * `UPDATE_SHIM_GOLDENS=1 npx jest test/provider/shims.test.ts`; never edit or delete a released version's. The
 * form an installed package writes (a `require` of the kind's shim module) is kept in `<version>-installed/`,
 * which test/consumer compares with what a packed install serializes; its copies run through the host here too.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import * as path from "node:path";
// The built package, as users get it: under --coverage the sources are instrumented, and the serialized shim
// would carry the instrumentation instead of the text a release writes.
import { ObservabilityClient } from "../../provider/client";
import { normalize } from "../../provider/resources/descriptor";
import { SHIM_METHODS } from "../../provider/resources/shim";
import { KINDS, type ResourceKind } from "../../provider/resources/registry";
import { declareSample, SAMPLES } from "../helpers/samples";
import * as BUILT from "../../dist/provider/resources/registry";
import { useEmulator } from "../helpers/emulator";
import {
  linkedProgramDir,
  REPO_ROOT,
  startConfiguredHost,
  startProviderHost,
  urnOf,
  type ProviderHost,
} from "../helpers/host";
import { recordRegistrations, registered } from "../helpers/provider-text";

/* eslint-disable @typescript-eslint/no-explicit-any */
const requireFromString: (code: string, filename: string) => any = require("require-from-string");

const SHIMS_DIR = path.join(REPO_ROOT, "test", "fixtures", "shims");
const VERSION: string = JSON.parse(readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")).version;
const KIND_NAMES: ResourceKind[] = [...KINDS.keys()];
/** Inputs a golden shim's resource is created with, then changed to. */
const LIFECYCLE = SAMPLES;

// The samples' virtual fields live on `logs`, which must exist as a dataset.
const em = useEmulator({ datasets: ["logs"] });
let texts: Record<string, string>;
let host: ProviderHost;
let client: ObservabilityClient;

beforeAll(async () => {
  const seen = await recordRegistrations();
  // The built package's classes: the golden shims are compared with what a release serializes.
  const classes = BUILT.KIND_CLASSES;
  await Promise.all(KIND_NAMES.map((kind) => registered(declareSample(kind, kind, { classes }))));
  texts = Object.fromEntries(seen.map((r) => [r.type.split(":").pop()!, r.providerText]));
  if (process.env.UPDATE_SHIM_GOLDENS === "1") {
    mkdirSync(path.join(SHIMS_DIR, VERSION), { recursive: true });
    for (const kind of KIND_NAMES) writeFileSync(path.join(SHIMS_DIR, VERSION, `${kind}.js`), texts[kind]);
  }
  ({ host, client } = await startConfiguredHost(em.current));
});

afterAll(async () => {
  await host?.close();
  await client?.close();
});

const goldens: [string, ResourceKind, string][] = readdirSync(SHIMS_DIR, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .flatMap((d) =>
    KIND_NAMES.filter((k) => existsSync(path.join(SHIMS_DIR, d.name, `${k}.js`))).map(
      (k) =>
        [d.name, k, readFileSync(path.join(SHIMS_DIR, d.name, `${k}.js`), "utf8")] as [
          string,
          ResourceKind,
          string,
        ],
    ),
  );

describe("5. golden copies of every released shim", () => {
  it("the current version's golden copies are exactly what the classes serialize today", () => {
    for (const kind of KIND_NAMES) {
      const file = path.join(SHIMS_DIR, VERSION, `${kind}.js`);
      expect(existsSync(file)).toBe(true);
      expect(readFileSync(file, "utf8")).toBe(texts[kind]);
    }
  });

  it("the current version has a golden copy of every kind, and no version one of a kind no longer served", () => {
    const kindsOf = (version: string) =>
      goldens
        .filter(([v]) => v === version)
        .map(([, k]) => k)
        .sort();
    expect(kindsOf(VERSION)).toEqual([...KIND_NAMES].sort());
    const files = readdirSync(SHIMS_DIR, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .flatMap((d) => readdirSync(path.join(SHIMS_DIR, d.name)).map((f) => f.replace(/\.js$/, "")));
    for (const kind of files) expect(KIND_NAMES).toContain(kind);
  });

  it.each(goldens)(
    "%s %s: check, create, diff, update, read, get and delete run through the host on the current code",
    async (version, kind, text) => {
      const urn = urnOf(kind, `golden-${version}-${kind}`);
      const { args, change } = LIFECYCLE[kind];
      const checked = await host.check(urn, {}, { ...args, __provider: text });
      expect(checked.failures).toEqual([]);
      const made = await host.create(urn, checked.inputs);
      expect(made.properties.__provider).toBe(text);
      expect(await host.diff(urn, made.id, made.properties, checked.inputs)).toMatchObject({
        changes: "none",
      });
      const next = (await host.check(urn, checked.inputs, { ...change, __provider: text })).inputs;
      expect(await host.diff(urn, made.id, made.properties, next)).toMatchObject({ changes: "some" });
      const updated = await host.update(urn, made.id, made.properties, next);
      const read = await host.read(urn, made.id, updated.properties, next);
      expect(read.id).toBe(made.id);
      expect(read.inputs).toMatchObject(change);
      expect((await host.read(urn, made.id, {}, { __provider: text })).id).toBe(made.id);
      await host.delete(urn, made.id, read.properties, next);
      if (kind !== "OrganizationName") expect((await host.read(urn, made.id, read.properties)).id).toBe("");
      await expect(host.read(urn, `${made.id}-missing`, {}, { __provider: text })).rejects.toThrow(
        `no object with id ${made.id}-missing exists`,
      );
    },
  );

  // Up to 0.5.0, check put every default into the inputs and the outputs held every field the service returned.
  it.each(goldens)(
    "%s %s: a resource as that version left its state previews as no change, and its next up leaves the declared inputs",
    async (version, kind, text) => {
      const urn = urnOf(kind, `state-${version}-${kind}`);
      const { args } = LIFECYCLE[kind];
      const made = await host.create(urn, (await host.check(urn, {}, { ...args, __provider: text })).inputs);
      // That version's state: the declared inputs with the defaults filled in, and every output (what a get
      // returns, as that version's create and read did).
      const oldInputs = { ...args, ...normalize(KINDS.get(kind)!.rules, args), __provider: text };
      const oldOutputs = (await host.read(urn, made.id, {}, { __provider: text })).properties;
      // (All that this build's create holds, but what it carries from prior outputs, which a get has none of.)
      const carried = KINDS.get(kind)!.rules.carryKeys ?? [];
      const held = Object.keys(made.properties).filter((k) => !carried.includes(k));
      expect(Object.keys(oldOutputs)).toEqual(expect.arrayContaining(held));
      // This build's check: the declaration as declared, which the engine saves as the new inputs of a step
      // that changes nothing.
      const checked = await host.check(urn, oldInputs, { ...args, __provider: text });
      expect(checked.inputs).toEqual({ ...args, __provider: text });
      expect(await host.diff(urn, made.id, oldOutputs, checked.inputs)).toMatchObject({ changes: "none" });
      // A refresh keeps every output the state held, so it shows no change either.
      const refreshed = await host.read(urn, made.id, oldOutputs, oldInputs);
      expect(Object.keys(refreshed.properties).sort()).toEqual(Object.keys(oldOutputs).sort());
      expect(await host.diff(urn, made.id, refreshed.properties, checked.inputs)).toMatchObject({
        changes: "none",
      });
      await host.delete(urn, made.id, refreshed.properties, checked.inputs);
    },
  );
});

describe("4. each shim method names itself", () => {
  // The current shim text, loaded as the host loads it (require-from-string), from a program directory that
  // resolves pulumi-observability to this repository's dist/.
  let provider: Record<string, (...a: unknown[]) => Promise<any>>;
  let programDir: string;
  beforeAll(async () => {
    programDir = linkedProgramDir();
    provider = requireFromString(texts.Monitor, path.join(programDir, "shim.js")).handler();
    const config: Record<string, string> = {
      "observability:token": em.current.token,
      "observability:url": em.current.url,
    };
    await provider.configure({ config: { get: (k: string) => config[k] } });
  });
  afterAll(() => rmSync(programDir, { recursive: true, force: true }));

  it("offers exactly the seven methods", () => {
    expect(Object.keys(provider).sort()).toEqual([...SHIM_METHODS].sort());
  });

  it.each([
    ["configure", [{ config: {} }], "configure(object), but configure takes (req)"],
    ["check", [{}], "check(object), but check takes (olds, news)"],
    ["diff", ["mon_1", {}], "diff(string, object), but diff takes (id, olds, news)"],
    ["create", ["mon_1", {}, {}], "create(string, object, object), but create takes (inputs)"],
    ["read", [{}, {}], "read(object, object), but read takes (id, props?)"],
    ["update", ["mon_1", {}], "update(string, object), but update takes (id, olds, news)"],
    ["delete", ["mon_1", {}, {}], "delete(string, object, object), but delete takes (id, props)"],
  ])(
    "%s passes its own name: a call of another method's shape fails naming it",
    async (method, args, says) => {
      await expect(provider[method](...args)).rejects.toThrow(
        `the dynamic-provider host called Monitor.${says}`,
      );
    },
  );

  it("read(id) with no props, as a host might send it, reads rather than creates", async () => {
    const m = await client.monitors.create({ name: "read-one-arg", aplQuery: "x", type: "MatchEvent" });
    const before = (await client.monitors.list()).length;
    await expect(provider.read(m.id)).resolves.toMatchObject({ id: m.id, props: { name: "read-one-arg" } });
    expect((await client.monitors.list()).length).toBe(before);
  });

  it("delete(id, props, oldInputs) fails loudly instead of updating, and leaves the object", async () => {
    const m = await client.monitors.create({ name: "kept", aplQuery: "x", type: "MatchEvent" });
    const props = { name: "changed", aplQuery: "x", type: "MatchEvent" };
    await expect(provider.delete(m.id, props, props)).rejects.toThrow(
      "Monitor.delete(string, object, object)",
    );
    await expect(client.monitors.get(m.id)).resolves.toMatchObject({ name: "kept" });
  });

  it("the entry point refuses an unknown kind, method, or arguments that are not an array", async () => {
    const entry = require(path.join(REPO_ROOT, "dist", "provider", "resources", "dynamic.js"));
    await expect(entry.v1("Widget", "read", ["x", {}])).rejects.toThrow(
      'unknown resource kind "Widget"; this version serves Annotation, Monitor',
    );
    await expect(entry.v1("Monitor", "import", ["x"])).rejects.toThrow(
      'unknown provider method "import" for Monitor; the shim\'s methods are configure, check, diff',
    );
    await expect(entry.v1("Monitor", "read", "x")).rejects.toThrow("Monitor.read was called with string");
  });
});

describe("6. configuration is in place before any call runs", () => {
  // Decoy credentials in the host's environment: a call that ran before configure would fall back to them.
  const decoy = { OBSERVABILITY_TOKEN: "xaat-decoy-0123456789", OBSERVABILITY_URL: "http://127.0.0.1:9" };

  // What this one shows is that a burst sent right behind Configure uses the stack config, not the environment.
  // It cannot catch a missing wait for configure: the host stores Configure's arguments synchronously, and
  // `configure` applies them within microtasks of the first call, before the next gRPC message is handled. The
  // wait is pinned by the next test (through the host) and by the in-process one after it.
  it("Configure and a burst of Creates sent together through the host all use the stack config", async () => {
    const raced = await startProviderHost({
      config: { "observability:token": em.current.token, "observability:url": em.current.url },
      secretKeys: ["observability:token"],
      env: decoy,
    });
    try {
      // Configure goes first, as the engine sends it, but nothing waits for its answer: the first Create makes
      // the host load the shim and start `configure`, and the others reach the cached provider meanwhile.
      const configured = raced.configure();
      const creates = ["a", "b", "c", "d"].map((n) =>
        raced.create(urnOf("Monitor", `race-${n}`), {
          __provider: texts.Monitor,
          name: `race-${n}`,
          aplQuery: "x",
          type: "MatchEvent",
        }),
      );
      const role = raced.create(urnOf("Role", "race-role"), { __provider: texts.Role, name: "race-role" });
      const [, made] = await Promise.all([configured, Promise.all([...creates, role])]);
      for (const m of made) expect(m.id).toBeTruthy();
      const names = (await client.monitors.list()).map((m) => m.name);
      expect(names).toEqual(expect.arrayContaining(["race-a", "race-b", "race-c", "race-d"]));
      expect(raced.stderr()).not.toContain(em.current.token);
    } finally {
      await raced.close();
    }
  });

  it("Creates that reach the host while its configure fails all fail with that error; none uses the environment", async () => {
    const early = await startProviderHost({
      config: { "observability:token": em.current.token, "observability:url": em.current.url },
      env: decoy,
    });
    try {
      // No Configure yet, so the host's config object throws on every lookup (cmd/dynamic-provider/index.js,
      // getProvider: the provider is cached before `await provider.configure(req)`). The first Create starts
      // configure; the others reach the cached provider while it is failing or has failed. Without the wait they
      // would read the decoy credentials from the environment and try 127.0.0.1:9.
      const results = await Promise.allSettled(
        ["a", "b", "c", "d", "e"].map((n) =>
          early.create(urnOf("Monitor", `early-${n}`), {
            __provider: texts.Monitor,
            name: `early-${n}`,
            aplQuery: "x",
            type: "MatchEvent",
          }),
        ),
      );
      const reasons = results.map((r) => (r.status === "rejected" ? String(r.reason) : "created"));
      for (const reason of reasons) {
        expect(reason).toContain("the provider's configuration could not be read");
        expect(reason).not.toMatch(/127\.0\.0\.1:9|ECONNREFUSED|decoy/);
      }
    } finally {
      await early.close();
    }
  });

  it("a call made while configure is still running waits for it instead of using the environment", async () => {
    const entry = require(path.join(REPO_ROOT, "dist", "provider", "resources", "dynamic.js"));
    await entry.reset();
    const saved = { ...process.env };
    Object.assign(process.env, decoy);
    try {
      const config: Record<string, string> = {
        "observability:token": em.current.token,
        "observability:url": em.current.url,
      };
      // As the host does for parallel steps: configure is started, and a create runs before it has settled.
      const configuring = entry.v1("Monitor", "configure", [{ config: { get: (k: string) => config[k] } }]);
      const created = entry.v1("Monitor", "create", [
        { name: "after-configure", aplQuery: "x", type: "MatchEvent" },
      ]);
      await configuring;
      const { id } = await created;
      await expect(client.monitors.get(id)).resolves.toMatchObject({ name: "after-configure" });
    } finally {
      for (const k of Object.keys(decoy)) delete process.env[k];
      Object.assign(process.env, saved);
      await entry.reset();
    }
  });

  it("a configuration that cannot be read fails every call rather than falling back to the environment", async () => {
    const entry = require(path.join(REPO_ROOT, "dist", "provider", "resources", "dynamic.js"));
    await entry.reset();
    try {
      // The host's Config object before the Configure RPC has set its arguments: every lookup throws.
      const unset = { get: (k: string) => (undefined as unknown as Record<string, string>)[k] };
      await expect(entry.v1("Role", "configure", [{ config: unset }])).rejects.toThrow(
        "pulumi-observability: the provider's configuration could not be read",
      );
      await expect(entry.v1("Role", "create", [{ name: "never" }])).rejects.toThrow(
        "the provider's configuration could not be read",
      );
    } finally {
      await entry.reset();
    }
  });
});
