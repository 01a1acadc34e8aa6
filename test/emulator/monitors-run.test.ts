/**
 * Threshold monitors that run, on a manual clock: each documented rule (sources as /work's design notes name them:
 * DOCS = axiomhq/docs monitor-data pages, OA = its restapi/versions/v2.json, GO = axiom-go axiom/monitors.go) as a
 * row, plus the scheduler's own: the window, edits and deletes at the next run, disabled and disabledUntil, and a
 * failing query recorded on its run. No test sleeps: time moves only when a test moves the clock.
 */
import type { RunningEmulator } from "../../emulator";
import { api } from "../helpers/emulator";
import {
  alertsOf,
  at,
  createMonitor,
  eventsAt,
  historyOf,
  ingest,
  startManual,
  statesOf,
} from "../helpers/monitor-runs";

let em: RunningEmulator;
beforeEach(async () => {
  em = await startManual();
});
afterEach(async () => {
  await em.close();
});

describe("operators at the boundary (OA Monitor.operator: Below <, BelowOrEqual <=, Above >, AboveOrEqual >=)", () => {
  it.each([
    ["Above", 5, "ok"],
    ["Above", 4, "open"],
    ["AboveOrEqual", 5, "open"],
    ["AboveOrEqual", 6, "ok"],
    ["Below", 5, "ok"],
    ["Below", 6, "open"],
    ["BelowOrEqual", 5, "open"],
    ["BelowOrEqual", 4, "ok"],
  ])("%s %d against a count of 5: %s", async (operator, threshold, state) => {
    await ingest(em, eventsAt(0, 5));
    const m = await createMonitor(em, { operator, threshold });
    const runs = await em.clock.advance("1m");
    expect(runs).toEqual([
      expect.objectContaining({
        monitorId: m.id,
        time: at(1),
        windowStart: at(0),
        windowEnd: at(1),
        state,
        values: [{ group: {}, value: 5 }],
        notifications: state === "open" ? 1 : 0,
      }),
    ]);
  });
});

describe("which values are compared (DOCS threshold-monitors)", () => {
  it("a chart result is in alert while any bin crosses: a one-minute spike keeps a 10-minute range open for ten runs (DOCS monitor-examples)", async () => {
    await ingest(em, [...eventsAt(2, 3, { status: 500 }), ...eventsAt(3, 1, { status: 200 })]);
    const m = await createMonitor(em, {
      aplQuery: "['logs'] | where status >= 500 | summarize count() by bin(_time, 1m)",
      rangeMinutes: 10,
      threshold: 2,
    });
    const runs = await em.clock.advance("14m");
    // Minute 2's bin is in the windows of the runs at 3 … 12; the run at 13 no longer sees it.
    expect(statesOf(runs, m.id)).toEqual([
      [1, "ok"],
      [2, "ok"],
      ...Array.from({ length: 10 }, (_, i) => [3 + i, "open"]),
      [13, "closed"],
      [14, "ok"],
    ]);
    expect(alertsOf(runs, m.id)).toEqual([
      [3, "Open", null, 3],
      [13, "Closed", null, null],
    ]);
  });

  it("a table result is in alert when any numeric value crosses, whichever column holds it", async () => {
    await ingest(em, [...eventsAt(0, 2, { ms: 10 }), ...eventsAt(0, 1, { ms: 900 })]);
    const m = await createMonitor(em, {
      aplQuery: "['logs'] | summarize n = count(), worst = max(ms), typical = avg(ms)",
      threshold: 500,
    });
    const [run] = await em.clock.advance("1m");
    expect(run).toMatchObject({ monitorId: m.id, state: "open", values: [{ group: {}, value: 900 }] });
  });

  it("columnName compares only that column (OA Monitor.columnName)", async () => {
    await ingest(em, [...eventsAt(0, 2, { ms: 10 }), ...eventsAt(0, 1, { ms: 900 })]);
    const m = await createMonitor(em, {
      aplQuery: "['logs'] | summarize n = count(), worst = max(ms)",
      columnName: "n",
      threshold: 500,
    });
    const [run] = await em.clock.advance("1m");
    expect(run).toMatchObject({ monitorId: m.id, state: "ok", values: [{ group: {}, value: 3 }] });
  });

  it("a columnName the result does not have fails the run, naming it and the columns there are", async () => {
    await ingest(em, eventsAt(0, 1));
    const m = await createMonitor(em, { aplQuery: "['logs'] | summarize n = count()", columnName: "errors" });
    const [run] = await em.clock.advance("1m");
    expect(run).toMatchObject({ monitorId: m.id, state: "error", values: [], notifications: 0 });
    expect(run.error).toBe('columnName: "errors" is not a column of the query\'s result (its columns: n)');
  });
});

