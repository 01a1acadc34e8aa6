/**
 * Judging as a pure function (emulator/alerting/judge.ts): each rule of docs/emulator.md "Monitors that run" as a
 * row over tables written by hand, with no server; then the same monitors judged over a local store of events
 * (emulator/alerting/replay.ts through the typed query entry) against what the emulator's scheduler did with the
 * same events on its manual clock, run for run.
 */
import type { MonitorRun } from "../../emulator";
import { readAlerts } from "../../emulator/alerting/alert-state";
import { alertId, judge, runQueries, runWindow, type JudgeTable } from "../../emulator/alerting/judge";
import { parseMonitor, type RunnableMonitor } from "../../emulator/alerting/monitor";
import { replay } from "../../emulator/alerting/replay";
import { storeCatalog } from "../../emulator/catalog";
import { queryTable } from "../../emulator/query/table";
import { EventStore } from "../../emulator/store/events";
import { parseRfc3339Ns } from "../../emulator/time";
import { api } from "../helpers/emulator";
import { createMonitor, eventsAt, historyOf, ingest, startManual, T0 } from "../helpers/monitor-runs";

const MIN = 60_000;

/** A threshold monitor with `fields` on top, typed as runs read it. */
const monitor = (fields: Record<string, unknown> = {}): RunnableMonitor =>
  parseMonitor({
    id: "mon_1",
    name: "m",
    type: "Threshold",
    aplQuery: "['logs'] | summarize count()",
    operator: "Above",
    threshold: 5,
    ...fields,
  });

/** A summarize result: `values` of column `n`, one row each, grouped by `host` when `hosts` are given. */
function table(values: number[], hosts?: string[], matched = values.length): JudgeTable {
  return {
    columns: [
      ...(hosts ? [{ name: "host", type: "string", aggregated: false }] : []),
      { name: "n", type: "integer", aggregated: true },
    ],
    groupBy: hosts ? ["host"] : [],
    summarized: true,
    rows: values.map((n, i) => (hosts ? { host: hosts[i], n } : { n })),
    matched,
  };
}

/** Replays `m` over one ungrouped value a run, one run a minute from T0. */
const replayValues = (m: RunnableMonitor, values: number[]) =>
  replay(m, T0, T0 + values.length * MIN, (w) => {
    const i = Number((w.nowNs / 1_000_000n - BigInt(T0)) / BigInt(MIN)) - 1;
    return { ok: true, table: table([values[i]]) };
  });

/** Judges a sequence of results, one run a minute from T0, and answers each run's transitions in short. */
function judgeAll(m: RunnableMonitor, tables: JudgeTable[]): string[][] {
  let alerts = readAlerts(undefined);
  return tables.map((t, i) => {
    const judged = judge(m, [{ ok: true, table: t }], alerts, T0 + (i + 1) * MIN);
    alerts = judged.alerts;
    return judged.transitions.map((x) => `${x.action} ${x.key} ${x.value}${x.notifies ? "" : " silent"}`);
  });
}

