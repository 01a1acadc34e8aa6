/**
 * Who a request comes from, and whether it may do what it asks: the one place the emulator decides both.
 *
 * - The development tokens (the emulator's API token, and its personal token with `X-Axiom-Org-Id` or
 *   `x-service-org-id`) may do everything, as before.
 * - An API token minted by `POST /v2/tokens` or `POST /v2/tokens/{id}/regenerate` may do exactly what its
 *   capabilities grant, as the capabilities of `CreateAPIToken` in the service's OpenAPI v2 document
 *   describe them; anything else is a 403. An expired one, and an old one past its regenerate's
 *   `existingTokenExpiresAt`, is refused.
 *
 * Each route declares what it needs (a {@link RouteAccess}, given to `router.add`; a management family declares
 * its `capability` once and its CRUD routes derive theirs, GET read, POST create, PUT update, DELETE delete). The
 * needs follow the OpenAPI v2 document's `security` of each operation (`monitors|read`, `datasets|create`, …). A
 * route that declares nothing is refused to minted tokens: an undeclared need must not mean "anything goes".
 *
 * Tokens are stored with a SHA-256 of their value, never the value: a `--data` file holds no credential, and the
 * emulator still recognizes the value after a restart.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { parseApl } from "./apl";
import { HttpError, queryParam, type RequestContext, type Router } from "./http";
import type { Collection, StoredObject } from "./state";

/** An action a capability allows. */
export type Action = "create" | "read" | "update" | "delete";

/** What one request needs of the caller. */
export type Need =
  /** Any authenticated caller (the OpenAPI document's `security: [{Auth: []}]`, e.g. `GET /v2/orgs`). */
  | { kind: "open" }
  /** Any caller, authenticated or not (the document's `security: []`); see {@link PUBLIC}. */
  | { kind: "public" }
  /** Only the development tokens; `why` tells an API token's holder why not. */
  | { kind: "developer"; why: string }
  /** `orgCapabilities[capability]` must include `action`. */
  | { kind: "org"; capability: string; action: Action }
  /**
   * `datasetCapabilities[d][capability]` must include `action` for every dataset `d` listed (the key `*` grants
   * every dataset); with none listed, for at least one dataset.
   */
  | { kind: "dataset"; capability: string; action: Action; datasets: readonly string[] };

/** What a route declares: a need, or how to tell it from the request (its path parameters, its body). */
export type RouteAccess = Need | ((ctx: RequestContext) => Need);

/** The emulator's router: each route carries its {@link RouteAccess}. */
export type AccessRouter = Router<RouteAccess>;

/** The action a method stands for on a management family. */
export function actionOf(method: string): Action {
  switch (method) {
    case "GET":
    case "HEAD":
      return "read";
    case "POST":
      return "create";
    case "DELETE":
      return "delete";
    default:
      return "update";
  }
}

/** `orgCapabilities[capability]` ⊇ [action]. */
export const orgNeed = (capability: string, action: Action): Need => ({ kind: "org", capability, action });

/** `datasetCapabilities[each of datasets][capability]` ⊇ [action]. */
export const datasetNeed = (capability: string, action: Action, datasets: readonly string[]): Need => ({
  kind: "dataset",
  capability,
  action,
  datasets,
});

/**
 * The dataset a request names, in its JSON body's `dataset` or its `dataset` query parameter; none when it names
 * none (a need on no dataset is met by the capability on any one). For families scoped by dataset: starred
 * queries, virtual fields.
 */
export function datasetsNamedBy(ctx: RequestContext): string[] {
  let dataset: unknown = queryParam(ctx.query, "dataset");
  if (ctx.body.length > 0) {
    try {
      dataset = (JSON.parse(ctx.body.toString("utf8")) as { dataset?: unknown } | null)?.dataset;
    } catch {
      // The handler answers a malformed body.
    }
  }
  return typeof dataset === "string" && dataset !== "" ? [dataset] : [];
}

/** Any authenticated caller. */
export const OPEN: Need = { kind: "open" };

/**
 * Any caller, with a token or without: the document's `security: []` (`POST /v2/orgs/provision`). The server
 * does not authenticate a request to a route that declares it.
 */
export const PUBLIC: Need = { kind: "public" };

