/** RBAC groups: `/v2/rbac/groups`. */
import { GroupSchema, type Group, type GroupCreate, type GroupUpdate } from "../../schemas";
import type { RequestOptions } from "../transport";
import { CrudResource } from "./base";

/**
 * Create, read, update, delete and list groups; names are unique, so a clash is a ConflictError (409). A role
 * id the organization does not have is an UnprocessableEntityError (422) naming `roles[i]`.
 * @see GET, POST /v2/rbac/groups
 * @see GET, PUT, DELETE /v2/rbac/groups/{id}
 */
export class Groups extends CrudResource<Group, GroupCreate, GroupUpdate> {
  protected readonly collection = "/v2/rbac/groups";
  /** @internal The response schema (zod stays out of the published typings). */
  protected readonly schema = GroupSchema;

  /** Lists every group.
   * @see GET /v2/rbac/groups */
  async list(options?: RequestOptions): Promise<Group[]> {
    return this.listWith("", options);
  }
}
