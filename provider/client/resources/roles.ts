/** RBAC roles: `/v2/rbac/roles`. */
import { z } from "zod";
import { RoleSchema, type Role, type RoleCreate, type RoleUpdate } from "../../schemas";
import { path } from "../path";
import { callOptions, type RequestOptions } from "../transport";
import { ApiResource } from "./base";

/** Create, read, update, delete and list roles. */
export class Roles extends ApiResource {
  /** Lists every role.
   * @see GET /v2/rbac/roles */
  async list(options?: RequestOptions): Promise<Role[]> {
    return this.transport.request({
      method: "GET",
      path: "/v2/rbac/roles",
      schema: z.array(RoleSchema),
      ...callOptions(options),
    });
  }

  /** Reads one role.
   * @see GET /v2/rbac/roles/{id} */
  async get(id: string, options?: RequestOptions): Promise<Role> {
    return this.transport.request({
      method: "GET",
      path: path`/v2/rbac/roles/${id}`,
      schema: RoleSchema,
      ...callOptions(options),
    });
  }

  /** Creates a role; a name already taken is a ConflictError.
   * @see POST /v2/rbac/roles */
  async create(body: RoleCreate, options?: RequestOptions): Promise<Role> {
    return this.transport.request({
      method: "POST",
      path: "/v2/rbac/roles",
      json: body,
      schema: RoleSchema,
      ...callOptions(options),
    });
  }

  /** Replaces a role.
   * @see PUT /v2/rbac/roles/{id} */
  async update(id: string, body: RoleUpdate, options?: RequestOptions): Promise<Role> {
    return this.transport.request({
      method: "PUT",
      path: path`/v2/rbac/roles/${id}`,
      json: body,
      schema: RoleSchema,
      ...callOptions(options),
    });
  }

  /** Deletes a role.
   * @see DELETE /v2/rbac/roles/{id} */
  async delete(id: string, options?: RequestOptions): Promise<void> {
    await this.transport.request({
      method: "DELETE",
      path: path`/v2/rbac/roles/${id}`,
      ...callOptions(options),
    });
  }
}