/** The collection minted tokens live in (the tokens family's name; persisted, so never renamed). */
export const TOKENS_COLLECTION = "tokens";
/** The stored field holding a token's SHA-256; never answered, never logged. */
export const TOKEN_HASH_FIELD = "tokenHash";

/** The SHA-256 of a token value, hex: what is stored instead of the value. */
export function tokenHash(value: string): string {
  return createHash("sha256").update(value, "utf8").digest("hex");
}

/** Who sent a request. */
export type Principal =
  { kind: "development"; scope: "organization" | "user" } | { kind: "apiToken"; token: StoredObject };

/** The development tokens and organization the server was started with. */
export interface AuthSettings {
  token: string;
  /** Undefined when personal tokens are off (a host reachable from elsewhere, without one given). */
  personalToken: string | undefined;
  orgId: string;
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** When a token stops working, in ms; undefined when it never expires. */
function expiryMs(token: StoredObject): number | undefined {
  const at = token.expiresAt;
  if (typeof at !== "string" || at === "") return undefined;
  const ms = Date.parse(at);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * The organization a request names: `X-Axiom-Org-Id`, the live service's header (axiomhq/axiom-go axiom/client.go,
 * axiomhq/axiom-js packages/js/src/httpClient.ts, axiomhq/axiom-py src/axiom_py/client.py), or `x-service-org-id`,
 * the API document's. Both may come; when they disagree the request is refused (403) rather than one picked.
 */
export function organizationHeader(req: IncomingMessage): string | undefined {
  const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) || undefined;
  const live = first(req.headers["x-axiom-org-id"]);
  const spec = first(req.headers["x-service-org-id"]);
  if (live !== undefined && spec !== undefined && live !== spec) {
    throw new HttpError(403, "X-Axiom-Org-Id and x-service-org-id name different organizations");
  }
  return live ?? spec;
}

/**
 * The calls a personal token makes without naming an organization: who am I (`GET /v2/user`) and which
 * organizations may I use (`GET /v2/orgs`). axiomhq/axiom-go removes its organization header from exactly these two
 * (axiom/users.go `Current`, axiom/orgs.go `List`: "This call is org-less"), and `ValidateCredentials` checks a
 * personal token with the first, so the live service answers them without one.
 */
export function isOrgless(method: string, path: string): boolean {
  // `POST /v2/orgs` (createOrg) is marked `x-axiom-no-org-required` in the OpenAPI v2 document: a new organization
  // is not made in one.
  return (
    (method === "GET" && (path === "/v2/user" || path === "/v1/user" || path === "/v2/orgs")) ||
    (method === "POST" && path === "/v2/orgs")
  );
}

/**
 * Checks `Authorization` (and the organization header for the personal token, except on the {@link isOrgless}
 * calls, where an organization header, when sent, must still name the token's): the development tokens, else a
 * minted token found by the hash of its value and not expired. Every refusal is a 403 whose message never holds
 * the token.
 */
export function authenticate(
  req: IncomingMessage,
  s: AuthSettings,
  tokens: Collection | undefined,
  now = Date.now(),
  orgless = false,
): Principal {
  const header = req.headers.authorization;
  if (!header) throw new HttpError(403, "missing Authorization header; expected: Bearer <token>");
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) throw new HttpError(403, "malformed Authorization header; expected: Bearer <token>");
  const value = m[1];
  if (sameSecret(value, s.token)) return { kind: "development", scope: "organization" };
  if (s.personalToken !== undefined && sameSecret(value, s.personalToken)) {
    const org = organizationHeader(req);
    if (org === undefined && orgless) return { kind: "development", scope: "user" };
    if (org === undefined) {
      throw new HttpError(
        403,
        "a personal access token needs the X-Axiom-Org-Id (or x-service-org-id) header naming the organization",
      );
    }
    if (org !== s.orgId)
      throw new HttpError(403, "the organization header does not name an organization of this token");
    return { kind: "development", scope: "user" };
  }
  const hash = tokenHash(value);
  const token = tokens
    ?.list()
    .find((t) => typeof t[TOKEN_HASH_FIELD] === "string" && sameSecret(hash, t[TOKEN_HASH_FIELD]));
  if (!token) throw new HttpError(403, "invalid token");
  const expires = expiryMs(token);
  if (expires !== undefined && expires <= now) {
    throw new HttpError(403, `API token ${token.id} expired at ${String(token.expiresAt)}`);
  }
  return { kind: "apiToken", token };
}