describe("alertOnNoData (DOCS threshold-monitors)", () => {
  it("no event in the window opens with value null, and data coming back closes it", async () => {
    await ingest(em, eventsAt(2, 1));
    const m = await createMonitor(em, {
      aplQuery: "['logs'] | summarize count()",
      operator: "Above",
      threshold: 10,
      alertOnNoData: true,
    });
    const runs = await em.clock.advance("4m");
    expect(statesOf(runs, m.id)).toEqual([
      [1, "open"],
      [2, "open"],
      [3, "closed"],
      [4, "open"],
    ]);
    expect(alertsOf(runs, m.id)).toEqual([
      [1, "Open", null, null],
      [3, "Closed", null, 1],
      [4, "Open", null, null],
    ]);
  });

  it("an aggregation left undefined (the average of an absent field) is no data too", async () => {
    await ingest(em, eventsAt(0, 2, { other: 1 }));
    const m = await createMonitor(em, {
      aplQuery: "['logs'] | summarize avg(latency)",
      alertOnNoData: true,
      threshold: 100,
    });
    const [run] = await em.clock.advance("1m");
    expect(run).toMatchObject({ monitorId: m.id, state: "open", values: [{ group: {}, value: null }] });
  });

  it("without it, no data is no alert", async () => {
    const m = await createMonitor(em, { threshold: 10, operator: "Below" });
    const runs = await em.clock.advance("2m");
    expect(statesOf(runs, m.id)).toEqual([
      [1, "ok"],
      [2, "ok"],
    ]);
  });
});

describe("notifyByGroup (GO NotifyByGroup; DOCS custom-webhook-notifier: a group that disappears closes with 0)", () => {
  const byService = "['logs'] | where status >= 500 | summarize errors = count() by service";

  it("each group opens and closes on its own; a group that disappears closes with value 0", async () => {
    await ingest(em, [
      ...eventsAt(0, 3, { service: "api", status: 500 }),
      ...eventsAt(0, 3, { service: "web", status: 500 }),
      ...eventsAt(1, 3, { service: "web", status: 500 }),
      ...eventsAt(1, 1, { service: "api", status: 500 }),
    ]);
    const m = await createMonitor(em, { aplQuery: byService, threshold: 2, notifyByGroup: true });
    const runs = await em.clock.advance("3m");
    expect(alertsOf(runs, m.id)).toEqual([
      [1, "Open", ["api"], 3],
      [1, "Open", ["web"], 3],
      [2, "Closed", ["api"], 1],
      [3, "Closed", ["web"], 0],
    ]);
    expect(runs.map((r) => r.values)).toEqual([
      [
        { group: { service: "api" }, value: 3 },
        { group: { service: "web" }, value: 3 },
      ],
      [
        { group: { service: "api" }, value: 1 },
        { group: { service: "web" }, value: 3 },
      ],
      [{ group: { service: "web" }, value: 0 }],
    ]);
    expect((await historyOf(em, m.id)).map((h) => [h.state, h.timestamp])).toEqual([
      ["open", at(1)],
      ["open", at(1)],
      ["closed", at(2)],
      ["closed", at(3)],
    ]);
  });

  it("an edit turning it off closes each group's alert at the next run; the monitor is then one alert", async () => {
    await ingest(em, [
      ...eventsAt(0, 3, { service: "api", status: 500 }),
      ...eventsAt(1, 3, { service: "api", status: 500 }),
    ]);
    const m = await createMonitor(em, { aplQuery: byService, threshold: 2, notifyByGroup: true });
    expect(alertsOf(await em.clock.advance("1m"), m.id)).toEqual([[1, "Open", ["api"], 3]]);
    const { id: _id, createdAt: _c, createdBy: _b, ...body } = m;
    expect((await api(em, "PUT", `/v2/monitors/${m.id}`, { ...body, notifyByGroup: false })).status).toBe(
      200,
    );
    expect(alertsOf(await em.clock.advance("2m"), m.id)).toEqual([
      [2, "Open", null, 3],
      [2, "Closed", ["api"], 0],
      [3, "Closed", null, null],
    ]);
  });

  it("without it the monitor is one alert: open while any group crosses, closed when none does (DOCS)", async () => {
    await ingest(em, [
      ...eventsAt(0, 3, { service: "api", status: 500 }),
      ...eventsAt(1, 3, { service: "web", status: 500 }),
    ]);
    const m = await createMonitor(em, { aplQuery: byService, threshold: 2 });
    const runs = await em.clock.advance("3m");
    expect(alertsOf(runs, m.id)).toEqual([
      [1, "Open", null, 3],
      [3, "Closed", null, null],
    ]);
  });
});

