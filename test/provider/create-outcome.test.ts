/**
 * A create (POST) hit by a fault after it may have reached the service, when the service cannot even be listed
 * to find out (every request faulted), is not resent blindly: the engine error says plainly that the object may
 * exist and how to take it over. Faults the service answers before processing (429, 503) are retried. One
 * emulator per fault kind. Reconciliation itself is tested in reconcile.test.ts.
 */
import { startEmulator, type RunningEmulator } from "../../emulator";
import * as dynamic from "../../provider/resources/dynamic";
import { uncertainCreateAdvice } from "../../provider/resources/lifecycle";
import { checked, configureProvider, messageOf } from "./support";

const monitor = { name: "errors", aplQuery: "['logs'] | count", type: "MatchEvent" };
const impl = () => dynamic.implementation("Monitor");

let em: RunningEmulator | undefined;
afterEach(async () => {
  await em?.close();
  em = undefined;
  await dynamic.reset();
});

const posts = () => em!.received.filter((r) => r.method === "POST").length;

describe("a create whose outcome is unknown", () => {
  it.each([
    ["500", "500=1"],
    ["502", "502=1"],
    ["a dropped connection", "drop=1"],
    ["500 after processing", "500after=1"],
  ])(
    "under %s: sent once, and the error says the monitor may exist and how to adopt it",
    async (_f, faults) => {
      em = await startEmulator({ port: 0, host: "127.0.0.1", faults, record: true });
      await configureProvider(em.url, em.token);
      const message = await messageOf(impl().create(await checked(impl(), monitor)));

      expect(message).toMatch(/^observability Monitor create failed: POST \/v2\/monitors /);
      expect(message).toContain("may or may not have been processed");
      expect(message).toContain(uncertainCreateAdvice("Monitor", true));
      expect(message).toContain('adopt: "<its id>"');
      expect(message).not.toContain(em.token);
      expect(posts()).toBe(1);
    },
  );
});

describe("faults the service answers before processing", () => {
  it("a 503 on every request is retried, then reported without claiming the create may have happened", async () => {
    em = await startEmulator({ port: 0, host: "127.0.0.1", faults: "503=1", record: true });
    await configureProvider(em.url, em.token);
    const message = await messageOf(impl().create(await checked(impl(), monitor)));
    expect(message).toMatch(/^observability Monitor create failed: POST \/v2\/monitors failed with 503/);
    expect(message).not.toContain("may have been created");
    expect(posts()).toBeGreaterThan(1);
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
