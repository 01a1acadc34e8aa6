/**
 * Users: `/v2/users`, `/v2/users/{id}`, `/v2/users/{id}/role`, and the caller at `/v2/user`. The OpenAPI document
 * has no way to rename another user: only the caller renames themself (`PUT /v2/user`), and a role changes through
 * `PUT /v2/users/{id}/role`.
 */
import { z } from "zod";
import {
  UserSchema,
  type User,
  type UserCreate,
  type UserNameUpdate,
  type UserRoleUpdate,
} from "../../schemas";
import { path } from "../path";
import type { RequestOptions } from "../transport";
import { ApiResource } from "./base";

/**
 * List, read, invite and remove the organization's users, change a user's role, and read or rename the caller.
 * @see GET, POST /v2/users
 * @see GET, DELETE /v2/users/{id}
 * @see PUT /v2/users/{id}/role
 * @see GET, PUT /v2/user
 */
export class Users extends ApiResource {
  private listSchema?: z.ZodType<User[]>;

  /** Lists the organization's users.
   * @see GET /v2/users */
  async list(options?: RequestOptions): Promise<User[]> {
    return this.transport.request(
      { method: "GET", path: "/v2/users", schema: (this.listSchema ??= z.array(UserSchema)) },
      options,
    );
  }

  /** Reads one user; rejects with NotFoundError when the organization has no user of that id.
   * @see GET /v2/users/{id} */
  async get(id: string, options?: RequestOptions): Promise<User> {
    return this.transport.request(
      { method: "GET", path: path`/v2/users/${id}`, schema: UserSchema },
      options,
    );
  }

  /** Creates a user and invites them to the organization with a role (a built-in role's id or a custom role's
   * id); never sent twice. An email already in the organization is a ConflictError (409).
   * @see POST /v2/users */
  async create(body: UserCreate, options?: RequestOptions): Promise<User> {
    return this.transport.request(
      { method: "POST", path: "/v2/users", json: body, schema: UserSchema },
      options,
    );
  }

  /** Changes a user's role: a built-in role's id (`none`, `read-only`, `user`, `admin`, `owner`) or a custom
   * role's id.
   * @see PUT /v2/users/{id}/role */
  async setRole(id: string, body: UserRoleUpdate, options?: RequestOptions): Promise<User> {
    return this.transport.request(
      { method: "PUT", path: path`/v2/users/${id}/role`, json: body, schema: UserSchema },
      options,
    );
  }

  /** Removes a user from the organization.
   * @see DELETE /v2/users/{id} */
  async delete(id: string, options?: RequestOptions): Promise<void> {
    await this.transport.request({ method: "DELETE", path: path`/v2/users/${id}` }, options);
  }

  /** Reads the user the token acts for.
   * @see GET /v2/user */
  async me(options?: RequestOptions): Promise<User> {
    return this.transport.request({ method: "GET", path: "/v2/user", schema: UserSchema }, options);
  }

  /** Renames the user the token acts for (the only rename the API documents).
   * @see PUT /v2/user */
  async updateMe(body: UserNameUpdate, options?: RequestOptions): Promise<User> {
    return this.transport.request(
      { method: "PUT", path: "/v2/user", json: body, schema: UserSchema },
      options,
    );
  }
}
