/**
 * Recorded traffic in alert tests: an `events:` entry `replay: {file, dataset, shift}` reads a file of events
 * (NDJSON, a JSON array or CSV, gzipped or not) as `observability ingest` reads it, moves it in time with
 * `shift: {firstEventAt: OFFSET}`, and bounds it as every other event of the file. A recorded outage becomes a
 * regression test, and a backtest over the same file gives the same notifications.
 */
import { createReadStream, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { ObservabilityClient } from "../../provider/client";
import { loadAlertTest } from "../../cli/alert-test/load";
import { runAlertTest } from "../../cli/alert-test/run";
import {
  MAX_EVENT_BYTES,
  MAX_EVENTS,
  MAX_TOTAL_EVENT_BYTES,
  testEvents,
} from "../../cli/alert-test/generate";
import { readReplay } from "../../cli/alert-test/replay";
import { FileProblems, type DocPath } from "../../cli/alert-test/source";
import { backtest } from "../../cli/backtest/run";
import { loadMonitors } from "../../cli/backtest/sources";
import { testAlerts } from "../../cli/commands/test-alerts";
import { useEmulator } from "../helpers/emulator";
import { useTempDir } from "../helpers/cli";

const tmp = useTempDir();
const RECORDED = Date.parse("2024-06-03T00:00:00Z");

/**
 * A recorded 40 minutes of `web`: ten requests a minute, six seconds apart, alternating /home and /pay; from minute
 * 10 to 14 the first seven of each minute fail with 503 (four on /home, three on /pay).
 */
function recording(): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (let m = 0; m < 40; m++)
    for (let i = 0; i < 10; i++)
      out.push({
        _time: new Date(RECORDED + m * 60_000 + i * 6_000).toISOString(),
        status: m >= 10 && m < 15 && i < 7 ? 503 : 200,
        route: i % 2 === 0 ? "/home" : "/pay",
      });
  return out;
}
const ndjson = (events: readonly object[]) => events.map((e) => JSON.stringify(e)).join("\n") + "\n";
const csv = (events: readonly Record<string, unknown>[]) =>
  [
    "_time,status,route",
    ...events.map((e) => `${e._time as string},${e.status as number},${e.route as string}`),
  ].join("\n") + "\n";

const MONITORS = `notifiers:
  slack: { name: On-call, properties: { slack: { slackUrl: "https://hooks.slack.com/services/T/B/X" } } }
monitors:
  errors:
    name: Errors above 5 a minute
    type: Threshold
    aplQuery: "['web'] | where status >= 500 | summarize count() by bin(_time, 1m)"
    operator: Above
    threshold: 5
    rangeMinutes: 1
    notifierIds: [slack]
  by-route:
    name: Server errors by route
    type: Threshold
    aplQuery: "['web'] | where status >= 500 | summarize count() by route, bin(_time, 1m)"
    operator: Above
    threshold: 3
    rangeMinutes: 1
    notifyByGroup: true
    notifierIds: [slack]
`;

/** Writes `files` and a test file `t.yaml` (the lines given, then the monitors), in the temporary folder. */
function write(lines: string, files: Record<string, string | Buffer> = {}): string {
  for (const [name, content] of Object.entries(files)) writeFileSync(join(tmp.path, name), content);
  writeFileSync(join(tmp.path, "t.yaml"), `${lines}${MONITORS}`);
  return join(tmp.path, "t.yaml");
}

/** Loads a file expected to be refused; answers its problems, one line each, as printed. */
async function problemsOf(file: string): Promise<string[]> {
  try {
    await loadAlertTest(file);
  } catch (err) {
    if (err instanceof FileProblems) return err.message.split("\n").map((l) => l.replace(`${tmp.path}/`, ""));
    throw err;
  }
  throw new Error("the file loaded");
}

