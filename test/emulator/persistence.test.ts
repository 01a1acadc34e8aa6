/** `dataFile`: state and datasets survive a restart; a corrupt file is a clear startup error. */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEmulator } from "../../emulator";
import { api } from "../helpers/emulator";

const dir = mkdtempSync(join(tmpdir(), "emulator-data-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("objects and events are back after a restart with the same data file", async () => {
  const dataFile = join(dir, "state.json");
  const first = await startEmulator({ port: 0, dataFile });
  const ann = (await api(first, "POST", "/v2/annotations", { datasets: ["p"], type: "deploy" })).body;
  const mon = (await api(first, "POST", "/v2/monitors", { name: "m", aplQuery: "['p']", type: "MatchEvent" }))
    .body;
  const notif = (
    await api(first, "POST", "/v2/notifiers", { name: "n", properties: { email: { emails: ["a@b.co"] } } })
  ).body;
  const role = (await api(first, "POST", "/v2/rbac/roles", { name: "persisted" })).body;
  const sq = (
    await api(first, "POST", "/v2/apl-starred-queries", {
      kind: "apl",
      name: "q",
      who: "local-user",
      metadata: {},
      query: { apl: "['p']" },
    })
  ).body;
  await api(first, "PUT", `/v2/orgs/${first.orgId}`, { name: "Kept Name" });
  const ing = await api(first, "POST", "/v1/datasets/persisted/ingest", [
    { _time: "2024-01-01T00:00:00.000000001Z", n: 1 },
    { _time: "2024-01-01T00:00:02Z", n: 2 },
  ]);
  expect(ing.body.ingested).toBe(2);
  await first.close();
  // Written by rename from a temporary file: nothing else is left in the directory.
  expect(readdirSync(dir)).toEqual(["state.json"]);
  expect(readFileSync(dataFile, "utf8")).not.toContain(first.token);

  const second = await startEmulator({ port: 0, dataFile });
  try {
    expect((await api(second, "GET", `/v2/annotations/${ann.id}`)).body).toEqual(ann);
    expect((await api(second, "GET", `/v2/monitors/${mon.id}`)).body).toEqual(mon);
    expect((await api(second, "GET", `/v2/notifiers/${notif.id}`)).body).toEqual(notif);
    expect((await api(second, "GET", `/v2/rbac/roles/${role.id}`)).body).toEqual(role);
    expect((await api(second, "GET", `/v2/apl-starred-queries/${sq.id}`)).body).toEqual(sq);
    expect((await api(second, "GET", `/v2/orgs/${second.orgId}`)).body.name).toBe("Kept Name");
    const hist = await api(second, "GET", `/v2/monitors/${mon.id}/history?startTime=now-1h&endTime=now%2B1h`);
    expect(hist.body).toHaveLength(1);
    const q = await api(second, "POST", "/v1/datasets/_apl", {
      apl: "['persisted'] | sort by _time asc",
      startTime: "2023-01-01T00:00:00Z",
      endTime: "2025-01-01T00:00:00Z",
    });
    expect(q.body.matches.map((m: { _time: string; data: unknown }) => [m._time, m.data])).toEqual([
      ["2024-01-01T00:00:00.000000001Z", { n: 1 }],
      ["2024-01-01T00:00:02Z", { n: 2 }],
    ]);
    // Still unique names after the reload.
    expect((await api(second, "POST", "/v2/rbac/roles", { name: "persisted" })).status).toBe(409);
  } finally {
    await second.close();
  }
});

it("writes after each mutation, before close", async () => {
  const dataFile = join(dir, "live.json");
  const em = await startEmulator({ port: 0, dataFile });
  try {
    await api(em, "POST", "/v2/rbac/roles", { name: "early" });
    await new Promise((r) => setTimeout(r, 400));
    expect(readFileSync(dataFile, "utf8")).toContain('"early"');
  } finally {
    await em.close();
  }
});

