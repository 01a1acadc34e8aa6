/**
 * Strict by default: a test passes only if what it tests ran, as promtool fails a test on a rule it cannot evaluate.
 * A monitor run whose query failed fails the file, and so does a notification that failed to render or to deliver,
 * unless an expectation asks for that failure (`outcome: failed`); a held send does not. A file's `allow:` gives the
 * leniency back, naming what it lets pass, as a warning. Before, each of these files printed PASS and exited 0.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { testAlerts } from "../../cli/commands/test-alerts";
import { useTempDir } from "../helpers/cli";

const tmp = useTempDir();

async function run(text: string) {
  writeFileSync(join(tmp.path, "t.yaml"), text);
  const out: string[] = [];
  const err: string[] = [];
  const result = await testAlerts(["t.yaml"], {
    cwd: tmp.path,
    out: (l) => out.push(l),
    err: (l) => err.push(l),
  });
  return { ...result, out, err };
}

/** A monitor whose every run fails: its query gives no column `errors` (found only when it runs). */
const BROKEN = (extra = "", expect = "  - { monitor: broken, never: true }") => `until: 10m
datasets: [web]
${extra}
monitors:
  broken:
    name: Broken
    type: Threshold
    aplQuery: "['web'] | summarize count() by bin(_time, 1m)"
    columnName: errors
    operator: Above
    threshold: 0
expect:
${expect}
`;

describe("a run whose query fails", () => {
  it("fails its file, naming the monitor, the run's time, the error and the aplQuery's place", async () => {
    const r = await run(BROKEN());
    expect(r.code).toBe(1);
    expect(r.out[0]).toBe("t.yaml: FAIL, 1 of 1 expectations met; 1 monitor whose runs failed");
    expect(r.out.slice(-2)).toEqual([
      "  ✗ failed while it ran (a test passes only if what it tests runs; allow: in the file lets it pass):",
      'monitor broken: 10 of its 10 runs failed, the first at +1m: columnName: "errors" is not a column of the query\'s result (its columns: _time, count_) (its aplQuery: t.yaml:8:15)'.replace(
        /^/,
        "        ",
      ),
    ]);
    expect(r.outcomes[0]).toMatchObject({
      ok: false,
      comparison: {
        ok: false,
        failures: [
          {
            kind: "query-failed",
            monitor: "broken",
            failed: 10,
            of: 10,
            query: { file: "t.yaml", line: 8, column: 15 },
          },
        ],
      },
    });
  });

  it("fails a file with no expectation at all", async () => {
    const r = await run(BROKEN("", "  []").replace("expect:\n  []", "expect: []"));
    expect(r.code).toBe(1);
    expect(r.out[0]).toBe("t.yaml: FAIL, 0 of 0 expectations met; 1 monitor whose runs failed");
  });

  it("passes with allow: [failed-queries], as a warning naming what it allows", async () => {
    const r = await run(BROKEN("allow: [failed-queries]"));
    expect(r.code).toBe(0);
    expect(r.out[0]).toBe("t.yaml: PASS, 1 of 1 expectations met; 1 warning");
    expect(r.out.at(-1)).toMatch(
      /^ {2}! warning: t\.yaml:8:15: allowed by the file's allow: failed-queries: monitor broken: 10 of its 10 runs failed, the first at \+1m: /,
    );
    expect(r.outcomes[0].warnings).toEqual([
      expect.objectContaining({ kind: "allowed", monitor: "broken", file: "t.yaml", line: 8 }),
    ]);
  });
});

/** One monitor that opens at +2m, to one notifier; `notifier` is its properties. */
const SENDS = (notifier: string, expect: string, extra = "") => `until: 5m
${extra}
notifiers:
  hook: { name: Hook, properties: ${notifier} }
monitors:
  fatal:
    name: Fatal lines
    type: MatchEvent
    aplQuery: "['app'] | where level == 'fatal'"
    notifierIds: [hook]
events:
  - { at: 2m, dataset: app, event: { level: fatal } }
expect:
${expect}
`;

describe("a notification that fails", () => {
  const RENDERS_BADLY = '{ customWebhook: { url: "https://example.com/hook", body: "{{.NoSuchField}}" } }';

  it("fails its file when it does not render, though the row that counts it is met", async () => {
    const r = await run(SENDS(RENDERS_BADLY, "  - { monitor: fatal, notifier: hook, at: 2m }"));
    expect(r.code).toBe(1);
    expect(r.out[0]).toBe("t.yaml: FAIL, 1 of 1 expectations met; 1 notifier whose sends failed");
    expect(r.out.at(-1)).toMatch(
      /^ {8}notifier hook: 1 of the 1 notifications from monitor fatal failed, the first at \+3m: .*NoSuchField.*; expect them with outcome: failed if that is what the test is for$/,
    );
  });

  it("passes when an expectation asks for the failure (outcome: failed)", async () => {
    const r = await run(
      SENDS(RENDERS_BADLY, "  - { monitor: fatal, notifier: hook, at: 2m, outcome: failed }"),
    );
    expect(r.out[0]).toBe("t.yaml: PASS, 1 of 1 expectations met");
    expect(r.code).toBe(0);
  });

  it("fails its file when it is not delivered (a receiver that refuses the connection)", async () => {
    const r = await run(
      SENDS(
        '{ webhook: { url: "http://127.0.0.1:1/hook" } }',
        "  - { monitor: fatal, at: 2m }",
        "deliver: declared",
      ),
    );
    expect(r.code).toBe(1);
    expect(r.out[0]).toBe("t.yaml: FAIL, 1 of 1 expectations met; 1 notifier whose sends failed");
    expect(r.outcomes[0].comparison.failures).toEqual([
      expect.objectContaining({
        kind: "notification-failed",
        monitor: "fatal",
        notifier: "hook",
        failed: 1,
        of: 1,
      }),
    ]);
  });

  it("passes with allow: [failed-notifications], as a warning", async () => {
    const r = await run(
      SENDS(RENDERS_BADLY, "  - { monitor: fatal, notifier: hook, at: 2m }", "allow: [failed-notifications]"),
    );
    expect(r.code).toBe(0);
    expect(r.out.at(-1)).toMatch(
      /^ {2}! warning: allowed by the file's allow: failed-notifications: notifier hook: /,
    );
  });

  it("a held send (a vendor's host) is no failure, as documented", async () => {
    const r = await run(
      SENDS(
        '{ pagerduty: { routingKey: "R0UT1NGKEY0000000000000000000000" } }',
        "  - { monitor: fatal, notifier: hook, at: 2m, outcome: held }",
        "deliver: declared",
      ),
    );
    expect(r.out[0]).toBe("t.yaml: PASS, 1 of 1 expectations met");
    expect(r.code).toBe(0);
  });
});

it("allow: names only what it may let pass", async () => {
  const r = await run(BROKEN("allow: [everything]"));
  expect(r.code).toBe(2);
  expect(r.err).toEqual(["t.yaml:3:9: allow[0]: must be failed-queries or failed-notifications"]);
});
