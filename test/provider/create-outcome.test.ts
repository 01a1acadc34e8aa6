/**
 * A create (POST) hit by a fault after it may have reached the service, when the service cannot even be listed
 * to find out (every later request faulted), is not resent blindly: the engine error says plainly that the object
 * may exist and how to take it over. When the family cannot be listed before the POST (reconcile.ts takes that
 * baseline first), nothing is sent and nothing is claimed. Faults the service answers before processing (429,
 * 503) are retried. Reconciliation itself is tested in reconcile.test.ts.
 */
import { startEmulator, type RunningEmulator } from "../../emulator";
import { ObservabilityClient } from "../../provider/client";
import * as dynamic from "../../provider/resources/dynamic";
import { uncertainCreateAdvice } from "../../provider/resources/lifecycle";
import { Monitor } from "../../provider/resources/monitor";
import { startFaultProxy, type FaultProxy, type ProxyFault } from "../helpers/fault-proxy";
import { checked, configureProvider, messageOf } from "./support";

const monitor = { name: "errors", aplQuery: "['logs'] | count", type: "MatchEvent" };
const impl = () => dynamic.implementation("Monitor");

let em: RunningEmulator | undefined;
let proxy: FaultProxy | undefined;
let client: ObservabilityClient | undefined;
afterEach(async () => {
  await client?.close();
  await proxy?.close();
  await em?.close();
  em = proxy = client = undefined;
  await dynamic.reset();
});

/** The monitor lifecycle behind a proxy that answers the first GET (the baseline listing) and faults the rest. */
async function afterBaseline(fault: ProxyFault) {
  em = await startEmulator({ port: 0, host: "127.0.0.1" });
  proxy = await startFaultProxy(em.url, (method, _path, nth) =>
    method === "GET" && nth === 0 ? undefined : fault,
  );
  client = new ObservabilityClient({ url: proxy.url, token: em.token, maxRetries: 1 });
  return Monitor.declaration.lifecycle({
    client: () => client!,
    secrets: () => [em!.token],
  });
}

const proxiedPosts = () => proxy!.seen.filter((r) => r.startsWith("POST")).length;

describe("a create whose outcome is unknown", () => {
  it.each([
    ["500", "500" as const],
    ["502", "502" as const],
    ["a dropped connection", "drop" as const],
    ["500 after processing", "500after" as const],
  ])(
    "under %s: sent once, and the error says the monitor may exist and how to adopt it",
    async (_f, fault) => {
      const lc = await afterBaseline(fault);
      const message = await messageOf(lc.create(await checked(lc, monitor)));

      expect(message).toMatch(/^observability Monitor create failed: POST \/v2\/monitors /);
      expect(message).toContain("may or may not have been processed");
      expect(message).toContain("looking for it failed too: GET /v2/monitors");
      expect(message).toContain(uncertainCreateAdvice(true));
      expect(message).toContain('adopt: "<its id>"');
      expect(message).not.toContain(em!.token);
      expect(proxiedPosts()).toBe(1);
    },
    20_000,
  );

  it.each([
    ["500", "500=1"],
    ["a dropped connection", "drop=1"],
  ])(
    "under %s on every request, the listing before the POST fails: nothing is sent, and no advice to adopt",
    async (_f, faults) => {
      em = await startEmulator({ port: 0, host: "127.0.0.1", faults, record: true });
      await configureProvider(em.url, em.token);
      const message = await messageOf(impl().create(await checked(impl(), monitor)));
      expect(message).toMatch(/^observability Monitor create failed: GET \/v2\/monitors /);
      expect(message).not.toContain("adopt");
      expect(em.received.filter((r) => r.method === "POST")).toHaveLength(0);
    },
    20_000,
  );
});

describe("faults the service answers before processing", () => {
  it("a 503 on every request is retried, then reported without claiming the create may have happened", async () => {
    const lc = await afterBaseline("503");
    const message = await messageOf(lc.create(await checked(lc, monitor)));
    expect(message).toMatch(/^observability Monitor create failed: POST \/v2\/monitors failed with 503/);
    expect(message).not.toContain("may have been created");
    expect(proxiedPosts()).toBeGreaterThan(1);
  }, 20_000);

  it("an update (PUT) is not given the create advice: it is idempotent and was retried", async () => {
    em = await startEmulator({ port: 0, host: "127.0.0.1", faults: "502=1", record: true });
    await configureProvider(em.url, em.token);
    const message = await messageOf(impl().update("mon_1", {}, await checked(impl(), monitor)));
    expect(message).toMatch(
      /^observability Monitor update failed: PUT \/v2\/monitors\/mon_1 failed with 502/,
    );
    expect(message).not.toContain("may have been created");
    expect(em.received.filter((r) => r.method === "PUT").length).toBeGreaterThan(1);
  }, 20_000);
});
