/**
 * The alert tests read what the judge decided, by each alert's stable id: a notification belongs to the alert its
 * outbox row's `alertId` names, and the report's alert periods are the judge's opens and closes, one per alert.
 */
import { renderReport } from "../../cli/alert-test/report";
import { runAlertTestFile } from "../helpers/alert-test-file";
import { useTempDir } from "../helpers/cli";

const tmp = useTempDir();

const run = (name: string, text: string) => runAlertTestFile(tmp.path, name, text);

/** A table of the report's monitor section: each row's alert id and cells. */
function tableRows(html: string, table: "periods" | "notifications", monitor: string) {
  const caption = table === "periods" ? `Alert periods of ${monitor}` : `Notifications of ${monitor}`;
  const found = html.match(
    new RegExp(`<table class="${table}"><caption>${caption}</caption>.*?</table>`, "s"),
  );
  if (!found) throw new Error(`no ${table} table for ${monitor}`);
  return [...found[0].matchAll(/<tr data-[^>]*?(?: data-alert-id="([^"]*)")?>(.*?)<\/tr>/g)].map((row) => ({
    alertId: row[1],
    cells: [...row[2].matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((cell) => cell[1]),
  }));
}

it("rule: a grouped monitor's alert periods are each alert's, a silent close ending one and a reopening starting another", async () => {
  // skipResolved: a group's close sends nothing while the other group's alert stays open. /checkout's burst
  // comes twice, so its alert closes and opens again while /search's is open all along.
  const r = await run(
    "groups.yaml",
    `start: 2024-06-03T00:00:00Z
until: 40m
monitors:
  by-route:
    name: Server errors by route
    type: Threshold
    aplQuery: "['shop'] | where status >= 500 | summarize count() by route, bin(_time, 1m)"
    operator: Above
    threshold: 5
    rangeMinutes: 5
    notifyByGroup: true
    skipResolved: true
events:
  # Six server errors a minute on each route while its burst lasts, one more than the threshold.
  - { generate: { dataset: shop, rate: 6/m, from: 5m, for: 3m, fields: { status: 503, route: /checkout } } }
  - { generate: { dataset: shop, rate: 6/m, from: 5m, for: 20m, fields: { status: 503, route: /search } } }
  - { generate: { dataset: shop, rate: 6/m, from: 18m, for: 3m, fields: { status: 503, route: /checkout } } }
expect:
  - { monitor: by-route, group: { route: /checkout }, count: 2 }
  - { monitor: by-route, group: { route: /search } }
`,
  );
  expect(r.err).toEqual([]);
  expect(r.out[0]).toBe("groups.yaml: PASS, 2 of 2 expectations met");
  const html = renderReport(r.outcomes);
  const periods = tableRows(html, "periods", "by-route");
  expect(periods.map((p) => p.cells)).toEqual([
    ["/checkout", "+6m", "+13m"],
    ["/search", "+6m", "+30m"],
    ["/checkout", "+19m", "+26m"],
  ]);
  // Each period is its alert's: the id its Open carries, and the history's checkId of its open and its close.
  const opens = tableRows(html, "notifications", "by-route");
  expect(opens.map((n) => [n.cells[0], n.cells[2], n.alertId])).toEqual([
    ["+6m", "/checkout", periods[0].alertId],
    ["+6m", "/search", periods[1].alertId],
    ["+19m", "/checkout", periods[2].alertId],
  ]);
  expect(new Set(periods.map((p) => p.alertId)).size).toBe(3);
  const ids = r.outcomes[0].runs.flatMap((run) => run.transitions.map((t) => `${t.action} ${t.alertId}`));
  expect(ids).toEqual([
    `open ${periods[0].alertId}`,
    `open ${periods[1].alertId}`,
    `close ${periods[0].alertId}`,
    `open ${periods[2].alertId}`,
    `close ${periods[2].alertId}`,
    `close ${periods[1].alertId}`,
  ]);
});

it("rule: a notification belongs to the alert its alertId names: one alert sent twice to one notifier is one alert", async () => {
  // The monitor names its notifier twice, so each alert event goes to it twice: two notifications of one alert.
  const r = await run(
    "twice.yaml",
    `start: 2024-06-03T00:00:00Z
until: 30m
notifiers:
  slack: { name: Slack, properties: { slack: { slackUrl: "https://hooks.slack.com/services/T/B/X" } } }
monitors:
  errors:
    name: Errors above 5 a minute
    type: Threshold
    aplQuery: "['web'] | where status >= 500 | summarize count() by bin(_time, 1m)"
    operator: Above
    threshold: 5
    rangeMinutes: 5
    notifierIds: [slack, slack]
events:
  - generate:
      dataset: web
      rate: 60/m
      for: 30m
      fields: { status: 200 }
      mix: [{ share: 20%, from: 10m, for: 5m, fields: { status: 503 } }]
expect:
  - { monitor: errors, action: Open, after: 10m, by: 12m }
  - { monitor: errors, action: Open, notifier: slack, after: 10m, by: 12m, count: 2 }
  - { monitor: errors, action: Closed, after: 15m, by: 21m }
  - { monitor: errors, action: Closed, notifier: slack, after: 15m, by: 21m, count: 2 }
`,
  );
  expect(r.err).toEqual([]);
  expect(r.out[0]).toBe("twice.yaml: PASS, 4 of 4 expectations met");
  const [outcome] = r.outcomes;
  const ids = outcome.outbox.map((e) => e.alertId);
  expect(ids).toHaveLength(4);
  expect(new Set(ids).size).toBe(1);
  expect(outcome.comparison.rows[0].got).toHaveLength(1);
  expect(outcome.comparison.rows[0].got[0].entries.map((e) => e.notifierKey)).toEqual(["slack", "slack"]);
});
