/**
 * The two paths of `observability backtest` give the same answer (issue: "The same answer both ways"): over
 * random decomposable monitors (aggregation, bin size, range, interval, secondDelay, operator, grouping,
 * triggerFromNRuns) and random event streams, the service-side path (the monitor's query rewritten to finer
 * bins, each window rebuilt from them) and the event path (the events fetched, each run's query run locally)
 * make identical runs, alerts and notifications, with the emulator serving as the service.
 */
import fc from "fast-check";
import { ObservabilityClient, PaginationStalledError } from "../../provider/client";
import type { TabularResult } from "../../provider/schemas/query";
import { parseMonitor } from "../../emulator/alerting/monitor";
import { backtest, eventFetch, type EventFetch, type MonitorBacktest } from "../../cli/backtest/run";
import { decompose } from "../../cli/backtest/decompose";
import { useEmulator, api } from "../helpers/emulator";
import { proxiedClients } from "../helpers/fault-proxy";

// One seed for every run, so CI and a laptop draw the same cases and a failure reproduces; FC_SEED explores others.
fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 20261204) });

const T0 = Date.UTC(2026, 0, 10, 12, 0, 0);
const PERIOD = { fromMs: T0, toMs: T0 + 90 * 60_000 };
const em = useEmulator({ clock: "manual", now: new Date(T0 + 3 * 3_600_000).toISOString() });
let client: ObservabilityClient;
beforeAll(() => {
  client = new ObservabilityClient({ url: em.current.url, token: em.current.token });
});
afterAll(() => client.close());

const AGGREGATIONS = [
  "count()",
  "countif(v > 50)",
  "sum(v)",
  "sumif(v, v > 30)",
  "min(v)",
  "max(v)",
  "avg(v)",
];

const monitorArb = fc.record({
  agg: fc.constantFrom(...AGGREGATIONS),
  bin: fc.constantFrom(undefined, "1m", "2m", "5m", "90s"),
  byHost: fc.boolean(),
  hostFirst: fc.boolean(),
  filter: fc.boolean(),
  rangeMinutes: fc.constantFrom(1, 2, 5, 10),
  intervalMinutes: fc.constantFrom(1, 2, 5),
  secondDelay: fc.constantFrom(0, 30, 60, 90),
  operator: fc.constantFrom("Above", "AboveOrEqual", "Below", "BelowOrEqual"),
  threshold: fc.integer({ min: 0, max: 120 }),
  notifyByGroup: fc.boolean(),
  alertOnNoData: fc.boolean(),
  triggerFromNRuns: fc.integer({ min: 1, max: 3 }),
  triggerAfterNPositiveResults: fc.integer({ min: 0, max: 3 }),
  skipResolved: fc.boolean(),
});

const eventArb = fc.record({
  // Seconds into the period, with some before it (the first windows reach back) and a few past its end.
  at: fc.integer({ min: -15 * 60, max: 95 * 60 }),
  v: fc.option(fc.integer({ min: 0, max: 100 }), { nil: undefined, freq: 8 }),
  host: fc.constantFrom("a", "b", "c"),
  status: fc.constantFrom(200, 500),
});

/** What a comparison reads of a backtest: every run's state, values, transitions and notifications. */
const runsOf = (r: MonitorBacktest) =>
  r.runs.map((run) => ({
    runMs: run.runMs,
    state: run.judged.state,
    values: run.judged.values,
    error: run.judged.error,
    transitions: run.judged.transitions,
    events: run.judged.events,
  }));

let datasets = 0;

/** A threshold monitor of `aplQuery` that alerts above 1. */
const aboveOne = (aplQuery: string) =>
  parseMonitor({ id: "m", name: "m", type: "Threshold", aplQuery, operator: "Above", threshold: 1 });

