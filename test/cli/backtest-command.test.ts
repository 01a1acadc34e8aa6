/**
 * `observability backtest` end to end against an emulator holding known incidents (docs/backtesting.md): the JSON
 * contract with counts worked out by hand, each path's cost, the text and markdown reports, the diff against a
 * base with --fail-on, and each bad input's error naming the flag or the monitor. Nothing reaches the outbox.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ObservabilityClient } from "../../provider/client";
import { runBacktest, periodOf } from "../../cli/commands/backtest";
import type { BacktestReport, MonitorDiff, MonitorSummary } from "../../cli/backtest/report";
import { CommandError, UsageError } from "../../cli/exit";
import { buildProgram } from "../../cli/program";
import { api, useEmulator } from "../helpers/emulator";

const T0 = Date.UTC(2026, 0, 10, 12, 0, 0);
const NOW = T0 + 2 * 3_600_000;
const at = (minutes: number, seconds = 0) => new Date(T0 + minutes * 60_000 + seconds * 1000).toISOString();
const em = useEmulator({ clock: "manual", now: new Date(NOW).toISOString(), datasets: ["web"] });
let client: ObservabilityClient;
const dir = mkdtempSync(join(tmpdir(), "backtest-"));

/** The head of each alert-test file here: an hour, the web dataset, and the oncall notifier first. */
const FILE_HEAD = `until: 1h
datasets: [web]
notifiers:
  oncall: { name: On-call, properties: { webhook: { url: "http://127.0.0.1:9/hook" } } }`;

/** An alert-test file with the two monitors, the second's threshold and notifier as given. */
function testFile(name: string, errorsAbove = 3, notifier = "oncall"): string {
  const path = join(dir, name);
  writeFileSync(
    path,
    `${FILE_HEAD}
  team: { name: Team, properties: { webhook: { url: "http://127.0.0.1:9/team" } } }
monitors:
  errors:
    name: Server errors
    type: Threshold
    aplQuery: "['web'] | where status >= 500 | summarize count() by bin(_time, 1m)"
    operator: Above
    threshold: ${errorsAbove}
    intervalMinutes: 1
    rangeMinutes: 1
    notifierIds: [${notifier}]
  latency:
    name: Slow responses
    type: Threshold
    aplQuery: "['web'] | summarize percentile(ms, 95) by bin(_time, 1m)"
    operator: Above
    threshold: 500
    intervalMinutes: 1
    rangeMinutes: 1
    notifierIds: [oncall, team]
expect: []
`,
  );
  return path;
}

/** {@link testFile}'s two monitors, the file's text changed by `edit`, written as `name`. */
function editedTestFile(name: string, edit: (text: string) => string): string {
  const path = join(dir, name);
  writeFileSync(path, edit(readFileSync(testFile(`${name}.src`), "utf8")));
  return path;
}

/** An alert-test file of one monitor, `key`, of the given fields (indented under it), notifying oncall. */
function oneMonitorFile(name: string, key: string, fields: string): string {
  const path = join(dir, name);
  writeFileSync(
    path,
    `${FILE_HEAD}
monitors:
  ${key}:
    ${fields}
    notifierIds: [oncall]
expect: []
`,
  );
  return path;
}

const FLAGS = { monitor: [], from: at(0), to: at(30), maxEvents: 5_000_000, format: "json" as const };

/** Runs the command and answers its code and parsed JSON (or its text). */
async function run(file: string | undefined, flags: Record<string, unknown> = {}) {
  let text = "";
  const code = await runBacktest(file, { ...FLAGS, ...flags } as never, {
    client,
    out: (t) => (text += t),
    nowMs: NOW,
  });
  return {
    code,
    text,
    json: (flags.format ?? "json") === "json" ? (JSON.parse(text) as BacktestReport) : undefined,
  };
}

beforeAll(async () => {
  client = new ObservabilityClient({ url: em.current.url, token: em.current.token });
  // One healthy request a minute, and an incident: five slow server errors a minute from minute 10 to 13.
  const events = [
    ...Array.from({ length: 45 }, (_, i) => ({ _time: at(i - 5, 30), status: 200, ms: 100 })),
    ...[10, 11, 12, 13].flatMap((m) =>
      Array.from({ length: 5 }, (_, i) => ({ _time: at(m, 5 + i), status: 503, ms: 900 })),
    ),
  ];
  expect((await api(em.current, "POST", "/v1/datasets/web/ingest", events)).status).toBe(200);
});
afterAll(() => client.close());