describe("replay reads a recorded file as ingest reads it", () => {
  const expected = recording().map((e) => ({
    dataset: "web",
    timeMs: Date.parse(e._time as string),
    data: e,
  }));

  it.each([
    ["NDJSON", "rec.ndjson", () => ndjson(recording())],
    ["a JSON array", "rec.json", () => JSON.stringify(recording(), null, 1)],
    ["CSV, numbers typed as ingest stores them", "rec.csv", () => csv(recording())],
    ["gzipped NDJSON, whatever its name", "rec.data", () => gzipSync(ndjson(recording()))],
    [
      "NDJSON with blank lines and CRLF, found by its first character",
      "rec.txt",
      () => `\n${ndjson(recording()).replace(/\n/g, "\r\n\r\n")}`,
    ],
  ])("%s: every event at its recorded _time without shift", async (_, name, content) => {
    const file = write(
      `start: 2024-06-03T00:00:00Z\nuntil: 40m\nevents:\n  - replay: { file: ${name}, dataset: web }\nexpect: []\n`,
      { [name]: content() },
    );
    const test = await loadAlertTest(file);
    expect(test.events).toEqual(expected);
  });

  it("format: says how to read a file whose name and first character do not", async () => {
    const file = write(
      `start: 2024-06-03T00:00:00Z\nuntil: 40m\nevents:\n  - replay: { file: rows.txt, dataset: web, format: csv }\nexpect: []\n`,
      { "rows.txt": csv(recording()) },
    );
    expect((await loadAlertTest(file)).events).toEqual(expected);
  });
});

describe("shift: {firstEventAt: OFFSET} moves the whole file by one amount", () => {
  it("the earliest _time lands at start + OFFSET, the gaps kept, each _time rewritten", async () => {
    // Written out of order: the earliest event is the second line.
    const events = [
      { _time: "2026-11-20T09:12:30.250Z", status: 503 },
      { _time: "2026-11-20T09:12:00Z", status: 200 },
      { _time: 1_795_166_000, status: 500 }, // a Unix time in seconds: 2026-11-20T09:13:20Z
    ];
    const file = write(
      `until: 1h\nevents:\n  - replay: { file: incident.ndjson, dataset: web, shift: { firstEventAt: 10m } }\nexpect: []\n`,
      { "incident.ndjson": ndjson(events) },
    );
    const test = await loadAlertTest(file);
    const start = Date.parse("2024-01-01T00:00:00Z"); // the default start
    expect(test.events.map((e) => [e.timeMs - start, e.data])).toEqual([
      [600_000, { _time: "2024-01-01T00:10:00Z", status: 200 }],
      [630_250, { _time: "2024-01-01T00:10:30.25Z", status: 503 }],
      [680_000, { _time: "2024-01-01T00:11:20Z", status: 500 }],
    ]);
  });

  it("a negative offset puts the recording before start, as history", async () => {
    const file = write(
      `until: 1h\nevents:\n  - replay: { file: h.ndjson, dataset: web, shift: { firstEventAt: -1d } }\nexpect: []\n`,
      { "h.ndjson": ndjson([{ _time: "2026-11-20T09:12:00Z", n: 1 }]) },
    );
    expect((await loadAlertTest(file)).events[0].data._time).toBe("2023-12-31T00:00:00Z");
  });

  it("a recorded outage shifted into the test pages as expected, and the expectation fails without the replay", async () => {
    const expect40 = `expect:
  - { monitor: errors, action: Open, notifier: slack, at: 31m }
  - { monitor: errors, action: Closed, notifier: slack, at: 36m }
  - { monitor: by-route, action: Open, notifier: slack, group: { route: /home }, at: 31m }
  - { monitor: by-route, action: Closed, notifier: slack, group: { route: /home }, at: 36m }
`;
    // Recorded minutes 10-14 fail; the recording's first event lands at 20m, so they are minutes 30-34.
    write(
      `until: 40m\nevents:\n  - replay: { file: outage.ndjson, dataset: web, shift: { firstEventAt: 20m } }\n${expect40}`,
      { "outage.ndjson": ndjson(recording()) },
    );
    const out: string[] = [];
    const err: string[] = [];
    const passed = await testAlerts(["t.yaml"], {
      cwd: tmp.path,
      out: (l) => out.push(l),
      err: (l) => err.push(l),
    });
    expect({ code: passed.code, err }).toEqual({ code: 0, err: [] });
    write(`until: 40m\ndatasets: [web]\n${expect40}`);
    const failed = await testAlerts(["t.yaml"], { cwd: tmp.path, out: () => {}, err: () => {} });
    expect(failed.code).toBe(1);
  });
});

