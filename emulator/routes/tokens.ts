/**
 * API tokens: `GET/POST /v2/tokens`, `GET/DELETE /v2/tokens/{id}` and `POST /v2/tokens/{id}/regenerate`; no PUT
 * (a 405). The OpenAPI v2 document's `getAPITokens`, `createAPIToken`, `getAPIToken`, `deleteAPIToken` and
 * `regenerateAPIToken`, each needing its `apiTokens` action.
 *
 * - Create and regenerate answer the value (`token`, `xaat-` and a random UUID) once; GET and list never do, and
 *   echo exactly what create answered besides it (axiom-go axiom/tokens_integration_test.go:55-68,
 *   `s.Equal(s.apiToken, token)`).
 * - Regenerate makes a new token with a new id (`s.NotEqual(oldToken.ID, regeneratedToken.ID)`, :116), from
 *   `newToken` when given, else cloning the old one's name, description and capabilities (axiom/tokens.go:198-200).
 *   Its expiry is `newTokenExpiresAt`, else `newToken.expiresAt`, else none. The old token keeps working until
 *   `existingTokenExpiresAt` and is listed with that `expiresAt` (so it is no longer "unchanged" in the list,
 *   :87 and :130); emulator/auth.ts refuses it from then on.
 * - What is stored is a SHA-256 of the value, never the value (emulator/auth.ts): `--data` holds no credential,
 *   and the emulator recognizes the value after a restart.
 */
import { randomUUID } from "node:crypto";
import {
  API_TOKEN_PREFIX,
  TokenCreateSchema,
  TokenRegenerateSchema,
  type TokenCreate,
} from "../../provider/schemas";
import { TOKEN_HASH_FIELD, TOKENS_COLLECTION, orgNeed, tokenHash } from "../auth";
import { json, jsonObjectBody, validateBody } from "../http";
import type { StoredObject } from "../state";
import { getOr404, type CollectionFamily } from "./common";

type Capabilities = Record<string, unknown>;

/** A capability object without its empty action lists: the service omits them (`x-omitempty`). */
function omitEmpty(caps: Capabilities | undefined): Capabilities {
  const out: Capabilities = {};
  for (const [key, actions] of Object.entries(caps ?? {}))
    if (!Array.isArray(actions) || actions.length > 0) out[key] = actions;
  return out;
}

/** A map of name to capability object, each without its empty action lists. */
function omitEmptyNested(byName: Record<string, Capabilities> | undefined): Record<string, Capabilities> {
  return Object.fromEntries(Object.entries(byName ?? {}).map(([name, caps]) => [name, omitEmpty(caps)]));
}

/** The token's fields as the service answers them (without the value). */
function fields(body: TokenCreate, expiresAt: string | undefined) {
  return {
    name: body.name,
    description: body.description ?? "",
    expiresAt: expiresAt ?? null,
    datasetCapabilities: omitEmptyNested(
      body.datasetCapabilities as Record<string, Capabilities> | undefined,
    ),
    orgCapabilities: omitEmpty(body.orgCapabilities as Capabilities | undefined),
    viewCapabilities: omitEmptyNested(body.viewCapabilities as Record<string, Capabilities> | undefined),
    samlAuthenticated: false,
  };
}

/** What a reply shows of a stored token: everything but the hash of its value. */
function view(stored: StoredObject): Record<string, unknown> {
  const out: Record<string, unknown> = { ...stored };
  delete out[TOKEN_HASH_FIELD];
  return out;
}

/** The token family. */
export const tokens: CollectionFamily = {
  name: TOKENS_COLLECTION,
  idPrefix: "tok_",
  path: "/v2/tokens",
  capability: "apiTokens",
  routes: (col, em) => {
    /** Stores a new token of these fields and answers it with its value, the one time it is shown. */
    const mint = (made: ReturnType<typeof fields>) => {
      const value = `${API_TOKEN_PREFIX}${randomUUID()}`;
      const stored = col.set({ id: col.newId(), ...made, [TOKEN_HASH_FIELD]: tokenHash(value) });
      em.changed();
      return json({ ...view(stored), token: value });
    };
    return {
      view,
      // POST is registered below (it answers the value); there is no PUT.
      more: (router) => {
        router.add("POST", "/v2/tokens", (ctx) => {
          const body = validateBody(TokenCreateSchema, jsonObjectBody(ctx));
          return mint(fields(body, body.expiresAt));
        });
        router.add(
          "POST",
          "/v2/tokens/:id/regenerate",
          (ctx) => {
            const old = getOr404(col, ctx.params.id);
            const body = validateBody(TokenRegenerateSchema, jsonObjectBody(ctx));
            const from: TokenCreate = body.newToken ?? {
              name: old.name as string,
              description: old.description as string,
              datasetCapabilities: old.datasetCapabilities as TokenCreate["datasetCapabilities"],
              orgCapabilities: old.orgCapabilities as TokenCreate["orgCapabilities"],
              viewCapabilities: old.viewCapabilities as TokenCreate["viewCapabilities"],
            };
            const expiresAt = body.newTokenExpiresAt ?? body.newToken?.expiresAt;
            col.set({ ...old, expiresAt: body.existingTokenExpiresAt });
            return mint(fields(from, expiresAt));
            // Regenerating changes a token: `apiTokens` update, not the create a POST would otherwise need.
          },
          orgNeed("apiTokens", "update"),
        );
      },
    };
  },
};
