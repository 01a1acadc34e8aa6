/**
 * kill -9 at random moments: the built CLI (`observability emulator --data FILE`) is killed 20 times while 8
 * writers create, update and delete roles and monitors and 2 streams ingest events. After each restart every
 * object and event it acknowledged is there as acknowledged, and whatever was in flight at the kill is there
 * whole or not at all: an object either as before or as the request would have left it, a batch of events with
 * all of its events or none. The sequence of operations and kill moments comes from a fixed seed.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Pool } from "undici";
import { spawnEmulator, type ChildEmulator } from "../../bench/client-harness";

const ROOT = join(__dirname, "..", "..");
const ROUNDS = 20;
const WRITERS = 8;
const STREAMS = 2;
const EVENTS_PER_BATCH = 50;

/** mulberry32: a small seeded PRNG, so a failing run can be repeated exactly. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Obj = Record<string, unknown> & { id: string; name: string; description: string };
type Kind = "roles" | "monitors";
const PATHS: Record<Kind, string> = { roles: "/v2/rbac/roles", monitors: "/v2/monitors" };

/** What the writers know: each object's acknowledged body (null once a delete was acknowledged). */
interface Tracked {
  kind: Kind;
  writer: number;
  body: Obj | null;
  /** The request in flight when the emulator was killed, whose outcome is unknown. */
  inFlight?: { op: "update"; description: string } | { op: "delete" };
}

const objects = new Map<string, Tracked>();
/** Creates in flight at a kill, by their unique name. */
const creates = new Map<string, { kind: Kind; writer: number; description: string }>();
/** Per round's dataset, per batch: the events acknowledged, or undefined while the batch is in flight. */
const batches = new Map<string, Map<string, number | undefined>>();
const totals = { writes: 0, events: 0, inFlightAtKill: 0, lost: 0, skippedTorn: 0 };