describe("a bad replay is a problem at its field, every one at once", () => {
  it("a missing file, a line that is not JSON or not an event, a _time missing or unreadable, standard input, an empty file, a bad shift, an unknown field", async () => {
    const file = write(
      `start: 2024-06-03T00:00:00Z
until: 40m
events:
  - replay: { file: nowhere.ndjson, dataset: web }
  - replay: { file: broken.ndjson, dataset: web }
  - replay: { file: scalar.ndjson, dataset: web }
  - replay: { file: untimed.ndjson, dataset: web }
  - replay: { file: badtime.csv, dataset: web }
  - replay: { file: "-", dataset: web }
  - replay: { file: empty.json, dataset: web }
  - replay: { file: ok.ndjson, dataset: web, shift: 10m }
  - replay: { file: ok.ndjson, dataset: web, shift: { firstEventAt: soon } }
  - replay: { file: ok.ndjson, dataset: web, shift: { by: 3d } }
  - replay: { file: ok.ndjson, dataset: web, format: xml }
  - replay: { file: ok.ndjson, dataset: web, timestampField: ts }
  - replay: { file: array.json, dataset: web }
expect: []
`,
      {
        "broken.ndjson": '{"_time":"2024-06-03T00:00:00Z"}\n{"_time": oops}\n',
        "scalar.ndjson": '{"_time":"2024-06-03T00:00:00Z"}\n\n[1, 2]\n',
        "untimed.ndjson": '{"_time":"2024-06-03T00:00:00Z"}\n{"status":200}\n',
        "badtime.csv": "_time,status\n2024-06-03T00:00:00Z,200\nyesterday,500\n",
        "empty.json": "[]",
        "ok.ndjson": ndjson([{ _time: "2024-06-03T00:00:00Z" }]),
        "array.json": '[{"_time":"2024-06-03T00:00:00Z"}, 7]',
      },
    );
    expect(await problemsOf(file)).toEqual([
      "t.yaml:4:21: events[0].replay.file: cannot read nowhere.ndjson: ENOENT (no such file or directory) (a path relative to the test file's folder)",
      expect.stringMatching(
        /^t\.yaml:5:21: events\[1\]\.replay\.file: broken\.ndjson: line 2: invalid JSON: .*oops/,
      ),
      "t.yaml:6:21: events[2].replay.file: scalar.ndjson: line 3: must be a JSON object (an event), got an array",
      "t.yaml:7:21: events[3].replay.file: untimed.ndjson: line 2: has no _time; a replayed event carries its own time (`observability query --format ndjson` writes it)",
      't.yaml:8:21: events[4].replay.file: badtime.csv: line 3: _time "yesterday" is not an RFC 3339 time or a Unix time number',
      "t.yaml:9:21: events[5].replay.file: must name a file (a test does not read standard input)",
      "t.yaml:10:21: events[6].replay.file: empty.json: holds no events, so there is nothing to replay",
      "t.yaml:11:53: events[7].replay.shift: must be {firstEventAt: OFFSET}: where the file's earliest event lands, e.g. {firstEventAt: 10m}",
      't.yaml:12:69: events[8].replay.shift.firstEventAt: must be an offset from start such as "10m", "1h30m", "0m" or "-7d" (before start)',
      "t.yaml:13:46: events[9].replay.shift.firstEventAt: is required",
      "t.yaml:13:55: events[9].replay.shift.by: is not a known field",
      "t.yaml:14:54: events[10].replay.format: must be ndjson, json, csv",
      expect.stringMatching(/^t\.yaml:15:46: events\[11\]\.replay\.timestampField: is not a known field/),
      "t.yaml:16:21: events[12].replay.file: array.json: invalid JSON array: element 2 is not an object (events must be objects)",
    ]);
  });

  it("one event is at most 1 MiB as JSON, replayed or not", async () => {
    const big = { _time: "2024-06-03T00:00:00Z", body: "x".repeat(MAX_EVENT_BYTES) };
    const file = write(
      `start: 2024-06-03T00:00:00Z\nuntil: 40m\nevents:\n  - replay: { file: big.ndjson, dataset: web }\nexpect: []\n`,
      { "big.ndjson": ndjson([{ _time: "2024-06-03T00:00:00Z" }, big]) },
    );
    expect(await problemsOf(file)).toEqual([
      `t.yaml:4:21: events[0].replay.file: big.ndjson: line 2: is 1,048,618 bytes (1.0 MiB) as JSON, past the 1,048,576 bytes (1 MiB) one event may be`,
    ]);
  });

  it("a line longer than 4 MiB is refused as it is read, before it is held whole", async () => {
    const file = write(
      `start: 2024-06-03T00:00:00Z\nuntil: 40m\nevents:\n  - replay: { file: long.ndjson, dataset: web }\nexpect: []\n`,
      { "long.ndjson": `{"_time":"2024-06-03T00:00:00Z","pad":"${" ".repeat(4 * MAX_EVENT_BYTES)}"}\n` },
    );
    expect(await problemsOf(file)).toEqual([
      `t.yaml:4:21: events[0].replay.file: long.ndjson: line 1: longer than ${4 * MAX_EVENT_BYTES} characters`,
    ]);
  });

  it("a file's events are bounded as they are read (here a budget of 100 bytes, or 2 events)", async () => {
    writeFileSync(join(tmp.path, "three.ndjson"), ndjson(recording().slice(0, 3)));
    const block = { file: "three.ndjson", dataset: "web" };
    expect(await readReplay(block, tmp.path, RECORDED, 100)).toEqual({
      problem: {
        field: "file",
        message:
          "three.ndjson: holds more than 100 bytes of events as JSON (passed at line 2), past what one file's events may hold; replay a shorter period",
      },
    });
    expect(await readReplay(block, tmp.path, RECORDED, MAX_TOTAL_EVENT_BYTES, 2)).toEqual({
      problem: {
        field: "file",
        message:
          "three.ndjson: holds more than 2 events (passed at line 3), past what one file's events may hold; replay a shorter period",
      },
    });
  });

  it("the file's 256 MiB and 5,000,000 events count replayed events with the others", () => {
    const problemAt = (path: DocPath, message: string) => ({
      file: "t.yaml",
      field: path.join("."),
      message,
    });
    const one = { dataset: "web", timeMs: RECORDED, data: { _time: "2024-06-03T00:00:00Z" } };
    const entries = [
      { at: 0, dataset: "web", event: { n: 1 } },
      { replay: { file: "r.ndjson", dataset: "web" } },
    ];
    const heavy = new Map([[1, { events: [one], bytes: MAX_TOTAL_EVENT_BYTES }]]);
    expect(testEvents(entries, RECORDED, problemAt, heavy).problems).toEqual([
      {
        file: "t.yaml",
        field: "events.1.replay.file",
        message: expect.stringMatching(
          /^makes the file's events 268,435,4\d\d bytes \(256\.0 MiB\) as JSON, past the 268,435,456 bytes \(256 MiB\)/,
        ),
      },
    ]);
    const many = new Map([[1, { events: new Array(MAX_EVENTS).fill(one), bytes: 10 }]]);
    expect(testEvents(entries, RECORDED, problemAt, many).problems).toEqual([
      {
        file: "t.yaml",
        field: "events.1.replay.file",
        message: `makes the file's events 5,000,001, past the 5,000,000 one file may hold; replay a shorter period`,
      },
    ]);
  });
});