describe("the service-side path and the event path agree", () => {
  it("on random decomposable monitors and event streams", async () => {
    let serviceRuns = 0;
    let alerts = 0;
    await fc.assert(
      fc.asyncProperty(monitorArb, fc.array(eventArb, { maxLength: 150 }), async (m, events) => {
        const dataset = `ds${datasets++}`;
        expect((await api(em.current, "POST", "/v2/datasets", { name: dataset })).status).toBe(200);
        if (events.length > 0) {
          const body = events.map((e) => ({
            _time: new Date(T0 + e.at * 1000).toISOString(),
            host: e.host,
            status: e.status,
            ...(e.v === undefined ? {} : { v: e.v }),
          }));
          expect((await api(em.current, "POST", `/v1/datasets/${dataset}/ingest`, body)).status).toBe(200);
        }
        const keys = [m.bin ? `bin(_time, ${m.bin})` : "", m.byHost ? "host" : ""];
        const by = (m.hostFirst ? keys.reverse() : keys).filter(Boolean).join(", ");
        const aplQuery =
          `['${dataset}']${m.filter ? " | where status == 500" : ""} | summarize ${m.agg}` +
          (by ? ` by ${by}` : "");
        const monitor = parseMonitor({ id: "m", name: "m", type: "Threshold", aplQuery, ...m });
        const b = [{ key: "m", monitor, notifiers: ["pager"] }];
        const [service] = await backtest(client, b, PERIOD);
        const [local] = await backtest(client, b, PERIOD, { paths: "events" });
        expect(service.path).toBe("service");
        expect(local.path).toBe("events");
        expect(service.error).toBeUndefined();
        expect(runsOf(service)).toEqual(runsOf(local));
        serviceRuns += service.runs.length;
        alerts += service.runs.reduce((n, r) => n + r.judged.transitions.length, 0);
      }),
      { numRuns: 40 },
    );
    // The cases are not all quiet: they make runs and open and close alerts.
    expect(serviceRuns).toBeGreaterThan(400);
    expect(alerts).toBeGreaterThan(40);
  }, 120_000);
});

describe("the service-side path within the service's result limit", () => {
  it("splits the period when an answer comes back full, and still agrees with the event path", async () => {
    const dataset = "limited";
    expect((await api(em.current, "POST", "/v2/datasets", { name: dataset })).status).toBe(200);
    const body = Array.from({ length: 300 }, (_, i) => ({
      _time: new Date(T0 - 10 * 60_000 + i * 20_000).toISOString(),
      host: ["a", "b", "c", "d"][i % 4],
      v: i % 17,
    }));
    expect((await api(em.current, "POST", `/v1/datasets/${dataset}/ingest`, body)).status).toBe(200);
    const monitor = parseMonitor({
      id: "m",
      name: "m",
      type: "Threshold",
      aplQuery: `['${dataset}'] | summarize sum(v) by host`,
      operator: "Above",
      threshold: 40,
      rangeMinutes: 5,
      notifyByGroup: true,
    });
    const b = [{ key: "m", monitor, notifiers: ["pager"] }];
    const [split] = await backtest(client, b, PERIOD, { resultRowLimit: 20 });
    const [local] = await backtest(client, b, PERIOD, { paths: "events" });
    // Three events a minute, of three hosts, over the 94 minutes the runs read is 282 fine rows: at most 20 an answer
    // takes at least 15 answers. The first, asked for 20 minutes at once, came back full: its bins before its last
    // were kept and the next asked from that bin, so only cut bins' rows are answered twice.
    expect(split.path).toBe("service");
    expect(split.rows).toBeGreaterThanOrEqual(282);
    expect(split.rows).toBeLessThan(282 + 3 * split.requests);
    expect(split.requests).toBeGreaterThan(14);
    expect(split.requests).toBeLessThan(30);
    expect(runsOf(split)).toEqual(runsOf(local));

    // A service that answers its rows out of bin order (the query sorts them, but nothing binds a service to it):
    // each answer is read in bin order, and the runs are the same, cut answers included.
    const reversing = new Proxy(client, {
      get(target, key, receiver) {
        if (key !== "query") return Reflect.get(target, key, receiver) as unknown;
        return async (...args: Parameters<ObservabilityClient["query"]>) => {
          const result = (await target.query(...args)) as TabularResult;
          const table = result.tables?.[0];
          if (table?.columns) table.columns = table.columns.map((c) => [...c].reverse());
          return result;
        };
      },
    });
    const [reversed] = await backtest(reversing, b, PERIOD, { resultRowLimit: 20 });
    expect(reversed.error).toBeUndefined();
    expect(reversed.requests).toBe(split.requests);
    expect(runsOf(reversed)).toEqual(runsOf(split));
  });
});

