/**
 * The alert-test runner's bounds: how long a test runs, how many monitor runs that makes, how large one event may
 * be and how many bytes the events hold in all. Each is refused when the file loads, naming its bound, with exit
 * code 2 and nothing run (a test of `until: 100000d` ran for over a minute at 2 GB; five million events of 2 KB ran
 * out of time at 3.5 GB, since only the events were counted, not their bytes).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { testAlerts } from "../../cli/commands/test-alerts";
import { MAX_RUNS, runsOf } from "../../cli/alert-test/load";
import { MAX_EVENT_BYTES, MAX_TOTAL_EVENT_BYTES, testEvents } from "../../cli/alert-test/generate";
import { GenerateSchema } from "../../cli/alert-test/schema";
import type { DocPath } from "../../cli/alert-test/source";
import { useTempDir } from "../helpers/cli";

const tmp = useTempDir();

const monitor = (key: string, interval = 1) => `
  ${key}:
    name: ${key}
    type: Threshold
    aplQuery: "['web'] | summarize count() by bin(_time, 1m)"
    operator: Above
    threshold: 5
    intervalMinutes: ${interval}`;

/** Runs the command on one file; answers its exit code, what it ran and its stderr lines. */
async function run(text: string) {
  // The monitors' dataset, last so that the lines above keep their numbers.
  writeFileSync(join(tmp.path, "t.yaml"), `${text}datasets: [web]\n`);
  const err: string[] = [];
  const out: string[] = [];
  const result = await testAlerts(["t.yaml"], {
    cwd: tmp.path,
    out: (l) => out.push(l),
    err: (l) => err.push(l),
  });
  return { code: result.code, ran: result.outcomes.length, out, err };
}

it("until is at most 31 days: 100000d is refused at load, naming the bound", async () => {
  const r = await run(`until: 100000d\nmonitors:${monitor("errors")}\nexpect: []\n`);
  expect(r).toMatchObject({ code: 2, ran: 0, out: [] });
  expect(r.err).toEqual([
    expect.stringMatching(
      /^t\.yaml:1:8: until: is past the 31d a test may run \(a month: the longest window an alert test needs\); shorten it$/,
    ),
  ]);
});

it("the runs until implies are bounded: two 1-minute monitors for 31 days are 89,280 runs, past 50,000", async () => {
  expect(runsOf(Date.parse("2024-01-01T00:00:00Z"), 31 * 86_400_000, 60_000)).toBe(44_640);
  const r = await run(`until: 31d\nmonitors:${monitor("errors")}${monitor("latency")}\nexpect: []\n`);
  expect(r).toMatchObject({ code: 2, ran: 0 });
  expect(r.err).toEqual([
    `t.yaml:1:8: until: makes 89,280 monitor runs (errors every 1m, latency every 1m), past the ${MAX_RUNS.toLocaleString("en-US")} a test may make; shorten until or lengthen intervalMinutes`,
  ]);
  // One of them every 5 minutes: 44,640 + 8,928 runs, still past; every 10 minutes: 49,104, within.
  expect(
    (await run(`until: 31d\nmonitors:${monitor("errors")}${monitor("latency", 5)}\nexpect: []\n`)).code,
  ).toBe(2);
});

it("a generated event's size is bounded: a field of 2 MiB is refused before any event is made", async () => {
  const big = "x".repeat(2 << 20);
  const r = await run(
    `until: 1h\nmonitors:${monitor("errors")}\nevents:\n  - generate:\n      dataset: web\n      rate: 1/m\n      for: 1h\n      fields: { status: 200, payload: { oneOf: [small, "${big}"] } }\nexpect: []\n`,
  );
  expect(r).toMatchObject({ code: 2, ran: 0 });
  expect(r.err).toEqual([
    `t.yaml:15:15: events[0].generate.fields: can make an event of 2,097,214 bytes (2.0 MiB) as JSON (its field payload the largest), past the 1,048,576 bytes (1 MiB) one event may be`,
  ]);
});

it("an explicit event's size is bounded", async () => {
  const r = await run(
    `until: 1h\nmonitors:${monitor("errors")}\nevents:\n  - { at: 1m, dataset: web, events: [{ ok: 1 }, { blob: "${"y".repeat(MAX_EVENT_BYTES)}" }] }\nexpect: []\n`,
  );
  expect(r).toMatchObject({ code: 2, ran: 0 });
  expect(r.err).toEqual([
    `t.yaml:11:49: events[0].events[1]: is 1,048,622 bytes (1.0 MiB) as JSON, past the 1,048,576 bytes (1 MiB) one event may be`,
  ]);
});

describe("the events' total bytes are bounded, not only their number", () => {
  const problemAt = (path: DocPath, message: string) => ({ file: "t.yaml", field: path.join("."), message });
  const block = (spec: Record<string, unknown>) => ({ generate: GenerateSchema.parse(spec) });

  it("five million events of 2 KB are refused, and the block stops at the bound instead of being made whole", () => {
    const { events, problems, bytes } = testEvents(
      [block({ dataset: "d", rate: "1000/s", for: "5000s", fields: { blob: "z".repeat(2048) } })],
      0,
      problemAt,
    );
    expect(problems).toEqual([
      {
        file: "t.yaml",
        field: "events.0.generate",
        message: expect.stringMatching(
          /^makes the file's events [\d,]+ bytes \(256\.0 MiB\) as JSON, past the 268,435,456 bytes \(256 MiB\) one file may hold; lower the rate, the duration or the events' size$/,
        ),
      },
    ]);
    // Nothing is kept of a refused file; the block made no more events than the bound holds.
    expect(events).toEqual([]);
    expect(bytes).toBe(0);
  });

  it("the bytes add up across entries, explicit events repeated by times included", () => {
    const event = { blob: "q".repeat(100_000) };
    const size = JSON.stringify({ ...event, _time: new Date(0).toISOString() }).length;
    const times = Math.floor(MAX_TOTAL_EVENT_BYTES / size);
    const within = testEvents([{ at: 0, dataset: "d", event, times: times, every: 1 }], 0, problemAt);
    expect(within.problems).toEqual([]);
    expect(within.bytes).toBe(times * size);
    const past = testEvents(
      [
        { at: 0, dataset: "d", event, times: times, every: 1 },
        { at: 0, dataset: "d", event },
      ],
      0,
      problemAt,
    );
    expect(past.problems).toEqual([
      expect.objectContaining({
        field: "events.1",
        message: expect.stringContaining("past the 268,435,456 bytes"),
      }),
    ]);
  });

  it("counts each event's bytes as the JSON text ingested", () => {
    const { events, bytes } = testEvents(
      [block({ dataset: "d", rate: "1/m", for: "3m", fields: { s: "é", n: { between: [1, 100] } } })],
      0,
      problemAt,
    );
    expect(bytes).toBe(events.reduce((n, e) => n + Buffer.byteLength(JSON.stringify(e.data)), 0));
  });
});
