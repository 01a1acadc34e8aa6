/**
 * What a test runs: its monitors, notifiers, datasets and virtual fields, from the stack's preview and from the file
 * itself (an entry under `monitors:`/`notifiers:` with a resource's name replaces the stack's), each checked by the
 * resource's own input schema, so a test refuses exactly what `pulumi up` would, on the line that says it.
 *
 * A monitor's `notifierIds` name notifiers of the test by resource name (`oncall-slack`, or Pulumi YAML's
 * `${oncall-slack.id}`), by `name`, or by an id the stack's preview knows; the run turns them into the ids the
 * emulator gives.
 */
import type { z } from "zod";
import {
  MONITOR_OPERATORS,
  monitorCrossFieldIssues,
  MonitorFieldsSchema,
  MonitorInputSchema,
  type MonitorCreate,
} from "../../provider/schemas/monitor";
import {
  notifierCrossFieldIssues,
  NotifierFieldsSchema,
  NotifierInputSchema,
  type NotifierCreate,
} from "../../provider/schemas/notifier";
import type { CrossFieldIssue } from "../../provider/schemas/common";
import { VirtualFieldInputSchema, type VirtualFieldCreate } from "../../provider/schemas/virtual-field";
import { DatasetNameSchema } from "../../provider/schemas/dataset";
import { issuePath } from "../../provider/schemas/common";
import type { AlertTestFile } from "./schema";
import { didYouMean } from "./suggest";
import { FileProblems, offsetOf, type DocPath, type Problem, type SourceDocument } from "./source";
import {
  hiddenPaths,
  readPreview,
  resolveStackNotifierIds,
  SECRET,
  UNKNOWN,
  urnName,
  type StackResource,
} from "./stack";

/** Where an entry is written, so that a check made later (its query, its template) names its place. */
export interface Place {
  doc: SourceDocument;
  /** The entry's inputs in `doc`. */
  path: DocPath;
  /** How a problem names a field of it: `monitors.errors.aplQuery`, or `Monitor errors: aplQuery` in a preview. */
  field: (field: DocPath) => string;
}

/** A problem at `field` of the entry at `place`; `offset` places it inside that field's string value. */
export function problemAt(place: Place, field: DocPath, message: string, offset?: number): Problem {
  const path = [...place.path, ...field];
  const position =
    offset === undefined ? place.doc.positionOf(path) : place.doc.positionInValue(path, offset);
  return { file: place.doc.file, ...position, field: place.field(field), message };
}

/** The entries a test refused, by resource name and by `name`, each with its first problem: what names one says
 * why it is missing. */
export interface Refusals {
  monitors: Map<string, Problem>;
  notifiers: Map<string, Problem>;
  /** The stack's preview could not be read: any name may have been its. */
  everything: boolean;
}

/** A notifier of the test. */
export interface TestNotifier {
  /** Its resource name: the key under `notifiers:`, or the name in its URN. */
  key: string;
  inputs: NotifierCreate;
  /** Whether its URL was a secret or unknown in the preview, so it must go to the receiver whatever `deliver` says. */
  urlHidden: boolean;
  /**
   * Why it runs as a stand-in rather than as declared, when it does: the preview hid its `properties` (it runs as a
   * plain webhook to the receiver) or a key of its channel (a stand-in value is sent in its place).
   */
  standIn?: string;
  /** Where it was declared, for messages. */
  origin: string;
  place: Place;
}

/** A monitor of the test; `inputs.notifierIds` hold notifier keys until the run maps them to ids. */
export interface TestMonitor {
  key: string;
  inputs: MonitorCreate;
  origin: string;
  place: Place;
}

/** A dataset to create. */
export interface TestDataset {
  name: string;
  mapFields: string[];
}

/** Everything a test creates before it ingests. */
export interface TestModel {
  monitors: TestMonitor[];
  notifiers: TestNotifier[];
  datasets: TestDataset[];
  virtualFields: VirtualFieldCreate[];
}

/** Channel fields that hold a URL, which a test points at its receiver. */
export const URL_FIELDS: Record<string, string> = {
  customWebhook: "url",
  webhook: "url",
  slack: "slackUrl",
  microsoftTeams: "microsoftTeamsUrl",
  discordWebhook: "discordWebhookUrl",
};

