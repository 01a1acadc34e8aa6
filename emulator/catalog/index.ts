/**
 * The catalog: what the query engine needs to know of the datasets besides their events. A dataset exists when
 * it was created (a dataset object of the `datasets` collection, emulator/routes/datasets.ts); its virtual fields
 * are the `virtualFields` objects naming it, oldest first. It sits beside the store so that the query endpoint,
 * monitor runs and backtests ask one place, not the HTTP routes.
 */
import type { AplCatalog } from "../query";
import type { State } from "../state";
import type { EventStoreApi } from "../store/events";

/** The collections the catalog reads (emulator/routes/datasets.ts, virtual-fields.ts keep them). */
const DATASETS = "datasets";
const VIRTUAL_FIELDS = "virtualFields";

/** A dataset's virtual field, as a query computes it. */
export interface CatalogVirtualField {
  name: string;
  expression: string;
}

/** What the catalog answers. */
export interface Catalog extends AplCatalog {
  /** Whether a dataset of this name exists (ingest and queries answer 404 otherwise). */
  exists(name: string): boolean;
  /** The dataset's virtual fields, oldest first. */
  virtualFields(dataset: string): CatalogVirtualField[];
}

/** Whether `state` keeps the collection (a state built for one family in a test may not). */
function has(state: State, name: string): boolean {
  try {
    state.collection(name);
    return true;
  } catch {
    return false;
  }
}

/**
 * The catalog of an emulator's state. A state without a `datasets` collection (one made for a narrower test) keeps
 * no dataset objects, so there every dataset exists, as ingest needed none before datasets were objects.
 */
export function catalogOf(state: State): Catalog {
  const datasets = has(state, DATASETS) ? state.collection(DATASETS) : undefined;
  const fields = has(state, VIRTUAL_FIELDS) ? state.collection(VIRTUAL_FIELDS) : undefined;
  return {
    exists: (name) => (datasets ? datasets.get(name) !== undefined : true),
    virtualFields: (dataset) =>
      (fields?.list() ?? [])
        .filter((v) => v.dataset === dataset)
        .map((v) => ({ name: String(v.name), expression: String(v.expression) })),
  };
}

/**
 * A catalog of a store alone: the datasets named exist (every dataset the store holds when none are named, though
 * a store forgets a dataset it trimmed empty), with the virtual fields given. A backtest's local store of fetched
 * events reads through this one.
 */
export function storeCatalog(
  store: EventStoreApi,
  options: {
    datasets?: readonly string[];
    virtualFields?: Readonly<Record<string, readonly CatalogVirtualField[]>>;
  } = {},
): Catalog {
  const names = options.datasets && new Set(options.datasets);
  return {
    exists: (name) => (names ? names.has(name) : store.events(name) !== undefined),
    virtualFields: (dataset) => [...(options.virtualFields?.[dataset] ?? [])],
  };
}