describe("the report of a period with a known incident (counts worked out by hand)", () => {
  it("gives each monitor's runs, alerts, notifications per notifier and path, as the JSON contract says", async () => {
    const { code, json } = await run(testFile("head.test.yaml"));
    expect(code).toBe(0);
    expect(json).toMatchObject({ from: "2026-01-10T12:00:00Z", to: "2026-01-10T12:30:00Z" });
    const [errors, latency] = json!.monitors as MonitorSummary[];
    // The run at :11 sees minute 10's five errors; the run at :15 sees none (minute 14 is quiet): open 4 minutes.
    expect(errors).toMatchObject({
      name: "Server errors",
      path: "service",
      requests: 1,
      rows: 4,
      runs: 30,
      failedRuns: 0,
      alerts: [
        {
          id: expect.stringMatching(/^chk_[0-9a-f]{16}$/),
          group: {},
          open: "2026-01-10T12:11:00Z",
          close: "2026-01-10T12:15:00Z",
        },
      ],
      notifications: [
        { time: "2026-01-10T12:11:00Z", action: "Open", group: {}, notifier: "oncall" },
        { time: "2026-01-10T12:15:00Z", action: "Closed", group: {}, notifier: "oncall" },
      ],
      timeInAlertSeconds: 240,
      longestAlertSeconds: 240,
      flaps: 0,
    });
    // A percentile cannot be rebuilt from finer bins: its events are fetched (30 healthy in the first run's window to the last's, [0m, 30m), and 20 errors),
    // one count and one page; both notifiers get each notification.
    expect(latency).toMatchObject({
      path: "events",
      why: "percentile() cannot be rebuilt from finer bins",
      requests: 2,
      rows: 50,
      runs: 30,
      alerts: [{ open: "2026-01-10T12:11:00Z", close: "2026-01-10T12:15:00Z" }],
    });
    expect(latency.notifications.map((n) => `${n.action} ${n.notifier}`)).toEqual([
      "Open oncall",
      "Open team",
      "Closed oncall",
      "Closed team",
    ]);
  });

  it("a notification's group is its alert's, typed as the by columns' values are: a number stays a number, null stays null", async () => {
    const path = oneMonitorFile(
      "typed.test.yaml",
      "bystatus",
      `name: By status
    type: Threshold
    aplQuery: "['web'] | where status >= 500 | summarize count() by status, region"
    operator: Above
    threshold: 3
    rangeMinutes: 1
    notifyByGroup: true`,
    );
    const m = (await run(path)).json!.monitors[0] as MonitorSummary;
    expect(m.alerts.map((a) => a.group)).toEqual([{ status: 503, region: null }]);
    expect(m.notifications.map((n) => [n.action, n.group])).toEqual([
      ["Open", { status: 503, region: null }],
      ["Closed", { status: 503, region: null }],
    ]);
  });

  it("a test file's own bounds are its alert test's: no datasets: and an until: past a test's runs still backtest", async () => {
    const path = editedTestFile("unbounded.test.yaml", (t) =>
      t.replace("until: 1h\ndatasets: [web]\n", "until: 31d\n"),
    );
    expect(readFileSync(path, "utf8")).not.toContain("datasets:");
    const { json, code } = await run(path);
    expect(code).toBe(0);
    expect((json!.monitors as MonitorSummary[]).map((m) => [m.name, m.runs, m.error])).toEqual([
      ["Server errors", 30, undefined],
      ["Slow responses", 30, undefined],
    ]);
  });

  it("a notifier disabled until a time holds what comes before it, as the emulator holds it; a diff names the change", async () => {
    const muted = (name: string, until?: string) =>
      editedTestFile(name, (t) =>
        t
          .replace(
            'team: { name: Team, properties: { webhook: { url: "http://127.0.0.1:9/team" } } }',
            `team: { name: Team, properties: { webhook: { url: "http://127.0.0.1:9/team" } }${until ? `, disabledUntil: "${until}"` : ""} }`,
          )
          .replace("notifierIds: [oncall]", "notifierIds: [oncall, team]"),
      );
    const head = muted("muted.test.yaml", at(13));
    const errors = (await run(head)).json!.monitors[0] as MonitorSummary;
    // The alert opens at :11 (team disabled until :13: held) and closes at :15 (team enabled again: sent). The
    // monitor sends all four; the one held is listed apart.
    expect(errors.notifications.map((n) => `${n.action} ${n.time} ${n.notifier}`)).toEqual([
      "Open 2026-01-10T12:11:00Z oncall",
      "Open 2026-01-10T12:11:00Z team",
      "Closed 2026-01-10T12:15:00Z oncall",
      "Closed 2026-01-10T12:15:00Z team",
    ]);
    expect(errors.held).toEqual([
      {
        time: "2026-01-10T12:11:00Z",
        action: "Open",
        group: {},
        notifier: "team",
        until: "2026-01-10T12:13:00Z",
      },
    ]);
    expect((await run(head, { format: "text" })).text).toContain(
      "  notifications: oncall 2, team 2 (of which held, not sent: team 1, disabled until 2026-01-10T12:13:00Z)",
    );
    // Against a base whose team is never disabled: the monitor changed through its notifier, and pages differently.
    const { json, code } = await run(head, { base: muted("unmuted.test.yaml"), failOn: "any-change" });
    const diff = (json!.monitors as MonitorDiff[]).find((m) => m.name === "Server errors")!;
    expect(diff).toMatchObject({ change: "changed", inputs: ["team.disabledUntil"] });
    expect(diff.base!.held).toBeUndefined();
    expect(diff.head!.held).toHaveLength(1);
    // The same pages, one held: any-change does not fail on a mute alone, and the diff's text and markdown say it.
    expect(code).toBe(0);
    const text = (await run(head, { base: muted("unmuted2.test.yaml"), format: "text" })).text;
    expect(text).toContain(
      "  notifications: oncall 2, team 2 -> oncall 2, team 2\n    head (of which held, not sent: team 1, disabled until 2026-01-10T12:13:00Z)",
    );
    const md = (await run(head, { base: muted("unmuted3.test.yaml"), format: "markdown" })).text;
    expect(md).toContain(
      "| oncall 2, team 2 → oncall 2, team 2 (of which held, not sent: team 1, disabled until 2026-01-10T12:13:00Z) |",
    );
  });

  it("answers what docs/backtesting.md shows as the JSON contract, field for field", async () => {
    const doc = readFileSync(join(__dirname, "..", "..", "docs", "backtesting.md"), "utf8");
    const shown = JSON.parse(/```json\n([\s\S]*?)\n```/.exec(doc)![1]) as BacktestReport;
    const { json } = await run(testFile("doc.test.yaml"), { monitor: ["errors"] });
    expect(json).toEqual(shown);
  });

  it("prints the diff as text: notifications per notifier and alerts base -> head", async () => {
    const { text } = await run(testFile("text-head.test.yaml", 3, "team"), {
      base: testFile("text-base.test.yaml"),
      format: "text",
    });
    expect(text).toContain("Server errors: changed (notifierIds)");
    expect(text).toContain("  notifications: oncall 2 -> team 2");
    expect(text).toContain("  alerts: 1 -> 1");
  });

  it("a monitor of several datasets fetches each of them, and judges their union", async () => {
    expect((await api(em.current, "POST", "/v2/datasets", { name: "api" })).status).toBe(200);
    const burst = Array.from({ length: 5 }, (_, i) => ({ _time: at(20, 10 + i), status: 502 }));
    expect((await api(em.current, "POST", "/v1/datasets/api/ingest", burst)).status).toBe(200);
    const path = join(dir, "union.test.yaml");
    writeFileSync(
      path,
      `until: 1h
datasets: [web, api]
monitors:
  both:
    type: Threshold
    name: Errors anywhere
    aplQuery: "union ['web'], ['api'] | where status >= 500 | summarize count() by bin(_time, 1m)"
    operator: Above
    threshold: 3
expect: []
`,
    );
    const { json } = await run(path);
    // web's 30 healthy and 20 errors, api's 5; two counts and two pages.
    expect(json!.monitors[0]).toMatchObject({
      path: "events",
      requests: 4,
      rows: 55,
      alerts: [
        { open: "2026-01-10T12:11:00Z", close: "2026-01-10T12:15:00Z" },
        { open: "2026-01-10T12:21:00Z", close: "2026-01-10T12:22:00Z" },
      ],
    });
  });

  it("sends nothing to any notifier: the emulator's outbox stays empty", async () => {
    await run(testFile("quiet.test.yaml"));
    const outbox = await api(em.current, "GET", "/_emulator/notifications");
    expect(outbox.status).toBe(200);
    expect(outbox.body.notifications ?? outbox.body).toEqual([]);
  });

  it("prints text and markdown", async () => {
    const text = (await run(testFile("t.test.yaml"), { format: "text" })).text;
    expect(text).toContain("Server errors (service path, 1 request, 4 rows)");
    expect(text).toContain("2026-01-10T12:11:00Z to 2026-01-10T12:15:00Z");
    const md = (await run(testFile("m.test.yaml"), { format: "markdown" })).text;
    expect(md).toContain("| Server errors | service (1 req) | 30 | 0 | 1 | oncall 2 | 4m | 4m | 0 |");
  });
});

