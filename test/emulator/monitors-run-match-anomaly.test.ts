/**
 * Match and anomaly monitors that run, on a manual clock, and what a run hands to the notifications. Sources:
 * DOCS = axiomhq/docs monitor-data/match-monitors.mdx and anomaly-monitors.mdx; OA = restapi/versions/v2.json.
 * The anomaly band is the emulator's own documented choice (emulator/alerting/anomaly.ts; docs/emulator.md).
 */
import type { RunningEmulator } from "../../emulator";
import { bandOf } from "../../emulator/alerting/anomaly";
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

const matchFatal = { type: "MatchEvent", aplQuery: "['logs'] | where level == 'fatal'" };

describe("match monitors (DOCS match-monitors)", () => {
  it("one notification per matching event of the interval, oldest first, carrying the event; never closed", async () => {
    await ingest(em, [
      { _time: at(0, 40), level: "fatal", msg: "second" },
      { _time: at(0, 10), level: "fatal", msg: "first" },
      { _time: at(0, 20), level: "info", msg: "ignored" },
      { _time: at(2, 5), level: "fatal", msg: "third" },
    ]);
    const m = await createMonitor(em, matchFatal);
    const runs = await em.clock.advance("4m");
    expect(statesOf(runs, m.id)).toEqual([
      [1, "open"],
      [2, "ok"],
      [3, "open"],
      [4, "ok"],
    ]);
    expect(alertsOf(runs, m.id).map(([minute, action]) => [minute, action])).toEqual([
      [1, "Open"],
      [1, "Open"],
      [3, "Open"],
    ]);
    const bodies = runs.flatMap((r) => r.alerts.map((a) => JSON.parse(a.body)));
    expect(bodies).toEqual([
      { _time: at(0, 10), level: "fatal", msg: "first" },
      { _time: at(0, 40), level: "fatal", msg: "second" },
      { _time: at(2, 5), level: "fatal", msg: "third" },
    ]);
    // Each notification is an open in the history; nothing closes.
    expect((await historyOf(em, m.id)).map((h) => h.state)).toEqual(["open", "open", "open"]);
  });

  it("an edit that makes a threshold monitor a match monitor closes its open alert at the next run", async () => {
    await ingest(em, [...eventsAt(0, 3), { _time: at(1, 30), level: "fatal" }]);
    const m = await createMonitor(em, { threshold: 2 });
    expect(alertsOf(await em.clock.advance("1m"), m.id)).toEqual([[1, "Open", null, 3]]);
    const { id: _id, createdAt: _c, createdBy: _b, operator: _o, threshold: _t, ...body } = m;
    const put = await api(em, "PUT", `/v2/monitors/${m.id}`, { ...body, ...matchFatal });
    expect(put.status).toBe(200);
    expect(alertsOf(await em.clock.advance("1m"), m.id)).toEqual([
      [2, "Closed", null, null],
      [2, "Open", null, null],
    ]);
    expect((await historyOf(em, m.id)).map((h) => h.state)).toEqual(["open", "closed", "open"]);
  });

  it("the projected columns are what a notification carries", async () => {
    await ingest(em, [{ _time: at(0, 1), level: "fatal", msg: "boom", secret: "x" }]);
    const m = await createMonitor(em, {
      ...matchFatal,
      aplQuery: "['logs'] | where level == 'fatal' | project msg",
    });
    const runs = await em.clock.advance("1m");
    expect(runs.find((r) => r.monitorId === m.id)?.alerts.map((a) => JSON.parse(a.body))).toEqual([
      { msg: "boom" },
    ]);
  });

  it("the window is the last interval, so each event is seen by one run (intervalMinutes 5)", async () => {
    await ingest(em, [
      { _time: at(1), level: "fatal" },
      { _time: at(2), level: "fatal" },
      { _time: at(7), level: "fatal" },
    ]);
    const m = await createMonitor(em, { ...matchFatal, intervalMinutes: 5, rangeMinutes: 60 });
    const runs = await em.clock.advance("10m");
    expect(runs.map((r) => [r.windowStart, r.windowEnd, r.notifications])).toEqual([
      [at(0), at(5), 2],
      [at(5), at(10), 1],
    ]);
    expect(runs.every((r) => r.monitorId === m.id)).toBe(true);
  });

  it("at most 10 notifications a minute: the rest of the minute's matches are counted as suppressed", async () => {
    await ingest(em, eventsAt(0, 15, { level: "fatal" }));
    const m = await createMonitor(em, matchFatal);
    const [run] = await em.clock.advance("1m");
    expect(run).toMatchObject({ monitorId: m.id, state: "open", notifications: 10, suppressed: 5 });
    expect(run.values).toEqual([{ group: {}, value: 15 }]);
  });

  it("at most 500 a day: after 50 minutes of 10, the rest of the day sends nothing", async () => {
    const events = Array.from({ length: 55 }, (_, minute) => eventsAt(minute, 11, { level: "fatal" })).flat();
    await ingest(em, events);
    const m = await createMonitor(em, matchFatal);
    const runs = await em.clock.advance("55m");
    const sent = runs.map((r) => r.notifications);
    expect(sent.slice(0, 50)).toEqual(Array(50).fill(10));
    expect(sent.slice(50)).toEqual([0, 0, 0, 0, 0]);
    expect(runs.slice(50).map((r) => r.suppressed)).toEqual([11, 11, 11, 11, 11]);
    expect(runs.reduce((n, r) => n + r.notifications, 0)).toBe(500);
    expect(runs.every((r) => r.monitorId === m.id)).toBe(true);
  });
});

