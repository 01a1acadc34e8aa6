/** Organizations: `GET /v2/orgs`, `GET /v2/orgs/{id}` and `PUT /v2/orgs/{id}` (only the name changes). */
import { OrgUpdateSchema } from "../../provider/schemas";
import type { EmulatorContext } from "../context";
import { Router, validateOr400 } from "../http";
import { isoSeconds } from "../time";
import { registerCollection } from "./common";

/** Registers the organization routes. */
export function registerOrgs(router: Router, em: EmulatorContext): void {
  // The organization exists with the emulator: no POST, no DELETE (405), and PUT changes only the name.
  registerCollection(router, em, {
    path: "/v2/orgs",
    collection: em.state.orgs,
    deletable: false,
    update: (raw, current) => {
      const { name } = validateOr400(OrgUpdateSchema, raw);
      const version = Number(current.metaVersion ?? "0");
      return {
        ...current,
        name,
        metaModified: isoSeconds(),
        metaVersion: String(Number.isFinite(version) ? version + 1 : 1),
      };
    },
  });
}