describe("judging rules, with no server (docs/emulator.md, Monitors that run)", () => {
  it.each<[string, Record<string, unknown>, JudgeTable[], string[][]]>([
    [
      "threshold: any value crossing opens, none closes (DOCS threshold-monitors)",
      {},
      [table([3]), table([2, 9]), table([4])],
      [[], ["open [] 9"], ["close [] 4"]],
    ],
    [
      "triggerFromNRuns 3 with triggerAfterNPositiveResults 2: two of the last three (GO)",
      { triggerFromNRuns: 3, triggerAfterNPositiveResults: 2 },
      [table([9]), table([1]), table([9]), table([9]), table([1]), table([1])],
      [[], [], ["open [] 9"], [], [], ["close [] 1"]],
    ],
    [
      "notifyByGroup: each group on its own; a group that leaves closes with value 0 (GO, DOCS)",
      { notifyByGroup: true },
      [table([9, 1], ["a", "b"]), table([1], ["b"])],
      [['open ["a"] 9'], ['close ["a"] 0']],
    ],
    [
      "notifyByGroup: a group still in the result that stops crossing closes with its value; the others stay as they are",
      { notifyByGroup: true },
      [table([9, 9], ["a", "b"]), table([1, 9], ["a", "b"]), table([1, 1], ["a", "b"])],
      [['open ["a"] 9', 'open ["b"] 9'], ['close ["a"] 1'], ['close ["b"] 1']],
    ],
    [
      "alertOnNoData: no matching event opens with null; data back closes (DOCS)",
      { alertOnNoData: true },
      [table([0], undefined, 0), table([1])],
      [["open [] null"], ["close [] 1"]],
    ],
    [
      "skipResolved: the close is recorded but does not notify (OA)",
      { skipResolved: true },
      [table([9]), table([1])],
      [["open [] 9"], ["close [] 1 silent"]],
    ],
  ])("%s", (_rule, fields, tables, expected) => {
    expect(judgeAll(monitor(fields), tables)).toEqual(expected);
  });

  it("keeps every group's value for the run, the groups that step no alert included, in the result's order", () => {
    const m = monitor({ notifyByGroup: true });
    const first = judge(
      m,
      [{ ok: true, table: table([9, 1, 2], ["a", "b", "c"]) }],
      readAlerts(undefined),
      T0 + MIN,
    );
    expect(first.values.map((v) => [v.group, v.value])).toEqual([
      [{ host: "a" }, 9],
      [{ host: "b" }, 1],
      [{ host: "c" }, 2],
    ]);
    // "a" left: it closes with value 0, after the groups there are.
    const second = judge(m, [{ ok: true, table: table([3], ["c"]) }], first.alerts, T0 + 2 * MIN);
    expect(second.values.map((v) => [v.group, v.value])).toEqual([
      [{ host: "c" }, 3],
      [{ host: "a" }, 0],
    ]);
    // A run with nothing to say shares the empty lists; none can be added to.
    const third = judge(m, [{ ok: true, table: table([3], ["c"]) }], second.alerts, T0 + 3 * MIN);
    expect(
      [third.transitions, third.events, third.history].every((l) => l.length === 0 && Object.isFrozen(l)),
    ).toBe(true);
  });

  it("a replay hands each run's state on without copying it, the same runs as judging each from a copy, and leaves the caller's state as it was", async () => {
    const m = monitor({ notifyByGroup: true, triggerFromNRuns: 2, triggerAfterNPositiveResults: 1 });
    const results = [
      table([9, 1], ["a", "b"]),
      table([1, 9], ["a", "b"]),
      table([1], ["b"]),
      table([1, 1], ["a", "b"]),
      table([9], ["a"]),
    ];
    const prior = judge(m, [{ ok: true, table: table([9], ["c"]) }], readAlerts(undefined), T0).alerts;
    const before = JSON.stringify(prior);
    const replayed = await replay(
      m,
      T0,
      T0 + results.length * MIN,
      (w) => ({
        ok: true,
        table: results[Number((w.nowNs / 1_000_000n - BigInt(T0)) / BigInt(MIN)) - 1],
      }),
      { prior },
    );
    expect(JSON.stringify(prior)).toBe(before);
    // Judged one by one, each from a copy of the state before (judge's default).
    let alerts = prior;
    const oneByOne = results.map((t, i) => {
      const j = judge(m, [{ ok: true, table: t }], alerts, T0 + (i + 1) * MIN);
      expect(j.alerts).not.toBe(alerts);
      alerts = j.alerts;
      return j.transitions.map((x) => `${x.action} ${x.key}`);
    });
    expect(replayed.runs.map((r) => r.judged.transitions.map((x) => `${x.action} ${x.key}`))).toEqual(
      oneByOne,
    );
    expect(oneByOne.flat().length).toBeGreaterThan(3);
    expect(replayed.alerts).toEqual(alerts);
  });

  it("a handed-over state is judged in place; a failed run leaves it as it was", () => {
    const m = monitor();
    const state = readAlerts(undefined);
    const opened = judge(m, [{ ok: true, table: table([9]) }], state, T0 + MIN, true);
    expect(opened.alerts).toBe(state);
    expect(state.alerts["[]"].open).toBe(true);
    const snapshot = JSON.stringify(state);
    const failed = judge(m, [{ ok: false, error: "404: dataset" }], state, T0 + 2 * MIN, true);
    expect(failed.alerts).toBe(state);
    expect(JSON.stringify(state)).toBe(snapshot);
  });

  it("a monitor's notifications share one frozen description of it", () => {
    const m = monitor({ notifyEveryRun: true, description: "checkout errors" });
    const first = judge(m, [{ ok: true, table: table([9]) }], readAlerts(undefined), T0 + MIN);
    const second = judge(m, [{ ok: true, table: table([9]) }], first.alerts, T0 + 2 * MIN);
    expect(first.events[0].monitor).toEqual({
      id: "mon_1",
      name: "m",
      description: "checkout errors",
      type: "Threshold",
    });
    expect(second.events[0].monitor).toBe(first.events[0].monitor);
    expect(Object.isFrozen(first.events[0].monitor)).toBe(true);
    // Another monitor (an edit is parsed anew) has its own.
    const edited = monitor({ notifyEveryRun: true, name: "m2" });
    const third = judge(edited, [{ ok: true, table: table([9]) }], readAlerts(undefined), T0 + MIN);
    expect(third.events[0].monitor.name).toBe("m2");
  });

  it("notifyEveryRun: each run in alert notifies, with no new transition (OA)", () => {
    const m = monitor({ notifyEveryRun: true });
    const first = judge(m, [{ ok: true, table: table([9]) }], readAlerts(undefined), T0 + MIN);
    const second = judge(m, [{ ok: true, table: table([9]) }], first.alerts, T0 + 2 * MIN);
    expect(second.transitions).toEqual([]);
    expect(second.events.map((e) => e.action)).toEqual(["Open"]);
  });

  it("a failed query leaves the prior state and is the run's error (docs: a failing query)", () => {
    const m = monitor();
    const open = judge(m, [{ ok: true, table: table([9]) }], readAlerts(undefined), T0 + MIN);
    const failed = judge(m, [{ ok: false, error: "404: dataset" }], open.alerts, T0 + 2 * MIN);
    expect(failed).toMatchObject({ state: "error", error: "404: dataset", transitions: [], events: [] });
    expect(failed.alerts).toBe(open.alerts);
  });

  it("is pure: the prior state is not changed, and the same inputs give the same alert id", () => {
    const m = monitor();
    const prior = readAlerts(undefined);
    const a = judge(m, [{ ok: true, table: table([9]) }], prior, T0 + MIN);
    const b = judge(m, [{ ok: true, table: table([9]) }], prior, T0 + MIN);
    expect(prior).toEqual(readAlerts(undefined));
    expect(a).toEqual(b);
    expect(a.transitions[0].alertId).toBe(alertId("mon_1", "[]", T0 + MIN));
    expect(a.history).toEqual([
      { checkId: a.transitions[0].alertId, name: "m", state: "open", timestamp: "2026-01-10T12:01:00Z" },
    ]);
    // The close carries the open's id, as the history's checkId pairs them.
    const closed = judge(m, [{ ok: true, table: table([1]) }], a.alerts, T0 + 2 * MIN);
    expect(closed.transitions[0]).toMatchObject({ action: "close", alertId: a.transitions[0].alertId });
  });

  it("runs of one value share its frozen values list when their group is shared; a group made per run does not", () => {
    const m = monitor();
    const runs = [3, 3, 7, 3].map((n, i) =>
      judge(m, [{ ok: true, table: table([n]) }], readAlerts(undefined), T0 + i * MIN),
    );
    expect(runs.map((r) => r.values)).toEqual([3, 3, 7, 3].map((value) => [{ group: {}, value }]));
    expect(runs[1].values).toBe(runs[0].values);
    expect(runs[3].values).toBe(runs[0].values);
    expect(runs[2].values).not.toBe(runs[0].values);
    // Shared, so no reader may change them.
    expect(Object.isFrozen(runs[0].values) && Object.isFrozen(runs[0].values[0])).toBe(true);
    // Each run reads its groups anew from its rows (the event path): nothing to share, nothing frozen.
    const grouped = monitor({ notifyByGroup: true, aplQuery: "['logs'] | summarize count() by host" });
    const [a, b] = [0, 1].map((i) =>
      judge(grouped, [{ ok: true, table: table([3], ["x"]) }], readAlerts(undefined), T0 + i * MIN),
    );
    expect(a.values).toEqual([{ group: { host: "x" }, value: 3 }]);
    expect(b.values).not.toBe(a.values);
    expect(Object.isFrozen(a.values)).toBe(false);
  });

  it("a replay's quiet runs of one state and value share one frozen record; a run that says something has its own", async () => {
    const m = monitor();
    const values = [3, 3, 9, 3, 3];
    const { runs } = await replayValues(m, values);
    expect(runs.map((r) => [r.judged.state, r.judged.values[0].value, r.judged.transitions.length])).toEqual([
      ["ok", 3, 0],
      ["ok", 3, 0],
      ["open", 9, 1],
      ["closed", 3, 1],
      ["ok", 3, 0],
    ]);
    expect(runs[1].judged).toBe(runs[0].judged);
    expect(runs[4].judged).toBe(runs[0].judged);
    expect(Object.isFrozen(runs[0].judged)).toBe(true);
    expect(runs[2].judged).not.toBe(runs[3].judged);
    expect(runs[3].judged.transitions[0]).toMatchObject({ action: "close", value: 3 });
    // The emulator's store keeps history entries; a replay stores nothing, so its runs keep none.
    expect(runs.some((r) => "history" in r.judged)).toBe(false);
  });

  it("a quiet run with its alert still open shares a record too, apart from the quiet runs with none open", async () => {
    const m = monitor();
    const values = [9, 9, 3, 9, 9];
    const { runs } = await replayValues(m, values);
    expect(runs.map((r) => [r.judged.state, r.judged.transitions.length])).toEqual([
      ["open", 1],
      ["open", 0],
      ["closed", 1],
      ["open", 1],
      ["open", 0],
    ]);
    expect(runs[4].judged).toBe(runs[1].judged);
    expect(Object.isFrozen(runs[1].judged)).toBe(true);
  });

  it("a shared group's values past the first it keeps are each run's own: unfrozen, and a replay keeps no shared record of them", async () => {
    const m = monitor({ threshold: 1e12 });
    // Distinct values no other row uses: whatever the whole result's shared values held before, the last of these
    // come after it holds its most (1,024).
    const values = Array.from({ length: 1100 }, (_, i) => 7_000_000 + i);
    const { runs } = await replayValues(m, values);
    expect(runs.map((r) => r.judged.values[0].value)).toEqual(values);
    const last = runs.slice(-50);
    expect(last.every((r) => !Object.isFrozen(r.judged.values) && !Object.isFrozen(r.judged))).toBe(true);
    expect(new Set(last.map((r) => r.judged)).size).toBe(last.length);
  });

  it("the window is [run − secondDelay − range, run − secondDelay); an anomaly monitor's baselines follow it day by day", () => {
    const m = monitor({ rangeMinutes: 10, secondDelay: 30 });
    const w = runWindow(m, T0);
    expect([w.startNs, w.endNs]).toEqual([
      BigInt(T0 - 30_000 - 10 * MIN) * 1_000_000n,
      BigInt(T0 - 30_000) * 1_000_000n,
    ]);
    const anomaly = monitor({ type: "AnomalyDetection", compareDays: 2, tolerance: 0 });
    expect(runQueries(anomaly, T0).map((q) => q.endNs)).toEqual(
      [0, 1, 2].map((d) => BigInt(T0 - d * 86_400_000) * 1_000_000n),
    );
  });

  it("a match monitor: one Open per event, oldest first, ten a minute at most (DOCS match-monitors)", () => {
    const m = monitor({ type: "MatchEvent", aplQuery: "['logs']" });
    const rows = Array.from({ length: 12 }, (_, i) => ({
      _time: new Date(T0 - MIN + (11 - i) * 1000).toISOString(),
      i,
    }));
    const judged = judge(
      m,
      [{ ok: true, table: { columns: [], groupBy: [], summarized: false, rows, matched: rows.length } }],
      readAlerts(undefined),
      T0,
    );
    expect(judged.events.map((e) => (e.matchedEvent as { i: number }).i)).toEqual([
      11, 10, 9, 8, 7, 6, 5, 4, 3, 2,
    ]);
    expect(judged.suppressed).toBe(2);
  });
});

