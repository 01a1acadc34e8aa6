/**
 * One monitor's slow run starves no other (emulator/alerting/scheduler.ts): a run due while the monitor's previous
 * run is under way is skipped and recorded with its reason, other monitors' runs go on meanwhile, and a run's query
 * has a run's time and memory budgets, whose failures name them. The scheduler runs on a clock whose timers the
 * test fires (the real clock's side of the scheduler, where a timer does not wait for the run it starts), and a
 * slow query is held between two slices by the query budget's hook: nothing waits on a wall clock.
 */
import { Notifications } from "../../emulator/alerting/notify";
import { RUN_MEMORY_BYTES, runBudget } from "../../emulator/alerting/run-query";
import { MonitorScheduler } from "../../emulator/alerting/scheduler";
import type { MonitorRun } from "../../emulator/alerting/types";
import type { EmulatorClock } from "../../emulator/clock";
import type { EmulatorContext } from "../../emulator/context";
import type { QueryBudgetOptions } from "../../emulator/query/budget";
import { Quota } from "../../emulator/quota";
import { COLLECTION_FAMILIES } from "../../emulator/routes";
import { State } from "../../emulator/state";
import { EventStore } from "../../emulator/store/events";
import { RecentRuns } from "../../emulator/console";
import { consoleMonitor } from "../../emulator/console/data";
import { settle } from "../helpers/manual-clock";

const T0 = Date.UTC(2026, 0, 10, 12, 0, 0);
const MIB = 1024 * 1024;
/** RFC 3339 of T0 plus `minutes`, as runs give times. */
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString().replace(".000Z", "Z");
/** A where clause of 2,003 nodes: its slices are about a hundred rows, so 1,000 events pass checkpoints. */
const HEAVY = `where i${"+1".repeat(999)} > 0`;

/** A promise and its resolver. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/**
 * A scheduler over dataset `logs` (1,000 events in the minute before T0 + 1 m) on a clock whose timers the test
 * fires: `fire(minutes)` fires every live timer due then, without waiting for the runs they start.
 */
function harness(queries: QueryBudgetOptions = {}) {
  let now = T0 + 30_000;
  const timers: { ms: number; fn: () => void | Promise<void>; cancelled: boolean }[] = [];
  const clock: EmulatorClock = {
    kind: "real",
    nowMs: () => now,
    nowNs: () => BigInt(now) * 1_000_000n,
    advance: () => Promise.reject(new Error("real")),
    advanceTo: () => Promise.reject(new Error("real")),
    at(ms, fn) {
      const timer = { ms, fn, cancelled: false };
      timers.push(timer);
      return { cancel: () => void (timer.cancelled = true) };
    },
  };
  const state = new State(COLLECTION_FAMILIES, "local-org");
  state.collection("datasets").set({ id: "logs", name: "logs" });
  const store = new EventStore();
  const base = BigInt(T0 + 5_000) * 1_000_000n;
  store.append(
    "logs",
    Array.from({ length: 1000 }, (_, i) => ({
      timeNs: base + BigInt(i) * 1_000_000n,
      data: { i, k: i % 2 },
    })),
    base,
  );
  const em: EmulatorContext = {
    state,
    store,
    clock,
    orgId: "local-org",
    quotas: { ingest: new Quota(1e9), query: new Quota(1e9) },
    queries,
    changed: () => undefined,
  };
  const runs: MonitorRun[] = [];
  const logged: string[] = [];
  const scheduler = new MonitorScheduler({
    em,
    clock,
    notifications: new Notifications(),
    onRun: (run) => runs.push(run),
    logger: (line) => logged.push(line),
  });
  let n = 0;
  const monitor = (name: string, aplQuery: string) => {
    const id = `mon_${++n}`;
    state.collection("monitors").set({
      id,
      name,
      type: "Threshold",
      aplQuery,
      operator: "Above",
      // Never crossed: every run made is "ok", so a skipped or failed run stands out.
      threshold: 1e9,
      intervalMinutes: 1,
      rangeMinutes: 1,
    });
    return id;
  };
  const fire = (minutes: number) => {
    now = T0 + minutes * 60_000;
    for (const t of timers.filter((x) => !x.cancelled && x.ms <= now)) {
      t.cancelled = true;
      void t.fn();
    }
  };
  return { scheduler, runs, logged, monitor, fire, em };
}

/** Runs as `[monitor name, minute, state]`. */
const summary = (runs: MonitorRun[]) =>
  runs.map((r) => [r.monitorName, (Date.parse(r.time) - T0) / 60_000, r.state]);

