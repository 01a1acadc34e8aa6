/**
 * provider/slo: the Slo component's inputs and what it makes, without Pulumi or a network. The arithmetic is the
 * SRE workbook's ("Alerting on SLOs", "Recommended parameters for an SLO-based alert": for a 30-day SLO, page at
 * 14.4 over 1 h / 5 min and at 6 over 6 h / 30 min, ticket at 1 over 3 d / 6 h), which slok/sloth also generates
 * by default (internal/alert/windows/google-30d.yaml: page 2% and 5% of the budget, ticket 10% over 1 d and 3 d).
 */
import { validate } from "../../provider/schemas/common";
import { DashboardInputSchema } from "../../provider/schemas/dashboard";
import { MonitorInputSchema } from "../../provider/schemas/monitor";
import { BURN_RATE_COLUMN, SloArgsError, planSlo, sloArgsFailures } from "../../provider/slo/plan";

const base = {
  dataset: "http-logs",
  events: { bad: "status >= 500" },
  objective: 99.9,
  pageNotifierIds: ["ntf_page"],
  ticketNotifierIds: ["ntf_ticket"],
};

describe("the default alert windows (the workbook's, for a 30-day SLO)", () => {
  const plan = planSlo("checkout", base);
  test.each([
    ["pageFast", "page", 60, 5, 14.4, 1, ["ntf_page"]],
    ["pageSlow", "page", 360, 30, 6, 5, ["ntf_page"]],
    ["ticket", "ticket", 4320, 360, 1, 60, ["ntf_ticket"]],
  ])(
    "%s: %s, long %i min, short %i min, burn rate %d, run every %i min, wired to %j",
    (key, severity, long, short, burn, interval, ids) => {
      const m = plan.monitors.find((p) => p.key === key)!;
      expect(m).toMatchObject({
        severity,
        longMinutes: long,
        shortMinutes: short,
        burnRate: burn,
        notifierIds: ids,
      });
      expect(m.monitor).toMatchObject({
        type: "Threshold",
        operator: "AboveOrEqual",
        threshold: burn,
        rangeMinutes: long,
        intervalMinutes: interval,
        columnName: BURN_RATE_COLUMN,
        notifyByGroup: false,
      });
    },
  );

  test("the error budget is 1 − objective", () => {
    expect(plan.errorBudget).toBe(0.001);
  });

  test("each monitor's inputs pass the Monitor kind's own rules, and their names differ", () => {
    for (const m of plan.monitors) {
      const r = validate(MonitorInputSchema, { ...m.monitor, notifierIds: m.notifierIds });
      expect(r).toMatchObject({ ok: true });
    }
    expect(new Set(plan.monitors.map((m) => m.monitor.name)).size).toBe(3);
  });

  test("the dashboard's inputs pass the Dashboard kind's own rules and list the monitors", () => {
    const board = plan.dashboard!(["mon_a", "mon_b", "mon_c"]);
    expect(validate(DashboardInputSchema, board)).toMatchObject({ ok: true });
    expect(JSON.stringify(board)).toContain('"selectedMonitors":["mon_a","mon_b","mon_c"]');
    expect(board).toMatchObject({ uid: "slo-checkout", dashboard: { timeWindowStart: "qr-now-30d" } });
  });

  test("a pair's query yields the lesser of its two windows' burn rates", () => {
    const q = plan.queries.pageFast;
    expect(q).toContain("['http-logs']");
    expect(q).toContain("countif(_time >= now() - 5m and (status >= 500))");
    expect(q).toContain("todouble(long_bad) / long_total / 0.001");
    expect(q).toContain(`${BURN_RATE_COLUMN} = min_of(long_burn, short_burn)`);
  });
});

test.each([
  ["a 7-day SLO scales the thresholds by its window", { windowDays: 7 }, [3.36, 1.4, 0.233333333333]],
  ["a 90-day SLO", { windowDays: 90 }, [43.2, 18, 3]],
  [
    "an override of one pair's share and windows",
    { alertWindows: { pageFast: { budgetPercent: 1, shortWindow: "10m" } } },
    [7.2, 6, 1],
  ],
  ["a pair turned off", { alertWindows: { ticket: { enabled: false } } }, [14.4, 6]],
  [
    "a pair of its own (sloth's 1 d / 2 h ticket at 3)",
    {
      alertWindows: {
        ticketDay: { severity: "ticket", longWindow: "1d", shortWindow: "2h", budgetPercent: 10 },
      },
    },
    [14.4, 6, 1, 3],
  ],
])("%s", (_rule, extra, burns) => {
  expect(planSlo("x", { ...base, ...extra }).monitors.map((m) => m.burnRate)).toEqual(burns);
});

