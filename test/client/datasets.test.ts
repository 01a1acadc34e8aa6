/**
 * The client's `datasets` family against a real emulator: every method, the requests it sends (as axiom-go sends
 * them, axiom/datasets.go), and the error classes of its failures. Also `--data` persistence of what the family
 * changes in the event store: a delete drops the events and a trim the older ones, across a kill.
 */
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEmulator } from "../../emulator";
import {
  ConflictError,
  NotFoundError,
  ObservabilityClient,
  RateLimitError,
  UnprocessableEntityError,
} from "../../provider/client";
import { useEmulator } from "../helpers/emulator";

const em = useEmulator({ record: true });
let client: ObservabilityClient;

beforeAll(() => {
  client = new ObservabilityClient({ url: em.current.url, token: em.current.token });
});
afterAll(() => client.close());

const lastRequest = () => em.current.received[em.current.received.length - 1];
const ALL_TIME = { startTime: "2000-01-01T00:00:00Z", endTime: "now+1h" };

describe("client.datasets", () => {
  it("create, get, list, update and delete; update sends only description and retention", async () => {
    const created = await client.datasets.create({
      name: "client-ds",
      kind: "otel:logs:v1",
      description: "",
      retentionDays: 0,
      useRetentionPeriod: false,
    });
    expect(created).toMatchObject({ id: "client-ds", name: "client-ds", kind: "otel:logs:v1" });
    expect(await client.datasets.get("client-ds")).toEqual(created);
    expect((await client.datasets.list()).map((d) => d.id)).toContain("client-ds");

    const updated = await client.datasets.update("client-ds", {
      description: "d",
      retentionDays: 3,
      useRetentionPeriod: true,
    });
    expect(lastRequest()).toMatchObject({ method: "PUT", path: "/v2/datasets/client-ds" });
    expect(JSON.parse(lastRequest().body.toString())).toEqual({
      description: "d",
      retentionDays: 3,
      useRetentionPeriod: true,
    });
    expect(updated).toMatchObject({ description: "d", retentionDays: 3, useRetentionPeriod: true });

    await client.datasets.delete("client-ds");
    await expect(client.datasets.get("client-ds")).rejects.toBeInstanceOf(NotFoundError);
  });

  it("a name clash is a ConflictError; an invalid name an UnprocessableEntityError naming it", async () => {
    await client.datasets.create({ name: "client-clash" });
    await expect(client.datasets.create({ name: "client-clash" })).rejects.toBeInstanceOf(ConflictError);
    await expect(client.datasets.create({ name: "axiom-reserved" })).rejects.toMatchObject({
      constructor: UnprocessableEntityError,
      status: 422,
      message: expect.stringMatching(/name: must not start with 'axiom-'/),
    });
  });

  it("fields: list, get and update the settings of what ingest has seen", async () => {
    await client.datasets.create({ name: "client-fields" });
    expect(await client.datasets.listFields("client-fields")).toEqual([]);
    await client.ingest("client-fields", [{ latency: 12, route: "/" }]);
    const names = (await client.datasets.listFields("client-fields")).map((f) => f.name);
    expect(names).toEqual(expect.arrayContaining(["latency", "route"]));
    expect(await client.datasets.getField("client-fields", "latency")).toMatchObject({ type: "integer" });
    const field = await client.datasets.updateField("client-fields", "latency", {
      name: "latency",
      type: "integer",
      unit: "ms",
      description: "request latency",
    });
    expect(field).toMatchObject({ name: "latency", unit: "ms", description: "request latency" });
    await expect(client.datasets.getField("client-fields", "nope")).rejects.toBeInstanceOf(NotFoundError);
  });

  it("map fields: add, list, put and delete; errors as axiom-go's integration test expects them", async () => {
    await client.datasets.create({ name: "client-maps" });
    expect(await client.datasets.addMapField("client-maps", { name: "attrs" })).toEqual({ name: "attrs" });
    expect(lastRequest()).toMatchObject({ method: "POST", path: "/v2/datasets/client-maps/mapfields" });
    await expect(client.datasets.addMapField("client-maps", { name: "attrs" })).rejects.toBeInstanceOf(
      ConflictError,
    );
    expect(await client.datasets.listMapFields("client-maps")).toEqual(["attrs"]);
    expect(await client.datasets.putMapFields("client-maps", ["a", "b"])).toEqual(["a", "b"]);
    await client.datasets.deleteMapField("client-maps", "a");
    expect((await client.datasets.get("client-maps")).mapFields).toEqual(["b"]);
    await expect(client.datasets.deleteMapField("client-maps", "a")).rejects.toBeInstanceOf(NotFoundError);
    await expect(client.datasets.putMapFields("client-maps", ["x", "x"])).rejects.toBeInstanceOf(
      UnprocessableEntityError,
    );
  });

  it("trim sends {maxDuration} as axiom-go does and resolves on the 204; vacuum resolves on the 200", async () => {
    await client.datasets.create({ name: "client-trim" });
    await client.ingest("client-trim", [{ _time: "2020-01-01T00:00:00Z", old: true }, { old: false }]);
    await client.datasets.trim("client-trim", { maxDuration: "24h" });
    expect(lastRequest()).toMatchObject({ method: "POST", path: "/v2/datasets/client-trim/trim" });
    expect(JSON.parse(lastRequest().body.toString())).toEqual({ maxDuration: "24h" });
    const rows = await client.query("['client-trim']", ALL_TIME);
    expect(rows.matches?.map((m) => m.data)).toEqual([{ old: false }]);
    await client.datasets.vacuum("client-trim");
    // A second one too soon is the documented 429, which the client retries after Retry-After; unretried here.
    const impatient = new ObservabilityClient({
      url: em.current.url,
      token: em.current.token,
      maxRetries: 0,
    });
    try {
      await expect(impatient.datasets.vacuum("client-trim")).rejects.toBeInstanceOf(RateLimitError);
    } finally {
      await impatient.close();
    }
  });
});

describe("--data keeps what deletes and trims did to the events, across a kill", () => {
  it("a deleted dataset's events and a trim's older events stay gone after a restart", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ds-data-"));
    try {
      const dataFile = join(dir, "state.json");
      const first = await startEmulator({ port: 0, dataFile, datasets: ["gone", "trimmed"] });
      const c = new ObservabilityClient({ url: first.url, token: first.token });
      await c.ingest("gone", [{ a: 1 }]);
      await c.ingest("trimmed", [{ _time: "2020-01-01T00:00:00Z", a: 1 }, { a: 2 }]);
      await c.datasets.delete("gone");
      await c.datasets.trim("trimmed", { maxDuration: "1h" });
      await c.datasets.create({ name: "gone" });
      await c.close();
      // As if killed: the files as they are now, without the first emulator's close.
      const copy = mkdtempSync(join(dir, "copy-"));
      for (const name of readdirSync(dir))
        if (name.startsWith("state.json")) copyFileSync(join(dir, name), join(copy, name));
      await first.close();
      const second = await startEmulator({ port: 0, dataFile: join(copy, "state.json") });
      const d = new ObservabilityClient({ url: second.url, token: second.token });
      try {
        expect((await d.query("['gone']", ALL_TIME)).matches).toEqual([]);
        expect((await d.query("['trimmed']", ALL_TIME)).matches?.map((m) => m.data)).toEqual([{ a: 2 }]);
      } finally {
        await d.close();
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
