/**
 * Datasets: `/v2/datasets[/{id}]`, with `/fields[/{field}]`, `/mapfields[/{name}]`, `/trim` and `/vacuum`
 * (OpenAPI v2 operations getDatasets … vacuumDataset). The id is the name, and the event
 * store keeps each dataset's events under that same name: ingest and queries need the dataset to exist (404
 * otherwise), and deleting it deletes its events.
 */
import {
  DatasetCreateSchema,
  DatasetFieldUpdateSchema,
  DatasetUpdateSchema,
  DEFAULT_DATASET_KIND,
  MapFieldSchema,
  MapFieldsSchema,
  TrimSchema,
  parseGoDurationMs,
  type DatasetCreate,
  type EdgeDeployment,
} from "../../provider/schemas";
import { datasetNeed } from "../auth";
import { catalogOf } from "../catalog";
import type { EmulatorContext } from "../context";
import {
  HttpError,
  NOT_FOUND_MESSAGE,
  json,
  jsonBody,
  jsonObjectBody,
  noContent,
  validateBody,
  type RequestContext,
} from "../http";
import { LOCAL_USER, type Collection, type StoredObject } from "../state";
import type { StoredEvent } from "../store/events";
import { formatNs } from "../time";
import { compact, getOr404, type CollectionFamily } from "./common";
import { EDGE_DEPLOYMENTS } from "./orgs";

/** The collection's name in the state and the data file. */
export const DATASETS = "datasets";

/** Where a stored dataset keeps its fields' settings (description, unit, hidden); replies leave it out. */
const FIELD_SETTINGS = "fieldSettings";

/** Seconds a dataset must wait between two vacuums; sooner is the documented 429 with `Retry-After`. */
export const VACUUM_INTERVAL_S = 5;

/** Now, RFC 3339 with all nine fraction digits, as the service writes `created` (axiom-go datasets_test.go:380). */
function stampNow(em: EmulatorContext): string {
  return formatNs(em.clock.nowNs()).replace(
    /(?:\.(\d+))?Z$/,
    (_m, f: string | undefined) => `.${(f ?? "").padEnd(9, "0")}Z`,
  );
}

/** The organization's license edge deployments and its default, read from the stored org. */
function edgeDeployments(em: EmulatorContext): { list: EdgeDeployment[]; default?: string } {
  const org = em.state.collection("orgs").get(em.orgId);
  const license = (org?.license ?? {}) as { edgeDeployments?: unknown; defaultEdgeDeployment?: unknown };
  const list = Array.isArray(license.edgeDeployments)
    ? (license.edgeDeployments as unknown[]).map((e) =>
        // The license lists ids (OpenAPI `License`); an older data file may hold the objects themselves.
        typeof e === "string"
          ? (EDGE_DEPLOYMENTS.find((d) => d.id === e) ?? { id: e })
          : (e as EdgeDeployment),
      )
    : [];
  const fallback = typeof org?.defaultEdgeDeployment === "string" ? org.defaultEdgeDeployment : undefined;
  const dflt = typeof license.defaultEdgeDeployment === "string" ? license.defaultEdgeDeployment : fallback;
  return { list, default: dflt };
}

/** A new dataset object, as `POST /v2/datasets` makes it (also the emulator's `--dataset` and `datasets` option). */
export function newDataset(em: EmulatorContext, raw: unknown, trusted = false): StoredObject {
  // Trusted: a name an older data file holds events under, kept even where today's name rule refuses it.
  const body = trusted
    ? (raw as { name: string } & Partial<DatasetCreate>)
    : validateBody(DatasetCreateSchema, raw);
  const col = em.state.collection(DATASETS);
  if (col.get(body.name)) throw new HttpError(409, `name: a dataset named "${body.name}" already exists`);
  const edges = edgeDeployments(em);
  const edgeDeployment = body.edgeDeployment ?? edges.default;
  const edge = edges.list.find((e) => e.id === edgeDeployment);
  if (body.edgeDeployment !== undefined && edges.list.length > 0 && !edge) {
    const known = edges.list.map((e) => e.id).join(", ");
    throw new HttpError(422, `edgeDeployment: must be one of the license's edge deployments (${known})`);
  }
  const now = stampNow(em);
  return compact({
    id: body.name,
    name: body.name,
    kind: body.kind ?? DEFAULT_DATASET_KIND,
    description: body.description ?? "",
    retentionDays: body.retentionDays ?? 0,
    useRetentionPeriod: body.useRetentionPeriod ?? false,
    edgeDeployment,
    edgeDeploymentUrl: edge?.domain ? `https://${edge.domain}` : undefined,
    mapFields: [],
    canWrite: true,
    created: now,
    updatedAt: now,
    who: LOCAL_USER,
    [FIELD_SETTINGS]: {},
  }) as StoredObject;
}

