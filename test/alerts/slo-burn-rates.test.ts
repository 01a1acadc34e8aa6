/**
 * The Slo's monitors page when the SRE workbook's arithmetic says they should, proven by alert tests (the
 * `observability test alerts` runner, on a manual-clock emulator): a 99.9% objective over 30 days, the default
 * window pairs, steady traffic with no error for a whole long window (3 days) before the errors start. A pair
 * fires when its long window's burn reaches its threshold, at `long window × threshold ÷ burn` after the errors
 * start, and only if the burn is at least the threshold; each case must match that to within one run interval of
 * the pair's monitor (1, 5 and 60 minutes). Once the errors stop, every open alert closes within its short window.
 *
 * The monitors are the component's own (provider/slo/plan.ts), written into each test file as inline monitors.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { stringify } from "yaml";
import { testAlerts } from "../../cli/commands/test-alerts";
import { planSlo, type SloPlan } from "../../provider/slo/plan";

const PLAN: SloPlan = planSlo("checkout", {
  dataset: "http-logs",
  events: { bad: "status >= 500" },
  objective: 99.9,
  pageNotifierIds: ["pager"],
  ticketNotifierIds: ["tickets"],
});
/** Requests a minute: enough that each window's ratio is the mix's share (the generator spreads it evenly). */
const RATE = 10;
const monitorName = (key: string) => PLAN.monitors.find((m) => m.key === key)!.monitor.name;

/** One notification expected: a pair opens (or closes) between `after` and `by`, offsets from the errors' start. */
interface Expected {
  key: "pageFast" | "pageSlow" | "ticket";
  action: "Open" | "Closed";
  after: string;
  by: string;
}

/** The alert-test file of one case: the errors (a share of requests from the start, for a while), and what fires. */
function alertTest(errorShare: string, errorsFor: string, until: string, expected: Expected[]): string {
  const monitors = Object.fromEntries(
    PLAN.monitors.map((m) => [
      m.key,
      { ...m.monitor, notifierIds: [m.severity === "page" ? "pager" : "tickets"] },
    ]),
  );
  return stringify({
    start: "2024-06-03T00:00:00Z",
    until,
    notifiers: {
      pager: {
        name: "Pager",
        properties: { slack: { slackUrl: "https://hooks.slack.com/services/T0/B0/x" } },
      },
      tickets: { name: "Tickets", properties: { email: { emails: ["tickets@example.com"] } } },
    },
    monitors,
    events: [
      {
        generate: {
          dataset: "http-logs",
          rate: `${RATE}/m`,
          from: "-3d",
          for: `${3 * 24 * 60 + minutes(until)}m`,
          fields: { status: 200 },
          ...(errorShare === "0%"
            ? {}
            : { mix: [{ share: errorShare, from: "0m", for: errorsFor, fields: { status: 503 } }] }),
        },
      },
    ],
    expect: expected.map((e) => ({
      monitor: e.key,
      action: e.action,
      notifier: PLAN.monitors.find((m) => m.key === e.key)!.severity === "page" ? "pager" : "tickets",
      after: e.after,
      by: e.by,
    })),
  });
}

function minutes(duration: string): number {
  const m = /^(\d+)(m|h|d)$/.exec(duration)!;
  return Number(m[1]) * { m: 1, h: 60, d: 1440 }[m[2] as "m" | "h" | "d"];
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "slo-alerts-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(name: string, text: string): Promise<{ code: number; lines: string[]; sent: string[] }> {
  const file = path.join(dir, `${name}.yaml`);
  writeFileSync(file, text);
  const lines: string[] = [];
  const result = await testAlerts([file], { out: (l) => lines.push(l), err: (l) => lines.push(l) });
  const sent = (result.outcomes[0]?.outbox ?? []).map(
    (e) => `${PLAN.monitors.find((m) => m.monitor.name === e.monitorName)?.key} ${e.action} ${e.time}`,
  );
  return { code: result.code, lines, sent };
}

