/**
 * The emulator's registry of API families. A new management family is its route file (one
 * {@link CollectionFamily}) plus one line in {@link COLLECTION_FAMILIES}: its collection in the state, the
 * `--data` snapshot and journal, and its routes all follow from that line.
 */
import type { EmulatorContext } from "../context";
import { json } from "../http";
import { PUBLIC, type AccessRouter } from "../auth";
import { VERSION } from "../../provider/client/version";
import { openApiDocument } from "./openapi";

/** Where the emulator serves its OpenAPI document. */
export const OPENAPI_PATH = "/openapi.json";
import { annotations } from "./annotations";
import { dashboards } from "./dashboards";
import { datasets, datasetsV1 } from "./datasets";
import { registerCollection, type CollectionFamily } from "./common";
import { registerIngest } from "./ingest";
import { monitors } from "./monitors";
import { notifiers } from "./notifiers";
import { orgs } from "./orgs";
import { registerQueries } from "./query";
import { roles } from "./roles";
import { starredQueries } from "./starred";
import { views } from "./views";
import { groups } from "./groups";
import { users } from "./users";
import { virtualFields } from "./virtual-fields";
import { tokens } from "./tokens";

export type { CollectionFamily } from "./common";

/** Every management family, in the order the data file lists their collections. */
export const COLLECTION_FAMILIES: readonly CollectionFamily[] = [
  annotations,
  monitors,
  notifiers,
  roles,
  starredQueries,
  orgs,
  views,
  groups,
  users,
  virtualFields,
  tokens,
  dashboards,
  datasets,
];

/** The routes that are not a management family: events in and queries out. */
export const EVENT_ROUTES: readonly ((router: AccessRouter, em: EmulatorContext) => void)[] = [
  registerIngest,
  registerQueries,
];

/** Registers every route of the API, and `GET /openapi.json`, the document of them all (./openapi.ts). */
export function registerRoutes(router: AccessRouter, em: EmulatorContext): void {
  for (const family of COLLECTION_FAMILIES) registerCollection(router, em, family);
  // The same datasets under their v1 paths (axiom-py's); not a family of its own, so not in the data file twice.
  registerCollection(router, em, datasetsV1);
  for (const register of EVENT_ROUTES) register(router, em);
  let document: Record<string, unknown> | undefined;
  // Built at the first request, from the routes as registered (the document itself included).
  router.add("GET", OPENAPI_PATH, () => json((document ??= openApiDocument(router.list(), VERSION))), PUBLIC);
}