it.each([
  ["not JSON", "{oops"],
  ["JSON of another kind", '{"hello":"world"}'],
  ["a broken collection", '{"format":"pulumi-observability-emulator","state":{"monitors":"x"}}'],
])("a corrupt file (%s) is a clear startup error naming the file", async (_name, content) => {
  const dataFile = join(dir, `corrupt-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(dataFile, content);
  await expect(startEmulator({ port: 0, dataFile })).rejects.toThrow(
    `emulator data file ${dataFile} is corrupt`,
  );
});

it("a missing file starts empty and is created on the first change", async () => {
  const dataFile = join(dir, "new.json");
  const em = await startEmulator({ port: 0, dataFile });
  expect((await api(em, "GET", "/v2/monitors")).body).toEqual([]);
  await api(em, "POST", "/v2/annotations", { datasets: ["x"], type: "t" });
  await em.close();
  expect(JSON.parse(readFileSync(dataFile, "utf8")).state.annotations).toHaveLength(1);
});

it("a write that fails is retried by the next flush, not forgotten", async () => {
  const sub = join(dir, "vanishing");
  mkdirSync(sub);
  const dataFile = join(sub, "state.json");
  const em = await startEmulator({ port: 0, dataFile });
  try {
    // The directory disappears before the debounced write: that write fails.
    rmSync(sub, { recursive: true });
    await api(em, "POST", "/v2/rbac/roles", { name: "unsaved" });
    await new Promise((r) => setTimeout(r, 400));
    mkdirSync(sub);
  } finally {
    await em.close();
  }
  expect(readdirSync(sub)).toEqual(["state.json"]);
  expect(readFileSync(dataFile, "utf8")).toContain('"unsaved"');
});

it("writes a large dataset a bounded line at a time, and loads it back whole", async () => {
  const dataFile = join(dir, "lines.json");
  const em = await startEmulator({ port: 0, dataFile });
  const batch = (k: number) =>
    Array.from({ length: 10_000 }, (_, i) => ({ i: k * 10_000 + i, pad: "x".repeat(50) }));
  for (let k = 0; k < 3; k++) {
    expect((await api(em, "POST", "/v1/datasets/many/ingest", batch(k))).body.ingested).toBe(10_000);
  }
  await em.close();
  const lines = readFileSync(dataFile, "utf8").trimEnd().split("\n");
  // A header, then 30,000 rows in lines of at most 5,000: no line grows with the dataset.
  expect(lines).toHaveLength(7);
  expect(Math.max(...lines.map((l) => l.length))).toBeLessThan(1_000_000);

  const again = await startEmulator({ port: 0, dataFile });
  try {
    const res = await api(again, "POST", "/v1/datasets/_apl", {
      apl: "['many'] | summarize count(), dcount(i)",
      startTime: "now-1h",
      endTime: "now+1h",
    });
    expect(res.body.buckets.totals[0].aggregations.map((a: { value: number }) => a.value)).toEqual([
      30_000, 30_000,
    ]);
  } finally {
    await again.close();
  }
});

it("still loads a version 1 file (one JSON document holding every row)", async () => {
  const dataFile = join(dir, "v1.json");
  writeFileSync(
    dataFile,
    JSON.stringify({
      format: "pulumi-observability-emulator",
      version: 1,
      state: { roles: [{ id: "role_1", name: "old" }] },
      datasets: {
        seq: 1,
        datasets: {
          d: [["1704067200000000000", "1704067200000000000", "c000000000000000000000000000", { n: 1 }]],
        },
      },
    }),
  );
  const em = await startEmulator({ port: 0, dataFile });
  try {
    expect((await api(em, "GET", "/v2/rbac/roles/role_1")).body).toEqual({ id: "role_1", name: "old" });
    const res = await api(em, "POST", "/v1/datasets/_apl", {
      apl: "['d']",
      startTime: "2023-01-01T00:00:00Z",
      endTime: "2025-01-01T00:00:00Z",
    });
    expect(res.body.matches.map((m: { data: unknown }) => m.data)).toEqual([{ n: 1 }]);
  } finally {
    await em.close();
  }
});

it("removes the temporary file a killed emulator left half-written, and only that", async () => {
  const sub = mkdtempSync(join(dir, "stale-"));
  const dataFile = join(sub, "state.json");
  // Past the largest pid Linux hands out, so no live process owns it; our own pid is alive.
  const stale = "state.json.4194305.deadbeef.tmp";
  const live = `state.json.${process.pid}.cafef00d.tmp`;
  for (const name of [stale, live, "other.4194305.deadbeef.tmp"]) writeFileSync(join(sub, name), '{"half');
  const em = await startEmulator({ port: 0, dataFile });
  await em.close();
  expect(readdirSync(sub).sort()).toEqual([live, "other.4194305.deadbeef.tmp"].sort());
});
