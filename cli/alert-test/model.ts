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
import { FileProblems, type DocPath, type Problem, type SourceDocument } from "./source";
import {
  hiddenPaths,
  readPreview,
  resolveStackNotifierIds,
  SECRET,
  UNKNOWN,
  urnName,
  type StackResource,
} from "./stack";

/** In `leftOut`: the whole stack could not be read, so any name may have been its. */
export const EVERYTHING = "*";

/** A notifier of the test. */
export interface TestNotifier {
  /** Its resource name: the key under `notifiers:`, or the name in its URN. */
  key: string;
  inputs: NotifierCreate;
  /** Whether its URL was a secret or unknown in the preview, so it must go to the receiver whatever `deliver` says. */
  urlHidden: boolean;
  /** Where it was declared, for messages. */
  origin: string;
}

/** A monitor of the test; `inputs.notifierIds` hold notifier keys until the run maps them to ids. */
export interface TestMonitor {
  key: string;
  inputs: MonitorCreate;
  origin: string;
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
): { inputs: Record<string, unknown>; urlHidden: boolean } {
  const inputs = structuredClone(r.inputs);
  let urlHidden = false;
  // The engine prints the whole `properties` as one secret when any field in it is secret (the native provider's
  // preview: `"properties": "[secret]"`), so not even the channel shows. The notifier then runs as a plain webhook
  // to the receiver: its wiring and timing are tested, not its channel's own request.
  if (inputs.properties === SECRET || inputs.properties === UNKNOWN) {
    inputs.properties = { webhook: { url: HIDDEN_URL } };
    return { inputs, urlHidden: true };
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
              if (v === UNKNOWN || v === SECRET) value[h] = STAND_IN_SECRET;
        } else if (typeof value === "string") {
          if (field === "body" || field === "emails")
            problem(
              ["properties", channel, field],
              "is secret or unknown at preview; declare the notifier under notifiers: in the test file",
            );
          else config[field] = STAND_IN_SECRET;
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
  return { inputs, urlHidden };
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
): { model: TestModel; problems: Problem[]; leftOut: Set<string> } {
  const problems: Problem[] = [];
  /** Resource names and names of the entries left out for a problem of their own, so nothing else blames them. */
  const leftOut = new Set<string>();
  const leaveOut = (r: StackResource) => {
    leftOut.add(r.name);
    if (typeof r.inputs.name === "string") leftOut.add(r.inputs.name);
  };
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
    if (read.problems.length > 0) leftOut.add(EVERYTHING);
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
        const { inputs, urlHidden } = unhideNotifier(r, fail);
        const parsed = parseStack(preview, r, NotifierInputSchema, inputs, problems);
        if (parsed === undefined) leaveOut(r);
        if (parsed === undefined) continue;
        notifiers.set(r.name, { key: r.name, inputs: parsed as NotifierCreate, urlHidden, origin: r.urn });
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
      });
    } catch (err) {
      if (err instanceof FileProblems) problems.push(...err.problems);
      else throw err;
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
      const parsed = parseStack(preview, r, MonitorInputSchema, inputs, problems);
      if (parsed === undefined) leaveOut(r);
      if (parsed !== undefined)
        monitors.set(r.name, { key: r.name, inputs: parsed as MonitorCreate, origin: r.urn });
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
        if (found === undefined) {
          problems.push(
            doc.problem(
              ["monitors", k, "notifierIds", i],
              `names no notifier of this test (${[...notifiers.keys()].join(", ") || "none declared"}): give a notifier's resource name or name`,
            ),
          );
        } else ids.push(found);
      }
      monitors.set(k, {
        key: k,
        inputs: { ...inputs, notifierIds: ids },
        origin: `${doc.file}:${doc.lineOf(["monitors", k])}`,
      });
    } catch (err) {
      if (err instanceof FileProblems) problems.push(...err.problems);
      else throw err;
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
    const name = "generate" in entry ? entry.generate.dataset : entry.dataset;
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
    leftOut,
  };
}