describe("the event path over a burst of one instant", () => {
  it("more events of one _time than a page holds are each read once (by cursor past them), and agree with the service path", async () => {
    const dataset = "burst";
    expect((await api(em.current, "POST", `/v2/datasets`, { name: dataset })).status).toBe(200);
    // 10,050 events stamped at one instant: a page holds 10,000 (PAGE_ROWS), so paging by time alone stalls there.
    const burstAt = new Date(T0 + 30 * 60_000 + 5_000).toISOString();
    const body = [
      ...Array.from({ length: 10_050 }, (_, i) => ({ _time: burstAt, v: i % 3 })),
      ...Array.from({ length: 40 }, (_, i) => ({
        _time: new Date(T0 + i * 60_000 + 7_000).toISOString(),
        v: 9,
      })),
    ];
    // In batches: one ingest request takes at most 10,000 events.
    for (let i = 0; i < body.length; i += 5_000) {
      const batch = body.slice(i, i + 5_000);
      expect((await api(em.current, "POST", `/v1/datasets/${dataset}/ingest`, batch)).status).toBe(200);
    }
    const b = [{ key: "m", monitor: aboveOne(`['${dataset}'] | summarize count()`), notifiers: ["pager"] }];
    const [events] = await backtest(client, b, PERIOD, { paths: "events" });
    const [service] = await backtest(client, b, PERIOD);
    expect(events.error).toBeUndefined();
    expect([events.path, service.path]).toEqual(["events", "service"]);
    expect(events.rows).toBe(body.length);
    expect(runsOf(events)).toEqual(runsOf(service));
    // The run that reads the burst counts all of it.
    const burstRun = events.runs.find((r) => r.runMs === T0 + 31 * 60_000)!;
    expect(burstRun.judged.values[0].value).toBe(10_051);
  });
});

describe("the two paths agree where a field's values are not all numbers", () => {
  it("avg, sum, min, max and the counts over numbers, texts, bools and nulls in one field: the same runs both ways", async () => {
    const dataset = "mixed";
    expect((await api(em.current, "POST", "/v2/datasets", { name: dataset })).status).toBe(200);
    // avg and sum skip a text ("n/a", even "120") and a bool; isnotnull would count them (the helper's case: an avg
    // of 63 rebuilt as 42, and the alerts flipped).
    const values = [40, "n/a", 90, "120", true, 1, null, 75.5, false, "x", 10];
    const body = Array.from({ length: 200 }, (_, i) => ({
      _time: new Date(T0 - 10 * 60_000 + i * 29_000).toISOString(),
      v: values[i % values.length],
      host: ["a", "b"][i % 2],
    }));
    expect((await api(em.current, "POST", `/v1/datasets/${dataset}/ingest`, body)).status).toBe(200);
    const queries = [
      ["avg(v)", 50],
      ["avg(v) by host", 50],
      ["sum(v)", 150],
      ["min(v)", 20],
      ["max(v)", 80],
      ["count(v)", 5],
      ["countif(v > 30)", 2],
      // An argument that is a comparison itself: the rewrite's test of it must still parse (its values are bools,
      // which avg skips: null both ways).
      ["avg(v > 30)", 0.5],
    ] as const;
    for (const [agg, threshold] of queries) {
      const monitor = parseMonitor({
        id: "m",
        name: "m",
        type: "Threshold",
        aplQuery: `['${dataset}'] | summarize ${agg}`,
        operator: "Above",
        threshold,
        rangeMinutes: 5,
        notifyByGroup: agg.includes(" by "),
      });
      const b = [{ key: "m", monitor, notifiers: ["pager"] }];
      const [service] = await backtest(client, b, PERIOD);
      const [events] = await backtest(client, b, PERIOD, { paths: "events" });
      expect([agg, service.path, service.error]).toEqual([agg, "service", undefined]);
      expect(runsOf(service)).toEqual(runsOf(events));
      // min and max of a bool, numbers and texts are a bool and a text (sortCompare's order of types), which a
      // threshold does not compare: their runs are the same both ways, and quiet.
      if (!agg.startsWith("min") && !agg.startsWith("max") && !agg.includes(">"))
        expect([agg, events.runs.some((r) => r.judged.transitions.length > 0)]).toEqual([agg, true]);
    }
  });

  it("a query naming its dataset by a pattern is refused the same way on both paths", async () => {
    const b = [{ key: "m", monitor: aboveOne("['mix*'] | summarize count()"), notifiers: ["pager"] }];
    const reason = "its query reads datasets by a pattern (mix*); name each dataset it reads";
    expect(decompose("['mix*'] | summarize count()")).toEqual({ reason });
    for (const paths of ["auto", "events"] as const) {
      const [r] = await backtest(client, b, PERIOD, { paths });
      expect([r.path, r.error, r.runs.length]).toEqual(["events", reason, 0]);
    }
  });
});