/**
 * Creates `name` unless it exists: the emulator's `--dataset` and `datasets` option, and (`trusted`) the datasets
 * an older data file holds events of without a dataset object.
 */
export function ensureDataset(em: EmulatorContext, name: string, trusted = false): void {
  if (em.state.collection(DATASETS).get(name)) return;
  em.state.collection(DATASETS).set(newDataset(em, { name }, trusted));
}

/** Whether a dataset of this name was created (ingest and queries answer 404 otherwise): the catalog's answer. */
export function datasetExists(em: EmulatorContext, name: string): boolean {
  return catalogOf(em.state).exists(name);
}

/** The map fields of a dataset (none when it does not exist). */
export function datasetMapFields(em: EmulatorContext, name: string): string[] {
  const mapFields = em.state.collection(DATASETS).get(name)?.mapFields;
  return Array.isArray(mapFields) ? (mapFields as string[]) : [];
}

/** The type of one value as the fields list names it. */
function typeOf(v: unknown): string | undefined {
  if (v === null || v === undefined) return undefined;
  if (typeof v === "string") return "string";
  if (typeof v === "boolean") return "boolean";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "float";
  if (Array.isArray(v)) return "array";
  return "map";
}

/**
 * The fields ingest has stored in `events`. Ingest flattened nested objects into dotted names (`req.status`)
 * except under a map field, so a stored object is a map field's value and lists as one field of type `map`,
 * also after the map field was removed (axiomhq/axiom-go axiom/datasets_integration_test.go,
 * TestIngestWithMapFields). A field seen with more than one type lists them joined by `|`.
 */
export function seenFields(events: readonly StoredEvent[]): Map<string, Set<string>> {
  const fields = new Map<string, Set<string>>();
  if (events.length === 0) return fields;
  fields.set("_time", new Set(["datetime"]));
  fields.set("_sysTime", new Set(["datetime"]));
  for (const e of events) {
    for (const name in e.data) {
      const type = typeOf(e.data[name]);
      if (type === undefined) continue;
      let types = fields.get(name);
      if (!types) fields.set(name, (types = new Set()));
      types.add(type);
    }
  }
  return fields;
}

/** `POST <path>/:id/trim`: drops the events older than `maxDuration`, at once. */
function trimDataset(em: EmulatorContext, col: Collection, ctx: RequestContext): void {
  const ds = getOr404(col, ctx.params.id);
  const { maxDuration } = validateBody(TrimSchema, jsonObjectBody(ctx));
  const ms = parseGoDurationMs(maxDuration)!;
  em.store.trim(ds.id, em.clock.nowNs() - BigInt(Math.round(ms * 1e6)));
  em.changed();
}