/** What a hidden URL reads as until the run knows its receiver's address (a reserved name, RFC 2606). */
const HIDDEN_URL = "http://receiver.invalid/";
/** The stand-in for a hidden key or token: the run never sends it anywhere but the emulator's outbox. */
export const STAND_IN_SECRET = "alert-test-stand-in";

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** A problem in the preview's document, naming the resource. */
function stackProblem(preview: SourceDocument, r: StackResource, field: DocPath, message: string): Problem {
  const p = preview.problem([...r.path, ...field], message);
  return { ...p, field: `${r.kind} ${r.name}${field.length ? `: ${issuePath(field)}` : ""}` };
}

/** `value` (a stack resource's inputs, as the test will use them) parsed by `schema`; its failures, named after the
 * resource, go to `problems`. */
function parseStack<T>(
  preview: SourceDocument,
  r: StackResource,
  schema: z.ZodType<T>,
  value: unknown,
  problems: Problem[],
): T | undefined {
  try {
    return preview.parseWith(schema, r.path, value);
  } catch (err) {
    if (!(err instanceof FileProblems)) throw err;
    for (const p of err.problems) {
      const prefix = issuePath(r.path);
      const field = p.field.startsWith(prefix) ? p.field.slice(prefix.length).replace(/^\./, "") : p.field;
      problems.push({ ...p, field: `${r.kind} ${r.name}${field ? `: ${field}` : ""}` });
    }
    return undefined;
  }
}

/**
 * An inline resource's inputs checked as the provider's `check` does: its fields' own rules, then its cross-field
 * rules, both reported at once (a refinement on the schema would be skipped while a field fails).
 */
function parseInline<T>(
  doc: SourceDocument,
  at: DocPath,
  value: unknown,
  fields: z.ZodType<T>,
  crossField: (value: unknown) => CrossFieldIssue[],
): T {
  const problems: Problem[] = [];
  let parsed: T | undefined;
  try {
    parsed = doc.parseWith(fields, at, value);
  } catch (err) {
    if (!(err instanceof FileProblems)) throw err;
    problems.push(...err.problems);
  }
  for (const issue of crossField(value)) {
    const path = issue.path ? [...at, issue.path] : at;
    if (!problems.some((p) => p.field === issuePath(path))) problems.push(doc.problem(path, issue.message));
  }
  if (problems.length > 0) throw new FileProblems(problems);
  return parsed!;
}

/**
 * A stack notifier's inputs with its secrets and unknowns replaced: a URL by a placeholder the run repoints, a key
 * or token by a stand-in, a hidden header map by none. A hidden name or body template cannot be stood in for.
 */
function unhideNotifier(
  r: StackResource,
  problem: (field: DocPath, message: string) => void,
): { inputs: Record<string, unknown>; urlHidden: boolean; standIn?: string } {
  const inputs = structuredClone(r.inputs);
  let urlHidden = false;
  /** The fields given a stand-in value, for the run's warning. */
  const stoodIn: string[] = [];
  // The engine prints the whole `properties` as one secret when any field in it is secret (the native provider's
  // preview: `"properties": "[secret]"`), so not even the channel shows. The notifier then runs as a plain webhook
  // to the receiver: its wiring and timing are tested, not its channel's own request.
  if (inputs.properties === SECRET || inputs.properties === UNKNOWN) {
    inputs.properties = { webhook: { url: HIDDEN_URL } };
    return {
      inputs,
      urlHidden: true,
      standIn: `the preview shows its properties as ${inputs.properties === UNKNOWN ? "unknown" : SECRET}, so not even its channel is known: it runs as a plain webhook to the test's receiver, which tests its wiring and timing, not its channel's own request; declare it under notifiers: (same resource name) to test that`,
    };
  }
  const properties = inputs.properties;
  if (isObject(properties)) {
    for (const [channel, config] of Object.entries(properties)) {
      if (!isObject(config)) continue;
      for (const [field, value] of Object.entries(config)) {
        if (hiddenPaths(value).length === 0) continue;
        if (URL_FIELDS[channel] === field) {
          config[field] = HIDDEN_URL;
          urlHidden = true;
        } else if (field === "headers" || field === "secretHeaders") {
          if (!isObject(value)) config[field] = {};
          else
            for (const [h, v] of Object.entries(value))
              if (v === UNKNOWN || v === SECRET) {
                value[h] = STAND_IN_SECRET;
                stoodIn.push(`${channel}.${field}.${h}`);
              }
        } else if (typeof value === "string") {
          if (field === "body" || field === "emails")
            problem(
              ["properties", channel, field],
              "is secret or unknown at preview; declare the notifier under notifiers: in the test file",
            );
          else {
            config[field] = STAND_IN_SECRET;
            stoodIn.push(`${channel}.${field}`);
          }
        } else {
          problem(
            ["properties", channel, field],
            "is secret or unknown at preview; declare the notifier under notifiers: in the test file",
          );
        }
      }
    }
  }
  for (const path of hiddenPaths(inputs)) {
    if (path[0] !== "properties")
      problem(
        path,
        "is secret or unknown at preview; declare the notifier under notifiers: in the test file",
      );
  }
  return {
    inputs,
    urlHidden,
    standIn:
      stoodIn.length > 0
        ? `the preview shows ${stoodIn.join(", ")} as ${SECRET}: the test sends ${JSON.stringify(STAND_IN_SECRET)} in ${stoodIn.length === 1 ? "its" : "their"} place, so the request is tested, not the real ${stoodIn.length === 1 ? "value" : "values"}`
        : undefined,
  };
}

