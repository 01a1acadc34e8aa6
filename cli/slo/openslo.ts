/**
 * OpenSLO in: the SLO documents of an OpenSLO v1 file (openslo/openslo, the specification's v1 `SLO` and `SLI`
 * kinds) read as the `Slo` component's inputs, or refused, naming the field, where the component cannot say the
 * same thing.
 *
 * What maps: an `SLO` whose indicator (inline `spec.indicator`, or `spec.indicatorRef` naming an `SLI` of the same
 * file) is a `ratioMetric` of `good` or `bad` events over `total`, each a `metricSource` of `type: Axiom` whose
 * `spec.query` is APL of the form `['<dataset>'] | where <predicate>` (the total may be the dataset alone), both
 * over one dataset; one objective (`target` 0.999, or `targetPercent` 99.9); a rolling `timeWindow` of 7 to 90
 * days; `budgetingMethod: Occurrences`. The APL becomes the component's predicates, the target its objective.
 *
 * What is refused, named: timeslice budgeting (`Timeslices`, `RatioTimeslices`: the component counts events, not
 * good minutes), a calendar window, another metric source, a threshold metric, several objectives, and
 * `alertPolicies` (the component makes the workbook's burn-rate alerts itself; its notifiers are wired by id).
 */
import { parseAllDocuments } from "yaml";
import { planSlo, SloArgsError } from "../../provider/slo/plan";

/** One SLO of the file, as the component's name and inputs. */
export interface ConvertedSlo {
  /** `metadata.name`: the resource's name. */
  name: string;
  inputs: {
    displayName?: string;
    dataset: string;
    events: { good?: string; bad?: string; total?: string };
    objective: number;
    windowDays: number;
  };
}

/** A field of the file that cannot be mapped, or is wrong: `<document>.<path>: <why>`. */
export class OpenSloError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join("\n"));
    this.name = "OpenSloError";
  }
}

type Doc = Record<string, unknown>;
const isObject = (v: unknown): v is Doc => typeof v === "object" && v !== null && !Array.isArray(v);
const at = (doc: unknown, path: string): unknown =>
  path.split(".").reduce<unknown>((v, key) => (isObject(v) ? v[key] : undefined), doc);