/** The actions `caps[capability]` grants; none when the shape is anything else. */
function granted(caps: unknown, capability: string): readonly unknown[] {
  if (!caps || typeof caps !== "object") return [];
  const actions = (caps as Record<string, unknown>)[capability];
  return Array.isArray(actions) ? actions : [];
}

/** Whether the token's dataset capabilities grant `capability`/`action` on `dataset` (or on `*`). */
function grantsDataset(token: StoredObject, dataset: string, capability: string, action: Action): boolean {
  const byDataset = (token.datasetCapabilities ?? {}) as Record<string, unknown>;
  return [dataset, "*"].some(
    (key) => Object.hasOwn(byDataset, key) && granted(byDataset[key], capability).includes(action),
  );
}

/** The need a route declared, for this request. */
export function needOf(access: RouteAccess | undefined, ctx: RequestContext): Need | undefined {
  return typeof access === "function" ? access(ctx) : access;
}

/**
 * Refuses with 403 `{code, message}` what the caller may not do. The development tokens may do everything; a
 * minted token what its capabilities grant. `need` undefined (a route that declares nothing) is refused to
 * minted tokens.
 */
export function authorize(principal: Principal, need: Need | undefined): void {
  if (principal.kind === "development") return;
  const { token } = principal;
  const refuse = (what: string): never => {
    throw new HttpError(403, `forbidden: API token ${token.id} ${what}`);
  };
  if (need === undefined) {
    return refuse(
      "may not call this endpoint: it needs a capability the emulator does not grant to API tokens",
    );
  }
  switch (need.kind) {
    case "open":
    case "public":
      return;
    case "developer":
      return refuse(`may not do this: ${need.why}`);
    case "org":
      if (granted(token.orgCapabilities, need.capability).includes(need.action)) return;
      return refuse(`lacks orgCapabilities.${need.capability} ["${need.action}"]`);
    case "dataset": {
      if (need.datasets.length === 0) {
        const byDataset = (token.datasetCapabilities ?? {}) as Record<string, unknown>;
        if (Object.keys(byDataset).some((d) => grantsDataset(token, d, need.capability, need.action))) return;
        return refuse(`lacks datasetCapabilities.<any dataset>.${need.capability} ["${need.action}"]`);
      }
      const missing = need.datasets.filter((d) => !grantsDataset(token, d, need.capability, need.action));
      if (missing.length === 0) return;
      return refuse(
        `lacks datasetCapabilities[${JSON.stringify(missing[0])}].${need.capability} ["${need.action}"]`,
      );
    }
  }
}

/** `POST /v1/datasets/{name}/ingest`: `datasetCapabilities[name].ingest` ⊇ ["create"]. */
export const INGEST_ACCESS: RouteAccess = (ctx) => datasetNeed("ingest", "create", [ctx.params.name]);

/** The legacy `POST /v1/datasets/{name}/query`: `datasetCapabilities[name].query` ⊇ ["read"]. */
export const LEGACY_QUERY_ACCESS: RouteAccess = (ctx) => datasetNeed("query", "read", [ctx.params.name]);

/**
 * `POST /v1/datasets/_apl`: `query` ⊇ ["read"] on every dataset the APL reads (emulator/apl's parser names them
 * all: the source, and those of `union`, `join`, `lookup`, `table()`), so a token scoped to one dataset cannot read
 * another through a join. A wildcard (`union github*`, a leading `search`) may read any dataset, present or to come:
 * it needs the `*` key's rights. A query that reads none (`print`, `datatable`) or does not parse needs query rights
 * on some dataset: a token without gets 403 and learns nothing of the query.
 */
export const APL_QUERY_ACCESS: RouteAccess = (ctx) => {
  let datasets: string[] = [];
  try {
    const body: unknown = JSON.parse(ctx.body.toString("utf8"));
    const apl = (body as { apl?: unknown } | null)?.apl;
    if (typeof apl === "string")
      datasets = [...new Set(parseApl(apl).datasets.map((name) => (name.includes("*") ? "*" : name)))];
  } catch {
    // Malformed JSON or APL: the handler answers it, once the caller may query something.
  }
  return datasetNeed("query", "read", datasets);
};
