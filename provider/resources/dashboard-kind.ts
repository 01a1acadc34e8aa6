/**
 * How the lifecycle engine handles Dashboard (its declaration), apart from the Resource class in dashboard.ts, which
 * imports @pulumi/pulumi: the native provider plugin loads this file and not that one (kinds.ts).
 */
import type { ObservabilityClient } from "../client";
import { NotFoundError, PreconditionFailedError } from "../client/errors";
import type { CrudFamily } from "../client/resources/base";
import {
  DASHBOARD_DOCUMENT_KEYS,
  DASHBOARD_OWNER_EVERYONE,
  DASHBOARD_SERVER_KEYS,
  DashboardInputSchema,
  DashboardUpsertShapeSchema,
  dashboardCrossFieldIssues,
  type CrossFieldIssue,
  type Dashboard as ApiDashboard,
} from "../schemas";
import { inputChanges } from "./descriptor";
import { declareKind, fromSchema, requestBody, type Props, UNKNOWN } from "./lifecycle";
import { dropUndefined, isPlainObject } from "./values";

export const OUTPUT_KEYS = [
  "uid",
  "dashboard",
  "dashboardId",
  "version",
  "createdAt",
  "updatedAt",
  "createdBy",
  "updatedBy",
  "adopt",
] as const;
/** Inputs that are how to write, not what: never compared. */
const PROVIDER_OPTIONS = ["overwrite", "message"] as const;

/** A dashboard as the lifecycle holds it: its `id` is its uid, the resource's id. */
type DashboardObject = Omit<ApiDashboard, "id"> & { id: string; dashboardId?: string };

const toObject = (d: ApiDashboard): DashboardObject => {
  const { id, ...rest } = d;
  return { ...rest, id: d.uid, dashboardId: id };
};

/** The document as sent: without the keys the service manages. */
function sendable(doc: unknown): Props {
  if (!isPlainObject(doc)) return doc as Props;
  const out = { ...doc };
  for (const key of DASHBOARD_SERVER_KEYS) delete out[key];
  return out;
}

/**
 * The form a document compares in: the service's keys and unknown keys dropped, the default owner and the
 * defaults of `description`, `against`, `againstTimestamp` and `overrides` spelled one way, charts and layout
 * items in id order, a monitor list's monitors sorted.
 */
function canonicalDocument(doc: unknown): unknown {
  if (!isPlainObject(doc)) return doc;
  const out: Props = {};
  for (const key of DASHBOARD_DOCUMENT_KEYS) if (doc[key] !== undefined) out[key] = doc[key];
  for (const key of DASHBOARD_SERVER_KEYS) delete out[key];
  if (
    out.owner === undefined ||
    (typeof out.owner === "string" && out.owner.toUpperCase() === DASHBOARD_OWNER_EVERYONE)
  )
    out.owner = DASHBOARD_OWNER_EVERYONE;
  for (const key of ["description", "against", "againstTimestamp"]) if (out[key] === "") delete out[key];
  if (isPlainObject(out.overrides) && Object.keys(out.overrides).length === 0) delete out.overrides;
  const byKey = (key: string) => (a: unknown, b: unknown) => {
    const ka = isPlainObject(a) ? String(a[key]) : "";
    const kb = isPlainObject(b) ? String(b[key]) : "";
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  };
  if (Array.isArray(out.charts))
    out.charts = out.charts
      .map((c) =>
        isPlainObject(c) && Array.isArray(c.selectedMonitors)
          ? { ...c, selectedMonitors: [...c.selectedMonitors].sort() }
          : c,
      )
      .sort(byKey("id"));
  if (Array.isArray(out.layout)) out.layout = [...out.layout].sort(byKey("i"));
  return out;
}

/** The kind's comparison: the document canonical, the provider options dropped. */
function canonicalize(inputs: Props): Props {
  const out = { ...inputs };
  for (const key of PROVIDER_OPTIONS) delete out[key];
  if (out.dashboard !== undefined) out.dashboard = canonicalDocument(out.dashboard);
  return out;
}

/** The cross-references, with values not yet known (preview) treated as not judgeable. */
function crossField(inputs: Props): CrossFieldIssue[] {
  const unknownToUndefined = (v: unknown): unknown =>
    v === UNKNOWN
      ? undefined
      : Array.isArray(v)
        ? v.map(unknownToUndefined)
        : isPlainObject(v)
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, unknownToUndefined(x)]))
          : v;
  return dashboardCrossFieldIssues({ ...inputs, dashboard: unknownToUndefined(inputs.dashboard) });
}

/** The inputs of a dashboard the service holds: its uid and the document's known keys. */
function toInputs(obj: DashboardObject): Props {
  const doc: Props = {};
  if (isPlainObject(obj.dashboard)) {
    for (const key of DASHBOARD_DOCUMENT_KEYS)
      if (obj.dashboard[key] !== undefined) doc[key] = obj.dashboard[key];
    for (const key of DASHBOARD_SERVER_KEYS) delete doc[key];
  }
  return { uid: obj.uid, dashboard: doc };
}

