/**
 * OpenSLO in: the SLO documents of OpenSLO v1 files (openslo/openslo, the specification's v1 kinds) read as the
 * `Slo` component's inputs, or refused, naming the field, where the component cannot say the same thing.
 *
 * Files as OpenSLO writes them: several YAML documents (`---`), or a document holding a list of objects (as
 * OpenSLO's go-sdk writes its examples), every kind side by side; the files given to one command are read
 * together, so an SLO's references reach the other files.
 *
 * What maps: an `SLO` whose indicator (inline `spec.indicator`, or `spec.indicatorRef` naming an `SLI`) is a
 * `ratioMetric` of `good` or `bad` events over `total`, each a `metricSource` of type Axiom whose `spec.query` is
 * APL of the form `['<dataset>'] | where <predicate>` (the total may be the dataset alone), all over one dataset;
 * one objective (`target` 0.999, or `targetPercent` 99.9); a rolling `timeWindow` of 7 to 90 days (none: the
 * component's default); `budgetingMethod: Occurrences`. A `metricSourceRef` is followed to its `DataSource`: the
 * type comes from it when the metric source gives none (the specification's rule), and a dataset its
 * `connectionDetails` name lets a query be the filter alone (`where <predicate>`).
 *
 * What is read or skipped, one line each: an `SLI` or `DataSource` is read when a converted SLO uses it, skipped
 * otherwise; a `Service`, an `AlertPolicy` (and its `AlertCondition`s and `AlertNotificationTarget`s), and an
 * SLO's `alertPolicies`, are skipped: the component has no service object, and makes the SRE workbook's burn-rate
 * alerts itself, its notifiers wired by id.
 *
 * What is refused, named: timeslice budgeting (`Timeslices`, `RatioTimeslices`: the component counts events, not
 * good minutes), a calendar window, another metric source, a threshold or precomputed (`raw`) metric, several
 * objectives, a kind OpenSLO v1 does not have.
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
    /** Absent when the SLO gives no window: the component's default. */
    windowDays?: number;
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