test("the monitors' names are the plan's (what the report and the table show)", () => {
  expect(PLAN.monitors.map((m) => m.key)).toEqual(["pageFast", "pageSlow", "ticket"]);
  expect(monitorName("pageFast")).toContain("14.4");
});

/**
 * The workbook's arithmetic for one pair at burn rate `burn`: it opens at `long window × threshold ÷ burn` after
 * the errors start, expected to within one run interval of its monitor.
 */
function opens(key: Expected["key"], burn: number): Expected {
  const m = PLAN.monitors.find((p) => p.key === key)!;
  expect(burn).toBeGreaterThanOrEqual(m.burnRate);
  const at = (m.longMinutes * m.burnRate) / burn;
  const interval = m.monitor.intervalMinutes;
  return {
    key,
    action: "Open",
    after: `${Math.max(0, Math.floor(at - interval))}m`,
    by: `${Math.ceil(at + interval)}m`,
  };
}

/** Once errors that lasted `errorsMinutes` stop, the pair closes within its short window (and one run). */
function closes(key: Expected["key"], errorsMinutes: number): Expected {
  const m = PLAN.monitors.find((p) => p.key === key)!;
  return {
    key,
    action: "Closed",
    after: `${errorsMinutes}m`,
    by: `${errorsMinutes + m.shortMinutes + m.monitor.intervalMinutes}m`,
  };
}

// Burn rate = error ratio ÷ budget (0.1%). Every case's list is all it expects: any other notification fails it
// (the runner's `unexpected: fail`), so "only", "never" and "not before" are checked too.
test.each([
  [
    "every request failing (burn 1000) pages within 2 minutes, and every alert closes within its short window once the errors stop",
    "100%",
    30,
    "8h",
    [
      { key: "pageFast", action: "Open", after: "0m", by: "2m" },
      opens("pageSlow", 1000),
      opens("ticket", 1000),
      closes("pageFast", 30),
      closes("pageSlow", 30),
      closes("ticket", 30),
    ],
  ],
  [
    "a 2% error ratio (burn 20) pages through the 1-hour pair at about 43 minutes, not before",
    "2%",
    5 * 60,
    "5h",
    [opens("pageFast", 20), opens("pageSlow", 20), opens("ticket", 20)],
  ],
  [
    "a 1% error ratio (burn 10) pages through the 6-hour pair only, at about 3.6 hours",
    "1%",
    9 * 60,
    "9h",
    [opens("pageSlow", 10), opens("ticket", 10)],
  ],
  [
    "a 0.2% error ratio (burn 2) opens a ticket through the 3-day pair at about 36 hours, and never pages",
    "0.2%",
    38 * 60,
    "38h",
    [opens("ticket", 2)],
  ],
  ["a 0.05% error ratio (burn 0.5) never notifies", "0.05%", 24 * 60, "24h", []],
] as [string, string, number, string, Expected[]][])(
  "%s",
  async (name, share, errorsMinutes, until, expected) => {
    const r = await run(
      name.split(" ").slice(0, 3).join("-"),
      alertTest(share, `${errorsMinutes}m`, until, expected),
    );
    // The runner's table (expected against got) is the failure's message.
    expect({ code: r.code, table: r.lines }).toEqual({
      code: 0,
      table: expect.arrayContaining([expect.stringMatching(/: PASS, \d+ of \d+ expectations met$/)]),
    });
  },
  300_000,
);

test("the check bites: a page expected before the arithmetic allows fails the run", async () => {
  // At burn 20 the 1-hour pair cannot fire before 43.2 minutes: expecting it by 30 minutes must fail.
  const r = await run(
    "too-early",
    alertTest("2%", "120m", "2h", [
      { key: "pageFast", action: "Open", after: "0m", by: "30m" },
      opens("pageSlow", 20),
    ]),
  );
  expect(r.code).toBe(1);
  expect(r.lines[0]).toMatch(/FAIL/);
}, 300_000);
