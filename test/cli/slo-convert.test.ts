/**
 * `observability slo convert`: OpenSLO v1 SLO documents (the OpenSLO specification, github.com/OpenSLO/OpenSLO
 * README, kinds SLO and SLI) read as the Slo component's inputs, printed as a YAML or TypeScript program, and every
 * field that cannot be mapped refused by name.
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";
import * as ts from "typescript";
import { parse } from "yaml";
import {
  convertOpenSlo,
  convertOpenSloFiles,
  datasetAndPredicate,
  OpenSloError,
  predicateOnly,
} from "../../cli/slo/openslo";
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
    "a precomputed ratio",
    slo(
      `  indicator:
    spec:
      ratioMetric:
        rawType: success
        raw:
          metricSource:
            type: Axiom
            spec:
              query: "['logs'] | where ok"`,
      rest(),
    ),
    "spec.indicator.spec.ratioMetric.raw",
    "precomputed ratio",
  ],
  [
    "a kind OpenSLO v1 does not have",
    slo(ratio(), rest()).replace("kind: SLO", "kind: Slo"),
    "kind",
    'must be one of DataSource, SLO, SLI, AlertPolicy, AlertCondition, AlertNotificationTarget, Service, not "Slo"',
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
  ["an SLI the files lack", slo("  indicatorRef: nowhere", rest()), "spec.indicatorRef", "do not hold"],
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

test.each([
  ["where status >= 500", "status >= 500"],
  ["| where x == 'a | b'", "x == 'a | b'"],
  ["where a | project b", undefined],
  ["['logs'] | where a", undefined],
])("the APL of a metric source whose DataSource names the dataset: %s", (apl, predicate) => {
  expect(predicateOnly(apl)).toEqual(predicate);
});

describe("the command", () => {
  test("prints the YAML program and exits 0; --language typescript prints TypeScript", async () => {
    const yaml = await runCli(["slo", "convert", FIXTURE]);
    expect({ code: yaml.code, stderr: yaml.stderr }).toEqual({
      code: 0,
      stderr: `${FIXTURE}: SLI checkout-fast: read: the indicator of SLO checkout-latency\n`,
    });
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

/** A multi-document file as OpenSLO writes one: the SLO beside its service, data sources and alert policy. */
const MULTI = `apiVersion: openslo/v1
kind: Service
metadata:
  name: checkout
spec:
  description: Checkout
---
apiVersion: openslo/v1
kind: DataSource
metadata:
  name: axiom-http
spec:
  type: Axiom
  connectionDetails:
    dataset: http-logs
---
apiVersion: openslo/v1
kind: DataSource
metadata:
  name: prom
spec:
  type: Prometheus
  connectionDetails:
    - url: http://prometheus.example.com
---
apiVersion: openslo/v1
kind: AlertPolicy
metadata:
  name: page-on-call
spec:
  alertWhenBreaching: true
  conditions:
    - conditionRef: fast-burn
  notificationTargets:
    - targetRef: pager
---
apiVersion: openslo/v1
kind: SLO
metadata:
  name: checkout-errors
spec:
  service: checkout
  indicator:
    spec:
      ratioMetric:
        bad:
          metricSource:
            metricSourceRef: axiom-http
            spec:
              query: where status >= 500
        total:
          metricSource:
            metricSourceRef: axiom-http
            spec:
              query: "['http-logs']"
  timeWindow:
    - duration: 28d
      isRolling: true
  budgetingMethod: Occurrences
  objectives:
    - target: 0.999
  alertPolicies:
    - alertPolicyRef: page-on-call
`;