/** The dataset family. */
export const datasets: CollectionFamily = {
  name: DATASETS,
  idPrefix: "ds_",
  path: "/v2/datasets",
  capability: "datasets",
  routes: (col: Collection, em: EmulatorContext) => {
    const lastVacuum = new Map<string, number>();

    const fieldsOf = (ds: StoredObject) => {
      const settings = (ds[FIELD_SETTINGS] ?? {}) as Record<string, Record<string, unknown>>;
      const seen = seenFields(em.store.events(ds.id) ?? []);
      return [...seen].map(([name, types]) =>
        compact({
          name,
          type: [...types].sort().join("|"),
          description: "",
          unit: "",
          hidden: false,
          ...settings[name],
        }),
      );
    };

    /** Stores `ds` with new map fields (the service's dataset lists them as `mapFields`). */
    const setMapFields = (ds: StoredObject, names: string[]) => {
      col.set({ ...ds, mapFields: names, updatedAt: stampNow(em) });
      em.changed();
    };

    return {
      // Replies leave out the field settings the stored dataset keeps for its fields routes.
      view: ({ [FIELD_SETTINGS]: _settings, ...shown }) => shown,
      create: (raw) => newDataset(em, raw),
      update: (raw, current) => {
        const body = validateBody(DatasetUpdateSchema, raw);
        // A field left out keeps its value: the document's own example sends only description and retention.
        return compact({ ...current, ...body, updatedAt: stampNow(em) }) as StoredObject;
      },
      onDelete: (id) => {
        em.store.drop(id);
        lastVacuum.delete(id);
      },
      more: (router) => {
        const item = "/v2/datasets/:id";

        router.add("GET", `${item}/fields`, (ctx) => json(fieldsOf(getOr404(col, ctx.params.id))));

        router.add("GET", `${item}/fields/:field`, (ctx) => {
          const field = fieldsOf(getOr404(col, ctx.params.id)).find((f) => f.name === ctx.params.field);
          if (!field) throw new HttpError(404, NOT_FOUND_MESSAGE);
          return json(field);
        });

        router.add("PUT", `${item}/fields/:field`, (ctx) => {
          const ds = getOr404(col, ctx.params.id);
          const field = fieldsOf(ds).find((f) => f.name === ctx.params.field);
          if (!field) throw new HttpError(404, NOT_FOUND_MESSAGE);
          const body = validateBody(DatasetFieldUpdateSchema, jsonObjectBody(ctx));
          if (body.name !== field.name) {
            throw new HttpError(422, `name: must be the field's own name "${field.name}"`);
          }
          // Only the settings change; the type is what ingest has seen.
          const settings = { ...((ds[FIELD_SETTINGS] ?? {}) as Record<string, unknown>) };
          settings[field.name] = compact({
            description: body.description,
            unit: body.unit,
            hidden: body.hidden,
          });
          col.set({ ...ds, [FIELD_SETTINGS]: settings });
          em.changed();
          return json(fieldsOf(col.get(ds.id)!).find((f) => f.name === field.name));
        });

        router.add("GET", `${item}/mapfields`, (ctx) => json(getOr404(col, ctx.params.id).mapFields ?? []));

        router.add("PUT", `${item}/mapfields`, (ctx) => {
          const ds = getOr404(col, ctx.params.id);
          const names = validateBody(MapFieldsSchema, jsonBody(ctx));
          setMapFields(ds, names);
          return json(names);
        });

        router.add("POST", `${item}/mapfields`, (ctx) => {
          const ds = getOr404(col, ctx.params.id);
          const { name } = validateBody(MapFieldSchema, jsonObjectBody(ctx));
          const current = (ds.mapFields as string[]) ?? [];
          if (current.includes(name)) throw new HttpError(409, `name: map field "${name}" already exists`);
          setMapFields(ds, [...current, name]);
          return json({ name });
        });

        router.add("DELETE", `${item}/mapfields/:name`, (ctx) => {
          const ds = getOr404(col, ctx.params.id);
          const current = (ds.mapFields as string[]) ?? [];
          if (!current.includes(ctx.params.name)) throw new HttpError(404, NOT_FOUND_MESSAGE);
          setMapFields(
            ds,
            current.filter((n) => n !== ctx.params.name),
          );
          return noContent();
        });

        // v2 answers 204 without a body (OpenAPI `trimDataset`); the deletion happens at once here.
        router.add(
          "POST",
          `${item}/trim`,
          (ctx) => {
            trimDataset(em, col, ctx);
            return noContent();
          },
          (ctx) => datasetNeed("trim", "update", [ctx.params.id]),
        );

        // 200 "VacuumResult" (no schema in the document: an empty object), or 429 with Retry-After.
        router.add(
          "POST",
          `${item}/vacuum`,
          (ctx) => {
            const ds = getOr404(col, ctx.params.id);
            const now = em.clock.nowMs();
            const last = lastVacuum.get(ds.id);
            if (last !== undefined && now - last < VACUUM_INTERVAL_S * 1000) {
              const wait = Math.ceil((last + VACUUM_INTERVAL_S * 1000 - now) / 1000);
              return {
                status: 429,
                body: { code: 429, message: `too many vacuum requests; retry after ${wait}s` },
                headers: { "retry-after": String(wait) },
              };
            }
            lastVacuum.set(ds.id, now);
            return json({});
          },
          (ctx) => datasetNeed("vacuum", "update", [ctx.params.id]),
        );
      },
    };
  },
};

/**
 * The v1 dataset routes (the OpenAPI document axiomhq/docs content/docs/(api-reference)/restapi/versions/v1.json:
 * `GET|POST /v1/datasets`, `GET|PUT|DELETE /v1/datasets/{dataset_name}`, `POST /v1/datasets/{dataset_name}/trim`),
 * which axiomhq/axiom-py src/axiom_py/datasets.py uses for all its dataset calls. They serve the same datasets as
 * `/v2/datasets`; only trim differs, answering 200 with a `TrimResult` (`numDeleted`, deprecated and always 0 on
 * the service) where v2 answers 204. Registered beside the family, not as one: the datasets are v2's collection.
 */
export const datasetsV1: CollectionFamily = {
  ...datasets,
  path: "/v1/datasets",
  routes: (col: Collection, em: EmulatorContext) => ({
    ...datasets.routes(col, em),
    more: (router) => {
      router.add(
        "POST",
        "/v1/datasets/:id/trim",
        (ctx) => {
          trimDataset(em, col, ctx);
          return json({ numDeleted: 0 });
        },
        (ctx) => datasetNeed("trim", "update", [ctx.params.id]),
      );
    },
  }),
};