describe("the command's flags (observability backtest …)", () => {
  it("parses the file, --monitor, --from/--to, --max-events, --max-runs, --format and the connection flags", async () => {
    const written: string[] = [];
    const write = jest.spyOn(process.stdout, "write").mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    const token = process.env.OBSERVABILITY_TOKEN;
    process.env.OBSERVABILITY_TOKEN = em.current.token;
    const code = process.exitCode;
    try {
      // prettier-ignore
      await buildProgram().parseAsync([
        "node", "observability", "backtest", testFile("flags.test.yaml"), "--monitor", "latency",
        "--from", at(0), "--to", at(30), "--max-events", "100", "--max-runs", "30", "--format", "json",
        "--url", em.current.url,
      ]);
      expect(process.exitCode ?? 0).toBe(0);
    } finally {
      write.mockRestore();
      process.exitCode = code;
      if (token === undefined) delete process.env.OBSERVABILITY_TOKEN;
      else process.env.OBSERVABILITY_TOKEN = token;
    }
    const out = JSON.parse(written.join("")) as BacktestReport;
    expect(out.monitors.map((m) => [m.name, (m as MonitorSummary).path, (m as MonitorSummary).rows])).toEqual(
      [["Slow responses", "events", 50]],
    );
  });
});

describe("the diff against a base (--base, --fail-on)", () => {
  it("a lowered threshold and a rewired notifier show as changed, leading the markdown, and fail more-pages", async () => {
    const base = testFile("base.test.yaml");
    // Threshold 0: the healthy minutes' errors are none, so still one alert; the notifications move to team.
    const head = testFile("head2.test.yaml", 0, "team");
    const { json, code } = await run(head, { base, failOn: "more-pages" });
    const errors = json!.monitors[0] as MonitorDiff;
    expect(errors).toMatchObject({
      name: "Server errors",
      change: "changed",
      inputs: ["notifierIds", "threshold"],
    });
    expect(errors.base!.notifications.map((n) => n.notifier)).toEqual(["oncall", "oncall"]);
    expect(errors.head!.notifications.map((n) => n.notifier)).toEqual(["team", "team"]);
    // The changed monitor's query is the same on both sides: the base rebuilds its runs from the head's answer.
    expect(errors.base).toMatchObject({ requests: 0, rows: 0, reused: "errors" });
    expect(errors.head!.requests).toBeGreaterThan(0);
    // The unchanged monitor judges as the head did: its runs are the head's, not fetched or judged again.
    const slow = json!.monitors[1] as MonitorDiff;
    expect(slow.change).toBe("unchanged");
    expect(slow.base).toMatchObject({ requests: 0, rows: 0, reused: slow.head!.key });
    const { requests: _r, rows: _w, reused: _u, ...baseRest } = slow.base!;
    const { requests: _r2, rows: _w2, ...headRest } = slow.head!;
    expect(baseRest).toEqual(headRest);
    expect(slow.head!.rows).toBeGreaterThan(0);
    // team gets more pages from the head than from the base.
    expect(code).toBe(1);
    const md = (await run(head, { base, format: "markdown" })).text;
    expect(md).toContain("**1 monitor pages differently.**");
    expect(md.indexOf("Server errors")).toBeLessThan(md.indexOf("Slow responses"));
    expect(md).toContain("oncall 2 → team 2");
  });

  it("a monitor only in the head is added, one only in the base removed; any-change fails on them", async () => {
    const only = (name: string, key: string) =>
      oneMonitorFile(
        name,
        key,
        `name: ${key}
    type: Threshold
    aplQuery: "['web'] | where status >= 500 | summarize count()"
    operator: Above
    threshold: 3`,
      );
    const { json, code } = await run(only("added.test.yaml", "fresh"), {
      base: only("removed.test.yaml", "stale"),
      failOn: "any-change",
    });
    const changes = (json!.monitors as MonitorDiff[]).map((m) => [
      m.name,
      m.change,
      m.base === null,
      m.head === null,
    ]);
    expect(changes).toEqual([
      ["fresh", "added", true, false],
      ["stale", "removed", false, true],
    ]);
    expect(code).toBe(1);
    // --monitor picks on either side: a monitor the change removes is still one a reviewer may ask about.
    const removed = await run(only("added2.test.yaml", "fresh"), {
      base: only("removed2.test.yaml", "stale"),
      monitor: ["stale"],
    });
    expect((removed.json!.monitors as MonitorDiff[]).map((m) => [m.name, m.change])).toEqual([
      ["stale", "removed"],
    ]);
    await expect(
      run(only("added3.test.yaml", "fresh"), {
        base: only("removed3.test.yaml", "stale"),
        monitor: ["nope"],
      }),
    ).rejects.toThrow("--monitor nope: no monitor of that name (the monitors: fresh, stale)");
  });

  it("a head monitor whose every run fails leads the diff with its failed runs, and fails more-pages", async () => {
    const base = testFile("fb.test.yaml");
    // The head compares a column its query does not make: every run fails, and sends nothing.
    const head = editedTestFile("fh.test.yaml", (t) =>
      t.replace("    threshold: 500\n", "    threshold: 500\n    columnName: nope\n"),
    );
    const { json, code } = await run(head, { base, failOn: "more-pages" });
    const slow = (json!.monitors as MonitorDiff[])[0];
    expect(slow).toMatchObject({ name: "Slow responses", change: "changed", inputs: ["columnName"] });
    expect([slow.base!.failedRuns, slow.head!.failedRuns]).toEqual([0, 30]);
    expect(slow.head!.notifications).toEqual([]);
    // Fewer pages, but only because it no longer runs: the gate fails.
    expect(code).toBe(1);
    const md = (await run(head, { base, format: "markdown" })).text.split("\n");
    expect(md[2]).toBe(
      "**1 monitor fails in the head where the base did not: Slow responses.** A monitor whose runs fail sends nothing.",
    );
    expect(md.find((l) => l.startsWith("| Slow responses"))).toContain("| 0 → 30 |");
    const text = (await run(head, { base, format: "text" })).text;
    expect(text).toContain("  failed runs: 0 -> 30\n    head failed at 2026-01-10T12:01:00Z: ");
    // Without a gate it is a report, not a failure: every monitor was backtested.
    expect((await run(head, { base })).code).toBe(0);
  });

  it("the same notifiers listed in another order page no one differently", async () => {
    const base = testFile("ob.test.yaml");
    const head = join(dir, "oh.test.yaml");
    writeFileSync(
      head,
      readFileSync(base, "utf8").replace("notifierIds: [oncall, team]", "notifierIds: [team, oncall]"),
    );
    const { json, code } = await run(head, { base, failOn: "any-change" });
    expect((json!.monitors as MonitorDiff[]).map((m) => [m.name, m.change])).toEqual([
      ["Server errors", "unchanged"],
      ["Slow responses", "changed"],
    ]);
    expect(code).toBe(0);
    const md = (await run(head, { base, format: "markdown" })).text;
    expect(md).toContain("No monitor's notifications change.");
    expect(md).toContain("| oncall 2, team 2 → oncall 2, team 2 |");
  });

  it("a base of another kind of source than the head's says which kind it was read as", async () => {
    const preview = join(dir, "not-a-test.json");
    writeFileSync(preview, JSON.stringify({ steps: [] }));
    const p = run(testFile("kind-head.test.yaml"), { base: preview });
    await expect(p).rejects.toBeInstanceOf(UsageError);
    await expect(p).rejects.toThrow(`--base ${preview}: read as an alert-test file, as the head is: `);
  });

  it("a monitor a backtest cannot run by design is reported, not failed; nor is removing a monitor the service cannot answer", async () => {
    const both = (name: string, extra: string) =>
      editedTestFile(name, (t) => t.replace("expect: []\n", `${extra}expect: []\n`));
    const unsupported = both(
      "let.test.yaml",
      `  withlet:
    name: With let
    type: Threshold
    aplQuery: "let t = 500; ['web'] | where status >= t | summarize count()"
    operator: Above
    threshold: 3
  pattern:
    name: Pattern
    type: Threshold
    aplQuery: "['we*'] | summarize count()"
    operator: Above
    threshold: 3
`,
    );
    const { json, code } = await run(unsupported, { format: "json" });
    expect((json!.monitors as MonitorSummary[]).map((m) => [m.key, m.error ?? "ok"])).toEqual([
      ["errors", "ok"],
      ["latency", "ok"],
      ["withlet", "its query uses let, which a backtest does not fetch for"],
      ["pattern", "its query reads datasets by a pattern (we*); name each dataset it reads"],
    ]);
    expect(code).toBe(0);
    expect((await run(unsupported, { format: "markdown" })).text).toContain("**2 could not be backtested:**");
    // Added by a change, they fail no gate either: they are listed, and there are no runs to compare.
    const added = await run(unsupported, { base: testFile("let-base.test.yaml"), failOn: "more-pages" });
    expect(
      (added.json!.monitors as MonitorDiff[]).filter((m) => m.change === "added").map((m) => m.name),
    ).toEqual(["With let", "Pattern"]);
    expect(added.code).toBe(0);
    // The base had a monitor of a dataset the service no longer has; the head removes it: the gate passes.
    const gone = both(
      "gone-base.test.yaml",
      `  gone:
    name: Gone
    type: Threshold
    aplQuery: "['nowhere'] | summarize count()"
    operator: Above
    threshold: 3
`,
    );
    const removal = await run(testFile("gone-head.test.yaml"), { base: gone, failOn: "more-pages" });
    expect((removal.json!.monitors as MonitorDiff[]).find((m) => m.name === "Gone")).toMatchObject({
      change: "removed",
      base: { error: "dataset nowhere does not exist on the service (404)" },
    });
    expect(removal.code).toBe(0);
  });

  it("exits 0 without --fail-on, and with it when nothing pages more", async () => {
    const base = testFile("b2.test.yaml");
    expect((await run(testFile("h3.test.yaml"), { base })).code).toBe(0);
    expect((await run(testFile("h4.test.yaml"), { base, failOn: "more-pages" })).code).toBe(0);
    expect((await run(testFile("h5.test.yaml"), { base, failOn: "any-change" })).code).toBe(0);
  });
});