describe("a service that gives no cursor past a burst", () => {
  it("fails that monitor, saying why, and the others are backtested", async () => {
    expect((await api(em.current, "POST", "/v2/datasets", { name: "nocursor" })).status).toBe(200);
    const body = [{ _time: new Date(T0 + 60_000).toISOString(), v: 1 }];
    expect((await api(em.current, "POST", "/v1/datasets/nocursor/ingest", body)).status).toBe(200);
    const stalling = new Proxy(client, {
      get(target, key, receiver) {
        if (key !== "paginate") return Reflect.get(target, key, receiver) as unknown;
        return () => ({
          [Symbol.asyncIterator]() {
            return {
              next: () => Promise.reject(new PaginationStalledError("more than 10000 rows share _time x")),
            };
          },
        });
      },
    });
    const b = [
      { key: "p95", monitor: aboveOne("['nocursor'] | summarize percentile(v, 95)"), notifiers: ["pager"] },
      { key: "count", monitor: aboveOne("['nocursor'] | summarize count()"), notifiers: ["pager"] },
    ];
    const [p95, count] = await backtest(stalling, b, PERIOD);
    expect(p95).toMatchObject({
      path: "events",
      unanswered: true,
      error:
        "the service gave no cursor to page past more events of one instant than a page holds (more than 10000 rows share _time x)",
    });
    expect([count.path, count.error, count.runs.length]).toEqual(["service", undefined, 90]);
  });
});

describe("a fine bin holding more groups than one answer", () => {
  it("fails the monitor, naming the bin and what to do, rather than judging a cut answer", async () => {
    const dataset = "crowded";
    expect((await api(em.current, "POST", "/v2/datasets", { name: dataset })).status).toBe(200);
    const body = ["a", "b", "c"].map((host) => ({ _time: new Date(T0 + 5_000).toISOString(), host, v: 1 }));
    expect((await api(em.current, "POST", `/v1/datasets/${dataset}/ingest`, body)).status).toBe(200);
    const monitor = parseMonitor({
      id: "m",
      name: "m",
      type: "Threshold",
      aplQuery: `['${dataset}'] | summarize count() by host`,
      operator: "Above",
      threshold: 0,
      notifyByGroup: true,
    });
    const [r] = await backtest(client, [{ key: "m", monitor, notifiers: [] }], PERIOD, { resultRowLimit: 2 });
    expect(r.runs).toEqual([]);
    expect(r.error).toBe(
      "one 60,000 ms bin of its query holds 2 groups or more, the most one answer holds: group it by fewer " +
        "columns, or filter it",
    );
  });
});

