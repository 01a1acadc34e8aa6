/**
 * User: a member of the organization. POST `/v2/users` invites, GET `/v2/users/{id}` reads, a role change is
 * PUT `/v2/users/{id}/role`, and DELETE `/v2/users/{id}` removes the user from the organization.
 *
 * Terraform's provider sends every update as `PUT /v2/users/{id} {name}` (terraform-provider-axiom
 * axiom/resource_user.go:151, axiom-go `Users.Update`), so its role changes never reach the service; here a role
 * change is `PUT /v2/users/{id}/role`, the document's operation for it. The document has no way to rename another
 * user (only the caller renames themself, `PUT /v2/user`), so a change of `name` replaces the user, like a change
 * of `email`.
 */
import * as pulumi from "@pulumi/pulumi";
import { UserInputSchema } from "../schemas";
import { resourceProps, uniqueIdentityOptions, type ArgsMatchSchema, type Assert } from "./common";
import { KindResource } from "./kind-resource";
import { OUTPUT_KEYS, declaration } from "./user-kind";

/** A built-in role's id. */
export type BuiltInUserRole = "none" | "read-only" | "user" | "admin" | "owner";

/** Inputs of a {@link User}. */
export interface UserArgs {
  /** Required: the user's full name, non-empty. The API cannot rename another user, so a change replaces the user. */
  name: pulumi.Input<string>;
  /** Required: the user's email address, unique in the organization (a clash is a 409); a change replaces the user. */
  email: pulumi.Input<string>;
  /**
   * Required: a built-in role's id (`none`, `read-only`, `user`, `admin`, `owner`), or a custom role's id
   * (`Role.id`). Changes in place, through `PUT /v2/users/{id}/role`.
   */
  role: pulumi.Input<BuiltInUserRole | (string & {})>;
  /** Id of an existing user to take under management instead of inviting one; changing it replaces. */
  adopt?: pulumi.Input<string>;
}

type _ArgsMatchSchema = Assert<ArgsMatchSchema<UserArgs, typeof UserInputSchema>>;

/** A member of the organization, with a built-in or custom role. */
export class User extends KindResource {
  /** @internal The kind's declaration, which the dynamic provider's registry collects. */
  static readonly declaration = declaration;

  /** Full name. */
  declare readonly name: pulumi.Output<string>;
  /** Email address. */
  declare readonly email: pulumi.Output<string>;
  /** The role's id: a built-in role's id or a custom role's id. */
  declare readonly role: pulumi.Output<string>;
  /** The role's name, e.g. `Admin` or a custom role's name. */
  declare readonly roleName: pulumi.Output<string | undefined>;
  /** The adopted id, when the user was adopted. */
  declare readonly adopt: pulumi.Output<string | undefined>;

  /**
   * Declares a user of the organization. Replacements (a change of `email` or `name`) delete first
   * (`deleteBeforeReplace` defaults to true; yours wins): the email is unique, so a replacement invited first
   * would fail with 409. An adopted user keeps create-before-delete, since deleting first would remove the user
   * its replacement adopts, and `adopt` with an explicit `deleteBeforeReplace: true` is refused.
   */
  constructor(name: string, args: UserArgs, opts?: pulumi.CustomResourceOptions);
  /** @internal What {@link User.get} declares: no inputs, and the existing object's id in `opts`. */
  constructor(name: string, args: undefined, opts?: pulumi.CustomResourceOptions);
  constructor(name: string, args: UserArgs | undefined, opts?: pulumi.CustomResourceOptions) {
    const options = uniqueIdentityOptions(declaration.kind, name, args, opts);
    super(declaration, name, resourceProps(args, OUTPUT_KEYS), options);
  }

  /** Looks up an existing user by id without managing it. */
  static get(name: string, id: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): User {
    return new User(name, undefined, { ...opts, id });
  }
}
