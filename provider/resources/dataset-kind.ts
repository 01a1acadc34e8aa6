/**
 * How the lifecycle engine handles Dataset (its declaration), apart from the Resource class in dataset.ts, which
 * imports @pulumi/pulumi: the native provider plugin loads this file and not that one (kinds.ts).
 */
import type { ObservabilityClient } from "../client";
import type { CrudFamily } from "../client/resources/base";
import {
  DatasetCreateSchema,
  DatasetInputSchema,
  DatasetUpdateSchema,
  fieldNames,
  type Dataset as ApiDataset,
} from "../schemas";
import { cancellationSignalled } from "./cancellation";
import { CreateLanded, declareKind, fromSchema, requestBody, type Props } from "./lifecycle";
import { dropUndefined, pick, stableStringify } from "./values";

const INPUT_KEYS = fieldNames(DatasetInputSchema);
export const OUTPUT_KEYS = [
  ...INPUT_KEYS,
  "edgeDeploymentUrl",
  "created",
  "updatedAt",
  "who",
  "canWrite",
  "adopt",
] as const;

/** The fields the dataset's PUT takes (axiom-go `DatasetUpdateRequest`): never `edgeDeployment`. */
const UPDATE_KEYS = ["description", "retentionDays", "useRetentionPeriod"] as const;
/** The fields its POST takes; map fields go through `/mapfields` after it. */
const CREATE_KEYS = ["name", "kind", "edgeDeployment", ...UPDATE_KEYS] as const;
/** Fields no PUT changes: a difference in them replaces the dataset (or, on adopt, is refused). */
const FIXED_KEYS = ["name", "kind", "edgeDeployment"] as const;

/**
 * An object a reconciling listing found, with the map fields the declared body asks for: only the comparison
 * reads them (map fields are set by a request after the POST, so an uncertain POST made a dataset without
 * them), while outputs keep the map fields the dataset has, and the next `pulumi up` applies the declared ones.
 */
const DECLARED_MAP_FIELDS = Symbol("declaredMapFields");
type Listed = ApiDataset & { [DECLARED_MAP_FIELDS]?: unknown };

const sameSet = (a: unknown, b: unknown) =>
  stableStringify([...((a as string[]) ?? [])].sort()) ===
  stableStringify([...((b as string[]) ?? [])].sort());

/** Whether a delete of `id` must be refused: the dataset holds data (its fields list is not empty). */
async function refuseDataLoss(client: ObservabilityClient, id: string): Promise<void> {
  // The fields list names what ingest has seen; it is empty until the first event. One request, whatever the
  // dataset's size, and it needs no query capability or time range.
  const fields = await client.datasets.listFields(id);
  if (fields.length === 0) return;
  throw new Error(
    `${id} holds data (${fields.length} fields seen by ingest), and deleting it would delete that data. ` +
      "Set `forceDestroy: true` on this resource (and run `pulumi up` so the state records it) to allow deleting " +
      "it with its data",
  );
}

/** The dataset with the `forceDestroy` given, which the service does not know: the declared or recorded one. */
const withForce = (obj: ApiDataset, forceDestroy: unknown): ApiDataset =>
  (forceDestroy === undefined ? obj : { ...obj, forceDestroy }) as ApiDataset;

/**
 * The dataset family as the lifecycle drives it. `olds` are the prior outputs: `forceDestroy` is read from them
 * on delete and carried through read, since the service does not know it.
 */
function datasetFamily(client: ObservabilityClient, olds: Props): CrudFamily<ApiDataset, Props> {
  const api = client.datasets;
  const applyMapFields = async (id: string, obj: ApiDataset, declared: unknown): Promise<ApiDataset> => {
    if (declared === undefined || sameSet(obj.mapFields, declared)) return obj;
    await api.putMapFields(id, declared as string[]);
    return api.get(id);
  };
  return {
    get: async (id) => withForce(await api.get(id), olds.forceDestroy),
    create: async (body) => {
      const created = await api.create(requestBody(DatasetCreateSchema, pick(body, CREATE_KEYS)));
      // The dataset exists from here on. Map fields take a second request (and a read after it): when that
      // fails, or the engine cancelled in between, the create returns the dataset made, as a partial create
      // that the engine records and the next `pulumi up` finishes by an update (lifecycle.ts).
      const made = withForce(created, body.forceDestroy);
      if (body.mapFields === undefined || sameSet(created.mapFields, body.mapFields)) return made;
      if (cancellationSignalled())
        throw new CreateLanded(made, "its map fields were not set: the operation was cancelled (Ctrl-C)");
      try {
        return withForce(await applyMapFields(created.id, created, body.mapFields), body.forceDestroy);
      } catch (e) {
        throw new CreateLanded(made, e);
      }
    },
    update: async (id, body) => {
      // On adopt, olds are the adopted dataset's: what no PUT can change must already be as declared.
      for (const key of FIXED_KEYS) {
        if (body[key] !== undefined && olds[key] !== undefined && body[key] !== olds[key]) {
          throw new Error(
            `${key}: the object has ${JSON.stringify(olds[key])}, declared ${JSON.stringify(body[key])}; ` +
              `its ${key} never changes in place`,
          );
        }
      }
      const updated = await api.update(id, requestBody(DatasetUpdateSchema, pick(body, UPDATE_KEYS)));
      return withForce(await applyMapFields(id, updated, body.mapFields), body.forceDestroy);
    },
    delete: async (id) => {
      if (olds.forceDestroy !== true) await refuseDataLoss(client, id);
      await api.delete(id);
    },
  };
}

/** @internal How the lifecycle engine handles datasets. */
export const declaration = declareKind<ApiDataset, "Dataset">({
  kind: "Dataset",
  ...fromSchema(DatasetInputSchema),
  setPaths: ["mapFields"],
  // The license's default fills it in when undeclared; declared, it is compared (and read back) like the rest.
  serverSet: ["edgeDeployment"],
  replaceKeys: ["name", "kind", "edgeDeployment"],
  adoptable: true,
  // Names are unique: the replacement could not take the name while the old dataset holds it.
  deleteBeforeReplace: true,
  family: datasetFamily,
  toBody: (inputs) => dropUndefined(inputs),
  toInputs: (obj) => {
    const inputs = pick(obj as Props, INPUT_KEYS);
    const listed = obj as Listed;
    if (listed[DECLARED_MAP_FIELDS] !== undefined) inputs.mapFields = listed[DECLARED_MAP_FIELDS];
    return inputs;
  },
  toOutputs: (obj) => {
    const { [DECLARED_MAP_FIELDS]: _declared, ...outputs } = obj as Listed;
    return outputs;
  },
  // The name is the natural key, as for roles: the baseline listing decides, and a 409 on a resend means the
  // name was taken since, so the dataset of that name is taken when its body matches the declared one. The
  // service stamps `created` (to the nanosecond, axiom-go datasets_test.go), which guards as for monitors.
  reconcile: {
    list: async (client, declared) =>
      (await client.datasets.list()).map((obj): Listed => ({
        ...obj,
        forceDestroy: declared.forceDestroy,
        [DECLARED_MAP_FIELDS]: declared.mapFields,
      })),
    listedBy: () => "",
    timed: () => true,
    createdAt: (obj) => obj.created,
  },
  // The listing holds every dataset, each as its GET returns it; the read carries `forceDestroy` over from the
  // prior outputs, as the family's get does.
  readAll: {
    listedBy: () => "",
    list: (client) => client.datasets.list(),
    asRead: (obj, _id, props) => withForce(obj, props.forceDestroy),
  },
});