function toOutputs(obj: DashboardObject): Props {
  return dropUndefined({
    uid: obj.uid,
    dashboard: obj.dashboard,
    dashboardId: obj.dashboardId,
    version: obj.version,
    createdAt: obj.createdAt,
    updatedAt: obj.updatedAt,
    createdBy: obj.createdBy,
    updatedBy: obj.updatedBy,
  });
}

/** The request body from normalized inputs: the document without the service's keys, `overwrite` only when
 * set. */
function toBody(inputs: Props): Props {
  return dropUndefined({
    uid: inputs.uid,
    dashboard: sendable(inputs.dashboard),
    overwrite: inputs.overwrite === true ? true : undefined,
    message: inputs.message,
  });
}

/** The error for a 412: the dashboard changed elsewhere since it was last read. */
function changedElsewhereError(uid: string, sent: unknown, e: PreconditionFailedError): Error {
  const now =
    e.currentVersion !== undefined ? `; the service now holds version ${String(e.currentVersion)}` : "";
  return new Error(
    `${uid} was changed outside Pulumi since it was last read (the update was based on version ` +
      `${String(sent)}${now}), so the service refused it (412). Run \`pulumi refresh\` to see the change, then ` +
      "`pulumi up` applies the declared document over it; or set `overwrite: true` on this resource to write " +
      "the declared document over any change made elsewhere",
  );
}

/** The body of a PUT: the upsert's without `uid`, which the path carries. */
const UPDATE_SHAPE = DashboardUpsertShapeSchema.omit({ uid: true });

/**
 * The lifecycle's verbs on the dashboards family. An update sends the version of the prior outputs (the last
 * create, update or refresh), or `overwrite: true` when declared; a 412 becomes {@link changedElsewhereError},
 * unless the dashboard already holds exactly the declared document (a resent PUT whose first attempt was
 * applied meets its own new version).
 */
function family(client: ObservabilityClient, olds: Props): CrudFamily<DashboardObject, Props> {
  const api = client.dashboards;
  return {
    get: async (uid) => toObject(await api.get(uid)),
    create: async (body) =>
      toObject((await api.create(requestBody(DashboardUpsertShapeSchema, body))).dashboard),
    update: async (uid, body) => {
      const { uid: _uid, ...rest } = body;
      const overwrite = rest.overwrite === true;
      const sent = olds.version;
      const request = requestBody(UPDATE_SHAPE, overwrite ? rest : { ...rest, version: sent });
      try {
        return toObject((await api.update(uid, request)).dashboard);
      } catch (e) {
        if (!(e instanceof PreconditionFailedError)) throw e;
        const now = toObject(await api.get(uid));
        const same = inputChanges(declaration.rules, toInputs(now), { uid, dashboard: rest.dashboard });
        if (same.diffs.length === 0) return now;
        throw changedElsewhereError(uid, sent, e);
      }
    },
    delete: (uid) => api.delete(uid),
  };
}

/** The dashboard of `uid`, or none: what an uncertain create of a declared uid may have made. */
async function byUid(client: ObservabilityClient, uid: string): Promise<DashboardObject[]> {
  try {
    return [toObject(await client.dashboards.get(uid))];
  } catch (e) {
    if (e instanceof NotFoundError) return [];
    throw e;
  }
}

/** How the lifecycle engine handles dashboards. */
export const declaration = declareKind<DashboardObject, "Dashboard">({
  kind: "Dashboard",
  ...fromSchema(DashboardInputSchema),
  // Left out, the uid is the service's: not compared until declared.
  serverSet: ["uid"],
  setPaths: [],
  replaceKeys: ["uid"],
  // A declared uid is unique in the organization, and only a declared uid is compared (serverSet), so every
  // replacement this diff decides concerns one: deleted first, as the dynamic class does.
  deleteBeforeReplace: true,
  adoptable: true,
  crossField,
  canonicalize,
  family,
  toBody,
  toInputs,
  toOutputs,
  // A uid is unique: a declared one is looked up by uid (absent before the POST, there after it). Without one
  // the service assigns it, and a listing of every dashboard is compared with the baseline and the body.
  reconcile: {
    list: (client, declared) =>
      typeof declared.uid === "string"
        ? byUid(client, declared.uid)
        : client.dashboards.listAll().then((all) => all.map(toObject)),
    listedBy: (declared) => (typeof declared.uid === "string" ? `uid ${declared.uid}` : ""),
    timed: () => false,
  },
  // Every page of the dashboards the token sees, each mapped as a GET's (its uid as id). A private dashboard
  // the listing leaves out is read by its GET.
  readAll: {
    listedBy: () => "",
    list: (client) => client.dashboards.listAll().then((all) => all.map(toObject)),
  },
});
