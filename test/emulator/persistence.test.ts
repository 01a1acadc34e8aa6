/**
 * `dataFile`: state and datasets survive a restart; every change is in the journal before its reply; a torn
 * journal tail is skipped and counted; a corrupt file is a clear startup error. The kill -9 runs against the CLI
 * are in durability.test.ts.
 */
import {
  copyFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { startEmulator } from "../../emulator";
import { api } from "../helpers/emulator";

const dir = mkdtempSync(join(tmpdir(), "emulator-data-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Copies the data file and its journal segments, as they are on disk now, into a new directory: what a restart
 * would find had the emulator been killed at this instant. Returns the copy's data file.
 */
function copyAsIfKilled(dataFile: string): string {
  const to = mkdtempSync(join(dir, "killed-"));
  for (const name of readdirSync(dirname(dataFile))) {
    if (name === basename(dataFile) || name.startsWith(`${basename(dataFile)}.journal.`)) {
      copyFileSync(join(dirname(dataFile), name), join(to, name));
    }
  }
  return join(to, basename(dataFile));
}

const line = (entry: unknown) => `${JSON.stringify(entry)}\n`;
const rolePut = (id: string, name: string) => ({ put: "roles", obj: { id, name } });

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
  const dataset = (await api(first, "POST", "/v2/datasets", { name: "persisted" })).body;
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
    expect((await api(second, "GET", "/v2/datasets/persisted")).body).toEqual(dataset);
    const hist = await api(second, "GET", `/v2/monitors/${mon.id}/history?startTime=now-1h&endTime=now%2B1h`);
    // Never run, so never alerted: an empty history (restarts keeping alerts: test/emulator/monitors-run.test.ts).
    expect(hist.status).toBe(200);
    expect(hist.body).toEqual([]);
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

it("every change is on disk when its reply arrives: a restart right after it finds the change", async () => {
  const dataFile = join(dir, "live.json");
  const em = await startEmulator({ port: 0, dataFile, datasets: ["live"] });
  try {
    const role = (await api(em, "POST", "/v2/rbac/roles", { name: "early" })).body;
    const mon = (await api(em, "POST", "/v2/monitors", { name: "m", aplQuery: "['p']", type: "MatchEvent" }))
      .body;
    await api(em, "PUT", `/v2/rbac/roles/${role.id}`, { name: "renamed" });
    await api(em, "POST", "/v1/datasets/live/ingest", [{ n: 1 }, { n: 2 }]);
    await api(em, "DELETE", `/v2/monitors/${mon.id}`);
    // No wait and no close: the copy is what a kill -9 at this instant would leave.
    const after = await startEmulator({ port: 0, dataFile: copyAsIfKilled(dataFile) });
    try {
      // Five requests, and the start that created the dataset `live`.
      expect(after.recovery).toEqual({ snapshot: false, replayed: 6, skipped: 0 });
      expect((await api(after, "GET", `/v2/rbac/roles/${role.id}`)).body).toEqual({
        ...role,
        name: "renamed",
      });
      expect((await api(after, "GET", `/v2/monitors/${mon.id}`)).status).toBe(404);
      const q = await api(after, "POST", "/v1/datasets/_apl", {
        apl: "['live'] | summarize count()",
        startTime: "now-1h",
        endTime: "now+1h",
      });
      expect(q.body.buckets.totals[0].aggregations[0].value).toBe(2);
      // Later events get row ids after the replayed ones: the cursor order still holds.
      await api(after, "POST", "/v1/datasets/live/ingest", [{ n: 3 }]);
      const rows = await api(after, "POST", "/v1/datasets/_apl", {
        apl: "['live'] | sort by _rowId asc",
        startTime: "now-1h",
        endTime: "now+1h",
      });
      expect(new Set(rows.body.matches.map((m: { _rowId: string }) => m._rowId)).size).toBe(3);
    } finally {
      await after.close();
    }
  } finally {
    await em.close();
  }
});

it("a 500after reply, too, leaves only once its change is on disk: the fault comes first, then durability", async () => {
  const dataFile = join(dir, "fault-after.json");
  const em = await startEmulator({ port: 0, dataFile, faults: "500after=1" });
  try {
    const res = await api(em, "POST", "/v2/rbac/roles", { name: "processed" });
    expect(res.status).toBe(500);
    expect(res.body.message).toContain("after processing");
    const after = await startEmulator({ port: 0, dataFile: copyAsIfKilled(dataFile) });
    try {
      const roles = await api(after, "GET", "/v2/rbac/roles");
      expect(roles.body).toEqual([expect.objectContaining({ name: "processed" })]);
    } finally {
      await after.close();
    }
  } finally {
    await em.close();
  }
});

it("a torn last journal line (a write never acknowledged) is skipped and counted; a fresh snapshot replaces the journal", async () => {
  const sub = mkdtempSync(join(dir, "torn-"));
  const dataFile = join(sub, "state.json");
  writeFileSync(
    `${dataFile}.journal.1`,
    line({ seq: 1, changes: [rolePut("role_a", "a")] }) +
      line({ seq: 2, changes: [rolePut("role_b", "b"), { del: "roles", id: "role_a" }] }) +
      line({ seq: 3, changes: [rolePut("role_c", "c")] }).slice(0, 20),
  );
  const em = await startEmulator({ port: 0, dataFile });
  try {
    expect(em.recovery).toEqual({ snapshot: false, replayed: 2, skipped: 1 });
    expect((await api(em, "GET", "/v2/rbac/roles")).body).toEqual([{ id: "role_b", name: "b" }]);
    // Never appended after the torn bytes: the old segment is gone, a new one is open.
    expect(readdirSync(sub).sort()).toEqual(["state.json", "state.json.journal.2"]);
    await api(em, "POST", "/v2/rbac/roles", { name: "after" });
  } finally {
    await em.close();
  }
  const again = await startEmulator({ port: 0, dataFile });
  try {
    expect(again.recovery).toEqual({ snapshot: true, replayed: 0, skipped: 0 });
    expect((await api(again, "GET", "/v2/rbac/roles")).body.map((r: { name: string }) => r.name)).toEqual([
      "b",
      "after",
    ]);
  } finally {
    await again.close();
  }
});

it("a complete journal line that is not a transaction is a startup error naming the file, not a silent loss", async () => {
  const sub = mkdtempSync(join(dir, "damaged-"));
  const dataFile = join(sub, "state.json");
  writeFileSync(
    `${dataFile}.journal.1`,
    line({ seq: 1, changes: [rolePut("role_a", "a")] }) + "{garbage\n" + line({ seq: 3, changes: [] }),
  );
  await expect(startEmulator({ port: 0, dataFile })).rejects.toThrow(
    `emulator data file ${dataFile} is corrupt: journal ${dataFile}.journal.1 line 2 is not a transaction`,
  );
});

it("journal transactions the snapshot already holds are not applied again", async () => {
  const sub = mkdtempSync(join(dir, "overlap-"));
  const dataFile = join(sub, "state.json");
  // Killed after the compacted snapshot (seq 2) was renamed into place, before its segment was deleted.
  writeFileSync(
    dataFile,
    line({
      format: "pulumi-observability-emulator",
      version: 3,
      seq: 2,
      state: { roles: [{ id: "role_a", name: "snap" }] },
    }),
  );
  writeFileSync(
    `${dataFile}.journal.4`,
    line({ seq: 1, changes: [rolePut("role_a", "one")] }) +
      line({ seq: 2, changes: [rolePut("role_a", "two")] }) +
      line({ seq: 3, changes: [rolePut("role_b", "three")] }),
  );
  const em = await startEmulator({ port: 0, dataFile });
  try {
    expect(em.recovery).toEqual({ snapshot: true, replayed: 1, skipped: 0 });
    expect((await api(em, "GET", "/v2/rbac/roles")).body).toEqual([
      { id: "role_a", name: "snap" },
      { id: "role_b", name: "three" },
    ]);
  } finally {
    await em.close();
  }
});

it("compacts the journal into the snapshot as it grows; nothing is lost across the compactions", async () => {
  const sub = mkdtempSync(join(dir, "compact-"));
  const dataFile = join(sub, "state.json");
  const em = await startEmulator({ port: 0, dataFile, datasets: ["c"], compactBytes: 2_000 });
  try {
    const names: string[] = [];
    for (let i = 0; i < 60; i++) {
      names.push(`role-${i}`);
      await api(em, "POST", "/v2/rbac/roles", { name: `role-${i}`, description: "x".repeat(100) });
      await api(em, "POST", "/v1/datasets/c/ingest", [{ i }]);
    }
    const files = readdirSync(sub);
    expect(files).toContain("state.json");
    // Compacted: old segments are deleted, so only the current one (and one being compacted) remain.
    expect(files.filter((f) => f.includes(".journal.")).length).toBeLessThanOrEqual(2);
    expect(JSON.parse(readFileSync(dataFile, "utf8").split("\n")[0]).seq).toBeGreaterThan(0);
    const after = await startEmulator({ port: 0, dataFile: copyAsIfKilled(dataFile) });
    try {
      expect((await api(after, "GET", "/v2/rbac/roles")).body.map((r: { name: string }) => r.name)).toEqual(
        names,
      );
      const q = await api(after, "POST", "/v1/datasets/_apl", {
        apl: "['c'] | summarize count()",
        startTime: "now-1h",
        endTime: "now+1h",
      });
      expect(q.body.buckets.totals[0].aggregations[0].value).toBe(60);
    } finally {
      await after.close();
    }
  } finally {
    await em.close();
  }
});

it("a change whose journal write fails is answered 500, not 2xx, and the journal starts afresh", async () => {
  const sub = mkdtempSync(join(dir, "full-"));
  const dataFile = join(sub, "state.json");
  const em = await startEmulator({ port: 0, dataFile, compactBytes: 1 });
  try {
    // The next segment is a disk that is always full; the first compaction moves the journal onto it.
    symlinkSync("/dev/full", `${dataFile}.journal.2`);
    expect((await api(em, "POST", "/v2/rbac/roles", { name: "first" })).status).toBe(200);
    const failed = await api(em, "POST", "/v2/rbac/roles", { name: "unsaved" });
    expect(failed.status).toBe(500);
    expect(failed.body.message).toMatch(/^the emulator could not write its data file: .*ENOSPC/);
    // The next change starts a new segment after a full snapshot, which holds the one answered 500 as well.
    expect((await api(em, "POST", "/v2/rbac/roles", { name: "third" })).status).toBe(200);
    const after = await startEmulator({ port: 0, dataFile: copyAsIfKilled(dataFile) });
    try {
      expect((await api(after, "GET", "/v2/rbac/roles")).body.map((r: { name: string }) => r.name)).toEqual([
        "first",
        "unsaved",
        "third",
      ]);
    } finally {
      await after.close();
    }
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

it("a data file in a directory that does not exist is a startup error naming the file", async () => {
  const dataFile = join(dir, "no-such-dir", "state.json");
  await expect(startEmulator({ port: 0, dataFile })).rejects.toThrow(
    `cannot write emulator data file ${dataFile}`,
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

it("writes a large dataset a bounded line at a time, and loads it back whole", async () => {
  const dataFile = join(dir, "lines.json");
  const em = await startEmulator({ port: 0, dataFile, datasets: ["many"] });
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

it("still loads a version 2 file (header line, then dataset lines, no journal sequence)", async () => {
  const dataFile = join(dir, "v2.json");
  writeFileSync(
    dataFile,
    line({
      format: "pulumi-observability-emulator",
      version: 2,
      state: { roles: [{ id: "role_2", name: "v2" }] },
    }) +
      line({
        dataset: "d2",
        rows: [["1704067200000000000", "1704067200000000000", "c000000000000000000000000000", { n: 2 }]],
      }),
  );
  const em = await startEmulator({ port: 0, dataFile });
  try {
    expect(em.recovery).toEqual({ snapshot: true, replayed: 0, skipped: 0 });
    expect((await api(em, "GET", "/v2/rbac/roles/role_2")).body).toEqual({ id: "role_2", name: "v2" });
    const res = await api(em, "POST", "/v1/datasets/_apl", {
      apl: "['d2']",
      startTime: "2023-01-01T00:00:00Z",
      endTime: "2025-01-01T00:00:00Z",
    });
    expect(res.body.matches.map((m: { data: unknown }) => m.data)).toEqual([{ n: 2 }]);
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