describe("triggerFromNRuns (M) and triggerAfterNPositiveResults (N): in alert while N of the last M runs crossed (GO)", () => {
  it("2 of 3: one crossing opens nothing, a second within three runs opens, fewer than 2 of the last 3 closes", async () => {
    await ingest(em, [...eventsAt(0, 5), ...eventsAt(2, 5), ...eventsAt(5, 5)]);
    const m = await createMonitor(em, { threshold: 4, triggerFromNRuns: 3, triggerAfterNPositiveResults: 2 });
    const runs = await em.clock.advance("7m");
    // Crossing runs: 1, 3, 6. At 3 the last three are (1, 2, 3): two crossed. At 4, (2, 3, 4): one. At 6,
    // (4, 5, 6): one again.
    expect(statesOf(runs, m.id)).toEqual([
      [1, "ok"],
      [2, "ok"],
      [3, "open"],
      [4, "closed"],
      [5, "ok"],
      [6, "ok"],
      [7, "ok"],
    ]);
  });

  it("N = 0 reads as N = M: three in a row are needed of three", async () => {
    await ingest(em, [
      ...eventsAt(0, 5),
      ...eventsAt(1, 5),
      ...eventsAt(3, 5),
      ...eventsAt(4, 5),
      ...eventsAt(5, 5),
    ]);
    const m = await createMonitor(em, { threshold: 4, triggerFromNRuns: 3, triggerAfterNPositiveResults: 0 });
    const runs = await em.clock.advance("7m");
    expect(alertsOf(runs, m.id)).toEqual([
      [6, "Open", null, 5],
      [7, "Closed", null, null],
    ]);
  });
});

describe("notifyEveryRun and skipResolved (OA)", () => {
  it("notifyEveryRun: an Open on every run while in alert", async () => {
    await ingest(em, [...eventsAt(0, 2), ...eventsAt(1, 3), ...eventsAt(2, 4)]);
    const m = await createMonitor(em, { threshold: 1, notifyEveryRun: true });
    const runs = await em.clock.advance("4m");
    expect(alertsOf(runs, m.id)).toEqual([
      [1, "Open", null, 2],
      [2, "Open", null, 3],
      [3, "Open", null, 4],
      [4, "Closed", null, null],
    ]);
    // The history holds one alert: one open, one close.
    expect((await historyOf(em, m.id)).map((h) => h.state)).toEqual(["open", "closed"]);
  });

  it("skipResolved: no notification on leaving alert, though the history records the close", async () => {
    await ingest(em, eventsAt(0, 2));
    const m = await createMonitor(em, { threshold: 1, skipResolved: true });
    const runs = await em.clock.advance("2m");
    expect(statesOf(runs, m.id)).toEqual([
      [1, "open"],
      [2, "closed"],
    ]);
    expect(alertsOf(runs, m.id)).toEqual([[1, "Open", null, 2]]);
    const history = await historyOf(em, m.id);
    expect(history.map((h) => [h.state, h.timestamp])).toEqual([
      ["open", at(1)],
      ["closed", at(2)],
    ]);
    // One alert: its open and its close share the check id.
    expect(history[0].checkId).toBe(history[1].checkId);
    expect(history[0].checkId).toMatch(/^chk_[0-9a-f]{16}$/);
  });
});