describe("equal queries share one answer", () => {
  it("a diff's base whose monitors differ from the head's in thresholds alone sends no request of its own", async () => {
    const dataset = "shared";
    expect((await api(em.current, "POST", "/v2/datasets", { name: dataset })).status).toBe(200);
    const body = Array.from({ length: 200 }, (_, i) => ({
      _time: new Date(T0 + i * 25_000).toISOString(),
      host: ["a", "b"][i % 2],
      v: (i * 7) % 60,
    }));
    expect((await api(em.current, "POST", `/v1/datasets/${dataset}/ingest`, body)).status).toBe(200);
    const monitor = (key: string, threshold: number, rangeMinutes = 5) => ({
      key,
      notifiers: ["pager"],
      monitor: parseMonitor({
        id: key,
        name: key,
        type: "Threshold",
        aplQuery: `['${dataset}'] | summarize max(v) by host`,
        operator: "Above",
        threshold,
        rangeMinutes,
        notifyByGroup: true,
      }),
    });
    const answers = new Map();
    // In the head, `wide` reads a longer range: another span, so its own request.
    const head = await backtest(client, [monitor("m", 50), monitor("wide", 50, 10)], PERIOD, { answers });
    const base = await backtest(client, [monitor("m", 30)], PERIOD, { answers });
    const alone = await backtest(client, [monitor("m", 30)], PERIOD);
    expect(head.map((r) => [r.requests > 0, r.reused])).toEqual([
      [true, undefined],
      [true, undefined],
    ]);
    expect(base[0]).toMatchObject({ path: "service", requests: 0, rows: 0, reused: "m" });
    expect(alone[0].requests).toBeGreaterThan(0);
    // Rebuilt from the shared answer, the base judges exactly as it does asking on its own, and differently from
    // the head (its threshold is lower).
    expect(runsOf(base[0])).toEqual(runsOf(alone[0]));
    expect(runsOf(base[0])).not.toEqual(runsOf(head[0]));
  });
});

describe("what a backtest says it cost", () => {
  it("counts every request it sent, pages included, as a proxy in front of the service counts them", async () => {
    const dataset = "costed";
    expect((await api(em.current, "POST", "/v2/datasets", { name: dataset })).status).toBe(200);
    // 25,000 events, 5,000 on each of five seconds: a page of 10,000 ends on a second whose rows the next page,
    // asking from that second on, gets again. Six requests (a count, five pages) where the rows fetched say four.
    const body = Array.from({ length: 25_000 }, (_, i) => ({
      _time: new Date(T0 + Math.floor(i / 5_000) * 1000).toISOString(),
      v: i % 100,
    }));
    for (let i = 0; i < body.length; i += 10_000) {
      const part = body.slice(i, i + 10_000);
      expect((await api(em.current, "POST", `/v1/datasets/${dataset}/ingest`, part)).status).toBe(200);
    }
    let sent = 0;
    const {
      proxy,
      client: counted,
      oob,
    } = await proxiedClients(em.current, (method, path) => {
      if (method === "POST" && path.startsWith("/v1/datasets/_apl")) sent++;
      return undefined;
    });
    try {
      const monitor = (aplQuery: string) => ({ key: "m", notifiers: ["pager"], monitor: aboveOne(aplQuery) });
      const period = { fromMs: T0, toMs: T0 + 12 * 60_000 };
      const [events] = await backtest(
        counted,
        [monitor(`['${dataset}'] | summarize percentile(v, 95)`)],
        period,
      );
      expect(events.path).toBe("events");
      expect(events.rows).toBe(25_000);
      expect(events.requests).toBe(sent);
      expect(sent).toBe(6);
      sent = 0;
      const [service] = await backtest(counted, [monitor(`['${dataset}'] | summarize max(v)`)], period, {
        resultRowLimit: 4,
      });
      expect(service.path).toBe("service");
      expect(service.requests).toBe(sent);
      expect(sent).toBeGreaterThan(3);
      // Over --max-events, nothing is asked but the event path's count: not the service path's answers either.
      sent = 0;
      const both = [
        { ...monitor(`['${dataset}'] | summarize max(v)`), key: "service" },
        { ...monitor(`['${dataset}'] | summarize percentile(v, 95)`), key: "events" },
      ];
      await expect(backtest(counted, both, period, { maxEvents: 100 })).rejects.toThrow(
        "the backtest would fetch 25,000 events (events: 25,000), more than --max-events 100",
      );
      expect(sent).toBe(1);
    } finally {
      await Promise.all([counted.close(), oob.close(), proxy.close()]);
    }
  });
});

