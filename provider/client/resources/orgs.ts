/** Organizations: `/v2/orgs`. Orgs are listed, read and renamed; the API has no create or delete. */
import { z } from "zod";
import { OrgSchema, type Org, type OrgUpdate } from "../../schemas";
import { path } from "../path";
import type { RequestOptions } from "../transport";
import { ApiResource } from "./base";

/** List, read and rename organizations. */
export class Orgs extends ApiResource {
  /** Lists the organizations the token can see.
   * @see GET /v2/orgs */
  async list(options?: RequestOptions): Promise<Org[]> {
    return this.transport.request(
      {
        method: "GET",
        path: "/v2/orgs",
        schema: z.array(OrgSchema),
      },
      options,
    );
  }

  /** Reads one organization.
   * @see GET /v2/orgs/{id} */
  async get(id: string, options?: RequestOptions): Promise<Org> {
    return this.transport.request(
      {
        method: "GET",
        path: path`/v2/orgs/${id}`,
        schema: OrgSchema,
      },
      options,
    );
  }

  /** Renames an organization (only `name` may change).
   * @see PUT /v2/orgs/{id} */
  async update(id: string, body: OrgUpdate, options?: RequestOptions): Promise<Org> {
    return this.transport.request(
      {
        method: "PUT",
        path: path`/v2/orgs/${id}`,
        json: body,
        schema: OrgSchema,
      },
      options,
    );
  }
}