/** Every name a notifier of the test answers to: resource names and names. */
export function notifierNames(notifiers: ReadonlyMap<string, TestNotifier>): string[] {
  return [...notifiers.values()].flatMap((n) => [n.key, n.inputs.name]);
}

/** What naming a refused entry says: that it was refused, and its first problem, where. */
export function refusedMessage(kind: string, name: string, why: Problem): string {
  const where =
    why.line === undefined ? why.file : `${why.file}:${why.line}${why.column ? `:${why.column}` : ""}`;
  // The reason's first clause: the whole of it is printed on its own line, where `where` points.
  const reason = why.message.split("; ")[0];
  return `names ${kind} ${name}, which this test refused at ${where} (${why.field ? `${why.field}: ` : ""}${reason})`;
}

/**
 * The resource's operator message names every operator, AboveOrBelow included, which only an anomaly monitor may
 * use: for any other, the ones it may use, and the nearest of them.
 */
function operatorProblem(p: Problem, inputs: Record<string, unknown>): Problem {
  if (
    !/(^|[.: ])operator$/.test(p.field) ||
    !p.message.startsWith("must be one of") ||
    inputs.type === "AnomalyDetection"
  )
    return p;
  const allowed = MONITOR_OPERATORS.filter((o) => o !== "AboveOrBelow");
  const given = typeof inputs.operator === "string" ? inputs.operator : "";
  return {
    ...p,
    message: `must be one of ${allowed.join(", ")} (AboveOrBelow is only for AnomalyDetection)${didYouMean(given, allowed)}`,
  };
}

/**
 * A custom webhook's body refused for its template (`template: webhook:3: …`, Go names the line only) placed on the
 * template's own line, where the value's start was given.
 */
function templateProblem(p: Problem, place: Place): Problem {
  const line = /template: [^:\s]*:(\d+):/.exec(p.message)?.[1];
  const field = ["properties", "customWebhook", "body"];
  const body = place.doc.valueAt([...place.path, ...field]);
  if (line === undefined || !p.field.endsWith("customWebhook.body") || typeof body !== "string") return p;
  let offset = offsetOf(body, Number(line), 1);
  offset += /^[ \t]*/.exec(body.slice(offset))![0].length;
  return { ...p, ...place.doc.positionInValue([...place.path, ...field], offset) };
}

/** The key a `notifierIds` entry of the file names: `oncall-slack` or `${oncall-slack.id}`. */
function referencedKey(entry: string): string {
  return /^\$\{\s*([^}]+?)\.id\s*\}$/.exec(entry)?.[1] ?? entry;
}

/**
 * The test's model from the file (and its stack's preview, already parsed), and every problem of both documents;
 * an entry with a problem is left out of the model.
 */