test("group-by: each group alerts on its own, and the query groups by the fields", () => {
  const plan = planSlo("per-route", { ...base, groupBy: ["route", "service.name", "odd field"] });
  expect(plan.monitors.every((m) => m.monitor.notifyByGroup)).toBe(true);
  expect(plan.queries.pageFast).toContain("by route, service.name, ['odd field']");
  expect(plan.queries.pageFast).toContain(
    `| project route, service.name, ['odd field'], ${BURN_RATE_COLUMN}`,
  );
});

test("the good-events form counts what is not good; the latency form, what is slower than the threshold", () => {
  expect(
    planSlo("g", { ...base, events: { good: "status < 500", total: "method == 'GET'" } }).queries.pageFast,
  ).toMatch(
    /^\['http-logs'\]\n\| where method == 'GET'\n\| summarize long_total = count\(\), long_bad = countif\(not\(status < 500\)\)/,
  );
  expect(
    planSlo("l", { ...base, events: undefined, latency: { field: "duration_ms", thresholdMs: 300 } }).queries
      .sli,
  ).toContain("countif(not(duration_ms <= 300.0))");
});

test("dashboard: false makes none", () => {
  expect(planSlo("x", { ...base, dashboard: false }).dashboard).toBeUndefined();
});

describe("validated at preview: every failure at once, each naming its property", () => {
  test.each([
    ["objective 100 leaves no budget", { objective: 100 }, "objective", "below 100"],
    ["objective 0", { objective: 0 }, "objective", "above 0"],
    ["objective as text", { objective: "99.9" }, "objective", "must be a number"],
    ["a window shorter than 7 days", { windowDays: 6 }, "windowDays", "at least 7"],
    ["a window longer than 90 days", { windowDays: 91 }, "windowDays", "at most 90"],
    ["neither events nor latency", { events: undefined }, "events", "give the events"],
    [
      "both events and latency",
      { latency: { field: "d", thresholdMs: 300 } },
      "latency",
      "events or latency, not both",
    ],
    ["both good and bad", { events: { good: "a", bad: "b" } }, "events.bad", "exactly one"],
    ["an empty predicate", { events: { bad: "  " } }, "events.bad", "not empty"],
    ["a pipeline for a predicate", { events: { bad: "| where x" } }, "events.bad", "not a pipeline"],
    ["an empty dataset", { dataset: "" }, "dataset", "not empty"],
    ["an empty notifier id", { pageNotifierIds: [""] }, "pageNotifierIds[0]", "notifier id"],
    ["a notifier named twice", { ticketNotifierIds: ["n", "n"] }, "ticketNotifierIds", "twice"],
    [
      "a long window past the SLO's window",
      { windowDays: 7, alertWindows: { ticket: { longWindow: "8d" } } },
      "alertWindows.ticket.longWindow",
      "fit inside the SLO's window of 7 days",
    ],
    [
      "a short window not shorter than its long one",
      { alertWindows: { pageFast: { shortWindow: "1h" } } },
      "alertWindows.pageFast.shortWindow",
      "shorter than the pair's long window",
    ],
    [
      "a duration that is not one",
      { alertWindows: { pageFast: { longWindow: "1 hour" } } },
      "alertWindows.pageFast.longWindow",
      "duration",
    ],
    [
      "a new pair missing its fields",
      { alertWindows: { extra: { longWindow: "2h" } } },
      "alertWindows.extra.severity",
      "required for a pair that is not a default one",
    ],
    ["an unknown input (a misspelt objective)", { objectiv: 99 }, "objectiv", "is not a known field"],
  ])("%s", (_rule, extra, property, reason) => {
    const failures = sloArgsFailures({ ...base, ...extra });
    expect(failures).toContainEqual({
      property: expect.stringContaining(property),
      reason: expect.stringContaining(reason),
    });
    expect(() => planSlo("x", { ...base, ...extra })).toThrow(SloArgsError);
  });

  test("good inputs have no failure", () => {
    expect(sloArgsFailures(base)).toEqual([]);
  });
});