describe("when a monitor runs (the scheduler)", () => {
  it("every intervalMinutes on that interval's grid, over rangeMinutes ending secondDelay before the run (GO, TF)", async () => {
    const m = await createMonitor(em, { intervalMinutes: 5, rangeMinutes: 15, secondDelay: 30 });
    const runs = await em.clock.advance("16m");
    expect(runs.map((r) => [r.time, r.windowStart, r.windowEnd])).toEqual([
      [at(5), at(-10, -30), at(4, 30)],
      [at(10), at(-5, -30), at(9, 30)],
      [at(15), at(0, -30), at(14, 30)],
    ]);
    expect(runs.every((r) => r.monitorId === m.id)).toBe(true);
  });

  it("the window is [start, end): an event at the run's end belongs to the next run (secondDelay 0)", async () => {
    await ingest(em, [{ _time: at(1) }]);
    const m = await createMonitor(em, {});
    const runs = await em.clock.advance("2m");
    expect(runs.map((r) => r.values[0].value)).toEqual([null, 1]);
    expect(statesOf(runs, m.id)).toEqual([
      [1, "ok"],
      [2, "open"],
    ]);
  });

  it("runs of several monitors come in time order (at one time, in the order the monitors were created), each monitor's own interval kept", async () => {
    const a = await createMonitor(em, { name: "a", intervalMinutes: 2 });
    const b = await createMonitor(em, { name: "b", intervalMinutes: 3 });
    const runs = await em.clock.advance("6m");
    expect(runs.map((r) => [r.monitorName, r.time])).toEqual([
      ["a", at(2)],
      ["b", at(3)],
      ["a", at(4)],
      ["a", at(6)],
      ["b", at(6)],
    ]);
    expect(new Set(runs.map((r) => r.monitorId))).toEqual(new Set([a.id, b.id]));
  });

  it("an edit takes effect at the next run: a new threshold, then a new interval", async () => {
    await ingest(em, [...eventsAt(0, 3), ...eventsAt(1, 3), ...eventsAt(2, 3), ...eventsAt(4, 3)]);
    const m = await createMonitor(em, { threshold: 5 });
    expect(statesOf(await em.clock.advance("1m"), m.id)).toEqual([[1, "ok"]]);
    const { id: _id, createdAt: _c, createdBy: _b, ...body } = m;
    expect((await api(em, "PUT", `/v2/monitors/${m.id}`, { ...body, threshold: 2 })).status).toBe(200);
    expect(statesOf(await em.clock.advance("1m"), m.id)).toEqual([[2, "open"]]);
    const put = await api(em, "PUT", `/v2/monitors/${m.id}`, {
      ...body,
      threshold: 2,
      intervalMinutes: 3,
      rangeMinutes: 3,
    });
    expect(put.status).toBe(200);
    // The next run is at the 3-minute grid's next point after now (minute 2): minute 3, then 6.
    const runs = await em.clock.advance("4m");
    expect(runs.map((r) => [r.time, r.windowStart, r.state])).toEqual([
      [at(3), at(0), "open"],
      [at(6), at(3), "open"],
    ]);
  });

  it("a delete cancels the next run, and the history goes with the monitor", async () => {
    await ingest(em, eventsAt(0, 3));
    const m = await createMonitor(em, {});
    const other = await createMonitor(em, { name: "other" });
    expect(statesOf(await em.clock.advance("1m"), m.id)).toEqual([[1, "open"]]);
    expect((await api(em, "DELETE", `/v2/monitors/${m.id}`)).status).toBe(204);
    const runs = await em.clock.advance("3m");
    expect(runs.map((r) => r.monitorId)).toEqual([other.id, other.id, other.id]);
    const history = await api(em, "GET", `/v2/monitors/${m.id}/history?startTime=now-1d&endTime=now`);
    expect(history.status).toBe(404);
  });

  it("disabled: no run at all", async () => {
    await createMonitor(em, { disabled: true });
    expect(await em.clock.advance("5m")).toEqual([]);
  });

  it("disabledUntil: no run before that time, runs resume from it (DOCS configure-monitors)", async () => {
    await ingest(em, eventsAt(3, 2));
    const m = await createMonitor(em, { disabledUntil: at(3) });
    const runs = await em.clock.advance("5m");
    expect(statesOf(runs, m.id)).toEqual([
      [3, "ok"],
      [4, "open"],
      [5, "closed"],
    ]);
  });
});

