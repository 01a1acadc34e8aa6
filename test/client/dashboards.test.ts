/** The dashboards family of the client against a real emulator: typed results, and 409/412/404 as typed errors. */
import {
  ConflictError,
  NotFoundError,
  ObservabilityClient,
  PreconditionFailedError,
  UnprocessableEntityError,
} from "../../provider/client";
import { useEmulator } from "../helpers/emulator";

const em = useEmulator();
let client: ObservabilityClient;
beforeAll(() => {
  client = new ObservabilityClient({ url: em.current.url, token: em.current.token, maxRetries: 0 });
});
afterAll(() => client.close());

const document = (text: string) => ({
  name: "client",
  charts: [{ id: "n", type: "Note", text }],
  layout: [{ i: "n", x: 0, y: 0, w: 4, h: 4 }],
  refreshTime: 60,
  schemaVersion: 2,
  timeWindowStart: "qr-now-1h",
  timeWindowEnd: "qr-now",
});

it("creates, reads, updates with the version, patches a chart, lists and deletes by uid", async () => {
  const created = await client.dashboards.create({ uid: "client-1", dashboard: document("a"), message: "m" });
  expect(created).toMatchObject({ status: "created", dashboard: { uid: "client-1", version: 1 } });
  expect(await client.dashboards.get("client-1")).toEqual(created.dashboard);
  const updated = await client.dashboards.update("client-1", { dashboard: document("b"), version: 1 });
  expect(updated.dashboard).toMatchObject({ version: 2, dashboard: { charts: [{ text: "b" }] } });
  const patched = await client.dashboards.patchChart("client-1", "n", { text: "c" }, { version: 2 });
  expect(patched.dashboard).toMatchObject({ version: 3, dashboard: { charts: [{ id: "n", text: "c" }] } });
  expect((await client.dashboards.list({ limit: 1000 })).map((d) => d.uid)).toContain("client-1");
  expect((await client.dashboards.listAll()).map((d) => d.uid)).toContain("client-1");
  await client.dashboards.delete("client-1");
  await expect(client.dashboards.get("client-1")).rejects.toBeInstanceOf(NotFoundError);
});

it("a stale version is a PreconditionFailedError carrying the service's currentVersion", async () => {
  await client.dashboards.create({ uid: "client-2", dashboard: document("a") });
  await client.dashboards.update("client-2", { dashboard: document("b"), overwrite: true });
  const e = await client.dashboards
    .update("client-2", { dashboard: document("c"), version: 1 })
    .catch((x) => x);
  expect(e).toBeInstanceOf(PreconditionFailedError);
  expect(e).toMatchObject({ status: 412, currentVersion: 2, serviceMessage: "dashboard version mismatch" });
  expect(e.message).toContain("PUT /v2/dashboards/uid/client-2 failed with 412");
});

it("an existing uid is a ConflictError; an invalid document an UnprocessableEntityError naming the field", async () => {
  await client.dashboards.create({ uid: "client-3", dashboard: document("a") });
  await expect(
    client.dashboards.create({ uid: "client-3", dashboard: document("a") }),
  ).rejects.toBeInstanceOf(ConflictError);
  const e = await client.dashboards
    .create({ dashboard: { ...document("a"), refreshTime: 30 } })
    .catch((x) => x);
  expect(e).toBeInstanceOf(UnprocessableEntityError);
  expect(e.message).toContain("dashboard.refreshTime: must be one of 15, 60, 300");
});

it("percent-encodes a uid and a chart id in the path (axiom-js packages/js/test/unit/dashboards.test.ts:32-45)", async () => {
  const e = await client.dashboards.get("folder/dashboard #1").catch((x) => x);
  expect(e).toBeInstanceOf(NotFoundError);
  expect(e.path).toBe("/v2/dashboards/uid/folder%2Fdashboard%20%231");
});