describe("a backtest and an alert test over the same recorded file give the same notifications", () => {
  const em = useEmulator({ clock: "manual", now: "2024-06-03T06:00:00Z", datasets: ["web"] });

  it("each monitor's notifications (time, action, group) agree", async () => {
    const file = write(
      `start: 2024-06-03T00:00:00Z\nuntil: 40m\nevents:\n  - replay: { file: rec.ndjson, dataset: web }\nunexpected: ignore\nexpect: []\n`,
      { "rec.ndjson": ndjson(recording()) },
    );
    const test = await loadAlertTest(file);
    const outcome = await runAlertTest(test);
    // The same file into the service, as `observability ingest web rec.ndjson` sends it.
    const client = new ObservabilityClient({ url: em.current.url, token: em.current.token });
    let results;
    try {
      const summary = await client.ingest("web", createReadStream(join(tmp.path, "rec.ndjson")), {
        format: "ndjson",
      });
      expect(summary).toMatchObject({ ingested: 400, failed: 0 });
      results = await backtest(client, await loadMonitors({ testFile: file }), {
        fromMs: test.startMs,
        toMs: test.startMs + test.untilMs,
      });
    } finally {
      await client.close();
    }
    const byName = new Map(results.map((r) => [r.monitor.name, r]));
    let compared = 0;
    for (const name of ["Errors above 5 a minute", "Server errors by route"]) {
      const expected = outcome.runs
        .filter((r) => r.monitorName === name)
        .flatMap((r) => r.alerts.map((a) => `${r.time} ${a.action} ${JSON.stringify(a.groupValues)}`));
      const got = byName
        .get(name)!
        .runs.flatMap((r) =>
          r.judged.events.map(
            (e) =>
              `${new Date(r.runMs).toISOString().replace(".000Z", "Z")} ${e.action} ${JSON.stringify(e.groupValues)}`,
          ),
        );
      expect({ name, got }).toEqual({ name, got: expected });
      compared += expected.length;
    }
    // Each monitor opened and closed once (by-route for /home only): the replay did reach both.
    expect(compared).toBe(4);
  });
});
