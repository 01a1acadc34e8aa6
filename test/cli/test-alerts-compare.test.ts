/**
 * The comparison's verdicts through the command, on small inline files: a test that must fail does (exit 1) and
 * says why on the failing row; groups, counts and unexpected notifications are judged as documented.
 */
import { formatOffset } from "../../cli/alert-test/compare";
import { runAlertTestFile } from "../helpers/alert-test-file";
import { useTempDir } from "../helpers/cli";

const tmp = useTempDir();

/** A 40-minute test of one threshold monitor over a 5-minute error burst at +10m (12 errors a minute). */
function burstFile(monitor: Record<string, string>, expect: string, extra = ""): string {
  return `start: 2024-06-03T00:00:00Z
until: 40m
${extra}
notifiers:
  slack: { name: Slack, properties: { slack: { slackUrl: "https://hooks.slack.com/services/T/B/X" } } }
  pager: { name: Pager, properties: { webhook: { url: "https://pager.example.com/hook" } } }
monitors:
  errors:
    name: Errors above 5 a minute
    type: Threshold
    aplQuery: "['web'] | where status >= 500 | summarize count() by bin(_time, 1m)"
    operator: ${monitor.operator ?? "Above"}
    threshold: 5
    rangeMinutes: 5
    notifierIds: ${monitor.notifierIds ?? "[slack]"}
  quiet:
    name: Anything from the batch job
    type: Threshold
    aplQuery: "['batch'] | summarize count() by bin(_time, 1m)"
    operator: Above
    threshold: 0
    notifierIds: ${monitor.quietNotifierIds ?? "[pager]"}
events:
  - generate:
      dataset: web
      rate: 60/m
      for: 40m
      fields: { status: 200 }
      mix: [{ share: 20%, from: 10m, for: 5m, fields: { status: 503 } }]
  - { at: 0m, dataset: batch, event: { started: true } }
  - { at: 30m, dataset: batch, event: { finished: true } }
expect:
${expect}`;
}

const run = (name: string, text: string) => runAlertTestFile(tmp.path, name, text);

const EXPECT_BURST = `  - { monitor: errors, action: Open, notifier: slack, after: 10m, by: 12m }
  - { monitor: errors, action: Closed, notifier: slack, after: 15m, by: 21m }
  - { monitor: quiet, action: Open, notifier: pager, by: 2m }
  - { monitor: quiet, action: Closed, notifier: pager, by: 5m }
  - { monitor: quiet, action: Open, notifier: pager, at: 30m }
  - { monitor: quiet, action: Closed, notifier: pager, after: 31m }
`;

it("the right monitors pass: exit 0", async () => {
  const r = await run("right.yaml", burstFile({}, EXPECT_BURST));
  expect(r.err).toEqual([]);
  expect(r.out[0]).toBe("right.yaml: PASS, 6 of 6 expectations met");
  expect(r.code).toBe(0);
});

it("a wrong operator fails: exit 1, the row says what the monitor did instead", async () => {
  const r = await run("operator.yaml", burstFile({ operator: "Below" }, EXPECT_BURST));
  expect(r.code).toBe(1);
  expect(r.out[0]).toBe("operator.yaml: FAIL, 4 of 6 expectations met");
  // The failing rows, each followed by what the monitor did instead.
  expect(r.out.slice(2, 6).map((l) => l.replace(/ +/g, " ").trim())).toEqual([
    "✗ 33 errors Open - slack +10m..+12m 1 0 -",
    "errors ran 40 times and sent no Open; its values ranged 12 to 12 (alert when Below 5)",
    "✗ 34 errors Closed - slack +15m..+21m 1 0 -",
    "errors ran 40 times and sent no Closed; its values ranged 12 to 12 (alert when Below 5)",
  ]);
  const failed = r.outcomes[0].comparison.rows.filter((row) => !row.ok).map((row) => row.expectation.index);
  expect(failed).toEqual([0, 1]);
});