describe("anomaly monitors (DOCS anomaly-monitors; the band is the emulator's documented choice)", () => {
  const DAY_MINUTES = 1440;
  /** One event a minute over minutes 0…9 of each of the two days before, at 98, 102, 98, …: mean 100, σ 2. */
  const baseline = () =>
    [1, 2].flatMap((day) =>
      Array.from({ length: 10 }, (_, i) => ({ _time: at(i - day * DAY_MINUTES, 30), ms: i % 2 ? 102 : 98 })),
    );
  /** Today: 100 for minutes 0…4, then `shifted` for 5…9. */
  const today = (shifted: number) =>
    Array.from({ length: 10 }, (_, i) => ({ _time: at(i, 30), ms: i < 5 ? 100 : shifted }));
  const anomaly = (fields: Record<string, unknown>) =>
    createMonitor(em, {
      type: "AnomalyDetection",
      aplQuery: "['logs'] | summarize avg(ms) by bin(_time, 1m)",
      intervalMinutes: 10,
      rangeMinutes: 10,
      compareDays: 2,
      tolerance: 0,
      ...fields,
    });

  it("the band: mean ± (1 + tolerance/100) × max(3σ, 10% of |mean|)", () => {
    expect(bandOf([98, 100, 102], 0)).toEqual({ mean: 100, low: 90, high: 110, samples: 3 });
    expect(bandOf([98, 100, 102], 100)).toEqual({ mean: 100, low: 80, high: 120, samples: 3 });
    const wide = bandOf([0, 100], 0)!;
    expect([wide.low, wide.high]).toEqual([50 - 150, 50 + 150]);
    expect(bandOf([], 0)).toBeUndefined();
  });

  it.each([
    ["Above", 0, 115, "open"],
    ["Above", 100, 115, "ok"],
    ["Above", 0, 85, "ok"],
    ["Below", 0, 85, "open"],
    ["Below", 0, 115, "ok"],
    ["AboveOrBelow", 0, 115, "open"],
    ["AboveOrBelow", 0, 85, "open"],
    ["AboveOrBelow", 0, 105, "ok"],
  ])(
    "%s, tolerance %d, a shift to %d against a band of 90…110 (80…120 at tolerance 100): %s",
    async (operator, tolerance, shifted, state) => {
      await ingest(em, [...baseline(), ...today(shifted)]);
      const m = await anomaly({ operator, tolerance });
      const [run] = await em.clock.advance("10m");
      expect(run).toMatchObject({ monitorId: m.id, state });
      if (state === "open") {
        expect(run.values).toEqual([{ group: {}, value: shifted }]);
        expect(run.alerts).toEqual([
          expect.objectContaining({
            action: "Open",
            value: shifted,
            body: expect.stringContaining(
              `the expected range ${tolerance === 0 ? "90 to 110" : "80 to 120"}`,
            ),
          }),
        ]);
      }
    },
  );

  it("with notifyByGroup, each group is judged against its own baseline", async () => {
    // api's baseline is about 100, web's about 400; today api moves to 130 and web stays at 400.
    const byService = (service: string, value: (i: number) => number, dayOffset: number) =>
      Array.from({ length: 10 }, (_, i) => ({
        _time: at(i - dayOffset * DAY_MINUTES, 30),
        service,
        ms: value(i),
      }));
    await ingest(em, [
      ...[1, 2].flatMap((day) => byService("api", (i) => (i % 2 ? 102 : 98), day)),
      ...[1, 2].flatMap((day) => byService("web", (i) => (i % 2 ? 404 : 396), day)),
      ...byService("api", () => 130, 0),
      ...byService("web", () => 400, 0),
    ]);
    const m = await anomaly({
      operator: "Above",
      aplQuery: "['logs'] | summarize avg(ms) by service, bin(_time, 1m)",
      notifyByGroup: true,
    });
    const [run] = await em.clock.advance("10m");
    expect(run).toMatchObject({ monitorId: m.id, state: "open" });
    expect(run.alerts.map((a) => [a.action, a.groupValues, a.value])).toEqual([["Open", ["api"], 130]]);
  });

  it("with no baseline (no events on the earlier days) nothing is anomalous", async () => {
    await ingest(em, today(1000));
    const m = await anomaly({ operator: "AboveOrBelow" });
    const [run] = await em.clock.advance("10m");
    expect(run).toMatchObject({ monitorId: m.id, state: "ok", values: [{ group: {}, value: 1000 }] });
  });

  it("the next window back within the band closes the alert", async () => {
    await ingest(em, [
      ...baseline(),
      ...today(130),
      // The next window's baseline and its own values, all 100.
      ...[1, 2].flatMap((day) => eventsAt(10 - day * DAY_MINUTES, 1, { ms: 100 })),
      ...eventsAt(10, 1, { ms: 101 }),
    ]);
    const m = await anomaly({ operator: "Above" });
    const runs = await em.clock.advance("20m");
    expect(alertsOf(runs, m.id)).toEqual([
      [10, "Open", null, 130],
      [20, "Closed", null, 101],
    ]);
  });
});

