/**
 * The emulator's one clock (emulator/clock.ts): the manual clock's timers in time order, each awaited; durations
 * and times as the handle and `POST /_emulator/clock` take them; `startEmulator`'s clock options refused at start
 * when of the wrong type, naming the option; and every time-dependent reader following a manual clock.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { startEmulator } from "../../emulator";
import {
  createClock,
  ManualClock,
  parseDurationMs,
  RealClock,
  REAL_CLOCK_CANNOT_MOVE,
} from "../../emulator/clock";
import { api } from "../helpers/emulator";

describe("the manual clock", () => {
  it("fires due timers in time order (ties in the order registered), now set to each timer's time, each awaited", async () => {
    const clock = new ManualClock(1000);
    const seen: string[] = [];
    let release!: () => void;
    clock.at(3000, () => void seen.push(`c@${clock.nowMs()}`));
    clock.at(2000, async () => {
      seen.push(`a@${clock.nowMs()}`);
      // The next timer waits for this one's work.
      await new Promise<void>((resolve) => (release = resolve));
      seen.push("a done");
    });
    clock.at(2000, () => void seen.push(`b@${clock.nowMs()}`));
    clock.at(9000, () => void seen.push("too late"));
    const moving = clock.advance(2500);
    await new Promise((r) => setImmediate(r));
    expect(seen).toEqual(["a@2000"]);
    release();
    await moving;
    expect(seen).toEqual(["a@2000", "a done", "b@2000", "c@3000"]);
    expect(clock.nowMs()).toBe(3500);
    expect(clock.pending).toBe(1);
  });

  it("a timer registered by a firing one fires in the same move when it falls due before the target", async () => {
    const clock = new ManualClock(0);
    const times: number[] = [];
    const every = (t: number) =>
      clock.at(t, () => {
        times.push(clock.nowMs());
        every(t + 60_000);
      });
    every(60_000);
    await clock.advance(5 * 60_000);
    expect(times).toEqual([60_000, 120_000, 180_000, 240_000, 300_000]);
    await clock.advanceTo(7 * 60_000);
    expect(times.slice(5)).toEqual([360_000, 420_000]);
  });

  it("of timers due at one time, the lower rank fires first, whenever registered", async () => {
    const clock = new ManualClock(0);
    const seen: string[] = [];
    clock.at(10, () => void seen.push("rank 2"), 2);
    clock.at(10, () => void seen.push("rank 1"), 1);
    clock.at(10, () => void seen.push("rank 1, later"), 1);
    await clock.advance(10);
    expect(seen).toEqual(["rank 1", "rank 1, later", "rank 2"]);
  });

  it("a cancelled timer never fires; moves queue one after another", async () => {
    const clock = new ManualClock(0);
    const seen: number[] = [];
    clock.at(10, () => void seen.push(10)).cancel();
    clock.at(20, () => void seen.push(20));
    await Promise.all([clock.advance(15), clock.advance(15)]);
    expect(seen).toEqual([20]);
    expect(clock.nowMs()).toBe(30);
  });

  it("only moves forward, by a finite amount", async () => {
    const clock = new ManualClock(5000);
    await expect(clock.advanceTo(4000)).rejects.toThrow(/before the clock's now.*only moves forward/);
    await expect(clock.advance(-1)).rejects.toThrow(/advance: must be a non-negative number of ms/);
    await expect(clock.advance(Number.NaN)).rejects.toThrow(/advance: must be a non-negative/);
    expect(clock.nowMs()).toBe(5000);
    expect(clock.nowNs()).toBe(5_000_000_000n);
  });
});

describe("the real clock", () => {
  it("reads the machine's time, or the function it is given, and refuses to be moved", async () => {
    const held = new RealClock(() => 42_000);
    expect(held.nowMs()).toBe(42_000);
    expect(held.nowNs()).toBe(42_000_000_000n);
    await expect(held.advance(1)).rejects.toThrow(REAL_CLOCK_CANNOT_MOVE);
    const real = new RealClock();
    const before = Date.now();
    expect(real.nowMs()).toBeGreaterThanOrEqual(before);
  });

  it("its timers are unref'd: a process whose only work is an hour-away monitor run exits at once", async () => {
    const root = join(__dirname, "..", "..");
    const script =
      `const { RealClock } = require(${JSON.stringify(join(root, "dist", "emulator", "clock.js"))});` +
      "new RealClock().at(Date.now() + 3_600_000, () => console.log('fired'));" +
      "console.log('registered');";
    const child = spawnSync(join(root, "node_modules", ".bin", "node"), ["-e", script], {
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(child.error).toBeUndefined();
    expect(child.status).toBe(0);
    expect(child.stdout).toBe("registered\n");
  });

  it("a timer already due fires on the next turn, and a cancelled one never", async () => {
    const clock = new RealClock(() => 10_000);
    const fired: string[] = [];
    await new Promise<void>((resolve) => clock.at(5_000, () => (fired.push("due"), resolve())));
    const cancelled = clock.at(5_000, () => void fired.push("cancelled"));
    cancelled.cancel();
    await new Promise((r) => setImmediate(r));
    expect(fired).toEqual(["due"]);
  });
});

describe("durations (the handle's advance, POST /_emulator/clock)", () => {
  it.each([
    ["90m", 5_400_000],
    ["1h30m", 5_400_000],
    ["45s", 45_000],
    ["250ms", 250],
    ["2d", 172_800_000],
    ["1.5h", 5_400_000],
    [60_000, 60_000],
  ])("%p is %d ms", (spec, ms) => {
    expect(parseDurationMs(spec)).toBe(ms);
  });
  it.each(["", "90", "m", "1x", "-5m", "5 m", "1h 30m"])("%p is not a duration", (spec) => {
    expect(parseDurationMs(spec)).toBeUndefined();
  });
  it("a negative or endless number is not one either", () => {
    expect(parseDurationMs(-1)).toBeUndefined();
    expect(parseDurationMs(Infinity)).toBeUndefined();
  });
});

describe("startEmulator's clock options, refused at start when wrong, naming the option", () => {
  it.each([
    [{ clock: 5 }, /^clock: must be "real" or "manual".*not number 5$/],
    [{ clock: "Manual" }, /^clock: must be "real" or "manual".*not "Manual"$/],
    [{ clock: null }, /^clock: .*not null$/],
    [{ clock: "manual", now: "yesterday" }, /^now: must be an RFC 3339 time.*not "yesterday"$/],
    [
      { clock: "manual", now: 1_700_000_000_000 },
      /^now: must be an RFC 3339 time.*not number 1700000000000$/,
    ],
    [{ clock: "manual", now: new Date(Number.NaN) }, /^now: .*not an invalid Date$/],
    [{ now: "2026-01-01T00:00:00Z" }, /^now: is only taken with clock: "manual"$/],
    [{ deliverTo: "hooks.example.com" }, /^deliverTo: must be a list of host names/],
    [{ deliverTo: ["ok.example.com", ""] }, /^deliverTo: must be a list of host names/],
    [{ onMonitorRun: "log" }, /^onMonitorRun: must be a function/],
  ])("%p", async (options, message) => {
    await expect(startEmulator({ port: 0, ...(options as object) })).rejects.toThrow(message);
  });

  it("createClock gives the same refusals (the CLI and startEmulator share it)", () => {
    expect(() => createClock({ clock: 5 as never })).toThrow(/^clock: /);
    expect(() => createClock({ clock: "manual", now: "yesterday" })).toThrow(/^now: /);
    expect(createClock({ clock: "manual", now: "2026-01-01T00:00:00Z" }).nowMs()).toBe(Date.UTC(2026, 0, 1));
    expect(createClock({}).kind).toBe("real");
  });

  it('clock: "manual" starts and answers requests (it used to close every socket unanswered)', async () => {
    const em = await startEmulator({ port: 0, clock: "manual", now: "2026-03-04T05:06:07Z" });
    try {
      expect(em.clock.kind).toBe("manual");
      expect(em.clock.now().toISOString()).toBe("2026-03-04T05:06:07.000Z");
      expect((await api(em, "GET", "/v2/monitors")).status).toBe(200);
      expect(await em.clock.advance("1h")).toEqual([]);
      expect(em.clock.now().toISOString()).toBe("2026-03-04T06:06:07.000Z");
      expect(await em.clock.to("2026-03-05T00:00:00Z")).toEqual([]);
      await expect(em.clock.advance("soon")).rejects.toThrow(/^advance: must be a duration/);
      await expect(em.clock.to("tomorrow")).rejects.toThrow(/^to: must be an RFC 3339 time/);
      await expect(em.clock.to("2026-03-04T00:00:00Z")).rejects.toThrow(/only moves forward/);
    } finally {
      await em.close();
    }
  });

  it("a function still works as the clock: a real clock that reads it", async () => {
    const em = await startEmulator({ port: 0, clock: () => Date.UTC(2030, 0, 1) });
    try {
      expect(em.clock.kind).toBe("real");
      expect(em.clock.now().toISOString()).toBe("2030-01-01T00:00:00.000Z");
      await expect(em.clock.advance("1m")).rejects.toThrow(REAL_CLOCK_CANNOT_MOVE);
    } finally {
      await em.close();
    }
  });
});

describe("every time-dependent reader follows the manual clock", () => {
  it("ingest stamps, queries' now, creation stamps, annotations' default time, the quotas' month", async () => {
    const em = await startEmulator({
      port: 0,
      clock: "manual",
      now: "2026-01-31T23:59:00Z",
      datasets: ["logs"],
      ingestQuotaBytes: 1_000_000,
    });
    try {
      const ingest = await api(em, "POST", "/v1/datasets/logs/ingest", [{ a: 1 }]);
      // The quota's period ends at the start of the clock's next month.
      expect(ingest.headers["x-ingestlimit-reset"]).toBe(String(Date.UTC(2026, 1, 1) / 1000));
      const q = await api(em, "POST", "/v1/datasets/_apl", { apl: "['logs'] | where _time > ago(5m)" });
      expect(q.body.matches.map((m: { _time: string }) => m._time)).toEqual(["2026-01-31T23:59:00Z"]);
      const monitor = await api(em, "POST", "/v2/monitors", {
        name: "m",
        type: "Threshold",
        aplQuery: "['logs'] | summarize count()",
        operator: "Above",
        threshold: 1,
      });
      expect(monitor.body.createdAt).toBe("2026-01-31T23:59:00Z");
      const annotation = await api(em, "POST", "/v2/annotations", { type: "deploy", datasets: ["logs"] });
      expect(annotation.body.time).toBe("2026-01-31T23:59:00.000Z");
      await em.clock.advance("2m");
      const next = await api(em, "POST", "/v1/datasets/logs/ingest", [{ a: 2 }]);
      expect(next.headers["x-ingestlimit-reset"]).toBe(String(Date.UTC(2026, 2, 1) / 1000));
      expect(next.headers["x-ingestlimit-remaining"]).toBe(
        String(1_000_000 - Buffer.byteLength('[{"a":2}]')),
      );
    } finally {
      await em.close();
    }
  });
});