it("a notifier wired to the wrong monitor fails: exit 1, naming the wiring", async () => {
  const r = await run(
    "wiring.yaml",
    burstFile({ notifierIds: "[pager]", quietNotifierIds: "[slack]" }, EXPECT_BURST),
  );
  expect(r.code).toBe(1);
  const text = r.out.join("\n");
  expect(text).toContain("errors does not notify slack: its notifierIds are pager");
  expect(text).toContain("quiet does not notify pager: its notifierIds are slack");
  expect(text).toContain("got errors Open at +11m to pager");
  expect(r.outcomes[0].comparison.rows.every((row) => !row.ok)).toBe(true);
  // Every notification sent went somewhere no expectation looked.
  expect(
    r.outcomes[0].comparison.unexpected.map(
      (a) =>
        `${a.monitorKey} ${a.action} ${formatOffset(a.timeMs - r.outcomes[0].test.startMs)} ${a.entries.map((e) => e.notifierKey)}`,
    ),
  ).toEqual([
    "quiet Open +1m slack",
    "quiet Closed +2m slack",
    "errors Open +11m pager",
    "errors Closed +20m pager",
    "quiet Open +31m slack",
    "quiet Closed +32m slack",
  ]);
});

it("counts: count, atLeast and never are exact; without a notifier an alert counts once", async () => {
  const expects = `  - { monitor: quiet, action: Open, count: 2 }
  - { monitor: quiet, action: Open, atLeast: 3 }
  - { monitor: errors, action: Closed, never: true }
  - { monitor: errors, action: Open, notifier: slack, count: 1 }
  - { monitor: quiet, action: Closed, count: 2 }
`;
  const r = await run("counts.yaml", burstFile({}, expects));
  expect(r.code).toBe(1);
  expect(r.outcomes[0].comparison.rows.map((row) => [row.ok, row.wanted, row.got.length])).toEqual([
    [true, "2", 2],
    [false, "≥ 3", 2],
    [false, "0", 1],
    [true, "1", 1],
    [true, "2", 2],
  ]);
  expect(r.outcomes[0].comparison.unexpected).toEqual([]);
});

it("unexpected: ignore lists them and passes", async () => {
  const r = await run(
    "ignore.yaml",
    burstFile({}, "  - { monitor: errors, action: Open, by: 12m }\n", "unexpected: ignore"),
  );
  expect(r.code).toBe(0);
  expect(r.out[0]).toBe("ignore.yaml: PASS, 1 of 1 expectations met; 5 unexpected notifications");
  expect(r.out).toContain("  unexpected (ignored):");
});

it("groups: a grouped monitor's alerts are told apart by their values, as a map or a list", async () => {
  const text = `start: 2024-06-03T00:00:00Z
until: 30m
notifiers:
  hook: { name: Hook, properties: { webhook: { url: "https://example.com/hook" } } }
monitors:
  by-route:
    name: Errors by route
    type: Threshold
    aplQuery: "['web'] | where status >= 500 | summarize count() by route, bin(_time, 1m)"
    operator: AboveOrEqual
    threshold: 3
    rangeMinutes: 2
    notifyByGroup: true
    notifierIds: [hook]
events:
  - generate:
      dataset: web
      rate: 10/m
      from: 5m
      for: 5m
      fields: { route: /pay, status: 500 }
  - generate:
      dataset: web
      rate: 10/m
      from: 15m
      for: 5m
      fields: { route: /cart, status: 500 }
expect:
  - { monitor: by-route, action: Open, group: { route: /pay }, after: 5m, by: 7m }
  - { monitor: by-route, action: Open, group: [/cart], after: 15m, by: 17m }
  - { monitor: by-route, action: Closed, group: { route: /pay }, after: 10m, by: 13m }
  - { monitor: by-route, action: Closed, group: [/cart], after: 20m, by: 23m }
  - { monitor: by-route, action: Open, group: { route: /checkout }, never: true }
`;
  const r = await run("groups.yaml", text);
  expect(r.err).toEqual([]);
  expect(r.out.join("\n")).toContain("groups.yaml: PASS, 5 of 5 expectations met");
  expect(r.code).toBe(0);
  expect(r.out.join("\n")).toMatch(/✓ +\d+ +by-route +Open +route=\/pay/);
});

