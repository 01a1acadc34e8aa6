/**
 * A create that makes its object and then fails a later step is returned as a partial create: the engine gets the
 * object's id and outputs in a `pulumirpc.ErrorResourceInitFailed` (pulumi/pulumi proto/pulumi/provider.proto), so
 * the object is recorded in the state, with the failure as its initialization error, instead of being orphaned.
 * The next `pulumi up` updates it, which finishes the create.
 *
 * Which creates take more than one request (each kind's declaration and client family): Dataset with map fields
 * that differ from the new dataset's (POST /v2/datasets, then PUT …/mapfields and a GET). Every other kind's
 * create is one request: one POST (the plain families, User, Dashboard, ApiToken), or for OrganizationName a GET
 * and then the one PUT that renames, with nothing after it. An adoption (a GET, then a PUT) makes no object.
 *
 * Both hosts: in process, through Pulumi's real dynamic-provider host (which packs an error carrying `id` into
 * that detail itself, @pulumi/pulumi cmd/dynamic-provider/index.js `grpcResponseFromError`), and through the
 * native plugin's gRPC server. The later step is failed by a proxy in front of the emulator.
 */
import { ObservabilityClient } from "../../provider/client";
import { Dataset } from "../../provider/resources";
import { resetCancellation, signalCancellation } from "../../provider/resources/cancellation";
import { PartialCreateError } from "../../provider/resources/lifecycle";
import {
  gate,
  proxiedClients,
  startFaultProxy,
  type FaultProxy,
  type ProxyFault,
} from "../helpers/fault-proxy";
import { providerTexts } from "../helpers/fault-run";
import { startConfiguredHost, urnOf } from "../helpers/host";
import { useEmulator } from "../helpers/emulator";
import type { InitFailure } from "../helpers/init-failure";
import { secret, startNative } from "../helpers/native";
import { checked } from "./support";

const em = useEmulator();
let proxy: FaultProxy | undefined;
let client: ObservabilityClient | undefined;
let oob: ObservabilityClient | undefined;

afterEach(async () => {
  resetCancellation();
  await client?.close();
  await oob?.close();
  await proxy?.close();
  proxy = client = oob = undefined;
});

/** Fails every PUT of map fields while `failing.now` holds (the client's retries included). */
function mapFieldsFail(failing: { now: boolean }) {
  return (method: string, path: string): ProxyFault =>
    failing.now && method === "PUT" && path.endsWith("/mapfields") ? "503" : undefined;
}

const declared = (name: string) => ({ name, mapFields: ["attrs", "labels"] });
const look = () => new ObservabilityClient({ url: em.current.url, token: em.current.token });
const caught = async (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );
const initFailureOf = (e: unknown) => (e as { initFailure?: InitFailure }).initFailure;