describe("a monitor whose run is still under way", () => {
  it("skips the run due meanwhile, recorded with its reason, while another monitor's runs go on time", async () => {
    const held = gate();
    let entered = gate();
    const h = harness({
      onSlice: async () => {
        entered.open();
        await held.promise;
      },
    });
    h.monitor("slow", `['logs'] | ${HEAVY} | count`);
    h.monitor("cheap", "['logs'] | count");
    h.scheduler.start();

    h.fire(1);
    await entered.promise;
    await settle();
    // The slow run is held in its query; the cheap one, due at the same time, ran meanwhile.
    expect(summary(h.runs)).toEqual([["cheap", 1, "ok"]]);
    expect(h.runs[0].startedAt).toBe(new Date(T0 + 60_000).toISOString());

    h.fire(2);
    await settle();
    const skipped = h.runs.find((r) => r.state === "skipped");
    expect(skipped).toEqual({
      monitorId: "mon_1",
      monitorName: "slow",
      time: at(2),
      windowStart: at(1),
      windowEnd: at(2),
      state: "skipped",
      values: [],
      reason:
        `the run due at ${at(1)} was still under way; a monitor makes one run at a time, and a run that falls ` +
        "due meanwhile is skipped (its window is not read)",
      notifications: 0,
      alerts: [],
      transitions: [],
      startedAt: new Date(T0 + 120_000).toISOString(),
    });
    expect(h.logged).toContain(`monitor mon_1 (slow): run at ${at(2)} skipped: ${skipped!.reason}`);
    // The console's monitor detail (GET /_emulator/console/monitors/{id}) lists it with its reason.
    const recent = new RecentRuns();
    h.runs.forEach((r) => recent.record(r));
    expect(consoleMonitor(h.em, recent, "mon_1")?.runs).toEqual([
      { time: at(2), state: "skipped", values: "", reason: skipped!.reason },
    ]);
    expect(summary(h.runs)).toEqual([
      ["cheap", 1, "ok"],
      ["slow", 2, "skipped"],
      ["cheap", 2, "ok"],
    ]);

    // The held run ends; the next one is made again, not skipped.
    entered = gate();
    held.open();
    await settle();
    h.fire(3);
    await settle();
    expect(summary(h.runs)).toEqual([
      ["cheap", 1, "ok"],
      ["slow", 2, "skipped"],
      ["cheap", 2, "ok"],
      ["slow", 1, "ok"],
      ["slow", 3, "ok"],
      ["cheap", 3, "ok"],
    ]);
    await h.scheduler.stop();
  });

  it("stop() waits for every run under way", async () => {
    const held = gate();
    const entered = gate();
    const h = harness({
      onSlice: async () => {
        entered.open();
        await held.promise;
      },
    });
    h.monitor("slow", `['logs'] | ${HEAVY} | count`);
    h.scheduler.start();
    h.fire(1);
    await entered.promise;
    let stopped = false;
    const stopping = h.scheduler.stop().then(() => (stopped = true));
    await settle();
    expect(stopped).toBe(false);
    held.open();
    await stopping;
    // Stopped while its query ran: the run is dropped, nothing recorded.
    expect(h.runs).toEqual([]);
  });
});

describe("a run's budgets", () => {
  it("a run past its time budget (the interval, under a longer query timeout) fails naming it; the other monitor ran on time", async () => {
    // The budget's clock is a counter: every read is 10 s later. The cheap query reads it twice (start, one
    // check); the heavy one reads it at each of its checkpoints.
    let t = 0;
    const held = gate();
    const entered = gate();
    const h = harness({
      timeoutMs: 600_000,
      clock: () => (t += 10_000),
      onSlice: async () => {
        entered.open();
        await held.promise;
      },
    });
    h.monitor("slow", `['logs'] | ${HEAVY} | count`);
    h.monitor("cheap", "['logs'] | count");
    h.scheduler.start();
    h.fire(1);
    await entered.promise;
    await settle();
    expect(summary(h.runs)).toEqual([["cheap", 1, "ok"]]);
    expect(h.runs[0].startedAt).toBe(new Date(T0 + 60_000).toISOString());
    held.open();
    await settle();
    expect(summary(h.runs)).toEqual([
      ["cheap", 1, "ok"],
      ["slow", 1, "error"],
    ]);
    expect(h.runs[1].error).toBe(
      "504: query exceeded the emulator's time budget of 60000 ms and was stopped; narrow its time range or filter",
    );
    await h.scheduler.stop();
  });

  it("a run whose self-join passes its memory budget fails naming it, and the next run is made", async () => {
    const h = harness({ memoryBytes: 4 * MIB });
    // 1,000 events on 2 keys: the self-join would build 500,000 rows.
    h.monitor("join", "['logs'] | join kind=inner (['logs']) on k | count");
    h.scheduler.start();
    h.fire(1);
    await settle();
    h.fire(2);
    await settle();
    const message =
      "400: query exceeded the emulator's memory budget of 4 MiB (join's output rows built more than that) and " +
      "was stopped; narrow its time range, filter or summarize before the join, mv-expand or make-series";
    expect(h.runs.map((r) => [r.time, r.state, r.error])).toEqual([
      [at(1), "error", message],
      [at(2), "ok", undefined],
    ]);
    expect(h.logged).toContain(`monitor mon_1 (join): run at ${at(1)}: ${message}`);
    await h.scheduler.stop();
  });

  it("runBudget: the query timeout cut to the interval, and the run's memory budget unless the emulator's is lower", () => {
    const em = harness({ timeoutMs: 30_000 }).em;
    expect(runBudget(em, 60_000)).toMatchObject({ timeoutMs: 30_000, memoryBytes: RUN_MEMORY_BYTES });
    expect(runBudget(em, 10_000)).toMatchObject({ timeoutMs: 10_000 });
    em.queries = { memoryBytes: MIB };
    expect(runBudget(em, 60_000)).toMatchObject({ timeoutMs: 30_000, memoryBytes: MIB });
  });
});