describe("bad input gets a clear error naming the flag or the monitor", () => {
  it.each<[string, Record<string, unknown>, string]>([
    [
      "an unknown monitor name",
      { monitor: ["nope"] },
      "--monitor nope: no monitor of that name (the monitors: errors, latency)",
    ],
    ["a period in the future", { to: at(200) }, "--to 2026-01-10T15:20:00.000Z: is in the future"],
    ["a period that ends before it starts", { from: at(30), to: at(0) }, "must be before --to"],
    ["both --since and --from", { since: "1h" }, "give --since, or --from and --to, not both"],
    ["--fail-on without --base", { failOn: "any-change" }, "--fail-on compares with a base: give --base"],
  ])("%s", async (_rule, flags, message) => {
    const p = run(testFile("bad.test.yaml"), flags);
    await expect(p).rejects.toBeInstanceOf(UsageError);
    await expect(run(testFile("bad.test.yaml"), flags)).rejects.toThrow(message);
  });

  it("a backtest over --max-events stops before it starts, saying how many and how to narrow it", async () => {
    const p = run(testFile("max.test.yaml"), { maxEvents: 10 });
    await expect(p).rejects.toBeInstanceOf(CommandError);
    await expect(run(testFile("max.test.yaml"), { maxEvents: 10 })).rejects.toThrow(
      "the backtest would fetch 50 events (latency: 50), more than --max-events 10; narrow it with a shorter period (--since, --from/--to), fewer monitors (--monitor NAME), or raise --max-events",
    );
  });

  it("a backtest over --max-runs stops before it asks the service anything, saying how many and how to narrow it", async () => {
    // A service nothing answers at: a backtest that asked it would fail each monitor, not refuse to start.
    const nowhere = new ObservabilityClient({ url: "http://127.0.0.1:9", token: em.current.token });
    try {
      const p = runBacktest(testFile("runs.test.yaml"), { ...FLAGS, maxRuns: 59 } as never, {
        client: nowhere,
        out: () => {},
        nowMs: NOW,
      });
      await expect(p).rejects.toBeInstanceOf(CommandError);
      await expect(p).rejects.toThrow(
        "the backtest would make 60 monitor runs (errors: 30, latency: 30), more than --max-runs 59; narrow it with a shorter period (--since, --from/--to), fewer monitors (--monitor NAME), or raise --max-runs",
      );
    } finally {
      await nowhere.close();
    }
    expect((await run(testFile("runs.test.yaml"), { maxRuns: 60 })).code).toBe(0);
  });

  it("--max-runs counts the base's runs before the head's backtest starts, and no run of a disabled monitor", async () => {
    // The emulator, every request to it counted: the head would send some, were it backtested first.
    let asked = 0;
    const counting = new Proxy(client, {
      get(target, key, receiver) {
        const v = Reflect.get(target, key, receiver) as unknown;
        if (key !== "query" && key !== "paginate") return v;
        return (...args: unknown[]) => {
          asked++;
          return (v as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    // The base runs each monitor every minute (60 runs), the head every 5 minutes (12 runs): the base is over 40.
    const base = testFile("runs-base.test.yaml");
    const head = editedTestFile("runs-head.test.yaml", (t) =>
      t.replace(/intervalMinutes: 1\n/g, "intervalMinutes: 5\n"),
    );
    const p = runBacktest(head, { ...FLAGS, base, maxRuns: 40 } as never, {
      client: counting,
      out: () => {},
      nowMs: NOW,
    });
    await expect(p).rejects.toThrow(
      "the backtest would make 60 monitor runs (errors: 30, latency: 30), more than --max-runs 40",
    );
    expect(asked).toBe(0);
    // Within it, the head alone asks (the base reuses nothing: every interval differs).
    expect(
      await runBacktest(head, { ...FLAGS, base, maxRuns: 60 } as never, {
        client: counting,
        out: () => {},
        nowMs: NOW,
      }),
    ).toBe(0);
    expect(asked).toBeGreaterThan(0);
    // A disabled monitor makes no run, and is not counted.
    const off = editedTestFile("runs-off.test.yaml", (t) =>
      t.replace("    threshold: 500\n", "    threshold: 500\n    disabled: true\n"),
    );
    expect((await run(off, { maxRuns: 30 })).code).toBe(0);
    await expect(run(off, { maxRuns: 29 })).rejects.toThrow(
      "the backtest would make 30 monitor runs (errors: 30, latency: 0)",
    );
  });

  it("a monitor of a dataset the service does not have names the dataset", async () => {
    const path = join(dir, "missing.test.yaml");
    writeFileSync(
      path,
      `until: 1h
datasets: [nowhere]
monitors:
  gone:
    type: Threshold
    name: Gone
    aplQuery: "['nowhere'] | summarize count()"
    operator: Above
    threshold: 1
expect: []
`,
    );
    const { json, code } = await run(path);
    expect(json!.monitors[0]).toMatchObject({
      name: "Gone",
      error: "dataset nowhere does not exist on the service (404)",
    });
    // A monitor the service did not answer for is a backtest that did not happen: the report, then exit 1.
    expect(code).toBe(1);
    const md = (await run(path, { format: "markdown" })).text;
    expect(md).toContain(
      "**1 could not be backtested:**\n\n- Gone: dataset nowhere does not exist on the service (404)",
    );
  });

  it("a period longer than the dataset's retention stops before it starts, naming monitor and dataset", async () => {
    const created = await api(em.current, "POST", "/v2/datasets", {
      name: "short",
      retentionDays: 1,
      useRetentionPeriod: true,
    });
    expect(created.status).toBe(200);
    const path = join(dir, "retention.test.yaml");
    writeFileSync(
      path,
      `until: 1h
datasets: [short]
monitors:
  kept:
    type: Threshold
    name: Kept
    aplQuery: "['short'] | summarize count()"
    operator: Above
    threshold: 1
expect: []
`,
    );
    const from = new Date(NOW - 3 * 86_400_000).toISOString();
    await expect(run(path, { from, to: at(30) })).rejects.toThrow(
      "monitor kept reads dataset short from 2026-01-07T14:00:00Z, but short keeps 1 day of events (since 2026-01-09T14:00:00Z): its first runs would read events already gone; start the period at 2026-01-09T15:00:00Z or later (--from)",
    );
    // The start it names works, with an hour to spare for a rerun; from the oldest event on works, a minute before
    // it is refused.
    expect((await run(path, { from: "2026-01-09T15:00:00Z", to: at(30) })).code).toBe(0);
    const { code } = await run(path, { from: "2026-01-09T14:00:00Z", to: at(30) });
    expect(code).toBe(0);
    await expect(run(path, { from: "2026-01-09T13:59:00Z", to: at(30) })).rejects.toThrow(
      "start the period at",
    );
  });

  it("--since reads a duration back from now", () => {
    expect(periodOf({ since: "7d" }, NOW)).toEqual({ fromMs: NOW - 7 * 86_400_000, toMs: NOW });
    expect(() => periodOf({ since: "a week" }, NOW)).toThrow(
      "--since a week: must be a duration such as 7d, 24h or 90m",
    );
  });

  it("a token without query rights names the dataset to grant", async () => {
    const minted = await api(em.current, "POST", "/v2/tokens", {
      name: "ingest only",
      datasetCapabilities: { web: { ingest: ["create"] } },
    });
    expect(minted.status).toBe(200);
    const ingestOnly = new ObservabilityClient({ url: em.current.url, token: minted.body.token });
    try {
      let text = "";
      const code = await runBacktest(testFile("rights.test.yaml"), { ...FLAGS } as never, {
        client: ingestOnly,
        out: (t) => (text += t),
        nowMs: NOW,
      });
      const monitors = (JSON.parse(text) as BacktestReport).monitors as MonitorSummary[];
      for (const m of monitors)
        expect(m.error).toMatch(
          /^the token may not query dataset web \(403: forbidden: API token tok_\w+ lacks datasetCapabilities\["web"\]\.query \["read"\]\): give it query rights on web, or give --org-id with a personal access token$/,
        );
      expect(code).toBe(1);
      // Against a base too: a diff of two sides the service refused is not "nothing changed".
      text = "";
      const diffCode = await runBacktest(
        testFile("rights-head.test.yaml"),
        {
          ...FLAGS,
          base: testFile("rights-base.test.yaml"),
          failOn: "more-pages",
          format: "markdown",
        } as never,
        { client: ingestOnly, out: (t) => (text += t), nowMs: NOW },
      );
      expect(diffCode).toBe(1);
      expect(text).toContain("**4 could not be backtested:**");
      expect(text).toContain(
        "- Server errors (head): the token may not query dataset web (403: forbidden: API token",
      );
    } finally {
      await ingestOnly.close();
    }
  });

  it("a personal access token without the org id, or a token the service does not know, is told so in the service's words", async () => {
    const cases: [string, string][] = [
      [
        "xapt-local-development-token",
        "the token may not query dataset web (403: a personal access token needs the X-Axiom-Org-Id (or x-service-org-id) header naming the organization): give it query rights on web, or give --org-id with a personal access token",
      ],
      // The emulator answers a token it does not know with 403 "invalid token" (a 401 reads "refused the token").
      ["xaat-not-a-token-of-this-service", "the token may not query dataset web (403: invalid token)"],
    ];
    for (const [token, message] of cases) {
      const refused = new ObservabilityClient({ url: em.current.url, token });
      try {
        let text = "";
        const code = await runBacktest(testFile("refused.test.yaml"), { ...FLAGS } as never, {
          client: refused,
          out: (t) => (text += t),
          nowMs: NOW,
        });
        const [first] = (JSON.parse(text) as BacktestReport).monitors as MonitorSummary[];
        expect(first.error).toContain(message);
        expect(first.error).not.toContain(token);
        expect(code).toBe(1);
      } finally {
        await refused.close();
      }
    }
  });

  it("a monitor whose query does not parse is named, with the parser's message", async () => {
    const path = join(dir, "unparsable.test.yaml");
    writeFileSync(
      path,
      `until: 1h
datasets: [web]
monitors:
  broken:
    type: Threshold
    name: Broken
    aplQuery: "['web'] | summarize count("
    operator: Above
    threshold: 1
expect: []
`,
    );
    const p = run(path);
    await expect(p).rejects.toThrow("monitors.broken.aplQuery: does not parse: unexpected end of query");
  });
});

describe("monitors from a stack's preview (--preview)", () => {
  /** A `pulumi preview --json` document creating `monitors` (resource name → inputs). */
  function preview(name: string, monitors: Record<string, Record<string, unknown>>): string {
    const path = join(dir, name);
    const steps = Object.entries(monitors).map(([key, inputs]) => {
      const urn = `urn:pulumi:dev::shop::observability:index:Monitor::${key}`;
      return { op: "create", urn, newState: { urn, type: "observability:index:Monitor", inputs } };
    });
    writeFileSync(path, JSON.stringify({ steps }));
    return path;
  }

  it("an alert-test file given as a preview's base says it was read as a preview", async () => {
    const head = preview("kind-head.json", {
      errors: {
        name: "E",
        type: "Threshold",
        aplQuery: "['web'] | summarize count()",
        operator: "Above",
        threshold: 3,
      },
    });
    const base = testFile("kind-base.test.yaml");
    await expect(run(undefined, { preview: head, base })).rejects.toThrow(
      `--base ${base}: read as a stack's preview (pulumi preview --json), as the head is: `,
    );
  });

  it("runs the preview's monitors", async () => {
    const path = preview("head.json", {
      errors: {
        name: "Server errors",
        type: "Threshold",
        aplQuery: "['web'] | where status >= 500 | summarize count() by bin(_time, 1m)",
        operator: "Above",
        threshold: 3,
      },
    });
    const { json } = await run(undefined, { preview: path });
    expect(json!.monitors).toEqual([
      expect.objectContaining({
        key: "errors",
        path: "service",
        alerts: [
          {
            id: expect.stringMatching(/^chk_[0-9a-f]{16}$/),
            group: {},
            open: "2026-01-10T12:11:00Z",
            close: "2026-01-10T12:15:00Z",
          },
        ],
      }),
    ]);
  });

  it.each<[string, () => Promise<unknown>, string]>([
    [
      "a preview without this package's monitors",
      () => run(undefined, { preview: preview("empty.json", {}) }),
      "the preview shows no monitor of this package",
    ],
    [
      "a preview file that cannot be read",
      () => run(undefined, { preview: join(dir, "nope.json") }),
      "--preview",
    ],
    [
      "both a file and --preview",
      () => run(testFile("x.test.yaml"), { preview: "p.json" }),
      "give the monitors",
    ],
  ])("%s is refused, naming it", async (_rule, go, message) => {
    await expect(go()).rejects.toThrow(message);
  });
});