describe("what a run hands to the notifications", () => {
  it("each alert event goes to every notifier of the monitor, into the outbox; a deleted notifier is recorded as failed", async () => {
    const email = await api(em, "POST", "/v2/notifiers", {
      name: "oncall mail",
      properties: { email: { emails: ["oncall@example.com"] } },
    });
    expect(email.status).toBe(200);
    const gone = await api(em, "POST", "/v2/notifiers", {
      name: "gone",
      properties: { email: { emails: ["gone@example.com"] } },
    });
    await ingest(em, eventsAt(0, 3));
    const m = await createMonitor(em, { threshold: 2, notifierIds: [email.body.id, gone.body.id] });
    expect((await api(em, "DELETE", `/v2/notifiers/${gone.body.id}`)).status).toBe(204);
    await em.clock.advance("2m");
    const outbox = em.notifications().map((e) => [e.monitorId, e.notifierId, e.action, e.value, e.outcome]);
    expect(outbox).toEqual([
      [m.id, email.body.id, "Open", 3, "recorded"],
      [m.id, gone.body.id, "Open", 3, "failed"],
      [m.id, email.body.id, "Closed", null, "recorded"],
      [m.id, gone.body.id, "Closed", null, "failed"],
    ]);
    expect(em.notifications().map((e) => e.time)).toEqual(
      [at(1), at(1), at(2), at(2)].map((t) => expect.stringMatching(new RegExp(`^${t.slice(0, 19)}`))),
    );
  });
});
