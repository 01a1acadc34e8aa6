/**
 * `POST /_emulator/clock` and `GET /_emulator/clock` (emulator/routes/emulator-control.ts): moving a manual clock
 * over HTTP answers the runs made, bad bodies are refused naming the field, a real clock is not moved, and only the
 * development tokens may use the route.
 */
import { startEmulator, type RunningEmulator } from "../../emulator";
import { alertId } from "../../emulator/alerting/judge";
import { Notifications } from "../../emulator/alerting/notify";
import { MonitorScheduler } from "../../emulator/alerting/scheduler";
import type { EmulatorClock } from "../../emulator/clock";
import type { EmulatorContext } from "../../emulator/context";
import { Quota } from "../../emulator/quota";
import { COLLECTION_FAMILIES } from "../../emulator/routes";
import { State } from "../../emulator/state";
import { EventStore } from "../../emulator/store/events";
import { api } from "../helpers/emulator";
import { at, createMonitor, eventsAt, ingest, startManual } from "../helpers/monitor-runs";

let em: RunningEmulator;
beforeAll(async () => {
  em = await startManual();
});
afterAll(async () => {
  await em.close();
});

describe("POST /_emulator/clock", () => {
  it('{"advance": "3m"} makes the runs due, in time order, and answers them with the new now', async () => {
    await ingest(em, eventsAt(1, 2));
    const m = await createMonitor(em, { threshold: 1 });
    const res = await api(em, "POST", "/_emulator/clock", { advance: "3m" });
    expect(res.status).toBe(200);
    expect(res.body.now).toBe(new Date(at(3)).toISOString());
    expect(res.body.runs.map((r: { time: string; state: string }) => [r.time, r.state])).toEqual([
      [at(1), "ok"],
      [at(2), "open"],
      [at(3), "closed"],
    ]);
    expect(res.body.runs[1]).toEqual({
      monitorId: m.id,
      monitorName: "test monitor",
      time: at(2),
      windowStart: at(1),
      windowEnd: at(2),
      state: "open",
      values: [{ group: {}, value: 2 }],
      notifications: 1,
      alerts: [
        {
          action: "Open",
          groupValues: null,
          value: 2,
          body: "Current value of 2 is above the threshold value of 1",
          alertId: alertId(m.id, "[]", Date.parse(at(2))),
        },
      ],
      // The judge's transitions, the alert's stable id with them.
      transitions: [
        {
          alertId: alertId(m.id, "[]", Date.parse(at(2))),
          action: "open",
          groupValues: null,
          value: 2,
          notifies: true,
        },
      ],
    });
    // {"to": …} moves to an absolute time; the handle sees the same clock.
    const to = await api(em, "POST", "/_emulator/clock", { to: at(5) });
    expect(to.status).toBe(200);
    expect(to.body.runs.map((r: { time: string }) => r.time)).toEqual([at(4), at(5)]);
    expect(em.clock.now().toISOString()).toBe(new Date(at(5)).toISOString());
    // A number of ms is a duration too.
    const ms = await api(em, "POST", "/_emulator/clock", { advance: 60_000 });
    expect(ms.body.runs.map((r: { time: string }) => r.time)).toEqual([at(6)]);
    expect(await api(em, "GET", "/_emulator/clock")).toMatchObject({
      status: 200,
      body: { kind: "manual", now: new Date(at(6)).toISOString() },
    });
  });

  it.each([
    [{}, 422, 'advance: is required, or to: give exactly one of advance ("90m") and to (an RFC 3339 time)'],
    [{ advance: "90" }, 422, 'advance: must be a duration such as "90m", "1h30m", "45s" or "2d"'],
    [{ advance: "soon" }, 422, 'advance: must be a duration such as "90m", "1h30m", "45s" or "2d"'],
    [{ advance: -5 }, 422, /^advance: /],
    [{ advance: true }, 422, /^advance: must be a duration .* or a number of ms$/],
    [{ advance: "100000d" }, 422, "advance: must be at most ten years"],
    [
      { advance: "1m", to: "2030-01-01T00:00:00Z" },
      422,
      "to: cannot be given with advance: give exactly one of them",
    ],
    [{ to: "tomorrow" }, 422, "to: must be an RFC 3339 date-time"],
    [
      { to: "2000-01-01T00:00:00Z" },
      409,
      /^to: 2000-01-01T00:00:00Z is before the clock's now, .*only moves forward$/,
    ],
    [{ speed: 2 }, 422, /speed/],
  ])("%p is refused %d, naming the field", async (body, status, message) => {
    const before = em.clock.now().getTime();
    const res = await api(em, "POST", "/_emulator/clock", body);
    expect(res.status).toBe(status);
    if (typeof message === "string") expect(res.body.message).toBe(message);
    else expect(res.body.message).toMatch(message);
    expect(em.clock.now().getTime()).toBe(before);
  });

  it("a body that is not a JSON object is a 400", async () => {
    const res = await api(em, "POST", "/_emulator/clock", "[1]");
    expect(res.status).toBe(400);
    expect(res.body.message).toBe("request body must be a JSON object");
  });

  it("takes only the development tokens: a minted API token is refused 403", async () => {
    const minted = await api(em, "POST", "/v2/tokens", {
      name: "everything",
      orgCapabilities: { monitors: ["create", "read", "update", "delete"] },
    });
    expect(minted.status).toBe(200);
    const res = await api(
      em,
      "POST",
      "/_emulator/clock",
      { advance: "1m" },
      { authorization: `Bearer ${minted.body.token}` },
    );
    expect(res.status).toBe(403);
    expect(res.body.message).toMatch(/development tokens/);
    const none = await api(em, "POST", "/_emulator/clock", { advance: "1m" }, { authorization: "" });
    expect(none.status).toBe(403);
  });
});

