/**
 * A query's time budget and slicing (emulator/query/budget.ts): a query over budget answers 504, a running query
 * lets other requests through, and shutting down (close(), or SIGTERM to a real process) stops a query mid-way
 * with a 503. No test waits on a wall clock: the budget's clock is a counter, and a hook shows the query in progress.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { runAplQuery, QueryBudget, SLICE_WORK } from "../../emulator/query";
import { EventStore } from "../../emulator/store/events";
import { startEmulator } from "../../emulator";
import { api } from "../helpers/emulator";

const T0 = 1_704_067_200_000_000_000n;
const ROOT = path.resolve(__dirname, "../..");
/** A where clause of 2,003 nodes: its slices are about a hundred rows, so a few thousand rows pass many checkpoints. */
const HEAVY = `where a${"+1".repeat(999)} > 0`;

function store(n: number): EventStore {
  const s = new EventStore();
  s.append(
    "d",
    Array.from({ length: n }, (_, i) => ({ timeNs: T0 + BigInt(i), data: { a: i } })),
    T0,
  );
  return s;
}

function events(n: number): string {
  return Array.from({ length: n }, (_, i) => JSON.stringify({ _time: "2024-01-01T00:00:00Z", a: i })).join(
    "\n",
  );
}

/** A promise and its resolver. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe("query budget", () => {
  it("a query past its budget answers 504 naming the budget (the clock is a counter: every read is 1 s later)", async () => {
    let t = 0;
    const clock = () => (t += 1000);
    const res = await runAplQuery(store(10), { apl: "d | count" }, undefined, T0, undefined, {
      timeoutMs: 500,
      clock,
    });
    expect(res.status).toBe(504);
    expect(res.body).toMatchObject({ code: 504, message: expect.stringContaining("time budget of 500 ms") });
  });

  it("the legacy query endpoint has the same budget", async () => {
    let t = 0;
    const { runLegacyQuery } = await import("../../emulator/query");
    const res = await runLegacyQuery(
      store(3000),
      "d",
      {
        startTime: "2024-01-01T00:00:00Z",
        endTime: "2024-01-02T00:00:00Z",
        order: [{ field: "a", desc: true }],
      },
      T0,
      undefined,
      { timeoutMs: 500, clock: () => (t += 1000) },
    );
    expect(res.status).toBe(504);
  });

  it("a scan yields at checkpoints sized by the plan: a heavy expression over 3,000 rows passes many", async () => {
    let slices = 0;
    const res = await runAplQuery(store(3000), { apl: `d | ${HEAVY} | count` }, undefined, T0, undefined, {
      onSlice: () => void slices++,
    });
    expect(res.status).toBe(200);
    const budget = new QueryBudget();
    budget.sizeSlices(2003);
    expect(budget.rowsPerSlice).toBe(Math.floor(SLICE_WORK / 2003));
    expect(slices).toBeGreaterThanOrEqual(Math.floor(3000 / budget.rowsPerSlice) - 1);
  });

  it("a sort of many rows is sliced too, and keeps its order stable", async () => {
    const budget = new QueryBudget();
    budget.sizeSlices(SLICE_WORK / 1024); // 1,024 rows a slice
    const before = budget.checkpoints;
    const items = Array.from({ length: 5000 }, (_, i) => ({ k: (i * 7919) % 13, i }));
    const sorted = await budget.sort(items, (a, b) => a.k - b.k);
    expect(budget.checkpoints - before).toBeGreaterThan(4);
    expect(sorted).toEqual([...items].sort((a, b) => a.k - b.k || a.i - b.i));
  });
});

describe("a running query over HTTP", () => {
  it("does not stall other requests: while it is held between slices, another request is answered", async () => {
    const started = gate();
    const release = gate();
    let held = false;
    const em = await startEmulator({
      port: 0,
      datasets: ["d"],
      onQuerySlice: async () => {
        if (held) return;
        held = true;
        started.open();
        await release.promise;
      },
    });
    try {
      const ingest = await api(em, "POST", "/v1/datasets/d/ingest", events(2000), {
        "content-type": "application/x-ndjson",
      });
      expect(ingest.status).toBe(200);
      const long = api(em, "POST", "/v1/datasets/_apl?format=legacy", { apl: `['d'] | ${HEAVY} | count` });
      await started.promise;
      const other = await api(em, "POST", "/v1/datasets/_apl?format=legacy", { apl: "['d'] | count" });
      expect(other.status).toBe(200);
      const list = await api(em, "GET", "/v2/datasets");
      expect(list.status).toBe(200);
      release.open();
      const done = await long;
      expect(done.status).toBe(200);
    } finally {
      release.open();
      await em.close();
    }
  });

  it("answers 504 once past --query-timeout (a slice made slow on purpose: 20 ms of work against a 1 ms budget)", async () => {
    const em = await startEmulator({
      port: 0,
      datasets: ["d"],
      queryTimeoutMs: 1,
      onQuerySlice: () => {
        const t = performance.now();
        while (performance.now() - t < 20); // a slow slice, not a wait: a busy machine only makes it slower
      },
    });
    try {
      await api(em, "POST", "/v1/datasets/d/ingest", events(500), { "content-type": "application/x-ndjson" });
      const res = await api(em, "POST", "/v1/datasets/_apl?format=legacy", { apl: `['d'] | ${HEAVY}` });
      expect(res.status).toBe(504);
      expect(res.body.message).toContain("time budget of 1 ms");
      // The emulator still serves.
      expect((await api(em, "GET", "/v2/datasets")).status).toBe(200);
    } finally {
      await em.close();
    }
  });

  it("close() stops a running query, which answers 503, and resolves", async () => {
    const started = gate();
    const release = gate();
    const em = await startEmulator({
      port: 0,
      datasets: ["d"],
      onQuerySlice: async () => {
        started.open();
        await release.promise;
      },
    });
    await api(em, "POST", "/v1/datasets/d/ingest", events(2000), { "content-type": "application/x-ndjson" });
    const long = api(em, "POST", "/v1/datasets/_apl?format=legacy", { apl: `['d'] | ${HEAVY}` });
    await started.promise;
    const closed = em.close();
    release.open();
    const res = await long;
    expect(res.status).toBe(503);
    expect(res.body.message).toContain("shutting down");
    await closed;
  });
});

describe("SIGTERM to a real emulator process", () => {
  it("stops a query in progress (503) and the process exits with code 0", async () => {
    const child = spawn(process.execPath, [path.join(ROOT, "test/fixtures/emulator-sigterm.js")], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    const waiters: { text: string; resolve: () => void }[] = [];
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      for (const w of waiters.splice(0)) {
        if (out.includes(w.text)) w.resolve();
        else waiters.push(w);
      }
    });
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once("exit", (code, signal) => resolve({ code, signal })),
    );
    const printed = (text: string) =>
      new Promise<void>((resolve) => (out.includes(text) ? resolve() : waiters.push({ text, resolve })));
    try {
      await printed("listening ");
      const url = /listening (\S+)/.exec(out)![1];
      const token = "xaat-local-development-token";
      const call = (p: string, body: string, type: string) =>
        fetch(`${url}${p}`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": type },
          body,
        });
      expect((await call("/v1/datasets/d/ingest", events(2000), "application/x-ndjson")).status).toBe(200);
      const query = call(
        "/v1/datasets/_apl?format=legacy",
        JSON.stringify({ apl: `['d'] | ${HEAVY}` }),
        "application/json",
      );
      await printed("query in progress");
      child.kill("SIGTERM");
      const res = await query;
      expect(res.status).toBe(503);
      expect(((await res.json()) as { message: string }).message).toContain("shutting down");
      // The exit itself, however long a busy machine makes it take (the test's own timeout bounds it).
      expect(await exited).toEqual({ code: 0, signal: null });
      expect(out).toContain("SIGTERM: stopping");
      expect(err).toBe("");
    } finally {
      child.kill("SIGKILL");
    }
  });
});