describe("which queries the service-side path takes (decompose)", () => {
  it.each([
    ["['l'] | summarize percentile(v, 95)", "percentile() cannot be rebuilt from finer bins"],
    ["['l'] | summarize dcount(host)", "dcount() cannot be rebuilt from finer bins"],
    [
      "['l'] | where _time > ago(5m) | summarize count()",
      "its query reads now() or ago(), which a run reads at its own time",
    ],
    ["['l'] | summarize n = count() | where n > 1", "its query does not end in summarize"],
    ["['l'] | take 5 | summarize count()", "its query has limit before its summarize"],
    [
      "['l'] | summarize count() by tostring(v)",
      "its summarize groups by v, which is neither a column nor bin(_time, a constant)",
    ],
    ["print x = 1 | summarize count()", "its query reads no dataset"],
    ["['l'] | union ['m'] | summarize count()", "its query reads more than one dataset"],
    ["let t = 5; ['l'] | where v > t | summarize count()", "its query uses let"],
  ])("%s goes to the event path: %s", (apl, reason) => {
    expect(decompose(apl)).toEqual({ reason });
  });
});

describe("what the event path fetches (eventFetch)", () => {
  const fetchOf = (aplQuery: string) => {
    const f = eventFetch(aboveOne(aplQuery), PERIOD);
    return f && "sources" in f ? f.sources.map((x) => x.apl).join(" + ") : f;
  };
  it.each([
    [
      "its leading wheres go to the service, with the columns it names",
      "['web'] | where status >= 500 | extend s = ms * 2 | summarize percentile(s, 95)",
      "['web'] | where status >= 500\n| project ['_time'], ['ms'], ['s'], ['status']",
    ],
    [
      "a where reading ago() stays local (a run reads it at its own time), and so does all after it",
      "['web'] | where status >= 500 | where _time > ago(5m) | where host == 'a' | summarize dcount(user)",
      "['web'] | where status >= 500\n| project ['_time'], ['host'], ['status'], ['user']",
    ],
    [
      "a query that reads several datasets fetches each of them whole",
      "['web'] | where status >= 500 | join kind=inner (['users']) on user | summarize dcount(user)",
      "['web'] + ['users']",
    ],
    [
      "a query that reads the whole row fetches every column",
      "['web'] | where status >= 500 | summarize arg_max(ms, *)",
      "['web'] | where status >= 500",
    ],
  ])("%s", (_rule, apl, fetched) => {
    expect(fetchOf(apl)).toBe(fetched);
  });

  it("a match monitor that does not project fetches every column: its notification carries the whole event", () => {
    const m = parseMonitor({
      id: "m",
      name: "m",
      type: "MatchEvent",
      aplQuery: "['web'] | where level == 'fatal'",
    });
    expect((eventFetch(m, PERIOD) as EventFetch).sources[0].apl).toBe("['web'] | where level == 'fatal'");
    const projecting = parseMonitor({
      id: "m",
      name: "m",
      type: "MatchEvent",
      aplQuery: "['web'] | where level == 'fatal' | project message",
    });
    expect((eventFetch(projecting, PERIOD) as EventFetch).sources[0].apl).toBe(
      "['web'] | where level == 'fatal'\n| project ['_time'], ['level'], ['message']",
    );
  });

  it("the window reaches back over the first run's range and delay, and an anomaly monitor's baseline days", () => {
    const m = parseMonitor({
      id: "m",
      name: "m",
      type: "AnomalyDetection",
      aplQuery: "['web'] | summarize count()",
      operator: "Above",
      compareDays: 2,
      rangeMinutes: 10,
      secondDelay: 60,
    });
    const f = eventFetch(m, PERIOD) as { startNs: bigint; endNs: bigint };
    const ms = (v: number) => BigInt(v) * 1_000_000n;
    expect(f.startNs).toBe(ms(T0 + 60_000 - 60_000 - 10 * 60_000 - 2 * 86_400_000));
    expect(f.endNs).toBe(ms(PERIOD.toMs - 60_000));
  });
});