describe("on a real clock", () => {
  it("a valid move is refused 409, saying how to get a manual clock; an invalid one is still a 422", async () => {
    const real = await startEmulator({ port: 0 });
    try {
      const res = await api(real, "POST", "/_emulator/clock", { advance: "1m" });
      expect(res.status).toBe(409);
      expect(res.body.message).toMatch(
        /real clock, which cannot be moved; start it with clock: "manual" \(CLI: --clock manual\)/,
      );
      expect((await api(real, "POST", "/_emulator/clock", { advance: "x" })).status).toBe(422);
      const clock = await api(real, "GET", "/_emulator/clock");
      expect(clock.body.kind).toBe("real");
      expect(Math.abs(Date.parse(clock.body.now) - Date.now())).toBeLessThan(60_000);
    } finally {
      await real.close();
    }
  });
});

describe("onMonitorRun", () => {
  it("sees every run, as a move answers them", async () => {
    const seen: string[] = [];
    const own = await startManual({
      onMonitorRun: (run) => seen.push(`${run.monitorName} ${run.time} ${run.state}`),
    });
    try {
      await createMonitor(own, { name: "watched" });
      const runs = await own.clock.advance("2m");
      expect(seen).toEqual([`watched ${at(1)} ok`, `watched ${at(2)} ok`]);
      expect(runs.map((r) => `${r.monitorName} ${r.time} ${r.state}`)).toEqual(seen);
    } finally {
      await own.close();
    }
  });
});

describe("the real clock's runs", () => {
  it("after the machine slept past several runs, one run catches up and the next is on the grid after now", async () => {
    // A real clock whose time the test sets, and whose timers the test fires: the scheduler's side of the real
    // clock, without waiting on one.
    let now = Date.UTC(2026, 0, 10, 12, 0, 30);
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
    const em: EmulatorContext = {
      state,
      store: new EventStore(),
      clock,
      orgId: "local-org",
      quotas: { ingest: new Quota(1e9), query: new Quota(1e9) },
      queries: {},
      changed: () => undefined,
    };
    const runs: string[] = [];
    const scheduler = new MonitorScheduler({
      em,
      clock,
      notifications: new Notifications(),
      onRun: (run) => runs.push(run.time),
    });
    state.collection("monitors").set({
      id: "mon_1",
      name: "m",
      type: "Threshold",
      aplQuery: "['logs'] | summarize count()",
      operator: "Above",
      threshold: 0,
      intervalMinutes: 1,
      rangeMinutes: 1,
    });
    scheduler.start();
    const live = () => timers.filter((t) => !t.cancelled);
    expect(live().map((t) => new Date(t.ms).toISOString())).toEqual(["2026-01-10T12:01:00.000Z"]);
    // The machine sleeps ten and a half minutes; the timer fires late.
    now = Date.UTC(2026, 0, 10, 12, 11, 0) + 30_000;
    const first = live()[0];
    first.cancelled = true;
    await first.fn();
    expect(runs).toEqual(["2026-01-10T12:01:00Z"]);
    expect(live().map((t) => new Date(t.ms).toISOString())).toEqual(["2026-01-10T12:12:00.000Z"]);
    await scheduler.stop();
  });
});