describe("a failing query is recorded on its run and never stops the scheduler", () => {
  it("an unknown dataset and a query the engine refuses each fail their own runs; other monitors run on", async () => {
    await ingest(em, eventsAt(0, 2));
    const missing = await createMonitor(em, { name: "missing", aplQuery: "['nope'] | summarize count()" });
    const refused = await createMonitor(em, { name: "refused", aplQuery: "['logs'] | summarize count( by" });
    await createMonitor(em, { name: "fine" });
    const runs = await em.clock.advance("2m");
    expect(runs.map((r) => [r.monitorName, r.state])).toEqual([
      ["missing", "error"],
      ["refused", "error"],
      ["fine", "open"],
      ["missing", "error"],
      ["refused", "error"],
      ["fine", "closed"],
    ]);
    const byId = (id: string) => runs.find((r) => r.monitorId === id)!;
    expect(byId(missing.id).error).toBe('404: dataset "nope" not found');
    expect(byId(refused.id).error).toMatch(/^400: apl: .*\(line 1, column \d+\)$/);
    // A failed run opens and closes nothing.
    expect(await historyOf(em, missing.id)).toEqual([]);
  });

  it("a threshold monitor whose query does not aggregate still compares its numeric values; a match monitor that aggregates fails", async () => {
    await ingest(em, eventsAt(0, 1, { ms: 700 }));
    const m = await createMonitor(em, { aplQuery: "['logs'] | project ms", threshold: 500 });
    const match = await createMonitor(em, { type: "MatchEvent", aplQuery: "['logs'] | summarize count()" });
    const runs = await em.clock.advance("1m");
    expect(runs.find((r) => r.monitorId === m.id)).toMatchObject({ state: "open", values: [{ value: 700 }] });
    expect(runs.find((r) => r.monitorId === match.id)?.error).toMatch(
      /match monitor's query .* must not summarize/,
    );
  });
});

describe("history (OA GET /v2/monitors/{id}/history)", () => {
  it("each open and close, within the asked range only", async () => {
    await ingest(em, [...eventsAt(0, 2), ...eventsAt(3, 2)]);
    const m = await createMonitor(em, { threshold: 1 });
    await em.clock.advance("5m");
    const all = await historyOf(em, m.id);
    expect(all.map((h) => [h.name, h.state, h.timestamp])).toEqual([
      ["test monitor", "open", at(1)],
      ["test monitor", "closed", at(2)],
      ["test monitor", "open", at(4)],
      ["test monitor", "closed", at(5)],
    ]);
    const part = await api(em, "GET", `/v2/monitors/${m.id}/history?startTime=${at(3)}&endTime=${at(4)}`);
    expect(part.body.map((h: { timestamp: string }) => h.timestamp)).toEqual([at(4)]);
    // Relative times read the emulator's clock: the last 2 minutes of the manual clock.
    const recent = await api(em, "GET", `/v2/monitors/${m.id}/history?startTime=now-2m&endTime=now`);
    expect(recent.body.map((h: { timestamp: string }) => h.timestamp)).toEqual([at(4), at(5)]);
  });
});

describe("a run's query sees the dataset's virtual fields, as /v1/datasets/_apl does", () => {
  it("a threshold on a virtual field (the flagship's duration_ms) opens when the field crosses", async () => {
    // duration in nanoseconds, the virtual field in milliseconds: 812 ms crosses 500, 95 ms does not.
    await api(em, "POST", "/v2/vfields", {
      dataset: "logs",
      name: "duration_ms",
      expression: "duration / 1000000",
      type: "number",
    });
    await ingest(em, [
      { _time: at(0, 10), duration: 95_000_000 },
      { _time: at(1, 10), duration: 812_000_000 },
    ]);
    const m = await createMonitor(em, {
      aplQuery: "['logs'] | summarize max(duration_ms)",
      operator: "Above",
      threshold: 500,
    });
    const runs = await em.clock.advance("2m");
    expect(statesOf(runs, m.id)).toEqual([
      [1, "ok"],
      [2, "open"],
    ]);
    expect(alertsOf(runs, m.id)).toEqual([[2, "Open", null, 812]]);
  });
});