describe("the alert id in the emulator's history and outbox", () => {
  it("each notification carries the id its alert's history entries share", async () => {
    const em = await startManual();
    try {
      const email = await api(em, "POST", "/v2/notifiers", {
        name: "mail",
        properties: { email: { emails: ["oncall@example.com"] } },
      });
      expect(email.status).toBe(200);
      await ingest(em, [...eventsAt(0, 3), ...eventsAt(2, 3)]);
      const m = await createMonitor(em, { threshold: 2, notifyEveryRun: true, notifierIds: [email.body.id] });
      await em.clock.advance("4m");
      const history = await historyOf(em, m.id);
      const [first, second] = [history[0].checkId, history[2].checkId];
      expect(history.map((h) => `${h.state} ${h.checkId}`)).toEqual([
        `open ${first}`,
        `closed ${first}`,
        `open ${second}`,
        `closed ${second}`,
      ]);
      expect(first).not.toBe(second);
      expect(em.notifications().map((e) => `${e.action} ${e.alertId}`)).toEqual([
        `Open ${first}`,
        `Closed ${first}`,
        `Open ${second}`,
        `Closed ${second}`,
      ]);
    } finally {
      await em.close();
    }
  });
});

describe("judging over a local store gives the scheduler's runs (the same events, the same monitors)", () => {
  it("threshold, grouped, N of M, no data, every run, skip resolved, match and anomaly monitors", async () => {
    const em = await startManual();
    try {
      const events = [
        ...eventsAt(-1440 + 3, 4, { host: "a", ms: 10 }),
        ...eventsAt(-1440 + 4, 4, { host: "a", ms: 10 }),
        ...eventsAt(1, 3, { host: "a", ms: 100 }),
        ...eventsAt(2, 7, { host: "b", ms: 900 }),
        ...eventsAt(3, 9, { host: "a", ms: 50 }),
        ...eventsAt(4, 2, { host: "b", ms: 20, status: 500 }),
        ...eventsAt(9, 8, { host: "a", ms: 70 }),
        ...eventsAt(11, 1, { host: "c", ms: 5, status: 500 }),
      ];
      await ingest(em, events);
      const specs: Record<string, unknown>[] = [
        { aplQuery: "['logs'] | summarize count() by bin(_time, 1m)", rangeMinutes: 5, threshold: 6 },
        {
          aplQuery: "['logs'] | summarize n = count() by host",
          notifyByGroup: true,
          threshold: 2,
          triggerFromNRuns: 2,
          triggerAfterNPositiveResults: 1,
        },
        { aplQuery: "['logs'] | summarize avg(ms)", alertOnNoData: true, threshold: 60, secondDelay: 30 },
        { aplQuery: "['logs'] | summarize max(ms)", threshold: 40, notifyEveryRun: true, skipResolved: true },
        {
          type: "MatchEvent",
          aplQuery: "['logs'] | where status == 500",
          operator: undefined,
          threshold: undefined,
        },
        {
          type: "AnomalyDetection",
          aplQuery: "['logs'] | summarize count() by bin(_time, 1m)",
          operator: "Above",
          compareDays: 1,
          tolerance: 10,
          threshold: undefined,
          rangeMinutes: 2,
        },
      ];
      const created = [];
      for (const s of specs) created.push(await createMonitor(em, s));
      const runs = await em.clock.advance("15m");

      const store = new EventStore();
      store.append(
        "logs",
        events.map(({ _time, ...data }) => ({ timeNs: parseRfc3339Ns(String(_time))!, data })),
        BigInt(T0) * 1_000_000n,
      );
      const catalog = storeCatalog(store);
      for (const stored of created) {
        const m = parseMonitor(stored);
        const { runs: replayed } = await replay(m, T0, T0 + 15 * MIN, async (w) => {
          const r = await queryTable(store, { apl: m.aplQuery, ...w, limit: 50_000 }, catalog);
          return r.ok ? r : { ok: false, error: `${r.error.status}: ${r.error.message}` };
        });
        const expected = runs
          .filter((r: MonitorRun) => r.monitorId === m.id)
          .map((r) => ({
            time: r.time,
            state: r.state,
            values: r.values,
            alerts: r.alerts,
            transitions: r.transitions,
          }));
        const got = replayed.map((r) => ({
          time: new Date(r.runMs).toISOString().replace(".000Z", "Z"),
          state: r.judged.state,
          values: r.judged.values,
          alerts: r.judged.events.map((e) => ({
            action: e.action,
            groupValues: e.groupValues,
            value: e.value,
            body: e.body,
            alertId: e.alertId,
          })),
          transitions: r.judged.transitions.map((t) => ({
            alertId: t.alertId,
            action: t.action,
            groupValues: t.groupValues,
            value: t.value,
            notifies: t.notifies,
          })),
        }));
        expect(got).toEqual(expected);
        expect(expected.some((r) => r.alerts.length > 0)).toBe(true);
        // The history carries the judge's stable alert ids: the scheduler judges with it.
        const history = (await historyOf(em, m.id)).map((h) => `${h.state} ${h.checkId}`);
        const transitions = replayed.flatMap((r) =>
          r.judged.transitions.map((t) => `${t.action === "open" ? "open" : "closed"} ${t.alertId}`),
        );
        expect(history).toEqual(transitions);
      }
    } finally {
      await em.close();
    }
  });
});
