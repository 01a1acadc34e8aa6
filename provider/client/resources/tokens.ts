/** API tokens: `/v2/tokens`. Created, read, regenerated and deleted; the API has no update (no PUT). */
import { z } from "zod";
import { ApiTokenSchema, type ApiToken, type TokenCreate, type TokenRegenerate } from "../../schemas";
import { path } from "../path";
import type { RequestOptions } from "../transport";
import { ApiResource } from "./base";

/**
 * List, read, create, regenerate and delete API tokens. The value (`token`) is in the answers to `create` and
 * `regenerate` only; `get` and `list` never return it.
 * @see GET, POST /v2/tokens
 * @see GET, DELETE /v2/tokens/{id}
 * @see POST /v2/tokens/{id}/regenerate
 */
export class Tokens extends ApiResource {
  private listSchema?: z.ZodType<ApiToken[]>;

  /** Lists every API token of the organization (without values).
   * @see GET /v2/tokens */
  async list(options?: RequestOptions): Promise<ApiToken[]> {
    return this.transport.request(
      { method: "GET", path: "/v2/tokens", schema: (this.listSchema ??= z.array(ApiTokenSchema)) },
      options,
    );
  }

  /** Reads one token (without its value); rejects with NotFoundError when it does not exist.
   * @see GET /v2/tokens/{id} */
  async get(id: string, options?: RequestOptions): Promise<ApiToken> {
    return this.transport.request(
      { method: "GET", path: path`/v2/tokens/${id}`, schema: ApiTokenSchema },
      options,
    );
  }

  /** Creates a token; the answer carries its value in `token`, the only time but a regenerate. Never sent twice.
   * @see POST /v2/tokens */
  async create(body: TokenCreate, options?: RequestOptions): Promise<ApiToken> {
    return this.transport.request(
      { method: "POST", path: "/v2/tokens", json: body, schema: ApiTokenSchema },
      options,
    );
  }

  /**
   * Makes a new token (a new id and value) from an existing one: the old value keeps working until
   * `existingTokenExpiresAt`. Without `newToken` the new token copies the old one's name, description and
   * capabilities. Never sent twice.
   * @see POST /v2/tokens/{id}/regenerate
   */
  async regenerate(id: string, body: TokenRegenerate, options?: RequestOptions): Promise<ApiToken> {
    return this.transport.request(
      { method: "POST", path: path`/v2/tokens/${id}/regenerate`, json: body, schema: ApiTokenSchema },
      options,
    );
  }

  /** Deletes a token: its value stops working at once.
   * @see DELETE /v2/tokens/{id} */
  async delete(id: string, options?: RequestOptions): Promise<void> {
    await this.transport.request({ method: "DELETE", path: path`/v2/tokens/${id}` }, options);
  }
}