describe("OpenSLO as it is written", () => {
  test("a multi-document file: the SLO converted through its DataSource, every other object read or skipped in one line", () => {
    expect(convertOpenSloFiles([{ name: "checkout.yaml", text: MULTI }])).toEqual({
      slos: [
        {
          name: "checkout-errors",
          inputs: { dataset: "http-logs", events: { bad: "status >= 500" }, objective: 99.9, windowDays: 28 },
        },
      ],
      notes: [
        "checkout.yaml: Service checkout: skipped: the Slo has no service object (an SLO's spec.service names one; it is not carried over)",
        "checkout.yaml: DataSource axiom-http: read: the metric source of SLO checkout-errors",
        "checkout.yaml: DataSource prom: skipped: no SLO's metric source refers to it",
        "checkout.yaml: AlertPolicy page-on-call: skipped: the Slo makes the SRE workbook's burn-rate alerts itself; wire its notifiers with pageNotifierIds and ticketNotifierIds",
        "checkout.yaml: SLO checkout-errors: spec.alertPolicies: skipped: the Slo makes the SRE workbook's burn-rate alerts itself; wire its notifiers with pageNotifierIds and ticketNotifierIds",
      ],
    });
  });

  const withSource = (source: string) =>
    MULTI.replace(
      "            metricSourceRef: axiom-http\n            spec:\n              query: where status >= 500",
      source,
    );
  test.each([
    [
      "the type a DataSource gives is not Axiom",
      withSource(
        "            metricSourceRef: prom\n            spec:\n              query: where status >= 500",
      ),
      'SLO checkout-errors: spec.indicator.spec.ratioMetric.bad.metricSource.type: "Prometheus" (DataSource prom\'s spec.type) cannot be mapped: only type: Axiom, whose spec.query is APL',
    ],
    [
      "a metricSourceRef to no DataSource of the files",
      withSource(
        "            metricSourceRef: nowhere\n            spec:\n              query: where status >= 500",
      ),
      'SLO checkout-errors: spec.indicator.spec.ratioMetric.bad.metricSource.metricSourceRef: names the DataSource "nowhere", which the files do not hold',
    ],
    [
      "a type that differs from its DataSource's",
      withSource(
        "            metricSourceRef: axiom-http\n            type: Datadog\n            spec:\n              query: where status >= 500",
      ),
      'SLO checkout-errors: spec.indicator.spec.ratioMetric.bad.metricSource.type: "Datadog" differs from the type of DataSource axiom-http, "Axiom"',
    ],
    [
      "a query of another dataset than the DataSource's",
      withSource(
        "            metricSourceRef: axiom-http\n            spec:\n              query: \"['other'] | where status >= 500\"",
      ),
      "SLO checkout-errors: spec.indicator.spec.ratioMetric.bad.metricSource.spec.query: reads other, but DataSource axiom-http's connectionDetails name the dataset http-logs",
    ],
    [
      "no type, and no DataSource to take it from",
      withSource("            spec:\n              query: \"['http-logs'] | where status >= 500\""),
      "SLO checkout-errors: spec.indicator.spec.ratioMetric.bad.metricSource.type: is required (or metricSourceRef naming a DataSource of type Axiom)",
    ],
    [
      "a name two DataSources hold",
      MULTI.replace("  name: prom\n", "  name: axiom-http\n"),
      ["bad", "total"].map(
        (key) =>
          `SLO checkout-errors: spec.indicator.spec.ratioMetric.${key}.metricSource.metricSourceRef: names the DataSource "axiom-http", which 2 objects of the files are named (in f.yaml): the reference is ambiguous`,
      ),
    ],
  ])("metricSourceRef: %s is refused, naming the field", (_rule, text, problem) => {
    let error: unknown;
    try {
      convertOpenSloFiles([{ name: "f.yaml", text }]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(OpenSloError);
    expect((error as OpenSloError).problems).toEqual([problem].flat().map((p) => `f.yaml: ${p}`));
  });

  /** The OpenSLO project's own v1 examples (test/fixtures/openslo-v1/README.md: their source and license). */
  const V1 = path.join(__dirname, "..", "fixtures", "openslo-v1");
  const read = (...names: string[]) =>
    names.map((name) => ({ name, text: readFileSync(path.join(V1, name), "utf8") }));
  const problemsOf = (files: { name: string; text: string }[]) => {
    try {
      convertOpenSloFiles(files);
    } catch (e) {
      if (e instanceof OpenSloError) return e.problems;
      throw e;
    }
    return [];
  };
  const TIMESLICES =
    'spec.budgetingMethod: "Timeslices" cannot be mapped: the Slo counts good and bad events (Occurrences); timeslice budgeting is not supported';
  const CALENDAR =
    "spec.timeWindow[0].isRolling: must be true: the Slo's window is rolling; a calendar window cannot be mapped";
  const SLICE_TARGET =
    "spec.objectives[0].timeSliceTarget: cannot be mapped: timeslice budgeting is not supported";

  test.each([
    [
      "OpenSLO/budgeting-method_occurences-slo.yaml",
      [
        "SLO search-slo: spec.indicator.spec.thresholdMetric: cannot be mapped: the Slo needs a ratioMetric of events",
      ],
    ],
    [
      "OpenSLO/budgeting-method_ratio-timeslices.yaml",
      [
        'SLO main-page: spec.budgetingMethod: "RatioTimeslices" cannot be mapped: the Slo counts good and bad events (Occurrences); timeslice budgeting is not supported',
      ],
    ],
    [
      "OpenSLO/budgeting-method_timeslices-slo.yaml",
      [
        `SLO service-availability: ${TIMESLICES}`,
        `SLO service-availability: ${CALENDAR}`,
        "SLO service-availability: spec.objectives: must hold exactly one objective: one Slo is one objective",
      ],
    ],
    [
      "OpenSLO/treat-low-traffic-as-equally-important_timeslices-slo.yaml",
      [
        `SLO service-availability: ${TIMESLICES}`,
        `SLO service-availability: ${CALENDAR}`,
        `SLO service-availability: ${SLICE_TARGET}`,
      ],
    ],
  ])("OpenSLO's example %s: refused only for what the Slo cannot say", (file, problems) => {
    expect(problemsOf(read(file))).toEqual(problems.map((p) => `${file}: ${p}`));
  });

  const SDK = [
    "services.yaml",
    "data_sources.yaml",
    "slis.yaml",
    "alert_conditions.yaml",
    "alert_notification_targets.yaml",
    "alert_policies.yaml",
  ].map((f) => `go-sdk/${f}`);

  test("every v1 example of OpenSLO's go-sdk read together: only the timeslice SLO is refused", () => {
    expect(problemsOf(read(...SDK, "go-sdk/slos.yaml"))).toEqual(
      [TIMESLICES, CALENDAR, SLICE_TARGET].map((p) => `go-sdk/slos.yaml: SLO web-availability: ${p}`),
    );
  });

  test("the command on the go-sdk's examples of every kind and its SLO list: the SLO through its DataSource, one line per other object", async () => {
    const r = await runCli([
      "slo",
      "convert",
      ...[...SDK, "go-sdk/decode_v1_slos.yaml"].map((f) => path.join(V1, f)),
    ]);
    expect(r.code).toBe(0);
    expect(parse(r.stdout).resources).toEqual({
      "foo-slo": {
        type: "observability:Slo",
        properties: {
          displayName: "Foo SLO",
          dataset: "http_requests",
          events: { good: "status_code == 200" },
          objective: 98,
        },
      },
    });
    const ALERTS =
      "skipped: the Slo makes the SRE workbook's burn-rate alerts itself; wire its notifiers with pageNotifierIds and ticketNotifierIds";
    const SERVICE =
      "skipped: the Slo has no service object (an SLO's spec.service names one; it is not carried over)";
    expect(r.stderr.split("\n").map((l) => l.replace(`${V1}/`, ""))).toEqual([
      `go-sdk/services.yaml: Service example-service: ${SERVICE}`,
      `go-sdk/services.yaml: Service example-service: ${SERVICE}`,
      "go-sdk/data_sources.yaml: DataSource prometheus: read: the metric source of SLO foo-slo",
      "go-sdk/data_sources.yaml: DataSource datadog: skipped: no SLO's metric source refers to it",
      "go-sdk/slis.yaml: SLI search-availability: skipped: no SLO refers to it",
      "go-sdk/slis.yaml: SLI end-user-response: skipped: no SLO refers to it",
      "go-sdk/slis.yaml: SLI wifi-client-satisfaction: skipped: no SLO refers to it",
      "go-sdk/slis.yaml: SLI annotator-throughput: skipped: no SLO refers to it",
      `go-sdk/alert_conditions.yaml: AlertCondition cpu-usage-breach: ${ALERTS}`,
      `go-sdk/alert_conditions.yaml: AlertCondition latency-too-high: ${ALERTS}`,
      `go-sdk/alert_notification_targets.yaml: AlertNotificationTarget devs-email-notification: ${ALERTS}`,
      `go-sdk/alert_notification_targets.yaml: AlertNotificationTarget pd-on-call-notification: ${ALERTS}`,
      `go-sdk/alert_policies.yaml: AlertPolicy low-priority: ${ALERTS}`,
      `go-sdk/alert_policies.yaml: AlertPolicy high-priority: ${ALERTS}`,
      `go-sdk/alert_policies.yaml: AlertPolicy medium-priority: ${ALERTS}`,
      "go-sdk/decode_v1_slos.yaml: SLO foo-slo: spec.timeWindow: none given: the Slo's default window",
      "",
    ]);
  });
});