/** `['dataset'] | where predicate`, `['dataset']`, or a dataset named bare: the parts, or undefined. */
export function datasetAndPredicate(apl: string): { dataset: string; predicate?: string } | undefined {
  const m =
    /^\s*(?:\['((?:[^'\\]|\\.)+)'\]|\["((?:[^"\\]|\\.)+)"\]|([A-Za-z_][\w.-]*))\s*(?:\|\s*where\s+([\s\S]+?))?\s*$/.exec(
      apl,
    );
  if (!m) return undefined;
  const dataset = (m[1] ?? m[2] ?? m[3]).replace(/\\(.)/g, "$1");
  const predicate = m[4]?.trim();
  // A second pipe after the predicate is another operator, which a predicate cannot hold.
  if (predicate !== undefined && /\|\s*[a-z-]+\b/.test(predicate.replace(/'[^']*'|"[^"]*"/g, "")))
    return undefined;
  return { dataset, predicate };
}

/** The days of an OpenSLO duration (`28d`, `4w`); undefined for any other unit. */
function days(duration: unknown): number | undefined {
  const m = typeof duration === "string" ? /^([1-9][0-9]*)(d|w)$/.exec(duration) : null;
  return m ? Number(m[1]) * (m[2] === "w" ? 7 : 1) : undefined;
}

/** Reads every `SLO` document of an OpenSLO file; throws an {@link OpenSloError} listing every problem. */
export function convertOpenSlo(text: string): ConvertedSlo[] {
  const problems: string[] = [];
  const docs = parseAllDocuments(text);
  const values: Doc[] = [];
  docs.forEach((d, i) => {
    if (d.errors.length > 0)
      problems.push(`document ${i + 1}: not YAML: ${d.errors[0].message.split("\n")[0]}`);
    else if (d.contents !== null) values.push(d.toJS() as Doc);
  });
  if (problems.length > 0) throw new OpenSloError(problems);
  const slis = new Map<string, Doc>();
  for (const doc of values)
    if (doc.kind === "SLI" && typeof at(doc, "metadata.name") === "string")
      slis.set(at(doc, "metadata.name") as string, doc);

  const out: ConvertedSlo[] = [];
  for (const doc of values) {
    if (doc.kind === "SLI") continue;
    const name =
      typeof at(doc, "metadata.name") === "string" ? (at(doc, "metadata.name") as string) : undefined;
    const where = `SLO ${name ?? "(unnamed)"}`;
    const fail = (path: string, why: string) => problems.push(`${where}: ${path}: ${why}`);
    if (doc.apiVersion !== "openslo/v1") {
      fail("apiVersion", `must be openslo/v1, not ${JSON.stringify(doc.apiVersion)}`);
      continue;
    }
    if (doc.kind !== "SLO") {
      fail("kind", `only SLO (and the SLIs they refer to) can be converted, not ${JSON.stringify(doc.kind)}`);
      continue;
    }
    if (!name) fail("metadata.name", "is required: it names the resource");
    const before = problems.length;

    const method = at(doc, "spec.budgetingMethod");
    if (method !== "Occurrences")
      fail(
        "spec.budgetingMethod",
        `${JSON.stringify(method)} cannot be mapped: the Slo counts good and bad events (Occurrences); timeslice budgeting is not supported`,
      );
    const windows = at(doc, "spec.timeWindow");
    let windowDays: number | undefined;
    if (!Array.isArray(windows) || windows.length !== 1)
      fail("spec.timeWindow", "must hold exactly one window");
    else if (at(windows[0], "isRolling") !== true)
      fail(
        "spec.timeWindow[0].isRolling",
        "must be true: the Slo's window is rolling; a calendar window cannot be mapped",
      );
    else if (
      (windowDays = days(at(windows[0], "duration"))) === undefined ||
      windowDays < 7 ||
      windowDays > 90
    )
      fail("spec.timeWindow[0].duration", "must be 7 to 90 days, written in d or w (28d, 4w)");
    const objectives = at(doc, "spec.objectives");
    let objective: number | undefined;
    if (!Array.isArray(objectives) || objectives.length !== 1)
      fail("spec.objectives", "must hold exactly one objective: one Slo is one objective");
    else {
      const target = at(objectives[0], "target");
      const percent = at(objectives[0], "targetPercent");
      if (typeof target === "number") objective = Number((target * 100).toPrecision(12));
      else if (typeof percent === "number") objective = percent;
      else fail("spec.objectives[0].target", "is required: a ratio such as 0.999 (or targetPercent: 99.9)");
      if (at(objectives[0], "timeSliceTarget") !== undefined)
        fail("spec.objectives[0].timeSliceTarget", "cannot be mapped: timeslice budgeting is not supported");
    }
    const policies = at(doc, "spec.alertPolicies");
    if (Array.isArray(policies) && policies.length > 0)
      fail(
        "spec.alertPolicies",
        "cannot be mapped: the Slo makes the SRE workbook's burn-rate alerts itself; remove them and wire notifiers " +
          "with pageNotifierIds and ticketNotifierIds",
      );

    // The indicator: inline, or an SLI of this file by name.
    let indicator: unknown = at(doc, "spec.indicator");
    let indicatorPath = "spec.indicator";
    const ref = at(doc, "spec.indicatorRef");
    if (indicator === undefined && typeof ref === "string") {
      indicator = slis.get(ref);
      indicatorPath = `SLI ${ref}`;
      if (!indicator)
        fail("spec.indicatorRef", `names the SLI ${JSON.stringify(ref)}, which this file does not hold`);
    } else if (indicator === undefined)
      fail("spec.indicator", "is required (or spec.indicatorRef naming an SLI of this file)");
    let events: ConvertedSlo["inputs"]["events"] | undefined;
    let dataset: string | undefined;
    if (indicator !== undefined) {
      if (at(indicator, "spec.thresholdMetric") !== undefined)
        fail(
          `${indicatorPath}.spec.thresholdMetric`,
          "cannot be mapped: the Slo needs a ratioMetric of events",
        );
      const ratio = at(indicator, "spec.ratioMetric");
      if (!isObject(ratio))
        fail(`${indicatorPath}.spec.ratioMetric`, "is required: good or bad events over total");
      else {
        const parts: Record<string, { dataset: string; predicate?: string }> = {};
        for (const key of ["good", "bad", "total"] as const) {
          const source = at(ratio, `${key}.metricSource`);
          if (source === undefined) continue;
          const path = `${indicatorPath}.spec.ratioMetric.${key}.metricSource`;
          if (at(source, "type") !== "Axiom") {
            fail(
              `${path}.type`,
              `${JSON.stringify(at(source, "type"))} cannot be mapped: only type: Axiom, whose spec.query is APL`,
            );
            continue;
          }
          const query = at(source, "spec.query");
          const parsed = typeof query === "string" ? datasetAndPredicate(query) : undefined;
          if (!parsed)
            fail(`${path}.spec.query`, "must be APL of the form ['<dataset>'] | where <predicate>");
          else parts[key] = parsed;
        }
        if ((parts.good === undefined) === (parts.bad === undefined) && problems.length === before)
          fail(`${indicatorPath}.spec.ratioMetric`, "must give exactly one of good and bad");
        if (!at(ratio, "total.metricSource") && problems.length === before)
          fail(`${indicatorPath}.spec.ratioMetric.total`, "is required");
        const sets = new Set(Object.values(parts).map((p) => p.dataset));
        if (sets.size > 1)
          fail(
            `${indicatorPath}.spec.ratioMetric`,
            `its queries must read one dataset, not ${[...sets].join(" and ")}`,
          );
        const counted = parts.good ?? parts.bad;
        if (counted && counted.predicate === undefined)
          fail(
            `${indicatorPath}.spec.ratioMetric.${parts.good ? "good" : "bad"}.metricSource.spec.query`,
            "must filter with | where <predicate>",
          );
        if (sets.size === 1 && counted?.predicate !== undefined) {
          dataset = [...sets][0];
          events = {
            ...(parts.good ? { good: parts.good.predicate } : { bad: parts.bad!.predicate }),
            ...(parts.total?.predicate ? { total: parts.total.predicate } : {}),
          };
        }
      }
    }
    if (
      problems.length > before ||
      !name ||
      !events ||
      !dataset ||
      objective === undefined ||
      windowDays === undefined
    )
      continue;
    const displayName = at(doc, "metadata.displayName");
    const converted: ConvertedSlo = {
      name,
      inputs: {
        ...(typeof displayName === "string" ? { displayName } : {}),
        dataset,
        events,
        objective,
        windowDays,
      },
    };
    try {
      planSlo(name, converted.inputs);
      out.push(converted);
    } catch (e) {
      if (!(e instanceof SloArgsError)) throw e;
      for (const f of e.failures) problems.push(`${where}: the Slo's ${f.property}: ${f.reason}`);
    }
  }
  if (problems.length > 0) throw new OpenSloError(problems);
  if (out.length === 0) throw new OpenSloError(["the file holds no OpenSLO v1 SLO document"]);
  return out;
}