describe("Dataset with map fields: the map fields' request fails after the dataset was made", () => {
  it("in process: a PartialCreateError with the dataset's id and outputs; an update then finishes it", async () => {
    const failing = { now: true };
    ({ proxy, client, oob } = await proxiedClients(em.current, mapFieldsFail(failing), { maxRetries: 0 }));
    const impl = Dataset.declaration.lifecycle({ client: () => client!, secrets: () => [] });
    const inputs = await checked(impl, declared("pc-inproc"));
    const e = await caught(impl.create(inputs));
    expect(e).toBeInstanceOf(PartialCreateError);
    const partial = e as PartialCreateError;
    const made = await oob!.datasets.get("pc-inproc");
    expect(partial.id).toBe(made.id);
    expect(partial.properties).toMatchObject({ name: "pc-inproc" });
    expect(partial.inputs).toMatchObject(declared("pc-inproc"));
    expect(partial.message).toMatch(/^observability Dataset create failed: PUT .*mapfields failed with 503/);
    expect(partial.message).toContain("recorded in the stack's state");
    expect(partial.reasons).toEqual([partial.message]);
    // The next `pulumi up` updates the recorded resource (its init errors force it), which sets the map fields.
    failing.now = false;
    const { outs } = await impl.update(partial.id, partial.properties, inputs);
    expect([...(outs!.mapFields as string[])].sort()).toEqual(["attrs", "labels"]);
    expect([...(await oob!.datasets.get("pc-inproc")).mapFields!].sort()).toEqual(["attrs", "labels"]);
  });

  it("through Pulumi's dynamic-provider host: ErrorResourceInitFailed carries the id and the outputs with __provider", async () => {
    const failing = { now: true };
    proxy = await startFaultProxy(em.current.url, mapFieldsFail(failing));
    const texts = await providerTexts();
    const { host, client: direct } = await startConfiguredHost({ url: proxy.url, token: em.current.token });
    oob = direct;
    try {
      const urn = urnOf("Dataset", "pc-host");
      const { inputs } = await host.check(urn, {}, { ...declared("pc-host"), __provider: texts.Dataset });
      const e = await caught(host.create(urn, inputs));
      const detail = initFailureOf(e);
      expect(detail).toBeDefined();
      expect(detail!.id).toBe((await direct.datasets.get("pc-host")).id);
      // Later calls (the update that finishes it, a delete, a refresh) find the provider in these outputs.
      expect(detail!.properties).toMatchObject({ name: "pc-host", __provider: texts.Dataset });
      expect(detail!.reasons.join(" ")).toMatch(/mapfields failed with 503/);
      failing.now = false;
      const updated = await host.update(urn, detail!.id, detail!.properties, inputs);
      expect([...(updated.properties.mapFields as string[])].sort()).toEqual(["attrs", "labels"]);
    } finally {
      await host.close();
    }
  }, 180_000);

  it("through the native plugin's server: ErrorResourceInitFailed carries the id, outputs and inputs", async () => {
    const failing = { now: true };
    proxy = await startFaultProxy(em.current.url, mapFieldsFail(failing));
    oob = look();
    const native = await startNative();
    try {
      await native.configure({ url: proxy.url, token: secret(em.current.token) });
      const { inputs } = await native.check("Dataset", {}, declared("pc-native"));
      const e = await caught(native.create("Dataset", inputs));
      const detail = initFailureOf(e);
      expect(detail).toBeDefined();
      expect(detail!.id).toBe((await oob.datasets.get("pc-native")).id);
      expect(detail!.properties).toMatchObject({ name: "pc-native" });
      expect(detail!.inputs).toMatchObject(declared("pc-native"));
      expect(detail!.reasons.join(" ")).toMatch(/^observability Dataset create failed: PUT .*mapfields/);
      failing.now = false;
      const updated = await native.update("Dataset", detail!.id, detail!.properties, inputs);
      expect([...(updated.properties.mapFields as string[])].sort()).toEqual(["attrs", "labels"]);
    } finally {
      await native.close();
    }
  }, 180_000);
});

describe("Cancel (Ctrl-C): no new service work, the requests in flight finish and reach the engine", () => {
  it("a dataset whose POST is in flight at the cancel is returned made, without its map fields' request", async () => {
    const held = gate();
    const stored = gate();
    ({ proxy, client, oob } = await proxiedClients(em.current, (method) =>
      method === "POST" ? { answerAfter: held.done, answered: stored.open } : undefined,
    ));
    const impl = Dataset.declaration.lifecycle({ client: () => client!, secrets: () => [] });
    const inputs = await checked(impl, declared("pc-cancel"));
    const creating = caught(impl.create(inputs));
    await stored.done;
    signalCancellation();
    held.open();
    const e = (await creating) as PartialCreateError;
    expect(e).toBeInstanceOf(PartialCreateError);
    expect(e.id).toBe((await oob!.datasets.get("pc-cancel")).id);
    expect(e.message).toMatch(/map fields were not set: the operation was cancelled/);
    expect(proxy!.seen.filter((r) => r.startsWith("PUT"))).toEqual([]);
  });

  it("the native plugin's Cancel: a create that arrives after it sends nothing", async () => {
    proxy = await startFaultProxy(em.current.url, () => undefined);
    const native = await startNative();
    try {
      await native.configure({ url: proxy.url, token: secret(em.current.token) });
      const { inputs } = await native.check(
        "Monitor",
        {},
        { name: "pc-after", aplQuery: "x", type: "MatchEvent" },
      );
      await native.cancel();
      const e = (await caught(native.create("Monitor", inputs))) as Error;
      expect(e.message).toMatch(
        /^observability Monitor create failed: not started: the operation was cancelled/,
      );
      expect(initFailureOf(e)).toBeUndefined();
      expect(proxy.seen).toEqual([]);
    } finally {
      await native.close();
    }
  });
});
