/**
 * `observability slo convert`: OpenSLO v1 SLO documents (the OpenSLO specification, github.com/OpenSLO/OpenSLO
 * README, kinds SLO and SLI) read as the Slo component's inputs, printed as a YAML or TypeScript program, and every
 * field that cannot be mapped refused by name.
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";
import * as ts from "typescript";
import { parse } from "yaml";
import { convertOpenSlo, datasetAndPredicate, OpenSloError } from "../../cli/slo/openslo";
import { printProgram } from "../../cli/slo/print";
import { planSlo } from "../../provider/slo/plan";
import { runCli } from "../helpers/cli";

const FIXTURE = path.join(__dirname, "..", "fixtures", "openslo", "checkout.yaml");
const TEXT = readFileSync(FIXTURE, "utf8");

test("the fixture's two SLOs: an inline bad/total ratio, and an SLI of the file by reference", () => {
  expect(convertOpenSlo(TEXT)).toEqual([
    {
      name: "checkout-availability",
      inputs: {
        displayName: "Checkout availability",
        dataset: "http-logs",
        events: { bad: "status >= 500" },
        objective: 99.9,
        windowDays: 28,
      },
    },
    {
      name: "checkout-latency",
      inputs: {
        dataset: "http-logs",
        events: { good: "duration_ms <= 300 and method == 'POST'", total: "method == 'POST'" },
        objective: 99,
        windowDays: 28,
      },
    },
  ]);
});

test("the YAML program declares observability:Slo with those inputs, which the component accepts", () => {
  const converted = convertOpenSlo(TEXT);
  const program = parse(printProgram(converted, "yaml")) as {
    resources: Record<string, { type: string; properties: unknown }>;
  };
  expect(Object.keys(program.resources)).toEqual(["checkout-availability", "checkout-latency"]);
  for (const s of converted) {
    expect(program.resources[s.name]).toEqual({ type: "observability:Slo", properties: s.inputs });
    expect(planSlo(s.name, program.resources[s.name].properties).monitors).toHaveLength(3);
  }
});

test("the TypeScript program is valid TypeScript declaring obs.Slo per SLO", () => {
  const text = printProgram(convertOpenSlo(TEXT), "typescript");
  const out = ts.transpileModule(text, { reportDiagnostics: true, compilerOptions: { strict: true } });
  expect(out.diagnostics ?? []).toEqual([]);
  expect(text).toContain('export const checkoutAvailability = new obs.Slo("checkout-availability", {');
  expect(text).toContain('export const checkoutLatency = new obs.Slo("checkout-latency", {');
});

const slo = (spec: string, extra = "") => `apiVersion: openslo/v1
kind: SLO
metadata:
  name: s
spec:
${spec}
${extra}`;
const ratio = (type = "Axiom", query = "['logs'] | where status >= 500") => `  indicator:
    spec:
      ratioMetric:
        bad:
          metricSource:
            type: ${type}
            spec:
              query: "${query}"
        total:
          metricSource:
            type: Axiom
            spec:
              query: "['logs']"`;
const rest = (
  window = "28d",
  rolling = "true",
  method = "Occurrences",
  objectives = "    - target: 0.99",
) => `  timeWindow:
    - duration: ${window}
      isRolling: ${rolling}
  budgetingMethod: ${method}
  objectives:
${objectives}`;

test.each([
  [
    "timeslice budgeting",
    slo(ratio(), rest("28d", "true", "Timeslices")),
    "spec.budgetingMethod",
    "timeslice budgeting is not supported",
  ],
  [
    "ratio timeslices",
    slo(ratio(), rest("28d", "true", "RatioTimeslices")),
    "spec.budgetingMethod",
    "Occurrences",
  ],
  [
    "a metric source other than APL",
    slo(ratio("Prometheus"), rest()),
    "ratioMetric.bad.metricSource.type",
    "only type: Axiom",
  ],
  [
    "a query that is more than a filter",
    slo(ratio("Axiom", "['logs'] | where status >= 500 | summarize count()"), rest()),
    "bad.metricSource.spec.query",
    "['<dataset>'] | where <predicate>",
  ],
  [
    "a calendar window",
    slo(ratio(), rest("28d", "false")),
    "spec.timeWindow[0].isRolling",
    "calendar window cannot be mapped",
  ],
  ["a window past 90 days", slo(ratio(), rest("100d")), "spec.timeWindow[0].duration", "7 to 90 days"],
  [
    "two objectives",
    slo(ratio(), rest("28d", "true", "Occurrences", "    - target: 0.99\n    - target: 0.9")),
    "spec.objectives",
    "exactly one objective",
  ],
  [
    "alert policies",
    slo(ratio(), rest()) + "\n  alertPolicies: [fast-burn]",
    "spec.alertPolicies",
    "burn-rate alerts itself",
  ],
  [
    "an objective of 100%",
    slo(ratio(), rest("28d", "true", "Occurrences", "    - target: 1")),
    "the Slo's objective",
    "below 100",
  ],
  [
    "another version",
    slo(ratio(), rest()).replace("openslo/v1", "openslo/v1alpha"),
    "apiVersion",
    "must be openslo/v1",
  ],
  ["an SLI the file lacks", slo("  indicatorRef: nowhere", rest()), "spec.indicatorRef", "does not hold"],
])("refused, naming the field: %s", (_rule, text, field, why) => {
  let error: unknown;
  try {
    convertOpenSlo(text);
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(OpenSloError);
  expect((error as OpenSloError).problems).toContainEqual(
    expect.stringMatching(
      new RegExp(`${field.replace(/[[\]().'<>|*]/g, "\\$&")}.*${why.replace(/[[\]().'<>|*]/g, "\\$&")}`),
    ),
  );
});

test.each([
  ["['http-logs'] | where status >= 500", { dataset: "http-logs", predicate: "status >= 500" }],
  ["['a.b'] | where x == 'a | b'", { dataset: "a.b", predicate: "x == 'a | b'" }],
  ["['http-logs']", { dataset: "http-logs" }],
  ["logs | where ok", { dataset: "logs", predicate: "ok" }],
  ["['logs'] | where a | project b", undefined],
  ["['logs'] | summarize count()", undefined],
])("the APL of a metric source: %s", (apl, parts) => {
  expect(datasetAndPredicate(apl)).toEqual(parts);
});

describe("the command", () => {
  test("prints the YAML program and exits 0; --language typescript prints TypeScript", async () => {
    const yaml = await runCli(["slo", "convert", FIXTURE]);
    expect({ code: yaml.code, stderr: yaml.stderr }).toEqual({ code: 0, stderr: "" });
    expect(parse(yaml.stdout).resources["checkout-latency"].type).toBe("observability:Slo");
    const typescript = await runCli(["slo", "convert", FIXTURE, "--language", "typescript"]);
    expect(typescript.code).toBe(0);
    expect(typescript.stdout).toMatch(/^import \* as obs from "pulumi-observability";/);
  });

  test("a file that cannot be mapped: exit 1, one line naming the file and the field, nothing on stdout", async () => {
    const r = await runCli(["slo", "convert", "-"], {
      stdin: slo(ratio(), rest("28d", "true", "Timeslices")),
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(
      /^observability slo convert: cannot convert: -: SLO s: spec\.budgetingMethod: .*\n$/,
    );
  });

  test("an unknown language or a missing file: exit 2", async () => {
    expect((await runCli(["slo", "convert", FIXTURE, "--language", "cobol"])).code).toBe(2);
    expect((await runCli(["slo", "convert", "/no/such/file.yaml"])).code).toBe(2);
  });
});