/** The filter alone, `where <predicate>` (a leading `|` allowed): the predicate, or undefined. */
export function predicateOnly(apl: string): string | undefined {
  const m = /^\s*\|?\s*where\s+([\s\S]+?)\s*$/.exec(apl);
  if (!m) return undefined;
  return /\|\s*[a-z-]+\b/.test(m[1].replace(/'[^']*'|"[^"]*"/g, "")) ? undefined : m[1];
}

/** One file given to the command: its name (prefixed to its lines; empty for none) and its text. */
export interface OpenSloFile {
  name: string;
  text: string;
}

/** What the files held: the SLOs converted, and one line per other document (and skipped field) saying what
 * became of it. */
export interface OpenSloConversion {
  slos: ConvertedSlo[];
  notes: string[];
}

/** The kinds of OpenSLO v1 (the specification's "General Schema"). */
const KINDS = [
  "DataSource",
  "SLO",
  "SLI",
  "AlertPolicy",
  "AlertCondition",
  "AlertNotificationTarget",
  "Service",
] as const;

const ALERTS_SKIPPED =
  "the Slo makes the SRE workbook's burn-rate alerts itself; wire its notifiers with pageNotifierIds and " +
  "ticketNotifierIds";

/** Why each kind that is never converted is skipped. */
const SKIPPED: Record<string, string> = {
  Service: "the Slo has no service object (an SLO's spec.service names one; it is not carried over)",
  AlertPolicy: ALERTS_SKIPPED,
  AlertCondition: ALERTS_SKIPPED,
  AlertNotificationTarget: ALERTS_SKIPPED,
};

/** An object of a file: where it is, and what it holds. */
interface Entry {
  /** The file's name and `: `, or empty. */
  prefix: string;
  doc: Doc;
  kind: string;
  name: string | undefined;
  /** `SLO name`, or `document 2` when the kind or name is missing. */
  label: string;
  /** What used it (a DataSource's or SLI's readers): empty when skipped. */
  usedBy: string[];
  /** An SLO's lines about its fields that were skipped or defaulted. */
  notes: string[];
}

/** The datasets a DataSource's `connectionDetails` name (`dataset: x`, as a map or a list of maps). */
function connectionDataset(source: Doc): unknown {
  const details = at(source, "spec.connectionDetails");
  const maps = Array.isArray(details) ? details : [details];
  for (const m of maps) if (isObject(m) && m.dataset !== undefined) return m.dataset;
  return undefined;
}

/** Reads OpenSLO v1 files together; throws an {@link OpenSloError} listing every problem, each prefixed with its
 * file's name. */
export function convertOpenSloFiles(files: readonly OpenSloFile[]): OpenSloConversion {
  const problems: string[] = [];
  const entries: Entry[] = [];
  for (const file of files) {
    const prefix = file.name ? `${file.name}: ` : "";
    parseAllDocuments(file.text).forEach((d, i) => {
      if (d.errors.length > 0) {
        problems.push(`${prefix}document ${i + 1}: not YAML: ${d.errors[0].message.split("\n")[0]}`);
        return;
      }
      if (d.contents === null) return;
      const value: unknown = d.toJS();
      // A document holding a list holds one object per item (OpenSLO's go-sdk writes its examples so).
      const items = Array.isArray(value) ? value : [value];
      items.forEach((item, j) => {
        const where = Array.isArray(value) ? `document ${i + 1} item ${j + 1}` : `document ${i + 1}`;
        if (!isObject(item)) {
          problems.push(`${prefix}${where}: must be an OpenSLO object (apiVersion, kind, metadata, spec)`);
          return;
        }
        const kind = typeof item.kind === "string" ? item.kind : "";
        const name =
          typeof at(item, "metadata.name") === "string" ? (at(item, "metadata.name") as string) : undefined;
        const label = kind && (name || kind === "SLO") ? `${kind} ${name ?? "(unnamed)"}` : where;
        entries.push({ prefix, doc: item, kind, name, label, usedBy: [], notes: [] });
      });
    });
  }
  if (problems.length > 0) throw new OpenSloError(problems);

  // Every object of a kind by name: a reference to a name that two objects hold is refused as ambiguous.
  const byName = (kind: string) => {
    const map = new Map<string, Entry[]>();
    for (const e of entries)
      if (e.kind === kind && e.name !== undefined) map.set(e.name, [...(map.get(e.name) ?? []), e]);
    return map;
  };
  const slis = byName("SLI");
  const dataSources = byName("DataSource");
  const notes: string[] = [];
  const out: ConvertedSlo[] = [];

  for (const entry of entries) {
    const { doc, prefix, label } = entry;
    if (doc.apiVersion !== "openslo/v1") {
      problems.push(
        `${prefix}${label}: apiVersion: must be openslo/v1, not ${JSON.stringify(doc.apiVersion)}`,
      );
      continue;
    }
    if (!(KINDS as readonly string[]).includes(entry.kind)) {
      problems.push(
        `${prefix}${label}: kind: must be one of ${KINDS.join(", ")}, not ${JSON.stringify(doc.kind)}`,
      );
      continue;
    }
    if (entry.kind !== "SLO") continue;
    const converted = convertSlo(entry, slis, dataSources, problems);
    if (converted) out.push(converted);
  }
  for (const entry of entries) {
    notes.push(...entry.notes);
    if (entry.kind === "SLO" || !(KINDS as readonly string[]).includes(entry.kind)) continue;
    if (entry.doc.apiVersion !== "openslo/v1") continue;
    const line =
      entry.usedBy.length > 0
        ? `read: ${entry.kind === "SLI" ? "the indicator" : "the metric source"} of ${[...new Set(entry.usedBy)].join(", ")}`
        : `skipped: ${SKIPPED[entry.kind] ?? (entry.kind === "SLI" ? "no SLO refers to it" : "no SLO's metric source refers to it")}`;
    notes.push(`${entry.prefix}${entry.label}: ${line}`);
  }
  if (problems.length > 0) throw new OpenSloError(problems);
  if (out.length === 0) throw new OpenSloError(["the files hold no OpenSLO v1 SLO object"]);
  return { slos: out, notes };
}

/** Reads the `SLO` documents of one OpenSLO text (its other documents read or skipped, as {@link convertOpenSloFiles}). */
export function convertOpenSlo(text: string): ConvertedSlo[] {
  return convertOpenSloFiles([{ name: "", text }]).slos;
}

/** One SLO as the component's inputs, or undefined after adding its problems. */
function convertSlo(
  entry: Entry,
  slis: Map<string, Entry[]>,
  dataSources: Map<string, Entry[]>,
  problems: string[],
): ConvertedSlo | undefined {
  const { doc, name, prefix } = entry;
  const where = `${prefix}SLO ${name ?? "(unnamed)"}`;
  const fail = (path: string, why: string) => problems.push(`${where}: ${path}: ${why}`);
  if (!name) fail("metadata.name", "is required: it names the resource");
  const before = problems.length;
  /** The SLIs and DataSources this SLO reads. */
  const uses: Entry[] = [];

  const method = at(doc, "spec.budgetingMethod");
  if (method !== "Occurrences")
    fail(
      "spec.budgetingMethod",
      `${JSON.stringify(method)} cannot be mapped: the Slo counts good and bad events (Occurrences); timeslice budgeting is not supported`,
    );
  const windows = at(doc, "spec.timeWindow");
  let windowDays: number | undefined;
  if (windows === undefined) {
    // Optional in OpenSLO: the component's own default window then.
  } else if (!Array.isArray(windows) || windows.length !== 1)
    fail("spec.timeWindow", "must hold exactly one window");
  else if (at(windows[0], "isRolling") !== true)
    fail(
      "spec.timeWindow[0].isRolling",
      "must be true: the Slo's window is rolling; a calendar window cannot be mapped",
    );
  else if ((windowDays = days(at(windows[0], "duration"))) === undefined || windowDays < 7 || windowDays > 90)
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

  // The indicator: inline, or an SLI by name.
  let indicator: unknown = at(doc, "spec.indicator");
  let indicatorPath = "spec.indicator";
  const ref = at(doc, "spec.indicatorRef");
  if (indicator === undefined && typeof ref === "string") {
    const found = slis.get(ref) ?? [];
    const sli = found.length === 1 ? found[0] : undefined;
    indicator = sli?.doc;
    indicatorPath = `SLI ${ref}`;
    if (found.length === 0)
      fail("spec.indicatorRef", `names the SLI ${JSON.stringify(ref)}, which the files do not hold`);
    else if (!sli) fail("spec.indicatorRef", ambiguous("SLI", ref, found));
    else uses.push(sli);
  } else if (indicator === undefined)
    fail("spec.indicator", "is required (or spec.indicatorRef naming an SLI of the files)");
  let events: ConvertedSlo["inputs"]["events"] | undefined;
  let dataset: string | undefined;
  if (indicator !== undefined) {
    const ratio = at(indicator, "spec.ratioMetric");
    if (at(indicator, "spec.thresholdMetric") !== undefined)
      fail(
        `${indicatorPath}.spec.thresholdMetric`,
        "cannot be mapped: the Slo needs a ratioMetric of events",
      );
    else if (!isObject(ratio))
      fail(`${indicatorPath}.spec.ratioMetric`, "is required: good or bad events over total");
    else if (ratio.raw !== undefined)
      fail(
        `${indicatorPath}.spec.ratioMetric.raw`,
        "cannot be mapped: a precomputed ratio; the Slo counts good or bad events over total",
      );
    else {
      const parts: Record<string, { dataset: string; predicate?: string }> = {};
      for (const key of ["good", "bad", "total"] as const) {
        const source = at(ratio, `${key}.metricSource`);
        if (source === undefined) continue;
        const path = `${indicatorPath}.spec.ratioMetric.${key}.metricSource`;
        const part = readMetricSource(source, path, dataSources, fail, uses);
        if (part) parts[key] = part;
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
  for (const used of uses) used.usedBy.push(`SLO ${name ?? "(unnamed)"}`);
  if (problems.length > before || !name || !events || !dataset || objective === undefined) return undefined;
  const displayName = at(doc, "metadata.displayName");
  const converted: ConvertedSlo = {
    name,
    inputs: {
      ...(typeof displayName === "string" ? { displayName } : {}),
      dataset,
      events,
      objective,
      ...(windowDays !== undefined ? { windowDays } : {}),
    },
  };
  try {
    planSlo(name, converted.inputs);
  } catch (e) {
    if (!(e instanceof SloArgsError)) throw e;
    for (const f of e.failures) problems.push(`${where}: the Slo's ${f.property}: ${f.reason}`);
    return undefined;
  }
  const policies = at(doc, "spec.alertPolicies");
  if (Array.isArray(policies) && policies.length > 0)
    entry.notes.push(`${where}: spec.alertPolicies: skipped: ${ALERTS_SKIPPED}`);
  if (windows === undefined)
    entry.notes.push(`${where}: spec.timeWindow: none given: the Slo's default window`);
  return converted;
}

/** The refusal of a reference to a name that several objects of the kind hold. */
function ambiguous(kind: string, name: string, found: Entry[]): string {
  const where = found.map((e) => e.prefix.replace(/: $/, "")).filter(Boolean);
  return (
    `names the ${kind} ${JSON.stringify(name)}, which ${found.length} objects of the files are named` +
    (where.length > 0 ? ` (in ${[...new Set(where)].join(", ")})` : "") +
    ": the reference is ambiguous"
  );
}

/** A ratio's metric source as its dataset and predicate: its DataSource followed, its APL read. */
function readMetricSource(
  source: unknown,
  path: string,
  dataSources: Map<string, Entry[]>,
  fail: (path: string, why: string) => void,
  uses: Entry[],
): { dataset: string; predicate?: string } | undefined {
  const ref = at(source, "metricSourceRef");
  let from: Entry | undefined;
  if (ref !== undefined) {
    const found = typeof ref === "string" ? (dataSources.get(ref) ?? []) : [];
    from = found.length === 1 ? found[0] : undefined;
    if (!from) {
      fail(
        `${path}.metricSourceRef`,
        found.length > 1
          ? ambiguous("DataSource", ref as string, found)
          : `names the DataSource ${JSON.stringify(ref)}, which the files do not hold`,
      );
      return undefined;
    }
    uses.push(from);
  }
  const own = at(source, "type");
  const inherited = from ? at(from.doc, "spec.type") : undefined;
  if (own !== undefined && inherited !== undefined && own !== inherited) {
    fail(
      `${path}.type`,
      `${JSON.stringify(own)} differs from the type of DataSource ${String(ref)}, ${JSON.stringify(inherited)}`,
    );
    return undefined;
  }
  const type = own ?? inherited;
  if (type !== "Axiom") {
    const whence = own === undefined && from ? ` (DataSource ${String(ref)}'s spec.type)` : "";
    fail(
      `${path}.type`,
      type === undefined
        ? "is required (or metricSourceRef naming a DataSource of type Axiom)"
        : `${JSON.stringify(type)}${whence} cannot be mapped: only type: Axiom, whose spec.query is APL`,
    );
    return undefined;
  }
  const named = from ? connectionDataset(from.doc) : undefined;
  if (named !== undefined && (typeof named !== "string" || named === "")) {
    fail(`DataSource ${String(ref)}.spec.connectionDetails.dataset`, "must be a dataset's name");
    return undefined;
  }
  const query = at(source, "spec.query");
  if (typeof query !== "string") {
    fail(`${path}.spec.query`, "is required: APL of the form ['<dataset>'] | where <predicate>");
    return undefined;
  }
  const parsed = datasetAndPredicate(query);
  if (parsed && named !== undefined && parsed.dataset !== named) {
    fail(
      `${path}.spec.query`,
      `reads ${parsed.dataset}, but DataSource ${String(ref)}'s connectionDetails name the dataset ${named}`,
    );
    return undefined;
  }
  if (parsed) return parsed;
  const predicate = named !== undefined ? predicateOnly(query) : undefined;
  if (named !== undefined && predicate !== undefined) return { dataset: named, predicate };
  fail(
    `${path}.spec.query`,
    named !== undefined
      ? `must be APL of the form where <predicate> (the dataset ${named} is DataSource ${String(ref)}'s) or ['<dataset>'] | where <predicate>`
      : "must be APL of the form ['<dataset>'] | where <predicate>",
  );
  return undefined;
}
