/**
 * examples/slo's real `index.ts` through the real dynamic-provider host against a fresh emulator: two `Slo`
 * components make their burn-rate monitors and dashboards, wired as declared, and a second run changes nothing.
 * The burn-rate queries then run on the emulator over events with a known error ratio, and must give the
 * workbook's arithmetic: burn rate = error ratio ÷ (1 − objective).
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { parse } from "yaml";
import { testAlerts } from "../../cli/commands/test-alerts";
import { useExampleRun } from "./harness";
import { ofKind } from "./program";

const run = useExampleRun({
  example: "slo",
  prepare: () => ({ secret: { slackWebhookUrl: "https://hooks.slack.com/services/T0/B0/slo-secret-81c2" } }),
});
const sorted = (xs: readonly string[]) => [...xs].sort();

describe("examples/slo", () => {
  it("makes a dataset, two notifiers, five burn-rate monitors (3 + 2) and two dashboards, and nothing else", () => {
    expect(ofKind(run.first, "Dataset")).toHaveLength(1);
    expect(ofKind(run.first, "Notifier")).toHaveLength(2);
    expect(ofKind(run.first, "Monitor")).toHaveLength(5);
    expect(ofKind(run.first, "Dashboard")).toHaveLength(2);
    expect(run.first.registrations).toHaveLength(10);
  });

  it("each pair's monitor has the workbook's burn rate, range and wiring", async () => {
    const ids = run.first.exports.availabilityMonitorIds as Record<string, string>;
    const notifiers = run.first.exports.notifierIds as Record<string, string>;
    const expected = {
      pageFast: { threshold: 14.4, rangeMinutes: 60, notifierIds: [notifiers.pager] },
      pageSlow: { threshold: 6, rangeMinutes: 360, notifierIds: [notifiers.pager] },
      ticket: { threshold: 1, rangeMinutes: 4320, notifierIds: [notifiers.tickets] },
    };
    expect(sorted(Object.keys(ids))).toEqual(sorted(Object.keys(expected)));
    for (const [key, want] of Object.entries(expected)) {
      const m = await run.client.monitors.get(ids[key]);
      expect({ key, ...m }).toMatchObject({ key, type: "Threshold", operator: "AboveOrEqual", ...want });
    }
    // The latency SLO: 28 days scale the thresholds (2% × 28 d ÷ 1 h = 13.44), per route, no ticket pair.
    const latency = run.first.exports.latencyMonitorIds as Record<string, string>;
    expect(sorted(Object.keys(latency))).toEqual(["pageFast", "pageSlow"]);
    const fast = await run.client.monitors.get(latency.pageFast);
    expect(fast).toMatchObject({ threshold: 13.44, notifyByGroup: true });
  });

  it("the dashboard lists the SLO's monitors", async () => {
    const board = ofKind(run.first, "Dashboard").find(
      (r) => r.id === run.first.exports.availabilityDashboardId,
    );
    expect(board).toBeDefined();
    const ids = Object.values(run.first.exports.availabilityMonitorIds as Record<string, string>);
    expect(JSON.stringify(board!.outputs)).toContain(JSON.stringify(ids));
  });

  it("a second run over the unchanged program changes nothing", () => {
    expect(run.diffs.filter((d) => d.changed)).toEqual([]);
  });

  describe("its alert-test file (examples/slo/alerts.test.yaml)", () => {
    const FILE = path.join(__dirname, "..", "..", "examples", "slo", "alerts.test.yaml");

    it("holds the monitors the program registers, wired to its notifiers by resource name", () => {
      const file = parse(readFileSync(FILE, "utf8")) as { monitors: Record<string, Record<string, unknown>> };
      const notifierName = new Map(ofKind(run.first, "Notifier").map((r) => [r.id, r.name]));
      const registered = Object.fromEntries(
        ofKind(run.first, "Monitor").map((r) => {
          const { __provider: _provider, notifierIds, ...inputs } = r.inputs as Record<string, unknown>;
          return [
            r.name,
            { ...inputs, notifierIds: (notifierIds as string[]).map((id) => notifierName.get(id)) },
          ];
        }),
      );
      expect(file.monitors).toEqual(registered);
    });

    it("passes: the outage pages and tickets, the /pay regression pages its group, and every alert closes", async () => {
      const lines: string[] = [];
      const result = await testAlerts([FILE], { out: (l) => lines.push(l), err: (l) => lines.push(l) });
      expect({ code: result.code, first: lines[0] }).toEqual({
        code: 0,
        first: expect.stringMatching(/alerts\.test\.yaml: PASS, 11 of 11 expectations met$/),
      });
    }, 120_000);
  });
});