export function buildModel(
  file: AlertTestFile,
  doc: SourceDocument,
  preview?: SourceDocument,
): { model: TestModel; problems: Problem[]; refused: Refusals } {
  const problems: Problem[] = [];
  /** The entries left out for a problem of their own, by resource name and name: what names one says why. */
  const refused: Refusals = { monitors: new Map(), notifiers: new Map(), everything: false };
  const refuse = (kind: string, names: unknown[], problem: Problem | undefined) => {
    const into = kind === "Monitor" ? refused.monitors : kind === "Notifier" ? refused.notifiers : undefined;
    if (!into || !problem) return;
    for (const n of names) if (typeof n === "string" && !into.has(n)) into.set(n, problem);
  };
  const leaveOut = (r: StackResource) =>
    refuse(
      r.kind,
      [r.name, r.inputs.name],
      problems.findLast((p) => p.field.startsWith(`${r.kind} ${r.name}`)),
    );
  const stackPlace = (r: StackResource): Place => ({
    doc: preview!,
    path: r.path,
    field: (field) => `${r.kind} ${r.name}${field.length ? `: ${issuePath(field)}` : ""}`,
  });
  const filePlace = (path: DocPath): Place => ({
    doc,
    path,
    field: (field) => issuePath([...path, ...field]),
  });
  const notifiers = new Map<string, TestNotifier>();
  const monitors = new Map<string, TestMonitor>();
  const datasets = new Map<string, TestDataset>();
  const virtualFields: VirtualFieldCreate[] = [];
  /** A stack notifier's known ids, by key, so the file's monitors may name it by id too. */
  const idsOfKey = new Map<string, string[]>();
  const stackMonitors: { r: StackResource; urns: string[] | undefined }[] = [];

  const addDataset = (name: string, mapFields: string[] = []) => {
    const had = datasets.get(name);
    datasets.set(name, { name, mapFields: [...new Set([...(had?.mapFields ?? []), ...mapFields])] });
  };

  if (preview) {
    const read = readPreview(preview);
    problems.push(...read.problems);
    // A document that is no preview declares nothing: what names its resources is not blamed as well.
    if (read.problems.length > 0) refused.everything = true;
    const stackNotifiers = read.resources.filter((r) => r.kind === "Notifier");
    const seen = new Map<string, StackResource>();
    for (const r of read.resources) {
      const clash = seen.get(`${r.kind}:${r.name}`);
      if (clash) {
        problems.push(
          stackProblem(
            preview,
            r,
            [],
            `has the same resource name as ${clash.urn}; a test names resources by name, so declare one of them in the test file under another`,
          ),
        );
        continue;
      }
      seen.set(`${r.kind}:${r.name}`, r);
      const fail = (field: DocPath, message: string) => {
        problems.push(stackProblem(preview, r, field, message));
        leaveOut(r);
      };
      if (r.kind === "Notifier") {
        idsOfKey.set(r.name, r.ids);
        if (file.notifiers && r.name in file.notifiers) continue; // replaced by the file's own
        const { inputs, urlHidden, standIn } = unhideNotifier(r, fail);
        const parsed = parseStack(preview, r, NotifierInputSchema, inputs, problems);
        if (parsed === undefined) leaveOut(r);
        if (parsed === undefined) continue;
        notifiers.set(r.name, {
          key: r.name,
          inputs: parsed as NotifierCreate,
          urlHidden,
          standIn,
          origin: r.urn,
          place: stackPlace(r),
        });
        idsOfKey.set(r.name, r.ids);
      } else if (r.kind === "Monitor") {
        if (file.monitors && r.name in file.monitors) continue; // replaced by the file's own
        const resolved = resolveStackNotifierIds(r, stackNotifiers);
        if ("problem" in resolved) {
          fail([resolved.field], resolved.problem);
          stackMonitors.push({ r, urns: undefined });
        } else stackMonitors.push({ r, urns: resolved.urns });
      } else if (r.kind === "Dataset") {
        const name = r.inputs.name;
        if (typeof name !== "string" || name === UNKNOWN)
          fail(["name"], "is unknown at preview; list the dataset under datasets: in the test file");
        else
          addDataset(
            name,
            Array.isArray(r.inputs.mapFields)
              ? r.inputs.mapFields.filter((f): f is string => typeof f === "string")
              : [],
          );
      } else {
        const hidden = hiddenPaths(r.inputs);
        if (hidden.length > 0) {
          fail(
            hidden[0],
            "is secret or unknown at preview; declare the field under virtualFields: in the test file",
          );
          continue;
        }
        const parsed = parseStack(preview, r, VirtualFieldInputSchema, r.inputs, problems);
        if (parsed === undefined) leaveOut(r);
        if (parsed !== undefined) virtualFields.push(parsed);
      }
    }
  }

  for (const [key, value] of Object.entries(file.notifiers ?? {})) {
    try {
      const inputs = parseInline(doc, ["notifiers", key], value, NotifierFieldsSchema, (v) =>
        notifierCrossFieldIssues(isObject(v) ? v : {}),
      ) as NotifierCreate;
      notifiers.set(key, {
        key,
        inputs,
        urlHidden: false,
        origin: `${doc.file}:${doc.lineOf(["notifiers", key])}`,
        place: filePlace(["notifiers", key]),
      });
    } catch (err) {
      if (!(err instanceof FileProblems)) throw err;
      const own = err.problems.map((p) => templateProblem(p, filePlace(["notifiers", key])));
      problems.push(...own);
      refuse("Notifier", [key, isObject(value) ? value.name : undefined], own[0]);
    }
  }

  /** The key of the notifier a monitor's entry names, or undefined. */
  const notifierKey = (entry: string): string | undefined => {
    const key = referencedKey(entry);
    if (notifiers.has(key)) return key;
    const byName = [...notifiers.values()].filter((n) => n.inputs.name === entry);
    if (byName.length === 1) return byName[0].key;
    for (const [k, ids] of idsOfKey) if (ids.includes(entry) && notifiers.has(k)) return k;
    return undefined;
  };

  if (preview) {
    for (const { r, urns } of stackMonitors) {
      if (file.monitors && r.name in file.monitors) continue; // replaced by the file's own
      const fail = (field: DocPath, message: string) => {
        problems.push(stackProblem(preview, r, field, message));
        leaveOut(r);
      };
      const inputs: Record<string, unknown> = { ...r.inputs };
      if (urns !== undefined && inputs.notifierIds !== undefined && inputs.notifierIds !== null)
        inputs.notifierIds = urns.map(urnName);
      // Its notifierIds were refused already, naming why.
      if (urns === undefined) continue;
      const hidden = hiddenPaths(inputs);
      if (hidden.length > 0) {
        fail(
          hidden[0],
          "is secret or unknown at preview (computed from another resource's output); declare the monitor under monitors: in the test file",
        );
        continue;
      }
      const before = problems.length;
      const parsed = parseStack(preview, r, MonitorInputSchema, inputs, problems);
      for (let i = before; i < problems.length; i++) problems[i] = operatorProblem(problems[i], inputs);
      if (parsed === undefined) leaveOut(r);
      if (parsed !== undefined)
        monitors.set(r.name, {
          key: r.name,
          inputs: parsed as MonitorCreate,
          origin: r.urn,
          place: stackPlace(r),
        });
    }
  }

  for (const [k, value] of Object.entries(file.monitors ?? {})) {
    try {
      const inputs = parseInline(doc, ["monitors", k], value, MonitorFieldsSchema, (v) =>
        monitorCrossFieldIssues(isObject(v) ? v : {}),
      ) as MonitorCreate;
      const ids: string[] = [];
      for (const [i, entry] of (inputs.notifierIds ?? []).entries()) {
        const found = notifierKey(entry);
        const why = refused.notifiers.get(referencedKey(entry)) ?? refused.notifiers.get(entry);
        if (found === undefined) {
          problems.push(
            doc.problem(
              ["monitors", k, "notifierIds", i],
              why
                ? refusedMessage("notifier", referencedKey(entry), why)
                : `names no notifier of this test (${[...notifiers.keys()].join(", ") || "none declared"}): give a notifier's resource name or name${didYouMean(referencedKey(entry), notifierNames(notifiers))}`,
            ),
          );
        } else ids.push(found);
      }
      monitors.set(k, {
        key: k,
        inputs: { ...inputs, notifierIds: ids },
        origin: `${doc.file}:${doc.lineOf(["monitors", k])}`,
        place: filePlace(["monitors", k]),
      });
    } catch (err) {
      if (!(err instanceof FileProblems)) throw err;
      const own = err.problems.map((p) => operatorProblem(p, isObject(value) ? value : {}));
      problems.push(...own);
      refuse("Monitor", [k, isObject(value) ? value.name : undefined], own[0]);
    }
  }

  for (const [k, value] of Object.entries(file.virtualFields ?? {})) {
    try {
      virtualFields.push(doc.parseWith(VirtualFieldInputSchema, ["virtualFields", k], value));
    } catch (err) {
      if (err instanceof FileProblems) problems.push(...err.problems);
      else throw err;
    }
  }

  for (const name of file.datasets ?? []) addDataset(name);
  for (const [i, entry] of (file.events ?? []).entries()) {
    if (entry === undefined) continue; // refused by the file's schema, which said why
    const name =
      "generate" in entry ? entry.generate.dataset : "replay" in entry ? entry.replay.dataset : entry.dataset;
    if (DatasetNameSchema.safeParse(name).success) addDataset(name);
    else problems.push(doc.problem(["events", i, "dataset"], "must be a dataset name"));
  }
  for (const vf of virtualFields) addDataset(vf.dataset);

  return {
    model: {
      monitors: [...monitors.values()],
      notifiers: [...notifiers.values()],
      datasets: [...datasets.values()],
      virtualFields,
    },
    problems,
    refused,
  };
}
