/**
 * With `--data` (`dataFile`), a restart keeps each alert's state and the history: an alert already open is not
 * opened a second time, and it closes as it would have without the restart.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { COLLECTION_FAMILIES } from "../../emulator/routes";
import { State } from "../../emulator/state";
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

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "monitors-run-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

it("an alert open before a restart stays open after it: no second Open, and its Close still comes", async () => {
  const dataFile = path.join(dir, "state.json");
  const first = await startManual({ dataFile });
  let id: string;
  let groupedId: string;
  try {
    await ingest(first, [
      ...eventsAt(0, 3, { service: "api" }),
      ...eventsAt(1, 3, { service: "api" }),
      ...eventsAt(2, 3, { service: "api" }),
    ]);
    id = (await createMonitor(first, { threshold: 2 })).id;
    groupedId = (
      await createMonitor(first, {
        name: "by service",
        aplQuery: "['logs'] | summarize count() by service",
        threshold: 2,
        notifyByGroup: true,
      })
    ).id;
    const runs = await first.clock.advance("1m");
    expect(alertsOf(runs, id)).toEqual([[1, "Open", null, 3]]);
    expect(alertsOf(runs, groupedId)).toEqual([[1, "Open", ["api"], 3]]);
  } finally {
    await first.close();
  }

  // The same data file, the clock where the first one stopped.
  const second = await startManual({ dataFile, now: at(1) });
  try {
    expect(second.recovery?.snapshot).toBe(true);
    const runs = await second.clock.advance("3m");
    expect(statesOf(runs, id)).toEqual([
      [2, "open"],
      [3, "open"],
      [4, "closed"],
    ]);
    expect(alertsOf(runs, id)).toEqual([[4, "Closed", null, null]]);
    // The group that was open closes when it disappears (value 0); it never opens again.
    expect(alertsOf(runs, groupedId)).toEqual([[4, "Closed", ["api"], 0]]);
    expect((await historyOf(second, id)).map((h) => [h.state, h.timestamp])).toEqual([
      ["open", at(1)],
      ["closed", at(4)],
    ]);
  } finally {
    await second.close();
  }
});

it("a deleted monitor's alert state goes with it, and does not come back after a restart", async () => {
  const dataFile = path.join(dir, "state.json");
  const first = await startManual({ dataFile });
  let id: string;
  try {
    await ingest(first, eventsAt(0, 3));
    id = (await createMonitor(first, { threshold: 2 })).id;
    await first.clock.advance("1m");
    expect((await api(first, "DELETE", `/v2/monitors/${id}`)).status).toBe(204);
  } finally {
    await first.close();
  }
  const second = await startManual({ dataFile, now: at(1) });
  try {
    expect(await second.clock.advance("2m")).toEqual([]);
    expect((await api(second, "GET", `/v2/monitors/${id}`)).status).toBe(404);
  } finally {
    await second.close();
  }
});

describe("the alert state in the journal and the snapshot (emulator/state.ts)", () => {
  const fresh = () => new State(COLLECTION_FAMILIES, "local-org");

  it("a journalled alerts change replays as the record, null drops it, and a snapshot carries it", () => {
    const state = fresh();
    const record = {
      alerts: { "[]": { open: true, recent: [true], groupKeys: null, groupValues: null, value: 3 } },
      sent: [],
    };
    state.apply({ alerts: "mon_1", record });
    expect(state.alertState("mon_1")).toEqual(record);
    const copy = fresh();
    copy.restore(JSON.parse(JSON.stringify(state.snapshot())));
    expect(copy.alertState("mon_1")).toEqual(record);
    state.apply({ alerts: "mon_1", record: null });
    expect(state.alertState("mon_1")).toBeUndefined();
  });

  it("a change that is not one is refused, naming what it lacks", () => {
    expect(() => fresh().apply({ alerts: "mon_1", record: [1] } as never)).toThrow(
      "an alerts change needs a record or null",
    );
    expect(() => fresh().restore({ monitorAlerts: [] } as never)).toThrow(
      '"monitorAlerts" must be an object',
    );
  });

  it("every change reaches each watcher, and an unwatched one no more", () => {
    const state = fresh();
    const seen: unknown[] = [];
    const stop = state.watch((c) => seen.push(c));
    state.setAlertState("mon_2", { alerts: {}, sent: [] });
    stop();
    state.deleteAlertState("mon_2");
    expect(seen).toEqual([{ alerts: "mon_2", record: { alerts: {}, sent: [] } }]);
  });
});