it("a monitor whose query fails says so on its row, with the engine's reason", async () => {
  const text = `until: 5m
notifiers:
  hook: { name: Hook, properties: { webhook: { url: "https://example.com/hook" } } }
monitors:
  typo:
    name: Reads a column its query does not give
    type: Threshold
    aplQuery: "['web'] | summarize count() by bin(_time, 1m)"
    columnName: errors
    operator: Above
    threshold: 0
    notifierIds: [hook]
datasets: [web]
expect:
  - { monitor: typo, by: 5m }
`;
  const r = await run("typo.yaml", text);
  expect(r.code).toBe(1);
  expect(r.out[0]).toBe("typo.yaml: FAIL, 0 of 1 expectations met; 1 monitor whose runs failed");
  expect(r.out[3]).toMatch(/^ +5 of its runs failed, the first at \+1m: .*errors/);
});

it("alerts are the runs': a monitor without notifiers can be tested, and two matches in one run are two", async () => {
  const text = `until: 10m
notifiers:
  hook: { name: Hook, properties: { webhook: { url: "https://example.com/hook" } } }
monitors:
  silent:
    name: Alerts nobody hears
    type: Threshold
    aplQuery: "['app'] | summarize count() by bin(_time, 1m)"
    operator: Above
    threshold: 0
  fatal:
    name: Fatal lines
    type: MatchEvent
    aplQuery: "['app'] | where level == 'fatal'"
    notifierIds: [hook]
events:
  - { at: 2m, dataset: app, events: [{ level: fatal, n: 1 }, { level: fatal, n: 2 }] }
expect:
  - { monitor: silent, action: Open, at: 2m }
  - { monitor: silent, action: Closed, at: 3m }
  - { monitor: fatal, action: Open, at: 2m, count: 2 }
  - { monitor: fatal, action: Open, notifier: hook, at: 2m, count: 2 }
  - { monitor: silent, action: Open, notifier: hook, never: true }
`;
  const r = await run("runs.yaml", text);
  expect(r.err).toEqual([]);
  expect(r.out[0]).toBe("runs.yaml: PASS, 5 of 5 expectations met");
  expect(r.code).toBe(0);
  expect(
    r.outcomes[0].comparison.rows.map((row) =>
      row.got.map((g) => formatOffset(g.timeMs - r.outcomes[0].test.startMs)),
    ),
  ).toEqual([["+3m"], ["+4m"], ["+3m", "+3m"], ["+3m", "+3m"], []]);
});

it("deliver: declared sends to the URLs as written, so a vendor's host is held; the receiver is the default", async () => {
  const text = (deliver: string) => `until: 5m
${deliver}
notifiers:
  hook: { name: Hook, properties: { webhook: { url: "https://hooks.example.com/alerts" } } }
monitors:
  any:
    name: Anything
    type: Threshold
    aplQuery: "['app'] | summarize count() by bin(_time, 1m)"
    operator: Above
    threshold: 0
    notifierIds: [hook]
events:
  - { at: 1m, dataset: app, event: { n: 1 } }
expect:
  - { monitor: any, action: Open, notifier: hook, by: 3m, outcome: ${deliver ? "held" : "delivered"} }
  - { monitor: any, action: Closed, notifier: hook, by: 5m }
`;
  const declared = await run("declared.yaml", text("deliver: declared"));
  expect(declared.out[0]).toBe("declared.yaml: PASS, 2 of 2 expectations met");
  expect(declared.outcomes[0].received).toEqual([]);
  expect(declared.outcomes[0].outbox.map((e) => [e.targetHost, e.outcome])).toEqual([
    ["hooks.example.com", "held"],
    ["hooks.example.com", "held"],
  ]);
  const receiver = await run("receiver.yaml", text(""));
  expect(receiver.out[0]).toBe("receiver.yaml: PASS, 2 of 2 expectations met");
  expect(receiver.outcomes[0].received.map((q) => q.path)).toEqual(["/hook", "/hook"]);
});
