/**
 * ApiToken: an API token and its capabilities. POST/GET/DELETE `/v2/tokens[/{id}]`, POST
 * `/v2/tokens/{id}/regenerate`; the service has no PUT.
 *
 * Design (docs/resources/api-token.md says the same):
 * - The value, the output `token`, is in the answers to create and regenerate only. It is set then and carried
 *   over from the prior outputs by every other step (refresh, a change of nothing but the grace period), since
 *   the service never returns it again. It is a secret output.
 * - Any change of a declared token field rotates the token: `POST /v2/tokens/{current}/regenerate` with the
 *   declared body as `newToken` and `existingTokenExpiresAt` = now + `rotationGracePeriod`, so the old value
 *   keeps working for the grace period. Regenerate answers a new token with a new id, and a dynamic provider's
 *   update cannot change the resource's id. So the resource's id stays the first token's id, and the output
 *   `tokenId` holds the current token's id: read (refresh), update and delete follow `tokenId`, and a
 *   `ApiToken.get(name, id)` reads the token of that id. The ids a rotation retired (each still working until
 *   its grace period ends) are kept in `retiredTokenIds`, and destroy deletes them with the current one, so
 *   that no value of the resource works after it is destroyed.
 * - Adoption is refused at preview (check fails on `adopt`): the value of an existing token cannot be read.
 * - Uncertain creates: the token found cannot be taken, its value being lost with the answer; it is deleted as
 *   an orphan and the POST sent again (reconcile.ts, `valueLost`). It is recognised as the ones absent from
 *   the listing taken before the first POST whose body matches the declared one (tokens have no creation time).
 */
import * as pulumi from "@pulumi/pulumi";
import { ApiTokenInputSchema } from "../schemas";
import { resourceProps, withSecretOutputs, type ArgsMatchSchema, type Assert } from "./common";
import { KindResource } from "./kind-resource";
import type { CapabilityArgs, RoleAction } from "./role";
import { OUTPUT_KEYS, SECRET_OUTPUTS, declaration } from "./api-token-kind";

/** Inputs of an {@link ApiToken}. */
export interface ApiTokenArgs {
  /** Required: the token's name (need not be unique). */
  name: pulumi.Input<string>;
  /** Free text. Defaults to "". */
  description?: pulumi.Input<string>;
  /** RFC 3339 date-time when the token stops working. Defaults to never. */
  expiresAt?: pulumi.Input<string>;
  /** Dataset name (or `*` for every dataset) to capabilities: ingest [create], query [read], data [delete], trim/vacuum [update], share [create, read, delete], starredQueries/virtualFields CRUD. Defaults to none. */
  datasetCapabilities?: pulumi.Input<Record<string, pulumi.Input<CapabilityArgs>>>;
  /** Org-wide permissions, as a Role's: annotations, apiTokens, dashboards, datasets, endpoints, flows, integrations, monitors, notifiers, rbac, users, views allow CRUD; auditLog only read; billing and sharedAccessKeys read and update. Defaults to none. */
  orgCapabilities?: pulumi.Input<CapabilityArgs>;
  /** View name to capabilities: query [read], share [create, read, delete]. Defaults to none. */
  viewCapabilities?: pulumi.Input<Record<string, pulumi.Input<CapabilityArgs>>>;
  /** How long the old value keeps working after a change rotates the token: a duration such as "48h" or "30m". Defaults to "48h". Changing it alone rotates nothing. */
  rotationGracePeriod?: pulumi.Input<string>;
}

type _ArgsMatchSchema = Assert<ArgsMatchSchema<ApiTokenArgs, typeof ApiTokenInputSchema>>;

/** An API token: a credential with exactly the capabilities declared, rotated on every change. */
export class ApiToken extends KindResource {
  /** @internal The kind's declaration, which the dynamic provider's registry collects. */
  static readonly declaration = declaration;
  /** @internal Outputs always secret. */
  static readonly secretKeys = { outputs: SECRET_OUTPUTS };

  /** The token's name. */
  declare readonly name: pulumi.Output<string>;
  /** Free text. */
  declare readonly description: pulumi.Output<string | undefined>;
  /** When the token stops working; null or absent for never. */
  declare readonly expiresAt: pulumi.Output<string | null | undefined>;
  /** Per-dataset permissions. */
  declare readonly datasetCapabilities: pulumi.Output<
    Record<string, Record<string, RoleAction[]>> | undefined
  >;
  /** Org-wide permissions. */
  declare readonly orgCapabilities: pulumi.Output<Record<string, RoleAction[]> | undefined>;
  /** Per-view permissions. */
  declare readonly viewCapabilities: pulumi.Output<Record<string, Record<string, RoleAction[]>> | undefined>;
  /** How long a rotation lets the old value work. */
  declare readonly rotationGracePeriod: pulumi.Output<string | undefined>;
  /** The value (`xaat-…`), secret; set at create and at each rotation, undefined on a resource from `get`. */
  declare readonly token: pulumi.Output<string | undefined>;
  /** The current token's id: the resource's id until the first rotation, the newest token's after. */
  declare readonly tokenId: pulumi.Output<string>;
  /** Ids of the tokens rotations retired (each works until its grace period ends); deleted on destroy. */
  declare readonly retiredTokenIds: pulumi.Output<string[] | undefined>;
  /** Whether the token was issued through SAML (server-set). */
  declare readonly samlAuthenticated: pulumi.Output<boolean | undefined>;

  /** Declares an API token; `token` is always a secret output. */
  constructor(name: string, args: ApiTokenArgs, opts?: pulumi.CustomResourceOptions);
  /** @internal What {@link ApiToken.get} declares: no inputs, and the existing object's id in `opts`. */
  constructor(name: string, args: undefined, opts?: pulumi.CustomResourceOptions);
  constructor(name: string, args: ApiTokenArgs | undefined, opts?: pulumi.CustomResourceOptions) {
    super(declaration, name, resourceProps(args, OUTPUT_KEYS), withSecretOutputs(opts, SECRET_OUTPUTS));
  }

  /** Looks up an existing token by id without managing it; its value is not known (`token` is undefined). */
  static get(name: string, id: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): ApiToken {
    return new ApiToken(name, undefined, { ...opts, id });
  }
}