/** A client that never retries: whatever the emulator answered, or undefined when the connection failed. */
async function send(pool: Pool, token: string, method: string, path: string, body?: unknown) {
  try {
    const res = await pool.request({
      method: method as "GET",
      path,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    return { status: res.statusCode, body: text ? JSON.parse(text) : undefined };
  } catch {
    return undefined;
  }
}

function unexpected(what: string, res: { status: number; body: unknown }): never {
  throw new Error(`${what}: unexpected ${res.status} ${JSON.stringify(res.body)}`);
}

/** One writer: creates, updates and deletes its own objects until a request finds the emulator gone. */
async function writer(w: number, pool: Pool, token: string, rand: () => number): Promise<void> {
  const kind: Kind = w % 2 === 0 ? "roles" : "monitors";
  for (let n = 0; ; n++) {
    const mine = [...objects.entries()].filter(([, o]) => o.writer === w && o.body !== null);
    const r = rand();
    if (mine.length < 3 || r < 0.45) {
      const name = `w${w}-${objects.size}-${n}-${Math.floor(rand() * 1e9)}`;
      const body =
        kind === "roles"
          ? { name, description: "v0" }
          : { name, description: "v0", aplQuery: "['x']", type: "MatchEvent" };
      creates.set(name, { kind, writer: w, description: "v0" });
      const res = await send(pool, token, "POST", PATHS[kind], body);
      if (!res) return;
      if (res.status !== 200) unexpected(`create ${name}`, res);
      creates.delete(name);
      objects.set(res.body.id, { kind, writer: w, body: res.body });
    } else {
      const [id, o] = mine[Math.floor(rand() * mine.length)];
      if (r < 0.85) {
        const description = `v${n}`;
        const { id: _id, createdAt: _c, createdBy: _b, ...rest } = o.body!;
        o.inFlight = { op: "update", description };
        const res = await send(pool, token, "PUT", `${PATHS[kind]}/${id}`, { ...rest, description });
        if (!res) return;
        if (res.status !== 200) unexpected(`update ${id}`, res);
        o.body = res.body;
      } else {
        o.inFlight = { op: "delete" };
        const res = await send(pool, token, "DELETE", `${PATHS[kind]}/${id}`);
        if (!res) return;
        if (res.status !== 204) unexpected(`delete ${id}`, res);
        o.body = null;
      }
      o.inFlight = undefined;
    }
    totals.writes++;
  }
}

/** One ingest stream: batches of events into the round's dataset, each batch named, until the emulator is gone. */
async function stream(s: number, round: number, pool: Pool, token: string): Promise<void> {
  const dataset = `kill-${round}`;
  const known = batches.get(dataset) ?? new Map<string, number | undefined>();
  batches.set(dataset, known);
  for (let b = 0; ; b++) {
    const batch = `s${s}-b${b}`;
    const events = Array.from({ length: EVENTS_PER_BATCH }, (_, i) => ({ batch, i, pad: "x".repeat(40) }));
    known.set(batch, undefined);
    const res = await send(pool, token, "POST", `/v1/datasets/${dataset}/ingest`, events);
    if (!res) return;
    if (res.status !== 200 || res.body.ingested !== EVENTS_PER_BATCH) unexpected(`ingest ${batch}`, res);
    known.set(batch, EVENTS_PER_BATCH);
    totals.events += EVENTS_PER_BATCH;
  }
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Compares what the restarted emulator serves with what was acknowledged; settles what was in flight to what
 * it finds (when that is a whole outcome). Returns the problems found, each naming the object or batch.
 */
async function verify(pool: Pool, token: string): Promise<string[]> {
  const problems: string[] = [];
  const served = new Map<string, Obj>();
  for (const kind of ["roles", "monitors"] as const) {
    const res = await send(pool, token, "GET", PATHS[kind]);
    if (!res || res.status !== 200) throw new Error(`cannot list ${kind}`);
    for (const o of res.body as Obj[]) served.set(o.id, o);
  }
  for (const [id, o] of objects) {
    const found = served.get(id);
    served.delete(id);
    const before = o.body;
    const flight = o.inFlight;
    o.inFlight = undefined;
    if (flight === undefined) {
      if (!same(found ?? null, before)) {
        totals.lost++;
        problems.push(
          `${id}: acknowledged ${JSON.stringify(before)}, found ${JSON.stringify(found ?? null)}`,
        );
      }
    } else if (flight.op === "update") {
      const after = { ...before!, description: flight.description };
      if (found && (same(found, before) || same(found, after))) o.body = found;
      else problems.push(`${id}: an update in flight left ${JSON.stringify(found ?? null)}`);
    } else if (found === undefined || same(found, before)) {
      o.body = found ?? null;
    } else {
      problems.push(`${id}: a delete in flight left ${JSON.stringify(found)}`);
    }
  }
  for (const [name, c] of creates) {
    const found = [...served.values()].find((o) => o.name === name);
    if (found === undefined) continue;
    served.delete(found.id);
    if (found.description !== c.description)
      problems.push(`${name}: a create in flight left ${JSON.stringify(found)}`);
    if (c.kind === "monitors") {
      // A monitor that came back serves its history (made by its runs, none by its create).
      const h = await send(
        pool,
        token,
        "GET",
        `/v2/monitors/${found.id}/history?startTime=now-1d&endTime=now%2B1d`,
      );
      if (h?.status !== 200 || !Array.isArray(h.body))
        problems.push(`${name}: its history is ${JSON.stringify(h?.body)}`);
    }
    objects.set(found.id, { kind: c.kind, writer: c.writer, body: found });
  }
  creates.clear();
  for (const stranger of served.values())
    problems.push(`${stranger.id}: served, but never acknowledged nor in flight`);

  for (const [dataset, known] of batches) {
    const res = await send(pool, token, "POST", "/v1/datasets/_apl?format=tabular", {
      apl: `['${dataset}'] | summarize count() by batch`,
      startTime: "now-1d",
      endTime: "now+1d",
    });
    if (!res || res.status !== 200) throw new Error(`cannot query ${dataset}: ${JSON.stringify(res?.body)}`);
    const [names, counts] = (res.body.tables[0]?.columns ?? [[], []]) as [string[], number[]];
    const found = new Map(names.map((n, i) => [n, counts[i]]));
    for (const [batch, acked] of known) {
      const count = found.get(batch) ?? 0;
      found.delete(batch);
      if (acked === undefined) {
        // In flight at the kill: all of it or none of it.
        if (count === EVENTS_PER_BATCH) known.set(batch, count);
        else if (count === 0) known.delete(batch);
        else problems.push(`${dataset} ${batch}: ${count} of an unacknowledged batch of ${EVENTS_PER_BATCH}`);
      } else if (count !== acked) {
        totals.lost += acked - count;
        problems.push(`${dataset} ${batch}: ${acked} events acknowledged, ${count} found`);
      }
    }
    for (const [batch, count] of found) problems.push(`${dataset} ${batch}: ${count} events never sent`);
  }
  return problems;
}

const dir = mkdtempSync(join(tmpdir(), "emulator-kill9-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it(`loses no acknowledged write across ${ROUNDS} kill -9s under load`, async () => {
  const dataFile = join(dir, "state.json");
  // A small compaction threshold, so that kills also land during compactions.
  // Every round's dataset exists first (ingest into one never created is a 404).
  const datasets = Array.from({ length: ROUNDS }, (_, round) => ["--dataset", `kill-${round}`]).flat();
  const args = ["--data", dataFile, "--compact-bytes", "65536", ...datasets];
  const rand = prng(12);
  let em: ChildEmulator = await spawnEmulator(ROOT, args);
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const pool = new Pool(em.url, { connections: WRITERS + STREAMS });
      const load = [
        ...Array.from({ length: WRITERS }, (_, w) => writer(w, pool, em.token, prng(round * 100 + w))),
        ...Array.from({ length: STREAMS }, (_, s) => stream(s, round, pool, em.token)),
      ];
      await new Promise((r) => setTimeout(r, 150 + rand() * 650));
      await em.kill9();
      await Promise.all(load);
      await pool.close();
      totals.inFlightAtKill +=
        creates.size +
        [...objects.values()].filter((o) => o.inFlight).length +
        [...batches.values()].flatMap((m) => [...m.values()]).filter((v) => v === undefined).length;

      em = await spawnEmulator(ROOT, args);
      const skipped = /(\d+) torn entr/.exec(em.banner);
      expect(skipped).not.toBeNull();
      totals.skippedTorn += Number(skipped![1]);
      const check = new Pool(em.url, { connections: 1 });
      try {
        expect({ round, problems: await verify(check, em.token) }).toEqual({ round, problems: [] });
      } finally {
        await check.close();
      }
    }
  } finally {
    await em.close();
  }
  console.log(
    `kill -9 x${ROUNDS}: ${totals.writes} acknowledged writes and ${totals.events} acknowledged events, ` +
      `${totals.inFlightAtKill} requests in flight at the kills, ${totals.skippedTorn} torn entries skipped, ` +
      `${totals.lost} acknowledged lost`,
  );
  expect(totals.lost).toBe(0);
  // The load was real: every round had writes to lose.
  expect(totals.writes).toBeGreaterThan(ROUNDS * 20);
}, 120_000);
