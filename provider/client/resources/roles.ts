/** RBAC roles: `/v2/rbac/roles`. */
import { RoleSchema, type Role, type RoleCreate, type RoleUpdate } from "../../schemas";
import type { RequestOptions } from "../transport";
import { CrudResource } from "./base";

/**
 * Create, read, update, delete and list roles; names are unique, so a clash is a ConflictError (409).
 * @see GET, POST /v2/rbac/roles
 * @see GET, PUT, DELETE /v2/rbac/roles/{id}
 */
export class Roles extends CrudResource<Role, RoleCreate, RoleUpdate> {
  protected readonly collection = "/v2/rbac/roles";
  /** @internal The response schema (zod stays out of the published typings). */
  protected readonly schema = RoleSchema;

  /** Lists every role.
   * @see GET /v2/rbac/roles */
  async list(options?: RequestOptions): Promise<Role[]> {
    return this.listWith("", options);
  }
}
